#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.readme / install.readme.python: runs README.md's install lines as they stand (the code
# block after <!-- install-commands --> or <!-- python-install-commands -->) in a scratch
# directory that holds `build` (a link to this build tree: the README's build step is the one
# the test command already ran), the consumers app.cc and app.c (tests/install/main.cc, main.c),
# and HOME, so ~/.local is a fresh non-system prefix. The environment is emptied first: no
# LD_LIBRARY_PATH, LIBRARY_PATH, CPATH or PKG_CONFIG_PATH other than the lines' own. Then:
#   cxx:    app (pkg-config simdbloom) needs libsimdbloom.so.* and the loader finds it in the
#           prefix through the program's rpath; app-static and app-c (simdbloom-static) need no
#           libsimdbloom.so; app-full (g++ -static) has no dynamic section.
#   python: the package lies under the prefix and is the copy the lines' python imported.
# Usage: readme_test.sh cxx|python README BUILD_DIR WORK_DIR CONSUMER_DIR CMAKE
set -euo pipefail
mode=$1 readme=$2 build=$3 work=$4 consumers=$5 cmake=$6
case $mode in
  cxx) marker='<!-- install-commands -->' ;;
  python) marker='<!-- python-install-commands -->' ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
fail() { echo "install.readme: $*" >&2; exit 1; }

# The first fenced block after the marker line.
block=$(awk -v m="$marker" '
  $0 == m { found = 1; next }
  found && /^```/ { if (open) exit; open = 1; next }
  found && open { print }' "$readme")
[ -n "$block" ] || fail "no code block after $marker in $readme"

rm -rf "$work"
mkdir -p "$work/home"
ln -s "$(cd "$build" && pwd)" "$work/build"
cp "$consumers/main.cc" "$work/app.cc"
cp "$consumers/main.c" "$work/app.c"
cd "$work"
printf '%s\n' "--- README lines (bash -e, HOME=$work/home):" "$block" "---"
env -i HOME="$work/home" PATH="$(dirname "$cmake"):/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 \
  bash -euo pipefail -c "$block" || fail "the README's lines failed"

prefix=$work/home/.local
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
