#!/usr/bin/env python3
"""Generates the checker's facts table (SyncFactsTable.inc) from sync-facts.yaml and the census tables.

  generate_facts.py --output SyncFactsTable.inc        the table that SyncFacts.cpp includes
  generate_facts.py --resolve-test names.cpp            a C++ file that names every qualified name of the
                                                        facts under the LibTorch versions each claims: it
                                                        compiles only where each name is declared as the
                                                        fact says (test/checks/facts-resolve.test). The
                                                        census rows name ATen overloads, not C++ names.
  generate_facts.py --list-reported                     the census overloads the checks report, one per line
                                                        (spelling, check, overload), for the docs' tests

Stops with a message (exit status 1) when the table is inconsistent: a fact without a category, names or
texts; a 'measured' reference that census-frontend.tsv lacks or that did not synchronize; an ATen overload
measured to block the host that no fact covers and no census rule classifies.
"""
import argparse
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))

CATEGORIES = {
    "item": "Item", "print": "Print", "device-to-host": "DeviceToHost", "boolean-mask": "BooleanMask",
    "dynamic-shape": "DynamicShape", "device-index": "DeviceIndex", "explicit": "Explicit",
}
HEADER_VERSIONS = ["1.13", "2.11"]
CENSUS_VERSION = "2.11"
NONEMPTY = "non-empty inputs:"


class TableError(Exception):
    pass


def c_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


# ------------------------------------------------------------------------------------------------------------
# Schemas and parameter kinds.

def split_top(text):
    """Splits a schema's argument list at its top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_schema(schema):
    """[(type, name, kwarg_only, is_out)] of 'aten::f.o(Tensor self, *, Tensor(a!) out) -> Tensor(a!)'."""
    start = schema.index("(")
    depth, end = 0, None
    for i in range(start, len(schema)):
        if schema[i] == "(":
            depth += 1
        elif schema[i] == ")":
            depth -= 1
            if depth == 0:
                end = i
                break
    args, kwarg_only = [], False
    for part in split_top(schema[start + 1:end]):
        if part == "*":
            kwarg_only = True
            continue
        decl = part.split("=")[0].strip()
        type_, _, name = decl.rpartition(" ")
        args.append((type_, name, kwarg_only, "!" in type_ and kwarg_only))
    return args


SCHEMA_KINDS = {
    "Tensor": "T", "Tensor?": "T?", "Tensor[]": "T[]", "Tensor?[]": "T?[]", "Scalar": "S", "Scalar?": "S?",
    "int": "i", "SymInt": "i", "int?": "i?", "SymInt?": "i?", "float": "f", "float?": "f?", "bool": "b",
    "bool?": "b?", "int[]": "i[]", "SymInt[]": "i[]", "int[]?": "i[]?", "SymInt[]?": "i[]?",
    "ScalarType": "dt", "ScalarType?": "dt?",
}


def schema_kind(type_):
    """The kind of a schema type as SyncFacts.cpp's parameterKind() computes it for the C++ parameter."""
    t = re.sub(r"\([^)]*\)", "", type_)          # alias annotations: Tensor(a!)
    t = re.sub(r"\[[0-9]+\]", "[]", t)            # int[2] -> int[]
    return SCHEMA_KINDS.get(t, "o")


def spellings(overload, schema):
    """The C++ spellings of an overload: (name, is_method, kinds), with the TensorOptions form of factories."""
    base = overload.split("::", 1)[1].split(".")[0]
    args = parse_schema(schema)
    plain = [a for a in args if not a[3]]
    outs = [a for a in args if a[3]]

    def kinds(seq):
        ks = [schema_kind(a[0]) for a in seq]
        names = [a[1] for a in seq]
        forms = [ks]
        # dtype, layout, device, pin_memory are one TensorOptions parameter in the C++ API's first form.
        for i in range(len(names) - 3):
            if names[i:i + 4] == ["dtype", "layout", "device", "pin_memory"]:
                forms.append(ks[:i] + ["opts"] + ks[i + 4:])
        return [",".join(f) for f in forms]

    result = []
    if outs:
        for k in kinds(outs + plain):
            result.append((base + "_out", False, k))
        for k in kinds(plain + outs):
            result.append((base + "_outf", False, k))
    else:
        for k in kinds(plain):
            result.append((base, False, k))
        if plain and plain[0][1] == "self" and schema_kind(plain[0][0]) == "T":
            for k in kinds(plain[1:]):
                result.append((base, True, k))
    return result


def short_mechanism(mechanism):
    """'cudaStreamSynchronize x2; DtoH 5 B in 2 copies (pinned)' -> '2 stream waits, 5 B copied to the host'."""
    parts = []
    waits = {"cudaStreamSynchronize": "stream wait", "cudaDeviceSynchronize": "device wait",
             "cudaEventSynchronize": "event wait", "cudaMemcpy": "synchronous copy", "cudaFree": "free"}
    for api, noun in waits.items():
        m = re.search(rf"\b{api} x(\d+)", mechanism)
        if m:
            n = int(m.group(1))
            parts.append(f"{n} {noun}{'s' if n > 1 else ''}")
    m = re.search(r"DtoH (\d+) B", mechanism)
    if m:
        parts.append(f"{m.group(1)} B copied to the host")
    if "host waited with no synchronizing call" in mechanism:
        parts.append("a hidden wait")
    return ", ".join(parts) or mechanism


# ------------------------------------------------------------------------------------------------------------
# Loading and checking.

def load(yaml_path, aten_path, frontend_path):
    with open(yaml_path) as f:
        table = yaml.safe_load(f)
    facts = table["facts"]
    for i, fact in enumerate(facts):
        where = f"fact {i + 1} ({fact.get('method') or fact.get('function')})"
        if fact.get("category") not in CATEGORIES:
            raise TableError(f"{where}: unknown category '{fact.get('category')}'")
        if not fact.get("method") and not fact.get("function"):
            raise TableError(f"{where}: neither 'method' nor 'function'")
        for field in ("effect", "alternative", "source"):
            if not fact.get(field):
                raise TableError(f"{where}: no '{field}'")
        for v in fact.get("versions", HEADER_VERSIONS):
            if v not in HEADER_VERSIONS:
                raise TableError(f"{where}: version {v} is not one the tests parse ({HEADER_VERSIONS})")
    frontend = {}
    with open(frontend_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            function, arguments, verdict, _ = line.rstrip("\n").split("\t")
            frontend[f"{function} | {arguments}"] = verdict
    for fact in facts:
        ref = fact.get("measured")
        if ref and frontend.get(ref) != "yes":
            raise TableError(f"fact {fact.get('function') or fact.get('method')}: census-frontend.tsv has no "
                             f"synchronizing row '{ref}' (found: {frontend.get(ref)})")
    census = []
    with open(aten_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            overload, kernel, verdict, cases, condition, mechanism, schema = line.rstrip("\n").split("\t")
            census.append(dict(overload=overload, kernel=kernel, verdict=verdict, cases=cases,
                               condition=condition, mechanism=mechanism, schema=schema))
    return table, census


def fact_spellings(fact):
    """(name, is_method) pairs a fact covers: its method, and its function when in namespace at or torch."""
    out = set()
    if fact.get("method"):
        out.add((fact["method"], True))
    fn = fact.get("function", "")
    for ns in ("::at::", "::torch::"):
        if fn.startswith(ns) and "::" not in fn[len(ns):]:
            out.add((fn[len(ns):], False))
    return out


def measured_syncs(table, census):
    """The census overloads the checks report through the census path, with their texts."""
    facts = table["facts"]
    covered = set()
    for fact in facts:
        covered |= fact_spellings(fact)
    rules = [(re.compile(f"(?:{r['pattern']})$"), r) for r in table.get("census_rules", [])]
    rows = []
    unclassified = []
    for row in census:
        reportable = row["verdict"] == "always" or (
            row["verdict"] == "depends" and row["condition"].startswith(NONEMPTY))
        if not reportable or not row["schema"]:
            continue
        base = row["overload"].split("::", 1)[1].split(".")[0]
        stem = base[:-1] if base.endswith("_") and not base.startswith("_") else base
        for name, is_method, kinds in spellings(row["overload"], row["schema"]):
            if (name, is_method) in covered:
                continue  # the fact's own check reports it, with its argument conditions
            texts = None
            for pattern, rule in rules:
                if pattern.match(stem):
                    texts = (rule["category"], rule["effect"], rule["alternative"])
                    break
            if texts is None:
                # An out= or in-place spelling of a fact's operator: that fact's texts.
                for fact in facts:
                    names = {n for n, _ in fact_spellings(fact)}
                    if stem in names or base in names:
                        texts = (fact["category"], fact["effect"], fact["alternative"])
                        break
            if texts is None:
                unclassified.append(row["overload"])
                break
            rows.append(dict(row, name=name, method=is_method, kinds=kinds, category=texts[0], effect=texts[1],
                             alternative=texts[2]))
    if unclassified:
        raise TableError("census overloads that block the host but match no fact and no census rule "
                         "(add a rule to sync-facts.yaml): " + ", ".join(sorted(set(unclassified))))
    # For torch-sync-transitive: a C++ name all of whose measured overloads sync.
    verdicts = {}
    for row in census:
        if not row["schema"] or row["verdict"] == "not-run":
            continue
        for name, is_method, _ in spellings(row["overload"], row["schema"]):
            verdicts.setdefault((name, is_method), set()).add(
                row["verdict"] == "always" or row["condition"].startswith(NONEMPTY))
    for r in rows:
        r["all_sync"] = verdicts.get((r["name"], r["method"])) == {True}
    return rows


# ------------------------------------------------------------------------------------------------------------
# Outputs.

def camel(key):
    return "".join(p.capitalize() for p in key.split("_"))


def write_inc(table, rows, out):
    lines = ["// Generated by checker/facts/generate_facts.py from sync-facts.yaml, census-aten.tsv and",
             "// census-frontend.tsv. Do not edit: edit those and rebuild.", "",
             "static const SyncFact GeneratedFacts[] = {"]
    for fact in table["facts"]:
        versions = fact.get("versions", HEADER_VERSIONS)
        lines.append(
            f"    {{SyncCategory::{CATEGORIES[fact['category']]}, {c_str(fact.get('method', ''))}, "
            f"{c_str(fact.get('function', ''))}, {c_str(fact['effect'])}, {c_str(fact['alternative'])}, "
            f"{c_str(fact['source'])}, {c_str(fact.get('tensor_value_parameter', ''))}, "
            f"{'true' if fact.get('unconditional') else 'false'}, {c_str(', '.join(versions))}, "
            f"{c_str(fact.get('measured', ''))}, {'true' if fact.get('null_pointer_is_no_op') else 'false'}}},")
    lines += ["};", "", "static const MeasuredSync GeneratedMeasuredSyncs[] = {"]
    for r in rows:
        effect = f"{r['effect']} (measured: {short_mechanism(r['mechanism'])})"
        lines.append(
            f"    {{{c_str(r['overload'])}, {c_str(r['name'])}, {'true' if r['method'] else 'false'}, "
            f"{c_str(r['kinds'])}, SyncCategory::{CATEGORIES[r['category']]}, {c_str(effect)}, "
            f"{c_str(r['alternative'])}, {c_str(r['mechanism'])}, {c_str(r['cases'])}, "
            f"{'true' if r['all_sync'] else 'false'}}},")
    lines += ["};", ""]
    for key, spec in table.get("api_lists", {}).items():
        lines.append(f"// {key}: {spec['source']}")
        lines.append(f"static const llvm::StringRef ApiList{camel(key)}[] = {{" +
                     ", ".join(c_str(n) for n in spec["names"]) + "};")
    lines += ["", "static llvm::ArrayRef<llvm::StringRef> generatedApiList(ApiList List) {", "  switch (List) {"]
    for key in table.get("api_lists", {}):
        lines.append(f"  case ApiList::{camel(key)}:\n    return ApiList{camel(key)};")
    lines += ["  }", "  return {};", "}", ""]
    out.write("\n".join(lines))


def write_api_enum(table, out):
    out.write("// Generated by checker/facts/generate_facts.py from sync-facts.yaml (api_lists). Do not edit.\n")
    for key in table.get("api_lists", {}):
        out.write(f"{camel(key)},\n")


def write_resolve_test(table, out):
    """A C++ file that compiles only if every qualified name of the table is declared as the table says."""
    capitalized = set(table["api_lists"]["capitalized_namespaces"]["names"])
    out.write("// Generated by checker/facts/generate_facts.py --resolve-test. Each fact's name is named under\n"
              "// the LibTorch versions it claims; a missing or moved declaration fails to compile.\n"
              "#include <torch/torch.h>\n#include <torch/script.h>\n#include <ATen/cuda/CUDAEvent.h>\n"
              "#include <c10/cuda/CUDAStream.h>\n#include <c10/cuda/CUDAFunctions.h>\n"
              "#include <c10/cuda/CUDACachingAllocator.h>\n#include <cuda.h>\n#include <cuda_runtime_api.h>\n"
              "#define TS_VERSION (TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR)\n\n")

    def guard(versions):
        conds = []
        for v in versions:
            major, minor = v.split(".")
            conds.append(f"TS_VERSION == {int(major) * 100 + int(minor)}")
        return " || ".join(conds)

    n = 0
    for fact in table["facts"]:
        versions = fact.get("versions", HEADER_VERSIONS)
        n += 1
        condition = guard(versions)
        if fact.get("cuda_before"):
            major, minor = fact["cuda_before"].split(".")
            condition = f"({condition}) && CUDART_VERSION < {int(major) * 1000 + int(minor) * 10}"
        out.write(f"#if {condition}\n")
        if fact.get("method"):
            out.write(f"struct ts_method_{n} : ::at::Tensor {{ using ::at::Tensor::{fact['method']}; }};\n")
        fn = fact.get("function")
        if fn:
            parts = fn[2:].split("::")
            scope, member = parts[:-1], parts[-1]
            if scope and scope[-1][:1].isupper() and scope[-1] not in capitalized:
                # A member of a class: the class must be declared under this very name (a redeclaration
                # fails when the name is an alias of a class elsewhere), and the member must exist.
                cls = "::" + "::".join(scope)
                if len(scope) > 1:
                    out.write(f"namespace {'::'.join(scope[:-1])} {{ struct {scope[-1]}; }}\n")
                out.write(f"struct ts_member_{n} : {cls} {{ using {cls}::{member}; }};\n")
            elif scope:
                out.write(f"namespace ts_function_{n} {{ using ::{'::'.join(scope)}::{member}; }}\n")
            else:
                out.write(f"namespace ts_function_{n} {{ using ::{member}; }}\n")
        out.write("#endif\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", default=os.path.join(HERE, "sync-facts.yaml"))
    ap.add_argument("--census-aten", default=os.path.join(HERE, "census-aten.tsv"))
    ap.add_argument("--census-frontend", default=os.path.join(HERE, "census-frontend.tsv"))
    ap.add_argument("--output", help="SyncFactsTable.inc to write")
    ap.add_argument("--api-enum", help="SyncFactsApiLists.inc to write (the ApiList enumerators)")
    ap.add_argument("--resolve-test", help="C++ file to write that names every qualified name")
    ap.add_argument("--list-reported", action="store_true")
    args = ap.parse_args()
    try:
        table, census = load(args.facts, args.census_aten, args.census_frontend)
        rows = measured_syncs(table, census)
    except (TableError, yaml.YAMLError, OSError, KeyError, ValueError) as e:
        print(f"generate_facts: {e}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w") as out:
            write_inc(table, rows, out)
    if args.api_enum:
        with open(args.api_enum, "w") as out:
            write_api_enum(table, out)
    if args.resolve_test:
        with open(args.resolve_test, "w") as out:
            write_resolve_test(table, out)
    if args.list_reported:
        for r in rows:
            print(f"{'Tensor::' if r['method'] else 'at::'}{r['name']}\t{r['category']}\t{r['overload']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
