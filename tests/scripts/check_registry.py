#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""registry.once: each file magic and each kind name is written once in lib/.

The kinds of filter file and the counting layouts are listed once, in lib/formats/kinds.h
(SIMDBLOOM_FOR_EACH_FILE_KIND: name and 8-byte magic; SIMDBLOOM_FOR_EACH_COUNTING_LAYOUT: name).
Everything else - the kinds' save/load code, the command's kind detection and `info`, the C
constants, Python's enums - must take them from there. This check reads the two lists from
kinds.h and then searches the code of lib/ (comments and raw-string documentation removed):
  - a magic, as a string literal ("SIMDBLOM") or spelled as characters ('S', 'I', ...), may occur
    only in kinds.h (C/C++ and Python files);
  - a kind name or counting layout name, as a whole string literal ("counting"), may occur only in
    kinds.h (C/C++ files), except the uses listed in OTHER_MEANINGS: the same word meaning
    something else (an option's name), each with its reason and its count.

Usage: check_registry.py [TREE]              check the tree (default: this script's ../..)
       check_registry.py --self-test [TREE]  also check that a second copy of a magic and of a
                                             name, injected in memory, is rejected
"""
import os
import re
import sys

REGISTRY = "lib/formats/kinds.h"
CODE = re.compile(r"\.(h|hpp|cc|c)$")
PYTHON = re.compile(r"\.py$")

# (path, literal) -> (count, why): the same word, not the kind's name.
OTHER_MEANINGS = {
    ("lib/cli/commands/build.cc", "counting"): (
        5, "the build option --counting (its name in the table)"),
    ("lib/cli/commands/common.cc", "scalable"): (
        1, "the sizing `how` of build's JSON (a pipe: a chain)"),
}


def strip_c(text):
    """C/C++ source without comments and raw string literals (documentation), strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            i = n if end < 0 else end + len(m.group(1)) + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_py(text):
    """Python source without # comments (strings kept)."""
    return "\n".join(re.sub(r"#.*$", "", line) if '"' not in line and "'" not in line else line
                     for line in text.split("\n"))


def read_registry(top):
    text = open(os.path.join(top, REGISTRY), encoding="utf-8").read()
    kinds = re.findall(r'X\(\w+, "([a-z_0-9]+)", "([A-Z0-9]{8})", \d+, \d+, \w+\)', text)
    layouts = re.findall(r'X\(\w+, "([a-z_0-9]+)", COUNTING_\w+\)', text)
    return [m for _, m in kinds], [k for k, _ in kinds] + layouts


def scan(top):
    files = {}
    for root, dirs, names in os.walk(os.path.join(top, "lib")):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for name in names:
            path = os.path.relpath(os.path.join(root, name), top).replace(os.sep, "/")
            if CODE.search(name) or PYTHON.search(name):
                files[path] = open(os.path.join(top, path), encoding="utf-8",
                                   errors="replace").read()
    return files


def magic_patterns(magic):
    chars = r"\s*,\s*".join(re.escape(f"'{ch}'") for ch in magic)
    return [re.compile(re.escape(f'"{magic}"')), re.compile(chars)]


def check(files, magics, names):
    errors = []
    code = {p: (strip_c(t) if CODE.search(p) else strip_py(t)) for p, t in files.items()}
    for magic in magics:
        where = [p for p, t in code.items() for pat in magic_patterns(magic) for _ in pat.finditer(t)]
        if where != [REGISTRY]:
            errors.append(f"magic {magic} written {len(where)} times in lib/ ({', '.join(where)}); "
                          f"once, in {REGISTRY}, is the rule")
    for name in names:
        literal = re.compile(re.escape(f'"{name}"'))
        counts = {}
        for p, t in code.items():
            if CODE.search(p):
                k = len(literal.findall(t))
                if k:
                    counts[p] = k
        if counts.get(REGISTRY) != 1:
            errors.append(f'name "{name}": {counts.get(REGISTRY, 0)} times in {REGISTRY}, not once')
        for p, k in sorted(counts.items()):
            if p == REGISTRY:
                continue
            allowed = OTHER_MEANINGS.get((p, name), (0, ""))[0]
            if k != allowed:
                errors.append(f'name "{name}" written {k} times in {p} (allowed {allowed}): take '
                              f"it from {REGISTRY}")
        for (p, n), (allowed, _) in OTHER_MEANINGS.items():
            if n == name and counts.get(p, 0) != allowed:
                errors.append(f'OTHER_MEANINGS lists "{name}" {allowed} times in {p}, found '
                              f"{counts.get(p, 0)}: update the list")
    return errors


def self_test(files, magics, names):
    errors = []
    victim = "lib/formats/format.cc"
    for what, inject in (("a magic", f'\nconst char* k = "{magics[0]}";\n'),
                         ("a magic as characters",
                          "\nchar m[8] = {" + ", ".join(f"'{c}'" for c in magics[-1]) + "};\n"),
                         ("a name", f'\nconst char* n = "{names[1]}";\n')):
        trial = dict(files)
        trial[victim] = trial.get(victim, "") + inject
        if not check(trial, magics, names):
            errors.append(f"self-test: {what} written twice was not rejected")
    trial = dict(files)
    trial[victim] = trial.get(victim, "") + f'\n// "{magics[0]}" in a comment is documentation\n'
    if check(trial, magics, names):
        errors.append("self-test: a magic in a comment was rejected")
    return errors


def main(argv):
    args = [a for a in argv if a != "--self-test"]
    top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    magics, names = read_registry(top)
    if len(magics) < 6 or len(names) < 8:
        print(f"check_registry: could not read the lists of {REGISTRY} "
              f"({len(magics)} magics, {len(names)} names)")
        return 1
    files = scan(top)
    errors = check(files, magics, names)
    if "--self-test" in argv:
        errors += self_test(files, magics, names)
    if errors:
        print("the registry's magics and names are written more than once:")
        for e in errors:
            print("  " + e)
        return 1
    print(f"registry.once: {len(magics)} magics and {len(names)} names, each written once in "
          f"lib/ ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
