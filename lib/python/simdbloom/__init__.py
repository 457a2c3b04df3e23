# SPDX-License-Identifier: Apache-2.0
"""simdbloom: Bloom filters with SIMD bulk calls over NumPy arrays.

The C++ library simdbloom (Highway SIMD kernels chosen at run time, a scalar reference that every
kernel matches bit for bit) behind a small Python API::

    import numpy as np, simdbloom
    f = simdbloom.Filter.create(1_000_000, 0.01)          # n keys at a 1% false-positive rate
    f.insert(np.arange(1000, dtype=np.uint64))            # bulk, in place, GIL released
    hits = f.contains(np.array([5, 5000], dtype=np.uint64))  # NumPy bool array
    f.insert(b"key"); "text" in f                         # single keys: int, bytes, str (UTF-8)

Key types, batch forms and errors are described in the docstring of ``simdbloom._core``.
``simdbloom.dask`` builds a filter over a Dask array or series on a cluster (one filter per
partition, merged tree-wise: byte-identical to a single build) and filters a Dask dataframe by
a broadcast filter.
"""

__license__ = "Apache-2.0"

from ._core import (
    Binary,
    Error,
    Filter,
    Layout,
    active_target,
    available_targets,
    layouts,
    reset_target,
    set_target,
    size_for,
    version,
)

__version__ = version()


def _filter_from_bytes(data, key_type=None):
    """Unpickling: Filter.from_bytes, by a name pickle can store, and the pickled key_type. A
    pickle without one (an older release) or with None is unknown (None): an older release wrote
    None for empty filters as well, and an unknown filter never takes a concrete type."""
    f = Filter.from_bytes(data)
    f.key_type = key_type
    return f

__all__ = [
    "Binary",
    "Error",
    "Filter",
    "Layout",
    "active_target",
    "available_targets",
    "layouts",
    "reset_target",
    "set_target",
    "size_for",
    "version",
    "__version__",
]
