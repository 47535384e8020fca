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
  generate_facts.py --docs docs/checks                  rewrites the generated section of each check page
                                                        (between '<!-- BEGIN GENERATED: census -->' and
                                                        '<!-- END GENERATED: census -->', created when absent):
                                                        the census overloads the page's check reports, those of
                                                        its rules that sync under some arguments only, and what
                                                        the census measured of its facts; README.md lists the
                                                        overloads that match no rule, and ../census.md (next
                                                        to the folder) the census's figures
  generate_facts.py --check-docs docs/checks            exit status 1, with a diff, when a page's section differs
                                                        from what --docs writes, or when a fact's method or
                                                        function name is missing from its check's page outside
                                                        that section (test/docs/facts-docs.test)

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

# The categories of the table ('categories': name -> SyncCategory enumerator), set by load().
CATEGORIES = {}
HEADER_VERSIONS = ["1.13", "2.11"]
FACT_FIELDS = {"category", "method", "function", "effect", "alternative", "source", "tensor_value_parameter",
               "conditional", "versions", "measured", "null_pointer_is_no_op", "cuda_before",
               "alternative_for_size", "alternative_in_loop", "thrust"}
THRUST_KINDS = {"returns-to-host": "ReturnsToHost", "launches": "Launches"}
THRUST_HEADERS = ["execution_policy", "reduce", "count", "logical", "inner_product", "transform_reduce", "find",
                  "extrema", "copy", "remove", "unique", "transform", "fill", "sequence", "sort", "scan"]
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


def waits_for_whole_device(mechanism):
    """Whether a measured mechanism waits for all work queued on the device, not only the current stream's:
    a cudaDeviceSynchronize, a cudaFree, or a synchronous cudaMemcpy (counted as 'cudaMemcpy xN')."""
    return bool(re.search(r"\b(cudaDeviceSynchronize|cudaFree|cudaMemcpy) x\d", mechanism))


# ------------------------------------------------------------------------------------------------------------
# Loading and checking.

def load(yaml_path, aten_path, frontend_path):
    with open(yaml_path) as f:
        table = yaml.safe_load(f)
    CATEGORIES.clear()
    for c in table.get("categories") or []:
        if not isinstance(c, dict) or set(c) != {"name", "enumerator", "what"} or c["name"] in CATEGORIES:
            raise TableError(f"categories: each is {{name, enumerator, what}}, once: {c}")
        CATEGORIES[c["name"]] = c["enumerator"]
    if not CATEGORIES:
        raise TableError("no 'categories' in the table")
    facts = table["facts"]
    for i, fact in enumerate(facts):
        where = f"fact {i + 1} ({fact.get('method') or fact.get('function')})"
        unknown = set(fact) - FACT_FIELDS
        if unknown:
            raise TableError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        if fact.get("category") not in CATEGORIES:
            raise TableError(f"{where}: unknown category '{fact.get('category')}'")
        if not fact.get("method") and not fact.get("function"):
            raise TableError(f"{where}: neither 'method' nor 'function'")
        for field in ("effect", "alternative", "source"):
            if not fact.get(field):
                raise TableError(f"{where}: no '{field}'")
        if "thrust" in fact and (fact["thrust"] not in THRUST_KINDS or
                                 not fact.get("function", "").startswith("::thrust::")):
            raise TableError(f"{where}: 'thrust' is one of {sorted(THRUST_KINDS)}, on a '::thrust::' function")
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


def base_and_stem(overload):
    """'aten::index_fill_.int_Tensor' -> ('index_fill_', 'index_fill'): the base name, and without the in-place _."""
    base = overload.split("::", 1)[1].split(".")[0]
    return base, base[:-1] if base.endswith("_") and not base.startswith("_") else base


def compiled_rules(table):
    for r in table.get("census_rules", []):
        if r.get("category") not in CATEGORIES or not r.get("effect") or not r.get("alternative"):
            raise TableError(f"census rule '{r.get('pattern')}': needs a known category, an effect and an alternative")
    return [(re.compile(f"(?:{r['pattern']})$"), r) for r in table.get("census_rules", [])]


def census_texts(table, rules, overload):
    """(category, effect, alternative, via) for an overload's spellings that no fact names: the first census rule
    matching its base name, else the fact of the same operator (an out= or in-place spelling of it), else None.
    via is ('rule', pattern) or ('fact', the fact's name)."""
    base, stem = base_and_stem(overload)
    for pattern, rule in rules:
        if pattern.match(stem):
            return rule["category"], rule["effect"], rule["alternative"], ("rule", rule["pattern"])
    for fact in table["facts"]:
        names = {n for n, _ in fact_spellings(fact)}
        if stem in names or base in names:
            return fact["category"], fact["effect"], fact["alternative"], ("fact", fact_name(fact))
    return None


def fact_named(table, name):
    """The fact that fact_name() names name."""
    return next(f for f in table["facts"] if fact_name(f) == name)


def is_conditional(fact):
    """Whether a fact's check reports it only under argument conditions: a tensor value parameter, or
    'conditional: true' (the checks' own argument rules)."""
    return bool(fact.get("tensor_value_parameter") or fact.get("conditional"))


def fact_name(fact):
    """How the docs name a fact: its function without the leading '::', else 'Tensor::' and its method."""
    if fact.get("function"):
        return fact["function"][2:]
    return "Tensor::" + fact["method"]


def measured_syncs(table, census):
    """The census overloads the checks report through the census path, with their texts."""
    facts = table["facts"]
    covered = set()
    for fact in facts:
        covered |= fact_spellings(fact)
    rules = compiled_rules(table)
    rows = []
    unclassified = []
    for row in census:
        reportable = row["verdict"] == "always" or (
            row["verdict"] == "depends" and row["condition"].startswith(NONEMPTY))
        if not reportable or not row["schema"]:
            continue
        for name, is_method, kinds in spellings(row["overload"], row["schema"]):
            if (name, is_method) in covered:
                continue  # the fact's own check reports it, with its argument conditions
            texts = census_texts(table, rules, row["overload"])
            if texts is None:
                unclassified.append(row["overload"])
                break
            if texts[3][0] == "fact" and is_conditional(fact_named(table, texts[3][1])):
                # The fact's check reports its operator under argument conditions ('histc' without a range,
                # 'repeat_interleave' without 'output_size', a tensor value) that the census's cases did not
                # vary: its other spellings are not reported rather than reported under every argument.
                continue
            rows.append(dict(row, name=name, method=is_method, kinds=kinds, category=texts[0], effect=texts[1],
                             alternative=texts[2], via=texts[3]))
    if unclassified:
        raise TableError("census overloads that block the host but match no fact and no census rule "
                         "(add a rule to sync-facts.yaml): " + ", ".join(sorted(set(unclassified))))
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
            f"{c_str(', '.join(versions))}, "
            f"{c_str(fact.get('measured', ''))}, {'true' if fact.get('null_pointer_is_no_op') else 'false'}, "
            f"{c_str(fact.get('alternative_for_size', ''))}, {c_str(fact.get('alternative_in_loop', ''))}, "
            f"ThrustKind::{THRUST_KINDS.get(fact.get('thrust'), 'None')}}},")
    lines += ["};", "", "static const MeasuredSync GeneratedMeasuredSyncs[] = {"]
    for r in rows:
        effect = f"{r['effect']} (measured: {short_mechanism(r['mechanism'])})"
        lines.append(
            f"    {{{c_str(r['overload'])}, {c_str(r['name'])}, {'true' if r['method'] else 'false'}, "
            f"{c_str(r['kinds'])}, SyncCategory::{CATEGORIES[r['category']]}, {c_str(effect)}, "
            f"{c_str(r['alternative'])}, {c_str(r['mechanism'])}, {c_str(r['cases'])}, "
            f"{'true' if waits_for_whole_device(r['mechanism']) else 'false'}}},")
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


def write_categories(table, out):
    out.write("// Generated by checker/facts/generate_facts.py from sync-facts.yaml (categories). Do not edit.\n")
    out.write("// TORCH_SYNC_CATEGORY(Enumerator, name, what)\n")
    for c in table["categories"]:
        out.write(f"TORCH_SYNC_CATEGORY({c['enumerator']}, {c_str(c['name'])}, {c_str(c['what'])})\n")


def write_resolve_test(table, out):
    """A C++ file that compiles only if every qualified name of the table is declared as the table says."""
    capitalized = set(table["api_lists"]["capitalized_namespaces"]["names"])
    out.write("// Generated by checker/facts/generate_facts.py --resolve-test. Each fact's name is named under\n"
              "// the LibTorch versions it claims; a missing or moved declaration fails to compile.\n"
              "#include <torch/torch.h>\n#include <torch/script.h>\n#include <ATen/cuda/CUDAEvent.h>\n"
              "#include <c10/cuda/CUDAStream.h>\n#include <c10/cuda/CUDAFunctions.h>\n"
              "#include <c10/cuda/CUDACachingAllocator.h>\n#include <cuda.h>\n#include <cuda_runtime_api.h>\n"
              "#define TS_VERSION (TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR)\n"
              "// Thrust's names are declared for a CUDA compilation only (facts-resolve.test parses the file\n"
              "// both ways).\n#if defined(__CUDA__)\n"
              + "".join(f"#include <thrust/{h}.h>\n" for h in THRUST_HEADERS) + "#endif\n\n")

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
        if fact.get("function", "").startswith("::thrust::"):
            condition = f"({condition}) && defined(__CUDA__)"
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


# ------------------------------------------------------------------------------------------------------------
# The check pages: docs/checks/<check>.md, each with a generated section of the census overloads it reports.

BEGIN = "<!-- BEGIN GENERATED: census -->"
END = "<!-- END GENERATED: census -->"
SECTION_HEADING = "## Operators measured by the census"
INDEX_HEADING = "## The census"
FIGURES_HEADING = "## Figures"
TRANSITIVE = "transitive"
# Where --docs creates the section in a page that has none: before this heading, else at the end.
INSERT_BEFORE = "## Suppressing"


def census_origin(aten_path):
    """'torch 2.11.0+cu130, CUDA 13.0, NVIDIA H200' from the first header line of census-aten.tsv."""
    with open(aten_path) as f:
        first = f.readline()
    m = re.match(r"# ATen operator census: (.*?), \d{4}-\d\d-\d\d;", first)
    return m.group(1) if m else "the census's machine"


def cell(text):
    """Text for a markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("<", "&lt;")


def code_list(names):
    return ", ".join(f"`{n}`" for n in names)


def spelling_names(spells):
    """['at::x', 'Tensor::x'] from (name, is_method) pairs, in order and without repeats."""
    out = []
    for name, is_method in spells:
        text = f"{'Tensor::' if is_method else 'at::'}{name}"
        if text not in out:
            out.append(text)
    return out


def condition_text(condition):
    """The measured condition of a 'depends' row, without the table separator."""
    return condition.replace(" | no sync: ", ". No sync: ")


def docs_model(table, census, frontend_rows, rows):
    """What each page lists: {page: {'reported': [...], 'depends': [...], 'facts': [...], 'transitive': [...]}};
    page is a check's name or 'README' (the index, for overloads that match no rule)."""
    facts = table["facts"]
    rules = compiled_rules(table)
    pages = {p: {"reported": [], "depends": [], "facts": [], "transitive": [], "rules": table.get("census_rules", [])}
             for p in list(CATEGORIES) + [TRANSITIVE, "README"]}
    # Reported through the census path: one entry per overload and source of texts.
    by_overload = {}
    for r in rows:
        key = (r["category"], r["overload"])
        if key not in by_overload:
            by_overload[key] = dict(r, spells=[])
            pages[r["category"]]["reported"].append(by_overload[key])
        by_overload[key]["spells"].append((r["name"], r["method"]))
    coverage = {}
    for fact in facts:
        for spell in fact_spellings(fact):
            coverage.setdefault(spell, []).append(fact)
    for row in census:
        if not row["schema"] or row["verdict"] not in ("always", "depends"):
            continue
        spells = [(n, m) for n, m, _ in spellings(row["overload"], row["schema"])]
        covering = {}   # category -> (spellings, fact names) of the facts that name a spelling
        uncovered = []
        for spell in spells:
            if spell in coverage:
                for fact in coverage[spell]:
                    entry = covering.setdefault(fact["category"], ([], []))
                    if spell not in entry[0]:
                        entry[0].append(spell)
                    if fact_name(fact) not in entry[1]:
                        entry[1].append(fact_name(fact))
            elif spell not in uncovered:
                uncovered.append(spell)
        reportable = row["verdict"] == "always" or row["condition"].startswith(NONEMPTY)
        if reportable:
            # The facts' own spellings, which the fact's check reports: what the census measured of them.
            for category, (spells_of, _) in covering.items():
                pages[category]["facts"].append(dict(row, calls=spelling_names(spells_of)))
            continue
        # Syncs under some arguments only: on the page of each fact that names a spelling, and on the page the
        # census rules (or the facts of the same operator) give the others; the index when none does.
        for category, (_, names) in covering.items():
            pages[category]["depends"].append(dict(row, reported_by=names))
        if uncovered:
            texts = census_texts(table, rules, row["overload"])
            page = texts[0] if texts else "README"
            if page not in covering:
                pages[page]["depends"].append(dict(row, reported_by=[]))
    # The C++ frontend and CUDA API rows whose function a fact names.
    for fact in facts:
        name = fact.get("function", "")[2:]
        for fr in frontend_rows:
            if name and fr["function"] == name:
                pages[fact["category"]]["facts"].append(dict(
                    calls=[name], overload=None, arguments=fr["arguments"], synced=fr["verdict"],
                    mechanism=fr["mechanism"]))
    # torch-sync-transitive: every overload a check reports from the census counts inside a body too (the
    # summaries ask CallSync.h, which asks findMeasuredSync, as the checks do): how many, by check.
    for category in CATEGORIES:
        count = len(pages[category]["reported"])
        if count:
            pages[TRANSITIVE]["transitive"].append((category, count))
    return pages


def render_section(page, model, origin):
    """The lines between BEGIN and END for a page."""
    out = [BEGIN,
           "<!-- Written by 'python3 checker/facts/generate_facts.py --docs docs/checks' from checker/facts/"
           " (sync-facts.yaml, census-aten.tsv, census-frontend.tsv); edit those and re-run it."
           " test/docs/facts-docs.test checks that this section is current. -->", ""]
    census_link = "../census.md"
    if page == "README":
        out += [f"Overloads that the [census]({census_link}) ({origin}) measured to synchronize under some "
                "arguments only and that no census rule or fact assigns to a check. None is reported.", ""]
        out += depends_table(model["depends"], with_reported=False)
        out.append(END)
        return out
    check = f"torch-sync-{page}"
    if page == TRANSITIVE:
        out += [f"Measured by the [census]({census_link}) on {origin}.", "",
                "### Census overloads counted inside a body", ""]
        if model["transitive"]:
            out += ["A call in a body this check follows is a sync when it spells an overload that a check "
                    "reports from the census (the same name and parameter kinds, on a tensor not provably on the "
                    "CPU), as that check asks of the call where it is written. The overloads are listed on the "
                    "page of the check that reports them:", ""]
            for category, count in model["transitive"]:
                out.append(f"- [torch-sync-{category}]({category}.md#reported-from-the-census): {count} "
                           f"overload{'s' if count != 1 else ''}.")
            out.append("")
        else:
            out += ["None.", ""]
        out.append(END)
        return out
    out += [f"Measured by the [census]({census_link}) on {origin}. *cases*: the measured inputs that synchronized, "
            "of those run; *mechanism*: the synchronizing CUDA calls and the bytes copied (pinned or pageable host "
            "memory) in the first synchronizing case with non-empty tensors, of which the diagnostic quotes the "
            "waits and the bytes copied to the host.", "",
            "### Reported from the census", ""]
    if model["reported"]:
        out += [f"The census measured these overloads to block the host on every input (or every non-empty "
                f"input), and no hand-written fact names their C++ spelling: {check} reports each call whose "
                "name and parameter kinds are the overload's (a `Tensor::` spelling only where `at::Tensor` "
                "declares the method), on tensors not provably on the CPU, with the effect and alternative "
                "named above its table and the measurement in parentheses.", ""]
        # One table per census rule, in the table's order, then one per text of the facts whose operators'
        # other spellings (out=, in-place, method or function) were measured.
        groups = {}
        for r in model["reported"]:
            kind, name = r["via"]
            key = ("rule", name) if kind == "rule" else ("fact", r["effect"], r["alternative"])
            entry = groups.setdefault(key, ([], []))
            if name not in entry[0]:
                entry[0].append(name)
            entry[1].append(r)
        order = [("rule", rule["pattern"]) for rule in table_rules(model)]
        keys = [k for k in order if k in groups] + sorted(k for k in groups if k[0] == "fact")
        for key in keys:
            names, entries = groups[key]
            first = entries[0]
            if key[0] == "rule":
                out.append(f"Census rule `{key[1]}`: '{first['effect']}'; consider {first['alternative']}.")
            else:
                out.append(f"Other spellings (out=, in-place, method or function) of the "
                           f"{'facts' if len(names) > 1 else 'fact'} {code_list(sorted(names))}, with "
                           f"{'their' if len(names) > 1 else 'its'} texts: '{first['effect']}'; consider "
                           f"{first['alternative']}.")
            out += ["", "| C++ spellings | overload | cases | mechanism |", "|---|---|---|---|"]
            for r in entries:
                out.append(f"| {code_list(spelling_names(r['spells']))} | `{r['overload']}` | {cases_text(r)} | "
                           f"{cell(r['mechanism'])} |")
            out.append("")
    else:
        out += [f"None: the census measured no overload that {check} reports by a census rule.", ""]
    out += ["### Measured to synchronize under some arguments only", ""]
    if model["depends"]:
        out += ["Some measured inputs synchronized and others did not (not only the empty ones): no census "
                "rule reports these. Where a hand-written fact of this page names the operator, the fact "
                "reports it as this page describes.", ""]
        out += depends_table(model["depends"], with_reported=True)
    else:
        out += ["None.", ""]
    out += ["### Hand-written facts the census measured", ""]
    if model["facts"]:
        out += ["The ATen overloads named by this page's facts that synchronized on every input (or every "
                "non-empty one), and the C++ frontend and CUDA API calls of its facts (one measured call each; "
                "`census-frontend.tsv`).", "",
                "| call | measured on | synced | mechanism |", "|---|---|---|---|"]
        for r in model["facts"]:
            mech = cell(r["mechanism"]) if r["mechanism"] else "none"
            if r["overload"]:
                out.append(f"| {code_list(r['calls'])} | `{r['overload']}` | {cases_text(r, ' cases')} | {mech} |")
            else:
                out.append(f"| {code_list(r['calls'])} | {cell(r['arguments'] or '(no arguments)')} | "
                           f"{r['synced']} | {mech} |")
        out.append("")
    else:
        out += ["None.", ""]
    out.append(END)
    return out


def table_rules(model):
    return model.get("rules", [])


def cases_text(row, unit=""):
    """'4/4', or for an overload that synced on its non-empty inputs only, '1/4 (the other 3 empty)'."""
    text = row["cases"] + unit
    if row["verdict"] == "depends" and row["condition"].startswith(NONEMPTY):
        synced, run = (int(x) for x in row["cases"].split("/"))
        text += f" (the other {run - synced} empty)"
    return text


def depends_table(entries, with_reported):
    if not entries:
        return ["None.", ""]
    head = "| overload | cases | measured inputs |" + (" reported |" if with_reported else "")
    rule = "|---|---|---|" + ("---|" if with_reported else "")
    out = [head, rule]
    for r in entries:
        line = f"| `{r['overload']}` | {r['cases']} | {cell(condition_text(r['condition']))} |"
        if with_reported:
            line += f" by the fact {code_list(r['reported_by'])} |" if r["reported_by"] else " no |"
        out.append(line)
    out.append("")
    return out


def page_path(docs_dir, page):
    if page == CENSUS_PAGE:
        return os.path.join(os.path.dirname(os.path.abspath(docs_dir)), "census.md")
    return os.path.join(docs_dir, "README.md" if page == "README" else f"{page}.md")


def split_page(text):
    """(before, section, after) of a page's text around the generated section, or None without one."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        return None
    end += len(END)
    return text[:begin], text[begin:end], text[end:]


def with_section(text, section, page):
    """The page's text with its generated section replaced, or created under its heading."""
    parts = split_page(text)
    if parts:
        return parts[0] + section + parts[2]
    heading = {"README": INDEX_HEADING, CENSUS_PAGE: FIGURES_HEADING}.get(page, SECTION_HEADING)
    block = f"{heading}\n\n{section}\n\n"
    at = text.find("\n" + INSERT_BEFORE + "\n")
    if at < 0:
        return text.rstrip("\n") + "\n\n" + block.rstrip("\n") + "\n"
    return text[:at + 1] + block + text[at + 1:]


def frontend_table(frontend_path):
    rows = []
    with open(frontend_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            function, arguments, verdict, mechanism = line.rstrip("\n").split("\t")
            rows.append(dict(function=function, arguments=arguments, verdict=verdict, mechanism=mechanism))
    return rows


CENSUS_PAGE = "CENSUS"  # docs/census.md, next to the checks' folder: the census's figures


def not_run_reason(condition):
    """The class of a not-run row's first recorded error (census-aten.tsv's condition column)."""
    if condition.startswith("no input fitted"):
        return "no input could be built"
    if condition.startswith("crashed") or condition.startswith("hung"):
        return "the worker crashed or hung"
    if re.search(r"CUDA error|device-side assert|illegal memory access|unspecified launch", condition):
        return "a CUDA error"
    if "a tensor for the" in condition:
        return "refused every input tried, the first because it gave a tensor for a number parameter"
    return "refused every input tried"


def render_figures(table, census, rows, frontend_rows, aten_path):
    """The lines between BEGIN and END in docs/census.md: the figures of census-aten.tsv and census-frontend.tsv."""
    with open(aten_path) as f:
        header = [next(f), next(f)]
    m = re.search(r"of (\d+) aten operators", header[1])
    all_aten = m.group(1) if m else "?"
    origin = census_origin(aten_path)
    kinds = {"cuda": "with a CUDA kernel", "composite-explicit": "composite (explicit autograd), no CUDA kernel",
             "composite-implicit": "composite (implicit autograd), no CUDA kernel"}
    synced = run_cases = 0
    for row in census:
        a, b = (int(x) for x in row["cases"].split("/"))
        synced, run_cases = synced + a, run_cases + b
    count = lambda pred: sum(1 for r in census if pred(r))  # noqa: E731
    ran = lambda r: r["verdict"] != "not-run"  # noqa: E731
    out = [BEGIN,
           "<!-- Written by 'python3 checker/facts/generate_facts.py --docs docs/checks' from checker/facts/"
           "census-aten.tsv and census-frontend.tsv; re-run it after summarize.py. test/docs/facts-docs.test "
           "checks that this section is current. -->", "",
           f"From `checker/facts/census-aten.tsv` and `census-frontend.tsv` ({origin}).", "",
           "| ATen overloads | count | run |", "|---|---|---|",
           f"| `aten::` overloads registered | {all_aten} | |",
           f"| with a CUDA kernel or a composite one: measured | {len(census)} | {count(ran)} |"]
    for kind, text in kinds.items():
        out.append(f"| {text} | {count(lambda r: r['kernel'] == kind)} | "
                   f"{count(lambda r: r['kernel'] == kind and ran(r))} |")
    out += ["", f"The {count(ran)} overloads that ran were measured on {run_cases} cases, of which {synced} "
            "synchronized.", "", "| verdict | overloads |", "|---|---|",
            f"| always: every case synchronized | {count(lambda r: r['verdict'] == 'always')} |",
            f"| depends: every case with non-empty tensors synchronized, every case with an empty one did not | "
            f"{count(lambda r: r['verdict'] == 'depends' and r['condition'].startswith(NONEMPTY))} |",
            f"| depends: on other arguments | "
            f"{count(lambda r: r['verdict'] == 'depends' and not r['condition'].startswith(NONEMPTY))} |",
            f"| never | {count(lambda r: r['verdict'] == 'never')} |",
            f"| not run | {count(lambda r: r['verdict'] == 'not-run')} |"]
    reasons = {}
    for r in census:
        if r["verdict"] == "not-run":
            key = not_run_reason(r["condition"])
            reasons[key] = reasons.get(key, 0) + 1
    for key in sorted(reasons, key=lambda k: -reasons[k]):
        out.append(f"| not run: {key} | {reasons[key]} |")
    reportable = [r for r in census if r["verdict"] == "always" or
                  (r["verdict"] == "depends" and r["condition"].startswith(NONEMPTY))]
    by_census = {r["overload"] for r in rows}
    out += ["", f"Of the {len(reportable)} overloads that synchronized on every case (or every non-empty one), "
            f"{len(by_census)} are reported through the census, in "
            f"{len({(r['name'], r['method']) for r in rows})} C++ spellings "
            f"({len({(r['name'], r['method'], r['kinds']) for r in rows})} with their parameter kinds); every "
            f"spelling of the other {len({r['overload'] for r in reportable} - by_census)} is named by a "
            "hand-written fact, whose check reports it. By check:", "",
            "| check | overloads | C++ spellings |", "|---|---|---|"]
    for category in CATEGORIES:
        mine = [r for r in rows if r["category"] == category]
        if mine:
            out.append(f"| [torch-sync-{category}](checks/{category}.md#operators-measured-by-the-census) | "
                       f"{len({r['overload'] for r in mine})} | {len({(r['name'], r['method']) for r in mine})} |")
    verdicts = {}
    for fr in frontend_rows:
        verdicts[fr["verdict"]] = verdicts.get(fr["verdict"], 0) + 1
    fact_pages = {}
    for fact in table["facts"]:
        if fact.get("function"):
            fact_pages.setdefault(fact["function"][2:], fact["category"])
    out += ["", f"The C++ half measured {len(frontend_rows)} calls: {verdicts.get('yes', 0)} synchronized, "
            f"{verdicts.get('no', 0)} did not, {verdicts.get('error', 0)} raised an error. Those that "
            "synchronized, with the check of the hand-written fact that names the function:", "",
            "| function | arguments | mechanism | fact |", "|---|---|---|---|"]
    for fr in frontend_rows:
        if fr["verdict"] != "yes":
            continue
        page = fact_pages.get(fr["function"])
        fact = f"[torch-sync-{page}](checks/{page}.md)" if page else "none"
        out.append(f"| `{fr['function']}` | {cell(fr['arguments']) or '(none)'} | {cell(fr['mechanism'])} | {fact} |")
    out += ["", "Those that did not: " + ", ".join(
        f"`{fr['function']}` ({cell(fr['arguments'])})" if fr["arguments"] else f"`{fr['function']}`"
        for fr in frontend_rows if fr["verdict"] == "no") + ".", ""]
    out.append(END)
    return out


def expected_sections(table, census, rows, args):
    frontend_rows = frontend_table(args.census_frontend)
    model = docs_model(table, census, frontend_rows, rows)
    origin = census_origin(args.census_aten)
    sections = {page: "\n".join(render_section(page, model[page], origin)) for page in model}
    sections[CENSUS_PAGE] = "\n".join(render_figures(table, census, rows, frontend_rows, args.census_aten))
    return sections


def name_documented(fact_name_text, is_method, text):
    """Whether a fact's method or qualified function name appears in text as a whole name."""
    pattern = (r"(?<![A-Za-z0-9_])" if is_method else r"(?<![A-Za-z0-9_:])") + re.escape(fact_name_text) + \
        r"(?![A-Za-z0-9_])"
    return re.search(pattern, text) is not None


def write_docs(table, census, rows, args):
    for page, section in expected_sections(table, census, rows, args).items():
        path = page_path(args.docs, page)
        with open(path) as f:
            text = f.read()
        new = with_section(text, section, page)
        if new != text:
            with open(path, "w") as f:
                f.write(new)


def check_docs(table, census, rows, args):
    """Messages for every page whose generated section is stale, and every fact its page does not name."""
    import difflib
    problems = []
    texts = {}
    for page, section in expected_sections(table, census, rows, args).items():
        path = page_path(args.check_docs, page)
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            problems.append(f"{path}: {e.strerror}")
            continue
        parts = split_page(text)
        if not parts:
            problems.append(f"{path}: no generated census section ('{BEGIN}' ... '{END}'); run "
                            f"generate_facts.py --docs {args.check_docs}")
            texts[page] = text
            continue
        texts[page] = parts[0] + parts[2]
        if parts[1] != section:
            diff = difflib.unified_diff(parts[1].splitlines(), section.splitlines(), f"{path} (as written)",
                                        f"{path} (as generate_facts.py --docs would write it)", lineterm="", n=1)
            problems.append(f"{path}: the generated census section is out of date; run generate_facts.py --docs "
                            f"{args.check_docs}\n" + "\n".join(diff))
    for fact in table["facts"]:
        page = fact["category"]
        if page not in texts:
            continue
        for field, is_method in (("method", True), ("function", False)):
            name = fact.get(field)
            if not name:
                continue
            name = name[2:] if name.startswith("::") else name
            if not name_documented(name, is_method, texts[page]):
                problems.append(f"{page_path(args.check_docs, page)}: the {field} '{name}' of a torch-sync-{page} "
                                "fact is not named outside the generated section")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", default=os.path.join(HERE, "sync-facts.yaml"))
    ap.add_argument("--census-aten", default=os.path.join(HERE, "census-aten.tsv"))
    ap.add_argument("--census-frontend", default=os.path.join(HERE, "census-frontend.tsv"))
    ap.add_argument("--output", help="SyncFactsTable.inc to write")
    ap.add_argument("--api-enum", help="SyncFactsApiLists.inc to write (the ApiList enumerators)")
    ap.add_argument("--categories", help="SyncCategories.inc to write (TORCH_SYNC_CATEGORY lines)")
    ap.add_argument("--resolve-test", help="C++ file to write that names every qualified name")
    ap.add_argument("--list-reported", action="store_true")
    ap.add_argument("--docs", metavar="DOCS_DIR", help="rewrite the generated census section of each check page")
    ap.add_argument("--check-docs", metavar="DOCS_DIR",
                    help="exit 1 when a generated census section differs from what --docs writes, or a fact's "
                         "name is missing from its check's page")
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
    if args.categories:
        with open(args.categories, "w") as out:
            write_categories(table, out)
    if args.api_enum:
        with open(args.api_enum, "w") as out:
            write_api_enum(table, out)
    if args.resolve_test:
        with open(args.resolve_test, "w") as out:
            write_resolve_test(table, out)
    if args.list_reported:
        for r in rows:
            print(f"{'Tensor::' if r['method'] else 'at::'}{r['name']}\t{r['category']}\t{r['overload']}")
    try:
        if args.docs:
            write_docs(table, census, rows, args)
        if args.check_docs:
            problems = check_docs(table, census, rows, args)
            for p in problems:
                print(f"generate_facts: {p}", file=sys.stderr)
            if problems:
                return 1
    except OSError as e:
        print(f"generate_facts: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
