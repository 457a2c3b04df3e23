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

Key types: an integer key is hashed as its width's bytes (an int32 7 and an int64 7 are different
keys), a pandas nullable column (Int32, UInt64, ...) as its NumPy dtype (Int32: int32). The filter
records what it was given (``Filter.key_type``: 'int32', 'bytes', ...; kept when pickled), and
semi_join probes a column of another integer width as those keys (or refuses a column of another
kind), so a join of int32 keys against an int64 column finds its rows. A filter whose key_type is
None (unknown: from ``Filter.load``/``from_bytes``, and so whatever is merged or inserted into it
afterwards) is probed with the column as it is; set ``flt.key_type`` when you know its keys.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from ._core import CountingFilter, Filter, Layout, ScalableFilter, counting_size_for, size_for

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
        import pandas as pd

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


def _count(part: Any) -> int:
    return len(_keys_of(part))


def partition_filter(part: Any, n: int, fpp: float, layout: Union[str, Layout, None] = None,
                     seed: int = 0, threads: int = 1, kind: Any = "filter") -> Any:
    """A filter (``kind`` 'filter' or 'counting') sized for ``n`` keys in all (not this
    partition's count: every partition's filter must have the same size to be merged) holding
    the keys of one partition."""
    cls, default_layout = _KINDS[_kind(kind)]
    f = cls(n, fpp, layout=default_layout if layout is None else layout, seed=seed)
    if cls is Filter:
        f.insert(_keys_of(part), threads=threads)
    else:
        f.insert(_keys_of(part))
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
    out.insert(_keys_of(part))
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


def build(collection: Any, n: Optional[int], fpp: float, *, kind: Any = "filter",
          layout: Union[str, Layout, None] = None, seed: int = 0, split_every: int = 8,
          threads: int = 1, compute: bool = True, growth: float = 2.0,
          tightening: float = 0.85) -> Any:
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
    process (in partition order). Its ``key_type`` is what the partitions held ('int32' for an
    int32 or nullable Int32 series, 'bytes' for strings), which semi_join reads. A categorical
    series is hashed as its values of the categories' dtype, a sparse one as its dense values of
    the sparse subtype. Nulls are skipped.

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
    token = dask.base.tokenize(collection, n, fpp, name, str(layout), seed, growth, tightening)
    if name == "scalable":
        capacity = {} if n is None else {"initial_capacity": n}
        # Invalid parameters fail here, not on a worker; the chain is created in a task.
        ScalableFilter(fpp=fpp, growth=growth, tightening=tightening, layout=layout, seed=seed,
                       **capacity)
        chain = dask.delayed(ScalableFilter, pure=True)(
            fpp=fpp, growth=growth, tightening=tightening, layout=layout, seed=seed, **capacity,
            dask_key_name="simdbloom-chain-%s-0" % token)
        for i, p in enumerate(parts):
            chain = dask.delayed(extend_chain, pure=True)(
                chain, p, dask_key_name="simdbloom-chain-%s-%d" % (token, i + 1))
        return chain.compute() if compute else chain
    if n is None:  # one counting pass: non-null keys per partition, summed on the client
        n = max(1, sum(dask.compute(*[dask.delayed(_count)(p) for p in parts])))
    # Invalid parameters fail here (no allocation), not on a worker.
    if name == "counting":
        counting_size_for(n, fpp, layout)
    else:
        size_for(n, fpp, layout)
    level = [
        dask.delayed(partition_filter, pure=True)(
            p, n, fpp, layout, seed, threads, name,
            dask_key_name="simdbloom-partition-%s-%d" % (token, i))
        for i, p in enumerate(parts)
    ]
    if not level:
        empty = dask.delayed(cls, pure=True)(n, fpp, layout=layout, seed=seed)
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


_INT_WIDTHS = {"int16": 2, "int32": 4, "int64": 8}


def _values_dtype(dtype: Any) -> Any:
    """The dtype of a column's values: a categorical column's categories', a sparse column's
    subtype, else the column's own."""
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype) and dtype.categories is not None:
        return dtype.categories.dtype
    if isinstance(dtype, pd.SparseDtype):
        return dtype.subtype
    return dtype


def _column_kind(dtype: Any, values: Any = None) -> tuple:
    """("int", width) for integer keys, ("bytes", 0) for bytes/str, (None, 0) when not known: from
    the dtype (a categorical's categories', a sparse column's subtype), or for an object column
    from its non-null ``values`` when given."""
    dtype = _values_dtype(dtype)
    base = getattr(dtype, "numpy_dtype", dtype)  # pandas nullable Int32 -> int32
    try:
        base = np.dtype(base)
    except TypeError:
        base = None
    if base is not None and base.kind in "iu":
        return "int", base.itemsize
    if (base is not None and base.kind in "SU") or getattr(dtype, "name", "") == "string":
        return "bytes", 0
    if base is not None and base.kind == "O" and values is not None and len(values):
        import pandas as pd

        inferred = pd.api.types.infer_dtype(values, skipna=True)
        if inferred in ("string", "bytes"):
            return "bytes", 0
        if inferred == "integer":
            return "int", 8  # Python ints: 8-byte keys
    return None, 0


def _probe_width(key_type: Optional[str], dtype: Any, column: str, values: Any = None) -> int:
    """The width (bytes) the integer ``column`` must be converted to before probing a filter of
    ``key_type``; 0 to probe it as it is. Raises ValueError for keys of another kind."""
    if key_type is None or key_type == "empty":
        # Unknown (a loaded filter, maybe with keys added): the column is probed as it is, never
        # converted (its keys may be of any width). Empty: nothing can match.
        return 0
    where = "simdbloom.dask.semi_join: "
    if key_type in ("prehashed", "mixed"):
        raise ValueError(where + "the filter holds %s keys, so column %r cannot be matched to "
                         "them; set flt.key_type to the type of its keys ('int32', 'bytes', ...), "
                         "or to None to probe the column as it is" % (key_type, column))
    kind, width = _column_kind(dtype, values)
    if kind is None:
        if values is None and _is_object(dtype):
            return 0  # told by each partition from its values
        raise ValueError(where + "cannot tell whether column %r (dtype %s) holds integer or "
                         "bytes/str keys, and the filter holds %s keys; convert the column to an "
                         "integer or string dtype, or set flt.key_type to None to probe it as it "
                         "is" % (column, dtype, key_type))
    if key_type == "bytes":
        if kind == "int":
            raise ValueError(where + "the filter holds bytes/str keys, column %r holds int%d "
                             "(an integer never matches a byte string)" % (column, 8 * width))
        return 0
    if kind == "bytes":
        raise ValueError(where + "the filter holds %s keys, column %r holds bytes/str (a byte "
                         "string never matches an integer)" % (key_type, column))
    if kind == "int" and width != _INT_WIDTHS[key_type]:
        return _INT_WIDTHS[key_type]
    return 0


def _is_object(dtype: Any) -> bool:
    """Whether a column of ``dtype`` (a categorical's categories') holds Python objects, whose key
    kind only its values tell (so does a categorical dtype whose categories are not given)."""
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype) and dtype.categories is None:
        return True
    try:
        return np.dtype(_values_dtype(dtype)).kind == "O"
    except TypeError:
        return False


def _integers(keys: Any) -> np.ndarray:
    """The values of a null-free integer series (NumPy, nullable or object) as a NumPy array."""
    base = getattr(keys.dtype, "numpy_dtype", keys.dtype)
    if np.dtype(base).kind in "iu":
        return keys.to_numpy(dtype=base)
    for dtype in (np.int64, np.uint64):  # Python ints
        try:
            return keys.to_numpy(dtype=dtype)
        except (OverflowError, ValueError):
            pass
    raise ValueError("simdbloom.dask.semi_join: integer key out of the 64-bit range")


def _to_width(values: np.ndarray, width: int) -> tuple:
    """Integer ``values`` as keys of ``width`` bytes: (the keys, a mask of the values that have
    one). A value v stands for a key of that width when some int or uint of the width is v (signed
    and unsigned of one width hash alike); a value outside [-2**(8w-1), 2**(8w)) is no key of the
    filter's width, never present."""
    bits = 8 * width
    if values.dtype.itemsize <= width:  # widening: lossless, the sign kept
        kind = "i" if values.dtype.kind == "i" else "u"
        return values.astype("<%s%d" % (kind, width)), np.ones(len(values), dtype=bool)
    if values.dtype.kind == "u":
        fits = values <= (1 << bits) - 1
    else:
        fits = (values >= -(1 << (bits - 1))) & (values <= (1 << bits) - 1)
    kept = values[fits]
    if values.dtype.kind == "i":
        kept = kept & ((1 << bits) - 1)  # the width's two's complement bits, non-negative
    return kept.astype("<u%d" % width), fits


def _hits(values: Any, column: str, flt: Any, key_type: Optional[str]) -> np.ndarray:
    """Filter.contains of a null-free series of plain or nullable values, converted to the
    filter's integer width when it has one."""
    width = _probe_width(key_type, values.dtype, column, values)
    if width:
        converted, fits = _to_width(_integers(values), width)
        hits = np.zeros(len(values), dtype=bool)
        hits[fits] = flt.contains(converted)
        return hits
    # The series itself: Filter.contains takes a nullable column as its NumPy dtype.
    return flt.contains(values if not isinstance(values.dtype, np.dtype) else values.to_numpy())


def _semi_join_partition(part: Any, column: str, flt: Any) -> Any:
    import pandas as pd

    keys = part[column]
    key_type = flt.key_type
    valid = np.asarray(keys.notna().to_numpy(), dtype=bool)
    mask = np.zeros(len(part), dtype=bool)
    if key_type == "empty" or not valid.any():
        return part[mask]  # no key inserted, or no key to probe
    present = keys[valid] if not valid.all() else keys
    if isinstance(present.dtype, pd.CategoricalDtype):
        # Each category probed once, as the categories' dtype; a row hits where its category does.
        categories = pd.Series(present.cat.categories)
        codes = present.cat.codes.to_numpy()
        mask[valid] = _hits(categories, column, flt, key_type)[codes]
        return part[mask]
    if isinstance(present.dtype, pd.SparseDtype):
        present = present.sparse.to_dense()  # the values as the subtype
    mask[valid] = _hits(present, column, flt, key_type)
    return part[mask]


def semi_join(df: Any, column: str, flt: Any, *, client: Any = None,
              broadcast: bool = True) -> Any:
    """The rows of Dask dataframe ``df`` whose ``df[column]`` may be in ``flt`` (a Filter,
    CountingFilter or ScalableFilter; lazy: a Dask dataframe with ``df``'s columns and
    divisions).

    Keys are probed in bulk per partition (``Filter.contains`` on the column's NumPy values; a
    string column is probed as UTF-8 bytes, an integer column by its dtype's width, a pandas
    nullable column as its NumPy dtype, a categorical column as its categories' values (each
    category once), a sparse column as its dense values of the sparse subtype). False positives
    keep a few rows a real join would drop; no row whose key was inserted is ever dropped. Nulls
    are dropped.

    The filter's ``key_type`` (recorded by insert and ``build``) decides how the column is read:
    an integer column of another width than the filter's integer keys is converted to that width
    (lossless: a value no int or uint of that width holds is dropped, as it was never inserted);
    a column of another kind (integers against 'bytes' keys, strings against integer keys), a
    column whose kind cannot be told (floats, an object column of mixed values) or a filter of
    'prehashed' or 'mixed' keys raises ValueError. A filter whose key_type is None
    (unknown: from ``Filter.load``/``from_bytes``, and it stays None after merges and inserts) is
    probed with the column as it is, never converted: set ``flt.key_type`` to the type of its keys
    to have it converted. An 'empty' filter (nothing inserted) keeps no row.

    The filter reaches the workers once: with a distributed client (``client``, or the default
    one) it is scattered to every worker (``broadcast=True``) ahead of the tasks; otherwise it is
    one key of the graph that the tasks share.
    """
    import dask

    if column not in df.columns:
        raise KeyError("simdbloom.dask.semi_join: no column %r" % (column,))
    _probe_width(flt.key_type, df[column].dtype, column)  # keys of another kind: raise here
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
