# SPDX-License-Identifier: Apache-2.0
"""The C++ library as the tests' reference: runs simdbloom_py_oracle (tests/python/oracle.cc, the
public C++ API) on keys written to files, and returns the saved bytes and the answers it gives.
Also the tests' probe of the GIL (assert_releases_gil)."""

import os
import struct
import subprocess

import numpy as np

ORACLE = os.environ.get("SIMDBLOOM_ORACLE")

# A shape's NumPy dtype (the oracle reads raw little-endian integers); "str": length-prefixed.
DTYPES = {"u64": "<u8", "u32": "<u4", "u16": "<u2"}
# The dtype of each class's bulk answers ("ask").
ANSWERS = {"filter": np.bool_, "counting": np.bool_, "scalable": np.bool_, "spatial": "<u2",
           "association": np.uint8, "multiplicity": "<u4"}


def write_keys(path, shape, keys):
    with open(path, "wb") as f:
        if shape == "str":
            for k in keys:
                b = k.encode("utf-8") if isinstance(k, str) else k
                f.write(struct.pack("<I", len(b)))
                f.write(b)
        else:
            f.write(np.asarray(keys).astype(DTYPES[shape]).tobytes())


def run(tmp_path, cls, params, ops):
    """Runs `ops` on a new C++ object of class `cls` ('filter', 'counting', ...; `params` a dict
    of the oracle's PARAMS). Each op is ("insert" | "insert1", shape, keys[, value]),
    ("remove", shape, keys), ("ask" | "count", shape, keys) or ("save",). Returns a list with,
    per "ask"/"count", the answers as a NumPy array, and per "save" the saved bytes."""
    assert ORACLE, "SIMDBLOOM_ORACLE is not set (run through ctest)"
    args, outputs = [], []
    for i, op in enumerate(ops):
        if op[0] == "save":
            out = tmp_path / ("oracle-%d.bin" % i)
            args.append("save:%s" % out)
            outputs.append(("save", out))
            continue
        what, shape, keys = op[:3]
        path = tmp_path / ("oracle-keys-%d.bin" % i)
        write_keys(path, shape, keys)
        if what in ("ask", "count"):
            out = tmp_path / ("oracle-%d.bin" % i)
            args.append("%s:%s:%s:%s" % (what, shape, path, out))
            outputs.append((what, out))
        else:
            args.append(":".join([what, shape, str(path)] + [str(v) for v in op[3:]]))
    spec = ",".join("%s=%s" % (k, v if not isinstance(v, float) else repr(v))
                    for k, v in params.items())
    subprocess.run([ORACLE, cls, spec] + args, check=True)
    results = []
    for what, out in outputs:
        raw = out.read_bytes()
        if what == "save":
            results.append(raw)
        elif what == "count":
            results.append(np.frombuffer(raw, dtype=np.uint8))
        else:
            results.append(np.frombuffer(raw, dtype=ANSWERS[cls]))
    return results


def layouts():
    """The C++ library's layout names, in id order."""
    out = subprocess.run([ORACLE, "layouts"], check=True, capture_output=True, text=True).stdout
    assert out.startswith("layouts: ")
    return out.split()[1:]


def assert_releases_gil(call):
    """Asserts that call() releases the GIL: with a huge switch interval the calling thread keeps
    the GIL unless the call releases it, while another thread gives it up at every sleep(0); so
    that thread counts during call() only if call() released it. Up to 3 tries: the OS may not
    schedule the other thread in time."""
    import sys
    import threading
    import time

    old = sys.getswitchinterval()
    done = threading.Event()
    ticks = [0]

    def spin():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0)

    sys.setswitchinterval(1000)
    thread = threading.Thread(target=spin)
    try:
        thread.start()
        time.sleep(0.05)
        counted = []
        for _ in range(3):
            before = ticks[0]
            call()
            counted.append(ticks[0] - before)
            if counted[-1] > 0:
                break
            time.sleep(0.01)
        assert counted[-1] > 0, counted
    finally:
        done.set()
        sys.setswitchinterval(old)
        thread.join()
