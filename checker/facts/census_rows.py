"""The census's measured syncs: the ATen overloads of census-aten.tsv that the checks report through the census
path, each in its C++ spellings (name, Tensor method or function, parameter kinds), with the texts of the census
rule or fact that classifies it (measured_syncs), and what the diagnostics quote of a measured mechanism.
"""
import re

from facts_table import CATEGORIES, TableError, fact_name, fact_named, fact_spellings, is_conditional, \
    synced_on_every_input


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
# The census rules and the rows they classify.

def base_and_stem(overload):
    """'aten::index_fill_.int_Tensor' -> ('index_fill_', 'index_fill'): the base name, and without the in-place _."""
    base = overload.split("::", 1)[1].split(".")[0]
    return base, base[:-1] if base.endswith("_") and not base.startswith("_") else base


def compiled_rules(table):
    """[(compiled pattern, rule)] of the table's census rules, in order; TableError for an incomplete rule."""
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
        if not synced_on_every_input(row) or not row["schema"]:
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
