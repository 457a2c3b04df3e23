# SPDX-License-Identifier: Apache-2.0
"""What mypy must accept and what it must flag in calls of the simdbloom module, through its
stubs (simdbloom/_core.pyi) and simdbloom.dask's annotations. Not run: test_typing.py runs mypy
over this file and expects an error on exactly the lines marked `# E: <mypy error code>`."""

import numpy as np
import numpy.typing as npt

import simdbloom
import simdbloom.dask

keys: object = None  # a Dask collection (simdbloom.dask takes any)

# Correct calls.
f = simdbloom.Filter(1_000_000, 0.01)
f2 = simdbloom.Filter(10**6, 0.01, layout="classic", seed=3, key_type="int64")
f.add(5)
f.add(np.int32(5))
ids = simdbloom.Filter(1000, 0.01)
ids.add("alice")
ids.add(b"bob")
found: bool = 5 in f
one: bool = f.contains(5)
many: npt.NDArray[np.bool_] = f.contains(np.arange(5, dtype=np.uint64))
listed: npt.NDArray[np.bool_] = ids.contains(["a", "b"])
count: int = f.insert(np.arange(5, dtype=np.int64))
size: int = len(f)
anything: bool = bool(f)
both: simdbloom.Filter = f.union(f2, [1, 2, 3])
common: simdbloom.Filter = f.intersection(f2)
c = simdbloom.CountingFilter(1000, 0.01)
c_all: simdbloom.CountingFilter = c.union(c, ["x"])
s = simdbloom.ScalableFilter(fpp=0.001)
s_all: simdbloom.ScalableFilter = s.union(s)
built: simdbloom.Filter = simdbloom.dask.build(keys, 10, 0.01)
built_c: simdbloom.CountingFilter = simdbloom.dask.build(keys, 10, 0.01, kind="counting")
built_s: simdbloom.ScalableFilter = simdbloom.dask.build(keys, None, 0.01,
                                                          kind=simdbloom.ScalableFilter)
lazy = simdbloom.dask.build(keys, 10, 0.01, compute=False)
result = lazy.compute()
sp = simdbloom.SpatialFilter(1000, 0.01, 3)
label: int = sp.classify(5)
labels: npt.NDArray[np.uint16] = sp.classify(np.arange(3, dtype=np.uint64))
counted: npt.NDArray[np.uint8] = c.count(["x", "y"])
seed: int = sp.seed + c.num_hashes + s.size_bytes

# Incorrect calls: each flagged.
f.contains(1.5)  # E: call-overload
f.insert(1.5)  # E: call-overload
f.add(1.5)  # E: arg-type
1.5 in f  # E: operator
simdbloom.Filter("10", 0.01)  # E: arg-type
simdbloom.Filter(1000, "1%")  # E: arg-type
wrong_kind: simdbloom.CountingFilter = simdbloom.dask.build(keys, 10, 0.01)  # E: assignment
not_an_int: int = f.contains(np.arange(3))  # E: assignment
f.union(c)  # E: arg-type
f.intersection([1, 2])  # E: arg-type
c.intersection(c)  # E: attr-defined
simdbloom.dask.build(keys, 10, 0.01, kind="nope")  # E: call-overload
sp.classify(1.5)  # E: call-overload
wrong_dtype: npt.NDArray[np.uint8] = sp.classify(np.arange(3))  # E: assignment
s.num_hashes  # E: attr-defined
