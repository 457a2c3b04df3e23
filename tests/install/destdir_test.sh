#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.destdir: a packager's staged install. `DESTDIR=<stage> cmake --install <build>` of every
# component (the Python module included when it is built), once at the configured
# CMAKE_INSTALL_PREFIX and once with --prefix, must
#  - put every file under <stage>/<prefix> (the Python package too, unless
#    SIMDBLOOM_PYTHON_INSTALL_DIR is absolute: then under <stage>/<that>);
#  - report exactly the files it wrote ("-- Installing:" lines = the files found in the stage);
#  - install the expected files (headers, static and shared library, CMake package, both .pc
#    files naming the final prefix, documents under share/doc/simdbloom and none among the
#    headers, command, Python package);
#  - name the staging root in no staged file (the .pc files and CMake files say <prefix>);
#  - write nothing outside the stage: nothing new in the build tree (but cmake's own
#    install_manifest*.txt), nothing under the configured prefix, no --prefix directory;
#  - give a Python package that imports from <stage>/<prefix> with PYTHONPATH alone.
# Usage: destdir_test.sh CMAKE BUILD_DIR WORK_DIR CONFIGURED_PREFIX LIBDIR CLI(ON|OFF) SHARED(ON|OFF)
#        [PYTHON_INSTALL_DIR PYTHON_INSTALL_DIR_DEFAULT PYTHON]
set -euo pipefail
cmake=$1 build=$(cd "$2" && pwd) work=$3 configured=$4 libdir=$5 cli=$6 shared=$7
pydir=${8:-} pydefault=${9:-} python=${10:-}
fail() { echo "install.destdir: $*" >&2; exit 1; }
case $pydefault in
  /*) fail "the default SIMDBLOOM_PYTHON_INSTALL_DIR is absolute ($pydefault): not under the prefix" ;;
esac
rm -rf "$work"
mkdir -p "$work"
touch "$work/start"
sleep 1  # -newer compares mtimes: anything written from now on is newer

check_stage() {  # stage prefix log
  local stage=$1 prefix=$2 log=$3
  local under=$stage$prefix/
  local pyroot=
  if [ -n "$pydir" ]; then
    case $pydir in /*) pyroot=$stage$pydir ;; *) pyroot=$stage$prefix/$pydir ;; esac
  fi
  # Every staged file (regular or link) under <stage>/<prefix> (or the absolute Python dir).
  find "$stage" \( -type f -o -type l \) | sort >"$work/found"
  [ -s "$work/found" ] || fail "nothing staged in $stage"
  while read -r f; do
    case $f in
      "$under"*) ;;
      *) if [ -n "$pyroot" ] && [ "${f#"$pyroot"/}" != "$f" ]; then :; else
           fail "staged outside $under: $f"; fi ;;
    esac
  done <"$work/found"
  # What the install says it wrote is what lies in the stage.
  # (install(DIRECTORY) reports its directories too: those are not files.)
  sed -n 's/^-- \(Installing\|Up-to-date\): //p' "$log" | sort -u |
    while read -r f; do [ -d "$f" ] && [ ! -L "$f" ] || echo "$f"; done >"$work/reported"
  if ! diff -u "$work/reported" "$work/found"; then
    fail "the files reported by cmake --install (-) differ from those staged (+)"
  fi
  local l=$under$libdir
  local expect=("$under"include/simdbloom/simdbloom.hpp "$under"include/simdbloom/simdbloom.h
    "$l"/libsimdbloom.a "$l"/pkgconfig/simdbloom.pc "$l"/pkgconfig/simdbloom-static.pc
    "$l"/cmake/simdbloom/simdbloomConfig.cmake "$l"/cmake/simdbloom/simdbloom-static-targets.cmake
    "$under"share/doc/simdbloom/LICENSE "$under"share/doc/simdbloom/README.md
    "$under"share/doc/simdbloom/API.md "$under"share/doc/simdbloom/FORMAT.md)
  [ "$shared" = ON ] && expect+=("$l"/libsimdbloom.so "$l"/cmake/simdbloom/simdbloom-shared-targets.cmake)
  [ "$cli" = ON ] && expect+=("$under"bin/simdbloom "$under"share/man/man1/simdbloom.1)
  [ -n "$pyroot" ] && expect+=("$pyroot"/simdbloom/__init__.py "$pyroot"/simdbloom/dask.py
    "$pyroot"/simdbloom/py.typed)
  for f in "${expect[@]}"; do
    [ -e "$f" ] || fail "not installed: $f"
  done
  # Documents go to share/doc/simdbloom, none among the headers.
  ! grep -q "^${under}include/.*\.md\$" "$work/found" ||
    fail "documents among the headers: $(grep "^${under}include/.*\.md\$" "$work/found")"
  if [ -n "$pyroot" ]; then
    ls "$pyroot"/simdbloom/_core*.so >/dev/null 2>&1 || fail "no extension in $pyroot/simdbloom"
  fi
  for pc in simdbloom simdbloom-static; do
    grep -qx "prefix=$prefix" "$l/pkgconfig/$pc.pc" ||
      fail "$pc.pc does not name the prefix $prefix: $(grep '^prefix=' "$l/pkgconfig/$pc.pc")"
  done
  local leaks
  leaks=$(grep -rl --binary-files=text -F "$stage" "$stage" || true)
  [ -z "$leaks" ] || fail "staged files name the staging root $stage: $leaks"
  if [ -n "$pyroot" ] && [ -n "$python" ] && [ "${pyroot#"$under"}" != "$pyroot" ]; then
    local got
    got=$(cd "$work" && env -u PYTHONHOME PYTHONPATH="$pyroot" PYTHONDONTWRITEBYTECODE=1 \
      "$python" -c 'import simdbloom
f = simdbloom.Filter.create(1000, 0.01)
f.insert(b"k")
assert b"k" in f
print(simdbloom.__file__)')
    [ "$got" = "$pyroot/simdbloom/__init__.py" ] || fail "imported $got, not the staged package"
  fi
  echo "install.destdir: $(wc -l <"$work/found") files, all under $under"
}

DESTDIR=$work/stage1 "$cmake" --install "$build" >"$work/log1" || { cat "$work/log1"; fail "install failed"; }
check_stage "$work/stage1" "$configured" "$work/log1"
other=/simdbloom-destdir-test-$$/opt
DESTDIR=$work/stage2 "$cmake" --install "$build" --prefix "$other" >"$work/log2" ||
  { cat "$work/log2"; fail "install --prefix failed"; }
check_stage "$work/stage2" "$other" "$work/log2"

# Nothing written outside the stages.
[ ! -e "${other%/opt}" ] || fail "${other%/opt} was created outside DESTDIR"
new=$(find "$build" -newer "$work/start" \( -type f -o -type l \) \
  -not -path "$build/tests/*" -not -path "$build/Testing/*" -not -name 'install_manifest*.txt' |
  sort)
[ -z "$new" ] || fail "the install wrote into the build tree: $new"
if [ -d "$configured" ]; then
  new=$(find "$configured" -newer "$work/start" -name '*simdbloom*' 2>/dev/null | sort || true)
  [ -z "$new" ] || fail "the install wrote under the configured prefix itself: $new"
fi
echo "install.destdir: nothing written outside DESTDIR"
