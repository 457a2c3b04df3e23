# SPDX-License-Identifier: Apache-2.0
"""Tests of the `simdbloom` command, driven as a subprocess (ctest: cli.<name>).

    /usr/bin/python3 cli_test.py NAME --bin PATH --work DIR [--data DIR] [--build DIR]
        [--lib libsimdbloom.so] [--emulator=CMD|ARG|...]

Every answer is computed here from the generated inputs: the exact set membership for
intersect/dedup/query (no false negatives allowed), and false positives bounded by the binomial
bound of the filter's fpp (mean + 5 standard deviations, fixed seeds). Standard library only.
"""
import argparse
import ctypes
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import parquet_writer  # noqa: E402

ARGS = None


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def first_occurrences(keys):
    """The keys without repeats, each where it first occurs (what dedup writes)."""
    return list(dict.fromkeys(keys))


def run(args, stdin=None, input_bytes=None, expect=0, env=None):
    """Runs simdbloom with args; returns (stdout bytes, stderr text)."""
    cmd = ARGS.emulator + [ARGS.bin] + args
    p = subprocess.run(cmd, input=input_bytes, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env)
    err = p.stderr.decode("utf-8", "replace")
    if expect is not None and p.returncode != expect:
        fail("%s: exit %d, expected %d\nstderr: %s" % (" ".join(args), p.returncode, expect, err))
    return p.stdout, err


def lines_of(data):
    return data.decode("utf-8", "surrogateescape").split("\n")[:-1] if data else []


def fp_bound(trials, p):
    """Upper bound on false positives among `trials` absent keys at rate p: mean + 5 sigma + 3."""
    return trials * p + 5 * math.sqrt(trials * p * (1 - p)) + 3


def urls(rnd, n, tag):
    return ["https://%s.example.com/%s/%d/%016x" % (tag, rnd.choice(["a", "bb", "ccc", "d/e"]), i,
                                                     rnd.getrandbits(64)) for i in range(n)]


def write_lines(path, items, crlf=False, final_newline=True):
    end = "\r\n" if crlf else "\n"
    text = end.join(items) + (end if final_newline and items else "")
    with open(path, "wb") as f:
        f.write(text.encode())


def w(name):
    return os.path.join(ARGS.work, name)


def summary(text):
    """The --json object: the last line of stderr (str), or of info --json's stdout (bytes)."""
    if isinstance(text, bytes):
        return json.loads(lines_of(text)[-1])
    return json.loads(text.rstrip("\n").split("\n")[-1])


def is_subsequence(sub, seq):
    it = iter(seq)
    return all(any(x == y for y in it) for x in sub)


# ---------------------------------------------------------------------------------------------
def test_build_query():
    rnd = random.Random(21)
    members = urls(rnd, 20000, "member")
    absent = urls(rnd, 20000, "absent")
    write_lines(w("members.txt"), members)
    probe = members[:10000] + absent
    rnd.shuffle(probe)
    write_lines(w("probe.txt"), probe)
    member_set = set(members)
    for layout in ["block512", "register64", "split_block256", "classic"]:
        for fpp in [0.01, 0.001]:
            out, err = run(["build", "--layout", layout, "--fpp", str(fpp), "-o", w("f.sbf"),
                            w("members.txt"), "--json"])
            check(out == b"", "build --json: nothing on stdout: %r" % out)
            s = summary(err)
            check(s["keys"] == 20000 and s["sizing"] == "counted", "build summary: %s" % s)
            check(s["filter"]["layout"] == layout, "layout in summary: %s" % s)
            check("counted the lines" in err, "build says how it sized: %r" % err)
            out, _ = run(["query", w("f.sbf"), w("probe.txt")])
            got = lines_of(out)
            check(is_subsequence(got, probe), "query output keeps input order")
            present = [x for x in got if x in member_set]
            check(len(present) == 10000,
                  "%s: %d of 10000 members found (false negatives)" % (layout, len(present)))
            fps = len(got) - len(present)
            check(fps <= fp_bound(20000, fpp),
                  "%s fpp %g: %d false positives of 20000" % (layout, fpp, fps))
            out, _ = run(["query", "--absent", w("f.sbf"), w("probe.txt")])
            check(sorted(lines_of(out) + got) == sorted(probe), "--absent is the complement")
            out, _ = run(["query", "--count", w("f.sbf"), w("probe.txt")])
            check(lines_of(out) == [str(len(got))], "--count: %r" % out)
    # The same through stdin, with -n given, and with 2 threads.
    out, err = run(["build", "-n", "20000", "-o", w("g.sbf"), "--json"],
                   input_bytes=open(w("members.txt"), "rb").read())
    check(summary(err)["sizing"] == "given" and summary(err)["keys"] == 20000, "stdin build")
    check(err.count("\n") == 1, "no note when -n is given, only the summary: %r" % err)
    a, _ = run(["query", w("g.sbf"), w("probe.txt")])
    b, _ = run(["query", w("g.sbf"), "-"], input_bytes=open(w("probe.txt"), "rb").read())
    c, _ = run(["query", "--threads", "2", w("g.sbf"), w("probe.txt")])
    check(a == b == c, "file, stdin and --threads 2 give the same lines")
    # --count with threads: each thread counts a byte range of the file.
    for absent_flag in [[], ["--absent"]]:
        one, _ = run(["query", "--count", w("g.sbf"), w("probe.txt")] + absent_flag)
        for t in ["2", "3", "7"]:
            many, _ = run(["query", "--count", "--threads", t, w("g.sbf"), w("probe.txt")]
                          + absent_flag)
            check(one == many, "--count --threads %s: %r vs %r" % (t, many, one))
        expected = len(a.split(b"\n")) - 1
        if not absent_flag:
            check(one == b"%d\n" % expected, "--count matches the printed lines")
    run(["build", "-n", "20000", "--threads", "2", "-o", w("t.sbf"), w("members.txt")])
    check(open(w("t.sbf"), "rb").read() == open(w("g.sbf"), "rb").read(),
          "--threads 2 builds the same bytes")
    # A pipe without -n: a scalable chain, said on stderr and in the JSON.
    out, err = run(["build", "-o", w("p.sbf"), "--json"], input_bytes=b"x\ny\n")
    check(summary(err)["sizing"] == "scalable" and "scalable" in err and "-n" in err,
          "pipe sizing note: %r" % err)
    check(summary(err)["filter"]["kind"] == "scalable", "pipe build makes a chain")
    # info
    out, _ = run(["info", w("g.sbf")])
    info = dict(l.split(": ", 1) for l in lines_of(out))
    check(info["layout"] == "block512" and info["inserted"] == "20000", "info: %s" % info)
    check(abs(float(info["approximate count"]) - 20000) < 600, "approximate count: %s" % info)
    check(0 < float(info["expected FPR"]) < 0.012, "expected FPR: %s" % info)
    out, _ = run(["info", "--json", "--quiet", w("g.sbf")])
    j = summary(out)
    check(j["inserted"] == 20000 and j["filter"]["k"] == int(info["k"]), "info --json: %s" % j)
    check(len(lines_of(out)) == 1, "--quiet --json prints only the summary")
    # Line rules: \r kept unless --strip-cr, last line without newline, empty lines are keys.
    write_lines(w("crlf.txt"), ["alpha", "beta", "gamma"], crlf=True, final_newline=False)
    run(["build", "-n", "100", "-o", w("cr.sbf"), w("crlf.txt")])
    run(["build", "-n", "100", "--strip-cr", "-o", w("nocr.sbf"), w("crlf.txt")])
    out, _ = run(["query", w("nocr.sbf")], input_bytes=b"alpha\nbeta\ngamma\ndelta\n")
    check(lines_of(out)[:3] == ["alpha", "beta", "gamma"], "--strip-cr keys: %r" % out)
    out, _ = run(["query", w("cr.sbf")], input_bytes=b"alpha\r\nbeta\r\ngamma\n")
    check(lines_of(out) == ["alpha\r", "beta\r", "gamma"], "\\r kept by default: %r" % out)
    out, err = run(["build", "-n", "10", "-o", w("e.sbf"), "--json"], input_bytes=b"\n\nx")
    check(summary(err)["keys"] == 3, "empty lines are keys")
    out, _ = run(["query", w("e.sbf")], input_bytes=b"\nx\n")
    check(out == b"\nx\n", "empty line found: %r" % out)
    out, _ = run(["build", "-o", w("empty.sbf"), "--json", w("empty.txt")], expect=1)
    open(w("empty.txt"), "w").close()
    out, err = run(["build", "-o", w("empty.sbf"), "--json", w("empty.txt")])
    check(summary(err)["keys"] == 0, "empty file: no keys")
    # A line longer than the 4 MiB read block.
    long_line = "L" * (9 << 20)
    write_lines(w("long.txt"), ["a", long_line, "b"])
    run(["build", "-n", "10", "-o", w("long.sbf"), w("long.txt")])
    out, _ = run(["query", "--count", w("long.sbf"), w("long.txt")])
    check(out == b"3\n", "long line: %r" % out[:50])
    # A counting filter probed by T threads (byte ranges of the file): the same answers.
    run(["build", "--counting", "-o", w("c.sbc"), w("members.txt")])
    one, _ = run(["query", "--count", w("c.sbc"), w("probe.txt")])
    check(int(one) >= 10000, "counting: every member found: %r" % one)
    for t in ["2", "5"]:
        many, _ = run(["query", "--count", "--threads", t, w("c.sbc"), w("probe.txt")])
        check(many == one, "counting --count --threads %s: %r vs %r" % (t, many, one))
    a, _ = run(["query", w("c.sbc"), w("probe.txt")])
    b, _ = run(["query", "--threads", "3", w("c.sbc"), w("probe.txt")])
    check(a == b and len(lines_of(a)) == int(one), "counting query --threads prints the same")


def test_lines():
    """Line cutting against Python's split on random inputs of \\n, \\r and text, from a file
    (mapped windows) and a pipe (read buffer), with tiny blocks (SIMDBLOOM_CLI_BLOCK_BYTES) so
    window and buffer edges fall everywhere; dedup at fpp 1e-9 prints exactly the first
    occurrences. Trials 80..119 cut at NUL (-z) with \\n inside the keys, and dedup -z prints
    NUL-terminated keys (cli.lines.portable runs the portable cutting)."""
    rnd = random.Random(99)
    for trial in range(120):
        z = trial >= 80
        sep = b"\0" if z else b"\n"
        alphabet = b"ab\r\n\0" if z else b"ab\r\n"
        n = rnd.choice([0, 1, 5, 63, 64, 65, 127, 300, 2000])
        data = b"".join(bytes(rnd.choice(alphabet) for _ in range(
            rnd.choice([0, 1, 2, 10, 63, 64, 65, 200]))) for _ in range(n))
        with open(w("r.txt"), "wb") as f:
            f.write(data)
        strip = rnd.random() < 0.5
        keys = data.split(sep)
        if keys and keys[-1] == b"":
            keys.pop()
        if strip:
            keys = [k[:-1] if k.endswith(b"\r") else k for k in keys]
        first = first_occurrences(keys)
        env = dict(os.environ, SIMDBLOOM_CLI_BLOCK_BYTES=str(rnd.choice([16, 100, 4096, 0])))
        zf = ["-z"] if z else []
        args = ["dedup", "-n", "100000", "--fpp", "1e-9"] + (["--strip-cr"] if strip else []) + zf
        for source in ["file", "pipe"]:
            if source == "file":
                out, _ = run(args + [w("r.txt")], env=env)
            else:
                out, _ = run(args, input_bytes=data, env=env)
            check(out == b"".join(k + sep for k in first), "trial %d (%s, %s%s): lines differ"
                  % (trial, source, env["SIMDBLOOM_CLI_BLOCK_BYTES"], ", -z" if z else ""))
        # build --threads T cuts the file into T byte ranges (a line belongs to the range it
        # starts in): the filter file is byte-identical to one thread's.
        if trial % 4 == 0 and data:
            threads = str(rnd.choice([2, 3, 5, 8]))
            cr = (["--strip-cr"] if strip else []) + zf
            run(["build", "-n", "5000", "-o", w("one.sbf"), w("r.txt")] + cr, env=env)
            run(["build", "-n", "5000", "--threads", threads, "-o", w("many.sbf"), w("r.txt")]
                + cr, env=env)
            check(open(w("one.sbf"), "rb").read() == open(w("many.sbf"), "rb").read(),
                  "trial %d: --threads %s built other bytes" % (trial, threads))
            # The counting pass (no -n) counts the same keys.
            _, err = run(["build", "-o", w("count.sbf"), "--json", w("r.txt")] + cr, env=env)
            check(summary(err)["expected_items"] == max(len(keys), 1),
                  "trial %d: counted %s keys, expected %d" % (trial, summary(err), len(keys)))


def test_scalable():
    """Pipes without -n: the set is a ScalableFilter chain (first stage
    SIMDBLOOM_CLI_SCALABLE_INITIAL keys here, so 30000 keys make several stages). No false
    negatives; false positives within the binomial bound of fpp (the chain keeps its overall rate
    at or below fpp); dedup never prints a line twice across stage boundaries."""
    rnd = random.Random(19)
    env = dict(os.environ, SIMDBLOOM_CLI_SCALABLE_INITIAL="1000")
    members = urls(rnd, 30000, "grow")
    absent = urls(rnd, 30000, "other")
    data = ("\n".join(members) + "\n").encode()
    write_lines(w("absent.txt"), absent)
    write_lines(w("members.txt"), members)
    out, err = run(["build", "-o", w("chain.sbf"), "--json"], input_bytes=data, env=env)
    s = summary(err)
    check(s["filter"]["kind"] == "scalable" and s["filter"]["stages"] >= 4 and
          s["keys"] == 30000, "chain summary: %s" % s)
    out, _ = run(["query", "--count", w("chain.sbf"), w("members.txt")])
    check(out == b"30000\n", "chain: every member found: %r" % out)
    out, _ = run(["query", "--count", w("chain.sbf"), w("absent.txt")], expect=None)
    check(int(out) <= fp_bound(30000, 0.01), "chain false positives: %r" % out)
    out, _ = run(["info", w("chain.sbf")])
    check(b"kind: scalable" in out and b"stage 3:" in out, "info on a chain: %r" % out[:200])
    out, _ = run(["info", "--json", "--quiet", w("chain.sbf")])
    check(summary(out)["count"] <= 30000 and summary(out)["count"] > 29000, "chain count")
    # dedup through a pipe: duplicates spread over many stages.
    stream = []
    for u in members:
        stream += [u] * rnd.choice([1, 2, 3])
    rnd.shuffle(stream)
    first = first_occurrences(stream)
    for fpp in ["0.01", "0.001"]:
        out, err = run(["dedup", "--fpp", fpp, "--json"],
                       input_bytes=("\n".join(stream) + "\n").encode(), env=env)
        got = lines_of(out)
        s = summary(err)
        check(s["sizing"] == "scalable" and s["filter"]["stages"] >= 4, "dedup chain: %s" % s)
        check(len(got) == len(set(got)), "chain dedup printed a line twice")
        check(is_subsequence(got, first), "chain dedup keeps first occurrences in order")
        missed = len(first) - len(got)
        check(missed <= fp_bound(len(first), float(fpp)), "chain dedup dropped %d" % missed)
        check(s["unique"] == len(got), "chain dedup counts: %s" % s)
    # intersect with A from a pipe.
    probe = members[:5000] + absent[:20000]
    write_lines(w("probe.txt"), probe)
    out, _ = run(["intersect", "-", w("probe.txt")], input_bytes=data, env=env)
    got = lines_of(out)
    check(set(members[:5000]) <= set(got), "chain intersect: no false negatives")
    check(len(got) - 5000 <= fp_bound(20000, 0.01), "chain intersect false positives")
    # merge: two one-stage chains whose counts fit the first stage merge; grown chains do not;
    # a chain and a plain filter do not.
    small = dict(os.environ, SIMDBLOOM_CLI_SCALABLE_INITIAL="100000")
    run(["build", "-o", w("c1.sbf")], input_bytes=("\n".join(members[:1000]) + "\n").encode(),
        env=small)
    run(["build", "-o", w("c2.sbf")], input_bytes=("\n".join(absent[:1000]) + "\n").encode(),
        env=small)
    run(["merge", w("c1.sbf"), w("c2.sbf"), "-o", w("c12.sbf")])
    write_lines(w("both.txt"), members[:1000] + absent[:1000])
    out, _ = run(["query", "--count", w("c12.sbf"), w("both.txt")])
    check(out == b"2000\n", "merged chains hold both: %r" % out)
    _, err = run(["merge", w("chain.sbf"), w("chain.sbf"), "-o", w("cc.sbf")], expect=1)
    check(err.count("\n") == 1 and "chain.sbf" in err, "grown chains: %r" % err)
    run(["build", "-n", "1000", "-o", w("plain.sbf"), w("members.txt")])
    _, err = run(["merge", w("c1.sbf"), w("plain.sbf"), "-o", w("cp.sbf")], expect=1)
    check("scalable" in err and "plain" in err, "chain + plain: %r" % err)
    check(not os.path.exists(w("cc.sbf")) and not os.path.exists(w("cp.sbf")),
          "no output after refused merges")


def test_dedup():
    rnd = random.Random(7)
    distinct = urls(rnd, 30000, "dedup")
    stream = []
    for u in distinct:
        stream += [u] * rnd.choice([1, 1, 2, 3])
    rnd.shuffle(stream)
    write_lines(w("stream.txt"), stream)
    first = first_occurrences(stream)
    for fpp in [0.01, 0.001]:
        out, err = run(["dedup", "--fpp", str(fpp), "--json", w("stream.txt")])
        got = lines_of(out)
        s = summary(err)
        check(len(got) == len(set(got)), "dedup printed a line twice")
        check(is_subsequence(got, first), "dedup prints first occurrences in input order")
        missed = len(first) - len(got)
        check(missed <= fp_bound(len(first), fpp),
              "fpp %g: %d of %d distinct lines dropped" % (fpp, missed, len(first)))
        check(s["unique"] == len(got) and s["unique"] + s["duplicates"] == len(stream),
              "dedup counts: %s" % s)
        check(s["sizing"] == "counted" and s["expected_items"] == len(stream), "sizing: %s" % s)
    out, err = run(["dedup", "-n", "30000"], input_bytes=open(w("stream.txt"), "rb").read())
    check(len(lines_of(out)) == len(set(lines_of(out))), "dedup from stdin")
    # Issue 40: -q silences the notes (here: "sized for N keys"), never the data.
    plain, err = run(["dedup", w("stream.txt")])
    check("sized for" in err, "dedup says how it sized the filter: %r" % err)
    out, err = run(["dedup", "--quiet", "--json", w("stream.txt")])
    check(out == plain and err.count("\n") == 1 and summary(err)["unique"] == len(lines_of(out)),
          "--quiet --json: the same data, the summary alone on stderr: %r %r" % (out[:80], err))


def test_intersect():
    rnd = random.Random(3)
    a_only = urls(rnd, 15000, "a")
    both = urls(rnd, 5000, "both")
    b_only = urls(rnd, 25000, "b")
    a = a_only + both
    b = b_only + both
    rnd.shuffle(a)
    rnd.shuffle(b)
    write_lines(w("a.txt"), a)
    write_lines(w("b.txt"), b)
    both_set = set(both)
    for fpp, threads in [(0.01, "1"), (0.001, "1"), (0.01, "2")]:
        out, err = run(["intersect", "--fpp", str(fpp), "--threads", threads, "--json",
                        w("a.txt"), w("b.txt")])
        got = lines_of(out)
        s = summary(err)
        check(is_subsequence(got, b), "intersect prints lines of B in order")
        true_hits = [x for x in got if x in both_set]
        check(len(true_hits) == len(both), "intersect: %d of %d common lines (false negatives)"
              % (len(true_hits), len(both)))
        fps = len(got) - len(true_hits)
        check(fps <= fp_bound(len(b_only), fpp), "fpp %g: %d false positives" % (fpp, fps))
        check(s["keys_a"] == len(a) and s["keys_b"] == len(b) and s["matches"] == len(got),
              "intersect counts: %s" % s)
    # B from stdin.
    out, _ = run(["intersect", "-n", "20000", w("a.txt"), "-"],
                 input_bytes=open(w("b.txt"), "rb").read())
    check(set(both) <= set(lines_of(out)), "intersect with B on stdin")


def test_merge():
    rnd = random.Random(5)
    x = urls(rnd, 8000, "x")
    y = urls(rnd, 8000, "y")
    z = urls(rnd, 20000, "z")
    write_lines(w("x.txt"), x)
    write_lines(w("y.txt"), y)
    write_lines(w("z.txt"), z)
    run(["build", "-n", "16000", "-o", w("x.sbf"), w("x.txt")])
    run(["build", "-n", "16000", "-o", w("y.sbf"), w("y.txt")])
    run(["build", "-n", "16000", "-o", w("xy_direct.sbf"), w("x.txt"), w("y.txt")])
    out, err = run(["merge", w("x.sbf"), w("y.sbf"), "-o", w("xy.sbf"), "--json"])
    check(out == b"" and summary(err)["filter"]["layout"] == "block512", "merge summary")
    merged = open(w("xy.sbf"), "rb").read()
    direct = open(w("xy_direct.sbf"), "rb").read()
    check(merged == direct, "merge of two filters == one filter built from both files")
    out, _ = run(["query", "--count", w("xy.sbf"), w("x.txt"), w("y.txt")])
    check(out == b"16000\n", "merged filter holds both: %r" % out)
    out, _ = run(["query", "--count", w("xy.sbf"), w("z.txt")], expect=None)
    check(int(out) <= fp_bound(len(z), 0.01), "merged false positives: %r" % out)
    # Incompatible: different sizes; no output file is left.
    run(["build", "-n", "1000", "-o", w("small.sbf"), w("x.txt")])
    _, err = run(["merge", w("x.sbf"), w("small.sbf"), "-o", w("bad.sbf")], expect=1)
    check(len(err.strip().split("\n")) == 1 and "x.sbf" in err and "small.sbf" in err,
          "incompatible merge message: %r" % err)
    check(not os.path.exists(w("bad.sbf")), "no output after a failed merge")


def probe(path, column, values, expect=0):
    out, err = run(["parquet", path, "--column", column, "--"] + values, expect=expect)
    return [tuple(l.split("\t")) for l in lines_of(out)], err


def test_parquet():
    data = ARGS.data
    # The parquet-mr file: one row group, column String.
    real = os.path.join(data, "data_index_bloom_encoding_stats.parquet")
    present = ["Hello", "This is", "a", "test", "How", "today"]
    absent = ["hello", "world", "are"]
    rows, _ = probe(real, "String", present + absent)
    check(rows == [("0", v, "maybe") for v in present] + [("0", v, "no") for v in absent],
          "parquet-mr file: %s" % rows)
    # Our own files: three row groups, three columns (url and id filtered, note not); one with
    # bloom_filter_length recorded, one without (the header gives the length). The checked-in
    # files are what the writer makes.
    columns, groups = parquet_writer.sample_table()
    for name, kwargs in [("multi_rowgroup.parquet", {}),
                         ("multi_rowgroup_nolength.parquet",
                          {"filter_bytes": 2048, "record_length": False})]:
        made = parquet_writer.write_parquet(columns, groups, {"url", "id"}, **kwargs)
        checked_in = os.path.join(data, name)
        check(open(checked_in, "rb").read() == made, "%s is what parquet_writer.py writes" % name)
        rnd = random.Random(11)
        for ci, column in [(0, "url"), (1, "id")]:
            values = [groups[g][ci][rnd.randrange(200)] for g in range(3)]
            values = [v.decode() if isinstance(v, bytes) else str(v) for v in values]
            misses = ["https://nowhere.example/%d" % i for i in range(200)] if ci == 0 else \
                [str(v) for v in range(1000, 1200)]
            rows, err = probe(checked_in, column, values + misses)
            check(len(rows) == 3 * (len(values) + len(misses)), "one row per group and value")
            fps = 0
            for g, v, answer in rows:
                g = int(g)
                if v in values:
                    expected_here = values.index(v) == g
                    if expected_here:
                        check(answer == "maybe", "false negative: group %d %s" % (g, v))
                    else:
                        fps += answer == "maybe"
                else:
                    fps += answer == "maybe"
            # 200 keys in 1024 (2048) bytes: about 0.1% (0.004%) predicted.
            check(fps <= fp_bound(3 * (len(values) + len(misses)), 0.005),
                  "%s %s: %d false positives" % (name, column, fps))
            check(err == "", "no notes for filtered columns: %r" % err)
        rows, err = probe(checked_in, "note", ["note 5", "x"])
        check(all(r[2] == "maybe" for r in rows) and len(rows) == 6, "unfiltered column: maybe")
        check(err.count("has no Bloom filter") == 3, "says which row groups have no filter: %r"
              % err)
        # Issue 40: -q silences those notes, not the answers.
        rows_q, err_q = run(["parquet", checked_in, "--column", "note", "-q", "--", "note 5", "x"])
        check(lines_of(rows_q) == ["\t".join(r) for r in rows] and err_q == "",
              "parquet -q: the answers, no notes: %r %r" % (rows_q, err_q))
    # An INT64 value that does not parse, a missing column.
    _, err = probe(os.path.join(data, "multi_rowgroup.parquet"), "id", ["abc"], expect=2)
    check("abc" in err, "bad INT64 value: %r" % err)
    parquet_key_types()
    _, err = probe(os.path.join(data, "multi_rowgroup.parquet"), "nope", ["x"], expect=2)
    check("url" in err and "id" in err and "note" in err, "lists the columns: %r" % err)
    # --json summary
    out, err = run(["parquet", os.path.join(data, "multi_rowgroup.parquet"), "--column", "id",
                    "0", "--json", "--quiet"])
    plain, _ = run(["parquet", os.path.join(data, "multi_rowgroup.parquet"), "--column", "id",
                    "0"])
    check(out == plain and len(lines_of(out)) == 3,
          "parquet --quiet --json: the answers still on stdout: %r" % out)
    s = summary(err)
    check(s["row_groups"] == 3 and s["maybe"] >= 1 and s["maybe"] + s["no"] == 3, "json %s" % s)
    hostile_parquet()


def test_parquet_many():
    """parquet --keys FILE --column NAME F1 F2 ...: every key against every row group of every
    file, FILE<TAB>ROW_GROUP<TAB>KEY per (row group, key) that may match (in file, row-group and
    key order), --count per row group: exactly the single-file command's "maybe" rows; no false
    negative; INT64, INT32 and BYTE_ARRAY columns; the parquet-mr file."""
    T = parquet_writer
    columns = [("id", T.INT64), ("small", T.INT32), ("url", T.BYTE_ARRAY), ("note", T.BYTE_ARRAY)]
    files, held = [], []
    for f in range(4):
        groups = []
        for g in range(1 + f):
            base = 1000 * f + 100 * g
            ids = [base + i for i in range(60)] + [-(base + 1)]
            small = [(v * 7919) % 2**31 - 2**30 for v in ids]
            urls = [("https://f%d.example/%d" % (f, v)).encode() for v in ids]
            groups.append([ids, small, urls, [b"n" for _ in ids]])
        path = w("part%d.parquet" % f)
        with open(path, "wb") as out:
            out.write(T.write_parquet(columns, groups, {"id", "small", "url"}))
        files.append(path)
        held.append(groups)
    rnd = random.Random(5)
    for ci, column in [(0, "id"), (1, "small"), (2, "url")]:
        picks = {(f, g): held[f][g][ci][rnd.randrange(61)] for f in range(4) for g in range(1 + f)}
        picks = {fg: v.decode() if isinstance(v, bytes) else str(v) for fg, v in picks.items()}
        present = list(picks.values())
        others = ["https://nowhere/%d" % i for i in range(300)] if ci == 2 else \
            [str(v) for v in range(-400000, 400000, 2671)]
        keys = present + others
        if ci == 0:
            keys += ["18446744073709551615", "-9223372036854775808"]
        if ci == 1:
            keys += ["4294967295", "4294967296", "9223372036854775808", "-2147483649"]
        write_lines(w("keys.txt"), keys)
        expected, counts = [], []
        for path in files:
            rows, _ = probe(path, column, keys)
            per_group = {}
            for g, v, answer in rows:
                per_group.setdefault(int(g), []).append((v, answer))
            for g in sorted(per_group):
                maybe = [v for v, a in per_group[g] if a == "maybe"]
                expected += ["%s\t%d\t%s" % (path, g, v) for v in maybe]
                counts.append("%s\t%d\t%d" % (path, g, len(maybe)))
        out, err = run(["parquet", "--keys", w("keys.txt"), "--column", column] + files)
        check(lines_of(out) == expected, "parquet --keys %s: the single-file answers" % column)
        for (f, g), v in picks.items():
            check("%s\t%d\t%s" % (files[f], g, v) in expected, "no false negative: %s" % v)
        out, _ = run(["parquet", "--keys", w("keys.txt"), "--column", column, "-c"] + files)
        check(lines_of(out) == counts, "parquet --keys -c: one count per row group: %r" % out)
    # Keys from stdin, the parquet-mr file, a column without filters (every key may match).
    real = os.path.join(ARGS.data, "data_index_bloom_encoding_stats.parquet")
    out, _ = run(["parquet", "--keys", "-", "--column", "String", real],
                 input_bytes=b"Hello\nhello\ntoday\n")
    check(lines_of(out) == [real + "\t0\tHello", real + "\t0\ttoday"], "parquet-mr: %r" % out)
    out, err = run(["parquet", "--keys", w("keys.txt"), "--column", "note", "-c", files[0]])
    check(lines_of(out) == [files[0] + "\t0\t%d" % len(keys)] and "no Bloom filter" in err,
          "a row group without a filter: every key: %r %r" % (out, err))
    # Usage errors: --count without --keys, a key that is no integer, a missing column.
    run(["parquet", files[0], "--column", "id", "-c", "5"], expect=2)
    write_lines(w("bad.txt"), ["12", "abc"])
    _, err = run(["parquet", "--keys", w("bad.txt"), "--column", "id"] + files, expect=2)
    check("abc" in err, err)
    _, err = run(["parquet", "--keys", w("keys.txt"), "--column", "nope", files[0]], expect=2)
    check("no column 'nope'" in err, err)


def parquet_key_types():
    """A column's filter holds the column's physical type (issue 39): INT32 4-byte integers,
    INT64 8-byte integers, BYTE_ARRAY byte strings; the values of an integer column are decimal
    integers, probed by value (so 42 in an INT32 column is found; -1 and 4294967295 are one
    4-byte key; a value beyond 32 bits is "no"), a value that is not one is exit 2 naming the
    column and its type; the text "42" in a BYTE_ARRAY column is the string. Other types
    (DOUBLE) are refused with exit 2."""
    T = parquet_writer
    rnd = random.Random(39)
    small = [-2147483648, -1, 0, 42, 2147483647] + [rnd.randrange(-2 ** 31, 2 ** 31)
                                                    for _ in range(195)]
    big = [-2 ** 63, -1, 0, 42, 2 ** 63 - 1] + [rnd.randrange(-2 ** 63, 2 ** 63)
                                                for _ in range(195)]
    text = [b"42", b"-1", b"hello"] + [b"t%d" % i for i in range(197)]
    reals = [0.5 * i for i in range(200)]
    columns = [("i32", T.INT32), ("i64", T.INT64), ("s", T.BYTE_ARRAY), ("d", T.DOUBLE)]
    path = w("key_types.parquet")
    with open(path, "wb") as f:
        f.write(T.write_parquet(columns, [[small, big, text, reals]], {"i32", "i64", "s", "d"},
                                filter_bytes=4096))

    def answers(column, values, expect=0):
        rows, err = probe(path, column, values, expect=expect)
        return {v: a for _, v, a in rows}, err

    got, err = answers("i32", ["42", "-1", "4294967295", "-2147483648", "+2147483647", "0"])
    check(set(got.values()) == {"maybe"} and err == "", "INT32 values present: %s %r" % (got, err))
    absent = [str(v) for v in range(1000, 1400)]
    got, _ = answers("i32", absent + ["4294967296", "-2147483649", "18446744073709551615",
                                      "-9223372036854775808"])
    check(got["4294967296"] == got["-2147483649"] == "no" and
          got["18446744073709551615"] == got["-9223372036854775808"] == "no",
          "beyond 32 bits: absent from an INT32 column: %s" % got)
    check(sum(a == "maybe" for a in got.values()) <= fp_bound(len(got), 0.01),
          "INT32 absent values: %d maybe" % sum(a == "maybe" for a in got.values()))
    got, _ = answers("i64", ["-9223372036854775808", "-1", "18446744073709551615", "42",
                             "9223372036854775807"])
    check(set(got.values()) == {"maybe"}, "INT64 values present: %s" % got)
    got, _ = answers("i64", absent)
    check(sum(a == "maybe" for a in got.values()) <= fp_bound(len(got), 0.01), "INT64 absent")
    # Strings are strings: "42" and "-1" are in column s as text; "hello" too; 42 as an integer
    # key is another key, and "+42" another string.
    got, _ = answers("s", ["42", "-1", "hello"])
    check(set(got.values()) == {"maybe"}, "BYTE_ARRAY strings present: %s" % got)
    got, _ = answers("s", ["x%d" % i for i in range(400)] + ["+42", "042"])
    check(sum(a == "maybe" for a in got.values()) <= fp_bound(len(got), 0.01), "strings absent")
    # Not an integer for an integer column: exit 2, one line naming the value, column, type.
    for column, kind in [("i32", "INT32"), ("i64", "INT64")]:
        for bad in ["hello", "4.5", "1e3", "", " 42", "0x10", "-", "18446744073709551616",
                    "-9223372036854775809"]:
            out, err = run(["parquet", path, "--column", column, "--", "42", bad], expect=2)
            check(out == b"", "nothing on stdout for a bad value")
            one_line(err, "'%s'" % bad, column, kind, "not an integer")
    # A DOUBLE column: refused, naming its type and the types probed.
    _, err = run(["parquet", path, "--column", "d", "0.5"], expect=2)
    one_line(err, "DOUBLE", "INT32", "BYTE_ARRAY")


def hostile_parquet():
    """Malformed files: exit code 1 (a failure, as a corrupt filter file; 2 is for the command
    line), one line on stderr naming the file, never a crash."""
    columns, groups = parquet_writer.sample_table(groups=2, rows=20)
    good = parquet_writer.write_parquet(columns, groups, {"url", "id"})
    size = len(good)
    T = parquet_writer
    cases = {
        "too_short": b"PAR1PAR1",
        "no_magic": b"XXXX" + good[4:],
        "footer_len_past_file": good[:-8] + (size * 2).to_bytes(4, "little") + b"PAR1",
        "footer_len_huge": good[:-8] + b"\xff\xff\xff\xff" + b"PAR1",
        "truncated_start": b"PAR1" + good[size // 2:],
        "garbage_footer": good[:-8 - 64] + bytes(range(200, 255)) + b"\x01" * 9
        + (64).to_bytes(4, "little") + b"PAR1",
        "bloom_offset_past_end": T.write_parquet(columns, groups, {"url"}, overrides={
            (0, "url"): {14: (T.T_I64, size * 10)}}),
        "bloom_offset_negative": T.write_parquet(columns, groups, {"url"}, overrides={
            (0, "url"): {14: (T.T_I64, -5)}}),
        "bloom_length_past_end": T.write_parquet(columns, groups, {"url"}, overrides={
            (1, "url"): {15: (T.T_I32, 1 << 30)}}),
        "bloom_offset_into_data": T.write_parquet(columns, groups, {"url"}, overrides={
            (0, "url"): {14: (T.T_I64, 4)}}),
        "path_not_strings": T.write_parquet(columns, groups, {"url"}, overrides={
            (0, "url"): {3: (T.T_LIST, (T.T_I32, [1, 2]))}}),
    }
    # A list claiming 2^40 elements, and nesting 1000 deep, in the footer.
    deep = b"\x1c" * 1000 + b"\x00" * 1000
    huge = b"\x19" + b"\xfc" + T.varint(1 << 40)
    # Lists of the wrong element type: FileMetaData.row_groups (field 4) of one i32, and a row
    # group whose columns (field 1) are one i32.
    row_groups_i32 = b"\x49\x15\x02\x00"
    columns_i32 = b"\x49\x1c\x19\x15\x02\x00\x00"
    for name, footer in [("deep_nesting", deep), ("huge_list", huge),
                         ("row_groups_not_structs", row_groups_i32),
                         ("columns_not_structs", columns_i32)]:
        cases[name] = b"PAR1" + footer + len(footer).to_bytes(4, "little") + b"PAR1"
    why = {"path_not_strings": "path_in_schema is not a list of strings",
           "row_groups_not_structs": "row_groups is not a list of structs",
           "columns_not_structs": "row group columns are not structs"}
    for name, blob in cases.items():
        path = w("hostile_%s.parquet" % name)
        with open(path, "wb") as f:
            f.write(blob)
        p = subprocess.run(ARGS.emulator + [ARGS.bin, "parquet", path, "--column", "url", "x"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode()
        check(p.returncode == 1, "%s: exit %d, expected 1 (%s)" % (name, p.returncode, err))
        check(err.count("\n") == 1 and path in err, "%s: one line naming the file: %r"
              % (name, err))
        check(why.get(name, "") in err, "%s: says %r: %r" % (name, why.get(name), err))


def test_errors():
    write_lines(w("keys.txt"), ["a", "b", "c"])
    run(["build", "-n", "10", "-o", w("ok.sbf"), w("keys.txt")])
    ok = open(w("ok.sbf"), "rb").read()

    def one_line(err, *needles):
        check(err.count("\n") == 1 and err.startswith("simdbloom: "), "one line: %r" % err)
        for n in needles:
            check(n in err, "%r names %r" % (err, n))

    # Usage errors: exit 2.
    for args, needle in [([], "usage"), (["frobnicate"], "frobnicate"),
                         (["build", w("keys.txt")], "-o"),
                         (["build", "--bogus", "-o", w("x.sbf")], "--bogus"),
                         (["build", "--fpp", "2", "-o", w("x.sbf"), w("keys.txt")], "fpp"),
                         (["build", "-n", "ten", "-o", w("x.sbf"), w("keys.txt")], "ten"),
                         (["build", "--layout", "nope", "-o", w("x.sbf"), w("keys.txt")],
                          "block512"),
                         (["query"], "FILTER"), (["intersect", w("keys.txt")], "two"),
                         (["merge", w("ok.sbf"), w("ok.sbf")], "-o"),
                         (["parquet", w("keys.txt"), "x"], "--column")]:
        _, err = run(args, expect=2)
        if args:
            one_line(err, needle)
        else:
            check("usage" in err, "usage text")
    # Failures: exit 1, one line naming the file.
    missing = w("missing.txt")
    for args, needle in [(["build", "-o", w("x.sbf"), missing], missing),
                         (["dedup", missing], missing), (["intersect", missing, w("keys.txt")],
                                                         missing),
                         (["intersect", w("keys.txt"), missing], missing),
                         (["info", w("keys.txt")], "keys.txt"),
                         (["build", "-o", w("x.sbf"), ARGS.work], ARGS.work),
                         (["build", "-o", w("no/such/dir/x.sbf"), w("keys.txt")], "x.sbf"),
                         (["parquet", missing, "--column", "c", "v"], missing)]:
        _, err = run(args, expect=1)
        one_line(err, needle)
    _, err = run(["info", w("keys.txt")], expect=1)
    one_line(err, "not a simdbloom filter")
    # query's 1 means "no key selected": its failures exit 2, as grep's.
    for args, needle in [(["query", w("ok.sbf"), missing], missing),
                         (["query", w("missing.sbf"), w("keys.txt")], "missing.sbf"),
                         (["query", w("keys.txt"), w("keys.txt")], "not a simdbloom filter")]:
        _, err = run(args, expect=2)
        one_line(err, needle)
    # Truncated and corrupted filter files.
    for name, blob in [("trunc_header.sbf", ok[:40]), ("trunc_payload.sbf", ok[:-1]),
                       ("corrupt.sbf", ok[:-1] + bytes([ok[-1] ^ 1])),
                       ("empty.sbf", b"")]:
        with open(w(name), "wb") as f:
            f.write(blob)
        _, err = run(["query", w(name), w("keys.txt")], expect=2)  # query: every error is 2
        one_line(err, name)
        _, err = run(["merge", w("ok.sbf"), w(name), "-o", w("m.sbf")], expect=1)
        one_line(err, name)
        check(not os.path.exists(w("m.sbf")), "no merge output after an error")
    if os.geteuid() != 0:  # root reads mode-000 files anyway
        os.chmod(w("keys.txt"), 0)
        _, err = run(["build", "-o", w("x.sbf"), w("keys.txt")], expect=1)
        one_line(err, "keys.txt")
        os.chmod(w("keys.txt"), 0o644)
    # No partial output: an existing OUT is untouched by a failed build, and no temporary file
    # is left behind.
    with open(w("keep.sbf"), "wb") as f:
        f.write(ok)
    run(["build", "-n", "10", "-o", w("keep.sbf"), w("keys.txt"), missing], expect=1)
    check(open(w("keep.sbf"), "rb").read() == ok, "a failed build left OUT as it was")
    # Killed while reading a pipe: no OUT, no temporary.
    before = set(os.listdir(ARGS.work))
    p = subprocess.Popen(ARGS.emulator + [ARGS.bin, "build", "-n", "1000", "-o",
                                          w("killed.sbf")], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdin.write(b"a\nb\n")
    p.stdin.flush()
    time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    p.wait()
    check(p.returncode != 0, "killed build fails")
    check(set(os.listdir(ARGS.work)) == before, "killed build left files: %s"
          % (set(os.listdir(ARGS.work)) - before))
    leftovers = [n for n in os.listdir(ARGS.work) if ".tmp." in n]
    check(not leftovers, "temporary files left: %s" % leftovers)


# ---------------------------------------------------------------------------------------------
def dir_names(path):
    return sorted(os.listdir(path))


def test_nothing_lost():
    """-o is the library's atomic save: a failed or killed build leaves the old OUT and nothing
    else; OUT may not be an input; links and devices are handled as documented."""
    d = w("out")
    os.makedirs(d)
    rnd = random.Random(5)
    keys = urls(rnd, 200000, "k")
    write_lines(w("keys.txt"), keys)
    keys_bytes = open(w("keys.txt"), "rb").read()
    old = os.path.join(d, "f.sbf")
    run(["build", "-n", "1000", "-o", old, w("keys.txt")])
    old_bytes = open(old, "rb").read()

    # A write that fails (RLIMIT_FSIZE, SIGXFSZ ignored: EFBIG, as a full disk's ENOSPC).
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, resource.RLIM_INFINITY))
    p = subprocess.run(ARGS.emulator + [ARGS.bin, "build", "-n", "2000000", "-o", old,
                                        w("keys.txt")], preexec_fn=small_files,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode()
    check(p.returncode == 1, "a failed write exits 1: %d %r" % (p.returncode, err))
    check(err.count("\n") == 1 and old in err and os.strerror(27) in err,
          "one line naming OUT and the reason: %r" % err)
    check(open(old, "rb").read() == old_bytes, "a failed write left OUT as it was")
    check(dir_names(d) == ["f.sbf"], "a failed write left files: %s" % dir_names(d))

    # A full file system, where the test may mount one (root, mount allowed).
    full = w("tmpfs")
    os.makedirs(full)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if mounted:
        try:
            target = os.path.join(full, "f.sbf")
            shutil.copy(old, target)
            _, err = run(["build", "-n", "2000000", "-o", target, w("keys.txt")], expect=1)
            check(os.strerror(28) in err, "full disk named: %r" % err)
            check(open(target, "rb").read() == old_bytes, "a full disk left OUT as it was")
            check(dir_names(full) == ["f.sbf"], "full disk left files: %s" % dir_names(full))
        finally:
            subprocess.run(["umount", full])
    else:
        print("note: cannot mount a tmpfs here: the full-disk case is covered by RLIMIT_FSIZE")

    # kill -9 at moments spread over a whole build: the old OUT or the new one, whole, and no
    # other file, but for the one documented window (lib/formats/file_io.h): a kill between
    # the two system calls that name the complete new file and rename it over OUT leaves that
    # complete file under its temporary name. A full run's time sets the moments.
    new_args = ARGS.emulator + [ARGS.bin, "build", "-n", "3000000", "-o", old, w("keys.txt")]
    t0 = time.monotonic()
    subprocess.run(new_args, check=True, stderr=subprocess.DEVNULL)
    full_run = time.monotonic() - t0
    new_bytes = open(old, "rb").read()
    window = re.compile(r"^\.f\.sbf\.tmp\.[0-9a-f]{16}$")
    for i in range(12):
        with open(old, "wb") as f:
            f.write(old_bytes)
        proc = subprocess.Popen(new_args, stderr=subprocess.DEVNULL)
        time.sleep(full_run * (i + 0.5) / 12)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        got = open(old, "rb").read()
        check(got in (old_bytes, new_bytes), "kill -9 after %.0f%%: OUT is neither the old nor "
              "the new filter (%d bytes)" % (100 * (i + 0.5) / 12, len(got)))
        others = [n for n in dir_names(d) if n != "f.sbf"]
        for n in others:
            check(window.match(n) is not None and got == old_bytes and
                  open(os.path.join(d, n), "rb").read() == new_bytes,
                  "kill -9 left a file other than the complete new filter between its link and "
                  "its rename: %s" % dir_names(d))
            print("note: kill -9 landed between the link and the rename: %s" % n)
            os.remove(os.path.join(d, n))
        check(len(others) <= 1, "kill -9 left files: %s" % dir_names(d))
    run(["info", old])

    # Without O_TMPFILE (no /proc here: a private mount namespace hides it, as on file systems
    # that lack it) the save goes through a named temporary, which an interrupt or a file size
    # limit must not leave behind. Where the test may make such a namespace (root).
    probe = subprocess.run(["unshare", "-m", "true"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    # AddressSanitizer reads /proc/self/maps for the stack's bounds: without /proc it reports
    # false stack overflows when an exception unwinds, so sanitized builds skip this case.
    ldd = subprocess.run(["ldd", ARGS.bin], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if b"libasan" in ldd.stdout or ARGS.emulator:
        print("note: a sanitized or emulated binary: the named-temporary case is not run")
    elif probe.returncode == 0:
        hidden = ["unshare", "-m", "sh", "-c", 'mount -t tmpfs none /proc && exec "$@"', "sh"]
        with open(old, "wb") as f:
            f.write(old_bytes)
        big = hidden + ARGS.emulator + [ARGS.bin, "build", "-n", "300000000", "-o", old,
                                        w("keys.txt")]
        proc = subprocess.Popen(big, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(dir_names(d)) < 2 and proc.poll() is None:
            time.sleep(0.001)
        check(len(dir_names(d)) == 2, "a named temporary appeared: %s" % dir_names(d))
        proc.send_signal(signal.SIGINT)
        proc.wait()
        check(dir_names(d) == ["f.sbf"], "SIGINT left files: %s" % dir_names(d))
        check(open(old, "rb").read() == old_bytes, "SIGINT left OUT as it was")
        p = subprocess.run(hidden + ["prlimit", "--fsize=100000"] + ARGS.emulator +
                           [ARGS.bin, "build", "-n", "1000000", "-o", old, w("keys.txt")],
                           stderr=subprocess.PIPE)
        check(p.returncode == 1 and os.strerror(27) in p.stderr.decode(),
              "a file size limit on a named temporary: %d %r" % (p.returncode, p.stderr))
        check(dir_names(d) == ["f.sbf"], "the file size limit left files: %s" % dir_names(d))
    else:
        print("note: no private mount namespace here: the named-temporary case is run through "
              "SIMDBLOOM_SAVE_NAMED_TEMPORARY only")
    # The same without root (issue 45: the case above is root-only): the library's test switch
    # takes the named temporary where O_TMPFILE works.
    named = dict(os.environ, SIMDBLOOM_SAVE_NAMED_TEMPORARY="1")
    with open(old, "wb") as f:
        f.write(old_bytes)
    proc = subprocess.Popen(ARGS.emulator + [ARGS.bin, "build", "-n", "300000000", "-o", old,
                                             w("keys.txt")], stderr=subprocess.DEVNULL, env=named)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(dir_names(d)) < 2 and proc.poll() is None:
        time.sleep(0.001)
    seen = dir_names(d)
    check(len(seen) == 2 and seen[0].startswith(".f.sbf.tmp."),
          "a named temporary appeared: %s" % seen)
    proc.send_signal(signal.SIGINT)
    proc.wait()
    check(dir_names(d) == ["f.sbf"], "SIGINT left files: %s" % dir_names(d))
    check(open(old, "rb").read() == old_bytes, "SIGINT left OUT as it was")
    p = subprocess.run(["prlimit", "--fsize=100000"] + ARGS.emulator +
                       [ARGS.bin, "build", "-n", "1000000", "-o", old, w("keys.txt")],
                       stderr=subprocess.PIPE, env=named)
    check(p.returncode == 1 and os.strerror(27) in p.stderr.decode(),
          "a file size limit on a named temporary: %d %r" % (p.returncode, p.stderr))
    check(dir_names(d) == ["f.sbf"], "the file size limit left files: %s" % dir_names(d))
    check(open(old, "rb").read() == old_bytes, "the file size limit left OUT as it was")

    # OUT names an input (also through a symbolic or hard link, or as stdin): refused, exit 2,
    # the input untouched.
    os.symlink(w("keys.txt"), w("sym.txt"))
    os.link(w("keys.txt"), w("hard.txt"))
    for out in [w("keys.txt"), w("sym.txt"), w("hard.txt")]:
        _, err = run(["build", "-n", "10", "-o", out, w("keys.txt")], expect=2)
        check(err.count("\n") == 1 and "is also the input" in err, "refusal: %r" % err)
        check(open(w("keys.txt"), "rb").read() == keys_bytes, "the input is untouched")
    with open(w("keys.txt"), "rb") as stdin:
        _, err = run(["build", "-n", "10", "-o", w("hard.txt")], stdin=stdin, expect=2)
    check("(stdin)" in err, "stdin as the output: %r" % err)
    # merge may replace one of its inputs (both are read before OUT is written): A = A | B.
    with open(old, "wb") as f:  # the n=1000 filter (the kills above may have left either)
        f.write(old_bytes)
    run(["build", "-n", "1000", "-o", w("b.sbf"), w("sym.txt")])
    write_lines(w("more.txt"), ["extra-%d" % i for i in range(100)])
    run(["build", "-n", "1000", "-o", w("b.sbf"), w("more.txt")])
    run(["merge", old, w("b.sbf"), "-o", old])
    out, _ = run(["query", "--count", old, w("more.txt")])
    check(out == b"100\n", "merge -o A A B holds B's keys: %r" % out)

    # -o onto a symbolic link writes the file it points to; the link stays.
    os.symlink("f.sbf", os.path.join(d, "link.sbf"))
    run(["build", "-n", "1000", "-o", os.path.join(d, "link.sbf"), w("keys.txt")])
    check(os.path.islink(os.path.join(d, "link.sbf")), "the link stays a link")
    check(open(old, "rb").read() == old_bytes, "the link's target holds the new filter")
    # -o /dev/stdout streams the filter to standard output.
    out, _ = run(["build", "-n", "1000", "-o", "/dev/stdout", w("keys.txt")])
    check(out == old_bytes, "-o /dev/stdout: %d bytes" % len(out))
    # -o FIFO streams into it.
    fifo = w("fifo")
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
    run(["build", "-n", "1000", "-o", fifo, w("keys.txt")])
    check(reader.communicate()[0] == old_bytes, "-o FIFO streams the filter")
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO stays a FIFO")


def test_inputs():
    """Inputs that are not plain files: /proc files (stat size 0) with --threads, a FILTER from a
    pipe, and 64-bit JSON fields."""
    proc = "/proc/self/mountinfo"
    lines = [l for l in open(proc, "rb").read().split(b"\n")]
    n_lines = len(lines) - 1 if lines[-1] == b"" else len(lines)
    check(n_lines > 1, "%s has lines" % proc)
    for t in ["1", "2"]:
        out, err = run(["build", "--threads", t, "-n", "1000", "-o", w("p.sbf"), "/proc/version",
                        "--json"])
        check(summary(err)["keys"] == 1, "--threads %s: /proc/version has 1 line: %s"
              % (t, summary(err)))
        out, _ = run(["query", "--count", "--threads", t, w("p.sbf"), "/proc/version"])
        check(out == b"1\n", "--threads %s: query --count of a /proc file: %r" % (t, out))
    # A FILTER that is a pipe, /dev/stdin or a process substitution: read once.
    write_lines(w("keys.txt"), ["a", "b", "c"])
    run(["build", "-n", "100", "--seed", "0x8000000000000005", "-o", w("f.sbf"), w("keys.txt")])
    ref, _ = run(["info", w("f.sbf")])
    ref_lines = lines_of(ref)[1:]  # without "file: PATH"
    blob = open(w("f.sbf"), "rb").read()
    out, _ = run(["info", "/dev/stdin"], input_bytes=blob)
    check(lines_of(out)[1:] == ref_lines, "info /dev/stdin: %r" % out)
    out, _ = run(["query", "/dev/stdin", w("keys.txt")], input_bytes=blob)
    check(lines_of(out) == ["a", "b", "c"], "query with the filter on /dev/stdin: %r" % out)
    p = subprocess.run(["bash", "-c", '"$0" info <(cat "$1")', ARGS.bin, w("f.sbf")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0 and lines_of(p.stdout)[1:] == ref_lines,
          "info <(cat f.sbf): %d %r %r" % (p.returncode, p.stdout, p.stderr))
    # An endless FILTER input is refused at its header, not read to the end.
    _, err = run(["info", "/dev/zero"], expect=1)
    check("bad magic" in err, "info /dev/zero: %r" % err)
    _, err = run(["info", "/dev/stdin"], input_bytes=blob[:40], expect=1)
    check("truncated" in err or "not a simdbloom filter" in err, "a short pipe: %r" % err)
    # 64-bit fields print as unsigned: a seed of 2^63 + 5.
    out, _ = run(["info", "--json", "--quiet", w("f.sbf")])
    check(summary(out)["seed"] == (1 << 63) + 5, "seed as u64: %s" % out)
    check(b'"seed":9223372036854775813' in out, "seed text: %s" % out)
    run(["build", "--seed", "010", "-n", "100", "-o", w("s.sbf"), w("keys.txt")])
    out, _ = run(["info", "--json", "--quiet", w("s.sbf")])
    check(summary(out)["seed"] == 10, "a leading 0 is decimal, not octal: %s" % out)
    for bad in ["-1", "ten", "0x", "18446744073709551616", "", "08x", "0x1g", "+5", " 5"]:
        _, err = run(["build", "--seed", bad, "-n", "10", "-o", w("x.sbf"), w("keys.txt")],
                     expect=2)
        check("--seed" in err, "bad seed %r: %r" % (bad, err))


def threads_same_answers(path, n_lines, env=None, threads=range(1, 9)):
    """build, query -c and query -c --absent of `path` on every thread count in `threads`: the
    exact number of lines, and the filter byte for byte the one of one thread (issue 45, item 1:
    a range whose next line is longer than the read window counted that line and every later one
    again)."""
    want = None
    for t in threads:
        t = str(t)
        _, err = run(["build", "-n", "1000", "-t", t, "--json", "-o", w("t.sbf"), path], env=env)
        check(summary(err)["keys"] == n_lines, "%s -t %s: build counted %s keys, expected %d"
              % (path, t, summary(err)["keys"], n_lines))
        data = open(w("t.sbf"), "rb").read()
        if want is None:
            want = data
        check(data == want, "%s -t %s: the filter differs from -t 1's" % (path, t))
        out, _ = run(["query", "-c", "-t", t, w("t.sbf"), path], env=env)
        check(out == b"%d\n" % n_lines, "%s -t %s: query -c says %r, expected %d"
              % (path, t, out, n_lines))
        out, _ = run(["query", "-c", "--absent", "-t", t, w("t.sbf"), path], expect=1, env=env)
        check(out == b"0\n", "%s -t %s: query -c --absent says %r" % (path, t, out))
    out, _ = run(["info", "--json", w("t.sbf")])
    check(summary(out)["inserted"] == n_lines, "inserted: %s" % summary(out)["inserted"])


def hostile_threads_long_lines():
    """Issue 45, item 1: lines longer than the read window at every range boundary."""
    # The issue's file: "a", an 8 MB line, a 5 MB line, 100,000 short lines (4 MiB windows).
    with open(w("long.txt"), "wb") as f:
        f.write(b"a\n" + b"x" * (8 << 20) + b"\n" + b"y" * (5 << 20) + b"\n")
        f.write(b"".join(b"%d\n" % i for i in range(100000)))
    threads_same_answers(w("long.txt"), 100003)
    os.remove(w("long.txt"))
    # Generated files, 256-byte windows: runs of lines from 0 to 2000 bytes, so that every range
    # boundary of -t 1..8 falls inside or just before lines longer than the window.
    env = dict(os.environ, SIMDBLOOM_CLI_BLOCK_BYTES="256")
    rnd = random.Random(45)
    for trial in range(6):
        lines = []
        for _ in range(rnd.randrange(20, 120)):
            size = rnd.choice([0, 1, 5, 63, 64, 255, 256, 257, 700, 2000])
            lines.append(("%d-" % len(lines)).encode() + b"z" * size)
        with open(w("gen.txt"), "wb") as f:
            f.write(b"\n".join(lines) + (b"\n" if trial % 2 else b""))
        threads_same_answers(w("gen.txt"), len(lines), env=env)


def hostile_remove():
    """Issue 45, items 3 and 2: remove of keys never inserted changes nothing by default; a key
    removed more often than its saturated counters allow never wraps the count."""
    write_lines(w("ins.txt"), ["in-%d" % i for i in range(10000)])
    write_lines(w("other.txt"), ["out-%d" % i for i in range(190000)])
    run(["build", "--counting", "-n", "10000", "-o", w("c.sbc"), w("ins.txt")])
    before = open(w("c.sbc"), "rb").read()
    _, err = run(["remove", w("c.sbc"), w("other.txt")], expect=1)
    m = re.match(r"simdbloom: remove: (\d+) of 190000 keys were not in the filter: the input holds "
                 r"keys never inserted, and removing their false positives would delete inserted "
                 r"keys; (.*) is unchanged \(--force removes the others anyway\)\n$", err)
    check(m is not None and m.group(2) == w("c.sbc") and 185000 < int(m.group(1)) < 190000,
          "remove of keys never inserted: %r" % err)
    check(open(w("c.sbc"), "rb").read() == before, "a refused remove leaves the file unchanged")
    out, _ = run(["query", "-c", w("c.sbc"), w("ins.txt")])
    check(out == b"10000\n", "every inserted key still found: %r" % out)
    # --force removes the false positives too (said on stderr), and inserted keys may be lost.
    _, err = run(["remove", "--force", "--json", w("c.sbc"), w("other.txt")])
    s = summary(err)
    check(s["not_found"] == int(m.group(1)) and s["removed"] == 190000 - s["not_found"] and
          s["present"] == 10000 - s["removed"] and s["saturated"] == 0, "--force summary: %s" % s)
    check("may have been false positives" in err.split("\n")[0], "--force note: %r" % err)
    # A key inserted 15 times (its counters saturate), removed 16 times: every removal is
    # reported saturated, present stops at 0 (it wrapped to 2^64 - 1).
    write_lines(w("k15.txt"), ["k"] * 15)
    write_lines(w("k16.txt"), ["k"] * 16)
    run(["build", "--counting", "-q", "-n", "10", "-o", w("k.sbc"), w("k15.txt")])
    _, err = run(["remove", "--json", w("k.sbc"), w("k16.txt")])
    s = summary(err)
    check(s["removed"] == 16 and s["not_found"] == 0 and s["saturated"] == 16 and
          s["present"] == 0, "saturated remove summary: %s" % s)
    check(err.split("\n")[0] == "simdbloom: 16 removals found every counter of their key "
          "saturated (15): not undone exactly, those keys may still answer present",
          "saturated note: %r" % err)
    out, _ = run(["info", "--json", w("k.sbc")])
    check(summary(out)["present"] == 0, "present after 16 removes: %s" % summary(out))


# XXH3-64 (seed 0) of 17..128 bytes, as the file headers' checksums (bytes 0..55) use it: the
# default secret's first 128 bytes (xxhash.h, XXH3_kSecret).
_XXH3_SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364")


def xxh3_64(data):
    n, m = len(data), (1 << 64) - 1
    assert 17 <= n <= 128

    def mix16(i, s):
        lo = int.from_bytes(data[i:i + 8], "little") ^ int.from_bytes(_XXH3_SECRET[s:s + 8],
                                                                     "little")
        hi = int.from_bytes(data[i + 8:i + 16], "little") ^ int.from_bytes(
            _XXH3_SECRET[s + 8:s + 16], "little")
        prod = lo * hi
        return (prod ^ (prod >> 64)) & m

    acc = (n * 0x9E3779B185EBCA87) & m
    pairs = [(0, n - 16)]
    if n > 32:
        pairs.append((16, n - 32))
    if n > 64:
        pairs.append((32, n - 48))
    if n > 96:
        pairs.append((48, n - 64))
    for j, (a, b) in enumerate(pairs):
        acc = (acc + mix16(a, 32 * j) + mix16(b, 32 * j + 16)) & m
    acc ^= acc >> 37
    acc = (acc * 0x165667919E3779F9) & m
    return acc ^ (acc >> 32)


def vm_hwm(pid):
    """The process's peak RSS so far in bytes (VmHWM of /proc/PID/status), 0 once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def rss_of(args, stdin=None, timeout=20, limit=512 << 20):
    """Runs the command with `stdin`; returns (exit status, peak RSS in bytes, stderr text), the
    peak polled from /proc as rss_run does. Fails if it runs past `timeout` seconds or `limit`
    bytes."""
    p = subprocess.Popen(ARGS.emulator + [ARGS.bin] + args, stdin=stdin,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak, start = 0, time.monotonic()
    while p.poll() is None:
        peak = max(peak, vm_hwm(p.pid))
        if time.monotonic() - start > timeout or peak > limit:
            p.kill()
            p.wait()
            fail("%s ran past %d s or %d MiB (peak RSS %d MiB)" % (args, timeout, limit >> 20,
                                                                    peak >> 20))
        time.sleep(0.002)
    return p.returncode, peak, p.stderr.read().decode("utf-8", "replace")


def hostile_kinds_bounded():
    """Issue 45, item 9: every kind of filter file is loaded through the bounded loader: a valid
    file followed by endless zeros on a pipe, and a sparse file whose header claims 2^32 - 1
    blocks, fail at once with one line and little memory (ShBF files were read whole)."""
    write_lines(w("kk.txt"), ["k%d" % i for i in range(1000)])
    run(["build", "-o", w("plain.sbf"), w("kk.txt")])
    run(["build", "-o", w("chain.sbf")], input_bytes=open(w("kk.txt"), "rb").read())
    run(["build", "--counting", "-o", w("count.sbc"), w("kk.txt")])
    run(["build", "--areas", "-o", w("areas.sbs"), w("kk.txt")])
    corpus = os.path.join(HERE, "..", "fuzz", "corpus")
    shutil.copy(os.path.join(corpus, "shbf_a.bin"), w("a.shbf"))
    shutil.copy(os.path.join(corpus, "shbf_x.bin"), w("x.shbf"))
    for name in ["plain.sbf", "chain.sbf", "count.sbc", "areas.sbs", "a.shbf", "x.shbf"]:
        feed = subprocess.Popen(["sh", "-c", 'cat "$0"; exec cat /dev/zero', w(name)],
                                stdout=subprocess.PIPE)
        status, peak, err = rss_of(["info", "/dev/stdin"], stdin=feed.stdout)
        feed.stdout.close()
        feed.kill()
        feed.wait()
        check(status == 1 and err.count("\n") == 1 and err.startswith("simdbloom: /dev/stdin: "),
              "%s then endless zeros: exit %d %r" % (name, status, err))
        check(peak < 64 << 20, "%s then endless zeros: peak RSS %d MiB" % (name, peak >> 20))
        if name == "chain.sbf":
            continue  # its stage table has a checksum of its own: no one-field lie
        data = bytearray(open(w(name), "rb").read(64))
        check(xxh3_64(bytes(data[:56])) == struct.unpack_from("<Q", data, 56)[0],
              "the test's XXH3 gives %s's header checksum" % name)
        struct.pack_into("<Q", data, 24, (1 << 32) - 1)  # the block count
        struct.pack_into("<Q", data, 56, xxh3_64(bytes(data[:56])))
        with open(w("lying"), "wb") as f:
            f.write(data)
            f.truncate(1 << 30)  # sparse: 1 GiB of zeros, far less than claimed
        status, peak, err = rss_of(["info", w("lying")])
        check(status == 1 and err.count("\n") == 1 and w("lying") in err and
              "truncated" in err, "%s claiming 2^32 - 1 blocks: exit %d %r" % (name, status, err))
        check(peak < 64 << 20, "%s claiming 2^32 - 1 blocks: peak RSS %d MiB"
              % (name, peak >> 20))
        os.remove(w("lying"))


def hostile_endless_line():
    """Issue 45, item 10: a single endless line (/dev/zero) stops at --max-key-bytes (256 MiB by
    default) with exit 2, one line and no file; a key of exactly N bytes is accepted, N + 1 not,
    from a file and a pipe."""
    # AddressSanitizer keeps freed blocks in its quarantine (the line's buffer as it grows): a
    # sanitized binary's peak is not the program's, so it gets room and no peak check.
    ldd = subprocess.run(["ldd", ARGS.bin], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    sanitized = b"libasan" in ldd.stdout
    status, peak, err = rss_of(["build", "-n", "10", "-o", w("z.sbf"), "/dev/zero"], timeout=60,
                               limit=(2 << 30) if sanitized else 512 << 20)
    check(status == 2 and err == "simdbloom: /dev/zero: a key longer than 268435456 bytes "
          "(--max-key-bytes N raises the limit)\n", "endless line: exit %d %r" % (status, err))
    check(sanitized or peak < (256 << 20) * 2 + (64 << 20),
          "endless line: peak RSS %d MiB" % (peak >> 20))
    check(not os.path.exists(w("z.sbf")), "endless line: no file written")
    status, peak, err = rss_of(["query", "--max-key-bytes", "1M", w("plain.sbf"), "/dev/zero"])
    check(status == 2 and err == "simdbloom: /dev/zero: a key longer than 1000000 bytes "
          "(--max-key-bytes N raises the limit)\n", "query of /dev/zero: %d %r" % (status, err))
    check(peak < 64 << 20, "query of /dev/zero: peak RSS %d MiB" % (peak >> 20))
    data = b"a\n" + b"x" * 1000 + b"\n" + b"y" * 1001 + b"\nb\n"
    with open(w("long_keys.txt"), "wb") as f:
        f.write(data)
    for block in ["16", "4096", "0"]:
        env = dict(os.environ, SIMDBLOOM_CLI_BLOCK_BYTES=block)
        for src, stdin in [(w("long_keys.txt"), None), ("-", data)]:
            out, _ = run(["query", "-c", "--max-key-bytes", "1001", w("plain.sbf"), src],
                         input_bytes=stdin, expect=1, env=env)
            check(out == b"0\n", "keys of 1001 bytes accepted: %r" % out)
            _, err = run(["build", "-n", "10", "--max-key-bytes", "1000", "-o", w("l.sbf"), src],
                         input_bytes=stdin, expect=2, env=env)
            check(err == "simdbloom: %s: a key longer than 1000 bytes (--max-key-bytes N raises "
                  "the limit)\n" % ("(stdin)" if src == "-" else src), "1001 > 1000: %r" % err)
            check(not os.path.exists(w("l.sbf")), "a key too long: no file written")
    for bad in ["0", "-1", "2T", "x"]:
        _, err = run(["build", "--max-key-bytes", bad, "-o", w("l.sbf"), w("kk.txt")], expect=2)
        one_line(err, "max-key-bytes")


def escaped_name(name):
    """An area name as classify and info print it (ls --quoting-style=escape): bytes in, str out.
    Written apart from the command: well-formed UTF-8 kept but C1 controls, the rest octal."""
    out, i = [], 0
    named = {0x5C: "\\\\", 0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r"}
    while i < len(name):
        b = name[i]
        if b in named:
            out.append(named[b])
        elif b < 0x20 or b == 0x7F:
            out.append("\\%03o" % b)
        elif b < 0x80:
            out.append(chr(b))
        else:
            for n in (4, 3, 2):  # the longest well-formed sequence starting here
                try:
                    ch = name[i:i + n].decode("utf-8")
                except UnicodeDecodeError:
                    continue
                if len(ch) == 1 and not 0x80 <= ord(ch) <= 0x9F:
                    out.append(ch)
                    i += n
                    break
            else:
                out.append("\\%03o" % b)
                i += 1
            continue
        i += 1
    return "".join(out)


def hostile_area_names():
    """Issue 45, item 4: area names (the FILEs of build --areas) with newlines, tabs, control
    bytes, C1 controls and invalid UTF-8 are escaped by classify and info: one record per key,
    no forged record; info --json gives them as JSON strings."""
    names = [b"evil\nbob\t2", b"ctl\x01\x7f\x1b[31m", b"back\\slash", b"bad\xff\xc0\xe2\x82.txt",
             "caf\u00e9 \u65e5".encode(), b"c1\xc2\x85", b"plain"]
    work = os.fsencode(ARGS.work)
    paths = [os.path.join(work, n) for n in names]
    for i, p in enumerate(paths):
        with open(p, "wb") as f:
            f.write(b"alice\n" if i == 0 else b"key-%d\n" % i)
    sbs = w("ev.sbs")
    subprocess.run(ARGS.emulator + [ARGS.bin, "build", "--areas", "-q", "-n", "100", "-o", sbs] +
                   paths, check=True)
    p = subprocess.run(ARGS.emulator + [ARGS.bin, "classify", sbs], input=b"alice\nkey-1\n",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0 and p.stdout == b"alice\t" + escaped_name(paths[0]).encode() +
          b"\nkey-1\t" + escaped_name(paths[1]).encode() + b"\n" and p.stderr == b"",
          "classify of escaped names: %r" % p.stdout)
    p = subprocess.run(ARGS.emulator + [ARGS.bin, "classify", "-z", sbs], input=b"alice\0",
                       stdout=subprocess.PIPE)
    check(p.stdout == b"alice\t" + escaped_name(paths[0]).encode() + b"\0", "classify -z: %r"
          % p.stdout)
    out, _ = run(["info", sbs])
    areas = [l for l in out.decode().split("\n") if l.startswith("area ")]
    check(len(areas) == len(paths) and len(lines_of(out)) == 14 + len(paths),
          "info: one line per area: %r" % out)
    for i, (line, path) in enumerate(zip(areas, paths)):
        check(line.startswith("area %d: " % (i + 1)) and
              line.endswith(", name " + escaped_name(path)), "info area %d: %r" % (i + 1, line))
    j = summary(run(["info", "--json", sbs])[0])
    for a, path in zip(j["areas"], paths):
        want = re.sub("[\udc80-\udcff]", "\ufffd", path.decode("utf-8", "surrogateescape"))
        check(a["name"] == want, "info --json name: %r" % a["name"])  # U+FFFD per bad byte
    check(escaped_name(b"evil\nbob\t2") == "evil\\nbob\\t2" and
          escaped_name(b"a\xc2\x85\xff\xe6\x97\xa5") == "a\\302\\205\\377\u65e5",
          "the test's escaping: %r" % escaped_name(b"a\xc2\x85\xff"))


def test_hostile():
    """The hostile-input campaign: garbage, NUL bytes, empty and unterminated files, a 100 MB
    line, directories, FIFOs, /proc files, missing paths and absurd option values. Each case
    asserts the exact answer, or exit 2 (usage) / 1 (failure) with one line on stderr and nothing
    changed on disk."""
    rnd = random.Random(99)

    def one_line(err, *needles):
        check(err.count("\n") == 1 and err.startswith("simdbloom: "), "one line: %r" % err)
        for n in needles:
            check(n in err, "%r names %r" % (err, n))

    hostile_threads_long_lines()
    hostile_remove()
    hostile_kinds_bounded()
    hostile_endless_line()
    hostile_area_names()
    # Issue 45, item 5: a second --column replaced the first, so 42 was probed in url and a row
    # group holding id 42 answered "no". Now a usage error, nothing printed.
    multi = os.path.join(ARGS.data, "multi_rowgroup.parquet")
    for cols in (["--column", "id", "42", "--column", "url", "x"], ["--column=id", "--column=id"]):
        out, err = run(["parquet", multi] + cols + ["42"], expect=2)
        check(out == b"" and err == "simdbloom: parquet: --column given 2 times: one column per "
              "call (every VALUE is probed in it)\n", "parquet %s: %r %r" % (cols, out, err))
    out, _ = run(["parquet", multi, "--column", "id", "42"])
    check(out.split(b"\n")[0] == b"0\t42\tmaybe", "parquet id 42: %r" % out)

    def exact_lines(path):
        data = open(path, "rb").read()
        parts = data.split(b"\n")
        return parts[:-1] if data.endswith(b"\n") else parts if data else []

    # Files whose every line must be found again (no false negative), counted exactly.
    garbage = bytes(rnd.getrandbits(8) for _ in range(200000))
    cases = {
        "garbage.bin": garbage,
        "nul.txt": b"a\0b\n\0\n\0\0\0\nx\0",
        "unterminated.txt": b"one\ntwo\nthree",
        "only_newlines.txt": b"\n" * 1000,
        "crlf_mixed.txt": b"a\r\nb\rc\n\r\n",
        "utf8.txt": "caf\u00e9\n\u65e5\u672c\n\U0001f600\n".encode(),
    }
    for name, data in cases.items():
        with open(w(name), "wb") as f:
            f.write(data)
        lines = exact_lines(w(name))
        for t in ["1", "2"]:
            out, err = run(["build", "--threads", t, "-o", w("h.sbf"), w(name), "--json"])
            check(summary(err)["keys"] == len(lines), "%s: %s keys, expected %d"
                  % (name, summary(err)["keys"], len(lines)))
            out, _ = run(["query", "--count", "--threads", t, w("h.sbf"), w(name)])
            check(out == b"%d\n" % len(lines), "%s: every line found (%r of %d)"
                  % (name, out, len(lines)))
        out, _ = run(["query", "--absent", w("h.sbf"), w(name)], expect=1)
        check(out == b"", "%s: no line reported absent" % name)
        out, _ = run(["dedup", w(name)])
        want = first_occurrences(lines)
        got = out.split(b"\n")[:-1]
        check(set(got) <= set(want) and got == [l for l in want if l in set(got)],
              "%s: dedup prints first occurrences in order" % name)
    # Empty file: 0 keys, a valid filter; query of an empty file prints nothing.
    open(w("empty.txt"), "wb").close()
    out, err = run(["build", "-o", w("e.sbf"), w("empty.txt"), "--json"])
    check(summary(err)["keys"] == 0, "empty: 0 keys")
    out, _ = run(["query", "--count", w("e.sbf"), w("empty.txt")], expect=1)
    check(out == b"0\n", "empty query: %r" % out)
    # A 100 MB line (bigger than any read block) is one key.
    big = b"x" * (100 << 20)
    with open(w("big.txt"), "wb") as f:
        f.write(b"a\n" + big + b"\nb")
    out, err = run(["build", "-n", "10", "-o", w("big.sbf"), w("big.txt"), "--json"])
    check(summary(err)["keys"] == 3, "100 MB line: %s" % summary(err))
    out, _ = run(["query", "--count", w("big.sbf"), w("big.txt")])
    check(out == b"3\n", "100 MB line found: %r" % out)
    os.remove(w("big.txt"))
    # A FIFO as input: streamed.
    fifo = w("in.fifo")
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", 'printf "p\\nq\\n" > "$0"', fifo])
    out, err = run(["build", "-n", "10", "-o", w("fifo.sbf"), fifo, "--json"])
    writer.wait()
    check(summary(err)["keys"] == 2, "FIFO input: %s" % summary(err))
    # /proc files, streamed (stat size 0).
    out, _ = run(["query", "--count", w("fifo.sbf"), "/proc/self/status"], expect=None)
    check(int(out) <= 2, "/proc input probed: %r" % out)

    # Failures: exit 1, one line naming the path, nothing written.
    write_lines(w("keys.txt"), ["a", "b"])
    run(["build", "-n", "10", "-o", w("ok.sbf"), w("keys.txt")])
    ok = open(w("ok.sbf"), "rb").read()
    garbage_sbf = w("garbage.bin")
    before = dir_names(ARGS.work)
    for args, needle in [
            (["build", "-n", "10", "-o", w("new.sbf"), w("nope.txt")], "nope.txt"),
            (["build", "-n", "10", "-o", w("new.sbf"), ARGS.work], ARGS.work),
            (["build", "-n", "10", "-o", w("new.sbf"), "/nonexistent/dir/k"], "/nonexistent"),
            (["query", garbage_sbf, w("keys.txt")], "garbage.bin"),
            (["query", w("nul.txt"), w("keys.txt")], "nul.txt"),
            (["query", ARGS.work, w("keys.txt")], ARGS.work),
            (["query", "/proc/version", w("keys.txt")], "/proc/version"),
            (["info", w("empty.txt")], "empty.txt"),
            (["info", "/nonexistent"], "/nonexistent"),
            (["merge", w("ok.sbf"), garbage_sbf, "-o", w("new.sbf")], "garbage.bin"),
            (["build", "-n", "10", "-o", "/proc/version", w("keys.txt")], "/proc/version"),
            (["build", "-n", "10", "-o", ARGS.work, w("keys.txt")], ARGS.work)]:
        _, err = run(args, expect=2 if args[0] == "query" else 1)  # query: every error is 2
        one_line(err, needle)
        check(dir_names(ARGS.work) == before, "%s changed files: %s"
              % (args, set(dir_names(ARGS.work)) ^ set(before)))
    check(open(w("ok.sbf"), "rb").read() == ok, "ok.sbf untouched")

    # Absurd option values: exit 2, one line naming the option, nothing written.
    for args, needle in [
            (["--fpp", "0"], "--fpp"), (["--fpp", "1"], "--fpp"), (["--fpp", "-1"], "--fpp"),
            (["--fpp", "nan"], "--fpp"), (["--fpp", "1e-300"], "--fpp"),
            (["--fpp", ""], "fpp"), (["--fpp", "0.01x"], "fpp"),
            (["-n", "0"], "-n"), (["-n", "1e30"], "n"), (["-n", "ten"], "ten"),
            (["-n", "-5"], "n"), (["-n", "1.5"], "n"),
            (["--threads", "0"], "--threads"), (["--threads", "100000"], "--threads"),
            (["--threads", "-1"], "threads"), (["--layout", ""], "layout"),
            (["--seed", "-1"], "--seed"), (["--frobnicate"], "--frobnicate")]:
        _, err = run(["build"] + args + ["-o", w("new.sbf"), w("keys.txt")], expect=2)
        one_line(err, needle)
        check(not os.path.exists(w("new.sbf")), "%s wrote a file" % args)
    # Issue 45: --help and --version into a full device are a write error, exit 2 (were 0).
    if os.path.exists("/dev/full"):
        for args in (["--help"], ["--version"], ["build", "--help"], ["help", "query"]):
            with open("/dev/full", "wb") as full:
                p = subprocess.run(ARGS.emulator + [ARGS.bin] + args, stdout=full,
                                   stderr=subprocess.PIPE)
            check(p.returncode == 2 and p.stderr == b"simdbloom: (stdout): write error: No space "
                  b"left on device\n", "%s > /dev/full: %d %r" % (args, p.returncode, p.stderr))
    # Issue 45: options named as typed, "too large" where it is (-n 2^64 - 1 said "needs a whole
    # number", and every message said "--n").
    for args, msg in [
            (["-n", "18446744073709551616"], "-n is too large (at most 18446744073709551615), got "
             "'18446744073709551616'"),
            (["-zn", "1e20"], "-n is too large (at most 18446744073709551615), got '1e20'"),
            (["--n", "1.5"], "--n needs a whole number, got '1.5'"),
            (["-t", "0"], "-t must be 1..256"), (["--threads=300"], "--threads must be 1..256"),
            (["--seed", "99999999999999999999"], "--seed is too large (at most "
             "18446744073709551615), got '99999999999999999999'"),
            (["-n", "18446744073709551615"], "Filter::create: 18446744073709551615 items at fpp "
             "0.010000 need more than 2^32 - 1 blocks of block512")]:
        _, err = run(["build"] + args + ["-o", w("new.sbf"), w("keys.txt")], expect=2)
        check(err == "simdbloom: build: %s\n" % msg, "%s: %r" % (args, err))
        check(not os.path.exists(w("new.sbf")), "%s wrote a file" % args)
    # Issue 40: options named as typed everywhere (the bundle "-qn0" names -n; "--n" stays --n;
    # an unknown letter of a bundle is named alone).
    for cmd, args, msg in [
            ("dedup", ["--n", "0"], "dedup: --n must be at least 1"),
            ("dedup", ["-qn0"], "dedup: -n must be at least 1"),
            ("dedup", ["-n", "0"], "dedup: -n must be at least 1"),
            ("dedup", ["-qx"], "dedup: unknown option '-x' (in '-qx') (see simdbloom dedup "
             "--help)"),
            ("build", ["--areas", "-l", "classic", "-o", w("new.sbs")],
             "build --areas: -l is for plain and counting filters"),
            ("build", ["--areas", "--layout=classic", "-o", w("new.sbs")],
             "build --areas: --layout is for plain and counting filters"),
            ("dedup", ["--fpp=2"], "dedup: --fpp must be in [1e-9, 1)")]:
        _, err = run([cmd] + args + [w("keys.txt")], expect=2)
        check(err == "simdbloom: %s\n" % msg, "%s %s: %r" % (cmd, args, err))
    _, err = run(["build", "--counting", "-t", "2", "-n", "10", "-o", w("t.sbc"), w("keys.txt")])
    check(err == "simdbloom: -t: a counting filter is built on one thread\n", "-t note: %r" % err)
    # Issue 40: -t/--threads on a command that runs on one thread is refused (exit 2, one line
    # saying why), not accepted silently; -t 1 is what they do, accepted.
    run(["build", "--counting", "-n", "10", "-o", w("t.sbc"), w("keys.txt")])
    run(["build", "--areas", "-o", w("t.sbs"), w("keys.txt")])
    parquet = os.path.join(ARGS.data, "multi_rowgroup.parquet")
    for cmd, rest in [("dedup", [w("keys.txt")]), ("classify", [w("t.sbs"), w("keys.txt")]),
                      ("remove", ["-o", w("t2.sbc"), w("t.sbc"), w("keys.txt")]),
                      ("info", [w("ok.sbf")]), ("merge", ["-o", w("t2.sbf"), w("ok.sbf"),
                                                          w("ok.sbf")]),
                      ("parquet", [parquet, "--column", "id", "7"])]:
        for t in (["-t", "2"], ["--threads=8"], ["-qt", "3"]):
            out, err = run([cmd] + t + rest, expect=2)
            typed = {"-t": "-t 2", "--threads=8": "--threads 8", "-qt": "-t 3"}[t[0]]
            check(out == b"" and err.startswith("simdbloom: %s: %s: " % (cmd, typed)) and
                  "one thread" in err and "only build, query and intersect use threads" in err
                  and err.count("\n") == 1, "%s %s: %r" % (cmd, t, err))
            check(not os.path.exists(w("t2.sbc")) and not os.path.exists(w("t2.sbf")),
                  "%s %s wrote a file" % (cmd, t))
        run([cmd, "-t", "1"] + rest)
        for f in ("t2.sbc", "t2.sbf"):
            if os.path.exists(w(f)):
                os.remove(w(f))
    _, err = run(["dedup", "-t", "2", w("keys.txt")], expect=2)
    check("input order" in err, "dedup says why it runs on one thread: %r" % err)
    # A huge but valid -n is an allocation failure or a usage error, never a crash.
    p = subprocess.run(ARGS.emulator + [ARGS.bin, "build", "-n", "1e18", "-o", w("new.sbf"),
                                        w("keys.txt")], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    check(p.returncode in (1, 2) and p.stderr.decode().count("\n") == 1,
          "-n 1e18: exit %d %r" % (p.returncode, p.stderr))
    check(not os.path.exists(w("new.sbf")), "-n 1e18 wrote a file")


# ---------------------------------------------------------------------------------------------
# Every kind of filter file (issue 29, item 5): counting filters (build --counting, remove),
# spatial filters (build --areas, classify), and info/merge for each kind.
def one_line(err, *needles):
    check(err.count("\n") == 1 and err.startswith("simdbloom: "), "one line: %r" % err)
    for n in needles:
        check(n in err, "%r names %r" % (err, n))


def multiset_lines(counts):
    """The lines of a {key: copies} dict, each copy a line, in a fixed shuffled order."""
    out = [k for k, c in counts.items() for _ in range(c)]
    random.Random(len(out)).shuffle(out)
    return out


def test_counting():
    """build --counting and remove against a Python multiset: every key with a copy left is
    found (no false negative), removing keys gives the bytes of a filter built from what is left
    (counters are exact sums below 15), keys not in the filter change nothing; merge of counting
    filters is the filter of both files; wrong kinds and bad input exit 2."""
    rnd = random.Random(41)
    keys = urls(rnd, 6000, "count")
    absent = urls(rnd, 20000, "never")
    counts = {k: rnd.choice([1, 1, 2, 3]) for k in keys}
    inserted = multiset_lines(counts)
    write_lines(w("ins.txt"), inserted)
    write_lines(w("keys.txt"), keys)
    write_lines(w("absent.txt"), absent)
    n = str(len(inserted))
    out, err = run(["build", "--counting", "--fpp", "0.001", "-o", w("c.sbc"), w("ins.txt"),
                    "--json"])
    s = summary(err)
    check(out == b"" and s["keys"] == len(inserted) and s["expected_items"] == len(inserted) and
          s["sizing"] == "counted", "counting build summary: %s" % s)
    g = s["filter"]
    check(g["kind"] == "counting" and g["layout"] == "blocked" and g["bytes"] * 2 == g["counters"],
          "counting geometry: %s" % g)
    check(open(w("c.sbc"), "rb").read(8) == b"SBCOUNT1", "a counting file")
    out, _ = run(["query", "--count", w("c.sbc"), w("keys.txt")])
    check(out == b"%d\n" % len(keys), "every inserted key found: %r" % out)
    out, _ = run(["query", "--count", w("c.sbc"), w("absent.txt")], expect=None)
    check(int(out) <= fp_bound(len(absent), 0.001), "counting false positives: %r" % out)
    out, _ = run(["query", w("c.sbc"), w("keys.txt")])
    check(out == open(w("keys.txt"), "rb").read(), "query prints every key, in order")
    info, _ = run(["info", w("c.sbc")])
    d = dict(l.split(": ", 1) for l in lines_of(info)[1:])
    check(d["kind"] == "counting" and d["present"] == str(len(inserted)) and
          d["counters"] == str(g["counters"]) and d["k"] == str(g["k"]) and
          d["saturated counters"] == "0", "counting info: %s" % d)
    check(abs(float(d["approximate count"]) - len(keys)) < 0.05 * len(keys),
          "approximate count of distinct keys: %s" % d)
    j = summary(run(["info", "--json", w("c.sbc")])[0])
    check(set(j) == {"file", "filter", "key_type", "seed", "present", "saturated", "fill",
                     "approximate_count", "expected_fpp"} and j["filter"] == g and
          j["key_type"] == "bytes" and
          j["present"] == len(inserted) and 0 < j["expected_fpp"] < 0.002,
          "counting info --json: %s" % j)

    # remove: some keys lose every copy, some one copy; keys the filter surely does not hold
    # (query --absent says so) are rejected and change nothing; by default (issue 45, item 3) they
    # make the whole remove change nothing (exit 1), --force removes the others.
    removed = {}
    for k in keys[:3000]:
        removed[k] = counts[k] if rnd.random() < 0.5 else 1
    not_held = lines_of(run(["query", "--absent", w("c.sbc"), w("absent.txt")])[0])[:500]
    check(len(not_held) == 500, "500 surely absent keys")
    rm_lines = multiset_lines(removed) + not_held
    rnd.shuffle(rm_lines)
    write_lines(w("rm.txt"), rm_lines)
    before = open(w("c.sbc"), "rb").read()
    out, err = run(["remove", "-o", w("left.sbc"), w("c.sbc"), w("rm.txt"), "--json"], expect=1)
    check(out == b"" and err == "simdbloom: remove: 500 of %d keys were not in the filter: the "
          "input holds keys never inserted, and removing their false positives would delete "
          "inserted keys; %s is unchanged (--force removes the others anyway)\n"
          % (len(rm_lines), w("c.sbc")), "remove refused: %r" % err)
    check(not os.path.exists(w("left.sbc")), "a refused remove writes no OUT")
    out, err = run(["remove", "--force", "-o", w("left.sbc"), w("c.sbc"), w("rm.txt"),
                    "--json"])
    s = summary(err)
    left = {k: c - removed.get(k, 0) for k, c in counts.items()}
    remaining = sum(left.values())
    check(out == b"" and s["command"] == "remove" and s["keys"] == len(rm_lines) and
          s["removed"] == len(rm_lines) - 500 and s["not_found"] == 500 and
          s["saturated"] == 0 and s["present"] == remaining, "remove summary: %s" % s)
    check(re.match(r"simdbloom: 500 of %d keys were not in the filter: nothing removed for them; "
                   r"--force: about \d+ of the %d removals may have been false positives of keys "
                   r"never inserted, each decrementing other keys' counters\n\{"
                   % (len(rm_lines), len(rm_lines) - 500), err), "note: %r" % err)
    check(open(w("c.sbc"), "rb").read() == before, "remove -o OUT leaves FILTER as it was")
    still = [k for k in keys if left[k] > 0]
    gone = [k for k in keys if left[k] == 0]
    check(len(gone) > 1000 and len(still) > 3000, "both cases: %d %d" % (len(gone), len(still)))
    write_lines(w("still.txt"), still)
    write_lines(w("gone.txt"), gone)
    out, _ = run(["query", "--count", w("left.sbc"), w("still.txt")])
    check(out == b"%d\n" % len(still), "a key with a copy left is found: %r" % out)
    out, _ = run(["query", "--count", w("left.sbc"), w("gone.txt")], expect=None)
    check(int(out) <= fp_bound(len(gone), 0.001), "removed keys are gone: %r" % out)
    # Exactly the filter of what is left: the same sizing, the same counters and count.
    write_lines(w("left.txt"), multiset_lines(left))
    run(["build", "--counting", "-n", n, "--fpp", "0.001", "-o", w("direct.sbc"),
         w("left.txt")])
    check(open(w("left.sbc"), "rb").read() == open(w("direct.sbc"), "rb").read(),
          "remove gives the bytes of the filter built from the keys left")
    # In place (atomically, as build saves), from stdin, and with -z.
    shutil.copy(w("c.sbc"), w("inplace.sbc"))
    run(["remove", "-q", w("inplace.sbc")], input_bytes=open(w("rm.txt"), "rb").read(),
        expect=1)
    check(open(w("inplace.sbc"), "rb").read() == before, "a refused remove leaves FILTER as it was")
    run(["remove", "-q", "--force", w("inplace.sbc")],
        input_bytes=open(w("rm.txt"), "rb").read())
    check(open(w("inplace.sbc"), "rb").read() == open(w("direct.sbc"), "rb").read(),
          "remove in place from stdin")
    check(not [x for x in os.listdir(ARGS.work) if ".tmp." in x], "no temporary left")
    zkeys = [("z%d\nline" % i).encode() for i in range(300)]
    with open(w("z.txt"), "wb") as f:
        f.write(b"".join(k + b"\0" for k in zkeys))
    with open(w("z_rm.txt"), "wb") as f:
        f.write(b"".join(k + b"\0" for k in zkeys[:100]))
    run(["build", "--counting", "-z", "-n", "300", "-o", w("z.sbc"), w("z.txt")])
    run(["remove", "-z", w("z.sbc"), w("z_rm.txt")])
    out, _ = run(["query", "-z", w("z.sbc"), w("z.txt")])
    check(set(zkeys[100:]) <= set(out.split(b"\0")[:-1]), "remove -z: the others stay")
    # The classic geometry; one thread whatever --threads says (the same bytes, said on stderr).
    run(["build", "--counting", "--layout", "classic", "-o", w("cl.sbc"), w("ins.txt")])
    out, _ = run(["info", "--json", w("cl.sbc")])
    check(summary(out)["filter"]["layout"] == "classic", "--layout classic")
    out, _ = run(["query", "--count", w("cl.sbc"), w("keys.txt")])
    check(out == b"%d\n" % len(keys), "classic: every key found")
    _, err = run(["build", "--counting", "--threads", "2", "-n", n, "--fpp", "0.001", "-o",
                  w("t.sbc"), w("ins.txt")])
    check("one thread" in err, "--threads note: %r" % err)
    run(["build", "--counting", "-n", n, "--fpp", "0.001", "-o", w("one.sbc"), w("ins.txt")])
    check(open(w("t.sbc"), "rb").read() == open(w("one.sbc"), "rb").read(), "same bytes")

    # merge: counters added, the filter of both files; other geometries and kinds refused.
    half = len(inserted) // 2
    write_lines(w("h1.txt"), inserted[:half])
    write_lines(w("h2.txt"), inserted[half:])
    for name in ["h1", "h2"]:
        run(["build", "--counting", "-n", n, "--fpp", "0.001", "-o", w(name + ".sbc"),
             w(name + ".txt")])
    _, err = run(["merge", w("h1.sbc"), w("h2.sbc"), "-o", w("h12.sbc"), "--json"])
    check(summary(err)["filter"]["kind"] == "counting", "merge summary: %s" % summary(err))
    check(open(w("h12.sbc"), "rb").read() == open(w("one.sbc"), "rb").read(),
          "merged counting filters == the filter of both files")
    run(["build", "--counting", "-n", "100", "-o", w("small.sbc"), w("h1.txt")])
    _, err = run(["merge", w("h1.sbc"), w("small.sbc"), "-o", w("bad.sbc")], expect=1)
    one_line(err, "h1.sbc", "small.sbc")
    run(["build", "-n", n, "-o", w("plain.sbf"), w("ins.txt")])
    _, err = run(["merge", w("h1.sbc"), w("plain.sbf"), "-o", w("bad.sbc")], expect=1)
    one_line(err, "counting", "plain")
    check(not os.path.exists(w("bad.sbc")), "no output after a refused merge")

    # Usage errors: exit 2, one line, nothing written.
    listing = dir_names(ARGS.work)
    for args, needle in [
            (["remove", w("plain.sbf"), w("keys.txt")], "counting"),
            (["remove"], "FILTER"),
            (["remove", w("c.sbc"), w("c.sbc")], "also the input"),
            (["remove", "-", w("keys.txt")], "stdin"),
            (["build", "--counting", "-o", w("p.sbc")], "-n"),  # stdin is a pipe here
            (["build", "--counting", "--layout", "block512", "-o", w("p.sbc"), w("keys.txt")],
             "blocked"),
            (["build", "--counting", "--areas", "-o", w("p.sbc"), w("keys.txt")], "--areas"),
            (["build", "--counting", "--fpp", "2", "-o", w("p.sbc"), w("keys.txt")], "fpp")]:
        _, err = run(args, input_bytes=b"x\n", expect=2)
        one_line(err, needle)
        check(dir_names(ARGS.work) == listing, "%s wrote files" % args)
    # Failures: exit 1, FILTER unchanged.
    for args, needle in [(["remove", w("c.sbc"), w("missing.txt")], "missing.txt"),
                         (["remove", w("missing.sbc"), w("keys.txt")], "missing.sbc")]:
        _, err = run(args, expect=1)
        one_line(err, needle)
    check(open(w("c.sbc"), "rb").read() == before, "a failed remove leaves FILTER")
    with open(w("trunc.sbc"), "wb") as f:
        f.write(before[:-3])
    _, err = run(["remove", w("trunc.sbc"), w("keys.txt")], expect=1)
    one_line(err, "trunc.sbc", "not a simdbloom filter")
    _, err = run(["query", w("trunc.sbc"), w("keys.txt")], expect=2)
    one_line(err, "trunc.sbc")


def parse_classify(out, delim=b"\n"):
    """[(key, area)] of classify's KEY<TAB>AREA records."""
    return [tuple(r.rsplit(b"\t", 1)) for r in out.split(delim)[:-1]]


def test_spatial():
    """build --areas and classify against the areas of the test's files: a key of one area is
    never reported in no area nor in a lower one (a higher one at most at the rate of
    false labels, and never for the last area); a key of several areas gets the last of them or
    higher; a key in none gets '-' but at the false-positive rate. --labels, -z, -q and the exit
    status; info of the areas; errors."""
    rnd = random.Random(43)
    area_keys = [urls(rnd, n, "area%d" % i) for i, n in enumerate([3000, 1000, 2000])]
    shared = urls(rnd, 200, "shared")  # in areas 1 and 3
    none = urls(rnd, 20000, "none")
    names = ["north.txt", "mid dle.txt", "south.txt"]
    for i, name in enumerate(names):
        write_lines(w(name), area_keys[i] + (shared if i in (0, 2) else []))
    fpp = 0.001
    out, err = run(["build", "--areas", "--fpp", str(fpp), "-o", w("s.sbs")] +
                   [w(n) for n in names] + ["--json"])
    built = summary(err)
    total = sum(len(k) for k in area_keys) + 2 * len(shared)
    check(out == b"" and built["keys"] == total and built["expected_items"] == total and
          built["filter"]["kind"] == "spatial" and built["filter"]["areas"] == 3,
          "spatial build summary: %s" % built)
    areas = [(i + 1, w(n), len(area_keys[i]) + (200 if i != 1 else 0))
             for i, n in enumerate(names)]
    check([(a["label"], a["name"], a["keys"]) for a in built["areas"]] == areas,
          "areas in the summary: %s" % built["areas"])
    check(open(w("s.sbs"), "rb").read(12) == b"SIMDBSBF\x02\0\0\0",
          "a spatial file with names: format version 2")
    label_of = {}
    for i, keys in enumerate(area_keys):
        for k in keys:
            label_of[k] = i + 1
    probe = [k for keys in area_keys for k in keys] + shared + none
    rnd.shuffle(probe)
    write_lines(w("probe.txt"), probe)
    out, _ = run(["classify", w("s.sbs"), w("probe.txt")])
    got = parse_classify(out)
    check([k for k, _ in got] == [k.encode() for k in probe], "every key, in input order")
    name_label = {w(n).encode(): i + 1 for i, n in enumerate(names)}
    name_label[b"-"] = 0
    check(all(a in name_label for _, a in got), "areas are names or '-'")
    higher = [0, 0, 0]
    false_areas = 0
    for (k, a), key in zip(got, probe):
        label = name_label[a]
        if key in label_of:
            own = label_of[key]
            check(label >= own, "%s of area %d reported as %r" % (key, own, a))
            higher[own - 1] += label > own
        elif key in shared:
            check(label == 3, "%s of areas 1 and 3 reported as %r" % (key, a))
        else:
            false_areas += label != 0
    for i in range(3):
        check(higher[i] <= fp_bound(len(area_keys[i]), fpp), "area %d: %d reported higher"
              % (i + 1, higher[i]))
    check(higher[2] == 0, "the last area is exact")
    check(false_areas <= fp_bound(len(none), fpp), "%d keys of no area got one" % false_areas)
    # --labels: the label, 0 for none, the same answers.
    out, _ = run(["classify", "--labels", w("s.sbs"), w("probe.txt")])
    check([(k, int(a)) for k, a in parse_classify(out)] ==
          [(k, name_label[a]) for k, a in got], "--labels agrees with the names")
    # Exit status as grep; -q prints nothing.
    write_lines(w("none.txt"), none[:50])
    out, _ = run(["classify", w("s.sbs"), w("none.txt")], expect=None)
    expected = 0 if any(a != b"-" for _, a in parse_classify(out)) else 1
    rc, out, err = status_of(["classify", w("s.sbs"), w("none.txt")])
    check(rc == expected, "classify of keys in no area: exit %d, expected %d" % (rc, expected))
    rc, out, err = status_of(["classify", "-q", w("s.sbs"), w("none.txt")])
    check(rc == expected and out == b"" and err == "", "-q: %d %r %r" % (rc, out, err))
    rc, out, _ = status_of(["classify", "-q", w("s.sbs")], b"\n".join(
        k.encode() for k in none[:5] + area_keys[1][:1]) + b"\n")
    check(rc == 0 and out == b"", "-q with a key of an area: %d %r" % (rc, out))
    rc, out, _ = status_of(["classify", w("s.sbs")], b"")
    check(rc == 1 and out == b"", "no input: exit 1")
    _, err = run(["classify", "--json", w("s.sbs"), w("probe.txt")])
    s = summary(err)
    in_area = sum(1 for _, a in got if a != b"-")
    check(s["command"] == "classify" and s["keys"] == len(probe) and
          s["in_area"] == in_area and s["no_area"] == len(probe) - in_area,
          "classify summary: %s" % s)
    # -z: keys with newlines and tabs, NUL-terminated records.
    zareas = [[("a%d\n\t%d" % (i, j)).encode() for j in range(100)] for i in range(2)]
    for i, keys in enumerate(zareas):
        with open(w("z%d" % i), "wb") as f:
            f.write(b"".join(k + b"\0" for k in keys))
    run(["build", "--areas", "-z", "--fpp", "1e-6", "-o", w("z.sbs"), w("z0"), w("z1")])
    out, _ = run(["classify", "-z", "--labels", w("z.sbs"), w("z0"), w("z1")])
    recs = parse_classify(out, b"\0")
    check([k for k, _ in recs] == zareas[0] + zareas[1], "-z keys round trip")
    check(all(a in (b"1", b"2") for _, a in recs[:100]) and
          all(a == b"2" for _, a in recs[100:]), "-z labels")
    # stdin as an area (named as grep names it); a pipe needs -n.
    out, err = run(["build", "--areas", "-n", "300", "-o", w("in.sbs"), "-", w("z1"), "--json"],
                   input_bytes=b"p\nq\n")
    check([a["name"] for a in summary(err)["areas"]] == ["(standard input)", w("z1")],
          "stdin's area name: %s" % summary(err))
    out, _ = run(["classify", w("in.sbs")], input_bytes=b"p\nq\n")
    check(out == b"p\t(standard input)\nq\t(standard input)\n", "stdin area: %r" % out)
    # info: the areas with their keys and names, text and JSON.
    info, _ = run(["info", w("s.sbs")])
    d = dict(l.split(": ", 1) for l in lines_of(info)[1:])
    check(d["kind"] == "spatial" and d["areas"] == "3" and d["keys"] == str(total) and
          d["highest label"] == "3", "spatial info: %s" % d)
    for i, n in enumerate(names):
        a = d["area %d" % (i + 1)]
        check(a.startswith("keys %d," % (len(area_keys[i]) + (200 if i != 1 else 0))) and
              a.endswith(", name " + w(n)), "info area %d: %r" % (i + 1, a))
    j = summary(run(["info", "--json", w("s.sbs")])[0])
    check(j["filter"] == built["filter"] and j["members"] == total and
          [(a["label"], a["name"], a["members"]) for a in j["areas"]] == areas,
          "spatial info --json: %s" % j)
    check(j["areas"][2]["apriori_isep"] == 0 and 0 < j["expected_fpp"] < 0.01,
          "spatial info values: %s" % j)
    # A version-1 file without names (saved by the library): labels stand for the names.
    golden = os.path.join(HERE, "..", "data", "golden", "spatial_u8.bin")
    info, _ = run(["info", golden])
    check(b"areas: 3" in info and b"name" not in info, "a file without names: %r" % info)
    out, _ = run(["classify", golden], input_bytes=b"a\nb\nc\n", expect=None)
    check(all(a in (b"1", b"2", b"-") for _, a in parse_classify(out)), "labels: %r" % out)
    # Errors: wrong kinds and bad input exit 2 (classify: every error), one line.
    run(["build", "-n", "10", "-o", w("plain.sbf"), w("none.txt")])
    for args, needle in [
            (["classify", w("plain.sbf"), w("none.txt")], "plain"),
            (["classify"], "FILTER"),
            (["classify", w("missing.sbs")], "missing.sbs"),
            (["classify", w("s.sbs"), w("missing.txt")], "missing.txt"),
            (["classify", w("none.txt")], "not a simdbloom filter"),
            (["query", w("s.sbs"), w("none.txt")], "classify"),
            (["remove", w("s.sbs"), w("none.txt")], "counting"),
            (["merge", w("s.sbs"), w("plain.sbf"), "-o", w("m.sbs")], "spatial"),
            (["merge", w("plain.sbf"), w("s.sbs"), "-o", w("m.sbs")], "spatial"),
            (["build", "--areas", "-o", w("p.sbs"), "-"], "-n"),
            (["build", "--areas", "-o", w("p.sbs")], "one FILE per area"),
            (["build", "--areas", "--layout", "classic", "-o", w("p.sbs"), w("none.txt")],
             "--layout"),
            (["build", "--areas", "-o", w("p.sbs"), w("none.txt"), "-", "-"], "stdin")]:
        _, err = run(args, input_bytes=b"x\n", expect=2)
        one_line(err, needle)
    check(not os.path.exists(w("m.sbs")) and not os.path.exists(w("p.sbs")), "nothing written")
    data = open(w("s.sbs"), "rb").read()
    with open(w("trunc.sbs"), "wb") as f:
        f.write(data[:-5])  # inside the names table
    _, err = run(["classify", w("trunc.sbs"), w("none.txt")], expect=2)
    one_line(err, "trunc.sbs", "names table")
    _, err = run(["info", w("trunc.sbs")], expect=1)
    one_line(err, "trunc.sbs")


def test_query_many():
    """query -f A -f B ...: KEY<TAB>FILTER per match in key order then filter order (--first: the
    first filter only), --absent the keys in none, -c the count, grep's exit status; the answers
    of one query per filter, with plain, scalable and counting filters, on 1 and 2 threads."""
    rnd = random.Random(43)
    keys = urls(rnd, 3000, "k")
    parts = [keys[0:1200], keys[800:2000], keys[1500:2600]]
    paths = [w("a.sbf"), w("b.sbf"), w("c.sbf")]
    for path, part in zip(paths, parts):
        write_lines(path + ".txt", part)
    run(["build", "-q", "-o", paths[0], paths[0] + ".txt"])
    run(["build", "-q", "--counting", "-o", paths[1], paths[1] + ".txt"])
    query_file = w("q.txt")
    write_lines(query_file, keys)
    for scalable in (False, True):
        if scalable:  # a pipe without -n: a scalable chain
            with open(paths[2] + ".txt", "rb") as f:
                run(["build", "-q", "-o", paths[2], "-"], stdin=f)
        else:
            run(["build", "-q", "-o", paths[2], paths[2] + ".txt"])
        single = []
        for path in paths:
            out, _ = run(["query", path, query_file])
            single.append(set(lines_of(out)))
        expected = [k + "\t" + p for k in keys for p, s in zip(paths, single) if k in s]
        check(len(expected) > 3400, "query -f: the parts overlap: %d matches" % len(expected))
        for t in ("1", "2"):
            args = ["query", "-t", t] + sum([["-f", p] for p in paths], []) + [query_file]
            out, _ = run(args)
            check(lines_of(out) == expected, "query -f (%s threads): one line per match, in key "
                  "then filter order" % t)
            out, _ = run(args[:1] + ["--first"] + args[1:])
            firsts, seen = [], set()
            for line in expected:
                k = line.split("\t")[0]
                if k not in seen:
                    seen.add(k)
                    firsts.append(line)
            check(lines_of(out) == firsts, "query -f --first: the first filter of each key")
            out, _ = run(args[:1] + ["-c"] + args[1:])
            check(out.strip() == str(len(expected)).encode(), "query -f -c: %r" % out)
        absent_keys = ["nowhere-%d" % i for i in range(500)]
        write_lines(w("absent.txt"), absent_keys + keys[:1])
        out, _ = run(["query", "--absent", "-f", paths[0], "-f", paths[1], w("absent.txt")])
        fp = 500 - len(lines_of(out))
        check(set(lines_of(out)) <= set(absent_keys) and fp < fp_bound(1000, 0.01),
              "query -f --absent: the keys in no filter (%d false positives)" % fp)
    # Exit status as grep's: 1 when nothing is selected, 0 with -q when something is.
    write_lines(w("none.txt"), ["nowhere-%d" % i for i in range(3)])
    run(["query", "-f", paths[0], "-f", paths[1], w("none.txt")], expect=1)
    out, _ = run(["query", "-q", "-f", paths[0], "-f", paths[1], query_file])
    check(out == b"", "query -q -f prints nothing")
    # Usage errors: --first without -f, --first with --absent, a filter of another kind.
    _, err = run(["query", "--first", paths[0], query_file], expect=2)
    check("--first needs filters given with -f" in err, err)
    _, err = run(["query", "--first", "--absent", "-f", paths[0], query_file], expect=2)
    check("--first and --absent" in err, err)
    write_lines(w("area.txt"), keys[:10])
    run(["build", "-q", "--areas", "-o", w("s.sbf"), w("area.txt")])
    run(["query", "-f", paths[0], "-f", w("s.sbf"), query_file], expect=2)


def guava_cases():
    """tests/data/guava/cases.txt (tests/guava/README.md): Guava's own filters and answers."""
    folder = os.path.join(HERE, "..", "data", "guava")
    cases = []
    for line in open(os.path.join(folder, "cases.txt")):
        if line.startswith("#") or not line.strip():
            continue
        name, funnel, strategy, n, fpp_bits, seed, inserted, absent, _ = line.split()
        fpp = struct.unpack(">d", bytes.fromhex(fpp_bits))[0]
        cases.append(dict(name=name, funnel=funnel, strategy=int(strategy), n=int(n), fpp=fpp,
                          seed=int(seed), inserted=int(inserted), absent=int(absent),
                          path=os.path.join(folder, name + ".guava"),
                          hits=open(os.path.join(folder, name + ".hits"), "rb").read()))
    return cases


def guava_key(funnel, seed, i):
    """Key i of a case (tests/guava/README.md, "Keys") as a line: long and int funnels their
    decimal value, utf8 its text."""
    m = (1 << 64) - 1
    z = (seed + (i + 1) * 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    v = z ^ (z >> 31)
    if funnel == "long":
        return str(v - (1 << 64) if v >> 63 else v)
    if funnel == "int":
        low = v & 0xFFFFFFFF
        return str(low - (1 << 32) if low >> 31 else low)
    return "k%d%s" % (v, ["", "\u00e9", "\u20ac", "\U0001F600"][v >> 62])


def test_guava():
    """Guava's BloomFilter files (writeTo bytes) in the command: build --format guava makes
    Guava's bytes for Guava's keys (--key-type int64/int32 for its long/int funnels, lines as
    UTF-8 for stringFunnel), query answers every probe as Guava's mightContain did (false
    positives included), info says what it is, merge keeps the format; all against the golden
    files Guava itself wrote (tests/data/guava)."""
    types = {"long": "int64", "int": "int32", "utf8": "bytes"}
    done = 0
    for case in guava_cases():
        if case["funnel"] not in types:
            continue
        kt = types[case["funnel"]]
        keys = [guava_key(case["funnel"], case["seed"], i)
                for i in range(case["inserted"] + case["absent"])]
        probes = w(case["name"] + ".probes")
        write_lines(probes, keys)
        expected = [keys[i] for i in range(len(keys)) if case["hits"][i >> 3] >> (i & 7) & 1]
        out, _ = run(["query", "--key-type", kt, case["path"], probes])
        check(lines_of(out) == expected,
              "%s: query answers as Guava's mightContain" % case["name"])
        check(len(expected) >= case["inserted"], "no false negative")
        inserted = w(case["name"] + ".keys")
        write_lines(inserted, keys[:case["inserted"]])
        layout = "guava" if case["strategy"] == 1 else "guava32"
        made = w(case["name"] + ".out")
        run(["build", "-q", "--format", "guava", "--layout", layout, "--key-type", kt,
             "-n", str(case["n"]), "--fpp", repr(case["fpp"]), "-o", made, inserted])
        check(open(made, "rb").read() == open(case["path"], "rb").read(),
              "%s: build --format guava writes Guava's writeTo bytes" % case["name"])
        done += 1
    check(done >= 20, "guava cases run: %d" % done)
    # info, merge of two halves = a build of all keys, in Guava's format.
    case = [c for c in guava_cases() if c["name"] == "long_k7"][0]
    keys = [guava_key("long", case["seed"], i) for i in range(case["inserted"])]
    half = len(keys) // 2
    write_lines(w("a.txt"), keys[:half])
    write_lines(w("b.txt"), keys[half:])
    for name in ("a", "b"):
        run(["build", "-q", "--format", "guava", "--key-type", "int64", "-n", str(case["n"]),
             "--fpp", repr(case["fpp"]), "-o", w(name + ".guava"), w(name + ".txt")])
    run(["merge", "-q", "--key-type", "int64", "-o", w("ab.guava"), w("a.guava"), w("b.guava")])
    check(open(w("ab.guava"), "rb").read() == open(case["path"], "rb").read(),
          "merge of Guava files: Guava's bytes of all the keys")
    out, _ = run(["info", "--key-type", "int64", case["path"]])
    check(b"format: guava" in out and b"MURMUR128_MITZ_64" in out and b"k: 7" in out,
          "info on a Guava file: %r" % out)
    # Usage errors: a Guava file of longs queried as lines of text, a bad --key-type, --format
    # guava with --counting, a pipe without -n, a seed, a layout that is not Guava's.
    _, err = run(["query", case["path"], w("a.txt")], expect=2)
    check("does not say which funnel" in err and "--key-type" in err,
          "a Guava file without --key-type: %r" % err)
    run(["info", case["path"]], expect=2)
    run(["query", "--key-type", "int16", case["path"], w("a.txt")], expect=2)
    run(["build", "--format", "guava", "--counting", "-n", "10", "-o", w("x"), w("a.txt")],
        expect=2)
    run(["build", "--format", "guava", "-o", w("x"), "-"], input_bytes=b"a\n", expect=2)
    run(["build", "--format", "guava", "--seed", "3", "-n", "9", "-o", w("x"), w("a.txt")],
        expect=2)
    run(["build", "--format", "guava", "--layout", "block512", "-n", "9", "-o", w("x"),
         w("a.txt")], expect=2)
    _, err = run(["build", "--key-type", "int64", "-n", "9", "-o", w("x"), w("a.txt") + "x"],
                 expect=None)
    write_lines(w("words.txt"), ["12", "twelve"])
    _, err = run(["build", "--key-type", "int64", "-n", "9", "-o", w("x"), w("words.txt")],
                 expect=2)
    check("'twelve' is not a decimal integer" in err, err)
    # A truncated Guava file is a clear failure (exit 1), never a crash.
    with open(w("cut.guava"), "wb") as f:
        f.write(open(case["path"], "rb").read()[:100])
    _, err = run(["info", "--key-type", "bytes", w("cut.guava")], expect=1)
    check("cut.guava" in err, err)


def test_kinds():
    """info describes every kind of filter file, told by its magic (plain, scalable, counting,
    spatial, ShBF_A, ShBF_x), from a file and from a pipe, with the geometry the file's header
    holds; merge works for plain, scalable and counting filters and refuses spatial and shifting
    set filters with exit 2 and the reason."""
    rnd = random.Random(47)
    keys = urls(rnd, 3000, "kind")
    write_lines(w("k.txt"), keys)
    write_lines(w("k2.txt"), keys[:1000])
    env = dict(os.environ, SIMDBLOOM_CLI_SCALABLE_INITIAL="1000")
    run(["build", "--seed", "7", "-o", w("plain.sbf"), w("k.txt")])
    run(["build", "--seed", "7", "-o", w("chain.sbf")], input_bytes=open(w("k.txt"), "rb").read(),
        env=env)
    run(["build", "--counting", "--seed", "7", "-o", w("count.sbc"), w("k.txt")])
    run(["build", "--areas", "--seed", "7", "-o", w("areas.sbs"), w("k.txt"), w("k2.txt")])
    corpus = os.path.join(HERE, "..", "fuzz", "corpus")
    shutil.copy(os.path.join(corpus, "shbf_a.bin"), w("a.shbf"))
    shutil.copy(os.path.join(corpus, "shbf_x.bin"), w("x.shbf"))

    def header(path):
        data = open(path, "rb").read()
        return data, struct.unpack_from("<8sII", data, 0)

    expected = {
        "plain.sbf": ("plain", {"kind", "layout", "bits", "k", "bytes"}),
        "chain.sbf": ("scalable", {"kind", "layout", "stages", "initial_capacity", "bytes"}),
        "count.sbc": ("counting", {"kind", "layout", "counters", "k", "bytes"}),
        "areas.sbs": ("spatial", {"kind", "areas", "cells", "cell_bytes", "k", "bytes"}),
        "a.shbf": ("shbf_a", {"kind", "bits", "blocks", "k", "bytes"}),
        "x.shbf": ("shbf_x", {"kind", "bits", "blocks", "k", "bytes", "max_count"}),
    }
    for name, (kind, geometry) in expected.items():
        data, (magic, version, header_size) = header(w(name))
        text, err = run(["info", w(name)])
        check(err == "", "info %s: nothing on stderr: %r" % (name, err))
        lines = lines_of(text)
        check(lines[0] == "file: " + w(name) and lines[1] == "kind: " + kind,
              "info %s: %r" % (name, lines[:2]))
        j = summary(run(["info", "--json", w(name)])[0])
        check(j["file"] == w(name) and j["filter"]["kind"] == kind and
              set(j["filter"]) == geometry, "info --json %s: %s" % (name, j))
        # From a pipe: the same description.
        piped, _ = run(["info", "/dev/stdin"], input_bytes=data)
        check(lines_of(piped)[1:] == lines[1:], "info of %s from a pipe" % name)
        fields = dict(l.split(": ", 1) for l in lines[1:] if not l.startswith(("stage ", "area ")))
        if kind in ("shbf_a", "shbf_x"):
            max_count, _, blocks, seed, items = struct.unpack_from("<IIQQQ", data, 16)
            check(magic == (b"SIMDSHBA" if kind == "shbf_a" else b"SIMDSHBX"), "magic")
            check(fields["bits"] == str(blocks * 512) and fields["blocks"] == str(blocks) and
                  fields["k"] == "8" and fields["bytes"] == str(blocks * 64) and
                  fields["seed"] == str(seed) and fields["inserted"] == str(items) and
                  len(data) == 64 + blocks * 64, "%s info against its header: %s" % (name, fields))
            check(j["filter"]["bits"] == blocks * 512 and j["seed"] == seed and
                  j["inserted"] == items and 0 <= j["expected_fpp"] < 1, "%s json: %s" % (name, j))
            if kind == "shbf_x":
                check(fields["max count"] == str(max_count) and
                      j["filter"]["max_count"] == max_count, "max count: %s" % fields)
            else:
                check(0 < float(fields["clear answer probability"]) <= 1, "clear answer")
        else:
            check(fields["seed"] == "7" and j["seed"] == 7, "%s seed: %s" % (name, fields))
            check(j["filter"]["bytes"] == int(fields["bytes"]), "%s bytes" % name)
        if kind == "counting":
            k, blocks, seed, present = struct.unpack_from("<IQQQ", data, 20)
            check(fields["k"] == str(k) and fields["counters"] == str(blocks * 128) and
                  fields["present"] == str(present) == str(len(keys)), "counting header")
        if kind == "spatial":
            k, blocks, seed, areas, current = struct.unpack_from("<IQQII", data, 20)
            check(fields["k"] == str(k) and fields["cells"] == str(blocks * 64) and
                  fields["areas"] == str(areas) == "2" and fields["highest label"] == "2",
                  "spatial header")
        # Truncated: one line naming the file, exit 1 (info) / 2 (query: every error).
        with open(w("trunc"), "wb") as f:
            f.write(data[:len(data) - 1])
        _, err = run(["info", w("trunc")], expect=1)
        one_line(err, "trunc", "not a simdbloom filter")
        _, err = run(["info", "/dev/stdin"], input_bytes=data[:100], expect=1)
        one_line(err, "/dev/stdin")
    # merge: the kinds that merge.
    run(["build", "--seed", "7", "-o", w("plain2.sbf"), w("k.txt")])
    for a, b in [("plain.sbf", "plain2.sbf"), ("count.sbc", "count.sbc")]:
        _, err = run(["merge", w(a), w(b), "-o", w("m.out"), "--json"])
        check(summary(err)["filter"]["kind"] == expected[a][0], "merge %s %s" % (a, b))
        out, _ = run(["query", "--count", w("m.out"), w("k.txt")])
        check(out == b"%d\n" % len(keys), "merged %s holds every key" % a)
    # The kinds that do not: exit 2, one line with the reason, nothing written; mixed kinds
    # that merge are incompatible (exit 1).
    os.remove(w("m.out"))
    for a in ["areas.sbs", "a.shbf", "x.shbf"]:
        for pair in [(a, a), (a, "plain.sbf"), ("count.sbc", a)]:
            _, err = run(["merge", w(pair[0]), w(pair[1]), "-o", w("m.out")], expect=2)
            one_line(err, w(a), "is a %s filter" % expected[a][0], "not merged")
        check(not os.path.exists(w("m.out")), "no output for %s" % a)
    for a, b in [("plain.sbf", "count.sbc"), ("chain.sbf", "count.sbc")]:
        _, err = run(["merge", w(a), w(b), "-o", w("m.out")], expect=1)
        one_line(err, expected[a][0], expected[b][0])
    # query takes the sets of keys; the others are refused with a pointer.
    for name in ["a.shbf", "x.shbf"]:
        _, err = run(["query", w(name), w("k.txt")], expect=2)
        one_line(err, "info")


# ---------------------------------------------------------------------------------------------
# Key types (issue 39): a filter holds integers (int64, int32) or byte strings (bytes); lines of
# text are byte strings.
def c_api():
    """The library's C API through ctypes (--lib), or None where there is none (no shared
    library, or a binary for another machine run under an emulator)."""
    if not ARGS.lib or ARGS.emulator or not os.path.exists(ARGS.lib):
        return None
    # A sanitized library cannot be loaded into this (uninstrumented) interpreter.
    ldd = subprocess.run(["ldd", ARGS.lib], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if re.search(rb"lib[atm]san|libubsan", ldd.stdout):
        return None
    try:
        lib = ctypes.CDLL(ARGS.lib)
    except OSError as e:
        print("note: cannot load %s: %s" % (ARGS.lib, e))
        return None
    u64, p, pp = ctypes.c_uint64, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    keys, size, d, i, u32 = ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t, ctypes.c_double, \
        ctypes.c_int, ctypes.c_uint32
    sigs = {
        "simdbloom_create": [u64, d, i, u64, pp],
        "simdbloom_with_bits": [u64, u32, i, u64, pp],
        "simdbloom_insert_bytes": [p, ctypes.POINTER(ctypes.c_char_p),
                                   ctypes.POINTER(ctypes.c_size_t), size],
        "simdbloom_set_key_type": [p, i],
        "simdbloom_insert_u64": [p, keys, size],
        "simdbloom_counting_create": [u64, d, i, u64, pp],
        "simdbloom_counting_insert_u64": [p, keys, size],
        "simdbloom_scalable_create": [u64, d, i, u64, d, d, pp],
        "simdbloom_scalable_insert_u64": [p, keys, size],
        "simdbloom_spatial_create": [u64, d, u32, u64, pp],
        "simdbloom_spatial_insert_u64": [p, u32, keys, size, p],
        "simdbloom_shbf_a_create": [u64, d, u64, pp],
        "simdbloom_shbf_a_insert_u64": [p, keys, size, i],
        "simdbloom_shbf_x_create": [u64, d, u32, u64, pp],
        "simdbloom_shbf_x_insert_u64": [p, keys, size, u32],
    }
    for name, args in sigs.items():
        getattr(lib, name).argtypes = args
        getattr(lib, name).restype = ctypes.c_int
    for kind in ["", "counting_", "scalable_", "spatial_", "shbf_a_", "shbf_x_"]:
        getattr(lib, "simdbloom_%ssave" % kind).argtypes = [p, ctypes.c_char_p]
        getattr(lib, "simdbloom_%sfree" % kind).argtypes = [p]
        getattr(lib, "simdbloom_%sfree" % kind).restype = None
    lib.simdbloom_last_error.restype = ctypes.c_char_p
    return lib


def integer_files(values):
    """Filter files of every kind holding the integers `values`, made through the C API: name ->
    (path, kind, key type). {} without the C API."""
    lib = c_api()
    if lib is None:
        print("note: no libsimdbloom.so to make filters of integers with: those checks are skipped")
        return {}
    keys = (ctypes.c_uint64 * len(values))(*values)
    n = len(values)

    def made(status, what):
        check(status == 0, "%s: %s" % (what, lib.simdbloom_last_error()))

    files = {}

    def save(name, kind, key_type, create, insert):
        h = ctypes.c_void_p()
        made(create(ctypes.byref(h)), name + " create")
        if key_type == "int32":
            made(lib.simdbloom_set_key_type(h, 2), name + " set_key_type")
        made(insert(h), name + " insert")
        path = w(name)
        prefix = "" if kind == "plain" else kind + "_"
        made(getattr(lib, "simdbloom_%ssave" % prefix)(h, path.encode()), name + " save")
        getattr(lib, "simdbloom_%sfree" % prefix)(h)
        files[name] = (path, kind, key_type)

    save("int64.sbf", "plain", "int64", lambda o: lib.simdbloom_create(n, 0.01, 1, 7, o),
         lambda h: lib.simdbloom_insert_u64(h, keys, n))
    save("int32.sbf", "plain", "int32", lambda o: lib.simdbloom_create(n, 0.01, 1, 7, o),
         lambda h: lib.simdbloom_insert_u64(h, keys, n))
    save("int64.sbc", "counting", "int64",
         lambda o: lib.simdbloom_counting_create(n, 0.01, 1, 7, o),
         lambda h: lib.simdbloom_counting_insert_u64(h, keys, n))
    save("int64.chain", "scalable", "int64",
         lambda o: lib.simdbloom_scalable_create(n, 0.01, 1, 7, 2.0, 0.85, o),
         lambda h: lib.simdbloom_scalable_insert_u64(h, keys, n))
    save("int64.sbs", "spatial", "int64", lambda o: lib.simdbloom_spatial_create(n, 0.01, 2, 7, o),
         lambda h: lib.simdbloom_spatial_insert_u64(h, 1, keys, n, None))
    save("int64.shbfa", "shbf_a", "int64", lambda o: lib.simdbloom_shbf_a_create(n, 0.01, 7, o),
         lambda h: lib.simdbloom_shbf_a_insert_u64(h, keys, n, 2))
    save("int64.shbfx", "shbf_x", "int64",
         lambda o: lib.simdbloom_shbf_x_create(n, 0.01, 4, 7, o),
         lambda h: lib.simdbloom_shbf_x_insert_u64(h, keys, n, 1))
    return files


def key_type_of(path):
    """The key type `info` shows, in text (the line after "kind: ") and in JSON."""
    text, err = run(["info", path])
    check(err == "", "info %s: nothing on stderr: %r" % (path, err))
    lines = lines_of(text)
    check(lines[1].startswith("kind: ") and lines[2].startswith("key type: "),
          "info %s: the key type follows the kind: %r" % (path, lines[:3]))
    j = summary(run(["info", "--json", path])[0])
    check(j["key_type"] == lines[2][len("key type: "):], "info --json %s: %s" % (path, j))
    return j["key_type"]


def test_key_types():
    """info shows the key type of every kind of filter (text and JSON): bytes for what build
    makes (from lines, also from no line at all), int64 and int32 for filters of integers, legacy
    for files saved before key types. The commands that read lines (query, remove, classify)
    refuse a filter of integers with exit 2 and one line naming both key types; merge refuses
    different key types the same way, and merges a legacy file with a bytes one."""
    rnd = random.Random(39)
    keys = urls(rnd, 2000, "kt")
    write_lines(w("k.txt"), keys)
    write_lines(w("k2.txt"), keys[:500])
    write_lines(w("none.txt"), [])
    env = dict(os.environ, SIMDBLOOM_CLI_SCALABLE_INITIAL="500")
    run(["build", "-o", w("plain.sbf"), w("k.txt")])
    run(["build", "-o", w("empty.sbf"), w("none.txt")])
    run(["build", "-o", w("chain.sbf")], input_bytes=open(w("k.txt"), "rb").read(), env=env)
    run(["build", "--counting", "-o", w("count.sbc"), w("k.txt")])
    run(["build", "--areas", "-o", w("areas.sbs"), w("k.txt"), w("k2.txt")])
    for name in ["plain.sbf", "empty.sbf", "chain.sbf", "count.sbc", "areas.sbs"]:
        check(key_type_of(w(name)) == "bytes", "%s holds bytes" % name)
    # The shifting set filters of the fuzz corpus were saved before key types.
    corpus = os.path.join(HERE, "..", "fuzz", "corpus")
    for name in ["shbf_a.bin", "shbf_x.bin"]:
        check(key_type_of(os.path.join(corpus, name)) == "legacy", "%s is legacy" % name)
    # A plain file of before (tests/data/golden: block512, 1024 bits, k 6, seed 3): legacy; it
    # answers lines (its bytes hash as they did).
    legacy = os.path.join(HERE, "..", "data", "golden", "block512.bin")
    check(key_type_of(legacy) == "legacy", "a file of before is legacy")
    run(["query", "--count", legacy, w("k.txt")], expect=1)

    ints = integer_files(list(range(1000)) + [2 ** 32 - 1])
    if ints:
        # merge: the legacy file with a bytes filter of its geometry gives bytes, holding both.
        lib = c_api()
        h = ctypes.c_void_p()
        check(lib.simdbloom_with_bits(1024, 6, 1, 3, ctypes.byref(h)) == 0, "with_bits")
        words = [b"more-%d" % i for i in range(20)]
        ptrs = (ctypes.c_char_p * len(words))(*words)
        lens = (ctypes.c_size_t * len(words))(*[len(x) for x in words])
        check(lib.simdbloom_insert_bytes(h, ptrs, lens, len(words)) == 0, "insert_bytes")
        check(lib.simdbloom_save(h, w("b.sbf").encode()) == 0, "save")
        lib.simdbloom_free(h)
        write_lines(w("more.txt"), [x.decode() for x in words])
        for pair in [(legacy, w("b.sbf")), (w("b.sbf"), legacy)]:
            run(["merge", pair[0], pair[1], "-o", w("ab.sbf")])
            check(key_type_of(w("ab.sbf")) == "bytes", "merged with a legacy file: bytes")
            out, _ = run(["query", "--count", w("ab.sbf"), w("more.txt")])
            check(out == b"20\n", "the merge holds the bytes filter's keys: %r" % out)
    for name, (path, kind, key_type) in ints.items():
        text, _ = run(["info", path])
        check(lines_of(text)[1] == "kind: " + kind, "info %s: %r" % (name, text[:60]))
        check(key_type_of(path) == key_type, "%s holds %s" % (name, key_type))
    if not ints:
        return
    # Lines of text against filters of integers: exit 2, one line naming both key types.
    write_lines(w("numbers.txt"), [str(i) for i in range(10)])
    for name, cmd in [("int64.sbf", "query"), ("int32.sbf", "query"), ("int64.chain", "query"),
                      ("int64.sbc", "query"), ("int64.sbc", "remove"), ("int64.sbs", "classify")]:
        path, _, key_type = ints[name]
        before = open(path, "rb").read()
        args = [cmd, path, w("numbers.txt")] + (["-o", w("out.sbc")] if cmd == "remove" else [])
        out, err = run(args, expect=2)
        one_line(err, cmd, path, key_type, "bytes")
        check(out == b"", "%s %s: nothing on stdout: %r" % (cmd, name, out))
        check(open(path, "rb").read() == before, "%s %s: the filter is unchanged" % (cmd, name))
    check(not os.path.exists(w("out.sbc")), "remove wrote nothing")
    # merge: int64 with bytes, either way round; int64 with int32.
    for a, b in [(ints["int64.sbf"][0], w("plain.sbf")), (w("plain.sbf"), ints["int64.sbf"][0]),
                 (ints["int64.sbf"][0], ints["int32.sbf"][0]),
                 (ints["int64.sbc"][0], w("count.sbc"))]:
        _, err = run(["merge", a, b, "-o", w("m.sbf")], expect=2)
        one_line(err, "different key types", key_type_of(a), key_type_of(b))
        check(not os.path.exists(w("m.sbf")), "merge of different key types wrote nothing")
    # Filters of one key type merge.
    run(["merge", ints["int64.sbf"][0], ints["int64.sbf"][0], "-o", w("m.sbf")])
    check(key_type_of(w("m.sbf")) == "int64", "int64 merged with int64")


# ---------------------------------------------------------------------------------------------
# The conventions of the Unix tools (issue 31, item 4).
COMMANDS = {
    # command: options its --help must name (beyond the common ones)
    "build": ["--output", "-n", "--fpp", "--layout", "--seed", "--counting", "--areas", "--null"],
    "query": ["--absent", "--count", "--null"],
    "remove": ["--output", "--force", "--null"],
    "classify": ["--labels", "--null"],
    "dedup": ["-n", "--fpp", "--null"],
    "intersect": ["-n", "--fpp", "--null"],
    "info": ["--json"],
    "merge": ["--output"],
    "parquet": ["--column"],
}
COMMON = ["--quiet", "--json", "--stats", "--progress", "--strip-cr", "--threads",
          "--max-key-bytes", "--help"]


def test_help():
    """`simdbloom COMMAND --help` (and -h, anywhere before --, and `simdbloom help COMMAND`)
    prints that command's help on stdout, exit 0: its usage line, its options and one example;
    `simdbloom --help` the global help, which names every command."""
    glob, err = run(["--help"])
    check(glob.startswith(b"usage: simdbloom COMMAND") and err == "", "global help: %r" % glob)
    for cmd in COMMANDS:
        check(("\n  %s " % cmd).encode() in glob, "global help names %s" % cmd)
    check(b"Exit status" in glob and b"COMMAND --help" in glob, "global help: exit status")
    short, _ = run(["-h"])
    check(short == glob, "-h is --help")
    for cmd, opts in COMMANDS.items():
        out, err = run([cmd, "--help"])
        text = out.decode()
        check(err == "", "%s --help: nothing on stderr: %r" % (cmd, err))
        check(text.startswith("usage: simdbloom %s " % cmd), "%s --help usage: %r"
              % (cmd, text[:80]))
        check(out != glob, "%s --help is not the global help" % cmd)
        for o in opts + COMMON:
            check(o in text, "%s --help names %s" % (cmd, o))
        example = text.split("Example:\n", 1)
        check(len(example) == 2 and ("simdbloom %s " % cmd) in example[1],
              "%s --help has an example of %s: %r" % (cmd, cmd, example[-1]))
        for other in COMMANDS:
            if other != cmd:
                check("usage: simdbloom %s" % other not in text, "%s --help shows %s's usage"
                      % (cmd, other))
        for variant in [[cmd, "-h"], ["help", cmd], [cmd, "-n", "5", "--help", "x"]]:
            o2, _ = run(variant)
            check(o2 == out, "%s prints %s's help" % (variant, cmd))
    # Issue 40: --version names the instruction set as users know it (AVX-512, Highway's AVX3
    # only in parentheses after it).
    ver, _ = run(["--version"])
    check(re.match(rb"simdbloom \d+\.\d+\.\d+ \(SIMD: (AVX-512 \(target AVX3\w*\)|AVX2|SSE4|"
                   rb"SSSE3|NEON|SVE\w*|none \(target (SCALAR|EMU128|reference)\))\)\n$",
                   ver) is not None, "--version: %r" % ver)
    ver, _ = run(["--version"], env=dict(os.environ, SIMDBLOOM_TARGET="scalar"))
    check(ver.endswith(b"(SIMD: none (target SCALAR))\n"), "--version, scalar: %r" % ver)
    # After "--", --help is an argument (here a missing FILE): an error, not the help.
    out, err = run(["dedup", "--", "--help"], expect=1)
    check(out == b"" and "--help" in err, "dedup -- --help reads a file named --help: %r" % err)
    _, err = run(["help", "frobnicate"], expect=2)
    check("frobnicate" in err, "help of an unknown command: %r" % err)
    # A usage error points at the command's help.
    _, err = run(["dedup", "--frobnicate"], expect=2)
    check("simdbloom dedup --help" in err, "unknown option names the help: %r" % err)


def status_of(args, stdin_bytes=None):
    p = subprocess.run(ARGS.emulator + [ARGS.bin] + args, input=stdin_bytes,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def test_status():
    """Exit status. query as grep: 0 if a key was selected (with --absent: a surely absent key),
    1 if none, 2 on any error; -q prints nothing, answers through the status and stops at the
    first selected key (an endless input after it still ends the run). Every other command:
    0 success, 1 failure, 2 usage error."""
    write_lines(w("members.txt"), ["m%d" % i for i in range(1000)])
    run(["build", "-n", "1000", "--fpp", "1e-6", "-o", w("f.sbf"), w("members.txt")])
    f = w("f.sbf")
    hit, miss = b"m5\n", b"nobody-1\nnobody-2\n"
    for flags, stdin_bytes, rc, out in [
            ([], hit + miss, 0, b"m5\n"), ([], miss, 1, b""), ([], b"", 1, b""),
            (["--absent"], hit + miss, 0, miss), (["--absent"], hit, 1, b""),
            (["--count"], miss, 1, b"0\n"), (["--count"], hit + miss, 0, b"1\n"),
            (["--count", "--absent"], hit, 1, b"0\n"),
            (["-q"], hit + miss, 0, b""), (["-q"], miss, 1, b""),
            (["--quiet", "--absent"], hit + miss, 0, b""), (["-q", "--absent"], hit, 1, b""),
            (["-q", "--count"], hit, 0, b"")]:
        got_rc, got_out, err = status_of(["query"] + flags + [f], stdin_bytes)
        check(got_rc == rc and got_out == out, "query %s on %r: exit %d %r, expected %d %r (%s)"
              % (flags, stdin_bytes, got_rc, got_out, rc, out, err))
        if "-q" in flags or "--quiet" in flags:
            check(err == "", "-q: nothing on stderr either: %r" % err)
    # Errors are 2, with and without -q (1 would read as "no match").
    for args in [["query", w("nope.sbf"), w("members.txt")], ["query", f, w("nope.txt")],
                 ["query", w("members.txt"), w("members.txt")], ["query", "--bogus", f],
                 ["query"], ["query", f, w("members.txt"), "--stats", w("no/dir/s.json")]]:
        for q in [[], ["-q"]]:
            got_rc, got_out, err = status_of(args + q)
            check(got_rc == 2 and got_out == b"" and err.count("\n") == 1,
                  "%s: exit %d, expected 2: %r" % (args + q, got_rc, err))
    # -q stops at the first selected key: an endless input after it does not keep it running
    # (nor does it grow memory: /dev/zero has no newline at all).
    exe = " ".join(ARGS.emulator + [ARGS.bin])
    for producer, flags in [("cat /dev/zero", "-q"), ("yes m7", "-q"),
                            ("yes m7", "-q --absent"), ("cat /dev/zero", "-q --absent")]:
        first = "nobody" if "--absent" in flags else "m3"
        cmd = "{ printf '%s\\n'; %s; } | %s query %s %s" % (first, producer, exe, flags, f)
        start = time.monotonic()
        try:
            p = subprocess.run(["sh", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=60)
        except subprocess.TimeoutExpired:
            fail("%s: still running after 60 s (-q must stop at the first hit)" % cmd)
        took = time.monotonic() - start
        check(p.returncode == 0 and p.stdout == b"", "%s: exit %d %r %r"
              % (cmd, p.returncode, p.stdout, p.stderr))
        check(took < 20, "%s took %.1f s" % (cmd, took))
    # A file whose first key matches: -q answers without reading the rest (a huge file is cut
    # off after the first batch): the --json count shows how far it read.
    with open(w("big.txt"), "wb") as big:
        big.write(b"m1\n" + b"nobody\n" * 500000)
    _, err = run(["query", "-q", "--json", f, w("big.txt")])
    check(summary(err)["keys"] < 500001 and summary(err)["matches"] >= 1,
          "-q stops early in a file: %s" % summary(err))
    # Every other command: 0 success, 1 failure, 2 usage.
    write_lines(w("other.txt"), ["o%d" % i for i in range(10)])
    parquet = os.path.join(ARGS.data, "multi_rowgroup.parquet")
    with open(w("bad.parquet"), "wb") as bad:
        bad.write(b"PAR1" + b"\xff" * 20 + b"PAR1")
    missing = w("missing.txt")
    for cmd, ok, failure, usage in [
            ("build", ["-o", w("b.sbf"), w("members.txt")], ["-o", w("b.sbf"), missing],
             ["--fpp", "7", "-o", w("b.sbf"), w("members.txt")]),
            ("dedup", [w("members.txt")], [missing], ["-n", "zero", w("members.txt")]),
            ("intersect", [w("members.txt"), w("other.txt")], [w("members.txt"), missing],
             [w("members.txt")]),
            ("info", [f], [w("members.txt")], [f, f]),
            ("merge", [f, f, "-o", w("m.sbf")], [f, w("members.txt"), "-o", w("m.sbf")],
             [f, f]),
            ("parquet", [parquet, "--column", "id", "7"], [w("bad.parquet"), "--column", "id",
                                                           "7"],
             [parquet, "--column", "nope", "7"])]:
        for args, rc in [(ok, 0), (failure, 1), (usage, 2)]:
            got_rc, _, err = status_of([cmd] + args)
            check(got_rc == rc, "%s %s: exit %d, expected %d (%s)" % (cmd, args, got_rc, rc, err))
            if rc != 0:
                check(err.startswith("simdbloom: ") and err.count("\n") == 1,
                      "%s %s: one line says why: %r" % (cmd, args, err))
    quiet_keeps_data()
    # intersect exits 0 whether or not the files share a key (it is a filter, not a test).
    got_rc, out, _ = status_of(["intersect", "--fpp", "1e-6", w("other.txt"), w("members.txt")])
    check(got_rc == 0 and out == b"", "intersect with nothing common: exit %d" % got_rc)


def quiet_keeps_data():
    """Issue 40: -q answers through the exit status on query and classify only; on the commands
    whose output is data it silences the notes and the progress on stderr, never the data (dedup
    -q printed nothing at all)."""
    write_lines(w("q.txt"), ["q%d" % (i % 700) for i in range(1000)])
    write_lines(w("q2.txt"), ["q%d" % i for i in range(500, 900)])
    run(["build", "-o", w("q.sbf"), w("q.txt")])
    for args in [["dedup", w("q.txt")], ["dedup", "-n", "700", w("q.txt")],
                 ["intersect", w("q.txt"), w("q2.txt")], ["info", w("q.sbf")],
                 ["parquet", os.path.join(ARGS.data, "multi_rowgroup.parquet"), "--column",
                  "note", "note 5"]]:
        plain, notes = run(args)
        check(plain != b"", "%s writes data" % args)
        for q in (["-q"], ["--quiet"], ["--quiet", "--progress"]):
            out, err = run(args[:1] + q + args[1:])
            check(out == plain, "%s %s: the data as without it: %r, expected %r"
                  % (args[0], q, out[:60], plain[:60]))
            check(err == "", "%s %s: nothing on stderr (without it: %r): %r"
                  % (args[0], q, notes, err))
    # dedup's note, silenced above, is there without -q.
    _, notes = run(["dedup", w("q.txt")])
    check("sized for 1000 keys" in notes, "dedup's sizing note: %r" % notes)
    # The help says so.
    for cmd in ["dedup", "query"]:
        text = run([cmd, "--help"])[0].decode()
        check("data is still written" in text, "%s --help: what -q keeps: %r" % (cmd, text))


def test_json():
    """--json never mixes into the data: stdout is byte-identical to a run without it, the
    summary is the last line of stderr, or the content of --stats FILE (written atomically, the
    same object; nothing on stderr then). info --json prints only the filter's description."""
    rnd = random.Random(31)
    a = urls(rnd, 3000, "a")
    b = urls(rnd, 3000, "b") + a[:500]
    write_lines(w("a.txt"), a)
    write_lines(w("b.txt"), b + a[:100])
    run(["build", "-n", "3000", "-o", w("a.sbf"), w("a.txt")])
    run(["build", "-n", "3000", "-o", w("a2.sbf"), w("a.txt")])
    run(["build", "--areas", "-o", w("ab.sbs"), w("a.txt"), w("b.txt")])
    parquet = os.path.join(ARGS.data, "multi_rowgroup.parquet")
    cases = [
        ("classify", ["classify", w("ab.sbs"), w("b.txt")], "in_area"),
        ("query", ["query", w("a.sbf"), w("b.txt")], "matches"),
        ("query", ["query", "--count", w("a.sbf"), w("b.txt")], "matches"),
        ("dedup", ["dedup", w("b.txt")], "unique"),
        ("intersect", ["intersect", w("a.txt"), w("b.txt")], "matches"),
        ("build", ["build", "-n", "3000", "-o", "/dev/stdout", w("a.txt")], "sizing"),
        ("merge", ["merge", w("a.sbf"), w("a2.sbf"), "-o", "/dev/stdout"], "expected_fpp"),
        ("parquet", ["parquet", parquet, "--column", "id", "0", "250", "9999"], "maybe"),
    ]
    for cmd, args, field in cases:
        plain, plain_err = run(args)
        check(plain != b"", "%s prints data" % args)
        out, err = run(args + ["--json"])
        check(out == plain, "%s --json: stdout differs from a run without --json" % args)
        check(err.startswith(plain_err) and err[len(plain_err):].count("\n") == 1,
              "%s --json: the notes, then one line: %r" % (args, err))
        s = summary(err)
        check(s["command"] == cmd and field in s and "keys" in s,
              "%s --json: the summary on stderr: %s" % (args, s))
        stats = w("stats.json")
        if os.path.exists(stats):
            os.remove(stats)
        before = dir_names(ARGS.work)
        out, err = run(args + ["--stats", stats])
        check(out == plain, "%s --stats: stdout differs from a run without it" % args)
        check(err == plain_err, "%s --stats: stderr has only the notes: %r" % (args, err))
        text = open(stats).read()
        check(text.endswith("}\n") and text.count("\n") == 1, "--stats: one line: %r" % text)
        from_file = json.loads(text)
        for volatile in ["seconds", "keys_per_second"]:
            from_file.pop(volatile)
            s.pop(volatile)
        check(from_file == s, "--stats FILE holds the --json object: %s vs %s" % (from_file, s))
        check(dir_names(ARGS.work) == sorted(before + ["stats.json"]),
              "--stats left other files: %s" % dir_names(ARGS.work))
    # --stats replaces an existing file atomically (the library's save: a symbolic link's
    # target replaced, the link kept) and is checked before any work.
    os.symlink("stats.json", w("link.json"))
    run(["dedup", "--stats", w("link.json"), w("a.txt")])
    check(os.path.islink(w("link.json")) and json.load(open(w("stats.json")))["keys"] == 3000,
          "--stats through a link")
    out, err = run(["dedup", "--stats", w("no/such/dir/s.json"), w("a.txt")], expect=1)
    check(out == b"" and "s.json" in err, "--stats into a missing folder: before any work: %r"
          % err)
    _, err = run(["dedup", "--stats", w("a.txt"), w("a.txt")], expect=2)
    check("is also the input" in err, "--stats onto an input: %r" % err)
    check(open(w("a.txt"), "rb").read().count(b"\n") == 3000, "the input is untouched")
    _, err = run(["build", "-o", w("x.sbf"), "--stats", w("x.sbf"), w("a.txt")], expect=2)
    check("--stats" in err, "--stats and -o the same file: %r" % err)
    # --quiet --json: the same data, the summary alone on stderr (issue 40: -q silenced the data).
    plain, _ = run(["intersect", w("a.txt"), w("b.txt")])
    out, err = run(["intersect", "-q", "--json", w("a.txt"), w("b.txt")])
    check(out == plain and err.count("\n") == 1 and
          summary(err)["matches"] == len(lines_of(out)) >= 600,
          "intersect -q --json: %r %r" % (out[:80], err))
    # info --json: only the JSON object, on stdout, with only a stored filter's fields.
    plain_fields = {"file", "filter", "key_type", "seed", "inserted", "fill", "approximate_count",
                    "expected_fpp"}
    chain_fields = {"file", "filter", "key_type", "seed", "fpp", "growth", "tightening", "count",
                    "bits_per_key", "approximate_count", "expected_fpp"}
    env = dict(os.environ, SIMDBLOOM_CLI_SCALABLE_INITIAL="1000")
    run(["build", "-o", w("chain.sbf")], input_bytes=open(w("b.txt"), "rb").read(), env=env)
    for path, fields, geometry in [
            (w("a.sbf"), plain_fields, {"kind", "layout", "bits", "k", "bytes"}),
            (w("chain.sbf"), chain_fields, {"kind", "layout", "stages", "initial_capacity",
                                            "bytes"})]:
        text, _ = run(["info", path])
        for flags in [["--json"], ["--json", "-q"]]:
            out, err = run(["info"] + flags + [path])
            check(err == "" and out.count(b"\n") == 1 and out.startswith(b"{"),
                  "info %s: only the JSON object on stdout: %r %r" % (flags, out, err))
            j = json.loads(out)
            check(set(j) == fields, "info --json fields: %s, expected %s" % (sorted(j),
                                                                         sorted(fields)))
            check(set(j["filter"]) == geometry, "info --json filter: %s" % j["filter"])
            check(j["file"] == path and j["expected_fpp"] > 0, "info --json values: %s" % j)
        info = dict(l.split(": ", 1) for l in lines_of(text) if not l.startswith("stage "))
        check(abs(j["approximate_count"] - float(info["approximate count"])) < 1,
              "info --json agrees with the text: %s %s" % (j, info))
        # --stats FILE: the text stays on stdout, the object goes to FILE.
        out, err = run(["info", "--stats", w("info.json"), path])
        check(out == text and err == "", "info --stats: the text on stdout")
        check(json.load(open(w("info.json"))) == j, "info --stats FILE: the same object")
    # JSON is UTF-8 (RFC 8259): an area named by a file whose name is not UTF-8 (bytes 0xff,
    # 0xc0 0xaf: an overlong '/', 0xed 0xa0 0x80: a surrogate) is written with U+FFFD for each
    # bad byte, the rest as it is.
    odd = os.fsencode(w("")) + b"\xff-\xc0\xaf-\xed\xa0\x80-\xc3\xa9\t.txt"
    with open(odd, "wb") as f:
        f.write(b"k1\n")
    name = os.fsdecode(odd).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    _, err = run(["build", "--areas", "--json", "-o", w("odd.sbs"), os.fsdecode(odd)])
    check(summary(err)["areas"][0]["name"] == name, "build --json: %r" % err)
    out, _ = run(["info", "--json", w("odd.sbs")])
    check(json.loads(out.decode("utf-8"))["areas"][0]["name"] == name, "info --json: %r" % out)


def test_null():
    """-z/--null: keys end at NUL instead of newline, on input (files and pipes, the counting
    pass included) and on output (query, dedup, intersect), as grep -z and sort -z: keys holding
    newlines survive a round trip."""
    rnd = random.Random(17)
    members = [("key %d\nsecond line\r\n%x" % (i, rnd.getrandbits(40))).encode()
               for i in range(3000)]
    members += [b"", b"\n", b"\n\n", b"tab\tkey"]
    others = [("other %d\n%x" % (i, rnd.getrandbits(40))).encode() for i in range(3000)]
    z = lambda keys: b"".join(k + b"\0" for k in keys)  # noqa: E731
    with open(w("m.z"), "wb") as f:
        f.write(z(members))
    probe = members[:1000] + others
    rnd.shuffle(probe)
    with open(w("p.z"), "wb") as f:
        f.write(z(probe))
    member_set = set(members)
    _, err = run(["build", "-z", "--fpp", "1e-6", "-o", w("m.sbf"), w("m.z"), "--json"])
    check(summary(err)["keys"] == len(members) and
          summary(err)["expected_items"] == len(members),
          "build -z counts NUL-terminated keys: %s" % summary(err))
    for source in ["file", "pipe"]:
        args = ["query", "--null", w("m.sbf")]
        out, _ = (run(args + [w("p.z")]) if source == "file"
                  else run(args, input_bytes=open(w("p.z"), "rb").read()))
        check(out.endswith(b"\0") or out == b"", "query -z ends keys with NUL")
        got = out.split(b"\0")[:-1]
        check(set(got) >= set(k for k in probe if k in member_set) and len(got) <= 1000 + 3,
              "query -z (%s): %d keys" % (source, len(got)))
        check(is_subsequence(got, probe), "query -z keeps input order")
    out, _ = run(["query", "-z", "--count", w("m.sbf"), w("m.z")])
    check(out == b"%d\n" % len(members), "query -z --count: %r" % out)
    # Without -z the same file is cut at its newlines: other keys.
    out, _ = run(["query", "--count", w("m.sbf"), w("m.z")], expect=None)
    check(int(out) < len(members), "without -z NUL does not end a key: %r" % out)
    # dedup -z: exactly the first occurrences, NUL-terminated.
    stream = members + members[:500] + [b"\n"]
    rnd.shuffle(stream)
    first = first_occurrences(stream)
    out, _ = run(["dedup", "-z", "-n", "5000", "--fpp", "1e-9"], input_bytes=z(stream))
    check(out == z(first), "dedup -z round trip")
    # intersect -z: the keys of B that are in A, NUL-terminated; sort -z agrees.
    out, _ = run(["intersect", "-z", "--fpp", "1e-9", w("m.z"), w("p.z")])
    check(out == z([k for k in probe if k in member_set]), "intersect -z")
    if shutil.which("sort"):
        p = subprocess.run(["sort", "-z"], input=out, stdout=subprocess.PIPE, check=True,
                           env=dict(os.environ, LC_ALL="C"))
        check(p.stdout.split(b"\0")[:-1] == sorted(k for k in probe if k in member_set),
              "sort -z reads intersect -z's output")
    # A final key without its NUL is a key, as a final line without \n.
    out, _ = run(["dedup", "-z"], input_bytes=b"a\0b\nc\0d")
    check(out == b"a\0b\nc\0d\0", "final key without NUL: %r" % out)
    # Short flags bundle as getopt's: -qz, -cz, -zn5, -zn 5; an unknown letter is refused.
    rc, out, _ = status_of(["query", "-qz", w("m.sbf")], z(members[:1]))
    check(rc == 0 and out == b"", "query -qz: %d %r" % (rc, out))
    rc, out, _ = status_of(["query", "-qz", w("m.sbf")], z(others[:5]))
    check(rc == 1 and out == b"", "query -qz without a member: %d %r" % (rc, out))
    out, _ = run(["query", "-cz", w("m.sbf"), w("m.z")])
    check(out == b"%d\n" % len(members), "query -cz: %r" % out)
    for bundle in [["-zn5"], ["-zn", "5"]]:
        _, err = run(["dedup", "--json"] + bundle, input_bytes=b"a\0b\0a\0")
        check(summary(err)["expected_items"] == 5 and summary(err)["unique"] == 2,
              "dedup %s: %s" % (bundle, summary(err)))
    _, err = run(["query", "-qy", w("m.sbf")], expect=2)
    check("-qy" in err, "an unknown letter in a bundle: %r" % err)
    # -z is for the commands that read keys.
    for cmd in [["info", "-z", w("m.sbf")], ["merge", "-z", w("m.sbf"), w("m.sbf"), "-o",
                                               w("x.sbf")]]:
        _, err = run(cmd, expect=2)
        check("-z" in err, "%s: -z refused: %r" % (cmd[0], err))


def test_man():
    """lib/cli/simdbloom.1 renders without warnings (groff -man; man -l where there is one) and
    documents every command and every option the commands' --help shows; lib/cli/README.md
    names them too."""
    src = os.path.join(HERE, "..", "..", "lib", "cli")
    page = os.path.join(src, "simdbloom.1")
    roff = open(page).read()
    check(roff.startswith('.\\" SPDX-License-Identifier: Apache-2.0'), "SPDX line first")
    check(".TH SIMDBLOOM 1" in roff, "a .TH header")
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS",
                    "FILES", "EXAMPLES", "SEE ALSO"]:
        check(".SH \"%s\"" % section in roff or ".SH %s" % section in roff,
              "man page section %s" % section)
    readme = open(os.path.join(src, "README.md")).read()
    plain_roff = roff.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace(
        "\\fI", "")
    for cmd in COMMANDS:
        help_text, _ = run([cmd, "--help"])
        options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", help_text.decode()))
        options.discard("-")
        for o in sorted(options) + ["simdbloom " + cmd]:
            check(o in plain_roff, "man page: %s %s undocumented" % (cmd, o))
            check(o in readme, "lib/cli/README.md: %s %s undocumented" % (cmd, o))
    check("atomic" in plain_roff and "kill" in plain_roff, "man page: the atomic -o")
    groff = shutil.which("groff")
    if groff is None:
        print("note: groff is not installed: the man page is not rendered (apt-get install groff)")
        return
    p = subprocess.run([groff, "-man", "-Tutf8", "-ww", page],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = re.sub(".\x08", "", p.stdout.decode("utf-8", "replace"))  # overstrike bold
    check(p.returncode == 0 and p.stderr == b"", "groff -man -ww: %d %r" % (p.returncode,
                                                                          p.stderr[:500]))
    for words in ["SIMDBLOOM(1)", "EXIT STATUS", "query", "--null"]:
        check(words in text.replace("\u2010", "-").replace("\u2212", "-"),
              "rendered page shows %r" % words)
    man = shutil.which("man")
    if man is not None:
        p = subprocess.run([man, "-l", page], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="80"))
        shown = re.sub(".\x08", "", p.stdout.decode("utf-8", "replace"))
        check(p.returncode == 0 and "EXIT STATUS" in shown and "simdbloom query" in shown,
              "man -l renders: %r" % p.stderr[:300])


def rss_run(args, stdout):
    """Runs the command; returns (exit status, peak RSS in bytes, stdout). The peak is the
    process's own VmHWM (/proc/PID/status), polled every 2 ms while it runs: rusage's ru_maxrss
    would also count this Python process, whose memory the child inherits up to its exec."""
    p = subprocess.Popen(ARGS.emulator + [ARGS.bin] + args, stdout=stdout,
                         stderr=subprocess.DEVNULL)
    peak = 0
    chunks = []
    if stdout == subprocess.PIPE:
        os.set_blocking(p.stdout.fileno(), False)
    while p.poll() is None:
        peak = max(peak, vm_hwm(p.pid))
        if stdout == subprocess.PIPE:
            data = p.stdout.read()
            if data:
                chunks.append(data)
        time.sleep(0.002)
    if stdout == subprocess.PIPE:
        os.set_blocking(p.stdout.fileno(), True)
        chunks.append(p.stdout.read())
    check(peak > 0, "no RSS reading of %s" % args)
    return p.returncode, peak, b"".join(chunks)


def test_memory():
    """Max RSS on a large input (1 GiB; SIMDBLOOM_CLI_MEMORY_BYTES shrinks it) <= filter + 64 MiB
    for build, query, dedup and intersect: memory does not follow the input."""
    target = int(os.environ.get("SIMDBLOOM_CLI_MEMORY_BYTES", str(1 << 30)))
    path = w("big.txt")
    # One 1 MiB-ish chunk of URL lines with a placeholder, replaced per chunk: distinct lines.
    chunk = b"".join(b"https://www.example.com/XXXXXXXX/articles/%07d/index.html?ref=feed\n" % i
                     for i in range(16000))
    written = 0
    with open(path, "wb") as f:
        c = 0
        while written < target:
            piece = chunk.replace(b"XXXXXXXX", b"%08x" % c)
            f.write(piece)
            written += len(piece)
            c += 1
    lines = c * 16000
    limit_extra = 64 << 20
    try:
        rc, rss, out = rss_run(["build", "-o", w("big.sbf"), "--stats", w("build.json"),
                                "--quiet", path], subprocess.PIPE)
        check(rc == 0 and out == b"", "build failed")
        s = json.load(open(w("build.json")))
        filt = s["filter"]["bytes"]
        check(s["keys"] == lines, "keys %d, expected %d" % (s["keys"], lines))
        print("input %d MiB, %d lines, filter %.1f MiB" % (written >> 20, lines, filt / 2**20))
        for name, args in [("build", None),
                           ("query", ["query", w("big.sbf"), path]),
                           ("dedup", ["dedup", "-n", str(lines), path]),
                           ("intersect", ["intersect", "-n", str(lines), path, path])]:
            if args is not None:
                rc, rss, _ = rss_run(args, subprocess.DEVNULL)
                check(rc == 0, name + " failed")
            print("%-9s max RSS %.1f MiB (limit %.1f)" % (name, rss / 2**20,
                                                          (filt + limit_extra) / 2**20))
            check(rss <= filt + limit_extra, "%s: max RSS %d > filter %d + 64 MiB"
                  % (name, rss, filt))
    finally:
        os.remove(path)


def test_install():
    prefix = w("prefix")
    shutil.rmtree(prefix, ignore_errors=True)
    subprocess.run([ARGS.cmake, "--install", ARGS.build, "--prefix", prefix, "--component", "cli"],
                   check=True, stdout=subprocess.DEVNULL)
    exe = os.path.join(prefix, "bin", "simdbloom")
    check(os.access(exe, os.X_OK), "bin/simdbloom installed by component cli")
    p = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, check=True)
    check(p.stdout.startswith(b"simdbloom "), "installed binary runs: %r" % p.stdout)
    needed = subprocess.run(["readelf", "-d", exe], stdout=subprocess.PIPE).stdout.decode()
    check("libsimdbloom" not in needed and "libhwy" not in needed,
          "the installed command needs neither libsimdbloom.so nor libhwy")
    # Its manual page comes with it (component cli), byte for byte the source's.
    page = os.path.join(prefix, "share", "man", "man1", "simdbloom.1")
    src = os.path.join(HERE, "..", "..", "lib", "cli", "simdbloom.1")
    check(os.path.isfile(page) and open(page, "rb").read() == open(src, "rb").read(),
          "share/man/man1/simdbloom.1 installed by component cli")
    # A full install (all components) includes it too.
    full = w("prefix_all")
    shutil.rmtree(full, ignore_errors=True)
    subprocess.run([ARGS.cmake, "--install", ARGS.build, "--prefix", full], check=True,
                   stdout=subprocess.DEVNULL)
    check(os.access(os.path.join(full, "bin", "simdbloom"), os.X_OK) and
          os.path.isfile(os.path.join(full, "share", "man", "man1", "simdbloom.1")),
          "full install has it and its manual page")
    shutil.rmtree(prefix)
    shutil.rmtree(full)


def through_pty(shell_cmd):
    """Runs shell_cmd with stdin/stdout/stderr on a pseudo-terminal (util-linux `script`);
    returns what the terminal received."""
    p = subprocess.run(["script", "-qfec", shell_cmd, "/dev/null"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def test_progress():
    exe = " ".join(ARGS.emulator + [ARGS.bin])
    # A regular file big enough to take a few hundred ms: the bar shows the total and an ETA.
    chunk = b"".join(b"https://progress.example.org/XXXXXXXX/%06d\n" % i for i in range(20000))
    with open(w("p.txt"), "wb") as f:
        for c in range(160):  # about 130 MB
            f.write(chunk.replace(b"XXXXXXXX", b"%08x" % c))
    # A slow pipe (lines over ~1.5 s): the bar shows bytes and keys/s, redrawn <= 10 times/s.
    slow_t = ("(for i in 1 2 3 4 5 6; do seq 1 20000; sleep 0.25; done) | %s dedup %s-n 200000 "
              "> %s")
    slow = slow_t % (exe, "", w("dedup.out"))
    start = time.time()
    rc, tty = through_pty(slow)
    elapsed = time.time() - start
    check(rc == 0, "dedup under a terminal: rc %d: %r" % (rc, tty))
    draws = tty.count("keys/s")
    check(draws >= 3, "progress drawn on a terminal: %r" % tty)
    check(draws <= elapsed * 10 + 2, "%d redraws in %.1f s (at most ~10/s)" % (draws, elapsed))
    check("\r" in tty and "\x1b[K" in tty, "one line, redrawn in place")
    check(len(open(w("dedup.out")).read().split()) == 20000, "data unaffected by the bar")
    # classic at 1e-6 (k = 20 lines per key): slow enough for several redraws.
    rc, tty = through_pty("%s build -n 3.2M --layout classic --fpp 1e-6 -o %s %s"
                          % (exe, w("p.sbf"), w("p.txt")))
    check(rc == 0 and "%" in tty and "ETA" in tty and "MiB" in tty,
          "file progress: percentage, total, ETA: %r" % tty[-300:])
    # --quiet silences it on a terminal.
    rc, tty = through_pty(slow_t % (exe, "--quiet ", w("dedup.out")))
    check(rc == 0 and "keys/s" not in tty, "--quiet on a terminal: %r" % tty)
    # Not a terminal: none, unless --progress.
    slow_pipe = "(for i in 1 2 3 4 5; do seq 1 1000; sleep 0.25; done)"
    p = subprocess.run("%s | %s dedup -n 10000 > /dev/null" % (slow_pipe, exe), shell=True,
                       stderr=subprocess.PIPE)
    check(b"keys/s" not in p.stderr, "no bar when stderr is not a terminal")
    p = subprocess.run("%s | %s dedup -n 10000 --progress > /dev/null" % (slow_pipe, exe),
                       shell=True, stderr=subprocess.PIPE)
    check(b"keys/s" in p.stderr, "--progress forces the bar: %r" % p.stderr)
    os.remove(w("p.txt"))


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("test")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--data", default=os.path.join(HERE, "..", "data", "parquet"))
    ap.add_argument("--build", default="")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--lib", default="", help="libsimdbloom.so: filters of integers (key_types)")
    ap.add_argument("--emulator", default="", help="command prefix, '|'-separated")
    ARGS = ap.parse_args()
    ARGS.emulator = [a for a in ARGS.emulator.split("|") if a]
    ARGS.work = os.path.join(os.path.abspath(ARGS.work), ARGS.test)
    shutil.rmtree(ARGS.work, ignore_errors=True)
    os.makedirs(ARGS.work)
    globals()["test_" + ARGS.test]()
    shutil.rmtree(ARGS.work, ignore_errors=True)
    print("ok: cli." + ARGS.test)


if __name__ == "__main__":
    main()
