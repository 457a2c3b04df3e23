# SPDX-License-Identifier: Apache-2.0
"""cmake --install of the `python` component into a scratch root (DESTDIR), then the installed
package is imported there by a fresh interpreter with no build tree on its path."""

import os
import shutil
import subprocess
import sys


def test_install_and_import():
    cmake = os.environ["SIMDBLOOM_CMAKE"]
    build = os.environ["SIMDBLOOM_BUILD_DIR"]
    site = os.environ["SIMDBLOOM_PYTHON_INSTALL_DIR"]  # absolute, as configured
    root = os.environ["SIMDBLOOM_INSTALL_WORK"]
    shutil.rmtree(root, ignore_errors=True)
    env = dict(os.environ, DESTDIR=root)
    subprocess.run([cmake, "--install", build, "--component", "python"], check=True, env=env)
    pkg = root + site
    installed = sorted(os.listdir(os.path.join(pkg, "simdbloom")))
    for name in ["__init__.py", "__init__.pyi", "_core.pyi", "dask.py", "py.typed"]:
        assert name in installed
    assert any(n.startswith("_core") and n.endswith(".so") for n in installed)
    code = (
        "import simdbloom, simdbloom.dask, numpy as np\n"
        "print(simdbloom.__file__)\n"
        "f = simdbloom.Filter.create(1000, 0.01)\n"
        "f.insert(np.arange(100, dtype=np.uint64))\n"
        "assert f.contains(np.arange(100, dtype=np.uint64)).all()\n"
        "assert simdbloom.Filter.from_bytes(f.to_bytes()).to_bytes() == f.to_bytes()\n")
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    clean["PYTHONPATH"] = pkg
    out = subprocess.run([sys.executable, "-c", code], check=True, env=clean, cwd=root,
                         capture_output=True, text=True).stdout
    assert out.strip().startswith(os.path.join(pkg, "simdbloom"))
