# SPDX-License-Identifier: Apache-2.0
"""simdbloom.dask on a distributed.LocalCluster of 2 worker processes: the cluster build is
byte-identical to a single-process build (Filter, CountingFilter and ScalableFilter; integer and
string keys, several tree shapes), and the semi-join keeps exactly the rows the filter passes."""

import dask
import dask.array as da
import dask.dataframe as dd
import distributed
import numpy as np
import pandas as pd
import pytest

import simdbloom
import simdbloom.dask as sdask


@pytest.fixture(scope="module")
def client():
    # Worker processes (not threads): filters cross process boundaries pickled, as on a cluster.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, scheduler_port=0) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def single(keys, n, fpp, **kw):
    f = simdbloom.Filter.create(n, fpp, **kw)
    f.insert(keys)
    return f


@pytest.mark.parametrize("split_every", [2, 3, 8])
def test_build_array_byte_identical(client, split_every):
    keys = np.random.default_rng(21).integers(0, 2**64 - 1, 300_007, dtype=np.uint64,
                                                endpoint=True)
    darr = da.from_array(keys, chunks=20_000)  # 16 partitions, the last one short
    assert darr.npartitions == 16
    with distributed.get_task_stream(client) as stream:
        built = sdask.build(darr, len(keys), 0.01, split_every=split_every)
    assert isinstance(built, simdbloom.Filter)
    # The partitions' filters were built in both worker processes, and merged there.
    ran = {}
    for task in stream.data:
        ran.setdefault(task["key"].split("-")[1], set()).add(task["worker"])
    assert len(ran["partition"]) == 2 and "merge" in ran
    expect = single(keys, len(keys), 0.01)
    assert built.to_bytes() == expect.to_bytes()
    assert built.inserted_count == len(keys)


def test_build_layouts_seed_and_lazy(client):
    keys = np.arange(50_000, dtype=np.uint32)
    darr = da.from_array(keys, chunks=7_000)
    for layout in ["register64", "split_block256", "classic"]:
        lazy = sdask.build(darr, 60_000, 0.001, layout=layout, seed=5, compute=False)
        built = lazy.compute()
        expect = single(keys, 60_000, 0.001, layout=layout, seed=5)
        assert built.to_bytes() == expect.to_bytes(), layout


def test_build_series_of_strings_with_nulls(client):
    words = ["key-%d-é" % i for i in range(40_000)]
    series = pd.Series(words, dtype=object)
    series[::97] = None  # nulls never join: skipped
    ds = dd.from_pandas(series, npartitions=5)
    built = sdask.build(ds, None, 0.01)  # n counted first: the non-null keys
    kept = [w for w in series if w is not None]
    expect = single(kept, len(kept), 0.01)
    assert built.to_bytes() == expect.to_bytes()
    assert "key-1-é" in built


def ran_on(stream, prefix):
    """The workers that ran the tasks whose keys start with simdbloom-`prefix`."""
    return {t["worker"] for t in stream.data if t["key"].startswith("simdbloom-" + prefix)}


@pytest.mark.parametrize("layout", ["blocked", "classic"])
def test_build_counting_byte_identical(client, layout):
    r = np.random.default_rng(24)
    keys = r.integers(0, 2**64 - 1, 200_000, dtype=np.uint64, endpoint=True)
    # Repeats across partitions, one key 40 times: its counters saturate at 15 in both builds.
    hot = keys[7]
    keys = np.concatenate([keys, keys[:30_000], np.full(40, hot)])
    r.shuffle(keys)
    darr = da.from_array(keys, chunks=25_000)
    with distributed.get_task_stream(client) as stream:
        built = sdask.build(darr, 200_000, 0.01, kind="counting", layout=layout, split_every=3)
    assert len(ran_on(stream, "partition")) == 2 and ran_on(stream, "merge")
    expect = simdbloom.CountingFilter(200_000, 0.01, layout=layout)
    expect.insert(keys)
    assert isinstance(built, simdbloom.CountingFilter)
    assert built.to_bytes() == expect.to_bytes()
    assert len(built) == len(keys) and built.count(hot) == 15
    assert built.key_type == "int64" and built.saturated_count() == expect.saturated_count()
    # The class as `kind`, n counted first (non-null keys of a string series).
    words = pd.Series(["w%d" % i for i in range(20_000)], dtype=object)
    words[::50] = None
    built = sdask.build(dd.from_pandas(words, npartitions=4), None, 0.01,
                        kind=simdbloom.CountingFilter)
    kept = [w for w in words if w is not None]
    expect = simdbloom.CountingFilter(len(kept), 0.01)
    expect.insert(kept)
    assert built.to_bytes() == expect.to_bytes() and built.key_type == "bytes"


def test_build_scalable_byte_identical(client):
    keys = np.random.default_rng(25).integers(0, 2**63, 100_007, dtype=np.uint64)
    darr = da.from_array(keys, chunks=10_000)  # 11 partitions, in order
    with distributed.get_task_stream(client) as stream:
        built = sdask.build(darr, None, 0.01, kind="scalable")  # no n: the default capacity
    assert len([t for t in stream.data if t["key"].startswith("simdbloom-chain-")]) == 12
    expect = simdbloom.ScalableFilter(fpp=0.01)
    expect.insert(keys)
    assert isinstance(built, simdbloom.ScalableFilter) and built.stages > 5
    assert built.to_bytes() == expect.to_bytes() and built.key_type == "int64"
    # Strings with nulls, a capacity and options; then a semi-join with the chain.
    words = pd.Series(["key-%d" % i for i in range(30_000)], dtype=object)
    words[::31] = None
    built = sdask.build(dd.from_pandas(words, npartitions=5), 2_000, 0.02,
                        kind=simdbloom.ScalableFilter, growth=4.0, tightening=0.9, seed=3,
                        layout="register64")
    kept = [w for w in words if w is not None]
    expect = simdbloom.ScalableFilter(2_000, 0.02, growth=4.0, tightening=0.9, seed=3,
                                      layout="register64")
    expect.insert(kept)
    assert built.to_bytes() == expect.to_bytes() and built.stages == expect.stages > 1
    fact = pd.DataFrame({"k": ["key-%d" % i for i in range(0, 60_000, 3)],
                         "v": np.arange(20_000)})
    out = sdask.semi_join(dd.from_pandas(fact, npartitions=3), "k", built).compute()
    assert set(k for k in fact["k"] if k in set(kept)) <= set(out["k"])
    expect_rows = fact[built.contains(fact["k"].tolist())]
    pd.testing.assert_frame_equal(out.sort_values("v"), expect_rows.sort_values("v"))
    with pytest.raises(ValueError, match="kind"):
        sdask.build(darr, None, 0.01, kind="spatial")
    with pytest.raises(simdbloom.Error, match="growth"):
        sdask.build(darr, None, 0.01, kind="scalable", growth=100.0)


def test_semi_join(client):
    r = np.random.default_rng(22)
    dim_keys = r.integers(0, 2**62, 5_000).astype(np.int64)
    fact = pd.DataFrame({
        "k": np.concatenate([dim_keys[:3_000], r.integers(0, 2**62, 20_000)]).astype(np.int64),
        "v": np.arange(23_000),
    })
    flt = simdbloom.Filter.create(len(dim_keys), 0.01)
    flt.insert(dim_keys)
    ddf = dd.from_pandas(fact, npartitions=6)
    out = sdask.semi_join(ddf, "k", flt).compute()
    expect = fact[flt.contains(fact["k"].to_numpy())]
    pd.testing.assert_frame_equal(out.sort_values("v"), expect.sort_values("v"))
    assert set(dim_keys[:3_000]) <= set(out["k"])  # no inserted key is dropped
    assert len(out) < 3_000 + 0.02 * 20_000  # and few false positives pass
    with pytest.raises(KeyError):
        sdask.semi_join(ddf, "nope", flt)


def test_bad_collections():
    with pytest.raises(TypeError, match="one column"):
        sdask.build(dd.from_pandas(pd.DataFrame({"a": [1]}), npartitions=1), 1, 0.01)
    with pytest.raises(ValueError, match="1-D"):
        sdask.build(da.zeros((4, 4), dtype=np.uint64, chunks=2), 16, 0.01)
    with pytest.raises(simdbloom.Error, match="fpp"):
        sdask.build(da.zeros(4, dtype=np.uint64, chunks=2), 4, 2.0)


def test_nullable_column_build_and_semi_join(client):
    # The filter of a nullable Int32 column and a plain int32 column of the same values agree.
    keys = dd.from_pandas(pd.Series(pd.array([1, None, 3, 7], dtype="Int32")), npartitions=2)
    built = sdask.build(keys, None, 0.01)
    plain = single(np.array([1, 3, 7], dtype=np.int32), 3, 0.01)
    assert built.to_bytes() == plain.to_bytes()
    assert built.key_type == "int64"  # a key is its value; set on the workers, pickled back
    fact = pd.DataFrame({"k": np.array([1, 3, 7, 8], dtype=np.int32), "v": np.arange(4)})
    out = sdask.semi_join(dd.from_pandas(fact, npartitions=2), "k", built).compute()
    expect = fact[plain.contains(fact["k"].to_numpy())]
    assert set(out["k"]) >= {1, 3, 7}
    pd.testing.assert_frame_equal(out.sort_values("v"), expect.sort_values("v"))
    # A nullable probe column: its nulls never join, its values probe as int32.
    nullable = pd.DataFrame({"k": pd.array([1, None, 3, 7, 8], dtype="Int32"),
                             "v": np.arange(5)})
    out = sdask.semi_join(dd.from_pandas(nullable, npartitions=2), "k", built).compute()
    assert set(out["v"]) >= {0, 2, 3} and 1 not in set(out["v"])


def test_semi_join_converts_a_column_of_another_width(client):
    r = np.random.default_rng(23)
    dim = r.integers(-2**31, 2**31, 2_000).astype(np.int32)
    built = sdask.build(da.from_array(dim, chunks=500), len(dim), 0.01)
    assert built.key_type == "int64"  # integers are 8-byte values unless declared
    # An int64 column (what a join on int32 keys against an int64 fact table sees): its values
    # are the keys.
    wide = np.concatenate([dim[:1_000].astype(np.int64), [2**40, -2**40, 2**32]])
    fact = pd.DataFrame({"k": wide, "v": np.arange(len(wide))})
    out = sdask.semi_join(dd.from_pandas(fact, npartitions=3), "k", built).compute()
    assert set(range(1_000)) <= set(out["v"])  # every inserted key joins
    assert len(out) < 1_000 + 0.02 * 1_000
    # Declared 4-byte keys (a Parquet INT32 column): values no int32/uint32 holds never join.
    declared = sdask.build(da.from_array(dim, chunks=500), len(dim), 0.01, key_type="int32")
    assert declared.key_type == "int32"
    out = sdask.semi_join(dd.from_pandas(fact, npartitions=3), "k", declared).compute()
    assert set(range(1_000)) <= set(out["v"]) and not {1_000, 1_001, 1_002} & set(out["v"])
    with pytest.raises(ValueError, match="int32"):  # refused by build, as by insert
        sdask.build(da.from_array(wide, chunks=500), 10_000, 0.01, key_type="int32")
    # A narrower column (int16) and a nullable UInt16: their values.
    small = single(np.array([5, 40_000, -7], dtype=np.int64), 3, 0.01)
    for col in [np.array([5, 6, -7], dtype=np.int16), pd.array([5, None, 40_000], dtype="UInt16")]:
        df = pd.DataFrame({"k": col, "v": np.arange(3)})
        out = sdask.semi_join(dd.from_pandas(df, npartitions=1), "k", small).compute()
        assert {0, 2} <= set(out["v"]), (col, out)
        if pd.isna(col[1]):
            assert 1 not in set(out["v"])
    # Keys of another kind: refused with the column's name, not an empty join.
    words = single(["a", "b"], 2, 0.01)
    with pytest.raises(ValueError, match="bytes.*'k'.*int"):
        sdask.semi_join(dd.from_pandas(fact, npartitions=1), "k", words)
    strings = pd.DataFrame({"k": ["a", "x"], "v": [0, 1]})
    with pytest.raises(ValueError, match="int64.*'k'"):
        sdask.semi_join(dd.from_pandas(strings, npartitions=1), "k", built).compute()
    floats = pd.Series([1.5, 2.5], name="price")
    with pytest.raises(ValueError, match="'price'.*float64"):
        sdask.build(dd.from_pandas(floats, npartitions=1), 10, 0.01)


def test_semi_join_loaded_filter_keeps_its_keys(client, tmp_path):
    """The issue's case: an int32 column against a filter built from int64 keys, saved and
    loaded, returns exactly the rows of the filter in memory (it returned a tenth of them)."""
    r = np.random.default_rng(26)
    keys = r.integers(-2**31, 2**31, 20_000).astype(np.int64)
    day1 = single(keys, 40_000, 0.01, seed=1)
    day1.save(str(tmp_path / "day1.sbf"))
    loaded = simdbloom.Filter.load(str(tmp_path / "day1.sbf"))
    assert loaded.key_type == "int64" and loaded == day1
    probe = np.concatenate([keys[:5_000], r.integers(-2**31, 2**31, 20_000)]).astype(np.int32)
    fact = pd.DataFrame({"k": probe, "v": np.arange(len(probe))})
    ddf = dd.from_pandas(fact, npartitions=4)
    in_memory = sdask.semi_join(ddf, "k", day1).compute()
    reloaded = sdask.semi_join(ddf, "k", loaded).compute()
    pd.testing.assert_frame_equal(reloaded.sort_values("v"), in_memory.sort_values("v"))
    assert set(range(5_000)) <= set(reloaded["v"])  # every inserted key joins
    # Merged with int32 keys of a day-2 filter: still int64, every row of both joins.
    day2 = single(np.array([40], dtype=np.int32), 40_000, 0.01, seed=1)
    loaded.merge(day2)
    assert loaded.key_type == "int64"
    fact2 = pd.DataFrame({"k": np.array([keys[0], keys[1], 40], dtype=np.int64),
                          "v": np.arange(3)})
    out = sdask.semi_join(dd.from_pandas(fact2, npartitions=2), "k", loaded).compute()
    assert set(out["v"]) == {0, 1, 2}
    # An empty batch sets no key type: a later batch of Python ints makes it 'int64'.
    f = simdbloom.Filter.create(1000, 0.01)
    f.insert(np.array([], dtype=np.int32))
    f.insert([10, 20])
    assert f.key_type == "int64"
    # build over partitions some of which are empty: the empty ones add no key type.
    keys = dd.from_pandas(pd.Series(np.array([10, 20, 30], dtype=np.int32)), npartitions=1)
    keys = keys[keys > 15]
    with_empty = dd.concat([keys, keys[keys > 100]])
    built = sdask.build(with_empty, 10, 0.01)
    assert built.key_type == "int64" and 20 in built and np.int32(30) in built


INT_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
NULLABLE = ["Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64"]


def test_key_type_matrix_round_trip(client, tmp_path):
    """Built on the cluster from every integer dtype (and pandas nullable ones), declared int32
    or not, then saved/loaded, pickled through the workers or kept in memory: every column of
    every integer dtype holding the inserted values joins all its rows, and the same rows as
    the filter in memory."""
    values = np.array([0, 1, 5, 7, 42, 99, 100, 127])
    probes = {dt: pd.DataFrame({"k": values.astype(dt), "v": np.arange(len(values))})
              for dt in INT_DTYPES}
    probes.update({dt: pd.DataFrame({"k": pd.array(list(values) + [None], dtype=dt),
                                     "v": np.arange(len(values) + 1)}) for dt in NULLABLE})
    probes["object"] = pd.DataFrame({"k": pd.Series([int(v) for v in values], dtype=object),
                                     "v": np.arange(len(values))})
    columns = [pd.Series(values.astype(dt)) for dt in INT_DTYPES] + \
        [pd.Series(pd.array(list(values) + [None], dtype=dt)) for dt in NULLABLE]
    for key_type, some in [(None, columns), ("int32", columns[::5])]:
        for column in some:
            built = sdask.build(dd.from_pandas(column, npartitions=2), 100, 0.001,
                                key_type=key_type)
            assert built.key_type == (key_type or "int64"), column.dtype
            path = str(tmp_path / "f.sbf")
            built.save(path)
            loaded = simdbloom.Filter.load(path)
            assert loaded.key_type == built.key_type and loaded == built
            # Every probe column at once (one compute), against the loaded filter; the filter
            # in memory answers the same rows.
            joins = [sdask.semi_join(dd.from_pandas(df, npartitions=2), "k", loaded)
                     for df in probes.values()]
            for name, df, out in zip(probes, probes.values(), dask.compute(*joins)):
                assert set(range(len(values))) <= set(out["v"]), (column.dtype, name)
                assert len(values) not in set(out["v"])  # a null never joins
                assert out["v"].tolist() == df[built.contains(df["k"])]["v"].tolist()


def test_semi_join_categorical_and_sparse_columns(client):
    # Categorical and sparse integer columns are read as their values' dtype (the categories',
    # the sparse subtype): converted to the filter's width like any integer column.
    f = single(np.array([1, 3, 7], dtype=np.int32), 1000, 0.001)
    expect = {1, 3, 7}
    columns = {
        "categorical": pd.Series([1, 3, 7, 8, None, 3], dtype="category"),
        "categorical int16": pd.Series(pd.Categorical(
            np.array([1, 3, 7, 8, 3], dtype=np.int16))),
        "sparse": pd.Series(pd.arrays.SparseArray([1, 3, 7, 8, 0, 3])),
        "sparse nan": pd.Series(pd.arrays.SparseArray([1.0, np.nan, 3.0])).astype(
            pd.SparseDtype("float64", np.nan)),
    }
    for name, col in columns.items():
        df = pd.DataFrame({"k": col, "v": np.arange(len(col))})
        if name == "sparse nan":  # floats: no key kind, refused before any work
            with pytest.raises(ValueError, match="'k'.*float64"):
                sdask.semi_join(dd.from_pandas(df, npartitions=1), "k", f)
            continue
        out = sdask.semi_join(dd.from_pandas(df, npartitions=2), "k", f).compute()
        got = np.asarray(out["k"].dropna()).astype(np.int64)
        assert expect <= set(got), (name, out)
        probe = np.asarray(col.dropna()).astype(np.int64)
        hits = f.contains(probe)
        assert sorted(got.tolist()) == sorted(probe[hits].tolist()), name
    # A categorical string column against a bytes filter joins; a categorical integer column
    # against it is refused.
    words = single(["a", "b"], 100, 0.001)
    df = pd.DataFrame({"k": pd.Series(["a", "b", "c", None], dtype="category")})
    assert sorted(sdask.semi_join(dd.from_pandas(df, npartitions=1), "k", words)
                  .compute()["k"].tolist()) == ["a", "b"]
    df = pd.DataFrame({"k": pd.Series([1, 2], dtype="category")})
    with pytest.raises(ValueError, match="bytes.*'k'.*int"):
        sdask.semi_join(dd.from_pandas(df, npartitions=1), "k", words)
    # A column whose key kind cannot be told (floats; an object column of mixed values) against
    # a filter with a key_type: ValueError, not an empty join.
    df = pd.DataFrame({"k": np.array([1.0, 3.0])})
    with pytest.raises(ValueError, match="semi_join"):
        sdask.semi_join(dd.from_pandas(df, npartitions=1), "k", f)
    df = pd.DataFrame({"k": pd.Series([1, "a"], dtype=object)})
    with pytest.raises(ValueError, match="semi_join.*'k'"):
        sdask.semi_join(dd.from_pandas(df, npartitions=1), "k", f).compute()
    # build reads them the same way: the values' NumPy dtype.
    for col in [pd.Series(pd.Categorical(np.array([1, 3, 7, 3], dtype=np.int32))),
                pd.Series(pd.arrays.SparseArray(np.array([1, 0, 3, 7], np.int64)))]:
        dtype = sdask._values_dtype(col.dtype)  # pandas 1.x: int32 categories become int64
        built = sdask.build(dd.from_pandas(col, npartitions=2), 1000, 0.001)
        plain = single(col.to_numpy(dtype=dtype), 1000, 0.001)
        assert built.to_bytes() == plain.to_bytes()
        assert built.key_type == plain.key_type


def test_semi_join_of_a_series(client):
    """Issue 40 item 12: a Dask series is semi-joined as itself (semi_join(series, flt)): its
    items that may be in the filter, index and name kept, nulls dropped; strings with NA too."""
    r = np.random.default_rng(40)
    dim = r.integers(0, 2**62, 2_000).astype(np.int64)
    flt = simdbloom.Filter.create(len(dim), 0.01)
    flt.insert(dim)
    probe = pd.Series(np.concatenate([dim[:500], r.integers(0, 2**62, 3_000)]).astype(np.int64),
                      name="k", index=np.arange(3_500) * 3)
    for call in (lambda s: sdask.semi_join(s, flt), lambda s: sdask.semi_join(s, flt=flt)):
        out = call(dd.from_pandas(probe, npartitions=4)).compute()
        expect = probe[flt.contains(probe.to_numpy())]
        pd.testing.assert_series_equal(out.sort_index(), expect.sort_index())
        assert set(dim[:500]) <= set(out)
    words = simdbloom.Filter.create(100, 0.01)
    words.update(["a", "c"])
    s = pd.Series(["a", None, "b", "c", None], dtype="string", name="w")
    out = sdask.semi_join(dd.from_pandas(s, npartitions=2), words).compute()
    assert out.tolist() == ["a", "c"] and out.index.tolist() == [0, 3] and out.name == "w"
    # A string column with NA in a dataframe, and the filter's Series answer used as a mask.
    df = pd.DataFrame({"w": s, "v": np.arange(5)})
    got = sdask.semi_join(dd.from_pandas(df, npartitions=2), "w", words).compute()
    assert got["v"].tolist() == [0, 3]
    with pytest.raises(TypeError, match="a series has no columns"):
        sdask.semi_join(dd.from_pandas(s, npartitions=1), "w", words)
