"""The facts table: sync-facts.yaml and the census tables, loaded and checked, and what a fact names.

load() reads the table and the census's two TSV files and stops with a TableError on an inconsistent table:
a category, a fact without its names or texts, an unknown field, a 'measured' reference that census-frontend.tsv
lacks or that did not synchronize. The other modules of generate_facts.py (census_rows, facts_cpp, facts_docs)
and generate_cuda_waits.py read the table through it.
"""
import yaml

# The categories of the table ('categories': name -> SyncCategory enumerator), set by load().
CATEGORIES = {}
HEADER_VERSIONS = ["1.13", "2.11"]
FACT_FIELDS = {"category", "method", "function", "effect", "alternative", "source", "tensor_value_parameter",
               "conditional", "versions", "measured", "null_pointer_is_no_op", "cuda_before",
               "alternative_in_loop", "thrust", "async_copy"}
USE_FIELDS = {"use", "enumerator", "what", "alternative"}
CAPTURE_FIELDS = {"function", "launch", "effect", "alternative", "source", "relaxed_mode_allows", "measured",
                  "versions"}
CAPTURE_LAUNCHES = {"legacy-stream": "LegacyStream"}
THRUST_KINDS = {"returns-to-host": "ReturnsToHost", "launches": "Launches", "searches": "Searches"}
# The condition of a census 'depends' row that synchronized on its non-empty inputs only.
NONEMPTY = "non-empty inputs:"


class TableError(Exception):
    pass


def read_yaml(yaml_path):
    """The facts table as YAML reads it, unchecked."""
    with open(yaml_path) as f:
        return yaml.safe_load(f)


def load(yaml_path, aten_path, frontend_path):
    """(table, census): the facts table, checked, and the rows of census-aten.tsv; sets CATEGORIES."""
    table = read_yaml(yaml_path)
    CATEGORIES.clear()
    for c in table.get("categories") or []:
        if not isinstance(c, dict) or set(c) != {"name", "enumerator", "what"} or c["name"] in CATEGORIES:
            raise TableError(f"categories: each is {{name, enumerator, what}}, once: {c}")
        CATEGORIES[c["name"]] = c["enumerator"]
    if not CATEGORIES:
        raise TableError("no 'categories' in the table")
    uses = table.get("advice_by_use") or []
    for u in uses:
        if not isinstance(u, dict) or set(u) != USE_FIELDS or not all(u.values()):
            raise TableError(f"advice_by_use: each is {{{', '.join(sorted(USE_FIELDS))}}}: {u}")
        if not u["alternative"][:1].islower():
            raise TableError(f"advice_by_use {u['use']}: the alternative follows 'consider ', lower-case")
    if len({u["enumerator"] for u in uses}) != len(uses):
        raise TableError("advice_by_use: each enumerator once")
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
    check_capture_facts(table.get("capture_facts") or [])
    frontend = {f"{r['function']} | {r['arguments']}": r["verdict"] for r in read_frontend(frontend_path)}
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
            fields = line.rstrip("\n").split("\t")
            if len(fields) not in (7, 8):
                raise TableError(f"{aten_path}: a row of {len(fields)} columns, not 7 or 8: {fields[0]}")
            overload, kernel, verdict, cases, condition, mechanism, schema = fields[:7]
            census.append(dict(overload=overload, kernel=kernel, verdict=verdict, cases=cases,
                               condition=condition, mechanism=mechanism, schema=schema,
                               per_condition=per_condition(fields[7] if len(fields) == 8 else "")))
    return table, census


def check_capture_facts(capture_facts):
    """TableError unless each capture fact names one function or one launch kind, and has its texts."""
    for i, fact in enumerate(capture_facts):
        where = f"capture fact {i + 1} ({fact.get('function') or fact.get('launch')})"
        unknown = set(fact) - CAPTURE_FIELDS
        if unknown:
            raise TableError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        if bool(fact.get("function")) == bool(fact.get("launch")):
            raise TableError(f"{where}: either 'function' or 'launch'")
        if fact.get("launch") and fact["launch"] not in CAPTURE_LAUNCHES:
            raise TableError(f"{where}: 'launch' is one of {sorted(CAPTURE_LAUNCHES)}")
        for field in ("effect", "alternative", "source", "measured"):
            if not fact.get(field):
                raise TableError(f"{where}: no '{field}'")
        if not (fact["alternative"][:1].islower() or fact["alternative"][:1] == "'"):
            raise TableError(f"{where}: the alternative follows 'consider ', lower-case or a quoted name")
        for v in fact.get("versions", HEADER_VERSIONS):
            if v not in HEADER_VERSIONS:
                raise TableError(f"{where}: version {v} is not one the tests parse ({HEADER_VERSIONS})")


def per_condition(text):
    """[(condition, verdict, 'synced/run')] of census-aten.tsv's eighth column ('weight absent => never 0/1 |
    weight present => always 1/1'), which summarize.py writes for rows with hand-written or varied cases; []
    for a row without it."""
    out = []
    for part in text.split(" | ") if text else []:
        condition, _, result = part.rpartition(" => ")
        verdict, _, counts = result.partition(" ")
        if not condition or verdict not in ("always", "never", "depends"):
            raise TableError(f"census-aten.tsv: a verdict per condition that does not read: '{part}'")
        out.append((condition, verdict, counts))
    return out


def read_frontend(frontend_path):
    """The rows of census-frontend.tsv: {function, arguments, verdict, mechanism}."""
    rows = []
    with open(frontend_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            function, arguments, verdict, mechanism = line.rstrip("\n").split("\t")
            rows.append(dict(function=function, arguments=arguments, verdict=verdict, mechanism=mechanism))
    return rows


def synced_on_every_input(row):
    """Whether a census-aten.tsv row synchronized on every measured input, or on every non-empty one: the rows
    the checks report."""
    return row["verdict"] == "always" or (row["verdict"] == "depends" and row["condition"].startswith(NONEMPTY))


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


def fact_name(fact):
    """How the docs name a fact: its function without the leading '::', else 'Tensor::' and its method."""
    if fact.get("function"):
        return fact["function"][2:]
    return "Tensor::" + fact["method"]


def fact_named(table, name):
    """The fact that fact_name() names name."""
    return next(f for f in table["facts"] if fact_name(f) == name)


def is_conditional(fact):
    """Whether a fact's check reports it only under argument conditions: a tensor value parameter, or
    'conditional: true' (the checks' own argument rules)."""
    return bool(fact.get("tensor_value_parameter") or fact.get("conditional"))
