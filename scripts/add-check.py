#!/usr/bin/env python3
"""Creates a new torch-sync check, as clang-tidy's add_new_check.py does for upstream's checks.

Usage: scripts/add-check.py NAME "WHAT"
  NAME   the check's name without the prefix, lower case with dashes ("pinned-alloc" makes
         torch-sync-pinned-alloc)
  WHAT   what a call of the new category does to the host, as a noun phrase ("a pinned allocation
         that waits for the device"): the category's 'what' in the facts

It adds, in the repository this script belongs to (or --root DIR):
  - the category NAME to checker/facts/sync-facts.yaml ('categories'), which makes SyncCategory::<Name>;
  - checker/checks/<Name>Check.{h,cpp}: a check on the base's pipeline (SyncCheckBase: the facts of its
    category are found, placed, decided and reported), matching the methods and functions of its facts;
  - its registration in checker/checks/TorchSyncTidyModule.cpp and checker/CMakeLists.txt;
  - docs/checks/NAME.md, the check's page (summary, example, options, limitations), with the facts
    section generate_facts.py --docs writes;
  - test/checks/NAME.cpp, its lit test, which fails until the first fact and its expectation are written.
Then add the category's facts to sync-facts.yaml and CallSync.cpp's callSync() a case for the category
(CONTRIBUTING.md). Nothing is overwritten: an existing check or file of that name is an error (exit 2).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def camel(name):
    return "".join(part.capitalize() for part in name.split("-"))


def insert_sorted(lines, new, is_item):
    """Inserts the line new among the consecutive lines for which is_item holds, in sorted order."""
    items = [i for i, line in enumerate(lines) if is_item(line)]
    if not items:
        raise SystemExit("add-check: error: no place to insert %r" % new)
    at = next((i for i in items if lines[i] > new), items[-1] + 1)
    lines.insert(at, new)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name")
    ap.add_argument("what")
    ap.add_argument("--root", default=os.path.dirname(HERE))
    a = ap.parse_args()
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", a.name):
        print("add-check: error: NAME is lower case words joined by dashes, e.g. pinned-alloc", file=sys.stderr)
        return 2
    root, name, cls = a.root, a.name, camel(a.name) + "Check"
    enumerator = camel(a.name)
    paths = {
        "h": os.path.join(root, "checker", "checks", cls + ".h"),
        "cpp": os.path.join(root, "checker", "checks", cls + ".cpp"),
        "doc": os.path.join(root, "docs", "checks", name + ".md"),
        "test": os.path.join(root, "test", "checks", name + ".cpp"),
    }
    facts = os.path.join(root, "checker", "facts", "sync-facts.yaml")
    text = open(facts).read()
    if re.search(r"^  - \{name: %s," % re.escape(name), text, re.M) or any(map(os.path.exists, paths.values())):
        print("add-check: error: torch-sync-%s exists already" % name, file=sys.stderr)
        return 2

    # The category, last of the list.
    entries = list(re.finditer(r"^  - \{name: [a-z0-9-]+, enumerator: \w+, what: .*\}\n", text, re.M))
    end = entries[-1].end()
    what = a.what.replace('"', "'")
    text = text[:end] + '  - {name: %s, enumerator: %s, what: "%s"}\n' % (name, enumerator, what) + text[end:]
    open(facts, "w").write(text)

    guard = "TORCH_SYNC_%s_H" % cls.upper()
    open(paths["h"], "w").write(f"""//===--- {cls}.h - torch-sync-{name} ---===//
//
// Finds {a.what}.
//
//===----------------------------------------------------------------------===//

#ifndef {guard}
#define {guard}

#include "checks/SyncCheckBase.h"

namespace clang::tidy::torch_sync {{

/// Finds {a.what} (docs/checks/{name}.md). The facts of category
/// '{name}' (sync-facts.yaml) say which calls; the base's pipeline reports them.
class {cls} : public SyncCheckBase {{
public:
  {cls}(StringRef Name, ClangTidyContext *Context)
      : SyncCheckBase(Name, Context, SyncCategory::{enumerator}) {{}}

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
}};

}} // namespace clang::tidy::torch_sync

#endif // {guard}
""")
    open(paths["cpp"], "w").write(f"""//===--- {cls}.cpp - torch-sync-{name} ---===//

#include "checks/{cls}.h"
#include "libtorch/TorchMatchers.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {{

void {cls}::registerSyncMatchers(MatchFinder *Finder) {{
  // The tensor methods and the functions of the category's facts.
  Finder->addMatcher(cxxMemberCallExpr(callee(tensorMethod(methodNames(
                                           SyncCategory::{enumerator}))))
                         .bind(CallId),
                     this);
  Finder->addMatcher(callExpr(callee(functionDecl(hasAnyName(
                                  functionNames(SyncCategory::{enumerator})))),
                              unless(cxxMemberCallExpr()))
                         .bind(CallId),
                     this);
}}

}} // namespace clang::tidy::torch_sync
""")
    # Registration.
    module = os.path.join(root, "checker", "checks", "TorchSyncTidyModule.cpp")
    lines = open(module).read().split("\n")
    insert_sorted(lines, '#include "checks/%s.h"' % cls, lambda line: line.startswith('#include "checks/'))
    insert_sorted(lines, '    CheckFactories.registerCheck<%s>("torch-sync-%s");' % (cls, name),
                  lambda line: line.startswith("    CheckFactories.registerCheck<"))
    open(module, "w").write("\n".join(lines))
    cmake = os.path.join(root, "checker", "CMakeLists.txt")
    lines = open(cmake).read().split("\n")
    insert_sorted(lines, "  checks/%s.cpp" % cls, lambda line: line.startswith("  checks/"))
    open(cmake, "w").write("\n".join(lines))

    open(paths["doc"], "w").write(f"""# torch-sync-{name}

Finds {a.what}.

## Reported calls

| call | reported when | message starts with | PyTorch source of the sync |
|---|---|---|---|

## Why it blocks

## Example

```cpp
```

## Options

The options that every torch-sync check shares ([README](README.md#options)).

## Limitations

## Suppressing

`// NOLINT(torch-sync-{name})` on the line, or `// NOLINTNEXTLINE(torch-sync-{name})` above it.
""")
    run = "// RUN: %check_torch_sync --checks=-*,torch-sync-{0} --temp %t %s -- %libtorch_flags -I%S/Inputs".format(
        name)
    open(paths["test"], "w").write(f"""{run}

#include <ATen/core/Tensor.h>

// Each call of the category's facts, and its sync-free twin. Write the first case and its
// expectation here; until then this test fails.
void first_case(const at::Tensor &t) {{
}}
// CHECK-MESSAGES: :[[@LINE-2]]:1: warning: {{{{.*}}}} [torch-sync-{name}]
""")
    subprocess.call([sys.executable, os.path.join(root, "checker", "facts", "generate_facts.py"),
                     "--facts", facts, "--docs", os.path.join(root, "docs", "checks")])
    formatter = shutil.which("clang-format-22") or shutil.which("clang-format")
    if formatter:
        subprocess.call([formatter, "-i", paths["h"], paths["cpp"], module])
    for p in [facts, paths["h"], paths["cpp"], module, cmake, paths["doc"], paths["test"]]:
        print("add-check: wrote %s" % os.path.relpath(p, root))
    print("add-check: next: the category's facts in sync-facts.yaml, a case for SyncCategory::%s in "
          "callSync() (checker/analysis/CallSync.cpp), the test's cases and the page (CONTRIBUTING.md)"
          % enumerator)
    return 0


if __name__ == "__main__":
    sys.exit(main())
