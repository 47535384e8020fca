#!/usr/bin/env python3
"""edit_page.py PAGE (replace OLD NEW | replace-hand-written OLD NEW | drop-generated): edits a copy of a docs page
for facts-docs.test. 'replace' changes OLD (which must occur) everywhere; 'replace-hand-written' only before the
generated section; 'drop-generated' cuts the page at the start of its generated section."""
import sys

BEGIN = "<!-- BEGIN GENERATED: census -->"

path, action = sys.argv[1], sys.argv[2]
with open(path) as f:
    text = f.read()
cut = text.index(BEGIN)
if action == "drop-generated":
    text = text[:cut]
else:
    old, new = sys.argv[3], sys.argv[4]
    if action == "replace":
        assert old in text, f"'{old}' is not in {path}"
        text = text.replace(old, new)
    elif action == "replace-hand-written":
        assert old in text[:cut], f"'{old}' is not in the hand-written part of {path}"
        text = text[:cut].replace(old, new) + text[cut:]
    else:
        sys.exit(f"unknown action '{action}'")
with open(path, "w") as f:
    f.write(text)
