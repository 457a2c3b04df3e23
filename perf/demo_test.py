#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest perf.demo_quick: the structure of simdbloom-bench's default run, at tiny sizes (--quick).

Runs `simdbloom-bench --quick --plot WORK/sizes.svg` and checks, without judging speed: the five
tables and their header rows, every figure a positive number, the figures that two tables share
equal (table 2's block512 row and table 4's bulk columns repeat table 1; the plot's CSV holds the
same figures), the false-positive table (no inserted key missed, no rate above the asked one by
more than sampling noise: the run is deterministic, fixed seeds), the summary, the timing line,
and the plot: an SVG that parses, titled with this CPU, two panels of one line per layout and the
memory reference, one point per size. Then that the full benchmark's options still select it:
--only speed runs that section alone, --full with --quick is refused, --help names both modes.

Issue 40: the demo says how much to trust it (the load average at the start and the end, the
figures whose rounds spread widely, a verdict), names the instruction set as users know it
(AVX-512, not Highway's bare AVX3), accepts its own section names in --only (a wrong name: exit 2
naming the names), and derives every summary sentence from the figures: the real run's sentences
are checked against its tables, and --summary-from feeds contradictory figures (SIMD slower than
scalar, a burst cheaper than one large call, a busy machine, rounds far apart) whose wording must
follow the numbers. Standard library only.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

LAYOUTS = ["block512", "register64", "split_block256", "classic"]
SVG = "{http://www.w3.org/2000/svg}"


def check(cond, msg):
    """Ends the test with "FAIL: msg" (exit status 1) unless cond holds."""
    if not cond:
        print("FAIL: " + msg)
        sys.exit(1)


def section(text, number):
    """The lines of table `number` (from its heading to the next heading)."""
    m = re.search(r"^== %d\..*?(?=^== )" % number, text, re.S | re.M)
    check(m is not None, "no table %d" % number)
    return m.group(0).splitlines()


def rows_after(lines, header):
    """The data rows after the header row whose first words are `header`, up to a blank line;
    not the notes under a table (lines that start "(" or "plot of")."""
    for i, line in enumerate(lines):
        if line.split()[:len(header)] == header:
            rows = []
            for l in lines[i + 1:]:
                if not l.strip():
                    break
                if not l.strip().startswith(("(", "plot of", "!")):
                    rows.append(l)
            return rows
    check(False, "no header row %r in:\n%s" % (header, "\n".join(lines)))


def number(s):
    v = float(s.rstrip("x%"))
    check(v > 0 and v == v and v < 1e6, "not a positive figure: %r" % s)
    return v


def bullets_of(lines):
    """The bullets of a summary or trust section (each with its continuation lines)."""
    bullets = []
    for l in lines:
        if l.startswith("- "):
            bullets.append(l[2:])
        elif l.startswith("  ") and bullets:
            bullets[-1] += " " + l.strip()
    return bullets


def check_header(out):
    """Line 2 names the instruction set as users know it; line 3 the load average at the start."""
    lines = out.splitlines()
    isa = re.search(r"SIMD code used: (.*)$", lines[1])
    check(isa is not None and isa.group(1).startswith(
        ("AVX-512", "AVX2", "SSE4", "SSSE3", "NEON", "SVE", "no SIMD")), "ISA name: " + lines[1])
    check(re.search(r"(?<!Highway: )\bAVX3", out) is None,
          "Highway's AVX3 named without AVX-512 before it")
    load = re.match(r"Load average \(1, 5, 15 minutes\) at the start: "
                    r"(\d+\.\d\d \d+\.\d\d \d+\.\d\d|unknown)", lines[2])
    check(load is not None, "line 3, the load average: " + lines[2])
    if os.path.exists("/proc/loadavg"):
        check(load.group(1) != "unknown", "the load average is there to read")


def check_spread_note(lines, n):
    """Under tables 1, 2, 4 and 5: that their figures' rounds agree, or which did not."""
    notes = [l.strip() for l in lines
             if l.strip().startswith(("(one round of each figure", "(the rounds of every figure",
                                       "! WIDE SPREAD"))]
    check(len(notes) == 1, "table %d: one note on the rounds' spread: %r" % (n, notes))


def check_trust(text, cpus=None):
    m = re.match(r"== How much to trust these figures: (good|fair|LOW)\n", text)
    check(m is not None, "trust heading: %r" % text[:80])
    bullets = bullets_of(text.splitlines()[1:])
    if os.path.exists("/proc/loadavg"):
        load = re.match(r"Load average \(1 minute\): (\d+\.\d\d) at the start, (\d+\.\d\d) at "
                        r"the end, on (\d+) CPUs", bullets[0])
        want = cpus or os.sysconf("SC_NPROCESSORS_ONLN")
        check(load is not None and int(load.group(3)) == want,
              "the load average before and after: %r" % bullets[0])
    return m.group(1), bullets


def ratio_word(ratio):
    """The wording the summary must choose for `ratio` = this / that (10% either way: same)."""
    return "less" if ratio < 1 / 1.1 else "more" if ratio > 1.1 else "same"


def check_wording(bullets):
    """Every comparison in the summary says what its own number says."""
    text = " ".join(bullets)
    for x, word in re.findall(r"(\d+(?:\.\d+)?)x (faster|slower) than", text):
        check(float(x) >= 1.05, "a ratio under 1 worded %s: %sx" % (word, x))
    for x, word in re.findall(r"(\d+\.\d+)x one large call: (cheaper|dearer|about the same)",
                              text):
        want = {"less": "cheaper", "more": "dearer", "same": "about the same"}[ratio_word(
            float(x))]
        check(word == want, "%sx one large call worded %r, expected %r" % (x, word, want))
    m = re.search(r"contains\(key\) costs ([0-9.]+) ns at (\S+ \S+) and ([0-9.]+) ns at (\S+ \S+) "
                  r"\([0-9.]+ ns with prefetch\); one bulk call costs ([0-9.]+) and ([0-9.]+) ns "
                  r"per key: (.*?)\.", text)
    if m:
        s_small, small, s_large, large, b_small, b_large, said = m.groups()
        at_small = ratio_word(float(b_small) / float(s_small)) == "less"
        at_large = ratio_word(float(b_large) / float(s_large)) == "less"
        want = ("a bulk call is cheaper at both sizes" if at_small and at_large else
                "a bulk call is no cheaper here at either size" if not (at_small or at_large) else
                "a bulk call is cheaper at %s, not at %s" % ((small, large) if at_small else
                                                              (large, small)))
        check(said.startswith(want), "one key per call: %r, expected %r" % (said, want))


def check_summary_against_tables(bullets, out, table1, sizes):
    """The summary's figures are its tables' figures."""
    t1 = {}
    for row in rows_after(section(out, 1), ["size", "holds", "in", "op"]):
        f = row.split()
        t1[(f[0] + " " + f[1], f[4])] = [float(x.rstrip("x")) for x in f[5:10]]
    cache = next(b for b in bullets if b.startswith("In cache"))
    m = re.search(r"a (\d+ [KMG]iB) filter.*checking a key costs ([0-9.]+) ns \((?:([0-9.]+)x "
                  r"(faster|slower) than|about as fast as)", cache)
    check(m is not None and m.group(1) == sizes[0], "in-cache bullet: " + cache)
    simd, scalar, speedup = t1[(sizes[0], "contains")][:3]
    check(abs(float(m.group(2)) - simd) < 0.06, "in-cache bullet's ns vs table 1: " + cache)
    if m.group(3):
        said = float(m.group(3)) if m.group(4) == "faster" else 1 / float(m.group(3))
        check(abs(said - scalar / simd) <= 0.06 * said + 0.06, "in-cache speed-up vs table 1: "
              + cache)
    else:
        check(ratio_word(scalar / simd) == "same", "'about as fast' vs table 1: " + cache)
    large = next(b for b in bullets if b.startswith("At "))
    m = re.search(r"At (\d+ [KMG]iB) .*?a check costs ([0-9.]+) ns, ([0-9.]+)x one random memory "
                  r"read", large)
    check(m is not None and m.group(1) == sizes[-1], "large bullet: " + large)
    check(abs(float(m.group(3)) - t1[(sizes[-1], "contains")][4]) < 0.06,
          "large bullet's x memory vs table 1: " + large)
    bursts = {}
    for row in rows_after(section(out, 4), ["size", "caller"]):
        b = re.match(r"\s*(\d+ [KMG]iB) bulk calls of 32 keys\s+(\S+)\s+\S+\s+(\S+)$", row)
        if b:
            bursts[b.group(1)] = float(b.group(2)) / float(b.group(3))
    burst = next(b for b in bullets if b.startswith("A packet burst"))
    said = [float(x) for x in re.findall(r"\(([0-9.]+)x one large call", burst)]
    check(len(said) == 2 and all(abs(a - b) <= 0.02 * b + 0.011 for a, b in
                                 zip(said, [bursts[sizes[0]], bursts[sizes[-1]]])),
          "burst bullet %r vs table 4 %r" % (burst, bursts))


def run_bench(bench, args, timeout=60):
    return subprocess.run([bench] + args, capture_output=True, text=True, timeout=timeout)


def check_only(bench):
    """--only takes the demo's section names as its headings print them; a wrong name is refused
    with the names that exist."""
    r = run_bench(bench, ["--quick", "--only", "strings"])
    check(r.returncode == 0 and r.stderr == "", "--only strings: %d %r" % (r.returncode, r.stderr))
    check("== 5. Strings [strings]" in r.stdout and "== 1." not in r.stdout and "== 3." not in
          r.stdout, "--only strings runs table 5 alone: " + r.stdout[:400])
    bullets = bullets_of(r.stdout[r.stdout.index("== Summary"):].splitlines()[1:-1])
    check(len(bullets) == 1 and bullets[0].startswith("Strings:"), "its summary: %r" % bullets)
    # Every bracketed name of a full run's headings is accepted (one-key runs table 4 alone,
    # with the bulk figures of its two sizes).
    r = run_bench(bench, ["--quick", "--only", "False positives"])
    check(r.returncode == 0 and "== 3. False positives [false-positives]" in r.stdout and
          "== 4." not in r.stdout, "--only 'False positives': " + r.stdout[:300] + r.stderr)
    r = run_bench(bench, ["--quick", "--only", "one-key"])
    check(r.returncode == 0 and "== 4. One key per call [one-key]" in r.stdout and
          "== 1." not in r.stdout and len(rows_after(section(r.stdout, 4), ["size", "caller"]))
          >= 4, "--only one-key: " + r.stdout[:300] + r.stderr)
    for bad in (["--only", "nope"], ["--only", "strngs"]):
        r = run_bench(bench, bad)
        first = r.stderr.splitlines()[0] if r.stderr else ""
        check(r.returncode == 2 and bad[1] in first and "strings" in first and
              "false-positives" in first and "speed" in first and "usage" in r.stderr,
              "%s: exit %d, a reason naming the sections: %r" % (bad, r.returncode, r.stderr))
    r = run_bench(bench, ["--full", "--only", "strings"])
    check(r.returncode == 2 and "part of the demo" in r.stderr.splitlines()[0],
          "--full --only strings: %r" % r.stderr)


SUMMARY_CASES = [
    # A busy machine whose figures contradict the usual story: SIMD slower than the scalar code
    # in cache, a burst cheaper than one large call, a bulk call dearer than single calls at one
    # size, strings filtered faster than hashed one by one, three rounds' sets (one wide).
    ("contradictory", """
cpus=2
load_before=7.0
load_after=7.5
bulk=1
small_bytes=524288
small_holds=419000
small_con=6.8
scalar_con=5.0
small_ins=2.0
scalar_ins=2.1
large_bytes=268435456
large_level=4
large_con=28
large_read=22.6
large_ins=30
large_rmw=17.6
large_noisy=1
single=1
single_small_bytes=524288
single_large_bytes=268435456
single_small=4.0
single_large=43.3
single_prefetch=32.7
bulk_small=6.8
bulk_large=28.0
burst=1
burst_small=3.7
burst_large=34.7
strings=1
uuid_con=20
uuid_ins_x=0.8
uuid_con_x=0.9
rounds:tight=10,10.5,11,10.2,10.1
rounds:far apart=10,10,30,31,32
rounds:one outlier=10,10,10,10,100
""", "LOW", ["THE MACHINE WAS BUSY", "other work kept about 7.0 threads running on its 2 CPUs",
             "1 of 3 figures spread by more than 25%"],
     ["checking a key costs 6.8 ns (1.4x slower than the same batched, prefetched code without "
      "SIMD) and adding one 2.0 ns (about as fast as it)",
      "At 256 MiB (in DRAM), a check costs 28.0 ns, 1.2x one random memory read (22.6 ns), and an "
      "insert 30.0 ns, 1.7x one random read-modify-write: the filter's own work shows (up to 1.7x "
      "the memory access). These figures are noisy",
      "one bulk call costs 6.8 and 28.0 ns per key: a bulk call is cheaper at 256 MiB, not at 512 "
      "KiB.",
      "3.7 ns a key at 512 KiB (0.54x one large call: cheaper per key) and 34.7 ns at 256 MiB "
      "(1.24x one large call: dearer per key",
      "insert and contains cost 0.80x and 0.90x the time of hashing it alone: both less than one "
      "XXH3 call per string costs."],
     ["faster than the same", "adds little"]),
    # A quiet machine, every comparison the usual way round; a rate above the asked one.
    ("quiet", """
cpus=2
load_before=0.10
load_after=1.05
checked=50
bulk=1
small_bytes=262144
small_holds=210000
small_con=2.4
scalar_con=14
small_ins=2.6
scalar_ins=9
large_bytes=268435456
large_level=3
large_con=10.0
large_read=9.8
large_ins=11
large_rmw=10.9
fpr=1
fpr_kept=0
fpr_above=1
fpr_worst=1.4
fpr_keys=1000000
fpr_layouts=4
single=1
single_small_bytes=262144
single_large_bytes=268435456
single_small=3.1
single_large=29.9
single_prefetch=17.5
bulk_small=2.4
bulk_large=10.0
burst=1
burst_small=2.45
burst_large=10.5
""", "good", ["otherwise quiet", "The rounds of every figure agreed within 25% (50 figures)"],
     ["checking a key costs 2.4 ns (5.8x faster than the same batched, prefetched code without "
      "SIMD) and adding one 2.6 ns (3.5x faster than it).",
      "At 256 MiB (in L3)", "the filter costs no more than the memory access it must make.",
      "SOME MEASURED RATE WAS ABOVE THE RATE ASKED FOR",
      "a bulk call is cheaper at both sizes: it overlaps the memory accesses of many keys.",
      "(1.02x one large call: about the same per key)", "(1.05x one large call: about the same"],
     ["noisy", "BUSY", "slower than"]),
    # Other work on a 4-CPU machine, one section measured.
    ("shared", """
cpus=4
load_before=0.8
load_after=1.9
checked=6
strings=1
uuid_con=30
uuid_ins_x=1.9
uuid_con_x=2.0
strings_noisy=1
""", "fair", ["about 0.9 CPUs busy"],
     ["Strings: a UUID is checked in 30.0 ns; insert and contains cost 1.90x and 2.00x the time "
      "of hashing it alone: the filter's own work adds visibly to the hashing. These figures are "
      "noisy"],
     ["In cache", "The plot"]),
]


def check_summary_from(bench, work):
    """--summary-from FILE: the trust section and the summary of injected figures; the wording
    follows the numbers, whatever they are."""
    for name, text, verdict, trust_has, summary_has, summary_lacks in SUMMARY_CASES:
        path = os.path.join(work, "figures_%s.txt" % name)
        with open(path, "w") as f:
            f.write("# figures of case %s\n%s" % (name, text))
        r = run_bench(bench, ["--summary-from", path])
        check(r.returncode == 0 and r.stderr == "", "%s: exit %d %r" % (name, r.returncode,
                                                                      r.stderr))
        out = r.stdout
        cpus = int(re.search(r"cpus=(\d+)", text).group(1))
        got, trust = check_trust(out[out.index("== How much"):out.index("== Summary")], cpus)
        check(got == verdict, "%s: verdict %s, expected %s" % (name, got, verdict))
        trust_text = " ".join(trust)
        for t in trust_has:
            check(t in trust_text, "%s: trust lacks %r: %r" % (name, t, trust_text))
        summary_lines = out[out.index("== Summary"):].splitlines()[1:]
        for l in summary_lines:
            check(len(l) <= 100, "%s: summary line over 100 columns: %r" % (name, l))
        bullets = bullets_of(summary_lines)
        check_wording(bullets)
        summary_text = " ".join(bullets)
        for t in summary_has:
            check(t in summary_text, "%s: summary lacks %r:\n%s" % (name, t, summary_text))
        for t in summary_lacks:
            check(t not in summary_text, "%s: summary says %r:\n%s" % (name, t, summary_text))
        if name == "contradictory":
            # The rounds: the far-apart set named with its range, the others not.
            rounds = out[out.index("== Rounds read from"):out.index("== How much")]
            check("far apart 10..31 ns" in rounds and "tight" not in rounds and "outlier" not in
                  rounds and rounds.count("WIDE SPREAD") == 1, "rounds note: %r" % rounds)
    path = os.path.join(work, "figures_bad.txt")
    with open(path, "w") as f:
        f.write("small_con=2\nno_such_figure=3\n")
    r = run_bench(bench, ["--summary-from", path])
    check(r.returncode == 2 and "no_such_figure" in r.stderr and "small_con" in r.stderr,
          "an unknown figure: %d %r" % (r.returncode, r.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    svg_path = os.path.join(args.work, "sizes.svg")
    csv_path = os.path.join(args.work, "sizes.csv")
    for p in (svg_path, csv_path):
        if os.path.exists(p):
            os.remove(p)

    r = subprocess.run([args.bench, "--quick", "--plot", svg_path], capture_output=True,
                       text=True, timeout=60)
    out = r.stdout
    check(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr + out))
    check(r.stderr == "", "stderr: %r" % r.stderr)
    check(out.startswith("simdbloom "), "first line: " + out[:80])
    check("--full" in out.splitlines()[0], "the first line names --full")
    check_header(out)

    # Table 1: block512 at 2 or 3 sizes, insert and contains.
    t1 = rows_after(section(out, 1), ["size", "holds", "in", "op"])
    check(len(t1) in (4, 6), "table 1 rows: %d" % len(t1))
    table1 = {}  # (size, op) -> simdbloom ns/key
    for row in t1:
        f = row.split()
        # size: "256 KiB"; holds: "210K"; in; op; simdbloom scalar speed-up memory x-memory
        check(len(f) == 10, "table 1 row: " + row)
        size = f[0] + " " + f[1]
        check(re.match(r"^[0-9.]+[KMG]?$", f[2]) is not None, "table 1 holds: " + row)
        check(f[3] in ("L1", "L2", "L3", "DRAM", "?"), "table 1 'in': " + row)
        check(f[4] in ("insert", "contains"), "table 1 op: " + row)
        simd, scalar, speedup, memory, xmem = (number(x) for x in f[5:10])
        check(abs(scalar / simd - speedup) <= 0.06 * speedup + 0.05, "speed-up: " + row)
        check(abs(simd / memory - xmem) <= 0.06 * xmem + 0.05, "x memory: " + row)
        table1[(size, f[4])] = simd
    sizes = sorted({k[0] for k in table1}, key=lambda s: list(table1).index((s, "insert")))

    # Table 2: one row per layout; block512's figures are table 1's.
    lines2 = section(out, 2)
    header2 = next(l for l in lines2 if l.split()[:3] == ["layout", "bits/key", "k"])
    cols = re.findall(r"(ins|con) (\d+ [KMG]iB)", header2)
    check([c[1] for c in cols] == sizes * 2, "table 2 sizes %r vs table 1 %r" % (cols, sizes))
    t2 = rows_after(lines2, ["layout", "bits/key", "k"])
    check([row.split()[0] for row in t2] == LAYOUTS, "table 2 layouts: %r" % t2)
    for row in t2:
        f = row.split()
        figures = [number(x) for x in f[1:]]
        check(len(figures) == 2 + len(cols), "table 2 row: " + row)
        if f[0] == "block512":
            for (op, size), v in zip(cols, figures[2:]):
                key = (size, "insert" if op == "ins" else "contains")
                check(abs(v - table1[key]) < 0.006, "table 2 %s %s != table 1" % key)
    check(any(l.strip().startswith("plot of every size") for l in lines2), "no plot line")
    # The per-key oracle: a note under table 1, one figure pair per size.
    lines1 = section(out, 1)
    oracle = [l for l in lines1 if l.strip().startswith("(oracle, contains / insert ns per key:")]
    check(len(oracle) == 1 and len(re.findall(r"\d+ [KMG]iB [0-9.e+]+ / [0-9.e+]+", oracle[0]))
          == len(sizes), "table 1's oracle note: %r" % oracle)
    check(any("without SIMD" in l and l.split()[:1] == ["scalar"] for l in lines1),
          "table 1 says what the scalar column is")
    for n in (1, 2, 4, 5):
        check_spread_note(section(out, n), n)
    check(not any("NOT WRITTEN" in l for l in lines2), "plot or CSV not written")

    # Table 3: 4 kinds x 2 rates, a rate per layout, a verdict.
    t3 = rows_after(section(out, 3), ["keys", "asked"])
    check(len(t3) == 8, "table 3 rows: %d" % len(t3))
    check([row.split()[0] for row in t3] ==
          ["uniform"] * 2 + ["Gaussian"] * 2 + ["exponential"] * 2 + ["UUID"] * 2,
          "table 3 kinds")
    for row in t3:
        f = row.split()
        asked = number(f[1]) / 100
        rates = [number(x) / 100 for x in f[2:6]]
        check(f[6] in ("yes", "noise"), "table 3 verdict: " + row)
        # Guava's column, after the verdict: Guava's own sizing, near the asked rate.
        check(len(f) == 8 and number(f[7]) / 100 <= 3 * asked, "table 3 guava: " + row)
        check(all(v <= 3 * asked for v in rates), "table 3 rates: " + row)
        check((f[6] == "yes") == all(v <= asked for v in rates), "table 3 verdict: " + row)

    # Table 4: per size of table 1's first and last, per caller level; bulk = table 1.
    t4 = rows_after(section(out, 4), ["size", "caller"])
    check(len(t4) >= 4 and len(t4) % 2 == 0, "table 4 rows: %d" % len(t4))
    seen = set()
    bursts = set()
    for row in t4:
        # The burst row: bulk contains on 32 keys a call, then table 1's bulk figures.
        b = re.match(r"\s*(\d+ [KMG]iB) bulk calls of 32 keys((?:\s+\S+){3})$", row)
        if b is not None:
            figures = [number(x) for x in b.group(2).split()]
            check(figures[0] > 0, "table 4 burst: " + row)
            check(abs(figures[1] - table1[(b.group(1), "insert")]) < 0.006, "table 4 burst: " + row)
            check(abs(figures[2] - table1[(b.group(1), "contains")]) < 0.006,
                  "table 4 burst: " + row)
            bursts.add(b.group(1))
            continue
        m = re.match(r"\s*(\d+ [KMG]iB) (baseline|x86-64-v3|x86-64-v4) \(([^)]+)\)((?:\s+\S+){6})$",
                     row)
        check(m is not None and m.group(3) in ("AVX-512", "AVX2", "NEON", "no SIMD"),
              "table 4 caller's instruction set: " + row)
        check(m is not None, "table 4 row: " + row)
        figures = [number(x) for x in m.group(4).split()]
        size = m.group(1)
        check(size in (sizes[0], sizes[-1]), "table 4 size: " + row)
        check(abs(figures[4] - table1[(size, "insert")]) < 0.006, "table 4 bulk ins: " + row)
        check(abs(figures[5] - table1[(size, "contains")]) < 0.006, "table 4 bulk con: " + row)
        seen.add((size, m.group(2)))
    check(("%s" % sizes[0], "baseline") in seen and (sizes[-1], "baseline") in seen,
          "table 4 lacks the baseline caller")
    check(bursts == {sizes[0], sizes[-1]}, "table 4 burst rows: %s" % sorted(bursts))

    # Table 5: UUID and URL strings.
    t5 = rows_after(section(out, 5), ["strings", "insert"])
    check(len(t5) == 2 and t5[0].startswith("UUID") and t5[1].startswith("URL"), "table 5")
    for row in t5:
        figures = [number(x) for x in row.split()[-5:]]
        check(abs(figures[0] / figures[2] - figures[3]) <= 0.06 * figures[3] + 0.02, row)

    # How much to trust the run: the load average at the start and the end, a verdict.
    trust = out[out.index("== How much to trust"):out.index("== Summary")]
    check_trust(trust)

    # Summary and time.
    summary = out[out.index("== Summary"):].splitlines()
    bullets = []  # each with its continuation lines (indented by 2)
    for l in summary[1:-1]:
        check(len(l) <= 100, "summary line longer than 100 columns: " + l)
        if l.startswith("- "):
            bullets.append(l[2:])
        else:
            check(l.startswith("  ") and bullets, "summary line: " + l)
            bullets[-1] += " " + l.strip()
    check(len(bullets) == 7, "summary bullets: %d" % len(bullets))
    check(any(b.startswith("A packet burst") for b in bullets), "summary: the burst")
    check_wording(bullets)
    check_summary_against_tables(bullets, out, table1, sizes)
    check(any("False positives" in b and "No inserted key was ever missed" in b
              for b in bullets), "summary: false positives")
    check(summary[-1].startswith("Time: ") and summary[-1].endswith(" s."), "time line")
    check(len(re.findall(r"\d+\.\d s", summary[-1])) == 5, "time line: " + summary[-1])

    # The plot: SVG parses, titled with the CPU, two panels, five lines each, a point per size.
    root = ET.parse(svg_path).getroot()
    check(root.tag == SVG + "svg", "root element: " + root.tag)
    title = root.find(SVG + "title").text
    cpu = ""
    if os.path.exists("/proc/cpuinfo"):
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    check(cpu == "" or cpu in title, "plot title %r lacks the CPU %r" % (title, cpu))
    panels = [g for g in root.iter(SVG + "g") if g.get("class") == "panel"]
    check(len(panels) == 2, "panels: %d" % len(panels))
    with open(csv_path) as f:
        table = list(csv.DictReader(f))
    n_sizes = len({r["bytes"] for r in table})
    check(n_sizes >= 3, "CSV sizes: %d" % n_sizes)
    for panel in panels:
        lines = [p for p in panel.iter(SVG + "polyline") if p.get("class") == "series"]
        names = [p.get("data-name") for p in lines]
        check(names[:4] == LAYOUTS and names[4].startswith("memory"), "series %r" % names)
        for p in lines:
            pts = [tuple(float(c) for c in xy.split(",")) for xy in p.get("points").split()]
            check(len(pts) == n_sizes, "points of %s: %d" % (p.get("data-name"), len(pts)))
            check(all(a[0] < b[0] for a, b in zip(pts, pts[1:])), "x not ascending")

    # The CSV: every layout and the memory reference, both ops, every size; table 1's figures.
    check(len(table) == n_sizes * 5 * 2, "CSV rows: %d" % len(table))
    for row in table:
        check(row["series"] in LAYOUTS + ["memory"] and row["op"] in ("insert", "contains"),
              "CSV row %r" % row)
        number(row["ns_per_key"])
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    for (size, op), v in table1.items():
        b = int(size.split()[0]) * units[size.split()[1]]
        match = [r for r in table if r["series"] == "block512" and r["op"] == op
                 and int(r["bytes"]) == b]
        check(len(match) == 1 and abs(float(match[0]["ns_per_key"]) - v) < 0.006,
              "CSV block512 %s %s != table 1" % (size, op))

    # The full benchmark's options still select it; the demo's options are the demo's.
    r = subprocess.run([args.bench, "--only", "speed", "--keys", "2000", "--min-seconds", "0"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "== Speed" in r.stdout and "== 1." not in r.stdout,
          "--only speed: " + r.stdout[:300] + r.stderr)
    r = subprocess.run([args.bench, "--full", "--quick"], capture_output=True, text=True,
                       timeout=10)
    check(r.returncode == 2 and "usage" in r.stderr, "--full --quick is refused")
    r = subprocess.run([args.bench, "--help"], capture_output=True, text=True, timeout=10)
    check(r.returncode == 0 and "--full" in r.stdout and "--quick" in r.stdout, "--help")
    check_only(args.bench)
    check_summary_from(args.bench, args.work)
    print("ok: demo structure, %d sizes, tables 1-5, summary, plot %s" % (n_sizes, svg_path))


if __name__ == "__main__":
    main()
