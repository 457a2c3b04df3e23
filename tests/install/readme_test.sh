#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.readme / install.readme.python / install.fresh: runs README.md's install lines as they
# stand (the code block after <!-- install-commands --> or <!-- python-install-commands -->) in a
# scratch directory with HOME in it, so ~/.local is a fresh non-system prefix. The environment is
# emptied first: no LD_LIBRARY_PATH, LIBRARY_PATH, CPATH or PKG_CONFIG_PATH other than the lines'
# own.
#   cxx:    the directory holds `build` (a link to this build tree: the README's build step is
#           the one the test command already ran) and the consumers app.cc and app.c
#           (tests/install/main.cc, main.c). Then: app (pkg-config simdbloom) needs
#           libsimdbloom.so.* and the loader finds it in the prefix through the program's rpath;
#           app-static and app-c (simdbloom-static) need no libsimdbloom.so; app-full
#           (g++ -static) has no dynamic section.
#   python: the package lies under the prefix and is the copy the lines' python imported.
#   fresh:  a copy of the source tree (git's files, as a clone has them) in WORK_DIR/src, as a
#           newcomer's clone. First the quick start: the `cmake` commands of the README's
#           <!-- demo-command --> line (configure with the tests off, build simdbloom-bench alone;
#           apt-get and the run of the demo are left out); simdbloom-bench must be built. Then
#           `cmake --install build` without building first must fail and write nothing (no file
#           under its prefix). Then the Install section as it stands: the block after
#           <!-- install-build-command --> and the install lines, checked as in cxx. Then again
#           on their own: no build directory, no ~/.local. The builds go through the calling
#           build's launcher (ccache: its objects are hits) when it has one; else
#           CXXFLAGS=-DHWY_COMPILE_ONLY_STATIC in the environment compiles the kernels for one
#           SIMD target and a private ccache directory (if ccache is installed) makes the second
#           build one of hits. The lines themselves are unchanged.
# Usage: readme_test.sh cxx|python README BUILD_DIR WORK_DIR CONSUMER_DIR CMAKE
#        readme_test.sh fresh README SOURCE_DIR WORK_DIR CONSUMER_DIR CMAKE [LAUNCHER]
set -euo pipefail
mode=$1 readme=$2 build=$3 work=$4 consumers=$5 cmake=$6 launcher=${7:-}
case $mode in
  cxx | fresh) marker='<!-- install-commands -->' ;;
  python) marker='<!-- python-install-commands -->' ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
fail() { echo "install.readme ($mode): $*" >&2; exit 1; }

# The first fenced block after a marker line.
block_after() {
  awk -v m="$1" '
    $0 == m { found = 1; next }
    found && /^```/ { if (open) exit; open = 1; next }
    found && open { print }' "$readme"
}
block=$(block_after "$marker")
[ -n "$block" ] || fail "no code block after $marker in $readme"

# Runs README lines ($1) in the current directory, in an emptied environment (plus $extra_env).
extra_env=()
run_lines() {
  printf '%s\n' "--- README lines (bash -e, HOME=$work/home, in $PWD):" "$1" "---"
  env -i HOME="$work/home" PATH="$(dirname "$cmake"):/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 \
    "${extra_env[@]}" bash -euo pipefail -c "$1"
}

rm -rf "$work"
mkdir -p "$work/home"
prefix=$work/home/.local

# The consumers built by the install lines (cxx and fresh), checked in the current directory.
check_cxx() {
  for exe in app app-static app-c app-full; do
    [ -x "$exe" ] || fail "the README's lines built no $exe"
  done
  dyn=$(readelf -d app)
  grep -q 'NEEDED.*\[libsimdbloom\.so\.' <<<"$dyn" || fail "app does not need libsimdbloom.so:
$dyn"
  grep -Eq "(RUNPATH|RPATH).*\[(.*:)?$prefix/lib(:.*)?\]" <<<"$dyn" || fail "app has no rpath to $prefix/lib:
$dyn"
  resolved=$(env -i ldd ./app | grep libsimdbloom) || fail "ldd app names no libsimdbloom"
  case $resolved in
    *"=> $prefix/lib/libsimdbloom.so."*) echo "app: $resolved" ;;
    *) fail "app loads libsimdbloom from elsewhere: $resolved" ;;
  esac
  for exe in app-static app-c; do
    if readelf -d "$exe" | grep -q 'NEEDED.*libsimdbloom'; then
      fail "$exe (simdbloom-static) needs libsimdbloom.so: $(readelf -d "$exe" | grep NEEDED)"
    fi
  done
  readelf -d app-full | grep -q 'no dynamic section' ||
    fail "app-full (g++ -static) is dynamic: $(readelf -d app-full | grep NEEDED)"
  echo "install.readme: shared (rpath), static, C and fully static consumers built and ran"
}

if [ "$mode" = fresh ]; then
  src=$(cd "$build" && pwd)
  build_block=$(block_after '<!-- install-build-command -->')
  [ -n "$build_block" ] || fail "no code block after <!-- install-build-command --> in $readme"
  # The quick start's cmake commands: the demo command's `&&`-separated parts that run cmake.
  demo=$(awk '$0 == "<!-- demo-command -->" { found = 1; next }
              found && !/^```/ { print; exit }' "$readme")
  quick=$(printf '%s\n' "$demo" | sed 's/ && /\n/g' | grep '^cmake ' | paste -sd'&' - |
          sed 's/&/ \&\& /g')
  [ -n "$quick" ] || fail "no cmake command in the README's demo command: $demo"
  # The tree as a clone has it: git's files (tracked, and new ones not ignored), else all but
  # build directories.
  mkdir -p "$work/src"
  if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard |
       tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$work/src"
  else
    tar -C "$src" --exclude='./build*' -cf - . | tar -xf - -C "$work/src"
  fi
  [ -f "$work/src/CMakeLists.txt" ] || fail "could not copy the source tree"
  cp "$consumers/main.cc" "$work/src/app.cc"
  cp "$consumers/main.c" "$work/src/app.c"
  if [ -n "$launcher" ]; then
    # The calling build's launcher with its configuration (HOME changes below): the library's
    # objects are the calling build's, hits.
    extra_env=(CMAKE_CXX_COMPILER_LAUNCHER="$launcher" CMAKE_C_COMPILER_LAUNCHER="$launcher")
    if [ "$(basename "$launcher")" = ccache ]; then
      extra_env+=(CCACHE_DIR="$(ccache -k cache_dir)")
      base=$(ccache -k base_dir)
      [ -z "$base" ] || extra_env+=(CCACHE_BASEDIR="$base")
    fi
  else
    # No cache to share: the kernels for one SIMD target, and a private ccache if there is one.
    extra_env=(CXXFLAGS=-DHWY_COMPILE_ONLY_STATIC CFLAGS=-DHWY_COMPILE_ONLY_STATIC)
    if command -v ccache >/dev/null; then
      extra_env+=(CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
                  CCACHE_DIR="$work/ccache")
    fi
  fi
  cd "$work/src"
  echo "=== 1. the quick start's build, then the Install section"
  run_lines "$quick" || fail "the quick start's cmake commands failed"
  [ -x build/perf/simdbloom-bench ] || fail "the quick start built no build/perf/simdbloom-bench"
  [ ! -e build/tests ] || fail "the quick start (tests off) configured the tests"
  echo "--- cmake --install before building what it installs: must fail, writing nothing"
  if run_lines "cmake --install build --prefix '$work/failed'"; then
    fail "cmake --install succeeded in a build directory that built simdbloom-bench only"
  fi
  if [ -e "$work/failed" ] && [ -n "$(find "$work/failed" ! -type d)" ]; then
    fail "the failed install left files behind: $(find "$work/failed" ! -type d)"
  fi
  run_lines "$build_block" || fail "the Install section's build line failed after the quick start"
  run_lines "$block" || fail "the Install section's lines failed after the quick start"
  check_cxx
  echo "=== 2. the Install section on its own (no build directory, no ~/.local)"
  rm -rf build "$prefix" app app-static app-c app-full
  run_lines "$build_block" || fail "the Install section's build line failed on its own"
  # A plain build makes the library, the command and what the install needs, nothing more.
  for t in build/perf/simdbloom-bench build/tests; do
    [ ! -e "$t" ] || fail "the Install section's build made $t (tests and perf only when asked)"
  done
  run_lines "$block" || fail "the Install section's lines failed on their own"
  check_cxx
  exit 0
fi

ln -s "$(cd "$build" && pwd)" "$work/build"
cp "$consumers/main.cc" "$work/app.cc"
cp "$consumers/main.c" "$work/app.c"
cd "$work"
run_lines "$block" || fail "the README's lines failed"

if [ "$mode" = python ]; then
  # The README's python line ran; now name the file it imported, from the same environment.
  line=$(printf '%s\n' "$block" | grep -m1 'import simdbloom') || fail "no import line"
  file=$(env -i HOME="$work/home" PATH=/usr/local/bin:/usr/bin:/bin \
    bash -c "${line%%-c *}-c 'import simdbloom; print(simdbloom.__file__)'")
  case $file in
    "$prefix"/lib/*/simdbloom/__init__.py) echo "imported $file" ;;
    *) fail "imported $file, not the copy under $prefix" ;;
  esac
  ls "$(dirname "$file")"/_core*.so >/dev/null || fail "no extension next to $file"
  exit 0
fi

check_cxx
