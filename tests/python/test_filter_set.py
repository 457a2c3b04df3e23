# SPDX-License-Identifier: Apache-2.0
"""simdbloom.FilterSet: one batch against many filters answers what a contains() call per filter
answers (contains as (filter_index, key_index), first, count), for integer and string keys, mixed
layouts and seeds, pandas nullable batches (nulls match nothing), threads; bad input raises."""

import numpy as np
import pytest

import simdbloom


def _filters(keys, strings=False):
    fs = []
    for i, (layout, seed) in enumerate([("block512", 0), ("split_block256", 0), ("classic", 3),
                                        ("register64", 0), ("block512", 9)]):
        f = simdbloom.Filter(2000, 0.01, layout=layout, seed=seed)
        part = keys[i * 300:i * 300 + 900]
        f.insert(part)
        fs.append(f)
    fs.append(simdbloom.Filter(100, 0.01, key_type="bytes" if strings else "int64"))  # empty
    return fs


def _expected(fs, keys):
    hits = np.array([f.contains(keys) for f in fs])  # filters x keys
    key_index, filter_index = np.nonzero(hits.T)  # key order, then filter order
    first = np.where(hits.any(axis=0), hits.argmax(axis=0), -1).astype(np.int32)
    return filter_index.astype(np.uint32), key_index.astype(np.uint32), first, hits.sum(axis=0)


@pytest.mark.parametrize("kind", ["u64", "int32", "str"])
def test_equals_a_call_per_filter(kind):
    rng = np.random.default_rng(43)
    keys = rng.integers(0, 2**63, 4000, dtype=np.uint64)
    if kind == "int32":
        keys = keys.astype(np.int32)
    if kind == "str":
        keys = np.array([f"key-{k}" for k in keys[:3000]], dtype=object)
    fs = _filters(keys, strings=kind == "str")
    s = simdbloom.FilterSet(fs)
    assert len(s) == len(fs) and s[0] is fs[0] and s[-1] is fs[-1] and list(s) == fs
    fi, ki, first, count = _expected(fs, keys)
    assert len(fi) > 3000
    for threads in (1, 2):
        got_f, got_k = s.contains(keys, threads=threads)
        assert got_f.dtype == np.uint32 and got_k.dtype == np.uint32
        np.testing.assert_array_equal(got_f, fi)
        np.testing.assert_array_equal(got_k, ki)
        np.testing.assert_array_equal(s.first(keys, threads=threads), first)
        np.testing.assert_array_equal(s.count(keys, threads=threads), count)


def test_python_lists_and_prehashed():
    fs = _filters(list(range(0, 3000)))
    s = simdbloom.FilterSet(fs)
    keys = [5, 2000, 10**6, -1]
    fi, ki, first, count = _expected(fs, keys)
    np.testing.assert_array_equal(s.first(keys), first)
    assert s.first(keys)[0] == 0 and s.first(keys)[1] >= 0
    # Pre-hashed keys: the same hashes for every filter (here those of the first filter's hash).
    h = np.array([fs[0].hash(k) for k in keys], dtype=np.uint64)
    hits = np.array([f.contains(h, prehashed=True) for f in fs])
    np.testing.assert_array_equal(s.count(h, prehashed=True), hits.sum(axis=0))


def test_pandas_nullable_nulls_match_nothing():
    pd = pytest.importorskip("pandas")
    fs = _filters(list(range(3000)))
    s = simdbloom.FilterSet(fs)
    col = pd.array([1, None, 2, None, 2000], dtype="Int64")
    first = s.first(col)
    assert first[1] == -1 and first[3] == -1 and first[0] == 0 and first[4] >= 0
    assert list(s.count(col)[[1, 3]]) == [0, 0]
    fi, ki = s.contains(col)
    assert 1 not in ki and 3 not in ki and 0 in ki and 4 in ki


def test_errors():
    f = simdbloom.Filter(100, 0.01, key_type="int64")
    b = simdbloom.Filter(100, 0.01, key_type="bytes")
    with pytest.raises(TypeError):
        simdbloom.FilterSet([f, "not a filter"])
    with pytest.raises(TypeError):
        simdbloom.FilterSet([f, b]).first([1, 2])  # integers on a bytes filter
    with pytest.raises(IndexError):
        simdbloom.FilterSet([f])[1]
    assert list(simdbloom.FilterSet([]).first([1, 2])) == [-1, -1]
    empty_f, empty_k = simdbloom.FilterSet([f]).contains([])
    assert len(empty_f) == 0 and len(empty_k) == 0
