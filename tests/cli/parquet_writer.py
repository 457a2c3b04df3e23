# SPDX-License-Identifier: Apache-2.0
"""A small Parquet writer in the Python standard library, for the tests of `simdbloom parquet`.

Writes real Parquet files: PAR1 magic, one uncompressed PLAIN data page per column chunk (required
columns, so no definition or repetition levels), split block Bloom filters (XXH64, seed 0, the
Parquet specification's salts) for the columns asked for, and a Thrift compact-protocol
FileMetaData footer with bloom_filter_offset / bloom_filter_length. Also XXH64 in pure Python.
"""
import struct

M64 = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
SALTS = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947,
         0x5C6BFB31)


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def _round(acc, lane):
    acc = (acc + lane * P2) & M64
    return (_rotl(acc, 31) * P1) & M64


def xxh64(data, seed=0):
    n = len(data)
    i = 0
    if n >= 32:
        v = [(seed + P1 + P2) & M64, (seed + P2) & M64, seed & M64, (seed - P1) & M64]
        while i + 32 <= n:
            for j in range(4):
                v[j] = _round(v[j], struct.unpack_from("<Q", data, i + 8 * j)[0])
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & M64
        for j in range(4):
            h ^= _round(0, v[j])
            h = (h * P1 + P4) & M64
    else:
        h = (seed + P5) & M64
    h = (h + n) & M64
    while i + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, i)[0])
        h = (_rotl(h, 27) * P1 + P4) & M64
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from("<I", data, i)[0] * P1) & M64
        h = (_rotl(h, 23) * P2 + P3) & M64
        i += 4
    while i < n:
        h ^= (data[i] * P5) & M64
        h = (_rotl(h, 11) * P1) & M64
        i += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


def split_block_bitset(values, num_bytes):
    """Parquet split block Bloom filter bitset holding `values` (bytes objects)."""
    assert num_bytes % 32 == 0 and num_bytes > 0
    words = [0] * (num_bytes // 4)
    blocks = num_bytes // 32
    for v in values:
        h = xxh64(v)
        b = ((h >> 32) * blocks) >> 32
        key = h & 0xFFFFFFFF
        for i, salt in enumerate(SALTS):
            words[8 * b + i] |= 1 << (((key * salt) & 0xFFFFFFFF) >> 27)
    return struct.pack("<%dI" % len(words), *words)


# ---- Thrift compact protocol writer
T_TRUE, T_FALSE, T_I8, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, T_STRUCT = \
    range(1, 13)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v):
    return varint((v << 1) ^ (v >> 63))


class Struct:
    """Fields as (id, type, value); value: int, bytes, Struct, or (elem_type, [items])."""

    def __init__(self, *fields):
        self.fields = [f for f in fields if f is not None]

    def encode(self):
        out = bytearray()
        last = 0
        for fid, ftype, value in self.fields:
            delta = fid - last
            if 0 < delta <= 15:
                out.append((delta << 4) | ftype)
            else:
                out.append(ftype)
                out += zigzag(fid)
            last = fid
            out += encode_value(ftype, value)
        out.append(0)
        return bytes(out)


def encode_value(ftype, value):
    if ftype in (T_I16, T_I32, T_I64):
        return zigzag(value)
    if ftype == T_BINARY:
        return varint(len(value)) + value
    if ftype == T_STRUCT:
        return value.encode()
    if ftype == T_LIST:
        elem, items = value
        head = bytes([(len(items) << 4) | elem]) if len(items) < 15 else \
            bytes([0xF0 | elem]) + varint(len(items))
        return head + b"".join(encode_value(elem, it) for it in items)
    raise ValueError(ftype)


# Parquet physical types
BYTE_ARRAY, INT64, INT32, DOUBLE = 6, 2, 1, 5


def plain(ptype, values):
    if ptype == BYTE_ARRAY:
        return b"".join(struct.pack("<I", len(v)) + v for v in values)
    if ptype == INT64:
        return b"".join(struct.pack("<q", v) for v in values)
    if ptype == INT32:
        return b"".join(struct.pack("<i", v) for v in values)
    if ptype == DOUBLE:
        return b"".join(struct.pack("<d", v) for v in values)
    raise ValueError(ptype)


def hashed_bytes(ptype, v):
    return v if ptype == BYTE_ARRAY else plain(ptype, [v])


def bloom_header(num_bytes):
    empty = Struct()
    return Struct((1, T_I32, num_bytes), (2, T_STRUCT, Struct((1, T_STRUCT, empty))),
                  (3, T_STRUCT, Struct((1, T_STRUCT, empty))),
                  (4, T_STRUCT, Struct((1, T_STRUCT, empty)))).encode()


def write_parquet(columns, row_groups, bloom_columns, filter_bytes=1024, record_length=True,
                  overrides=None):
    """columns: [(name, physical_type)]; row_groups: [[values of column 0], [values of col 1]...]
    per row group; bloom_columns: names that get a Bloom filter. `overrides`, if given, maps
    (row_group, column name) to a dict of ColumnMetaData fields to replace (hostile files).
    Returns the file's bytes."""
    overrides = overrides or {}
    out = bytearray(b"PAR1")
    chunk_meta = []  # per row group: [(column, data_offset, page_size, num_values)]
    for rg in row_groups:
        metas = []
        for (name, ptype), values in zip(columns, rg):
            data = plain(ptype, values)
            header = Struct((1, T_I32, 0), (2, T_I32, len(data)), (3, T_I32, len(data)),
                            (5, T_STRUCT, Struct((1, T_I32, len(values)), (2, T_I32, 0),
                                                 (3, T_I32, 3), (4, T_I32, 3)))).encode()
            offset = len(out)
            out += header + data
            metas.append([name, ptype, offset, len(header) + len(data), len(values), None, None])
        chunk_meta.append(metas)
    # Bloom filters after all data, as parquet-mr writes them.
    for rg, metas in zip(row_groups, chunk_meta):
        for (name, ptype), values, m in zip(columns, rg, metas):
            if name not in bloom_columns:
                continue
            blob = bloom_header(filter_bytes) + split_block_bitset(
                [hashed_bytes(ptype, v) for v in values], filter_bytes)
            m[5], m[6] = len(out), len(blob)
            out += blob
    schema = [Struct((4, T_BINARY, b"schema"), (5, T_I32, len(columns)))]
    for name, ptype in columns:
        schema.append(Struct((1, T_I32, ptype), (3, T_I32, 0), (4, T_BINARY, name.encode())))
    groups = []
    for g, metas in enumerate(chunk_meta):
        chunks = []
        for name, ptype, offset, size, count, boff, blen in metas:
            f = {1: (T_I32, ptype), 2: (T_LIST, (T_I32, [0])),
                 3: (T_LIST, (T_BINARY, [name.encode()])), 4: (T_I32, 0), 5: (T_I64, count),
                 6: (T_I64, size), 7: (T_I64, size), 9: (T_I64, offset)}
            if boff is not None:
                f[14] = (T_I64, boff)
                if record_length:
                    f[15] = (T_I32, blen)
            f.update(overrides.get((g, name), {}))
            meta = Struct(*[(k, t, v) for k, (t, v) in sorted(f.items()) if t is not None])
            chunks.append(Struct((2, T_I64, offset), (3, T_STRUCT, meta)))
        groups.append(Struct((1, T_LIST, (T_STRUCT, chunks)),
                             (2, T_I64, sum(m[3] for m in metas)), (3, T_I64, len(rg[0]))))
    footer = Struct((1, T_I32, 1), (2, T_LIST, (T_STRUCT, schema)),
                    (3, T_I64, sum(len(rg[0]) for rg in row_groups)),
                    (4, T_LIST, (T_STRUCT, groups)),
                    (6, T_BINARY, b"simdbloom tests/cli/parquet_writer.py")).encode()
    out += footer + struct.pack("<I", len(footer)) + b"PAR1"
    return bytes(out)


def sample_table(seed=7, groups=3, rows=200):
    """The multi-row-group test table: url (BYTE_ARRAY, filtered), id (INT64, filtered), note
    (BYTE_ARRAY, no filter). Row group g holds ids g*rows .. (g+1)*rows-1 and their URLs."""
    import random
    rnd = random.Random(seed)
    columns = [("url", BYTE_ARRAY), ("id", INT64), ("note", BYTE_ARRAY)]
    row_groups = []
    for g in range(groups):
        ids = list(range(g * rows, (g + 1) * rows))
        urls = [("https://site%d.example/page/%d?q=%08x" % (g, i, rnd.getrandbits(32))).encode()
                for i in ids]
        notes = [b"note %d" % i for i in ids]
        row_groups.append([urls, ids, notes])
    return columns, row_groups


if __name__ == "__main__":
    import sys
    # Writes the checked-in sample files into the folder given (tests/data/parquet).
    folder = sys.argv[1]
    columns, groups = sample_table()
    with open(folder + "/multi_rowgroup.parquet", "wb") as f:
        f.write(write_parquet(columns, groups, {"url", "id"}))
    with open(folder + "/multi_rowgroup_nolength.parquet", "wb") as f:
        f.write(write_parquet(columns, groups, {"url", "id"}, filter_bytes=2048,
                              record_length=False))
