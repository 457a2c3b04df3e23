# SPDX-License-Identifier: Apache-2.0
"""Issue 40, "Python that feels like Python": bool() in O(1) and len() that never raises
(item 10), constructors that name the argument and the value they refuse (11), pandas nullable
dtypes and Series answers (12), set's union()/intersection() (13), and the single-key fast path
of `in` and add() answering exactly as the general path (14)."""

import pickle
import re

import numpy as np
import pandas as pd
import pytest

import simdbloom

MEMBERSHIP = [
    ("Filter", lambda: simdbloom.Filter(1000, 0.01)),
    ("CountingFilter", lambda: simdbloom.CountingFilter(1000, 0.01)),
    ("ScalableFilter", lambda: simdbloom.ScalableFilter(100, 0.01)),
]
# Every class: an empty object and how one key goes in.
EVERY = MEMBERSHIP + [
    ("SpatialFilter", lambda: simdbloom.SpatialFilter(1000, 0.01, 3)),
    ("ShiftingAssociation", lambda: simdbloom.ShiftingAssociation(1000, 0.01)),
    ("ShiftingMultiplicity", lambda: simdbloom.ShiftingMultiplicity(1000, 0.01, 4)),
]


def add_one(name, f, key):
    if name == "SpatialFilter":
        f.add(key, 2)
    elif name == "ShiftingAssociation":
        f.add(key, simdbloom.ShiftingAssociation.BOTH)
    elif name == "ShiftingMultiplicity":
        f.add(key, 3)
    else:
        f.add(key)


# ---- 10: bool() and len() ----

@pytest.mark.parametrize("name,make", EVERY, ids=[e[0] for e in EVERY])
def test_bool_is_its_own_call_and_says_whether_anything_was_inserted(name, make):
    cls = getattr(simdbloom, name)
    # bool() has its own O(1) method: it never falls back on __len__ (Filter's scans the bits).
    assert "__bool__" in vars(cls)
    f = make()
    assert not f and bool(f) is False
    add_one(name, f, 12345)
    assert f and bool(f) is True
    assert bool(pickle.loads(pickle.dumps(f))) and bool(f.copy())
    assert not make().copy()
    if hasattr(f, "clear"):
        f.clear()
        assert not f


def test_filter_bool_counts_inserts_and_merges_not_bits():
    f = simdbloom.Filter(1000, 0.01)
    g = f.copy()
    g.insert(np.arange(10, dtype=np.uint64))
    assert not f
    f.merge(g)  # keys merged in are inserted keys
    assert f
    assert simdbloom.Filter.from_bytes(g.to_bytes())
    # Parquet's bytes hold no count: the bits tell.
    p = simdbloom.Filter(1000, 0.01, layout="split_block256")
    assert not simdbloom.Filter.from_parquet(p.to_parquet())
    p.add(7)
    q = simdbloom.Filter.from_parquet(p.to_parquet(), key_type="int64")
    assert q and q.copy() and 7 in q


def test_bool_does_not_call_len():
    class Spy(simdbloom.Filter):
        def __len__(self):
            raise AssertionError("bool() called len()")

    s = Spy(1000, 0.01)
    assert not s
    s.add(1)
    assert s


def test_len_of_a_saturated_filter_is_the_cap():
    f = simdbloom.Filter.with_bits(512, 4)
    assert len(f) == 0
    f.insert(np.arange(100_000, dtype=np.uint64))
    assert f.fill_ratio() == 1.0 and f.approximate_count() == float("inf")
    cap = round(np.log(512) / -np.log1p(-4 / 512))  # the estimate with one bit left clear
    assert len(f) == cap == 795
    # Below saturation len() is the estimate, never above the cap, growing with the bits.
    g = simdbloom.Filter.with_bits(512, 4)
    last = 0
    for i in range(0, 3000, 50):
        g.insert(np.arange(i, i + 50, dtype=np.uint64))
        est = g.approximate_count()
        assert len(g) == min(round(est), cap) if est != float("inf") else len(g) == cap
        assert last <= len(g) <= cap
        last = len(g)
    assert len(g) == cap


# ---- 11: constructors ----

BAD_VALUES = [
    # (call, exception, message regex)
    (lambda: simdbloom.Filter(-1, 0.01), ValueError, r"^Filter: n = -1 is outside 1\.\."),
    (lambda: simdbloom.Filter(0, 0.01), ValueError, r"^Filter: n = 0 is outside 1\.\."),
    (lambda: simdbloom.Filter(1.5, 0.01), TypeError, r"^Filter: n must be an int, got 1\.5"),
    (lambda: simdbloom.Filter("10", 0.01), TypeError, r"^Filter: n must be an int, got '10'"),
    (lambda: simdbloom.Filter(None, 0.01), TypeError, r"^Filter: n must be an int, got None"),
    (lambda: simdbloom.Filter(2**64, 0.01), ValueError, r"^Filter: n = 18446744073709551616 is"),
    (lambda: simdbloom.Filter(float("inf"), 0.01), TypeError, r"^Filter: n must be an int"),
    (lambda: simdbloom.Filter(10, "x"), TypeError, r"^Filter: fpp must be a number.*'x'"),
    (lambda: simdbloom.Filter(10, 0.01, seed=-1), ValueError, r"^Filter: seed = -1 is outside"),
    (lambda: simdbloom.Filter.create(-5, 0.01), ValueError, r"^Filter: n = -5"),
    (lambda: simdbloom.Filter.with_bits(-1, 3), simdbloom.Error, r"^Filter.with_bits: bits = -1"),
    (lambda: simdbloom.Filter.with_bits(512, 2.5), TypeError,
     r"^Filter.with_bits: num_hashes must be an int, got 2\.5"),
    (lambda: simdbloom.CountingFilter(-1, 0.01), ValueError, r"^CountingFilter: n = -1"),
    (lambda: simdbloom.CountingFilter(10, None), TypeError, r"^CountingFilter: fpp must be a"),
    (lambda: simdbloom.ScalableFilter(-1), ValueError,
     r"^ScalableFilter: initial_capacity = -1"),
    (lambda: simdbloom.ScalableFilter(10, 0.01, "2"), TypeError,
     r"^ScalableFilter: growth must be a number"),
    (lambda: simdbloom.SpatialFilter(-1, 0.01, 3), ValueError, r"^SpatialFilter: n = -1"),
    (lambda: simdbloom.SpatialFilter(10, 0.01, 70000), ValueError,
     r"^SpatialFilter: num_areas = 70000 is outside 1\.\.65535"),
    (lambda: simdbloom.SpatialFilter(10, 0.01, 2.5), TypeError,
     r"^SpatialFilter: num_areas must be an int, got 2\.5"),
    (lambda: simdbloom.ShiftingAssociation(-1, 0.01), ValueError,
     r"^ShiftingAssociation: n = -1"),
    (lambda: simdbloom.ShiftingMultiplicity(10, 0.01, -3), ValueError,
     r"^ShiftingMultiplicity: max_count = -3 is outside 1\.\.64"),
    (lambda: simdbloom.ShiftingMultiplicity(1e3, 0.01, 4, seed=-2), ValueError,
     r"^ShiftingMultiplicity: seed = -2"),
]


@pytest.mark.parametrize("call,exc,match", BAD_VALUES)
def test_constructors_name_the_argument_and_the_value(call, exc, match):
    with pytest.raises(exc, match=match) as e:
        call()
    assert "incompatible" not in str(e.value)


def test_constructors_take_integral_floats_and_numpy_numbers():
    assert simdbloom.Filter(1e6, 0.01) == simdbloom.Filter(1_000_000, 0.01)
    assert simdbloom.Filter(np.int32(1000), np.float32(0.01)).bit_count == \
        simdbloom.Filter(1000, float(np.float32(0.01))).bit_count
    assert simdbloom.CountingFilter(1e4, 0.01) == simdbloom.CountingFilter(10_000, 0.01)
    assert simdbloom.ScalableFilter(1e3).stage_capacity(0) == 1000
    assert len(simdbloom.SpatialFilter(1e3, 0.01, 3.0).stats()["areas"]) == 3
    assert simdbloom.ShiftingAssociation(1e3, 0.01, seed=7.0).seed == 7
    assert simdbloom.ShiftingMultiplicity(1e3, 0.01, 4.0).max_count == 4


def test_int_fpp_is_a_number_the_library_checks():
    with pytest.raises(simdbloom.Error, match="fpp must be in"):
        simdbloom.Filter(10, 1)


# ---- 12: pandas ----

NULLABLE = [
    ("string", ["a", None, "b", "zz"], ["a", "b"]),
    ("Int64", [1, None, 2, 99], [1, 2]),
    ("UInt32", [1, None, 2, 99], [1, 2]),
]


@pytest.mark.parametrize("dtype,values,inserted", NULLABLE, ids=[n[0] for n in NULLABLE])
def test_nullable_dtypes_skip_nulls(dtype, values, inserted):
    for make in (lambda: simdbloom.Filter(1000, 0.01), lambda: simdbloom.CountingFilter(1000, 0.01),
                 lambda: simdbloom.ScalableFilter(100, 0.01)):
        f = make()
        s = pd.Series(values[:3], dtype=dtype)
        n = f.insert(s)
        assert n == 2  # the surely new keys: the nulls are not keys
        ref = make()
        ref.insert(np.array(inserted) if dtype != "string" else inserted)
        assert f.to_bytes() == ref.to_bytes()
        got = f.contains(pd.Series(values, dtype=dtype))
        assert got.tolist() == [True, False, True, False]  # a null is never present


def test_categorical_with_nulls_skips_them():
    for cat in (pd.Categorical(["a", None, "c"]), pd.Categorical([1, None, 3], categories=[1, 3])):
        f = simdbloom.Filter(1000, 0.01)
        f.insert(pd.Series(cat))
        assert f.inserted_count == 2
        assert f.contains(pd.Series(cat)).tolist() == [True, False, True]
        f.update(pd.Series(cat))
        assert f.inserted_count == 4


def test_contains_of_a_series_is_a_series_with_its_index():
    f = simdbloom.Filter(1000, 0.01)
    f.update(["a", "c"])
    s = pd.Series(["a", "b", "c"], index=[10, 20, 30], name="k", dtype="string")
    got = f.contains(s)
    assert isinstance(got, pd.Series) and got.dtype == bool and got.name == "k"
    assert got.index.equals(s.index) and got.to_dict() == {10: True, 20: False, 30: True}
    plain = pd.Series([b"a", b"x"], index=["p", "q"])
    assert f.contains(plain).to_dict() == {"p": True, "q": False}
    assert s[f.contains(s)].tolist() == ["a", "c"]  # a mask for the Series itself
    ints = simdbloom.Filter(1000, 0.01)
    ints.insert(np.arange(5, dtype=np.uint64))
    u = pd.Series(np.array([3, 9], dtype=np.uint64), index=[5, 6])
    assert ints.contains(u).to_dict() == {5: True, 6: False}
    # Other queries alike; arrays, lists and out= stay arrays.
    c = simdbloom.CountingFilter(1000, 0.01)
    c.update(["a", "a"])
    assert c.count(pd.Series(["a", "b"], index=[7, 8])).to_dict() == {7: 2, 8: 0}
    assert isinstance(f.contains(np.array(["a"])), np.ndarray)
    assert isinstance(f.contains(["a"]), np.ndarray)
    out = np.zeros(3, dtype=bool)
    assert f.contains(s, out=out) is out and out.tolist() == [True, False, True]


# ---- 13: union, intersection ----

@pytest.mark.parametrize("name,make", MEMBERSHIP, ids=[m[0] for m in MEMBERSHIP])
def test_union_returns_a_new_object(name, make):
    a, b, c = make(), make(), make()
    a.update([1, 2])
    b.update([3])
    c.update([4])
    before = a.to_bytes()
    u = a.union(b, c, [5, 6])
    assert type(u) is type(a) and u is not a and a.to_bytes() == before
    assert all(k in u for k in (1, 2, 3, 4, 5, 6))
    assert 5 not in a
    assert a.union().to_bytes() == before  # no others: a copy
    if name != "ScalableFilter":
        assert a.union(b).to_bytes() == (a | b).to_bytes()


def test_filter_intersection():
    a, b, c = (simdbloom.Filter(1000, 0.01) for _ in range(3))
    a.update(range(0, 100))
    b.update(range(50, 150))
    c.update(range(60, 70))
    before = a.to_bytes()
    i = a.intersection(b, c)
    assert a.to_bytes() == before
    assert i.to_bytes() == (a & b & c).to_bytes()
    assert all(k in i for k in range(60, 70))
    with pytest.raises(TypeError, match="intersection: expected Filter"):
        a.intersection([1, 2])
    with pytest.raises(simdbloom.Error):
        a.union(simdbloom.Filter(10, 0.01))


# ---- 14: the single-key fast path ----

def test_in_and_add_are_raw_entry_points():
    for name, _ in MEMBERSHIP:
        cls = getattr(simdbloom, name)
        # Method descriptors of CPython (METH_O, METH_FASTCALL), not pybind11's dispatcher.
        for method in ("add", "contains", "insert"):
            assert type(vars(cls)[method]).__name__ == "method_descriptor", method
        assert "prehashed" in cls.contains.__doc__ and "threads" in simdbloom.Filter.insert.__doc__


KEYS = [0, 1, -1, 5, 2**63 - 1, -2**63, 2**63, 2**64 - 1, 2**64, -2**63 - 1, 10**30,
        np.int8(5), np.uint64(2**64 - 1), np.int32(-1)]
BYTE_KEYS = ["", "a", "é", "key-%d" % 7, b"", b"a", b"\0", bytearray(b"a"), memoryview(b"key-7")]


@pytest.mark.parametrize("name,make", MEMBERSHIP, ids=[m[0] for m in MEMBERSHIP])
def test_fast_path_answers_as_the_general_path(name, make):
    rnd = np.random.default_rng(14)
    ints = [int(v) for v in rnd.integers(-2**63, 2**63, 300, dtype=np.int64)]
    fast, general = make(), make()
    for k in ints[:150] + [5, -1, 2**63]:
        fast.add(k)
        general.insert(np.array([k], dtype=np.int64 if k < 2**63 else np.uint64))
    assert fast.to_bytes() == general.to_bytes()
    for k in ints + KEYS:
        # `in` and contains(k): the fast path for exact ints; prehashed=False: the general one.
        assert (k in fast) == fast.contains(k) == fast.contains(k, prehashed=False) == \
            (k in general)
    # insert(k) answers "surely new" as the general path does.
    a, b = make(), make()
    for k in ints[:100] + ints[:20] + [2**63, 2**63]:
        assert a.insert(k) == b.insert(k, prehashed=False)
    assert a.to_bytes() == b.to_bytes()
    words = ["w%d" % i for i in range(200)]
    fb, gb = make(), make()
    for w in words[:100] + ["é"]:
        fb.add(w)
    gb.insert(words[:100] + ["é"])
    assert fb.to_bytes() == gb.to_bytes()
    for k in words + BYTE_KEYS:
        assert (k in fb) == fb.contains(k) == fb.contains(k, prehashed=False)
    assert [fb.insert(w) for w in ("w1", "new")] == [gb.insert(w, prehashed=False)
                                                      for w in ("w1", "new")]
    assert "w5" in fb and b"w5" in fb and bytearray(b"w5") in fb and "w150" not in fb


@pytest.mark.parametrize("name,make", MEMBERSHIP, ids=[m[0] for m in MEMBERSHIP])
def test_fast_path_errors_are_the_general_paths(name, make):
    f = make()
    f.add(1)
    with pytest.raises(TypeError, match="byte-string key on a filter of int64 keys"):
        "a" in f
    with pytest.raises(TypeError, match="byte-string key on a filter of int64 keys"):
        f.add("a")
    with pytest.raises(TypeError, match="bool is not a key"):
        f.add(True)
    with pytest.raises(TypeError, match="bool is not a key"):
        True in f
    with pytest.raises(TypeError, match="float is not a key"):
        1.5 in f
    with pytest.raises(ValueError, match="outside the 64-bit range"):
        f.add(2**64)
    with pytest.raises(TypeError):
        f.add()
    with pytest.raises(TypeError):
        f.add(1, 2)
    with pytest.raises(TypeError, match="byte-string key on a filter of int64 keys"):
        f.contains("a")
    with pytest.raises(TypeError, match="byte-string key on a filter of int64 keys"):
        f.insert(b"a")
    with pytest.raises(TypeError):
        f.contains()
    with pytest.raises(TypeError):
        f.insert(1, nope=2)
    assert 2**64 not in f
    b = make()
    b.add(b"x")
    with pytest.raises(TypeError, match="integer key 5 on a filter of bytes keys"):
        5 in b
    with pytest.raises(TypeError, match="integer key 5 on a filter of bytes keys"):
        b.add(5)
    with pytest.raises(UnicodeEncodeError):
        "\ud800" in b  # a lone surrogate is no UTF-8 (as before the fast path)
    assert len(pickle.dumps(b)) > 0


def test_fast_path_on_subclasses_and_read_only_maps(tmp_path):
    class Mine(simdbloom.Filter):
        pass

    m = Mine(1000, 0.01)
    m.add(3)
    assert 3 in m and 4 not in m and isinstance(m.copy(), simdbloom.Filter)
    f = simdbloom.Filter(1000, 0.01)
    f.add(9)
    path = str(tmp_path / "f.sbf")
    f.save(path)
    r = simdbloom.Filter.map(path)
    assert 9 in r
    with pytest.raises(simdbloom.Error, match="read"):
        r.add(10)
    assert 10 not in r or r.inserted_count == f.inserted_count
    assert r == f


# ---- 16: the pip route's packages and progress, in lib/python/README.md ----

# What `pip install --no-build-isolation .` from a venv of Debian's python3 needs, and why.
PIP_NEEDS = {
    "cmake": "setup.py runs CMake", "g++": "the compiler", "make": "CMake's generator",
    "libhwy-dev": "find_package(hwy)", "libxxhash-dev": "the library's hashes",
    "pybind11-dev": "the module", "python3-dev": "Python.h", "python3-numpy": "the module",
    "python3-venv": "the venv", "python3-setuptools": "pyproject.toml's backend",
    "python3-wheel": "bdist_wheel (pyproject.toml requires wheel)",
    "python3-build": "the README's last line",
}


def test_readme_pip_section_names_every_package_and_the_progress_flag():
    import pathlib
    readme = pathlib.Path(__file__).resolve().parents[2] / "lib" / "python" / "README.md"
    text = readme.read_text()
    section = text[text.index("With pip, into a virtual environment"):
                   text.index("With CMake, from the build")]
    apt = re.search(r"apt-get install -y ([^`]*?)\n```", section, re.S)
    assert apt, "no apt-get line in the pip section"
    listed = set(apt.group(1).replace("\\", " ").split())
    assert set(PIP_NEEDS) <= listed, sorted(set(PIP_NEEDS) - listed)
    assert "invalid command 'bdist_wheel'" in section  # what a missing python3-wheel says
    block = section[section.index("<!-- pip-commands -->"):]
    assert re.search(r"pip install -v ", block)  # progress shown
    assert re.search(r"takes (about )?\d+ (s|min)", section)  # how long, measured


# ---- An object whose __init__ never ran ----
# pybind11 lets Python make one with cls.__new__(cls) and used to hand its methods uninitialized
# storage as the filter: len() read garbage, add() reported "moved from" by chance. Every call that takes such an object now raises TypeError.
NEVER_INITIALIZED = re.compile("never initialized")


@pytest.mark.parametrize("name,make", EVERY, ids=[e[0] for e in EVERY])
def test_an_object_whose_init_never_ran_raises(name, make):
    cls = type(make())
    bare = cls.__new__(cls)
    calls = [lambda: len(bare), lambda: repr(bare), lambda: add_one(name, bare, 5), bare.copy]
    if name in dict(MEMBERSHIP):
        calls += [lambda: 5 in bare, lambda: bare.contains(np.arange(4, dtype=np.uint64))]
    for call in calls:
        with pytest.raises(TypeError, match=NEVER_INITIALIZED):
            call()

    class Forgetful(cls):
        def __init__(self):  # does not call super().__init__: pybind11 refuses it when made
            pass

    with pytest.raises(TypeError, match="__init__"):
        Forgetful()
    # As an argument: a set operation or comparison with a real object.
    real = make()
    with pytest.raises(TypeError, match=NEVER_INITIALIZED):
        real == bare  # noqa: B015
    assert len(real) == 0  # the real object is untouched


def test_filter_set_and_binary_whose_init_never_ran_raise():
    real = simdbloom.Filter(1000, 0.01)
    bare = simdbloom.Filter.__new__(simdbloom.Filter)
    with pytest.raises(TypeError, match=NEVER_INITIALIZED):
        simdbloom.FilterSet([real, bare])
    with pytest.raises(TypeError, match=NEVER_INITIALIZED):
        real | bare
    bare_set = simdbloom.FilterSet.__new__(simdbloom.FilterSet)
    with pytest.raises(TypeError, match=NEVER_INITIALIZED):
        bare_set.contains(np.arange(4, dtype=np.uint64))
    bare_binary = simdbloom.Binary.__new__(simdbloom.Binary)
    with pytest.raises(TypeError, match=NEVER_INITIALIZED):
        len(bare_binary)
    bytes_filter = simdbloom.Filter(1000, 0.01, key_type="bytes")
    with pytest.raises(TypeError, match=NEVER_INITIALIZED):
        bytes_filter.insert(bare_binary)
    assert len(bytes_filter) == 0
