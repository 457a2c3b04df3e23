# SPDX-License-Identifier: Apache-2.0
"""A key is its value (issue 39): every class x every way to insert an integer (Python int, NumPy
scalars and arrays of every integer dtype, pandas nullable columns) x every way to query it, with
no false negative, also after to_bytes/from_bytes, pickle, save/load, view/map where the class
has them; 'int32' filters (out-of-range values absent on query, refused on insert); integers and
byte strings never mixed (TypeError naming both); memoryview is a byte string; the key type is
declared once and kept by every saved form; the issue's reproducers."""

import copy
import os
import pickle

import numpy as np
import pytest

import simdbloom

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
NULLABLE = ["Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64"]
# Values every integer dtype holds (so each spelling carries the same values).
VALUES = [0, 1, 5, 7, 42, 99, 100, 127]


# Every class, created empty; `add(f, key)`, `insert(f, batch)`, `ask(f, key or batch)` (the
# answer: non-zero means present) and what a load-like call takes.
def _filter(**kw):
    return simdbloom.Filter(1000, 0.001, **kw)


CLASSES = {
    "Filter": (_filter, lambda f, k: f.add(k), lambda f, b: f.insert(b),
               lambda f, k: f.contains(k)),
    "Filter.classic": (lambda **kw: simdbloom.Filter(1000, 0.001, layout="classic", **kw),
                       lambda f, k: f.add(k), lambda f, b: f.insert(b),
                       lambda f, k: f.contains(k)),
    "Filter.split_block256": (
        lambda **kw: simdbloom.Filter(1000, 0.001, layout="split_block256", **kw),
        lambda f, k: f.add(k), lambda f, b: f.insert(b), lambda f, k: f.contains(k)),
    "CountingFilter": (lambda **kw: simdbloom.CountingFilter(1000, 0.001, **kw),
                       lambda f, k: f.add(k), lambda f, b: f.insert(b),
                       lambda f, k: f.count(k)),
    "ScalableFilter": (lambda **kw: simdbloom.ScalableFilter(64, 0.001, **kw),
                       lambda f, k: f.add(k), lambda f, b: f.insert(b),
                       lambda f, k: f.contains(k)),
    "SpatialFilter": (lambda **kw: simdbloom.SpatialFilter(1000, 0.001, 3, **kw),
                      lambda f, k: f.add(k, 2), lambda f, b: f.insert(b, 2),
                      lambda f, k: f.classify(k)),
    "ShiftingAssociation": (lambda **kw: simdbloom.ShiftingAssociation(1000, 0.001, **kw),
                            lambda f, k: f.add(k, simdbloom.ShiftingAssociation.BOTH),
                            lambda f, b: f.insert(b, simdbloom.ShiftingAssociation.BOTH),
                            lambda f, k: f.query(k)),
    "ShiftingMultiplicity": (lambda **kw: simdbloom.ShiftingMultiplicity(1000, 0.001, 4, **kw),
                             lambda f, k: f.add(k, 3), lambda f, b: f.insert(b, 3),
                             lambda f, k: f.count(k)),
}


def class_of(f):
    return type(f)


def spellings():
    """(name, how to insert VALUES into f): one per insert type."""
    out = [("int", lambda add, ins, f: [add(f, v) for v in VALUES])]
    for dt in INT_DTYPES:
        name = np.dtype(dt).name
        out.append(("scalar " + name, lambda add, ins, f, dt=dt: [add(f, dt(v)) for v in VALUES]))
        out.append(("array " + name,
                    lambda add, ins, f, dt=dt: ins(f, np.array(VALUES, dtype=dt))))
    out.append(("list of ints", lambda add, ins, f: ins(f, list(VALUES))))
    return out


SPELLINGS = spellings()


def probes():
    """Every query spelling of VALUES: a list of (name, keys to ask one by one or as a batch)."""
    out = [("int", list(VALUES), True)]
    for dt in INT_DTYPES:
        out.append(("scalar " + np.dtype(dt).name, [dt(v) for v in VALUES], True))
        out.append(("array " + np.dtype(dt).name, np.array(VALUES, dtype=dt), False))
    return out


def present(ask, f, keys, one_by_one):
    if one_by_one:
        return all(ask(f, k) != 0 for k in keys)
    return bool(np.all(np.asarray(ask(f, keys)) != 0))


def reloaded(f, tmp_path):
    """f through every saved form its class has."""
    cls = class_of(f)
    yield "from_bytes", cls.from_bytes(f.to_bytes())
    yield "pickle", pickle.loads(pickle.dumps(f))
    yield "pickle4", pickle.loads(pickle.dumps(f, protocol=4))
    yield "copy", copy.deepcopy(f)
    path = str(tmp_path / "f.sbf")
    f.save(path)
    yield "load", cls.load(path)
    if hasattr(cls, "map"):
        yield "map", cls.map(path)


@pytest.mark.parametrize("kind", list(CLASSES))
@pytest.mark.parametrize("key_type", [None, "int64", "int32"])
def test_every_insert_type_found_by_every_query_type(kind, key_type, tmp_path):
    make, add, ins, ask = CLASSES[kind]
    for name, spelling in SPELLINGS:
        f = make(key_type=key_type)
        spelling(add, ins, f)
        assert f.key_type == (key_type or "int64"), (kind, name)
        for copy_name, g in [("in memory", f)] + list(reloaded(f, tmp_path)):
            assert g.key_type == f.key_type, (kind, name, copy_name)
            for probe_name, keys, one in probes():
                assert present(ask, g, keys, one), (kind, key_type, name, copy_name, probe_name)


@pytest.mark.parametrize("kind", list(CLASSES))
def test_pandas_nullable_insert_and_query(kind):
    pd = pytest.importorskip("pandas")
    make, add, ins, ask = CLASSES[kind]
    for dtype in NULLABLE:
        f = make()
        column = pd.array(VALUES + [None], dtype=dtype)
        ins(f, column)  # the null skipped
        assert f.key_type == "int64", dtype
        assert present(ask, f, list(VALUES), True), dtype
        answers = np.asarray(ask(f, pd.Series(column)))
        assert (answers[:-1] != 0).all() and answers[-1] == 0, dtype  # a null is never present
        for other in NULLABLE:
            assert present(ask, f, pd.array(VALUES, dtype=other), False), (dtype, other)


def test_issue_reproducers():
    f = simdbloom.Filter(1000, 0.01)
    f.insert(np.arange(10, dtype=np.int32))
    assert 5 in f
    assert f.key_type == "int64"  # integers are 8-byte values unless declared 'int32'
    h = simdbloom.Filter(1000, 0.01)
    h.add(5)
    assert h.contains(np.array([5], dtype=np.int32)).tolist() == [True]
    d = simdbloom.Filter(1000, 0.01, key_type="int32")
    d.insert(np.arange(10, dtype=np.int32))
    assert simdbloom.Filter.from_bytes(d.to_bytes()).key_type == "int32"
    assert simdbloom.Filter.from_bytes(f.to_bytes()).key_type == "int64"
    m = simdbloom.Filter(1000, 0.01)
    m.update(memoryview(b"ab"))  # a byte string, never the integers 97 and 98
    assert b"ab" in m and m.key_type == "bytes"
    assert memoryview(b"ab") in m and bytearray(b"ab") in m
    m.add(memoryview(b"cd"))
    assert b"cd" in m


def test_minus_one_and_two_to_the_64_minus_one_are_one_key():
    f = simdbloom.Filter(1000, 0.001)
    f.add(-1)
    assert 2**64 - 1 in f and np.uint64(2**64 - 1) in f and np.int8(-1) in f
    assert f.contains(np.array([2**64 - 1], dtype=np.uint64)).all()
    g = simdbloom.Filter(1000, 0.001, key_type="int32")
    g.add(-1)
    assert 2**32 - 1 in g and np.uint32(2**32 - 1) in g and np.int16(-1) in g
    assert 2**64 - 1 not in g  # outside [-2**31, 2**32): no 4-byte key


@pytest.mark.parametrize("kind", list(CLASSES))
def test_int32_out_of_range(kind):
    make, add, ins, ask = CLASSES[kind]
    f = make(key_type="int32")
    ins(f, np.array([-2**31, 2**32 - 1, 7], dtype=np.int64))
    outside = [2**32, -2**31 - 1, 2**40, -2**63, 2**64 - 1, 2**70, -2**70]
    for v in outside:
        assert ask(f, v) == 0, v  # absent, never an error
    assert (np.asarray(ask(f, np.array(outside[:4], dtype=np.int64))) == 0).all()
    assert (np.asarray(ask(f, np.array([2**63, 2**64 - 1], dtype=np.uint64))) == 0).all()
    assert (np.asarray(ask(f, [2**32, 7, 2**70])) != 0).tolist() == [False, True, False]
    for v in [2**32, -2**31 - 1, np.int64(2**40), np.uint64(2**63)]:
        with pytest.raises(ValueError, match=str(int(v))):
            add(f, v)
    with pytest.raises(ValueError, match="int32"):
        ins(f, np.array([1, 2**33], dtype=np.int64))
    with pytest.raises(ValueError, match="64-bit range"):
        add(f, 2**70)
    with pytest.raises(ValueError, match="64-bit range"):
        ins(f, [1, 2**70])
    assert ask(f, -2**31) != 0 and ask(f, 2**32 - 1) != 0 and ask(f, 7) != 0


@pytest.mark.parametrize("kind", list(CLASSES))
def test_beyond_64_bits_absent_or_refused(kind):
    make, add, ins, ask = CLASSES[kind]
    f = make()
    add(f, 5)
    assert ask(f, 2**64) == 0 and ask(f, -2**63 - 1) == 0
    assert (np.asarray(ask(f, [5, 2**64])) != 0).tolist() == [True, False]
    with pytest.raises(ValueError, match="64-bit range"):
        add(f, 2**64)
    with pytest.raises(ValueError, match="64-bit range"):
        ins(f, [1, -2**64])


@pytest.mark.parametrize("kind", list(CLASSES))
def test_integers_and_byte_strings_never_mix(kind):
    make, add, ins, ask = CLASSES[kind]
    text = make()
    ins(text, ["line one", "line two"])  # a filter built from text lines
    assert text.key_type == "bytes"
    for key in [5, np.int32(5), np.uint64(5), 2**70]:
        with pytest.raises(TypeError, match="bytes"):
            ask(text, key)
        with pytest.raises(TypeError, match="bytes"):
            add(text, key)
    with pytest.raises(TypeError, match="bytes"):
        ask(text, np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="bytes"):
        ins(text, np.arange(3, dtype=np.uint16))
    ints = make()
    add(ints, 5)
    assert ints.key_type == "int64"
    for key in [b"x", "x", bytearray(b"x"), memoryview(b"x")]:
        with pytest.raises(TypeError, match="int64"):
            ask(ints, key)
        with pytest.raises(TypeError, match="int64"):
            add(ints, key)
    with pytest.raises(TypeError, match="int64"):
        ask(ints, ["a", "b"])
    declared = make(key_type="bytes")
    with pytest.raises(TypeError, match="bytes"):
        add(declared, 1)
    assert declared.key_type == "bytes"
    with pytest.raises(TypeError, match="int32"):
        ask(make(key_type="int32"), "x")


@pytest.mark.parametrize("kind", list(CLASSES))
def test_key_type_declared_once(kind, tmp_path):
    make, add, ins, ask = CLASSES[kind]
    f = make()
    assert f.key_type is None  # nothing declared or inserted
    f.key_type = "int32"
    assert f.key_type == "int32"
    f.key_type = "int32"  # the same type again: nothing changes
    with pytest.raises(ValueError, match="int32"):
        f.key_type = "int64"
    with pytest.raises(ValueError, match="key_type"):
        f.key_type = None
    for bad in ["int16", "legacy", "mixed", 5]:
        with pytest.raises(ValueError, match="key_type"):
            make(key_type=bad)
    add(f, 7)
    f.clear()
    assert f.key_type == "int32"  # clear keeps what the filter holds
    g = make()
    add(g, b"x")
    assert g.key_type == "bytes" and g.copy().key_type == "bytes"
    for name, back in reloaded(g, tmp_path):
        assert back.key_type == "bytes" and b"x" in back, name


def test_merge_and_equality_need_equal_key_types():
    ints = simdbloom.Filter(1000, 0.01)
    ints.add(1)
    text = simdbloom.Filter(1000, 0.01)
    text.add(b"a")
    with pytest.raises(simdbloom.Error, match="key type"):
        ints.merge(text)
    with pytest.raises(simdbloom.Error, match="key type"):
        ints | text
    assert ints != text and not ints.compatible(text)
    empty = simdbloom.Filter(1000, 0.01)
    assert empty.key_type is None
    empty |= ints  # None takes the other's type
    assert empty.key_type == "int64" and 1 in empty and empty == ints
    c = simdbloom.CountingFilter(1000, 0.01, key_type="int32")
    with pytest.raises(simdbloom.Error, match="key type"):
        c.merge(simdbloom.CountingFilter(1000, 0.01, key_type="int64"))


def test_views_keep_the_key_type(tmp_path):
    for kt in ["int64", "int32", "bytes"]:
        f = simdbloom.Filter(1000, 0.01, key_type=kt)
        f.insert(np.arange(100, dtype=np.int16) if kt != "bytes" else ["a", "b"])
        path = str(tmp_path / ("f-%s.sbf" % kt))
        f.save(path)
        m = simdbloom.Filter.map(path)
        assert m.key_type == kt
        if kt != "bytes":
            assert m.contains(np.arange(100, dtype=np.uint64)).all() and 99 in m
        c = simdbloom.CountingFilter(1000, 0.01, key_type=kt)
        c.save(path)
        assert simdbloom.CountingFilter.map(path).key_type == kt


def test_update_of_ints_of_every_type():
    f = simdbloom.Filter(1000, 0.001)
    items = [1, np.int8(2), np.uint8(3), np.int16(-4), np.uint32(5), np.int64(-6),
             np.uint64(2**64 - 1), 2**63]
    f.update(iter(items))
    for k in [1, 2, 3, -4, 5, -6, -1, 2**63]:
        assert k in f and np.int64(k if k < 2**63 else k - 2**64) in f, k
    with pytest.raises(TypeError, match="byte.*int64"):
        f.update(iter([b"x"]))
    with pytest.raises(ValueError, match="64-bit range"):
        f.update(x for x in [1, 2**64])


def test_to_filter_and_stage_keep_the_key_type():
    c = simdbloom.CountingFilter(1000, 0.01, key_type="int32")
    c.insert(np.arange(10, dtype=np.int64))
    plain = c.to_filter()
    assert plain.key_type == "int32" and plain.contains(np.arange(10, dtype=np.uint8)).all()
    s = simdbloom.ScalableFilter(16, 0.01)
    s.insert(np.arange(200, dtype=np.int32))
    assert s.stages > 1 and all(s.stage(i).key_type == "int64" for i in range(s.stages))
    assert s.contains(np.arange(200, dtype=np.uint64)).all()


def test_hash_and_hashes_follow_the_key_type():
    f = simdbloom.Filter(1000, 0.01)
    want = f.hashes(np.array([0, 1, 2, -1], dtype=np.int64)).tolist()
    for batch in [np.array([0, 1, 2, -1], dtype=np.int8), [0, 1, 2, 2**64 - 1],
                  np.array([0, 1, 2, 2**64 - 1], dtype=np.uint64)]:
        assert f.hashes(batch).tolist() == want
    assert [f.hash(k) for k in [0, np.uint16(1), np.int32(2), -1]] == want
    with pytest.raises(ValueError, match="64-bit range"):
        f.hashes([1, 2**70])
    with pytest.raises(ValueError, match="64-bit range"):
        f.hash(2**70)
    g = simdbloom.Filter(1000, 0.01, key_type="int32")
    assert g.hash(-1) == g.hash(2**32 - 1) == g.hash(np.uint32(2**32 - 1)) != f.hash(-1)
    with pytest.raises(simdbloom.Error, match="int32"):
        g.hash(2**40)
    with pytest.raises(simdbloom.Error, match="int32"):
        g.hashes(np.array([2**40], dtype=np.int64))
    # Pre-hashed probes stand for the keys of the filter's key type.
    g.insert(np.arange(100, dtype=np.uint8))
    assert g.contains(g.hashes(np.arange(100, dtype=np.int64)), prehashed=True).all()


# ---- Parquet: a split_block256 filter carries its column's type ----

PARQUET_MR = os.path.join(os.path.dirname(__file__), "..", "data", "parquet",
                          "bloom_filter.xxhash.bin")


def test_parquet_bytes_column_probed_with_str_and_bytes():
    # Written by parquet-mr: "hello", "parquet", "bloom", "filter" as BYTE_ARRAY values.
    with open(PARQUET_MR, "rb") as fh:
        data = fh.read()
    f = simdbloom.Filter.from_parquet(data, key_type="bytes")
    assert f.key_type == "bytes" and f.layout == simdbloom.Layout.split_block256
    for word in ["hello", "parquet", "bloom", "filter"]:
        assert word in f and word.encode() in f
    with pytest.raises(TypeError, match="bytes"):
        42 in f
    assert f.to_parquet() == data
    assert simdbloom.Filter.from_parquet(data).key_type is None  # the caller did not say


@pytest.mark.parametrize("column,values", [
    ("int32", [-2**31, -1, 0, 42, 2**31 - 1]),
    ("int64", [-2**63, -1, 0, 42, 2**40, 2**63 - 1]),
])
def test_parquet_integer_columns_probed_with_python_ints(column, values):
    # A Parquet writer hashes an INT32 value's 4 bytes and an INT64 value's 8 (XXH64, seed 0): a
    # filter declared so, exported and read back as its column type, finds the Python ints.
    w = simdbloom.Filter(1000, 0.01, layout="split_block256", key_type=column)
    w.insert(np.array(values, dtype=np.int32 if column == "int32" else np.int64))
    data = w.to_parquet()
    f = simdbloom.Filter.from_parquet(data, key_type=column)
    assert f.key_type == column
    for v in values:
        assert v in f
        assert f.contains(np.array([v], dtype=np.int64)).all()
    if column == "int32":
        assert 2**32 not in f  # beyond the column's values: absent, not its low 32 bits
        assert 0xFFFFFFFF in f  # -1's 32-bit pattern
        # The same bits read as an 8-byte column answer for other keys: the type matters.
        g = simdbloom.Filter.from_parquet(data, key_type="int64")
        assert not all(v in g for v in values)
    with pytest.raises(TypeError, match=column):
        "42" in f
