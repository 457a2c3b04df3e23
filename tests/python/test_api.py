# SPDX-License-Identifier: Apache-2.0
"""The Python module against the C++ library: same keys give the same filter bytes and answers
(through simdbloom_py_oracle, a C++ program using the public C++ API), every key type and batch
form, bad input, pickling, files, set operations, threads."""

import copy
import os
import pickle
import subprocess
import threading

import numpy as np
import pytest

import simdbloom

import cpp_oracle

LAYOUTS = simdbloom.layouts()  # every layout of the library


def rng(seed=12345):
    return np.random.default_rng(seed)


def random_strings(r, count):
    """UTF-8 keys of length 0..40, some non-ASCII."""
    alphabet = list("abcxyz0189-_/.") + ["é", "ß", "中", "😀"]
    out = []
    for _ in range(count):
        n = int(r.integers(0, 41))
        out.append("".join(alphabet[int(i)] for i in r.integers(0, len(alphabet), n)))
    return out


def oracle(tmp_path, layout, n, fpp, seed, kind, keys, probes):
    """Filter bytes and probe answers of the C++ library for the same keys."""
    shape = "u64" if kind == "u64-single" else kind
    op = "insert1" if kind == "u64-single" else "insert"
    saved, hits = cpp_oracle.run(tmp_path, "filter",
                                 dict(layout=layout.name, n=n, fpp=fpp, seed=seed),
                                 [(op, shape, keys), ("save",), ("ask", shape, probes)])
    return saved, hits


# ---- Same bytes as C++ ----

@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: l.name)
@pytest.mark.parametrize("kind", ["u64", "u32", "u16", "str", "u64-single"])
def test_same_bytes_as_cpp(tmp_path, layout, kind):
    r = rng()
    count = 4999  # not a multiple of any tile or vector width
    if kind == "str":
        keys = random_strings(r, count)
        probes = keys[:500] + random_strings(rng(7), 1500)
        batch, probe_batch = keys, probes
    else:
        dtype = {"u64": np.uint64, "u64-single": np.uint64, "u32": np.uint32,
                 "u16": np.uint16}[kind]
        info = np.iinfo(dtype)
        keys = r.integers(0, int(info.max), count, dtype=dtype, endpoint=True)
        probes = np.concatenate([keys[:500], r.integers(0, int(info.max), 1500, dtype=dtype)])
        batch, probe_batch = keys, probes
    n, fpp, seed = 3000, 0.02, 99
    expect_bytes, expect_hits = oracle(tmp_path, layout, n, fpp, seed, kind, keys, probes)

    f = simdbloom.Filter.create(n, fpp, layout=layout, seed=seed)
    if kind == "u64-single":
        for k in keys.tolist():  # Python ints: 8-byte keys, one call each
            f.insert(k)
    else:
        f.insert(batch)
    assert f.to_bytes() == expect_bytes
    hits = f.contains(probe_batch)
    assert hits.dtype == np.bool_ and hits.shape == (len(probes),)
    assert np.array_equal(hits, expect_hits)
    assert hits[:500].all()  # inserted keys are never missed
    # The single-key path agrees with the bulk answers.
    single = [f.contains(k) for k in (probes if kind == "str" else probes.tolist()[:200])]
    if kind in ("u32", "u16"):  # Python ints are 8-byte keys: use scalars of the array's dtype
        single = [f.contains(k) for k in probes[:200]]
    assert single == list(expect_hits[:len(single)])


def test_every_target_same_bytes():
    keys = rng(3).integers(0, 2**64 - 1, 10007, dtype=np.uint64, endpoint=True)
    results = {}
    try:
        for t in simdbloom.available_targets():
            simdbloom.set_target(t)
            assert simdbloom.active_target().lower() == t.lower()
            f = simdbloom.Filter.create(8000, 0.01)
            f.insert(keys[:8000])
            results[t] = (f.to_bytes(), f.contains(keys).tobytes())
    finally:
        simdbloom.reset_target()
    assert len(results) >= 2  # at least one SIMD target and the reference
    assert len(set(results.values())) == 1
    with pytest.raises(simdbloom.Error) as e:
        simdbloom.set_target("no-such-target")
    assert e.value.code == "unknown_target"


# ---- The Pythonic API: a constructor, add/update, set operators, files ----

def test_constructor_as_rbloom():
    f = simdbloom.Filter(1000, 0.01)  # rbloom's Bloom(expected_items, false_positive_rate)
    assert f == simdbloom.Filter.create(1000, 0.01)
    assert f.to_bytes() == simdbloom.Filter.create(1000, 0.01).to_bytes()
    g = simdbloom.Filter(n=5000, fpp=0.001, layout=simdbloom.Layout.classic, seed=7)
    assert (g.layout, g.seed) == (simdbloom.Layout.classic, 7)
    assert g.to_bytes() == simdbloom.Filter.create(5000, 0.001, "classic", 7).to_bytes()
    assert g.key_type is None and len(g) == 0  # nothing declared or inserted yet
    with pytest.raises(simdbloom.Error, match=r"^Filter: n = 0 is outside 1\.\."):
        simdbloom.Filter(0, 0.01)
    with pytest.raises(TypeError):
        simdbloom.Filter()


def keys_of_every_kind(r):
    """Two lists, each of one kind a filter holds, with repeats: Python ints and NumPy scalars of
    each width (integers: their values); str and bytes (byte strings)."""
    ints = [int(x) for x in r.integers(-2**63, 2**63, 3000)] + [2**64 - 1, 0]
    words = random_strings(r, 2000)
    return (ints + ints[:50] + [np.uint32(x) for x in r.integers(0, 2**32, 300)] +
            [np.int16(x) for x in r.integers(-2**15, 2**15, 300)],
            words + [w.encode() for w in words[:500]])


def test_update_takes_any_iterable():
    """update() of a generator, set, dict, range, iterator, list, NumPy array, pandas Series:
    the keys of the plain bulk calls (same bytes), every key found, integer types mixed (a key
    is its value), byte-string types mixed."""
    r = rng(50)
    for keys, key_type in zip(keys_of_every_kind(r), ["int64", "bytes"]):
        expect = simdbloom.Filter(10_000, 0.01)
        for k in keys:
            expect.insert(k)
        for form in [(k for k in keys), iter(keys), dict.fromkeys(keys), keys]:
            f = simdbloom.Filter(10_000, 0.01)
            assert f.update(form) is None
            assert f == expect, type(form)
            assert all(k in f for k in keys)  # no false negative, whatever the spelling
        f = simdbloom.Filter(10_000, 0.01)
        f.update(set(keys))  # a set drops repeats: the same bits
        assert f == expect and f.key_type == key_type
    ints = r.integers(0, 2**63, 100_000, dtype=np.int64)
    by_array = simdbloom.Filter(200_000, 0.01)
    by_array.insert(ints)
    for form in [ints, (int(x) for x in ints), range(0)]:
        f = simdbloom.Filter(200_000, 0.01)
        f.update(form)
        if len(ints) and not isinstance(form, range):
            assert f.to_bytes() == by_array.to_bytes()  # 8-byte keys either way
    f = simdbloom.Filter(200_000, 0.01)
    f.update(range(100_000))  # Python ints: 8-byte keys
    g = simdbloom.Filter(200_000, 0.01)
    g.insert(np.arange(100_000, dtype=np.int64))
    assert f.to_bytes() == g.to_bytes()
    assert f.contains(np.arange(100_000, dtype=np.int64)).all()
    # NumPy scalars of an iterable are their values: the keys of any integer array of them.
    f = simdbloom.Filter(1000, 0.01)
    f.update(x for x in np.arange(10, dtype=np.uint32))
    g = simdbloom.Filter(1000, 0.01)
    g.insert(np.arange(10, dtype=np.uint32))
    assert f.to_bytes() == g.to_bytes() and f.key_type == "int64"
    with pytest.raises(TypeError, match="byte.*int64"):  # a filter holds one kind
        f.update(bytearray(b"x%d" % i) for i in range(3))
    f = simdbloom.Filter(1000, 0.01)
    f.update(bytearray(b"x%d" % i) for i in range(3))  # copied (they could change)
    assert b"x2" in f
    for bad, exc, pattern in [("abc", TypeError, "str is one key: use add"),
                              (b"abc", TypeError, "bytes is one key"),
                              (5, TypeError, "int is one key"),
                              (object(), TypeError, "iterable of keys"),
                              ([1, object()], TypeError, "item 1: a object is not a key"),
                              ((x for x in [1, 2.5]), TypeError, "item 1: float is not a key"),
                              ((x for x in [1, 2**65]), ValueError, "item 1: .*64-bit range")]:
        with pytest.raises(exc, match=pattern):
            f.update(bad)


def test_update_pandas():
    pd = pytest.importorskip("pandas")
    keys = np.arange(1000, dtype=np.int32)
    f = simdbloom.Filter(1000, 0.01)
    f.update(pd.Series(keys))
    g = simdbloom.Filter(1000, 0.01)
    g.insert(keys)
    assert f == g and f.key_type == "int64"
    f = simdbloom.Filter(1000, 0.01)
    f.update(pd.array([1, None, 3], dtype="Int32"))  # nulls skipped, the values' keys
    g = simdbloom.Filter(1000, 0.01)
    g.insert(np.array([1, 3], dtype=np.int32))
    assert f.to_bytes() == g.to_bytes()


GENERATOR_MEMORY = r"""
import resource, sys
import numpy as np
import simdbloom
n = int(sys.argv[1])
f = simdbloom.Filter(n, 0.01)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
f.update(i * 7919 for i in range(n))
grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
probe = np.arange(0, n * 7919, 7919, dtype=np.int64)
assert f.contains(probe).all()
print(grew)
"""


def test_update_of_a_generator_holds_one_chunk():
    """A generator of 5e6 keys: the process grows by at most a few MiB (one chunk of 65536 keys),
    where a list of them would take ~200 MB and their uint64 copy 40 MB. In a subprocess: its
    peak resident size is this call's."""
    import sys

    run = subprocess.run([sys.executable, "-c", GENERATOR_MEMORY, "5000000"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    grew_kib = int(run.stdout)
    assert grew_kib < 16 * 1024, grew_kib


def test_set_operators_and_comparisons():
    r = rng(51)
    a_keys = r.integers(0, 2**63, 5000, dtype=np.uint64)
    b_keys = r.integers(0, 2**63, 5000, dtype=np.uint64)
    a = simdbloom.Filter(20_000, 0.01)
    b = simdbloom.Filter(20_000, 0.01)
    a.insert(a_keys)
    b.insert(b_keys)
    u = a | b
    assert a <= u and b <= u and u >= a and a.issubset(u) and u.issuperset(b)
    assert a < u and u > b and not (u <= a) and not (a < a) and a <= a
    assert not a.issubset(b) and (a & b) <= a and (a & b) <= b
    # f == g: same parameters and bits (copies are equal; insert changes that).
    c = a.copy()
    assert c == a and not (c != a) and c is not a
    c.add(2**64 - 1)
    assert c != a and a <= c
    assert (a == "not a filter") is False and (a != 3) is True
    with pytest.raises(TypeError):
        hash(a)  # mutable
    # In place: the same object back.
    x = a.copy()
    same = x
    x |= b
    assert x is same and x == u
    x &= a
    assert x is same and x == (u & a)
    inc = simdbloom.Filter(100, 0.01)
    for op in [lambda: a <= inc, lambda: a.issuperset(inc), lambda: a.__ior__(inc),
               lambda: a | inc, lambda: a & inc]:
        with pytest.raises(simdbloom.Error) as e:
            op()
        assert e.value.code == "incompatible"
    with pytest.raises(TypeError):
        a | 5
    # len(): the estimate, round(approximate_count()).
    assert len(u) == round(u.approximate_count())
    assert abs(len(u) - 10_000) < 300


def test_clear_copy_repr():
    f = simdbloom.Filter(1000, 0.01, layout="register64", seed=3)
    f.update(range(500))
    text = repr(f)
    assert text.startswith("simdbloom.Filter(") and "layout=register64" in text
    assert "bits=%d" % f.bit_count in text and "num_hashes=%d" % f.num_hashes in text
    assert "seed=3" in text and "inserted_count=500" in text
    assert "fill=%.4g" % f.fill_ratio() in text
    g = f.copy()
    f.clear()
    assert len(f) == 0 and f.fill_ratio() == 0 and f.key_type == "int64"  # kept by clear
    assert 5 in g and g != f


class Chunky:
    """A binary file object that takes at most 1000 bytes per write() and gives at most 777 per
    read(), as raw files and sockets may."""

    def __init__(self, data=b""):
        self.data = bytearray(data)
        self.pos = 0
        self.writes = 0

    def write(self, b):
        b = bytes(b)[:1000]
        self.data += b
        self.writes += 1
        return len(b)

    def read(self, n=-1):
        n = 777 if n < 0 else min(n, 777)
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += len(out)
        return out


def test_save_load_file_objects(tmp_path):
    import io

    f = simdbloom.Filter(50_000, 0.01)
    f.update(range(40_000))
    data = f.to_bytes()
    buf = io.BytesIO()
    f.save(buf)
    assert buf.getvalue() == data
    buf.seek(0)
    g = simdbloom.Filter.load(buf)
    assert g == f and g.to_bytes() == data and g.key_type == "int64"  # saved with the filter
    with open(tmp_path / "f.sbf", "wb") as out:
        out.write(b"prefix")
        f.save(out)  # at the file's position
    with open(tmp_path / "f.sbf", "rb") as inp:
        assert inp.read(6) == b"prefix"
        assert simdbloom.Filter.load(inp) == f
    with open(tmp_path / "raw.sbf", "wb", buffering=0) as raw:  # raw: write() may be short
        f.save(raw)
    with open(tmp_path / "raw.sbf", "rb", buffering=0) as raw:
        assert simdbloom.Filter.load(raw).to_bytes() == data
    chunky = Chunky()
    f.save(chunky)
    assert bytes(chunky.data) == data and chunky.writes >= len(data) // 1000
    assert simdbloom.Filter.load(Chunky(data)).to_bytes() == data
    # Errors: the file object's own exception, the filter unchanged; bad bytes are format errors.
    class Broken:
        def write(self, b):
            raise OSError(28, "No space left on device")

        def read(self, n):
            raise OSError(5, "Input/output error")

    with pytest.raises(OSError, match="No space left"):
        f.save(Broken())
    with pytest.raises(OSError, match="Input/output"):
        simdbloom.Filter.load(Broken())
    assert f.to_bytes() == data
    with pytest.raises(simdbloom.Error) as e:
        simdbloom.Filter.load(io.BytesIO(data[:-1]))
    assert e.value.code == "format"
    with pytest.raises(simdbloom.Error, match="trailing"):
        simdbloom.Filter.load(io.BytesIO(data + b"x"))
    with pytest.raises(TypeError):
        with open(tmp_path / "t.txt", "w") as text:
            f.save(text)  # a text file takes str
    with open(tmp_path / "t.txt", "w") as text:
        text.write("x" * 100)
    with pytest.raises(TypeError):
        with open(tmp_path / "t.txt") as text:
            simdbloom.Filter.load(text)
    # Paths: str, bytes, pathlib.
    f.save(str(tmp_path / "p.sbf"))
    assert simdbloom.Filter.load(os.fsencode(tmp_path / "p.sbf")) == f
    assert simdbloom.Filter.load(tmp_path / "p.sbf") == f


def test_load_refuses_a_strided_read_buffer():
    # read() returning a strided buffer (a reversed memoryview: its pointer is at its last byte)
    # is refused, never copied from past its end.
    f = simdbloom.Filter(1000, 0.01)
    f.update(range(500))
    data = f.to_bytes()

    class Reversed:
        pos = 0

        def read(self, n):
            out = data[self.pos:self.pos + n]
            self.pos += len(out)
            return memoryview(out)[::-1]

    with pytest.raises(ValueError, match="not contiguous"):
        simdbloom.Filter.load(Reversed())


def test_paths_with_a_nul_are_refused(tmp_path):
    # As open(): a NUL would cut the path short in C and name another file (f.sbf here).
    f = simdbloom.Filter(1000, 0.01)
    f.save(tmp_path / "f.sbf")
    bad = str(tmp_path / "f.sbf") + "\0.tmp"
    for cls in (simdbloom.Filter, simdbloom.CountingFilter, simdbloom.ScalableFilter,
                simdbloom.SpatialFilter, simdbloom.ShiftingAssociation,
                simdbloom.ShiftingMultiplicity):
        with pytest.raises(ValueError, match="null byte"):
            cls.load(bad)
        with pytest.raises(ValueError, match="null byte"):
            cls.load(os.fsencode(bad))
    for cls in (simdbloom.Filter, simdbloom.CountingFilter):
        with pytest.raises(ValueError, match="null byte"):
            cls.map(bad)
    g = simdbloom.Filter(10, 0.01)
    with pytest.raises(ValueError, match="null byte"):
        g.save(str(tmp_path / "g") + "\0x")
    assert sorted(os.listdir(tmp_path)) == ["f.sbf"]


def test_paths_that_are_not_utf8(tmp_path):
    # A name of bytes that are not UTF-8 comes from os.listdir(str) as a str with surrogate
    # escapes: every path call takes it, as open() does, and names the same file as its bytes.
    f = simdbloom.Filter(1000, 0.01)
    f.update(range(100))
    name = str(tmp_path) + "/\udcff.sbf"
    f.save(name)
    assert os.listdir(tmp_path) == ["\udcff.sbf"]
    assert simdbloom.Filter.load(name) == f
    assert simdbloom.Filter.load(os.fsencode(name)) == f
    assert simdbloom.Filter.map(name) == f
    # An error naming such a path is still simdbloom.Error, the name as os.fsdecode gives it.
    missing = str(tmp_path) + "/\udcfe.sbf"
    for call in (simdbloom.Filter.load, simdbloom.Filter.map, simdbloom.CountingFilter.load,
                 simdbloom.SpatialFilter.load):
        with pytest.raises(simdbloom.Error) as e:
            call(missing)
        assert e.value.code == "io" and missing in str(e.value)


# ---- Key types ----

def test_int_widths_and_signs():
    """A key is its value: 7 is one key as a Python int, a NumPy scalar or an array element of
    any integer dtype (it used to hash at its width: a 4-byte 7 was another key)."""
    f = simdbloom.Filter.create(1000, 0.001)
    f.insert(7)
    assert f.key_type == "int64"  # integers are 8-byte values unless declared 'int32'
    assert 7 in f and f.contains(np.uint64(7)) and f.contains(np.int64(7))
    for dt in [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]:
        assert dt(7) in f and f.contains(np.array([7], dtype=dt))[0], dt
        assert f.hash(dt(7)) == f.hash(7), dt
    f.insert(np.uint32(9))
    assert 9 in f and f.contains(np.array([9], dtype=np.int16))[0]
    # Within 64 bits, -1 and 2**64 - 1 are one key (one two's-complement pattern); a 2-byte -1
    # is the value -1 too, not 65535.
    f.insert(-1)
    assert (2**64 - 1) in f and np.int16(-1) in f
    assert f.contains(np.array([-1], dtype=np.int8))[0]
    assert f.hash(np.int32(-1)) == f.hash(-1) != f.hash(np.uint32(2**32 - 1))
    assert f.hash(np.int16(-2)) == f.hash(-2) != f.hash(np.uint16(2**16 - 2))
    # A list of ints is their values, as any integer array of them.
    g = simdbloom.Filter.create(1000, 0.001)
    g.insert([1, 2, -3, -1])
    h = simdbloom.Filter.create(1000, 0.001)
    h.insert(np.array([1, 2, 2**64 - 3, 2**64 - 1], dtype=np.uint64))
    assert g.to_bytes() == h.to_bytes()
    with pytest.raises(ValueError, match="64-bit range"):
        f.insert(2**64)
    assert -(2**63) - 1 not in f  # beyond 64 bits: no filter holds it
    with pytest.raises(ValueError, match="no 64-bit integer type"):
        f.contains([-1, 2**63])  # a batch mixing them has no array type


def test_string_forms_agree():
    words = ["", "a", "héllo", "中文", "x" * 100, "tab\tsep", "😀"]
    forms = {
        "list_str": words,
        "tuple_str": tuple(words),
        "list_bytes": [w.encode() for w in words],
        "U_array": np.array(words),
        "object_array": np.array(words, dtype=object),
    }
    blobs = {}
    for name, batch in forms.items():
        f = simdbloom.Filter.create(100, 0.01)
        assert f.insert(batch) >= 1
        blobs[name] = f.to_bytes()
    one = simdbloom.Filter.create(100, 0.01)
    for w in words:
        one.insert(w)
    blobs["single_str"] = one.to_bytes()
    by_bytes = simdbloom.Filter.create(100, 0.01)
    for w in words:
        by_bytes.insert(w.encode())
    blobs["single_bytes"] = by_bytes.to_bytes()
    assert len(set(blobs.values())) == 1, {k: hash(v) for k, v in blobs.items()}
    for w in words:
        assert w in one and w.encode() in one and bytearray(w.encode()) in one


def test_fixed_width_bytes_array_drops_trailing_nuls():
    arr = np.array([b"ab", b"abcd", b""], dtype="S4")
    f = simdbloom.Filter.create(100, 0.001)
    f.insert(arr)
    g = simdbloom.Filter.create(100, 0.001)
    g.insert([b"ab", b"abcd", b""])  # what NumPy gives back for the elements
    assert f.to_bytes() == g.to_bytes()
    assert b"ab" in f and b"ab\0\0" not in f


def test_pandas_series():
    pd = pytest.importorskip("pandas")  # python.api needs only pytest and NumPy
    s = pd.Series(np.arange(1000, dtype=np.int64))
    f = simdbloom.Filter.create(1000, 0.01)
    f.insert(s)
    g = simdbloom.Filter.create(1000, 0.01)
    g.insert(np.arange(1000, dtype=np.int64))
    assert f.to_bytes() == g.to_bytes()
    with pytest.raises(TypeError, match="int64"):  # strings against integer keys
        f.contains(pd.Series(["a", "b"]))


def test_prehashed_and_hashes():
    keys = rng(5).integers(0, 2**63, 5000, dtype=np.uint64)
    a = simdbloom.Filter.create(5000, 0.01, seed=3)
    b = simdbloom.Filter.create(5000, 0.01, seed=3, key_type="int64")  # hashes set no key type
    h = a.hashes(keys)
    assert h.dtype == np.uint64 and int(h[17]) == a.hash(keys[17])
    a.insert(keys)
    b.insert(h, prehashed=True)
    assert a.to_bytes() == b.to_bytes()
    probes = rng(6).integers(0, 2**63, 5000, dtype=np.uint64)
    assert np.array_equal(a.contains(probes), b.contains(a.hashes(probes), prehashed=True))
    with pytest.raises(TypeError, match="uint64"):
        a.contains(np.zeros(3, dtype=np.uint32), prehashed=True)


# ---- Results ----

def test_select_bitmap_out_and_fresh():
    r = rng(8)
    keys = r.integers(0, 2**63, 3001, dtype=np.uint64)
    f = simdbloom.Filter.create(2000, 0.01)
    f.insert(keys[:1000])
    hits = f.contains(keys)
    sel = f.select(keys)
    assert sel.dtype == np.uint32
    assert np.array_equal(sel, np.flatnonzero(hits))
    bitmap = f.contains_bitmap(keys)
    assert bitmap.dtype == np.uint8 and len(bitmap) == (len(keys) + 7) // 8
    assert np.array_equal(np.unpackbits(bitmap, bitorder="little")[:len(keys)], hits)
    out = np.ones(len(keys), dtype=np.bool_)
    assert f.contains(keys, out=out) is out and np.array_equal(out, hits)
    out8 = np.zeros(len(keys), dtype=np.uint8)
    f.contains(keys, out=out8)
    assert np.array_equal(out8.astype(bool), hits)
    with pytest.raises(ValueError, match="one item per key"):
        f.contains(keys, out=np.zeros(5, dtype=bool))
    with pytest.raises(TypeError, match="bool or uint8"):
        f.contains(keys, out=np.zeros(len(keys), dtype=np.int32))
    ro = np.zeros(len(keys), dtype=bool)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f.contains(keys, out=ro)
    g = simdbloom.Filter.create(100, 0.01)
    fresh = g.insert_fresh(np.array([5, 6, 5, 7, 6], dtype=np.uint64))
    assert fresh.tolist() == [True, True, False, True, False]
    assert g.insert(np.array([5], dtype=np.uint64)) == 0
    assert g.insert(8) is True and g.insert(8) is False


# ---- Bad input ----

def test_bad_input():
    f = simdbloom.Filter.create(100, 0.01)
    keys = np.arange(20, dtype=np.uint64)
    with pytest.raises(ValueError, match="not contiguous.*ascontiguousarray"):
        f.insert(keys[::2])
    with pytest.raises(ValueError, match="not contiguous"):
        f.contains(keys[::-1])
    assert f.insert(np.ascontiguousarray(keys[::2])) == 10  # the documented copy works
    for bad, pattern in [
        (np.zeros(3, dtype=np.float64), "not a key type"),
        (np.zeros(3, dtype=bool), "not a key type"),
        (np.zeros((2, 2), dtype=np.uint64), "1-D"),
        (np.zeros(3, dtype=">u8"), "big-endian"),
        ([1, b"a"], "mixes"),
        ([b"a", 1], "mixes"),
        ([1.5], "not a key"),
        ([None], "not a key"),
        (None, "expected a key"),
        (1.5, "float is not a key"),
        (True, "bool is not a key"),
        ({1: 2}, "expected a key"),
    ]:
        with pytest.raises((TypeError, ValueError), match=pattern):
            f.insert(bad)
        with pytest.raises((TypeError, ValueError), match=pattern):
            f.contains(bad)
    with pytest.raises(TypeError):
        1.5 in f
    with pytest.raises(TypeError, match="layout"):
        simdbloom.Filter.create(10, 0.01, layout=3)
    with pytest.raises(ValueError, match="unknown layout 'nope'"):
        simdbloom.Filter.create(10, 0.01, layout="nope")
    with pytest.raises(simdbloom.Error, match=r"^Filter: n = 0 is outside") as e:
        simdbloom.Filter.create(0, 0.01)
    assert e.value.code == "invalid_argument" and isinstance(e.value, ValueError)
    with pytest.raises(simdbloom.Error, match="fpp"):
        simdbloom.Filter.create(10, 1.5)
    with pytest.raises(simdbloom.Error):
        simdbloom.Filter.with_bits(1024, 40)
    # Nothing was inserted by the failed calls.
    assert f.inserted_count == 10


# ---- Persistence, pickling, copies ----

def test_bytes_files_pickle(tmp_path):
    f = simdbloom.Filter.create(5000, 0.01, layout="split_block256")
    f.insert(rng(9).integers(0, 2**63, 4000, dtype=np.uint64))
    data = f.to_bytes()
    assert len(data) == 64 + f.size_bytes
    g = simdbloom.Filter.from_bytes(data)
    assert g.to_bytes() == data and g.layout == simdbloom.Layout.split_block256
    assert simdbloom.Filter.from_bytes(bytearray(data)).to_bytes() == data
    assert simdbloom.Filter.from_bytes(memoryview(data)).to_bytes() == data
    assert simdbloom.Filter.from_bytes(np.frombuffer(data, dtype=np.uint8)).to_bytes() == data
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        h = pickle.loads(pickle.dumps(f, protocol=proto))
        assert h.to_bytes() == data and h.inserted_count == 4000
    # Protocol 5 out of band (as Dask sends it): the saved form is one buffer, not in the stream.
    buffers = []
    stream = pickle.dumps(f, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(stream) < 200
    assert bytes(buffers[0].raw()) == data
    assert pickle.loads(stream, buffers=buffers).to_bytes() == data
    c = copy.deepcopy(f)
    c.insert(2**64 - 7)
    assert 2**64 - 7 not in f and c.to_bytes() != data
    path = tmp_path / "f.sbf"
    f.save(path)
    assert path.read_bytes() == data
    assert simdbloom.Filter.load(str(path)).to_bytes() == data
    corrupt = bytearray(data)
    corrupt[100] ^= 1
    with pytest.raises(simdbloom.Error) as e:
        simdbloom.Filter.from_bytes(bytes(corrupt))
    assert e.value.code == "format"
    with pytest.raises(simdbloom.Error) as e:
        simdbloom.Filter.from_bytes(data[:-1])
    assert e.value.code == "format"
    with pytest.raises(simdbloom.Error) as e:
        simdbloom.Filter.load(tmp_path / "missing.sbf")
    assert e.value.code == "io" and "missing.sbf" in str(e.value)


# ---- Set operations, statistics ----

def test_merge_intersect_len_stats():
    r = rng(10)
    a_keys = r.integers(0, 2**63, 20000, dtype=np.uint64)
    b_keys = r.integers(0, 2**63, 20000, dtype=np.uint64)
    a = simdbloom.Filter.create(40000, 0.01)
    b = simdbloom.Filter.create(40000, 0.01)
    both = simdbloom.Filter.create(40000, 0.01)
    a.insert(a_keys)
    b.insert(b_keys)
    both.insert(a_keys)
    both.insert(b_keys)
    u = a | b
    assert u.to_bytes() == both.to_bytes()
    a2 = a.copy()
    a2.merge(b)
    assert a2.to_bytes() == both.to_bytes()
    i = a & b
    assert i.contains(a_keys[:100]).sum() < 100  # mostly gone: the sets are disjoint
    x = a.copy()
    x.intersect(a)
    assert x.to_bytes()[64:] == a.to_bytes()[64:]
    x.merge(x)  # with itself: no deadlock, no change of bits
    assert x.to_bytes()[64:] == a.to_bytes()[64:]
    with pytest.raises(simdbloom.Error, match="differ") as e:
        a.merge(simdbloom.Filter.create(10, 0.01))
    assert e.value.code == "incompatible"
    assert not a.compatible(simdbloom.Filter.create(40000, 0.01, seed=1))
    assert abs(len(both) - 40000) < 0.03 * 40000
    assert abs(both.approximate_count() - 40000) < 0.03 * 40000
    s = both.stats()
    assert s["layout"] == "block512" and s["inserted_count"] == 40000
    assert s["bits"] == both.bit_count == 8 * s["size_bytes"]
    assert 0 < s["fill_ratio"] < 1 and 0 < s["expected_fpp"] < 0.02
    assert s["num_hashes"] == both.num_hashes and s["target"] == simdbloom.active_target()
    info = simdbloom.size_for(40000, 0.01)
    assert info["bits"] == both.bit_count and info["num_hashes"] == both.num_hashes
    both.clear()
    assert both.fill_ratio() == 0 and len(both) == 0
    assert "block512" in repr(both)
    assert simdbloom.__version__.count(".") == 2


# ---- Threads ----

def test_threads_argument_same_bytes():
    keys = rng(11).integers(0, 2**63, 200000, dtype=np.uint64)
    one = simdbloom.Filter.create(20000, 0.01)  # small filter, many keys: the parallel path runs
    one.insert(keys)
    two = simdbloom.Filter.create(20000, 0.01)
    two.insert(keys, threads=2)
    assert one.to_bytes() == two.to_bytes()
    assert np.array_equal(one.contains(keys, threads=2), one.contains(keys))
    assert np.array_equal(one.select(keys, threads=2), one.select(keys))


def test_python_threads_on_one_filter():
    # Bulk inserts release the GIL; the filter's lock keeps them from overlapping, so no key is
    # lost and the bytes equal a sequential build.
    keys = rng(12).integers(0, 2**63, 400000, dtype=np.uint64)
    shared = simdbloom.Filter.create(len(keys), 0.01)
    shares = np.array_split(keys, 8)
    errors = []

    def work(share):
        try:
            for chunk in np.array_split(share, 10):
                shared.insert(chunk)
                assert shared.contains(chunk).all()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in shares]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    seq = simdbloom.Filter.create(len(keys), 0.01)
    seq.insert(keys)
    assert shared.to_bytes() == seq.to_bytes()


# ---- Edge sizes ----

@pytest.mark.parametrize("empty", [np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint32),
                                   np.array([], dtype="S3"), np.array([], dtype="U2"), [], ()])
def test_empty_batches(empty):
    f = simdbloom.Filter.create(10, 0.01)
    assert f.insert(empty) == 0
    assert f.contains(empty).shape == (0,)
    assert f.select(empty).shape == (0,)
    assert f.contains_bitmap(empty).shape == (0,)
    assert f.insert_fresh(empty).shape == (0,)
    assert f.fill_ratio() == 0 and f.inserted_count == 0


# ---- simdbloom.dask without a cluster (Dask's local schedulers) ----

def test_dask_local_schedulers():
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    import simdbloom.dask as sdask

    keys = rng(30).integers(0, 2**63, 12345, dtype=np.uint64)
    expect = simdbloom.Filter.create(len(keys), 0.01, layout="classic")
    expect.insert(keys)
    for scheduler in ["sync", "threads"]:
        with dask.config.set(scheduler=scheduler):
            built = sdask.build(da.from_array(keys, chunks=1000), None, 0.01, layout="classic",
                                split_every=4)
            assert built.to_bytes() == expect.to_bytes()
            df = dd.from_pandas(pd.DataFrame({"k": keys, "i": np.arange(len(keys))}),
                                npartitions=3)
            small = simdbloom.Filter.create(100, 0.01)
            small.insert(keys[:100])
            out = sdask.semi_join(df, "k", small).compute()
            assert set(range(100)) <= set(out["i"]) and len(out) < 100 + 0.03 * len(keys)
            counting = sdask.build(da.from_array(np.concatenate([keys, keys[:500]]), chunks=1000),
                                   None, 0.01, kind="counting", split_every=3)
            expect_c = simdbloom.CountingFilter(len(keys) + 500, 0.01)
            expect_c.insert(np.concatenate([keys, keys[:500]]))
            assert counting.to_bytes() == expect_c.to_bytes()
            chain = sdask.build(da.from_array(keys, chunks=1000), 600, 0.01, kind="scalable")
            expect_s = simdbloom.ScalableFilter(600, 0.01)
            expect_s.insert(keys)
            assert chain.to_bytes() == expect_s.to_bytes() and chain.stages > 3


# ---- Arrow's offsets + data, in place ----

@pytest.mark.parametrize("offset_dtype", [np.int32, np.int64])
def test_binary_keys(offset_dtype):
    words = [w.encode() for w in random_strings(rng(40), 3001)]
    data = b"".join(words)
    offsets = np.cumsum([0] + [len(w) for w in words]).astype(offset_dtype)
    for payload in [data, np.frombuffer(data, dtype=np.uint8), memoryview(data)]:
        keys = simdbloom.Binary(offsets, payload)
        assert len(keys) == len(words)
        f = simdbloom.Filter.create(3000, 0.01, layout="split_block256")
        g = simdbloom.Filter.create(3000, 0.01, layout="split_block256")
        f.insert(keys)
        g.insert(words)
        assert f.to_bytes() == g.to_bytes()
        assert f.contains(keys).all()
    # A slice of the offsets (an Arrow array with a non-zero offset) is keys 10..19.
    sub = simdbloom.Binary(offsets[10:21], data)
    h = simdbloom.Filter.create(100, 0.01)
    h.insert(sub)
    k = simdbloom.Filter.create(100, 0.01)
    k.insert(words[10:20])
    assert h.to_bytes() == k.to_bytes()


def test_binary_keys_bad():
    f = simdbloom.Filter.create(100, 0.01)
    with pytest.raises(ValueError, match="outside the data"):
        f.insert(simdbloom.Binary(np.array([0, 2, 5], dtype=np.int32), b"abc"))
    with pytest.raises(simdbloom.Error, match="decrease"):
        f.insert(simdbloom.Binary(np.array([0, 3, 1], dtype=np.int32), b"abc"))
    with pytest.raises(simdbloom.Error, match="negative"):
        f.contains(simdbloom.Binary(np.array([-1, 1], dtype=np.int64), b"abc"))
    with pytest.raises(TypeError, match="int32 or int64"):
        simdbloom.Binary(np.array([0, 1], dtype=np.uint32), b"a")
    with pytest.raises(TypeError, match="int32 or int64"):
        simdbloom.Binary(np.array([0.0, 1.0]), b"a")
    with pytest.raises(ValueError, match="not contiguous"):
        simdbloom.Binary(np.arange(10, dtype=np.int64)[::2], b"abcdefghij")
    with pytest.raises(TypeError, match="pre-hashed"):
        f.insert(simdbloom.Binary(np.array([0, 1], dtype=np.int32), b"a"), prehashed=True)
    assert f.inserted_count == 0 and f.fill_ratio() == 0


def test_bulk_calls_release_the_gil():
    f = simdbloom.Filter.create(10**6, 0.01)
    keys = np.arange(4 * 10**6, dtype=np.uint64)
    cpp_oracle.assert_releases_gil(lambda: (f.insert(keys), f.contains(keys)))


# ---- The Layout enum is the library's layout list ----

def test_layout_enum_is_the_library_list():
    listed = simdbloom.layouts()  # the C++ library's list (simdbloom::layouts())
    members = simdbloom.Layout.__members__
    assert [(l.name, int(l)) for l in listed] == [(n, int(v)) for n, v in members.items()]
    for layout in listed:
        assert "???" not in repr(layout) and layout.name.isidentifier(), repr(layout)
        assert getattr(simdbloom.Layout, layout.name) == layout
        assert simdbloom.Filter.create(100, 0.01, layout=layout.name).layout == layout
        assert simdbloom.Filter.create(100, 0.01, layout=layout).stats()["layout"] == layout.name
        assert "\n  %s : " % layout.name in simdbloom.Layout.__doc__  # documented
    assert "shifting" in members and simdbloom.Layout.shifting.name == "shifting"
    assert cpp_oracle.layouts() == list(members)  # what the C++ library lists, in its order
    # The type stubs name the same members.
    stub = open(os.path.join(os.path.dirname(simdbloom.__file__), "_core.pyi")).read()
    block = stub.split("class Layout(enum.Enum):")[1].split("\n\n")[0]
    named = [line.split(":")[0].strip() for line in block.splitlines()
             if line.strip().endswith(": int")]
    assert named == list(members)


# ---- Binary under a thread that rewrites its offsets ----

BINARY_RACE = r"""
import sys, threading, time
import numpy as np
import simdbloom

words = [b"key-%d" % i for i in range(50_000)]
data = b"".join(words)
offsets = np.cumsum([0] + [len(w) for w in words]).astype(np.int64)
original = offsets.copy()
huge = np.full_like(offsets, 1 << 40)  # still non-decreasing, far past the data
huge[0] = 0
keys = simdbloom.Binary(offsets, data)
f = simdbloom.Filter.create(len(words) // 2, 0.01)
f.insert(words[::2])
single = np.array([w in f for w in words])  # one key at a time
assert f.contains(keys).tolist() == single.tolist()

stop = threading.Event()
def rewrite():
    while not stop.is_set():
        offsets[:] = huge
        offsets[:] = original
thread = threading.Thread(target=rewrite)
thread.start()
ok = refused = 0
deadline = time.monotonic() + float(sys.argv[1])
g = simdbloom.Filter.create(len(words), 0.01)
try:
    while time.monotonic() < deadline:
        try:
            f.contains(keys)
            g.insert(keys)
            ok += 1
        except (ValueError, simdbloom.Error):  # a rewrite seen when the call began
            refused += 1
finally:
    stop.set()
    thread.join()
# Unmutated again: the answers of one key at a time.
assert f.contains(keys).tolist() == single.tolist()
print("survived", ok, refused)
"""


def test_binary_offsets_rewritten_by_another_thread():
    # In a subprocess: a segfault is a failed test, not a dead pytest.
    import sys

    run = subprocess.run([sys.executable, "-c", BINARY_RACE, "3"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, (run.returncode, run.stdout, run.stderr)
    assert run.stdout.startswith("survived"), run.stdout


# ---- pandas nullable integers: their values, nulls skipped ----

NULLABLE = [("Int8", np.int8), ("Int16", np.int16), ("Int32", np.int32), ("Int64", np.int64),
            ("UInt8", np.uint8), ("UInt16", np.uint16), ("UInt32", np.uint32),
            ("UInt64", np.uint64)]


@pytest.mark.parametrize("dtype,np_dtype", NULLABLE, ids=[d for d, _ in NULLABLE])
def test_pandas_nullable_integers(dtype, np_dtype):
    pd = pytest.importorskip("pandas")
    plain = simdbloom.Filter.create(1000, 0.001)
    plain.insert(np.array([1, 3, 7], dtype=np_dtype))
    for keys in [pd.array([1, None, 3, 7], dtype=dtype),
                 pd.Series([1, None, 3, 7], dtype=dtype),
                 pd.Series([1, 3, 7], dtype=dtype)]:
        f = simdbloom.Filter.create(1000, 0.001)
        assert f.insert(keys) == 3  # the nulls are skipped
        assert f.to_bytes() == plain.to_bytes(), keys
        assert f.key_type == plain.key_type == "int64"
    probes = pd.array([1, None, 8, 7, None], dtype=dtype)
    absent = bool(plain.contains(np.array([8], dtype=np_dtype))[0])  # a false positive?
    expect = [True, False, absent, True, False]  # a null is never present
    assert plain.contains(probes).tolist() == expect
    assert plain.contains(pd.Series(probes)).tolist() == expect
    out = np.ones(5, dtype=bool)
    assert plain.contains(probes, out=out) is out and out.tolist() == expect
    bits = np.unpackbits(plain.contains_bitmap(probes), bitorder="little")[:5]
    assert bits.astype(bool).tolist() == expect
    assert plain.select(probes).tolist() == [i for i, e in enumerate(expect) if e]
    g = plain.copy()
    assert g.insert_fresh(probes).tolist() == [False, False, not absent, False, False]
    with pytest.raises(ValueError, match="null"):
        plain.hashes(probes)
    assert plain.hashes(pd.array([1, 8], dtype=dtype)).tolist() == \
        plain.hashes(np.array([1, 8], dtype=np_dtype)).tolist()


def test_pandas_nullable_floats_refused():
    pd = pytest.importorskip("pandas")
    f = simdbloom.Filter.create(100, 0.01)
    with pytest.raises(TypeError, match="not a key type"):
        f.contains(pd.array([1.5, None], dtype="Float64"))
    assert f.inserted_count == 0


def test_key_type_recorded():
    """The first insert decides what a filter holds (an integer: 'int64', a byte string:
    'bytes'); copies, pickles and the saved form keep it; a merge needs equal types (None takes
    the other's); clear keeps it; pre-hashed keys set none."""
    f = simdbloom.Filter.create(100, 0.01)
    assert f.key_type is None  # nothing declared or inserted
    f.insert(np.arange(5, dtype=np.uint32))
    assert f.key_type == "int64"  # integers are 8-byte values unless declared 'int32'
    f.insert(np.arange(5, dtype=np.int16))
    assert f.key_type == "int64"
    assert f.copy().key_type == "int64" and copy.deepcopy(f).key_type == "int64"
    assert pickle.loads(pickle.dumps(f)).key_type == "int64"
    assert pickle.loads(pickle.dumps(f, protocol=4)).key_type == "int64"
    assert simdbloom.Filter.from_bytes(f.to_bytes()).key_type == "int64"  # in the file format
    g = simdbloom.Filter.create(100, 0.01, key_type="int32")
    g.insert(5)
    assert g.key_type == "int32"
    with pytest.raises(simdbloom.Error, match="key type") as e:
        f | g  # 8-byte and 4-byte hashes of the same values differ: no union
    assert e.value.code == "incompatible"
    h = simdbloom.Filter.create(100, 0.01)
    h.insert(["a", b"b"])
    assert h.key_type == "bytes"
    h.merge(simdbloom.Filter.create(100, 0.01))  # an empty filter adds no key type
    assert h.key_type == "bytes"
    h.clear()
    assert h.key_type == "bytes"  # clear keeps what it holds
    d = simdbloom.Filter.create(100, 0.01)
    d.key_type = "int32"  # declared, e.g. for a filter whose keys another system hashes
    assert d.key_type == "int32"
    with pytest.raises(ValueError, match="key_type"):
        d.key_type = "int16"
    with pytest.raises(simdbloom.Error, match="int32"):
        d.key_type = "bytes"
    p = simdbloom.Filter.create(100, 0.01)
    p.insert(np.arange(3, dtype=np.uint64), prehashed=True)
    assert p.key_type is None  # pre-hashed keys bypass key types


def test_key_type_of_loaded_and_legacy_filters():
    """A loaded filter keeps its key type (the issue: from_bytes used to forget it); a file saved
    before key types loads as 'legacy' (integers hash at their width, as then) and may be
    declared once; pickles of earlier releases, which carried the key type beside the bytes,
    declare it. Empty batches set no key type."""
    f = simdbloom.Filter.create(1000, 0.01, seed=1, key_type="int32")
    f.insert(np.array([10, 20, 30], dtype=np.int64))
    for loaded in [simdbloom.Filter.from_bytes(f.to_bytes()),
                   simdbloom._filter_from_bytes(f.to_bytes()),  # an old pickle's call
                   simdbloom._filter_from_bytes(f.to_bytes(), "int64")]:  # the file wins
        assert loaded.key_type == "int32"
        assert loaded.contains(np.array([10, 20, 30], dtype=np.uint16)).all()
    golden = os.path.join(os.path.dirname(__file__), "..", "data", "golden", "block512.bin")
    old = simdbloom.Filter.load(golden)  # u64 keys 0..19, saved by simdbloom 0.1.0
    assert old.key_type == "legacy"
    assert old.contains(np.arange(20, dtype=np.uint64)).all()  # answers as before
    declared = old.copy()
    declared.key_type = "int64"  # what its keys were
    assert declared.key_type == "int64"
    assert declared.contains(np.arange(20, dtype=np.int32)).all() and 19 in declared
    with pytest.raises(simdbloom.Error, match="int64"):
        declared.key_type = "int32"
    with open(golden, "rb") as fh:
        data = fh.read()
    assert simdbloom._filter_from_bytes(data, "int64").key_type == "int64"
    assert simdbloom._filter_from_bytes(data, "int16").key_type == "legacy"  # no such type now
    assert simdbloom._filter_from_bytes(data, None).key_type == "legacy"
    # Empty batches carry no key type: the next batch's kind is the filter's.
    e = simdbloom.Filter.create(1000, 0.01)
    for empty in [np.array([], dtype=np.int32), [], np.array([], dtype="S1")]:
        assert e.insert(empty) == 0
        assert e.insert_fresh(empty).tolist() == []
        assert e.key_type is None
    e.insert([1, 2])
    assert e.key_type == "int64"
    # The None state survives pickling (a partition filter of an empty partition of
    # simdbloom.dask.build), and takes the type of what is merged into it.
    empty = pickle.loads(pickle.dumps(simdbloom.Filter.create(1000, 0.01, seed=1)))
    assert empty.key_type is None
    empty.merge(f)
    assert empty.key_type == "int32"


SINGLE_KEY_WHILE_SAVING = r"""
import os, sys, threading, time
import numpy as np
import simdbloom
fifo = sys.argv[1]
f = simdbloom.Filter.create(1000, 0.01)
f.insert(np.arange(10, dtype=np.uint64))
saver = threading.Thread(target=lambda: f.save(fifo), daemon=True)
saver.start()  # blocks in open() (no reader yet) or write(), holding the filter's shared lock
time.sleep(0.3)
def reader():  # a Python thread unblocks the save: it needs the GIL to run
    time.sleep(0.5)
    with open(fifo, "rb") as r:
        r.read()
threading.Thread(target=reader, daemon=True).start()
# Each call must wait for the save's lock without the GIL, or the reader never runs.
assert f.insert(1) in (True, False)
assert f.insert(np.uint32(2)) in (True, False)
assert f.insert(np.int16(-3)) in (True, False)
saver.join()
assert 1 in f and f.contains(np.uint32(2)) and -3 in f
assert f.key_type == "int64" and f.inserted_count == 13
print("done")
"""


def test_single_key_insert_waits_without_the_gil(tmp_path):
    """A single-key insert that finds the filter locked (here by a save blocked on a FIFO whose
    reader is a Python thread) waits for the lock without holding the GIL. In a subprocess with
    a timeout, so that a regression is a failed test, not a hung one."""
    import sys

    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    try:
        run = subprocess.run([sys.executable, "-c", SINGLE_KEY_WHILE_SAVING, fifo],
                             capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("deadlock: a single-key insert waited for the filter's lock holding the GIL")
    assert run.returncode == 0, (run.returncode, run.stdout, run.stderr)
    assert run.stdout == "done\n"


def _mappings(path):
    """Lines of /proc/self/maps that map `path`."""
    name = os.path.realpath(path)
    with open("/proc/self/maps") as maps:
        return sum(1 for line in maps if line.rstrip("\n").endswith(name))


@pytest.mark.parametrize("cls", [simdbloom.Filter, simdbloom.CountingFilter])
def test_map_owns_its_mapping(tmp_path, cls):
    keys = rng(31).integers(0, 2**63, 3000, dtype=np.uint64)
    f = cls(4000, 0.01)
    f.insert(keys)
    path = tmp_path / "mapped.sbf"
    f.save(path)
    for verify in (True, False):
        m = cls.map(path, verify_checksum=verify)
        assert _mappings(path) == 1
        assert m == f and m.to_bytes() == f.to_bytes()
        assert m.contains(keys).all()
        with pytest.raises(simdbloom.Error) as e:
            m.insert(keys[:1])
        assert e.value.code == "read_only"
        c = m.copy()
        c.insert(keys[:1])  # a copy is writable
        del m
        assert _mappings(path) == 0  # the last owner gone: unmapped
    # The mapping keeps its bytes when the file is replaced (save renames) or removed.
    m = cls.map(str(path))
    cls(10, 0.5).save(path)
    os.remove(path)
    assert m.to_bytes() == f.to_bytes()
    del m
    with pytest.raises(simdbloom.Error) as e:
        cls.map(path)
    assert e.value.code == "io"
    with pytest.raises(simdbloom.Error) as e:
        cls.map(tmp_path)  # a directory
    assert e.value.code == "io"
    (tmp_path / "short.sbf").write_bytes(f.to_bytes()[:40])
    with pytest.raises(simdbloom.Error) as e:
        cls.map(tmp_path / "short.sbf")
    assert e.value.code == "format"


def test_failed_save_keeps_the_old_file(tmp_path):
    """Filter.save is the library's atomic save: a write that fails part-way (RLIMIT_FSIZE with
    SIGXFSZ ignored: EFBIG, as ENOSPC on a full disk) raises simdbloom.Error naming the path and
    the reason, and leaves the old file byte-identical with nothing beside it."""
    import resource
    import signal

    path = str(tmp_path / "f.sbf")
    small = simdbloom.Filter.create(100, 0.01)
    small.save(path)
    old = open(path, "rb").read()
    big = simdbloom.Filter.create(1_000_000, 0.01)
    big.insert(np.arange(100_000, dtype=np.uint64))
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (65536, hard))
    try:
        with pytest.raises(simdbloom.Error) as e:
            big.save(path)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert path in str(e.value) and os.strerror(27) in str(e.value)
    assert open(path, "rb").read() == old
    assert os.listdir(tmp_path) == ["f.sbf"]
    big.save(path)  # and without the limit it replaces the file
    assert simdbloom.Filter.load(path).to_bytes() == big.to_bytes()


def test_hostile_inputs():
    """The hostile-input campaign's Python part: every bad call raises one clear exception and
    changes nothing; odd but valid spellings give the exact answers of the plain ones."""
    f = simdbloom.Filter.create(1000, 0.01)
    before = f.to_bytes()
    for bad, exc, pattern in [
        (np.array(5, dtype=np.uint64), TypeError, "1-D .got 0-D"),
        (np.zeros(3, np.float32), TypeError, "float32 is not a key type"),
        (np.zeros(3, np.complex64), TypeError, "complex64 is not a key type"),
        (np.zeros(3, "datetime64[s]"), TypeError, "datetime64.* is not a key type"),
        (np.zeros(3, dtype=">i4"), TypeError, "big-endian"),
        (np.zeros((3, 2), np.uint64)[:, 0], ValueError, "not contiguous"),
        (np.array([1, "a"], dtype=object), TypeError, "mixes"),
        ("\udc80", UnicodeEncodeError, "surrogates"),
        (-2**70, ValueError, "64-bit range"),
        (2**64, ValueError, "64-bit range"),
        (simdbloom.Binary(np.array([0, -1], np.int64), b"abcd"), ValueError, "outside the data"),
        (simdbloom.Binary(np.array([0, 5], np.int32), b"abcd"), ValueError, "outside the data"),
        (simdbloom.Binary(np.array([0, 3, 1], np.int64), b"abcd"), simdbloom.Error,
         "offsets decrease"),
    ]:
        with pytest.raises(exc, match=pattern):
            f.insert(bad)
        if isinstance(bad, int):
            assert not f.contains(bad)  # beyond 64 bits: absent, the key of no filter
            continue
        with pytest.raises(exc, match=pattern):
            f.contains(bad)
    assert f.to_bytes() == before  # nothing stored by the failed calls
    for bad, exc, pattern in [
        (lambda: simdbloom.Filter.from_bytes(b"x" * 100), simdbloom.Error, "bad magic"),
        (lambda: simdbloom.Filter.from_bytes(b""), simdbloom.Error, "truncated header"),
        (lambda: simdbloom.Filter.from_bytes(before[:-1]), simdbloom.Error, "payload of"),
        (lambda: simdbloom.Filter.create(10**30, 0.01), simdbloom.Error, "n = 10+ is outside"),
        (lambda: simdbloom.Filter.create(10, float("nan")), simdbloom.Error, "fpp"),
        (lambda: simdbloom.Filter.create(10, -1.0), simdbloom.Error, "fpp"),
        (lambda: simdbloom.Filter.with_bits(0, 4), simdbloom.Error, "bits must be > 0"),
        (lambda: simdbloom.Filter.load("/"), simdbloom.Error, "is a directory"),
        (lambda: simdbloom.Filter.load("/nonexistent"), simdbloom.Error, "cannot open"),
        (lambda: f.save("/"), simdbloom.Error, "Is a directory"),
        (lambda: f.save("/nonexistent/f.sbf"), simdbloom.Error, "No such file"),
    ]:
        with pytest.raises(exc, match=pattern):
            bad()
    # Exact answers from odd spellings: str is its UTF-8 bytes, a 'U' array its strings, a huge
    # Python list the same keys as the NumPy array.
    g = simdbloom.Filter.create(2_000_000, 0.01)
    assert g.insert("h\u00e9llo") is True and b"h\xc3\xa9llo" in g
    g.insert(np.array(["ab", "c"]))
    assert g.contains(np.array([b"ab", b"c"], dtype=object)).tolist() == [True, True]
    h = simdbloom.Filter.create(2_000_000, 0.01)
    h.insert("h\u00e9llo")
    h.insert([b"ab", b"c"])
    assert g.to_bytes() == h.to_bytes()
    ints = simdbloom.Filter.create(2_000_000, 0.01)  # integers: a filter of their own
    ints.insert(list(range(10**6)))
    by_array = simdbloom.Filter.create(2_000_000, 0.01)
    by_array.insert(np.arange(10**6, dtype=np.int64))
    assert ints.to_bytes() == by_array.to_bytes()
    assert ints.contains(np.arange(10**6, dtype=np.int32)).all()


def test_full_disk_save_keeps_the_old_file(tmp_path):
    """On a full file system (ENOSPC: a 256 KiB tmpfs in a private mount namespace, where the
    test may make one) Filter.save raises and leaves the old file alone."""
    import sys
    script = (
        "import os, sys, simdbloom\n"
        "d = sys.argv[1]; p = os.path.join(d, 'f.sbf')\n"
        "simdbloom.Filter.create(100, 0.01).save(p); old = open(p, 'rb').read()\n"
        "try:\n"
        "    simdbloom.Filter.create(1_000_000, 0.01).save(p); print('saved')\n"
        "except simdbloom.Error as e:\n"
        "    print('ENOSPC' if os.strerror(28) in str(e) else str(e))\n"
        "print(open(p, 'rb').read() == old, sorted(os.listdir(d)))\n")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no private mount namespace here (the RLIMIT_FSIZE test covers the path)")
    p = subprocess.run(["unshare", "-m", "sh", "-c",
                        'mount -t tmpfs -o size=256k none "$1" && exec "$2" -c "$3" "$1"', "sh",
                        str(tmp_path), sys.executable, script],
                       capture_output=True, text=True, env=os.environ)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["ENOSPC", "True ['f.sbf']"], p.stdout + p.stderr
