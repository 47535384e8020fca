"""The generated sections of the docs: the census section of each check page (docs/checks/<check>.md), of the
checks' index (docs/checks/README.md) and the census's figures (docs/census.md), rendered from the facts table
and the census (write_docs), and checked (check_docs: a stale section, a fact its page does not name).
"""
import difflib
import os
import re

from census_rows import census_texts, compiled_rules, spellings
from facts_table import CATEGORIES, NONEMPTY, fact_name, fact_spellings, read_frontend, synced_on_every_input

BEGIN = "<!-- BEGIN GENERATED: census -->"
END = "<!-- END GENERATED: census -->"
SECTION_HEADING = "## Operators measured by the census"
INDEX_HEADING = "## The census"
FIGURES_HEADING = "## Figures"
TRANSITIVE = "transitive"
# Where --docs creates the section in a page that has none: before this heading, else at the end.
INSERT_BEFORE = "## Suppressing"
CENSUS_PAGE = "CENSUS"  # docs/census.md, next to the checks' folder: the census's figures


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
        if synced_on_every_input(row):
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


def not_run_reason(condition):
    """The class of a not-run row's first recorded error (census-aten.tsv's condition column)."""
    if condition.startswith("no input fitted"):
        return "no input could be built"
    if condition.startswith("crashed") or condition.startswith("hung"):
        return "the worker crashed or hung"
    if condition.startswith("not reached before --time-limit"):
        return "not reached: the time limit stopped its worker"
    if condition.startswith("building inputs"):
        return "its hand-written inputs could not be built"
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
    reportable = [r for r in census if synced_on_every_input(r)]
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


def expected_sections(table, census, rows, aten_path, frontend_path):
    """{page: the text of its generated section}: the check pages, 'README' and CENSUS_PAGE."""
    frontend_rows = read_frontend(frontend_path)
    model = docs_model(table, census, frontend_rows, rows)
    origin = census_origin(aten_path)
    sections = {page: "\n".join(render_section(page, model[page], origin)) for page in model}
    sections[CENSUS_PAGE] = "\n".join(render_figures(table, census, rows, frontend_rows, aten_path))
    return sections


def name_documented(fact_name_text, is_method, text):
    """Whether a fact's method or qualified function name appears in text as a whole name."""
    pattern = (r"(?<![A-Za-z0-9_])" if is_method else r"(?<![A-Za-z0-9_:])") + re.escape(fact_name_text) + \
        r"(?![A-Za-z0-9_])"
    return re.search(pattern, text) is not None


def write_docs(table, census, rows, docs_dir, aten_path, frontend_path):
    """Rewrites the generated section of each page under docs_dir (and of census.md beside it)."""
    for page, section in expected_sections(table, census, rows, aten_path, frontend_path).items():
        path = page_path(docs_dir, page)
        with open(path) as f:
            text = f.read()
        new = with_section(text, section, page)
        if new != text:
            with open(path, "w") as f:
                f.write(new)


def check_docs(table, census, rows, docs_dir, aten_path, frontend_path):
    """Messages for every page whose generated section is stale, and every fact its page does not name."""
    problems = []
    texts = {}
    for page, section in expected_sections(table, census, rows, aten_path, frontend_path).items():
        path = page_path(docs_dir, page)
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            problems.append(f"{path}: {e.strerror}")
            continue
        parts = split_page(text)
        if not parts:
            problems.append(f"{path}: no generated census section ('{BEGIN}' ... '{END}'); run "
                            f"generate_facts.py --docs {docs_dir}")
            texts[page] = text
            continue
        texts[page] = parts[0] + parts[2]
        if parts[1] != section:
            diff = difflib.unified_diff(parts[1].splitlines(), section.splitlines(), f"{path} (as written)",
                                        f"{path} (as generate_facts.py --docs would write it)", lineterm="", n=1)
            problems.append(f"{path}: the generated census section is out of date; run generate_facts.py --docs "
                            f"{docs_dir}\n" + "\n".join(diff))
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
                problems.append(f"{page_path(docs_dir, page)}: the {field} '{name}' of a torch-sync-{page} "
                                "fact is not named outside the generated section")
    return problems
