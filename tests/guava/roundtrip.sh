#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ctest guava.java: Guava itself (Debian's libguava-java on default-jdk-headless) against us,
# both ways (tests/guava/README.md).
#   roundtrip.sh SOURCE_DIR GUAVA_WRITER WORK_DIR
# 1. GuavaOracle regenerates the golden files; they must equal the committed tests/data/guava/
#    (so the C++ tests, which read those, test against Guava's real output).
# 2. guava_writer (ours) builds every case and writes our to_guava() bytes and our answers.
# 3. GuavaOracle check: our bytes equal Guava's writeTo bytes for the same keys, and Guava's
#    readFrom of our bytes answers every probe as we did.
# Exits 77 (ctest: skipped) only when javac or the Guava jar is absent.
set -euo pipefail
src=$1
writer=$2
work=$3
jar=/usr/share/java/guava.jar
if ! command -v javac >/dev/null; then
  echo "guava.java skipped: no javac (apt-get install default-jdk-headless libguava-java)"
  exit 77
fi
if [ ! -f "$jar" ]; then
  echo "guava.java skipped: no $jar (apt-get install libguava-java)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/classes" "$work/golden" "$work/ours"
javac -d "$work/classes" -cp "$jar" "$src/tests/guava/GuavaOracle.java"
java -cp "$work/classes:$jar" GuavaOracle generate "$work/golden"
if ! diff -r "$work/golden" "$src/tests/data/guava" >/dev/null; then
  echo "FAIL: tests/data/guava differs from what Guava generates now:"
  diff -rq "$work/golden" "$src/tests/data/guava" || true
  exit 1
fi
echo "golden files: equal to Guava's output ($(ls "$work/golden" | wc -l) files)"
"$writer" "$src/tests/data/guava" "$work/ours"
java -cp "$work/classes:$jar" GuavaOracle check "$src/tests/data/guava" "$work/ours"
