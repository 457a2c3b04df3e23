# SPDX-License-Identifier: Apache-2.0
"""install.pip: lib/python/README.md's pip lines (the code block after <!-- pip-commands -->) run as they
stand, with bash -e, in a copy of the source tree and a scratch HOME: a venv with
--system-site-packages, `pip install --no-build-isolation .` (pyproject.toml, setup.py, CMake
underneath), an import, `python3 -m build --no-isolation --sdist --wheel`. Nothing can come from
PyPI (PIP_NO_INDEX=1). Then, from the venv's interpreter: the package is the venv's copy, its
version is the header's, its metadata says Apache-2.0, a filter answers; dist/ holds the sdist
and the wheel, and the sdist carries every file of cmake/, kernels/ and lib/ (what setup.py's
CMake build reads), so a wheel built from it builds the same module.

To stay cheap (the library is compiled from scratch) the build passes CMAKE_ARGS for one SIMD
target at -O0, as install.subdir does, and the outer build's compiler launcher (ccache) if any.

Usage: pip_test.py README SOURCE_DIR WORK_DIR CMAKE [CMAKE_CXX_COMPILER_LAUNCHER]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

README, SOURCE, WORK, CMAKE = sys.argv[1:5]
LAUNCHER = sys.argv[5] if len(sys.argv) > 5 else ""
# What setup.py and the sdist need: the build files and the sources of the library and module.
TREE = ["CMakeLists.txt", "LICENSE", "README.md", "MANIFEST.in", "pyproject.toml", "setup.py",
        "cmake", "kernels", "lib"]


def fail(msg):
    print("install.pip: " + msg, file=sys.stderr)
    sys.exit(1)


def block(marker):
    text = open(README, encoding="utf-8").read()
    m = re.search(re.escape(marker) + r"\n```[a-z]*\n(.*?)```", text, re.S)
    if not m:
        fail("no code block after %s in %s" % (marker, README))
    return m.group(1)


def header_version():
    text = open(os.path.join(SOURCE, "lib", "include", "simdbloom", "simdbloom.hpp")).read()
    return ".".join(re.search(r"^#define SIMDBLOOM_VERSION_%s (\d+)" % p, text, re.M).group(1)
                    for p in ("MAJOR", "MINOR", "PATCH"))


def main():
    lines = block("<!-- pip-commands -->")
    shutil.rmtree(WORK, ignore_errors=True)
    src = os.path.join(WORK, "src")
    home = os.path.join(WORK, "home")
    os.makedirs(home)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in TREE:
        a, b = os.path.join(SOURCE, name), os.path.join(src, name)
        if os.path.isdir(a):
            shutil.copytree(a, b, ignore=ignore)
        else:
            os.makedirs(src, exist_ok=True)
            shutil.copy2(a, b)
    env = {
        "HOME": home,
        # This build's cmake first (setup.py runs `cmake`), then the system's tools.
        "PATH": os.path.dirname(CMAKE) + ":/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PIP_NO_INDEX": "1",            # Debian's packages only: nothing from PyPI
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "CMAKE_ARGS": "-DCMAKE_BUILD_TYPE=Debug "
                      "'-DCMAKE_CXX_FLAGS_DEBUG=-O0 -DHWY_COMPILE_ONLY_STATIC' "
                      "-DCMAKE_C_FLAGS_DEBUG=-O0",
    }
    for k in ("CMAKE_BUILD_PARALLEL_LEVEL", "CCACHE_DIR", "CCACHE_BASEDIR", "TMPDIR"):
        if k in os.environ:
            env[k] = os.environ[k]
    if LAUNCHER:
        env["CMAKE_CXX_COMPILER_LAUNCHER"] = env["CMAKE_C_COMPILER_LAUNCHER"] = LAUNCHER
        if os.path.basename(LAUNCHER) == "ccache" and "CCACHE_DIR" not in env:
            # The caller's cache, not one in the scratch HOME.
            r = subprocess.run([LAUNCHER, "--get-config", "cache_dir"], capture_output=True,
                               text=True)
            if r.returncode == 0 and r.stdout.strip():
                env["CCACHE_DIR"] = r.stdout.strip()
    print("--- README lines (bash -e, HOME=%s, in a copy of the tree):\n%s---" % (home, lines),
          flush=True)
    t = time.time()
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", lines], cwd=src, env=env)
    print("install.pip: the lines took %.1f s" % (time.time() - t))
    if r.returncode != 0:
        fail("the README's pip lines failed (%d)" % r.returncode)

    # The venv the lines made: the one `. .../bin/activate` names.
    m = re.search(r"\. (\S+)/bin/activate", lines)
    if not m:
        fail("the lines activate no venv")
    venv = re.sub(r"^(~|\$HOME|\$\{HOME\})", lambda _: home, m.group(1))
    py = os.path.join(venv, "bin", "python3")
    check = (
        "import json, sys, importlib.metadata as md, numpy as np, simdbloom\n"
        "f = simdbloom.Filter.create(1000, 0.01)\n"
        "f.insert(np.arange(100, dtype=np.uint64))\n"
        "w = simdbloom.Filter.create(1000, 0.01); w.insert('key')\n"
        "assert 'key' in w and f.contains(np.arange(100, dtype=np.int32)).all()\n"
        "meta = md.metadata('simdbloom')\n"
        "print(json.dumps({'file': simdbloom.__file__, 'version': simdbloom.__version__,\n"
        "  'dist': md.version('simdbloom'), 'license': meta['License'],\n"
        "  'files': [str(p) for p in md.files('simdbloom')], 'prefix': sys.prefix}))\n")
    out = subprocess.run([py, "-c", check], env=env, cwd=home, capture_output=True, text=True)
    if out.returncode != 0:
        fail("the venv's python cannot use the package:\n" + out.stderr)
    info = json.loads(out.stdout)
    site = os.path.realpath(venv)
    if not os.path.realpath(info["file"]).startswith(site + os.sep):
        fail("imported %s, not the venv's copy under %s" % (info["file"], site))
    version = header_version()
    if info["version"] != version or info["dist"] != version:
        fail("versions: module %s, distribution %s, header %s"
             % (info["version"], info["dist"], version))
    if info["license"] != "Apache-2.0":
        fail("licence in the metadata: %r" % info["license"])
    files = info["files"]
    if not any(re.search(r"simdbloom/_core\..*\.so$", f) for f in files):
        fail("no extension among the installed files: %s" % files)
    for need in ("simdbloom/__init__.py", "simdbloom/dask.py", "simdbloom/py.typed"):
        if need not in files:
            fail("%s not installed: %s" % (need, files))
    if not any(f.endswith(".dist-info/LICENSE") for f in files):
        fail("no LICENSE in the dist-info: %s" % files)
    print("install.pip: %s %s (Apache-2.0) in the venv, imported from %s"
          % ("simdbloom", version, info["file"]))

    dist = os.path.join(src, "dist")
    names = sorted(os.listdir(dist)) if os.path.isdir(dist) else []
    sdist = "simdbloom-%s.tar.gz" % version
    wheels = [n for n in names if re.match(r"simdbloom-%s-cp3\d+-cp3\d+-linux_\w+\.whl$"
                                           % re.escape(version), n)]
    if sdist not in names or len(wheels) != 1:
        fail("dist/ holds %s: expected %s and one platform wheel" % (names, sdist))
    with tarfile.open(os.path.join(dist, sdist)) as tar:
        members = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    missing = []
    for top in ("cmake", "kernels", "lib"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(src, top)):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"
                           and not d.endswith(".egg-info")]
            for f in filenames:
                rel = os.path.relpath(os.path.join(dirpath, f), src)
                if rel not in members:
                    missing.append(rel)
    for f in ("CMakeLists.txt", "LICENSE", "pyproject.toml", "setup.py", "PKG-INFO"):
        if f not in members:
            missing.append(f)
    if missing:
        fail("the sdist lacks %s" % missing)
    print("install.pip: dist/ holds %s (%d files, the whole library) and %s"
          % (sdist, len(members), wheels[0]))


main()
