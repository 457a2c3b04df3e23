#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Python benchmark of the simdbloom module: one JSON object per line, like simdbloom-bench --json.

1. bulk: insert and contains of --keys NumPy uint64 keys (default 1e7) through the module, against
   the same bulk calls in C++ (simdbloom-pyref, built with -DSIMDBLOOM_PYTHON=ON) on the same keys,
   in the same run: rounds alternate C++ and Python, each the minimum of --repeats calls, and the
   ratio is Python / C++ (goal: <= 1.10). contains is timed with a result array allocated per
   call (the default) and with out= (a preallocated array, as the C++ side does). Both filters'
   bits are compared.
2. loop: one key per call (f.insert(int), f.contains(int) over a Python list of ints) on
   --loop-keys keys (default 1e5: the per-call cost does not depend on the count), ns/key against
   the bulk call's ns/key.
3. kinds: every class (Filter, CountingFilter, ScalableFilter, SpatialFilter,
   ShiftingAssociation, ShiftingMultiplicity) on --kind-keys uint64 keys (default 1e6): its bulk
   insert and its bulk query (contains, classify, query, count; into an out= array, as the C++
   side writes into its buffer) through the module, against the same calls in C++
   (simdbloom-pyref --kind) on the same keys, rounds alternating as in 1; each repeat starts from
   an empty object (not timed). The saved bytes are compared. The ratio is Python / C++ (goal:
   <= 1.10). Out of cache both sides' times vary from process to process by 10-20% on a shared
   machine (each process measures its own prefetch distances: lib/core/prefetch.h), so each row
   also gives the module's fixed cost per call (call_us: a query of a 1-key batch, whose library
   part is a few ns) and fixed_cost_ratio = (C++ time + call_us) / C++ time, what the module adds.
4. single: one key per call on int and str keys (--loop-keys of each, in a Python list), for every
   membership class (Filter, CountingFilter, ScalableFilter: `key in f`, f.add(key),
   f.contains(key), f.insert(key)) and a Python `set` of the same keys (`key in s`, s.add(key))
   in the same run, rounds alternating; ns/key is the loop's time per key (the `for` loop's own
   cost included, as for the set: an empty loop's ns/key is its own row). Needs no simdbloom-pyref.
5. dask: simdbloom.dask.build over --dask-keys keys (default 1e8) on a distributed.LocalCluster
   of --workers worker processes (default 2), the keys generated and held on the workers in
   --partitions partitions before timing; against Filter.create + insert of the same keys in
   this process. The bytes are compared. --dask-keys 0 skips it.

The setup line names the CPU (/proc/cpuinfo's model name) and the SIMD target.

usage: PYTHONPATH=build/python /usr/bin/python3 perf/python_bench.py --pyref build/perf/simdbloom-pyref
       PYTHONPATH=build/python /usr/bin/python3 perf/python_bench.py --only single   (no pyref)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import simdbloom


def emit(**row):
    print(json.dumps(row), flush=True)


def cpu_model():
    """/proc/cpuinfo's model name (None where there is none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def best_of(fn, repeats, setup=None):
    best = float("inf")
    for _ in range(repeats):
        if setup is not None:
            setup()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def keys_and_probes(n, seed, tmp, names):
    """n random uint64 keys and n probes (half inserted keys, half random: absent but for false
    positives; shuffled), written to tmp as names[0] and names[1] for the C++ side; returns the
    keys, the probes and the paths of names (the third: where the C++ side saves its object)."""
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    probes = np.concatenate([keys[: n // 2], rng.integers(0, 2**64 - 1, n - n // 2,
                                                          dtype=np.uint64, endpoint=True)])
    rng.shuffle(probes)
    kp, pp, fo = (os.path.join(tmp, x) for x in names)
    keys.tofile(kp)
    probes.tofile(pp)
    return keys, probes, kp, pp, fo


def bench_bulk(args, tmp):
    n = int(args.keys)
    keys, probes, kp, pp, fo = keys_and_probes(n, 2026, tmp, ("keys.bin", "probes.bin", "cpp.sbf"))

    f = simdbloom.Filter.create(n, args.fpp)
    out = np.empty(n, dtype=np.bool_)
    best = {"cpp_insert": float("inf"), "cpp_contains": float("inf"), "py_insert": float("inf"),
            "py_contains": float("inf"), "py_contains_out": float("inf")}
    for _ in range(args.rounds):
        res = subprocess.run([args.pyref, kp, pp, str(n), repr(args.fpp), str(args.repeats), fo],
                             check=True, capture_output=True, text=True).stdout
        for line in res.splitlines():
            row = json.loads(line)
            key = "cpp_" + ("contains" if row["op"] == "query" else row["op"])
            best[key] = min(best[key], row["seconds"])
        best["py_insert"] = min(best["py_insert"],
                                best_of(lambda: f.insert(keys), args.repeats, setup=f.clear))
        best["py_contains"] = min(best["py_contains"], best_of(lambda: f.contains(probes),
                                                               args.repeats))
        best["py_contains_out"] = min(best["py_contains_out"],
                                      best_of(lambda: f.contains(probes, out=out), args.repeats))
    with open(fo, "rb") as fh:
        same_bits = fh.read()[64:] == f.to_bytes()[64:]
    hits = int(f.contains(probes).sum())
    for what, py, cpp in [("insert", "py_insert", "cpp_insert"),
                          ("contains (new result array)", "py_contains", "cpp_contains"),
                          ("contains (out=)", "py_contains_out", "cpp_contains")]:
        emit(bench="python", what="bulk " + what + " u64 block512", keys=n,
             ns_per_key=round(best[py] / n * 1e9, 4), reference="C++ simdbloom-pyref",
             reference_ns=round(best[cpp] / n * 1e9, 4), ratio=round(best[py] / best[cpp], 4),
             rounds=args.rounds, repeats=args.repeats, same_bits=same_bits,
             target=simdbloom.active_target())
    return best, hits, n


def bench_loop(args, bulk_best, n_bulk):
    m = int(args.loop_keys)
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 2**63, m, dtype=np.uint64).tolist()  # Python ints: 8-byte keys
    f = simdbloom.Filter.create(int(args.keys), args.fpp)  # the bulk benchmark's filter size
    ins = f.insert
    con = f.contains

    def insert_loop():
        for k in keys:
            ins(k)

    def contains_loop():
        for k in keys:
            con(k)

    def in_loop():
        for k in keys:
            k in f

    t_ins = best_of(insert_loop, args.repeats, setup=f.clear)
    t_con = best_of(contains_loop, args.repeats)
    t_in = best_of(in_loop, args.repeats)
    for what, t, ref in [("insert", t_ins, bulk_best["py_insert"]),
                         ("contains", t_con, bulk_best["py_contains"]),
                         ("`key in f`", t_in, bulk_best["py_contains"])]:
        emit(bench="python", what="one key per call: " + what + " (Python loop)", keys=m,
             ns_per_key=round(t / m * 1e9, 4), reference="bulk call (Python)",
             reference_ns=round(ref / n_bulk * 1e9, 4),
             ratio=round((t / m) / (ref / n_bulk), 4), repeats=args.repeats)


def bench_single(args):
    """Single-key calls beside a Python set, int and str keys, the minimum of --rounds rounds of
    --repeats loops each (rounds alternate the calls, so load hits them alike)."""
    m = int(args.loop_keys)
    rng = np.random.default_rng(11)
    ints = rng.integers(0, 2**62, m, dtype=np.int64).tolist()  # Python ints
    strs = ["user-%d" % k for k in ints]  # str keys (their UTF-8 cached after the first use)
    classes = {
        "Filter": lambda: simdbloom.Filter(m, args.fpp),
        "CountingFilter": lambda: simdbloom.CountingFilter(m, args.fpp),
        "ScalableFilter": lambda: simdbloom.ScalableFilter(m, args.fpp),
    }

    def loops(obj, keys):
        add, contains, insert = obj.add, obj.contains, getattr(obj, "insert", obj.add)

        def in_loop():
            for k in keys:
                k in obj

        def add_loop():
            for k in keys:
                add(k)

        def contains_loop():
            for k in keys:
                contains(k)

        def insert_loop():
            for k in keys:
                insert(k)

        return {"`key in f`": in_loop, "f.add(key)": add_loop, "f.contains(key)": contains_loop,
                "f.insert(key)": insert_loop}

    for key_name, keys in (("int", ints), ("str", strs)):
        cases = []  # (class, call, fn, setup)

        def empty_loop(keys=keys):
            for k in keys:
                pass

        cases.append(("loop", "`for k in keys: pass`", empty_loop, None))
        s = set()
        s_add = s.add

        def set_in(keys=keys, s=s):
            for k in keys:
                k in s

        def set_add(keys=keys, s_add=s_add):
            for k in keys:
                s_add(k)

        cases.append(("set", "s.add(key)", set_add, s.clear))
        cases.append(("set", "`key in s`", set_in, lambda s=s, keys=keys: s.update(keys)))
        for cname, make in classes.items():
            obj = make()
            for call, fn in loops(obj, keys).items():
                cases.append((cname, call, fn, None))
        best = {}
        for _ in range(args.rounds):
            for cname, call, fn, setup in cases:
                if setup is not None:
                    setup()
                t = best_of(fn, args.repeats)
                best[(cname, call)] = min(best.get((cname, call), float("inf")), t)
        set_in_ns = best[("set", "`key in s`")] / m * 1e9
        for (cname, call), t in best.items():
            emit(bench="python", what="single key: " + call, kind=cname, key=key_name, keys=m,
                 ns_per_key=round(t / m * 1e9, 2), set_in_ns=round(set_in_ns, 2),
                 ratio_to_set_in=round(t / m * 1e9 / set_in_ns, 3), rounds=args.rounds,
                 repeats=args.repeats)


# Each class as the kinds benchmark runs it: (make an empty object of n keys at fpp, insert the
# keys, query into out, the answers' dtype, empty it for the next repeat or None: a new object).
KINDS = {
    "filter": (lambda n, fpp: simdbloom.Filter(n, fpp), lambda f, k: f.insert(k),
               lambda f, p, out: f.contains(p, out=out), np.bool_, lambda f: f.clear()),
    "counting": (lambda n, fpp: simdbloom.CountingFilter(n, fpp), lambda f, k: f.insert(k),
                 lambda f, p, out: f.contains(p, out=out), np.bool_, None),
    "scalable": (lambda n, fpp: simdbloom.ScalableFilter(fpp=fpp), lambda f, k: f.insert(k),
                 lambda f, p, out: f.contains(p, out=out), np.bool_, None),
    "spatial": (lambda n, fpp: simdbloom.SpatialFilter(n, fpp, 2), lambda f, k: f.insert(k, 1),
                lambda f, p, out: f.classify(p, out=out), np.uint16, None),
    "association": (lambda n, fpp: simdbloom.ShiftingAssociation(n, fpp),
                    lambda f, k: f.insert(k, 1), lambda f, p, out: f.query(p, out=out),
                    np.uint8, None),
    "multiplicity": (lambda n, fpp: simdbloom.ShiftingMultiplicity(n, fpp, 4),
                     lambda f, k: f.insert(k, 1), lambda f, p, out: f.count(p, out=out),
                     np.uint32, None),
}


def bench_kinds(args, tmp):
    n = int(args.kind_keys)
    keys, probes, kp, pp, fo = keys_and_probes(n, 2027, tmp,
                                               ("kkeys.bin", "kprobes.bin", "kcpp.bin"))
    for kind in args.kinds.split(","):
        make, insert, query, dtype, empty = KINDS[kind]
        out = np.empty(n, dtype=dtype)
        best = {"cpp_insert": float("inf"), "cpp_query": float("inf"),
                "py_insert": float("inf"), "py_query": float("inf")}
        f = None
        for _ in range(args.rounds):
            res = subprocess.run([args.pyref, "--kind", kind, kp, pp, str(n), repr(args.fpp),
                                  str(args.repeats), fo],
                                 check=True, capture_output=True, text=True).stdout
            for line in res.splitlines():
                row = json.loads(line)
                best["cpp_" + row["op"]] = min(best["cpp_" + row["op"]], row["seconds"])
            for _ in range(args.repeats):
                if f is not None and empty is not None:
                    empty(f)
                else:
                    f = None
                    f = make(n, args.fpp)
                t = time.perf_counter()
                insert(f, keys)
                best["py_insert"] = min(best["py_insert"], time.perf_counter() - t)
                t = time.perf_counter()
                query(f, probes, out)
                best["py_query"] = min(best["py_query"], time.perf_counter() - t)
        # The module's fixed cost per bulk call, what it adds to the library's work: a query of
        # a 1-key batch (the library's part is a few ns), the minimum over 2000 calls.
        one, one_out = probes[:1].copy(), out[:1].copy()
        fixed = float("inf")
        for _ in range(2000):
            t = time.perf_counter()
            query(f, one, one_out)
            fixed = min(fixed, time.perf_counter() - t)
        with open(fo, "rb") as fh:
            cpp = fh.read()
        # Filter's header counts every repeat's inserts: compare its bits.
        same = cpp[64:] == f.to_bytes()[64:] if kind == "filter" else cpp == f.to_bytes()
        for op, py, ref in [("insert", "py_insert", "cpp_insert"),
                            ("query", "py_query", "cpp_query")]:
            emit(bench="python", what="kinds: %s %s u64 (out=)" % (type(f).__name__, op),
                 keys=n, ns_per_key=round(best[py] / n * 1e9, 4),
                 reference="C++ simdbloom-pyref --kind " + kind,
                 reference_ns=round(best[ref] / n * 1e9, 4), ratio=round(best[py] / best[ref], 4),
                 call_us=round(fixed * 1e6, 3),
                 fixed_cost_ratio=round((best[ref] + fixed) / best[ref], 6),
                 rounds=args.rounds, repeats=args.repeats, same_bytes=same,
                 target=simdbloom.active_target())


def _gen_block(seed, size):
    return np.random.default_rng(seed).integers(0, 2**64 - 1, size, dtype=np.uint64,
                                                endpoint=True)


def bench_dask(args):
    import dask
    import dask.array as da
    import distributed

    import simdbloom.dask as sdask

    n = int(args.dask_keys)
    parts = args.partitions
    sizes = [n // parts + (1 if i < n % parts else 0) for i in range(parts)]
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        # The keys are made on the workers (as if read there) and kept in their memory.
        blocks = [da.from_delayed(dask.delayed(_gen_block)(1000 + i, s), (s,), np.uint64)
                  for i, s in enumerate(sizes)]
        darr = da.concatenate(blocks).persist()
        distributed.wait(darr)
        t_dask = []
        built = None
        for _ in range(args.rounds):
            t = time.perf_counter()
            built = sdask.build(darr, n, args.fpp)
            t_dask.append(time.perf_counter() - t)
        del darr
    keys = np.concatenate([_gen_block(1000 + i, s) for i, s in enumerate(sizes)])
    t_single = []
    single = None
    for _ in range(args.rounds):
        single = None
        t = time.perf_counter()
        single = simdbloom.Filter.create(n, args.fpp)
        single.insert(keys)
        t_single.append(time.perf_counter() - t)
    same = built.to_bytes() == single.to_bytes()
    emit(bench="python", what="dask build (%d worker processes, %d partitions, tree merge)"
         % (args.workers, parts), keys=n, seconds=round(min(t_dask), 4),
         ns_per_key=round(min(t_dask) / n * 1e9, 4), reference="single process create+insert",
         reference_ns=round(min(t_single) / n * 1e9, 4),
         ratio=round(min(t_dask) / min(t_single), 4), rounds=args.rounds,
         filter_bytes=single.size_bytes, byte_identical=same)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pyref", default=os.path.join("build", "perf", "simdbloom-pyref"))
    p.add_argument("--keys", type=float, default=1e7)
    p.add_argument("--fpp", type=float, default=0.01)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--loop-keys", type=float, default=1e5)
    p.add_argument("--dask-keys", type=float, default=1e8)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--partitions", type=int, default=4)
    p.add_argument("--kind-keys", type=float, default=1e6)
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--only", choices=["bulk", "loop", "kinds", "single", "dask"])
    args = p.parse_args()
    if args.only in (None, "bulk", "loop", "kinds") and not os.path.exists(args.pyref):
        sys.exit("no %s: configure with -DSIMDBLOOM_PYTHON=ON and build simdbloom-pyref"
                 % args.pyref)
    emit(bench="python", what="setup", python=sys.version.split()[0], numpy=np.__version__,
         simdbloom=simdbloom.__version__, target=simdbloom.active_target(),
         cpus=os.cpu_count(), cpu=cpu_model())
    if args.only in (None, "single"):
        bench_single(args)
    with tempfile.TemporaryDirectory() as tmp:
        # The kinds first: their 1e6-key objects are allocated anew each repeat, and after the
        # 1e7-key filters of `bulk` are freed, fresh allocations of this process fault their
        # pages in at a cost that varies (seen: +20-30% on a shared 2-core VM), the C++ side's not.
        if args.only in (None, "kinds"):
            bench_kinds(args, tmp)
        if args.only in (None, "bulk", "loop"):
            best, _, n = bench_bulk(args, tmp)
            if args.only in (None, "loop"):
                bench_loop(args, best, n)
    if args.only in (None, "dask") and args.dask_keys > 0:
        bench_dask(args)


if __name__ == "__main__":
    main()
