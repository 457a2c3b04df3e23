# SPDX-License-Identifier: Apache-2.0
"""Build hook of the Python package (pyproject.toml names setuptools as the backend).

The extension simdbloom._core is built by the project's own CMake (lib/python/CMakeLists.txt,
pybind11's CMake package from Debian's pybind11-dev or python3-pybind11), exactly as
`cmake -DSIMDBLOOM_PYTHON=ON` builds it: only the module target and the static library it links,
no tests, benchmark, command or shared library. setuptools adds the pure Python files
(lib/python/simdbloom/) and writes the wheel.

    python3 -m pip install --no-build-isolation .
    python3 -m build --no-isolation

Environment: CMAKE_ARGS (extra arguments for the CMake configure step, split like a shell
line), CMAKE_BUILD_PARALLEL_LEVEL (jobs; default: the number of CPUs), and CMake's own
CMAKE_GENERATOR, CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache), CXX.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    """The library's version, from its single source: lib/include/simdbloom/simdbloom.hpp."""
    with open(os.path.join(ROOT, "lib", "include", "simdbloom", "simdbloom.hpp")) as f:
        text = f.read()
    parts = [re.search(r"^#define SIMDBLOOM_VERSION_%s (\d+)" % p, text, re.M).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures and builds the CMake target simdbloom_python in build_temp, then copies the
    extension where setuptools expects it."""

    def build_extension(self, ext):
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        cfg = "Debug" if self.debug else "Release"
        args = [
            "-S", ROOT, "-B", build_dir,
            "-DCMAKE_BUILD_TYPE=" + cfg,
            "-DSIMDBLOOM_PYTHON=ON",
            "-DSIMDBLOOM_BUILD_TESTS=OFF",
            "-DSIMDBLOOM_BUILD_PERF=OFF",
            "-DSIMDBLOOM_BUILD_CLI=OFF",
            "-DSIMDBLOOM_BUILD_SHARED=OFF",
            "-DSIMDBLOOM_INSTALL=OFF",
            # The interpreter that runs this build (a venv's python included) is the one the
            # module is for.
            "-DPython_EXECUTABLE=" + sys.executable,
        ]
        try:  # python3-pybind11 (pip's pybind11) names its CMake package; pybind11-dev needs none
            import pybind11
            args.append("-Dpybind11_DIR=" + pybind11.get_cmake_dir())
        except ImportError:
            pass
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(["cmake"] + args, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(self.parallel or os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", build_dir, "--config", cfg,
                        "--target", "simdbloom_python", "--parallel", jobs], check=True)
        pkg = os.path.join(build_dir, "python", "simdbloom")
        built = [n for n in os.listdir(pkg) if n.startswith("_core.") and n.endswith(".so")]
        if len(built) != 1:
            raise RuntimeError("expected one _core*.so in %s, found %r" % (pkg, built))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(pkg, built[0]), dest)


setup(
    version=version(),
    ext_modules=[CMakeExtension("simdbloom._core")],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' scratch directory (the CMake build tree lies in it): not build/, which is
    # the README's CMake build directory.
    options={"build": {"build_base": "build-python"}},
)
