#!/usr/bin/env python3
"""Validates SARIF logs against the official SARIF 2.1.0 JSON schema.

Usage: validate-sarif.py [--schema FILE] SARIF...

The schema defaults to scripts/schemas/sarif-schema-2.1.0.json (the OASIS schema, see
scripts/schemas/README.md). Validation uses the jsonschema library (Debian: python3-jsonschema,
installed by scripts/install-deps.sh), with its format checker. When the interpreter running
this script lacks jsonschema, the script runs itself again with Debian's /usr/bin/python3.

Prints "SARIF.json: valid" per file, or each schema violation with its JSON path, and exits
0 when every log is valid, 1 when one is not, 2 on bad input (unreadable file, not JSON).
"""

import json
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import jsonschema
except ImportError:
    if (os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) !=
            os.path.realpath(SYSTEM_PYTHON) and not os.environ.get("TORCH_SYNC_VALIDATE_REEXEC")):
        os.environ["TORCH_SYNC_VALIDATE_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
    print("validate-sarif: error: the Python module jsonschema is missing; install it with "
          "scripts/install-deps.sh (Debian package python3-jsonschema)", file=sys.stderr)
    sys.exit(2)

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas",
                              "sarif-schema-2.1.0.json")


def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise SystemExit("validate-sarif: error: cannot read %s '%s': %s"
                         % (what, path, e.strerror or e))
    except (ValueError, UnicodeDecodeError) as e:
        raise SystemExit("validate-sarif: error: %s '%s' is not JSON: %s" % (what, path, e))


def main(argv):
    schema_path = DEFAULT_SCHEMA
    files = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a == "--schema":
            if i + 1 >= len(argv):
                print("validate-sarif: error: --schema needs a file", file=sys.stderr)
                return 2
            schema_path = argv[i + 1]
            i += 2
            continue
        if a.startswith("--schema="):
            schema_path = a.split("=", 1)[1]
        elif a.startswith("-") and a != "-":
            print("validate-sarif: error: unknown option '%s'" % a, file=sys.stderr)
            return 2
        else:
            files.append(a)
        i += 1
    if not files:
        print("validate-sarif: error: no SARIF file given (usage: validate-sarif.py "
              "[--schema FILE] SARIF...)", file=sys.stderr)
        return 2

    try:
        schema = load_json(schema_path, "schema")
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    except jsonschema.exceptions.SchemaError as e:
        print("validate-sarif: error: '%s' is not a valid JSON schema: %s"
              % (schema_path, e.message), file=sys.stderr)
        return 2

    status = 0
    for path in files:
        try:
            log = load_json(path, "SARIF log")
        except SystemExit as e:
            print(e, file=sys.stderr)
            return 2
        errors = sorted(validator.iter_errors(log), key=lambda e: [
            (0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path])
        if not errors:
            print("%s: valid SARIF %s" % (path, log.get("version", "?")
                                           if isinstance(log, dict) else "?"))
            continue
        status = 1
        for e in errors:
            where = "$" + "".join("[%d]" % p if isinstance(p, int) else ".%s" % p
                                  for p in e.absolute_path)
            print("%s: invalid: at %s: %s" % (path, where, e.message))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
