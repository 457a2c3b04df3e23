# SPDX-License-Identifier: Apache-2.0
"""Guava's BloomFilter from Python: Filter.from_guava(data, key_type=...) answers every probe as
Guava's own mightContain did (the golden files Guava wrote, tests/data/guava), to_guava() gives
Guava's writeTo bytes back, Filter(n, fpp, layout='guava') sized and filled as Guava's create and
put give the same bytes; key_type is required; bad streams raise."""

import os
import struct

import numpy as np
import pytest

import simdbloom

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "guava")


def _cases():
    for line in open(os.path.join(DATA, "cases.txt")):
        if line.startswith("#") or not line.strip():
            continue
        name, funnel, strategy, n, fpp_bits, seed, inserted, absent, _ = line.split()
        if funnel not in ("long", "utf8"):
            continue
        yield dict(name=name, funnel=funnel, strategy=int(strategy), n=int(n),
                   fpp=struct.unpack(">d", bytes.fromhex(fpp_bits))[0], seed=int(seed),
                   inserted=int(inserted), absent=int(absent))


def _keys(funnel, seed, count):
    """Keys 0..count-1 of a case (tests/guava/README.md, "Keys")."""
    m = (1 << 64) - 1
    out = []
    for i in range(count):
        z = (seed + (i + 1) * 0x9E3779B97F4A7C15) & m
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        v = z ^ (z >> 31)
        out.append(v if funnel == "long" else
                   "k%d%s" % (v, ["", "\u00e9", "\u20ac", "\U0001F600"][v >> 62]))
    return out


@pytest.mark.parametrize("case", list(_cases()), ids=lambda c: c["name"])
def test_guava_files(case):
    raw = open(os.path.join(DATA, case["name"] + ".guava"), "rb").read()
    hits = np.unpackbits(np.frombuffer(open(os.path.join(DATA, case["name"] + ".hits"), "rb").read(),
                                       dtype=np.uint8), bitorder="little").astype(bool)
    kt = "int64" if case["funnel"] == "long" else "bytes"
    f = simdbloom.Filter.from_guava(raw, key_type=kt)
    assert f.layout == (simdbloom.Layout.guava if case["strategy"] == 1 else simdbloom.Layout.guava32)
    assert f.to_guava() == raw
    keys = _keys(case["funnel"], case["seed"], case["inserted"] + case["absent"])
    batch = np.array(keys, dtype=np.uint64) if kt == "int64" else keys
    np.testing.assert_array_equal(f.contains(batch), hits[:len(keys)])
    assert all((k in f) == bool(h) for k, h in zip(keys[:50], hits[:50]))
    g = simdbloom.Filter(case["n"], case["fpp"], layout=f.layout, key_type=kt)
    g.insert(batch[:case["inserted"]])
    assert g.to_guava() == raw


def test_errors():
    raw = open(os.path.join(DATA, "long_k7.guava"), "rb").read()
    with pytest.raises(ValueError, match="key_type is required"):
        simdbloom.Filter.from_guava(raw, None)
    with pytest.raises(simdbloom.Error) as e:
        simdbloom.Filter.from_guava(raw[:-1], key_type="int64")
    assert e.value.code == "format"
    with pytest.raises(simdbloom.Error) as e:
        simdbloom.Filter(100, 0.01).to_guava()
    assert e.value.code == "incompatible"
