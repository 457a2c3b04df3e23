# SPDX-License-Identifier: Apache-2.0
"""The type stubs and simdbloom.dask's annotations under mypy (issue 40 item 15): over
typing_cases.py, mypy flags exactly the lines marked `# E: <code>`, with that code, and nothing
else (an error in the stubs themselves fails too). Runs Debian's python3-mypy on the module the
tests import (its directory as MYPYPATH)."""

import os
import re
import subprocess
import sys

import simdbloom

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "typing_cases.py")


def marked():
    with open(CASES) as f:
        lines = f.read().splitlines()
    return {(i, m.group(1)) for i, line in enumerate(lines, 1)
            for m in [re.search(r"# E: ([a-z-]+)\s*$", line)] if m}


def test_mypy_flags_exactly_the_incorrect_calls(tmp_path):
    expected = marked()
    assert len(expected) >= 10
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(simdbloom.__file__)))
    env = dict(os.environ, MYPYPATH=package_root)
    cache = os.environ.get("SIMDBLOOM_MYPY_CACHE", str(tmp_path / "mypy_cache"))
    p = subprocess.run(
        [sys.executable, "-m", "mypy", "--show-error-codes", "--no-error-summary",
         "--no-color-output", "--cache-dir", cache, CASES],
        env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert p.returncode in (0, 1), p.stdout + p.stderr  # 2: mypy itself failed
    got, elsewhere = set(), []
    for line in p.stdout.splitlines():
        m = re.match(r"^(.*?):(\d+): error: .*\[([a-z-]+)\]$", line)
        if not m:
            continue
        if os.path.abspath(os.path.join(str(tmp_path), m.group(1))) == CASES:
            got.add((int(m.group(2)), m.group(3)))
        else:
            elsewhere.append(line)
    assert not elsewhere, "errors outside typing_cases.py:\n" + "\n".join(elsewhere)
    assert got == expected, "missing: %s, unexpected: %s\n%s" % (
        sorted(expected - got), sorted(got - expected), p.stdout)
