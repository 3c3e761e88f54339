#!/usr/bin/python3
"""Checks that the docs name files that exist: every `code span` in docs/*.md and README.md that
looks like a path from the repository's root (lib/..., include/..., tests/..., ...) must exist,
and one that looks like a bare file name (FusedActivation.h, NNGemm.cpp, Passes.def) must be the
name of some file in the repository. A `<Placeholder>` in a path matches any text, and `*` is a
glob. Docs that drift from the code name files that were renamed or deleted; this catches them.

    /usr/bin/python3 utils/check-docs.py        (exit 1 and a list when some name is stale)
"""

import fnmatch
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = ("lib/", "include/", "tests/", "utils/", "tools/", "examples/", "docs/", ".ci/")
SOURCE = re.compile(r"^[A-Za-z0-9_<>*.-]+\.(cpp|h|def|inc|py|sh|c|js|md|txt|cl)$")
# Files a tool writes, not files of the repository: a bundle's NET.h, NET.weights.txt, ...
WRITTEN = re.compile(r"^NET[._]")


def tracked_files():
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if os.path.exists(os.path.join(ROOT, f))]


def as_glob(name):
    return re.sub(r"<[^>]*>", "*", name)


def main():
    files = tracked_files()
    basenames = {os.path.basename(f) for f in files}
    dirs = {os.path.dirname(f) + "/" for f in files}
    dirs |= {d[: i + 1] for d in list(dirs) for i in range(len(d)) if d[i] == "/"}
    docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs"))
                                  if f.endswith(".md"))
    stale = []
    for doc in docs:
        text = open(os.path.join(ROOT, doc), encoding="utf-8").read()
        for lineno, line in enumerate(text.splitlines(), 1):
            for span in re.findall(r"`([^`\n]+)`", line):
                name = span.split()[0].rstrip(",.:;")
                if name.startswith(TOP):
                    pattern = as_glob(name)
                    if pattern.endswith("/"):
                        ok = any(fnmatch.fnmatch(d, pattern) for d in dirs)
                    else:
                        ok = (any(fnmatch.fnmatch(f, pattern) for f in files) or
                              any(fnmatch.fnmatch(d, pattern + "/") for d in dirs))
                elif SOURCE.match(name) and "/" not in name and not WRITTEN.match(name):
                    pattern = as_glob(name)
                    ok = any(fnmatch.fnmatch(b, pattern) for b in basenames)
                else:
                    continue
                if not ok:
                    stale.append("%s:%d: `%s` names no file" % (doc, lineno, name))
    for s in stale:
        print(s)
    print("check-docs: %d stale file name(s) in %d docs" % (len(stale), len(docs)))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
