# SPDX-License-Identifier: Apache-2.0
"""Every ```python block of README.md runs as written (in a scratch directory)."""

import os
import re

import pytest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def blocks():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_python_blocks():
    assert len(blocks()) >= 2


@pytest.mark.parametrize("index", range(len(blocks())))
def test_readme_block(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = compile(blocks()[index], "README.md python block %d" % (index + 1), "exec")
    exec(code, {"__name__": "__main__"})
