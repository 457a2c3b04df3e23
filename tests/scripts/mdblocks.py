#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every fenced code block of every markdown file of the tree is run by a test (ctest: doc.*).

    mdblocks.py extract SRC OUT             (configure time) C/C++ blocks to OUT/, OUT/blocks.cmake
    mdblocks.py check SRC OUT --ctest CTEST --build DIR       doc.blocks
    mdblocks.py shell SRC FILE.md --bin-dir DIR --work DIR    doc.<slug>.shell
    mdblocks.py python SRC FILE.md --work DIR                 doc.<slug>.python

A block's kind is its fence's language (tests/README.md, "Code blocks in markdown"):
  c, cpp       a complete program: compiled against the library (-Wall -Wextra -Werror, C as
               C99) and run; it must exit 0 (doc.<slug>.cN / doc.<slug>.cppN).
  python       run with the built module, each block in a fresh namespace as __main__, in order,
               in one scratch directory per file (doc.<slug>.python; with SIMDBLOOM_PYTHON=ON).
  console      a shell session: `$ ` starts a command (a line ending in `\\` continues it), the
               lines up to the next `$ ` are its output, stdout and stderr together, compared
               exactly; the only normalization: the values of the timing fields "seconds" and
               "keys_per_second" of JSON output. Every command must exit 0: a command shown
               failing is written `cmd || echo "exit $?"`.
  sh           a script run by `bash -euo pipefail`, output not compared.
The console and sh blocks of one file run in order in one fresh scratch directory, with the built
`simdbloom` first on PATH and tests/data reachable as ./tests/data (doc.<slug>.shell).
  text         output samples, grammars, tables: not code, not run.
A block of any kind that a test cannot run (it installs packages, takes minutes) carries a marker
on the line(s) just above its fence: `<!-- run-by: NAME -->`, NAME a ctest test that exists (in
this build, or defined by a tests/ CMakeLists.txt for builds that configure it) or a
file of the tree (e.g. .ci/run) that holds every line of the block (comments aside) or names
another marker of the block (`<!-- test-command -->`); or `<!-- not-run: REASON -->`. doc.blocks fails on any other fence
(no language, another language, ~~~ fences), on a marker that names nothing, and on a relative
link [text](path#anchor) to a file or heading that does not exist.
"""
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

RUN_KINDS = ("c", "cpp", "python", "console", "sh")
KINDS = RUN_KINDS + ("text",)
SKIP_DIRS = {".git", "node_modules", "__pycache__"}
FENCE = re.compile(r"^( *)(```|~~~)(.*)$")
MARKER = re.compile(r"^\s*<!--\s*([a-z-]+)(?::\s*(.*?))?\s*-->\s*$")


class Block:
    def __init__(self, path, line, lang, text, markers):
        self.path = path  # relative to SRC
        self.line = line  # 1-based line of the opening fence
        self.lang = lang
        self.text = text
        self.markers = markers  # [(name, value)] of the comment lines just above the fence

    def marker(self, name):
        for n, v in self.markers:
            if n == name:
                return v
        return None

    def where(self):
        return "%s:%d" % (self.path, self.line)


def md_files(src):
    """Every *.md of the tree, build trees and hidden folders left out."""
    out = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".") and
                         not d.startswith("build") and
                         not os.path.exists(os.path.join(root, d, "CMakeCache.txt")))
        for f in sorted(files):
            if f.endswith(".md"):
                out.append(os.path.relpath(os.path.join(root, f), src))
    return out


def parse(src, rel):
    """(blocks, errors) of one markdown file."""
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, errors = [], []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        lang = info.split()[0] if info else ""
        markers = []
        j = i - 1
        while j >= 0 and MARKER.match(lines[j]):
            mm = MARKER.match(lines[j])
            markers.insert(0, (mm.group(1), mm.group(2)))
            j -= 1
        body = []
        k = i + 1
        while k < len(lines) and not re.match(r"^ *" + re.escape(fence) + r"\s*$", lines[k]):
            line = lines[k]
            body.append(line[indent:] if line[:indent].strip() == "" else line)
            k += 1
        if k == len(lines):
            errors.append("%s:%d: fence never closed" % (rel, i + 1))
        b = Block(rel, i + 1, lang, "\n".join(body) + "\n", markers)
        if fence != "```":
            errors.append("%s: a ~~~ fence: use ```" % b.where())
        blocks.append(b)
        i = k + 1
    return blocks, errors


def slug(rel):
    return re.sub(r"[^A-Za-z0-9_]+", ".", rel[:-3] if rel.endswith(".md") else rel)


def runs_here(b):
    """Whether a test of this script runs block b (no run-by / not-run marker)."""
    return b.lang in RUN_KINDS and b.marker("run-by") is None and b.marker("not-run") is None


def plan(src):
    """{md file: blocks}, errors."""
    files, errors = {}, []
    for rel in md_files(src):
        blocks, errs = parse(src, rel)
        errors += errs
        files[rel] = blocks
    return files, errors


def manifest(files):
    """What the configure step built tests for: a change means the tests are stale."""
    out = {}
    for rel, blocks in files.items():
        h = hashlib.sha256()
        kinds = set()
        for b in blocks:
            if not runs_here(b):
                continue
            kinds.add("shell" if b.lang in ("console", "sh") else b.lang)
            if b.lang in ("c", "cpp"):
                h.update(("%d\0%s\0%s\0" % (b.line, b.lang, b.text)).encode())
        out[rel] = {"c_cpp": h.hexdigest(), "kinds": sorted(kinds)}
    return out


def cmd_extract(src, out):
    files, errors = plan(src)
    os.makedirs(out, exist_ok=True)
    lines = ["# Generated by tests/scripts/mdblocks.py extract: do not edit."]
    for rel, blocks in files.items():
        lines.append("list(APPEND SB_DOC_FILES %s)" % rel)
        counts = {}
        kinds = set()
        for b in blocks:
            if not runs_here(b):
                continue
            if b.lang in ("console", "sh"):
                kinds.add("shell")
            elif b.lang == "python":
                kinds.add("python")
            else:
                counts[b.lang] = counts.get(b.lang, 0) + 1
                name = "%s.%s%d" % (slug(rel), b.lang, counts[b.lang])
                path = os.path.join(out, name + "." + b.lang)
                # Diagnostics point into the markdown file.
                code = '#line %d "%s"\n%s' % (b.line + 1, os.path.join(src, rel), b.text)
                old = None
                if os.path.exists(path):
                    with open(path, encoding="utf-8") as f:
                        old = f.read()
                if old != code:  # rewrite only on change: no rebuild otherwise
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(code)
                lines.append("list(APPEND SB_DOC_PROGRAMS %s|%s|%s)" % (name, b.lang, path))
        for k in sorted(kinds):
            lines.append("list(APPEND SB_DOC_%s %s|%s)" % (k.upper(), slug(rel), rel))
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest(files), f, indent=1, sort_keys=True)
    with open(os.path.join(out, "blocks.cmake"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    for e in errors:
        print("mdblocks: " + e, file=sys.stderr)
    return 0


def anchors(text):
    """GitHub's heading anchors of a markdown text (outside code blocks)."""
    out, seen, fence = set(), {}, False
    for line in text.split("\n"):
        if FENCE.match(line):
            fence = not fence
            continue
        m = None if fence else re.match(r"^#{1,6} +(.*?)\s*#*\s*$", line)
        if m:
            a = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else "%s-%d" % (a, n))
    return out


def link_errors(src, rel):
    """Relative links [text](path#anchor) that lead nowhere."""
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        text = f.read()
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    errors = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(rel), path)) if path else rel
        full = os.path.join(src, dest)
        if not os.path.exists(full):
            errors.append("%s: link to %s: no such file" % (rel, target))
        elif anchor and dest.endswith(".md"):
            with open(full, encoding="utf-8") as f:
                if anchor not in anchors(f.read()):
                    errors.append("%s: link to %s: no such heading in %s" % (rel, target, dest))
    return errors


def defined_tests(src):
    """Names of the tests the CMake files of the tree define literally (add_test(NAME x ...))."""
    names = set()
    for root, dirs, files in os.walk(os.path.join(src, "tests")):
        for f in files:
            if f == "CMakeLists.txt":
                with open(os.path.join(root, f), encoding="utf-8") as fh:
                    names.update(re.findall(r"add_test\(\s*NAME\s+([\w.\-]+)", fh.read()))
    names.update(re.findall(r"add_test\(\s*NAME\s+([\w.\-]+)",
                            open(os.path.join(src, "CMakeLists.txt"), encoding="utf-8").read()))
    return names


def ctest_names(ctest, build):
    p = subprocess.run([ctest, "-N", "--test-dir", build], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise SystemExit("ctest -N failed:\n" + p.stdout)
    return set(re.findall(r"^\s*Test\s+#\d+: (\S+)\s*$", p.stdout, flags=re.M))


def cmd_check(src, out, ctest, build, python_on):
    files, errors = plan(src)
    tests = ctest_names(ctest, build)
    for rel in files:
        errors += link_errors(src, rel)
    counts = {}
    for rel, blocks in files.items():
        for b in blocks:
            by, why = b.marker("run-by"), b.marker("not-run")
            if by is not None:
                target = os.path.join(src, by)
                if by in tests:
                    what = "run-by ctest " + by
                elif by in defined_tests(src):
                    # Defined, but not configured in this build (SIMDBLOOM_PYTHON=OFF, ...).
                    print("note: %s: run by %s, a test this build does not configure" %
                          (b.where(), by))
                    what = "run-by ctest " + by
                elif os.path.isfile(target):
                    with open(target, encoding="utf-8", errors="replace") as f:
                        script = f.read()
                    lines = [ln.strip() for ln in b.text.split("\n")
                             if ln.strip() and not ln.strip().startswith("#")]
                    others = [n for n, _ in b.markers if n not in ("run-by", "not-run")]
                    missing = [ln for ln in lines if ln not in script]
                    if not any(n in script for n in others) and (missing or not lines):
                        errors.append("%s: marked run-by %s, but %s neither holds the block's "
                                      "lines (%s) nor names its markers %s" %
                                      (b.where(), by, by, "; ".join(missing), others))
                    what = "run-by " + by
                else:
                    errors.append("%s: marked run-by %s: no such ctest test or file" %
                                  (b.where(), by))
                    what = "bad marker"
            elif why is not None:
                if not why:
                    errors.append("%s: <!-- not-run --> without a reason" % b.where())
                what = "not-run"
            elif b.lang == "text":
                what = "text"
            elif b.lang in RUN_KINDS:
                what = b.lang
                if b.lang in ("c", "cpp") and not re.search(r"\bint\s+main\s*\(", b.text):
                    errors.append("%s: a ```%s block is a complete program (no main)" %
                                  (b.where(), b.lang))
            else:
                errors.append("%s: a ```%s block that no test runs: label it c, cpp, python, "
                              "console, sh or text, or mark it <!-- run-by: TEST -->" %
                              (b.where(), b.lang))
                what = "unhandled"
            counts[what] = counts.get(what, 0) + 1
    # The tests configured for the blocks are the blocks of now.
    try:
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            built = json.load(f)
    except OSError:
        built = None
    now = manifest(files)
    if built != now:
        changed = sorted(set(built or {}) ^ set(now)) + sorted(
            r for r in set(built or {}) & set(now) if built[r] != now[r])
        errors.append("markdown changed since CMake extracted the blocks (%s): re-run cmake "
                      "(cmake --build does) so that every block has its test" % ", ".join(changed))
    # Each file's tests exist.
    for rel, info in now.items():
        s = slug(rel)
        for k in info["kinds"]:
            if k in ("c", "cpp"):
                continue
            if k == "python" and not python_on:
                continue
            if "doc.%s.%s" % (s, k) not in tests:
                errors.append("%s: has %s blocks but no test doc.%s.%s" % (rel, k, s, k))
    for rel, blocks in files.items():
        n = {}
        for b in blocks:
            if runs_here(b) and b.lang in ("c", "cpp"):
                n[b.lang] = n.get(b.lang, 0) + 1
                name = "doc.%s.%s%d" % (slug(rel), b.lang, n[b.lang])
                if name not in tests:
                    errors.append("%s: no test %s" % (b.where(), name))
    print("markdown files: " + ", ".join(files))
    print("blocks: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    if not python_on:
        print("note: SIMDBLOOM_PYTHON=OFF: the python blocks are not run in this build")
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


TIMING = re.compile(r'("(?:seconds|keys_per_second)"):[-+0-9.eE]+')


def normalize(text):
    return TIMING.sub(r"\1:<time>", text)


def console_steps(b):
    """[(line, command, expected output)] of a console block."""
    steps, cur = [], None
    lines = b.text.split("\n")[:-1]
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            cmd, start = line[2:], i
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd += "\n" + lines[i]
            cur = [b.line + 1 + start, cmd, []]
            steps.append(cur)
        elif cur is None:
            raise SystemExit("%s: a console block starts with a `$ ` command" % b.where())
        else:
            cur[2].append(line)
        i += 1
    return [(ln, c, "".join(o + "\n" for o in out)) for ln, c, out in steps]


def fresh_dir(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return work


def cmd_shell(src, rel, bin_dir, work):
    blocks, errors = parse(src, rel)
    if errors:
        raise SystemExit("\n".join(errors))
    work = fresh_dir(work)
    os.makedirs(os.path.join(work, "tests"))
    os.symlink(os.path.join(os.path.abspath(src), "tests", "data"),
               os.path.join(work, "tests", "data"))
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(bin_dir) + os.pathsep + env.get("PATH", "")
    env["LC_ALL"] = "C"
    failures, n = 0, 0
    for b in blocks:
        if not runs_here(b) or b.lang not in ("console", "sh"):
            continue
        if b.lang == "sh":
            n += 1
            p = subprocess.run(["bash", "-euo", "pipefail", "-c", b.text], cwd=work, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                failures += 1
                print("FAIL %s: the sh block exits %d:\n%s" %
                      (b.where(), p.returncode, p.stdout.decode("utf-8", "replace")))
            continue
        for line, cmd, expected in console_steps(b):
            n += 1
            p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            got = p.stdout.decode("utf-8", "replace")
            where = "%s:%d: $ %s" % (rel, line, cmd)
            if p.returncode != 0:
                failures += 1
                print("FAIL %s\n  exits %d (a command shown failing is written "
                      "`cmd || echo \"exit $?\"`); its output:\n%s" % (where, p.returncode, got))
            elif normalize(got) != normalize(expected):
                failures += 1
                diff = difflib.unified_diff(normalize(expected).splitlines(True),
                                            normalize(got).splitlines(True),
                                            "shown in " + rel, "printed now")
                print("FAIL %s\n  output differs from the one shown:\n%s" %
                      (where, "".join(diff)))
    print("%s: %d shell commands/blocks run, %d failed" % (rel, n, failures))
    if n == 0:
        print("FAIL: no console or sh block in " + rel)
        return 1
    return 1 if failures else 0


def cmd_python(src, rel, work):
    blocks, errors = parse(src, rel)
    if errors:
        raise SystemExit("\n".join(errors))
    work = fresh_dir(work)
    os.chdir(work)
    n = 0
    path = os.path.join(os.path.abspath(src), rel)
    for b in blocks:
        if not runs_here(b) or b.lang != "python":
            continue
        n += 1
        # Padded so that a traceback names the markdown file's own line numbers.
        code = compile("\n" * b.line + b.text, path, "exec")
        try:
            exec(code, {"__name__": "__main__", "__file__": path})
        except BaseException:
            print("FAIL %s: the python block raised" % b.where())
            raise
    print("%s: %d python blocks run" % (rel, n))
    if n == 0:
        print("FAIL: no python block in " + rel)
        return 1
    # Examples clean up after themselves: a reader who runs one finds their folder as it was.
    left = sorted(os.listdir(work))
    if left:
        print("FAIL: the python blocks of %s left files behind in their folder: %s (use "
              "tempfile.TemporaryDirectory)" % (rel, ", ".join(left)))
        return 1
    return 0


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["extract", "check", "shell", "python"])
    ap.add_argument("src")
    ap.add_argument("arg", help="OUT (extract, check) or FILE.md (shell, python)")
    ap.add_argument("--ctest")
    ap.add_argument("--build")
    ap.add_argument("--python", default="OFF")
    ap.add_argument("--bin-dir")
    ap.add_argument("--work")
    a = ap.parse_args(argv)
    if a.command == "extract":
        return cmd_extract(a.src, a.arg)
    if a.command == "check":
        return cmd_check(a.src, a.arg, a.ctest, a.build, a.python.upper() in ("ON", "1", "TRUE"))
    if a.command == "shell":
        return cmd_shell(a.src, a.arg, a.bin_dir, a.work)
    return cmd_python(a.src, a.arg, a.work)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
