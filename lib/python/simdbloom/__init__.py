# SPDX-License-Identifier: Apache-2.0
"""simdbloom: Bloom filters with SIMD bulk calls over NumPy arrays.

The C++ library simdbloom (Highway SIMD kernels chosen at run time, a scalar reference that every
kernel matches bit for bit) behind a small Python API::

    import numpy as np, simdbloom
    f = simdbloom.Filter(1_000_000, 0.01)                 # n keys at a 1% false-positive rate
    f.insert(np.arange(1000, dtype=np.uint64))            # bulk, in place, GIL released
    hits = f.contains(np.array([5, 5000], dtype=np.uint64))  # NumPy bool array
    5 in f and np.int32(5) in f                           # a key is its value, whatever its type
    g = simdbloom.Filter(1000, 0.01)
    g.add(b"key"); "text" in g                            # byte strings: bytes, str (UTF-8)
    g.update(str(i) for i in range(10))                   # any iterable, in chunks

A filter holds integers or byte strings, never both (``key_type``: 'int64', 'int32', 'bytes').

Classes: Filter, CountingFilter (remove, count), ScalableFilter (no n), SpatialFilter (areas),
ShiftingAssociation (which of two sets), ShiftingMultiplicity (how many times). Key types, batch
forms and errors are described in the docstring of ``simdbloom._core``.
``simdbloom.dask`` builds a filter over a Dask array or series on a cluster (one filter per
partition, merged tree-wise: byte-identical to a single build) and filters a Dask dataframe by
a broadcast filter.
"""

__license__ = "Apache-2.0"

from . import _core
from ._core import (
    Binary,
    CountingFilter,
    CountingLayout,
    Error,
    Filter,
    FilterSet,
    Layout,
    ScalableFilter,
    ShiftingAssociation,
    ShiftingMultiplicity,
    SpatialFilter,
    active_target,
    available_targets,
    counting_size_for,
    layouts,
    reset_target,
    set_target,
    size_for,
    version,
)

__version__ = version()


def _from_bytes(kind, data, key_type=None):
    """Unpickling: ``kind``.from_bytes (kind: the class's name), by a name pickle can store. The
    saved form holds the key type. ``key_type``: what pickles of releases before key types were
    saved with the key type their Python object recorded; their saved form loads as 'legacy', and
    a recorded 'int64', 'int32' or 'bytes' declares it (the keys were hashed as those types)."""
    f = getattr(_core, kind).from_bytes(data)
    if key_type in ("int64", "int32", "bytes") and f.key_type == "legacy":
        f.key_type = key_type
    return f


def _filter_from_bytes(data, key_type=None):
    """Unpickling of Filter pickles of earlier releases."""
    return _from_bytes("Filter", data, key_type)


__all__ = [
    "Binary",
    "CountingFilter",
    "CountingLayout",
    "Error",
    "Filter",
    "FilterSet",
    "Layout",
    "ScalableFilter",
    "ShiftingAssociation",
    "ShiftingMultiplicity",
    "SpatialFilter",
    "active_target",
    "available_targets",
    "counting_size_for",
    "layouts",
    "reset_target",
    "set_target",
    "size_for",
    "version",
    "__version__",
]
