"""The C++ that the checker compiles from the facts table, and the resolve test.

  SyncFactsTable.inc     the facts (SyncFact), the census's measured syncs (MeasuredSync) and the calls a graph
                         capture refuses (CaptureFact) as designated initialisers, and the API lists;
                         SyncFacts.cpp includes it
  SyncFactsApiLists.inc  the ApiList enumerators
  SyncCategories.inc     TORCH_SYNC_CATEGORY(Enumerator, name, what) lines
  the resolve test       a C++ file that names every qualified name of the facts (test/checks/facts-resolve.test)

The advice by use (advice_by_use) becomes UseAdvice initialisers naming the ValueUse enumerators of SyncFacts.h;
check_value_uses() stops the generator when the table and the enumeration name different uses.

SYNC_FACT_FIELDS, MEASURED_SYNC_FIELDS and CAPTURE_FACT_FIELDS are the one list of the structs' fields: each
initialiser names every field, in the order of checker/facts/SyncFacts.h, and check_struct_fields() stops the
generator when the header declares other fields or another order.
"""
import os
import re

from census_rows import short_mechanism, waits_for_whole_device
from facts_table import CAPTURE_LAUNCHES, CATEGORIES, HEADER_VERSIONS, THRUST_KINDS, TableError

SYNC_FACTS_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), "SyncFacts.h")
THRUST_HEADERS = ["execution_policy", "reduce", "count", "logical", "inner_product", "transform_reduce", "find",
                  "extrema", "copy", "remove", "unique", "transform", "fill", "sequence", "sort", "scan", "equal",
                  "mismatch", "partition", "binary_search", "set_operations", "for_each", "gather", "scatter",
                  "adjacent_difference", "transform_scan", "replace", "tabulate"]


def c_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_bool(value):
    return "true" if value else "false"


def c_category(name):
    return f"SyncCategory::{CATEGORIES[name]}"


# The fields of SyncFact and MeasuredSync (SyncFacts.h), in the structs' order, each with the C++ value of a
# fact (sync-facts.yaml) or a measured sync (census_rows.measured_syncs).
SYNC_FACT_FIELDS = (
    ("Category", lambda fact: c_category(fact["category"])),
    ("Method", lambda fact: c_str(fact.get("method", ""))),
    ("Function", lambda fact: c_str(fact.get("function", ""))),
    ("Effect", lambda fact: c_str(fact["effect"])),
    ("Alternative", lambda fact: c_str(fact["alternative"])),
    ("Source", lambda fact: c_str(fact["source"])),
    ("TensorValueParameter", lambda fact: c_str(fact.get("tensor_value_parameter", ""))),
    ("Versions", lambda fact: c_str(", ".join(fact.get("versions", HEADER_VERSIONS)))),
    ("Measured", lambda fact: c_str(fact.get("measured", ""))),
    ("NullPointerIsNoOp", lambda fact: c_bool(fact.get("null_pointer_is_no_op"))),
    ("LoopAlternative", lambda fact: c_str(fact.get("alternative_in_loop", ""))),
    ("Thrust", lambda fact: f"ThrustKind::{THRUST_KINDS.get(fact.get('thrust'), 'None')}"),
    ("AsyncCopy", lambda fact: c_bool(fact.get("async_copy"))),
)
MEASURED_SYNC_FIELDS = (
    ("Overload", lambda row: c_str(row["overload"])),
    ("CppName", lambda row: c_str(row["name"])),
    ("Method", lambda row: c_bool(row["method"])),
    ("Kinds", lambda row: c_str(row["kinds"])),
    ("Category", lambda row: c_category(row["category"])),
    ("Effect", lambda row: c_str(row["effect"])),
    ("Alternative", lambda row: c_str(row["alternative"])),
    ("Mechanism", lambda row: c_str(row["mechanism"])),
    ("MechanismSummary", lambda row: c_str(short_mechanism(row["mechanism"]))),
    ("Cases", lambda row: c_str(row["cases"])),
    ("DeviceWide", lambda row: c_bool(waits_for_whole_device(row["mechanism"]))),
)
CAPTURE_FACT_FIELDS = (
    ("Function", lambda fact: c_str(fact.get("function", ""))),
    ("Launch", lambda fact: f"CaptureLaunch::{CAPTURE_LAUNCHES.get(fact.get('launch'), 'None')}"),
    ("Effect", lambda fact: c_str(fact["effect"])),
    ("Alternative", lambda fact: c_str(fact["alternative"])),
    ("Source", lambda fact: c_str(fact["source"])),
    ("RelaxedModeAllows", lambda fact: c_bool(fact.get("relaxed_mode_allows"))),
    ("Measured", lambda fact: c_str(fact["measured"])),
)
STRUCTS = {"SyncFact": SYNC_FACT_FIELDS, "MeasuredSync": MEASURED_SYNC_FIELDS, "CaptureFact": CAPTURE_FACT_FIELDS}


def initialiser(fields, item):
    """'{.Field = value, ...}': every field named, in the struct's order."""
    return "{" + ", ".join(f".{name} = {value(item)}" for name, value in fields) + "}"


def struct_fields(header_text, struct):
    """The data members of 'struct <struct> { ... };' in a header, in order."""
    m = re.search(rf"^struct {struct} {{\n(.*?)^}};", header_text, re.M | re.S)
    if not m:
        return None
    return re.findall(r"^\s*(?!//)[A-Za-z_][\w:<>]*\s+(\w+)\s*(?:=[^;]*)?;\s*$", m.group(1), re.M)


def check_struct_fields(header_path=SYNC_FACTS_H):
    """TableError unless the header declares SyncFact's, MeasuredSync's and CaptureFact's fields as the lists above
    name them."""
    with open(header_path) as f:
        text = f.read()
    for struct, fields in STRUCTS.items():
        declared = struct_fields(text, struct)
        written = [name for name, _ in fields]
        if declared != written:
            raise TableError(f"{header_path}: struct {struct} declares the fields {declared}, but facts_cpp.py "
                             f"writes {written}; make them the same list, in the same order")


def value_uses(header_text):
    """The enumerators of 'enum class ValueUse { ... };' in a header, in order."""
    m = re.search(r"^enum class ValueUse {\n(.*?)^};", header_text, re.M | re.S)
    return re.findall(r"^\s*(\w+),", m.group(1), re.M) if m else None


def check_value_uses(table, header_path=SYNC_FACTS_H):
    """TableError unless advice_by_use names each ValueUse enumerator of the header once."""
    with open(header_path) as f:
        declared = value_uses(f.read())
    written = [u["enumerator"] for u in table["advice_by_use"]]
    if declared is None or sorted(declared) != sorted(written):
        raise TableError(f"{header_path}: enum ValueUse declares {declared}, but advice_by_use names {written}; "
                         f"make them the same set")


def camel(key):
    return "".join(p.capitalize() for p in key.split("_"))


def write_inc(table, rows, out):
    lines = ["// Generated by checker/facts/generate_facts.py from sync-facts.yaml, census-aten.tsv and",
             "// census-frontend.tsv. Do not edit: edit those and rebuild.", "",
             "static const SyncFact GeneratedFacts[] = {"]
    for fact in table["facts"]:
        lines.append(f"    {initialiser(SYNC_FACT_FIELDS, fact)},")
    lines += ["};", "", "static const MeasuredSync GeneratedMeasuredSyncs[] = {"]
    for r in rows:
        lines.append(f"    {initialiser(MEASURED_SYNC_FIELDS, r)},")
    lines += ["};", "", "static const CaptureFact GeneratedCaptureFacts[] = {"]
    for fact in table.get("capture_facts") or []:
        lines.append(f"    {initialiser(CAPTURE_FACT_FIELDS, fact)},")
    lines += ["};", "", "static const UseAdvice GeneratedUseAdvice[] = {"]
    for u in table["advice_by_use"]:
        lines.append(f"    {{ValueUse::{u['enumerator']}, {c_str(u['alternative'])}}},")
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
    # The facts, and the capture facts that name a function (their other fields are none of a fact's).
    named = table["facts"] + [f for f in table.get("capture_facts") or [] if f.get("function")]
    for fact in named:
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
