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
Standard library only.
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


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


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
                if not l.strip().startswith(("(", "plot of")):
                    rows.append(l)
            return rows
    fail("no header row %r in:\n%s" % (header, "\n".join(lines)))


def number(s):
    v = float(s.rstrip("x%"))
    check(v > 0 and v == v and v < 1e6, "not a positive figure: %r" % s)
    return v


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
        m = re.match(r"\s*(\d+ [KMG]iB) (baseline|x86-64-v3|x86-64-v4) \(\S+\)((?:\s+\S+){6})$",
                     row)
        check(m is not None, "table 4 row: " + row)
        figures = [number(x) for x in m.group(3).split()]
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
    print("ok: demo structure, %d sizes, tables 1-5, summary, plot %s" % (n_sizes, svg_path))


if __name__ == "__main__":
    main()
