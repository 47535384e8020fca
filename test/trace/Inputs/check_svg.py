"""Parses a torch-sync-trace SVG with xml.etree (so it must be well-formed) and prints what it shows.

Usage: check_svg.py SVG
"""
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
WAIT_GAP = "#d62728"

root = ET.parse(sys.argv[1]).getroot()
if root.tag != SVG + "svg":
    sys.exit("check_svg: root is %s" % root.tag)
timelines = [g for g in root.iter(SVG + "g") if g.get("class") == "timeline"]
print("timelines %d" % len(timelines))
for g in timelines:
    label = g.find(SVG + "title").text
    texts = [t.text or "" for t in g.iter(SVG + "text")]
    marks = [r for r in g.iter(SVG + "rect") if r.get("fill") == WAIT_GAP]
    rows = [t for t in texts if t.startswith("GPU ") or t.startswith("host ")]
    axis = [t for t in texts if t.endswith(" ms") or t.endswith(" us")]
    print("timeline %s: rows %s; wait gap marks %s; axis ticks %s" % (
        label, ", ".join(rows), "yes" if marks else "no", "yes" if len(axis) >= 3 else "no"))
legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
print("legend %s" % ("yes" if legend and len(list(legend[0].iter(SVG + "text"))) >= 5 else "no"))
