"""same-report.py A.json B.json: the findings and the translation units' status and findings of
two scan reports are equal (what the cache must not change); exits 1 with the difference."""
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])


def view(r):
    return {"findings": r["findings"], "by_check": r["by_check"], "by_file": r["by_file"],
            "units": [(t["file"], t["status"], t["exit"], t["findings"]) for t in r["translation_units"]]}


if view(a) != view(b):
    print("reports differ:\n%s\n%s" % (json.dumps(view(a), indent=1), json.dumps(view(b), indent=1)))
    sys.exit(1)
print("same report: %d findings, %d translation units" % (len(a["findings"]), len(a["translation_units"])))
