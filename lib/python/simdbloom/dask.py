# SPDX-License-Identifier: Apache-2.0
"""Building and using simdbloom filters on a Dask cluster.

``build(collection, n, fpp)`` builds one filter per partition of a Dask array or series, where the
partition lives, and merges them pairwise up a tree (fan-in ``split_every``). A Bloom filter's
union is the OR of its bits, so the result is byte-identical to one process inserting every key
(the header's inserted count is the sum, as well): every partition's filter is created with the
same size, k and seed from ``(n, fpp, layout, seed)``. ``kind="counting"`` builds a
CountingFilter the same way (its merge adds the counters, capped at 15 as inserts are: the same
bytes as one process). ``kind="scalable"`` builds a ScalableFilter without knowing n: a chain's
stages fill in insert order and merging grown chains would break its rate bound, so the chain
passes from partition to partition in order (each task inserts one partition into a copy of the
chain so far): the same bytes as one process inserting the partitions in order, one task at a
time. The scheduler runs each task where the larger of its two inputs is, so the smaller moves:
the partition's keys, or the chain.

``semi_join(df, column, flt)`` keeps the rows of a Dask dataframe whose ``column`` may be in a
filter (the semi-join a query engine pushes down before a real join): the filter is sent to the
workers once, then each partition is probed in bulk.

Running on a real cluster: the same code runs wherever Dask's current scheduler points. Connect
first, e.g. ``client = distributed.Client("tcp://scheduler-host:8786")`` (the scheduler's
address), or ``dask.config.set(scheduler="processes")`` for one machine; without either, Dask's
default (threads) runs it in this process. Workers need the same ``simdbloom`` module
(``cmake --install`` on each worker image) and the same library version.

What crosses the network:
  - build: each partition's keys stay where they are (e.g. the worker that read that Parquet
    file); what moves is each partition's filter, ``size_bytes + 64`` bytes (the saved form,
    pickled as bytes), to the worker that merges it: about one filter per partition in total,
    then the final filter to the client. Fewer, larger partitions move fewer filters. A scalable
    build moves, for each partition, the smaller of the chain so far and the partition.
  - semi_join: the filter's bytes once per worker (``Client.scatter(..., broadcast=True)`` when a
    distributed client is active, else one shared graph key), then only the rows that pass.

Nulls (None/NaN/NA) never join: they are skipped by build and dropped by semi_join.

Key types: a key is its value. 5 is 5 in an int16, int32, uint64, nullable Int32 or object
column of Python ints, and a filter holds integers or byte strings, never both. The filter keeps
what it holds (``Filter.key_type``: 'int64', 'int32', 'bytes'; in its saved form, so pickling,
``save``/``load`` and ``from_bytes`` keep it), and converts any integer column to it by value: a
filter built from int64 keys, saved and loaded, finds every row of an int32 column holding those
values, exactly as the filter in memory does. ``build(..., key_type="int32")`` declares 4-byte
keys (Parquet INT32 columns; a value outside [-2**31, 2**32) is then refused by build and never
joins). A column that cannot be converted (floats, strings against an integer filter, integers
against a 'bytes' filter, an object column of mixed values) is refused with ValueError naming the
column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Type, Union, overload

import numpy as np

from ._core import CountingFilter, Filter, Layout, ScalableFilter, counting_size_for, size_for

if TYPE_CHECKING:
    from typing import Literal

    from dask.delayed import Delayed

__all__ = ["build", "semi_join", "partition_filter", "merge_filters", "extend_chain"]

# build's kinds: the class, its default layout.
_KINDS = {"filter": (Filter, "block512"), "counting": (CountingFilter, "blocked"),
          "scalable": (ScalableFilter, "block512")}


def _kind(kind: Any) -> str:
    """build's `kind` (a name or one of the classes) as its name."""
    for name, (cls, _) in _KINDS.items():
        if kind == name or kind is cls:
            return name
    raise ValueError("simdbloom.dask.build: kind must be 'filter', 'counting' or 'scalable' (or "
                     "the class), got %r" % (kind,))


def _keys_of(part: Any) -> Any:
    """The keys of one partition as something Filter.insert takes in place."""
    if hasattr(part, "dropna") and hasattr(part, "to_numpy"):  # pandas Series / Index
        import pandas as pd  # type: ignore[import]  # (no stubs in Debian's pandas)

        part = part.dropna()
        if isinstance(part.dtype, pd.CategoricalDtype):
            # The values, as the categories' dtype (what the column holds; the codes are not
            # keys).
            part = part.astype(part.dtype.categories.dtype)
        elif isinstance(part.dtype, pd.SparseDtype):
            part = part.sparse.to_dense()  # the values as the subtype, fill values included
        if not isinstance(part.dtype, np.dtype):
            # An extension dtype (nullable Int32, ...): Filter.insert takes it as its NumPy dtype;
            # to_numpy() would give an object array of Python ints (8-byte keys).
            return part
        return part.to_numpy()
    arr = np.asarray(part)
    if arr.ndim != 1:
        arr = arr.ravel()
    return np.ascontiguousarray(arr)  # no copy when the chunk already is contiguous


def _checked(part: Any, key_type: Optional[str]) -> Any:
    """``part``, after a series' values were checked to be keys (ValueError naming it)."""
    if hasattr(part, "dropna") and hasattr(part, "to_numpy") and hasattr(part, "name"):
        _check_column(key_type, part.dtype, part.name, "build", part.dropna())
    return part


def _count(part: Any) -> int:
    return len(_keys_of(part))


def partition_filter(part: Any, n: int, fpp: float, layout: Union[str, Layout, None] = None,
                     seed: int = 0, threads: int = 1, kind: Any = "filter",
                     key_type: Optional[str] = None) -> Any:
    """A filter (``kind`` 'filter' or 'counting') sized for ``n`` keys in all (not this
    partition's count: every partition's filter must have the same size to be merged) holding
    the keys of one partition. ``key_type``: declared (None: the keys decide; an empty
    partition's filter takes the others' type when merged)."""
    cls, default_layout = _KINDS[_kind(kind)]
    f = cls(n, fpp, layout=default_layout if layout is None else layout, seed=seed,
            key_type=key_type)
    keys = _keys_of(_checked(part, key_type))
    if cls is Filter:
        f.insert(keys, threads=threads)
    else:
        f.insert(keys)
    return f


def merge_filters(*filters: Any) -> Any:
    """The union of compatible filters (or the sum of counting filters), as a new object (the
    inputs are left as they were, so a retried task gives the same result)."""
    out = filters[0].copy()
    for f in filters[1:]:
        out.merge(f)
    return out


def extend_chain(chain: ScalableFilter, part: Any) -> ScalableFilter:
    """A copy of ``chain`` with the keys of one partition inserted, in order (the input is left
    as it was, so a retried task gives the same result)."""
    out = chain.copy()
    out.insert(_keys_of(_checked(part, out.key_type)))
    return out


def _partitions(collection: Any) -> list:
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(collection, da.Array):
        if collection.ndim != 1:
            raise ValueError("simdbloom.dask.build: a key array must be 1-D (got %d-D)" %
                             collection.ndim)
        return list(collection.to_delayed().ravel())
    if isinstance(collection, dd.DataFrame):
        raise TypeError("simdbloom.dask.build: pass one column (df[column]), not a dataframe")
    if isinstance(collection, (dd.Series, dd.Index)):
        return list(collection.to_delayed())
    raise TypeError("simdbloom.dask.build: expected a dask array or series, got %s" %
                    type(collection).__name__)


@overload
def build(collection: Any, n: Optional[int], fpp: float, *,
          kind: Union[Literal["filter"], Type[Filter]] = ..., layout: Union[str, Layout, None] = ...,
          seed: int = ..., split_every: int = ..., threads: int = ..., compute: Literal[True] = ...,
          growth: float = ..., tightening: float = ..., key_type: Optional[str] = ...) -> Filter: ...
@overload
def build(collection: Any, n: Optional[int], fpp: float, *,
          kind: Union[Literal["counting"], Type[CountingFilter]],
          layout: Union[str, Layout, None] = ..., seed: int = ..., split_every: int = ...,
          threads: int = ..., compute: Literal[True] = ..., growth: float = ...,
          tightening: float = ..., key_type: Optional[str] = ...) -> CountingFilter: ...
@overload
def build(collection: Any, n: Optional[int], fpp: float, *,
          kind: Union[Literal["scalable"], Type[ScalableFilter]],
          layout: Union[str, Layout, None] = ..., seed: int = ..., split_every: int = ...,
          threads: int = ..., compute: Literal[True] = ..., growth: float = ...,
          tightening: float = ..., key_type: Optional[str] = ...) -> ScalableFilter: ...
@overload
def build(collection: Any, n: Optional[int], fpp: float, *,
          kind: Union[Literal["filter", "counting", "scalable"], Type[Filter],
                      Type[CountingFilter], Type[ScalableFilter]] = ...,
          layout: Union[str, Layout, None] = ..., seed: int = ..., split_every: int = ...,
          threads: int = ..., compute: Literal[False], growth: float = ...,
          tightening: float = ..., key_type: Optional[str] = ...) -> Delayed: ...


def build(collection: Any, n: Optional[int], fpp: float, *, kind: Any = "filter",
          layout: Union[str, Layout, None] = None, seed: int = 0, split_every: int = 8,
          threads: int = 1, compute: bool = True, growth: float = 2.0,
          tightening: float = 0.85, key_type: Optional[str] = None) -> Any:
    """Builds a filter over the keys of a 1-D Dask array or a Dask series.

    ``kind="filter"`` (or ``Filter``): one task per partition builds that partition's filter
    (``Filter(n, fpp, layout, seed)`` then a bulk insert of the partition in place); merge tasks
    OR up to ``split_every`` filters each, level by level, until one is left. ``n`` is the
    expected number of keys in all; ``None`` counts them first (one more pass over the data).
    ``threads`` is passed to each partition's insert (Filter only). ``kind="counting"`` (or
    ``CountingFilter``, ``layout`` 'blocked' by default): the same tree, the merges adding
    counters.
    ``kind="scalable"`` (or ``ScalableFilter``): ``n`` is the first stage's capacity (``None``:
    ScalableFilter's default, nothing counted), ``growth`` and ``tightening`` its options; the
    chain passes from partition to partition in order (a chain cannot be merged once grown), each
    task inserting one partition into a copy of the chain so far.

    Returns the object (``compute=False``: a ``dask.delayed`` object computing it).
    Byte-identical to creating it with the same parameters and inserting every key in one
    process (in partition order). A key is its value: an integer series of any dtype (nullable
    and object columns of Python ints too) gives an 'int64' filter (``key_type="int32"``:
    declared 4-byte keys), a string or bytes series a 'bytes' one. A categorical series is read
    as its values, a sparse one as its dense values. Nulls are skipped. A series whose values are
    not keys (floats, mixed objects) raises ValueError naming it, before any work for a dtype
    that tells (floats), else in the task that meets them.

    Cost: every key hashed once, where it lives; filter/counting: partitions - 1 merges of
    ``size_bytes`` each (O(size) ORs or adds), as many filter transfers between workers;
    scalable: one task after another (no parallel inserts), the chain so far copied once per
    partition, and the smaller of the chain and the partition moved to the other.
    """
    import dask

    name = _kind(kind)
    cls, default_layout = _KINDS[name]
    layout = default_layout if layout is None else layout
    if split_every < 2:
        raise ValueError("simdbloom.dask.build: split_every must be >= 2")
    parts = _partitions(collection)
    if not hasattr(collection, "chunks"):  # a series (an array's dtype is checked by insert)
        _check_column(key_type, collection.dtype, collection.name, "build")
    token = dask.base.tokenize(collection, n, fpp, name, str(layout), seed, growth, tightening,
                               key_type)
    if name == "scalable":
        capacity = {} if n is None else {"initial_capacity": n}
        # Invalid parameters fail here, not on a worker; the chain is created in a task.
        ScalableFilter(fpp=fpp, growth=growth, tightening=tightening, layout=layout, seed=seed,
                       key_type=key_type, **capacity)
        chain = dask.delayed(ScalableFilter, pure=True)(
            fpp=fpp, growth=growth, tightening=tightening, layout=layout, seed=seed,
            key_type=key_type, **capacity,
            dask_key_name="simdbloom-chain-%s-0" % token)
        for i, p in enumerate(parts):
            chain = dask.delayed(extend_chain, pure=True)(
                chain, p, dask_key_name="simdbloom-chain-%s-%d" % (token, i + 1))
        return chain.compute() if compute else chain
    if n is None:  # one counting pass: non-null keys per partition, summed on the client
        n = max(1, sum(dask.compute(*[dask.delayed(_count)(p) for p in parts])))
    # Invalid parameters fail here (no allocation), not on a worker.
    if name == "counting":
        counting_size_for(n, fpp, layout)  # type: ignore[arg-type]  # a name, checked here
    else:
        size_for(n, fpp, layout)
    level = [
        dask.delayed(partition_filter, pure=True)(
            p, n, fpp, layout, seed, threads, name, key_type,
            dask_key_name="simdbloom-partition-%s-%d" % (token, i))
        for i, p in enumerate(parts)
    ]
    if not level:
        empty = dask.delayed(cls, pure=True)(n, fpp, layout=layout, seed=seed, key_type=key_type)
        return empty.compute() if compute else empty
    depth = 0
    while len(level) > 1:
        depth += 1
        level = [
            dask.delayed(merge_filters, pure=True)(
                *level[j:j + split_every],
                dask_key_name="simdbloom-merge-%s-%d-%d" % (token, depth, i))
            for i, j in enumerate(range(0, len(level), split_every))
        ]
    return level[0].compute() if compute else level[0]


def _values_dtype(dtype: Any) -> Any:
    """The dtype of a column's values: a categorical column's categories', a sparse column's
    subtype, else the column's own."""
    import pandas as pd  # type: ignore[import]  # (no stubs in Debian's pandas)

    if isinstance(dtype, pd.CategoricalDtype) and dtype.categories is not None:
        return dtype.categories.dtype
    if isinstance(dtype, pd.SparseDtype):
        return dtype.subtype
    return dtype


def _column_kind(dtype: Any, values: Any = None) -> Optional[str]:
    """"int" for integer keys, "bytes" for bytes/str, None when not known: from the dtype (a
    categorical's categories', a sparse column's subtype), or for an object column from its
    non-null ``values`` when given. "float" for floating point (never keys)."""
    dtype = _values_dtype(dtype)
    base = getattr(dtype, "numpy_dtype", dtype)  # pandas nullable Int32 -> int32
    try:
        base = np.dtype(base)
    except TypeError:
        base = None
    if base is not None and base.kind in "iu":
        return "int"
    if base is not None and base.kind == "f":
        return "float"
    if (base is not None and base.kind in "SU") or getattr(dtype, "name", "") == "string":
        return "bytes"
    if base is not None and base.kind == "O" and values is not None and len(values):
        import pandas as pd  # type: ignore[import]  # (no stubs in Debian's pandas)

        inferred = pd.api.types.infer_dtype(values, skipna=True)
        if inferred in ("string", "bytes"):
            return "bytes"
        if inferred == "integer":
            return "int"
    return None


def _is_object(dtype: Any) -> bool:
    """Whether a column of ``dtype`` (a categorical's categories') holds Python objects, whose key
    kind only its values tell (so does a categorical dtype whose categories are not given)."""
    import pandas as pd  # type: ignore[import]  # (no stubs in Debian's pandas)

    if isinstance(dtype, pd.CategoricalDtype) and dtype.categories is None:
        return True
    try:
        return np.dtype(_values_dtype(dtype)).kind == "O"
    except TypeError:
        return False


def _check_column(key_type: Optional[str], dtype: Any, column: Any, who: str,
                  values: Any = None) -> None:
    """Raises ValueError naming ``column`` when its keys cannot be those of a filter of
    ``key_type`` (None or 'legacy': integers or byte strings, either): floats, a kind the filter
    does not hold, an object column of mixed values. Without ``values``, an object column passes
    (each partition is checked by its values)."""
    if dtype is None or (values is not None and len(values) == 0):
        return  # nothing to tell
    where = "simdbloom.dask.%s: " % who
    kind = _column_kind(dtype, values)
    if kind is None and values is None and _is_object(dtype):
        return
    if kind in (None, "float"):
        raise ValueError(where + "column %r (dtype %s) holds no keys a filter takes: convert it "
                         "to an integer or string dtype" % (column, dtype))
    if key_type == "bytes" and kind == "int":
        raise ValueError(where + "the filter holds bytes keys, column %r holds integers (an "
                         "integer never matches a byte string)" % (column,))
    if key_type in ("int64", "int32") and kind == "bytes":
        raise ValueError(where + "the filter holds %s keys, column %r holds bytes/str (a byte "
                         "string never matches an integer)" % (key_type, column))


def _probe(values: Any, column: str, flt: Any) -> np.ndarray:
    """Filter.contains of a null-free series of plain or nullable values: integers of any dtype
    by value (the filter converts them to its key type), strings as UTF-8 bytes."""
    _check_column(flt.key_type, values.dtype, column, "semi_join", values)
    if not isinstance(values.dtype, np.dtype):
        # A nullable column, as its NumPy dtype (contains answers a Series: its values).
        return np.asarray(flt.contains(values), dtype=bool)
    arr = values.to_numpy()
    if arr.dtype.kind == "O" and _column_kind(values.dtype, values) == "int":
        for dtype in (np.int64, np.uint64):  # Python ints: their values
            try:
                return flt.contains(values.to_numpy(dtype=dtype))
            except (OverflowError, ValueError):
                pass
        # Ints beyond 64 bits, or negative ints with ints of 2**63 and more: one by one.
        return np.fromiter((int(v) in flt for v in arr), dtype=bool, count=len(arr))
    return flt.contains(arr)


def _semi_join_partition(part: Any, column: Optional[str], flt: Any) -> Any:
    """The rows of a pandas dataframe partition (``column``: its keys) or the items of a series
    partition (``column`` None) that may be in ``flt``."""
    import pandas as pd  # type: ignore[import]  # (no stubs in Debian's pandas)

    keys = part if column is None else part[column]
    if column is None:
        column = part.name
    valid = np.asarray(keys.notna().to_numpy(), dtype=bool)
    mask = np.zeros(len(part), dtype=bool)
    if not valid.any():
        return part[mask]  # no key to probe
    present = keys[valid] if not valid.all() else keys
    if isinstance(present.dtype, pd.CategoricalDtype):
        # Each category probed once, as the categories' values; a row hits where its category
        # does.
        categories = pd.Series(present.cat.categories)
        codes = present.cat.codes.to_numpy()
        mask[valid] = _probe(categories, column, flt)[codes]
        return part[mask]
    if isinstance(present.dtype, pd.SparseDtype):
        present = present.sparse.to_dense()  # the values as the subtype
    mask[valid] = _probe(present, column, flt)
    return part[mask]


def semi_join(df: Any, column: Any = None, flt: Any = None, *, client: Any = None,
              broadcast: bool = True) -> Any:
    """The rows of Dask dataframe ``df`` whose ``df[column]`` may be in ``flt`` (a Filter,
    CountingFilter or ScalableFilter; lazy: a Dask dataframe with ``df``'s columns and
    divisions). For a Dask series: ``semi_join(series, flt)`` (or ``flt=``), the items that may be
    in ``flt`` (lazy: a Dask series with its name, index and divisions).

    Keys are probed in bulk per partition (``Filter.contains`` on the column's values). A key is
    its value: an integer column of any dtype (nullable, object columns of Python ints,
    categorical, sparse included) is converted by value to the filter's key type, so a filter
    built from int64 keys finds the rows of an int32 column holding those values, in memory or
    saved and loaded alike ('int32' filters: a value outside [-2**31, 2**32) never joins). A
    string column is probed as UTF-8 bytes. False positives keep a few rows a real join would
    drop; no row whose key was inserted is ever dropped. Nulls are dropped.

    A column that cannot be converted (floats, strings against an integer filter, integers
    against a 'bytes' filter, an object column of mixed values) raises ValueError naming the
    column: before any work when its dtype tells, else when a partition's values do.

    The filter reaches the workers once: with a distributed client (``client``, or the default
    one) it is scattered to every worker (``broadcast=True``) ahead of the tasks; otherwise it is
    one key of the graph that the tasks share.
    """
    import dask
    import dask.dataframe as dd

    if isinstance(df, dd.Series):
        if flt is None:
            column, flt = None, column  # semi_join(series, flt)
        elif column is not None:
            raise TypeError("simdbloom.dask.semi_join: a series has no columns: pass "
                            "semi_join(series, flt)")
        if flt is None:
            raise TypeError("simdbloom.dask.semi_join: no filter given")
        _check_column(flt.key_type, df.dtype, df.name, "semi_join")
    else:
        if not hasattr(df, "columns"):
            raise TypeError("simdbloom.dask.semi_join: expected a Dask dataframe or series, got %s"
                            % type(df).__name__)
        if flt is None:
            raise TypeError("simdbloom.dask.semi_join: no filter given")
        if column not in df.columns:
            raise KeyError("simdbloom.dask.semi_join: no column %r" % (column,))
        _check_column(flt.key_type, df[column].dtype, column, "semi_join")  # raise here if it can
    if client is None:
        try:
            from distributed import default_client

            client = default_client()
        except (ImportError, ValueError):
            client = None
    if client is not None:
        shared = client.scatter(flt, broadcast=broadcast, hash=True)
    else:
        shared = dask.delayed(flt, pure=True)
    return df.map_partitions(_semi_join_partition, column, shared, meta=df._meta,
                             align_dataframes=False)
