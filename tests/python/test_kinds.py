# SPDX-License-Identifier: Apache-2.0
"""Every class besides Filter against the C++ library (through simdbloom_py_oracle: the same keys
give the same bytes and answers, for every key shape and for bulk and single-key spellings) and
against Python's own set/Counter (no false negative, exact counts), and the treatment every class
shares: update of any iterable, pickling, bytes, files and file objects, copies, equality, repr,
key_type, errors, nulls, the GIL."""

import collections
import copy
import errno
import io
import os
import pickle
import threading

import numpy as np
import pytest

import simdbloom

import cpp_oracle

SHAPES = ["u64", "u32", "u16", "str"]
DTYPES = {"u64": np.uint64, "u32": np.uint32, "u16": np.uint16}


def rng(seed):
    return np.random.default_rng(seed)


def distinct_keys(shape, count, seed):
    """`count` distinct keys of a shape: a NumPy array of its dtype, or a list of str."""
    r = rng(seed)
    if shape == "str":
        return ["k%d-%s" % (i, "é" * int(r.integers(0, 4))) for i in r.permutation(count * 3)[
            :count]]
    info = np.iinfo(DTYPES[shape])
    space = min(int(info.max) + 1, 2**62)
    return r.choice(space, count, replace=False).astype(DTYPES[shape])


def singles(keys):
    """The keys one by one as the module's single-key calls take them at their width: NumPy
    scalars for 2- and 4-byte keys (a Python int is an 8-byte key), Python ints, str."""
    if isinstance(keys, list):
        return keys
    if keys.dtype == np.uint64:
        return keys.tolist()
    return list(keys)


def insert_valued(f, parts, single):
    """Inserts each (keys, value) of parts into f: one add(key, value) per key (single), else one
    insert(keys, value); returns the insert calls' results (none for single)."""
    results = []
    for keys, value in parts:
        if single:
            for k in singles(keys):
                f.add(k, value)
        else:
            results.append(f.insert(keys, value))
    return results


def split(keys, parts):
    """`keys` cut into `parts` consecutive pieces (lists stay lists)."""
    n = len(keys)
    bounds = [n * i // parts for i in range(parts + 1)]
    return [keys[bounds[i]:bounds[i + 1]] for i in range(parts)]


def cat(pieces):
    return sum(pieces, []) if isinstance(pieces[0], list) else np.concatenate(pieces)


# ---- The same bytes and answers as C++ ----

@pytest.mark.parametrize("layout", ["blocked", "classic"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("single", [False, True], ids=["bulk", "single"])
def test_counting_as_cpp(tmp_path, layout, shape, single):
    n = 3000
    keys = distinct_keys(shape, 2 * n, 60)
    first, second, absent = keys[:n], keys[n:n + n // 2], keys[n + n // 2:]
    removed = first[:700]
    probes = cat([first, second, absent])
    op = "insert1" if single else "insert"
    saved, hits, counts = cpp_oracle.run(
        tmp_path, "counting", dict(n=n, fpp=0.01, seed=5, layout=layout),
        [(op, shape, first), (op, shape, second), (op, shape, second[:300]),
         ("remove", shape, removed), ("save",), ("ask", shape, probes),
         ("count", shape, probes)])
    c = simdbloom.CountingFilter(n, 0.01, layout=layout, seed=5)
    if single:
        for part in (first, second, second[:300]):
            for k in singles(part):
                c.add(k)
    else:
        assert c.insert(first) + c.insert(second) >= 0
        c.update(second[:300])
    assert c.remove(removed) == len(removed)
    assert c.to_bytes() == saved
    assert np.array_equal(c.contains(probes), hits)
    assert np.array_equal(c.count(probes), counts)
    # Python's Counter as the reference: every present key is found, counts never below its own.
    truth = collections.Counter(singles(first) + singles(second) + singles(second[:300]))
    truth.subtract(singles(removed))
    got = dict(zip(singles(probes), c.count(probes).tolist()))
    for k, times in truth.items():
        if times > 0:
            assert got[k] >= min(times, 15) and k in c, k
    exact = sum(got[k] == min(t, 15) for k, t in truth.items() if t > 0)
    assert exact > 0.95 * sum(1 for t in truth.values() if t > 0)
    assert len(c) == sum(truth.values())  # inserts minus removes, exactly
    for k in singles(probes[:50]):
        assert c.count(k) == got[k]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("single", [False, True], ids=["bulk", "single"])
def test_scalable_as_cpp(tmp_path, shape, single):
    keys = distinct_keys(shape, 9000, 61)
    inserted, absent = keys[:6000], keys[6000:]
    batches = split(inserted, 4)
    op = "insert1" if single else "insert"
    params = dict(capacity=500, fpp=0.01, growth=2.0, tightening=0.8, layout="split_block256",
                  seed=9)
    results = cpp_oracle.run(tmp_path, "scalable", params,
                             [(op, shape, b) for b in batches] +
                             [("save",), ("ask", shape, cat([inserted, absent]))])
    s = simdbloom.ScalableFilter(500, 0.01, growth=2.0, tightening=0.8,
                                 layout="split_block256", seed=9)
    for b in batches:
        if single:
            for k in singles(b):
                s.insert(k)
        else:
            s.insert(b)
    assert s.to_bytes() == results[0]
    hits = s.contains(cat([inserted, absent]))
    assert np.array_equal(hits, results[1])
    assert hits[:len(inserted)].all()  # no false negative
    assert hits[len(inserted):].mean() < 0.01
    assert s.stages >= 4 and len(s.stats()["stages"]) == s.stages
    assert len(inserted) * 0.98 <= len(s) <= len(inserted)  # counted at insert
    assert all(k in s for k in singles(inserted[:200]))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("single", [False, True], ids=["bulk", "single"])
def test_spatial_as_cpp(tmp_path, shape, single):
    keys = distinct_keys(shape, 6000, 62)
    areas = split(keys[:4500], 3)  # areas 1, 2, 3; keys[4500:] in none
    parts = [(a, i + 1) for i, a in enumerate(areas)]
    op = "insert1" if single else "insert"
    saved, labels = cpp_oracle.run(
        tmp_path, "spatial", dict(n=4500, fpp=0.01, areas=3, seed=2),
        [(op, shape, a, label) for a, label in parts] + [("save",), ("ask", shape, keys)])
    f = simdbloom.SpatialFilter(4500, 0.01, 3, seed=2)
    assert all(raised > 0 for raised in insert_valued(f, parts, single))
    assert f.to_bytes() == saved
    got = f.classify(keys)
    assert got.dtype == np.uint16 and np.array_equal(got, labels)
    # A key of area a gets a or a higher label, never 0; most get exactly a.
    for i, a in enumerate(areas):
        part = f.classify(a)
        assert (part >= i + 1).all() and (part == i + 1).mean() > 0.9
    assert (got[4500:] == 0).mean() > 0.95
    assert [f.classify(k) for k in singles(keys[:30])] == got[:30].tolist()
    assert len(f) == 4500 and [f.members(i) for i in (1, 2, 3)] == [1500, 1500, 1500]
    assert f.current_label == 3


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("single", [False, True], ids=["bulk", "single"])
def test_association_as_cpp(tmp_path, shape, single):
    keys = distinct_keys(shape, 8000, 63)
    only1, both, only2, neither = split(keys, 4)
    A = simdbloom.ShiftingAssociation
    sets = [(only1, A.ONLY_FIRST), (both, A.BOTH), (only2, A.ONLY_SECOND)]
    op = "insert1" if single else "insert"
    saved, answers = cpp_oracle.run(tmp_path, "association", dict(n=6000, fpp=0.01, seed=4),
                                    [(op, shape, s, m) for s, m in sets] +
                                    [("save",), ("ask", shape, keys)])
    f = A(6000, 0.01, seed=4)
    assert all(r is None for r in insert_valued(f, sets, single))
    assert f.to_bytes() == saved
    got = f.query(keys)
    assert got.dtype == np.uint8 and np.array_equal(got, answers)
    for s, m in sets:  # the true membership is always a candidate
        part = f.query(s)
        assert ((part & m) == m).all()
        assert np.mean([A.is_clear(int(x)) for x in part]) > 0.95
    assert (got[6000:] == 0).mean() > 0.9
    assert [f.query(k) for k in singles(keys[:30])] == got[:30].tolist()
    assert len(f) == 6000


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("single", [False, True], ids=["bulk", "single"])
def test_multiplicity_as_cpp(tmp_path, shape, single):
    keys = distinct_keys(shape, 6000, 64)
    groups = split(keys[:4000], 8)  # counts 1..8
    parts = [(g, c + 1) for c, g in enumerate(groups)]
    op = "insert1" if single else "insert"
    saved, answers = cpp_oracle.run(tmp_path, "multiplicity",
                                    dict(n=4000, fpp=0.01, max_count=8, seed=6),
                                    [(op, shape, g, count) for g, count in parts] +
                                    [("save",), ("ask", shape, keys)])
    f = simdbloom.ShiftingMultiplicity(4000, 0.01, 8, seed=6)
    insert_valued(f, parts, single)
    assert f.to_bytes() == saved
    got = f.count(keys)
    assert got.dtype == np.uint32 and np.array_equal(got, answers)
    for c, g in enumerate(groups):  # never above the true count, never 0 for a member
        part = f.count(g)
        assert ((part >= 1) & (part <= c + 1)).all() and (part == c + 1).mean() > 0.8
    assert [f.count(k) for k in singles(keys[:30])] == got[:30].tolist()
    assert f.max_count == 8 and len(f) == 4000


def test_shifting_build_equals_inserts():
    r = rng(65)
    s1 = r.integers(0, 2**63, 3000, dtype=np.uint64)
    s2 = np.concatenate([s1[:1000], r.integers(0, 2**63, 2000, dtype=np.uint64)])
    built = simdbloom.ShiftingAssociation.build(s1, s2, 0.01, seed=3)
    a, b = set(s1.tolist()), set(s2.tolist())
    f = simdbloom.ShiftingAssociation(len(a | b), 0.01, seed=3)
    A = simdbloom.ShiftingAssociation
    for keys, m in [(a - b, A.ONLY_FIRST), (a & b, A.BOTH), (b - a, A.ONLY_SECOND)]:
        f.insert(np.array(sorted(keys), dtype=np.uint64), m)
    assert built == f and built.key_type == "int64"
    occurrences = np.repeat(s1[:500], r.integers(1, 6, 500))
    x = simdbloom.ShiftingMultiplicity.build(occurrences, 0.01, 5)
    truth = collections.Counter(occurrences.tolist())
    assert (x.count(s1[:500]) <= np.array([truth[k] for k in s1[:500].tolist()])).all()
    assert (x.count(s1[:500]) >= 1).all()
    with pytest.raises(TypeError, match="integer keys"):
        simdbloom.ShiftingAssociation.build(["a"], [], 0.01)
    # Integer keys of any dtype are their values (converted to 8 bytes).
    narrow = simdbloom.ShiftingMultiplicity.build(np.array([1, 2, 2], dtype=np.int16), 0.01, 5)
    assert narrow.key_type == "int64" and narrow.count(2) >= 1 and narrow.count(np.uint8(1)) >= 1
    with pytest.raises(simdbloom.Error, match="max_count|times"):
        simdbloom.ShiftingMultiplicity.build(np.zeros(7, dtype=np.uint64), 0.01, 5)


# ---- CountingFilter: merge, subsets, the plain filter ----

@pytest.mark.parametrize("layout", ["blocked", "classic"])
def test_counting_merge_subset_to_filter(layout):
    r = rng(66)
    keys = r.integers(0, 2**63, 20000, dtype=np.uint64)
    whole = simdbloom.CountingFilter(20000, 0.01, layout)
    whole.insert(keys)
    whole.remove(keys[:100])
    a = simdbloom.CountingFilter(20000, 0.01, layout)
    b = simdbloom.CountingFilter(20000, 0.01, layout)
    a.insert(keys[:12000])
    a.remove(keys[:100])
    b.insert(keys[12000:])
    assert (a | b) == whole and (a | b).to_bytes() == whole.to_bytes()
    m = a.copy()
    same = m
    m |= b
    assert m is same and m.to_bytes() == whole.to_bytes() and len(m) == 19900
    m2 = a.copy()
    m2.merge(b)
    assert m2.to_bytes() == whole.to_bytes()
    assert a <= whole and b <= whole and whole >= a and not whole <= a and a < whole
    assert a.issubset(whole) and whole.issuperset(b)
    with pytest.raises(simdbloom.Error) as e:
        a.merge(simdbloom.CountingFilter(20000, 0.01, layout, seed=1))
    assert e.value.code == "incompatible" and "seed" in str(e.value)
    assert not a.compatible(simdbloom.CountingFilter(100, 0.01, layout))
    # to_filter: the plain filter of the keys present, bit for bit.
    plain = whole.to_filter()
    expect = simdbloom.Filter.with_bits(whole.counter_count, whole.num_hashes,
                                        whole.plain_layout, whole.seed)
    expect.insert(keys[100:])
    assert plain == expect and plain.layout == whole.plain_layout
    assert plain.inserted_count == len(whole) and plain.key_type == "int64"
    assert plain.contains(keys[100:]).all()


def test_counting_remove_discard_flags_saturation():
    c = simdbloom.CountingFilter(1000, 0.01)
    c.update([b"a", b"a", b"b"])
    assert c.count(b"a") >= 2 and c.count("b") >= 1 and len(c) == 3
    assert c.remove(b"b") is True and "b" not in c
    assert c.remove(b"b") is False and len(c) == 2  # absent: nothing changes
    assert c.discard(b"zz") is None and c.discard(b"a") is None and len(c) == 1
    flags = c.remove_flags([b"a", b"a", b"q"])
    assert flags.tolist() == [True, False, False] and len(c) == 0
    assert c.fill_ratio() == 0 and c.saturated_count() == 0 and c.key_type == "bytes"
    with pytest.raises(TypeError, match="bytes"):
        c.add(7)  # a filter holds byte strings or integers, never both
    c = simdbloom.CountingFilter(1000, 0.01)
    for _ in range(20):
        c.add(7)
    assert c.count(7) == 15 and c.saturated_count() == c.num_hashes
    for _ in range(20):
        c.remove(7)
    assert 7 in c  # saturated counters stick: never a false negative
    fresh = simdbloom.CountingFilter(1000, 0.01).insert_fresh(np.array([1, 2, 1], np.uint64))
    assert fresh.tolist() == [True, True, False]
    out = np.zeros(3, dtype=np.uint8)
    assert c.count(np.array([7, 8, 7], np.uint64), out=out) is out and out[0] == 15
    s = c.stats()
    assert s["layout"] == "blocked" and s["plain_layout"] == "register64"
    assert s["counters"] == c.counter_count and s["saturated"] == c.saturated_count()
    assert simdbloom.CountingFilter(10, 0.01, simdbloom.CountingLayout.classic).layout == \
        simdbloom.CountingLayout.classic
    with pytest.raises(ValueError, match="unknown layout 'block512'"):
        simdbloom.CountingFilter(10, 0.01, "block512")
    with pytest.raises(TypeError, match="one key"):
        c.discard([1, 2])


# ---- ScalableFilter ----

def test_scalable_defaults_merge_stages():
    s = simdbloom.ScalableFilter()  # no n
    assert s.initial_capacity == 1024 and s.fpp == 0.01 and s.stages == 1
    s.update(range(10_000))
    assert s.stages > 1 and s.contains(np.arange(10_000, dtype=np.int64)).all()
    assert s.expected_fpp() < 0.01 and s.stage_capacity(1) == 2048
    st = s.stats()
    assert [x["capacity"] for x in st["stages"]] == [s.stage_capacity(i)
                                                     for i in range(s.stages)]
    assert sum(x["count"] for x in st["stages"]) == len(s) == st["count"]
    first = s.stage(0)
    assert isinstance(first, simdbloom.Filter) and first.bit_count == st["stages"][0]["bits"]
    # Merge: chains of one stage whose counts fit it.
    a = simdbloom.ScalableFilter(10_000, 0.01)
    b = simdbloom.ScalableFilter(10_000, 0.01)
    a.update(range(3000))
    b.update(range(3000, 6000))
    assert a.can_merge(b)
    u = a | b
    assert u.contains(np.arange(6000, dtype=np.int64)).all() and len(u) == 6000
    assert not s.can_merge(s) and a.can_merge(a)
    with pytest.raises(simdbloom.Error) as e:
        s.merge(s.copy())
    assert e.value.code == "incompatible"
    s.clear()
    assert s.stages == 1 and len(s) == 0 and s == simdbloom.ScalableFilter()
    with pytest.raises(simdbloom.Error, match="growth"):
        simdbloom.ScalableFilter(growth=40)


# ---- SpatialFilter ----

def test_spatial_labels_stats_errors():
    f = simdbloom.SpatialFilter(3000, 0.01, 300, seed=1)  # > 255 areas: 2-byte cells
    assert f.cell_bytes == 2
    f.update((i + 5000 for i in range(1000)), 1)
    f.insert(np.arange(1000, dtype=np.uint32), 2)
    before = f.to_bytes()
    with pytest.raises(simdbloom.Error, match="label"):
        f.insert(np.arange(5, dtype=np.uint32), 1)  # below current_label
    with pytest.raises(simdbloom.Error, match="label"):
        f.add(5, 301)
    with pytest.raises(simdbloom.Error, match="out of range"):
        f.add(5, 70000)
    assert f.to_bytes() == before
    f.add(2**64 - 1, 300)
    assert f.classify(-1) == 300 and -1 in f and 2**64 - 2 not in f
    s = f.stats(measure=True)
    assert s["measured"] and len(s["areas"]) == 300 and s["members"] == 2001
    assert s["areas"][0]["members"] == 1000 and s["areas"][1]["label"] == 2
    assert 0 < s["areas"][0]["apriori_fpp"] < 0.01 and s["areas"][299]["cells"] > 0
    assert not f.stats()["measured"]
    out = np.zeros(3, dtype=np.uint16)
    assert f.classify([5001, 10**15, -1], out=out) is out
    assert out[0] >= 1 and out[2] == 300
    with pytest.raises(TypeError, match="uint16"):
        f.classify([1, 2], out=np.zeros(2, dtype=np.uint32))
    # Area names: saved with the filter (format version 2), kept by clear, not compared by ==.
    plain = f.copy()
    f.set_area_name(1, "north é")
    f.set_area_name(300, b"\xff raw")
    assert f.area_name(1) == "north é" and f.area_name(2) == "" and f.area_name(0) == ""
    assert f.area_name(300).encode("utf-8", "surrogateescape") == b"\xff raw"
    f.set_area_name(2, f.area_name(300))  # surrogate escapes set back as the same bytes
    assert f.area_name(2) == f.area_name(300)
    assert f == plain and f.to_bytes() != plain.to_bytes()
    back = simdbloom.SpatialFilter.from_bytes(f.to_bytes())
    assert back.area_name(1) == "north é" and pickle.loads(pickle.dumps(f)).area_name(1)
    assert f.stats()["areas"][0]["name"] == "north é"
    with pytest.raises(simdbloom.Error, match="label"):
        f.set_area_name(301, "x")
    with pytest.raises(TypeError, match="str or bytes"):
        f.set_area_name(1, 5)
    f.clear()
    assert len(f) == 0 and f.current_label == 0 and f.fill_ratio() == 0
    assert f.area_name(1) == "north é"
    f.add(1, 1)  # labels start again
    assert f.classify(1) == 1


# ---- What every class shares ----

def every_class():
    """One object of each class holding 2000 int64 keys (of area/set 1, count 1)."""
    keys = np.arange(2000, dtype=np.int64) * 7
    objs = []
    f = simdbloom.Filter(4000, 0.01)
    f.insert(keys)
    c = simdbloom.CountingFilter(4000, 0.01)
    c.insert(keys)
    s = simdbloom.ScalableFilter(500, 0.01)
    s.insert(keys)
    sp = simdbloom.SpatialFilter(4000, 0.01, 2)
    sp.insert(keys, 1)
    a = simdbloom.ShiftingAssociation(4000, 0.01)
    a.insert(keys, 1)
    x = simdbloom.ShiftingMultiplicity(4000, 0.01, 4)
    x.insert(keys, 1)
    objs += [f, c, s, sp, a, x]
    return keys, objs


def answers(obj, keys, **kw):
    """The bulk (or one key's) answer of any class: contains, classify, query or count."""
    name = next(n for n in ("contains", "classify", "query", "count") if hasattr(obj, n))
    return getattr(obj, name)(keys, **kw)


def value(obj):
    """The value insert/add/update take besides the keys: none for the membership classes, area
    or set 1 or count 1 for the others (what every_class inserted)."""
    return [] if hasattr(obj, "contains") else [1]


NAMES = ["Filter", "CountingFilter", "ScalableFilter", "SpatialFilter", "ShiftingAssociation",
         "ShiftingMultiplicity"]


@pytest.fixture(params=range(6), ids=NAMES)
def one(request):
    keys, objs = every_class()
    return keys, objs[request.param]


def test_bytes_pickle_copy_equality(one, tmp_path):
    keys, obj = one
    cls = type(obj)
    data = obj.to_bytes()
    assert cls.from_bytes(data) == obj and cls.from_bytes(memoryview(data)).to_bytes() == data
    assert cls.from_bytes(bytearray(data)).key_type == "int64"  # in the saved form
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(obj, protocol=proto))
        assert type(back) is cls and back == obj and back.to_bytes() == data
        assert back.key_type == "int64"
    buffers = []
    stream = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(stream) < 200 and bytes(buffers[0].raw()) == data
    assert pickle.loads(stream, buffers=buffers) == obj
    for dup in (obj.copy(), copy.copy(obj), copy.deepcopy(obj)):
        assert dup == obj and dup is not obj and dup.key_type == "int64"
    dup = obj.copy()
    dup.add(2**64 - 3, *value(obj))
    assert dup != obj and obj == cls.from_bytes(data)  # the copy is independent
    assert (obj == "other") is False and (obj != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        hash(obj)
    # Files: paths and file objects, atomically replaced, validated.
    path = tmp_path / "obj.bin"
    obj.save(path)
    assert path.read_bytes() == data and cls.load(str(path)) == obj
    buf = io.BytesIO()
    obj.save(buf)
    assert buf.getvalue() == data
    buf.seek(0)
    assert cls.load(buf) == obj
    with pytest.raises(simdbloom.Error) as e:
        cls.load(io.BytesIO(data[:-1]))
    assert e.value.code == "format"
    with pytest.raises(simdbloom.Error, match="trailing"):
        cls.load(io.BytesIO(data + b"\0"))
    corrupt = bytearray(data)
    corrupt[-1] ^= 1
    with pytest.raises(simdbloom.Error) as e:
        cls.from_bytes(bytes(corrupt))
    assert e.value.code == "format"
    with pytest.raises(simdbloom.Error) as e:
        cls.load(tmp_path / "missing")
    assert e.value.code == "io" and "missing" in str(e.value)


def test_queries_and_no_false_negatives(one):
    keys, obj = one
    got = answers(obj, keys)
    assert isinstance(got, np.ndarray) and len(got) == len(keys) and (got != 0).all()
    assert all(int(k) in obj for k in keys[:100])
    assert [int(k) in obj for k in keys[:100]] == (got[:100] != 0).tolist()
    if isinstance(obj, simdbloom.Filter):  # an estimate from the bits
        assert len(obj) == round(obj.approximate_count()) and abs(len(obj) - 2000) < 60
    else:  # counted: inserts (minus removes), keys counted at insert, members, items
        assert len(obj) == 2000
    lst = answers(obj, keys.tolist())  # a list of Python ints: the same 8-byte keys
    assert np.array_equal(lst, got)
    assert np.array_equal(answers(obj, np.array([], dtype=np.int64)), got[:0])
    # A key is its value, whatever its type.
    assert obj.hash(7) == obj.hash(np.int64(7)) == obj.hash(np.int32(7)) == obj.hash(np.uint8(7))
    assert obj.hash(-1) == obj.hash(2**64 - 1) == obj.hash(np.int16(-1))


def test_update_same_as_bulk(one):
    keys, obj = one
    empty = obj.copy()
    empty.clear()
    assert empty.key_type == "int64" and len(empty) == 0  # clear keeps the key type
    for form in [(int(k) for k in keys), keys.tolist(), keys, iter(keys.tolist())]:
        g = empty.copy()
        g.update(form, *value(obj))
        assert g == obj and g.key_type == "int64", type(form)
    with pytest.raises(TypeError, match="one key"):
        empty.update("abc", *value(obj))


def test_repr_and_key_type(one):
    keys, obj = one
    text = repr(obj)
    name = type(obj).__name__
    assert text.startswith("simdbloom.%s(" % name) and "fill=" in text and "num_hashes=" in text
    assert ("bits=" in text) or ("counters=" in text) or ("cells=" in text)
    assert obj.key_type == "int64"
    obj.add(np.uint32(1), *value(obj))  # integers of any type: still 'int64'
    assert obj.key_type == "int64"
    obj.key_type = "int64"  # the type it holds: nothing changes
    with pytest.raises(ValueError, match="int64"):
        obj.key_type = "bytes"  # declared once
    with pytest.raises(ValueError, match="key_type"):
        obj.key_type = None
    with pytest.raises(TypeError, match="int64"):
        obj.add(b"x", *value(obj))  # a byte string on an integer filter
    assert obj.key_type == "int64"


def test_pandas_nullable_batches(one):
    pd = pytest.importorskip("pandas")
    keys, obj = one
    probes = pd.array([int(keys[0]), None, int(keys[1])], dtype="Int64")
    got = answers(obj, probes)
    plain = answers(obj, keys[:2])
    assert got.tolist() == [plain[0], 0, plain[1]]  # a null: 0 / False


def test_bad_input_changes_nothing(one):
    keys, obj = one
    before = obj.to_bytes()
    v = value(obj)
    for bad, exc in [(np.zeros(3, dtype=np.float64), TypeError), (None, TypeError),
                     (np.zeros((2, 2), dtype=np.uint64), TypeError),
                     (keys[::2], ValueError), ([1, "a"], TypeError),
                     (simdbloom.Binary(np.array([0, 9], np.int64), b"abc"), ValueError)]:
        with pytest.raises(exc):
            obj.insert(bad, *v)
        with pytest.raises(exc):
            answers(obj, bad)
    with pytest.raises(TypeError):
        obj.add(keys, *v)  # a batch is not one key
    with pytest.raises(TypeError):
        obj.add(1.5, *v)
    assert obj.to_bytes() == before


def test_bulk_calls_release_the_gil(one):
    """As test_api's, for every class: a bulk query, and a bulk insert (but into the scalable
    chain, whose many stages make it slow)."""
    _, obj = one
    big = np.arange(3 * 10**6, dtype=np.uint64)
    target = obj.copy()
    target.clear()
    cpp_oracle.assert_releases_gil(lambda: answers(target, big))
    if not isinstance(obj, simdbloom.ScalableFilter):
        cpp_oracle.assert_releases_gil(lambda: target.insert(big, *value(obj)))


@pytest.mark.parametrize("which", [0, 1, 3, 4, 5], ids=[NAMES[i] for i in (0, 1, 3, 4, 5)])
def test_threads_on_one_object(which):
    """Bulk inserts from 4 Python threads into one object: the lock keeps them apart, so the
    bytes equal one thread's inserts of the same keys (in any order: every class but the
    scalable chain, whose stage boundaries depend on the order of inserts)."""
    _, objs = every_class()
    obj = objs[which]
    shared = obj.copy()
    shared.clear()
    extra = np.arange(100_000, 140_000, dtype=np.int64)
    errors = []

    def work(part):
        try:
            for chunk in np.array_split(part, 10):
                shared.insert(chunk, *value(obj))
                assert (answers(shared, chunk) != 0).all()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(p,)) for p in np.array_split(extra, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    seq = obj.copy()
    seq.clear()
    seq.insert(extra, *value(obj))
    assert shared == seq


def test_prehashed_keys(one):
    """hash() of each key, passed back with prehashed=True, stands for the key."""
    keys, obj = one
    empty = obj.copy()
    empty.clear()
    hashes = np.array([obj.hash(int(k)) for k in keys], dtype=np.uint64)
    g = empty.copy()
    g.insert(hashes, *value(obj), prehashed=True)
    assert g == obj and g.key_type == "int64"  # the key type clear kept; pre-hashed sets none
    assert np.array_equal(answers(obj, keys), answers(obj, hashes, prehashed=True))
    with pytest.raises(TypeError, match="uint64"):
        obj.insert(np.zeros(2, dtype=np.uint32), *value(obj), prehashed=True)


@pytest.mark.parametrize("which", [0, 1, 2], ids=NAMES[:3])
def test_membership_results_agree(which):
    """select, contains_bitmap, insert_fresh and `out=` of the membership classes agree with
    contains, nulls included."""
    pd = pytest.importorskip("pandas")
    _, objs = every_class()
    obj = objs[which]
    probes = np.arange(0, 30_000, 3, dtype=np.int64)
    hits = obj.contains(probes)
    assert np.array_equal(obj.select(probes), np.flatnonzero(hits))
    bits = np.unpackbits(obj.contains_bitmap(probes), bitorder="little")[:len(probes)]
    assert np.array_equal(bits.astype(bool), hits)
    out = np.zeros(len(probes), dtype=np.uint8)
    assert obj.contains(probes, out=out) is out and np.array_equal(out.astype(bool), hits)
    nullable = pd.array([0, None, 7, None, 5], dtype="Int64")
    expect = [bool(obj.contains(0)), False, bool(obj.contains(7)), False, bool(obj.contains(5))]
    assert obj.contains(nullable).tolist() == expect
    assert obj.select(nullable).tolist() == [i for i, e in enumerate(expect) if e]
    bits = np.unpackbits(obj.contains_bitmap(nullable), bitorder="little")[:5]
    assert bits.astype(bool).tolist() == expect
    g = obj.copy()
    g.clear()
    fresh = g.insert_fresh(np.array([1, 2, 1, 3, 2], dtype=np.int64))
    assert fresh.tolist() == [True, True, False, True, False]
    assert g.insert_fresh(nullable).tolist()[1::2] == [False, False]


def test_type_stubs_name_every_method():
    """Every public name of every class (and module function) is in _core.pyi, and every name
    the stubs give a class exists: the stubs follow the module."""
    import ast
    import os

    path = os.path.join(os.path.dirname(simdbloom.__file__), "_core.pyi")
    tree = ast.parse(open(path).read())
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}

    def stub_names(name):
        node = classes[name]
        names = set()
        for item in node.body:
            if isinstance(item, ast.FunctionDef):
                names.add(item.name)
            elif isinstance(item, ast.AnnAssign):
                names.add(item.target.id)
        for base in node.bases:
            if isinstance(base, ast.Subscript):  # a generic base: _Union["Filter"]
                base = base.value
            if isinstance(base, ast.Name) and base.id in classes:
                names |= stub_names(base.id)
        return names

    for name in simdbloom.__all__:
        obj = getattr(simdbloom, name)
        if not isinstance(obj, type):
            if callable(obj) and name != "Error":
                assert name in functions, name
            continue
        if name == "Error":
            continue
        assert name in classes, name
        runtime = {n for n in vars(obj) if not n.startswith("_")}
        if name in ("Layout", "CountingLayout"):  # pybind11 enums: their members
            runtime = set(obj.__members__)
        stubbed = stub_names(name)
        wanted = {n for n in stubbed if not n.startswith("_")}
        assert runtime <= stubbed, (name, sorted(runtime - stubbed))
        assert wanted <= runtime | {"name", "value"}, (name, sorted(wanted - runtime))
        for dunder in ("__contains__", "__len__", "__or__", "__ior__", "__and__", "__le__"):
            if dunder in vars(obj):
                assert dunder in stubbed, (name, dunder)


def test_hostile_inputs_counting_remove(tmp_path):
    """Issue 45, items 2 and 3: a saturated key removed more often than inserted never wraps
    len(); a batch remove returns how many keys it removed, the rest were surely absent."""
    for layout in ("blocked", "classic"):
        c = simdbloom.CountingFilter(100, 0.01, layout)
        for _ in range(15):
            c.add("k")
        assert [c.remove("k") for _ in range(16)] == [True] * 16
        assert len(c) == 0  # was OverflowError (2**64 - 1)
        assert c.count("k") == 15
        c.save(str(tmp_path / "k.sbc"))
        assert len(simdbloom.CountingFilter.load(str(tmp_path / "k.sbc"))) == 0
        c = simdbloom.CountingFilter(100, 0.01, layout)  # integers: a filter of their own
        c.update([7] * 15)
        flags = c.remove_flags(np.full(16, 7, dtype=np.uint64))
        assert flags.dtype == np.bool_ and flags.view(np.uint8).tolist() == [1] * 16
        assert len(c) == 0
        # saturated=True tells them apart: 2 for a key whose counters are all at 15.
        c.add(8)
        report = c.remove_flags(np.array([7, 8, 8], dtype=np.uint64), saturated=True)
        assert report.dtype == np.uint8 and report.tolist() == [2, 1, 0]
        # 1000 keys in, 19000 others removed: exactly the keys answered "maybe", one by one.
        c = simdbloom.CountingFilter(1000, 0.01, layout)
        c.insert(np.arange(1000, dtype=np.uint64))
        others = np.arange(10**6, 10**6 + 19000, dtype=np.uint64)
        one_by_one = simdbloom.CountingFilter.from_bytes(c.to_bytes())
        maybe = sum(one_by_one.remove(int(k)) for k in others)
        removed = c.remove(others)
        assert removed == maybe and 0 < removed < 950
        assert len(c) == 1000 - removed
        assert c.to_bytes() == one_by_one.to_bytes()


def test_hostile_inputs_huge_threads():
    """Issue 45, item 8: threads=2**31 (the process was killed) or 2**32 - 1 costs what the
    threads used cost: the same answers as one thread, in seconds, memory far below a GB."""
    import resource
    import time
    f = simdbloom.Filter(300000, 0.01)
    keys = np.arange(200000, dtype=np.uint64)
    f.insert(keys[:100000])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    for n in (100, 200000):
        some = keys[:n]
        want = f.contains(some)
        for t in (2**31, 2**32 - 1):
            assert np.array_equal(f.contains(some, threads=t), want)
            assert np.array_equal(f.contains_bitmap(some, threads=t), f.contains_bitmap(some))
            assert np.array_equal(f.select(some, threads=t), f.select(some))
            g = simdbloom.Filter.with_bits(f.bit_count, f.num_hashes, f.layout, f.seed)
            h = g.copy()
            g.insert(some, threads=t)
            h.insert(some)
            assert g.to_bytes() == h.to_bytes()
    assert time.monotonic() - start < 10
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024  # KiB


def test_hostile_inputs_save_writer_changes_filter():
    """Issue 45, item 7: save(file_object) whose write() changes the same filter deadlocked (the
    object's lock held across write()); run in a child so a regression fails instead of hanging."""
    import subprocess
    import sys
    code = r"""
import io, simdbloom
for make, add in [(lambda: simdbloom.Filter(1000, 0.01), "add"),
                  (lambda: simdbloom.CountingFilter(1000, 0.01), "add"),
                  (lambda: simdbloom.ScalableFilter(100, 0.01), "add"),
                  (lambda: simdbloom.SpatialFilter(1000, 0.01, 2), None)]:
    f = make()
    if add:
        f.update(["a", "b"])
    before = f.to_bytes()
    class Writer(io.BytesIO):
        calls = 0
        def write(self, b):
            Writer.calls += 1
            if add:
                getattr(f, add)("x%d" % Writer.calls)
            else:
                f.insert(["x%d" % Writer.calls], 1)
            return super().write(b)
    out = Writer()
    f.save(out)
    assert out.getvalue() == before, type(f)
    assert Writer.calls >= 1 and ("x1" in f if add else f.classify("x1") == 1), type(f)
print("ok")
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "ok\n", p.stderr


def test_hostile_inputs_update_keeps_yielded_keys():
    """Issue 45, item 11: update(iterable) inserts every key yielded before the iterable raises
    (70,000: only the first 65,536-key chunk was kept) or before a bad item, in every class."""
    class Boom(Exception):
        pass

    def gen(n):
        for i in range(n):
            yield "k%d" % i
        raise Boom("at %d" % n)

    makers = [lambda: simdbloom.Filter(100_000, 0.001),
              lambda: simdbloom.CountingFilter(100_000, 0.001),
              lambda: simdbloom.ScalableFilter(100_000, 0.001)]
    for make in makers:
        f = make()
        with pytest.raises(Boom, match="at 70000"):
            f.update(gen(70_000))
        keys = ["k%d" % i for i in range(70_000)]
        assert f.contains(keys).all(), type(f)
        want = make()
        want.update(keys)
        assert f.to_bytes() == want.to_bytes(), type(f)
        # A bad item: the keys before it are in, the one after it is not.
        g = make()
        with pytest.raises(TypeError, match="item 3"):
            g.update(["a", "b", "c", 1.5, "d"])
        assert g.contains(["a", "b", "c"]).all() and "d" not in g
    s = simdbloom.SpatialFilter(100_000, 0.001, 2)
    with pytest.raises(Boom, match="at 70000"):
        s.update(gen(70_000), 1)
    assert (s.classify(["k%d" % i for i in range(70_000)]) == 1).all()


def test_hostile_inputs_out_overlaps_keys_and_self_merge():
    """Issue 45, item 12: an `out` sharing memory with the keys is refused (the results
    overwrote keys not yet read); merging a filter with itself equals merging a copy."""
    f = simdbloom.Filter(1000, 0.01)
    keys = np.arange(1, 65, dtype=np.uint64)
    f.insert(keys[:32])
    kept = keys.copy()
    msg = "out: shares memory with the keys"
    for out in (keys.view(np.uint8)[:64], keys.view(np.uint8)[8:72].view(np.bool_)):
        with pytest.raises(ValueError, match=msg):
            f.contains(keys, out=out)
    assert np.array_equal(keys, kept)
    data = bytearray(b"abcdefgh" * 8)
    binary = simdbloom.Binary(np.arange(0, 65, dtype=np.int64), data)
    with pytest.raises(ValueError, match=msg):
        f.contains(binary, out=np.frombuffer(data, dtype=np.uint8))
    c = simdbloom.CountingFilter(1000, 0.01)
    c.insert(keys)
    with pytest.raises(ValueError, match=msg):
        c.count(keys, out=keys.view(np.uint8)[:64])
    assert np.array_equal(keys, kept)
    # A separate array (and another view of other memory) is fine.
    assert f.contains(keys, out=np.zeros(64, np.bool_)).tolist() == [True] * 32 + \
        f.contains(keys[32:]).tolist()
    # Self-merge: as merging a copy (inserted_count doubles; was unchanged), every class.
    for g in (simdbloom.Filter(1000, 0.01), simdbloom.CountingFilter(1000, 0.01),
              simdbloom.ScalableFilter(1000, 0.01)):
        g.update(["a", "b", "c"])
        h = g.copy()
        h.merge(g.copy())
        g.merge(g)
        assert g.to_bytes() == h.to_bytes(), type(g)
        g |= g
        h |= h.copy()
        assert g.to_bytes() == h.to_bytes(), type(g)
    f2 = simdbloom.Filter(1000, 0.01)
    f2.update(["a", "b", "c"])
    f2.merge(f2)
    assert f2.inserted_count == 6


def test_hostile_inputs_load_says_why(tmp_path):
    """Issue 45: load (and map) of a path that cannot be opened says why: a missing file is
    FileNotFoundError, an unreadable one PermissionError (OSErrors), each also simdbloom.Error
    (code 'io') with the library's message and the reason."""
    missing = str(tmp_path / "missing.sbf")
    loaders = [simdbloom.Filter.load, simdbloom.CountingFilter.load, simdbloom.ScalableFilter.load,
               simdbloom.SpatialFilter.load, simdbloom.ShiftingAssociation.load,
               simdbloom.ShiftingMultiplicity.load, simdbloom.Filter.map,
               simdbloom.CountingFilter.map]
    for load in loaders:
        with pytest.raises(FileNotFoundError) as e:
            load(missing)
        assert isinstance(e.value, simdbloom.Error) and e.value.code == "io"
        assert e.value.errno == errno.ENOENT and e.value.filename == missing
        assert "cannot open " + missing in str(e.value) and "No such file" in str(e.value)
    unreadable = tmp_path / "unreadable.sbf"
    simdbloom.Filter(100, 0.01).save(unreadable)
    os.chmod(unreadable, 0)
    if os.geteuid() != 0:  # root reads it anyway
        for load in (simdbloom.Filter.load, simdbloom.Filter.map):
            with pytest.raises(PermissionError) as e:
                load(unreadable)
            assert isinstance(e.value, simdbloom.Error) and e.value.errno == errno.EACCES
    else:
        assert simdbloom.Filter.load(unreadable) == simdbloom.Filter(100, 0.01)


def test_hostile_inputs_scalable_capacity_exhausted():
    """Issue 45: a chain that reaches its rate floor raises code 'capacity_exhausted' (it was
    'out_of_memory', "its rate 0.000000 would be below 1e-9")."""
    s = simdbloom.ScalableFilter(1, 0.01, growth=1.0, tightening=0.5)
    with pytest.raises(simdbloom.Error, match=r"capacity exhausted: cannot add stage 23: its rate "
                       r"5\.96e-10 would be below 1e-9") as e:
        s.insert(np.arange(1000, dtype=np.uint64))
    assert e.value.code == "capacity_exhausted"


def test_hostile_inputs_counts_and_names():
    """Issue 45: a bool is not a count (Filter(True, 0.01) was a filter for one key); area names
    of any bytes read back by area_name() are set again unchanged; NumPy's 'S' arrays drop
    trailing NULs (documented), a list keeps them."""
    for make in (lambda: simdbloom.Filter(True, 0.01), lambda: simdbloom.Filter(n=False, fpp=0.01),
                 lambda: simdbloom.Filter.create(True, 0.01),
                 lambda: simdbloom.CountingFilter(True, 0.01),
                 lambda: simdbloom.ScalableFilter(True), lambda: simdbloom.SpatialFilter(True, 0.01, 2),
                 lambda: simdbloom.ShiftingAssociation(True, 0.01),
                 lambda: simdbloom.ShiftingMultiplicity(True, 0.01, 4)):
        with pytest.raises(TypeError, match=r": (n|initial_capacity) must be an int, got "
                                            r"(True|False) \(bool\)"):
            make()
    assert simdbloom.Filter(np.uint32(1000), 0.01) == simdbloom.Filter(1000, 0.01)
    s = simdbloom.SpatialFilter(100, 0.01, 2)
    rnd = np.random.default_rng(45)
    for size in list(range(8)) * 300:
        raw = rnd.integers(0, 256, size, dtype=np.uint8).tobytes()
        s.set_area_name(1, raw)
        name = s.area_name(1)
        s.set_area_name(2, name)
        assert s.area_name(2) == name and name.encode("utf-8", "surrogateescape") == raw
    f = simdbloom.Filter(100, 0.001)
    f.update([b"a\0"])
    assert f.contains([b"a\0"]).tolist() == [True]
    assert np.array([b"a\0"])[0] == b"a"  # NumPy's rule, which the README states
