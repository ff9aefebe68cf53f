#!/usr/bin/env python3
"""Writes malformed tensor files, modelled on NumPy's and safetensors' own malformed-input
tests, and malformed.json listing each file with a piece of the error message expected.

usage: make_malformed_files.py OUTDIR
"""
import io
import json
import os
import struct
import sys
import zlib

import numpy as np

CASES = []


def case(filename, expected, data):
    CASES.append({"file": filename, "expect": expected})
    with open(os.path.join(OUTDIR, filename), "wb") as f:
        f.write(data)


def npy(header_text, version=1, data=b"", pad=True):
    body = header_text.encode("latin1")
    if pad:
        prefix = 10 if version == 1 else 12
        body += b" " * ((64 - (prefix + len(body) + 1) % 64) % 64) + b"\n"
    length = struct.pack("<H", len(body)) if version == 1 else struct.pack("<I", len(body))
    return b"\x93NUMPY" + bytes([version, 0]) + length + body + data


def saved(array, **kwargs):
    buf = io.BytesIO()
    np.save(buf, array, **kwargs)
    return buf.getvalue()


def zip_archive(members):
    """members: (name, payload, method, claimed uncompressed size or None[, claimed compressed
    size]). Sizes go in ZIP64 extra fields, as NumPy writes them."""
    out, central = bytearray(), bytearray()
    for name, payload, method, claimed, *claimed_csize in members:
        data = payload if method == 0 else zlib.compress(payload)[2:-4]
        usize = len(payload) if claimed is None else claimed
        crc = zlib.crc32(payload)
        extra = struct.pack("<HHQQ", 1, 16, usize, claimed_csize[0] if claimed_csize else len(data))
        offset = len(out)
        name_b = name.encode()
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                           len(name_b), len(extra)) + name_b + extra + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0, crc, 0xFFFFFFFF,
                               0xFFFFFFFF, len(name_b), len(extra), 0, 0, 0, 0, offset) + name_b + extra
    cd_offset = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), cd_offset, 0)
    return bytes(out)


def safetensors(header, data=b"", length=None):
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def npy_cases():
    good = saved(np.arange(6, dtype=np.float32))
    case("bad_magic.npy", "unrecognised format", b"\x93NUMPX" + good[6:])
    case("bad_version.npy", "format version 4.0", b"\x93NUMPY\x04\x00" + good[8:])
    case("bad_minor_version.npy", "format version 1.7", b"\x93NUMPY\x01\x07" + good[8:])
    case("truncated_header.npy", "truncated header", good[:40])
    case("truncated_length.npy", "truncated", b"\x93NUMPY\x02\x00\x10")
    case("header_over_limit.npy", "exceeds the limit", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{")
    case("missing_key.npy", "missing key 'fortran_order'", npy("{'descr': '<f4', 'shape': (3,), }", data=b"\0" * 12))
    case("extra_key.npy", "unexpected key 'extra'",
         npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1, }", data=b"\0" * 12))
    case("duplicate_key.npy", "duplicate",
         npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (3,), }", data=b"\0" * 12))
    case("not_a_dict.npy", "expected a dict", npy("['descr', '<f4']"))
    case("garbage_header.npy", "header", npy("{'descr': <f4, 'fortran_order': False}"))
    case("unterminated.npy", "inside a string", npy("{'descr': '<f4"))
    case("shape_not_tuple.npy", "shape: expected a tuple", npy("{'descr': '<f4', 'fortran_order': False, 'shape': 3, }"))
    case("shape_overflow.npy", "overflows 64 bits",
         npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }"))
    case("bytes_overflow.npy", "overflows 64 bits",
         npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }"))
    case("dim_too_big.npy", "does not fit in 64 bits",
         npy("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }"))
    case("negative_dim.npy", "negative dimension", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }"))
    case("fortran_not_bool.npy", "fortran_order: expected True or False",
         npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }", data=b"\0" * 12))
    case("truncated_data.npy", "truncated data", saved(np.arange(1000, dtype=np.float64))[:200])
    case("huge_claimed_data.npy", "truncated data",
         npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846975,), }", data=b"\0" * 64))
    # Object, string, structured and long double arrays are listed, not refused (make_unscanned_files.py).
    case("no_byte_order.npy", "no byte order", npy("{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }",
                                                   data=b"\0" * 4))
    case("deep_nesting.npy", "nesting deeper", npy("{'descr': " + "(" * 200 + ")" * 200 + "}"))
    case("empty_file.npy", "file is empty", b"")


def npz_cases():
    member = saved(np.arange(32, dtype=np.float64))
    good = zip_archive([("x.npy", member, 8, None)])
    case("truncated.npz", "end-of-central-directory", good[: len(good) // 2])
    case("huge_claim.npz", "bytes uncompressed, but its .npy header describes",
         zip_archive([("x.npy", member, 8, 1 << 60)]))
    case("stored_size_mismatch.npz", "different compressed and uncompressed sizes",
         zip_archive([("x.npy", member, 0, 1 << 60)]))
    case("stored_past_end.npz", "run past the end of the file", zip_archive([("x.npy", member, 0, 1 << 60, 1 << 60)]))
    # A member whose .npy header is consistent with an absurd size: it must be streamed, not allocated.
    absurd = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (144115188075855872,), }", data=b"\0" * 4096)
    header_len = len(absurd) - 4096
    case("absurd_stream.npz", "truncated", zip_archive([("x.npy", absurd, 8, header_len + (1 << 60))]))
    corrupt = bytearray(good)
    start = good.index(b"x.npy") + len(b"x.npy") + 20
    for i in range(start + 40, start + 60):
        corrupt[i] ^= 0x5A
    case("corrupt_deflate.npz", "zip: member 'x.npy'", bytes(corrupt))
    case("not_npy_member.npz", "not a .npy stream", zip_archive([("readme.txt", b"hello world, not a tensor", 0, None)]))
    case("duplicate_member.npz", "duplicate member",
         zip_archive([("x.npy", member, 0, None), ("x.npy", member, 0, None)]))
    case("bzip2_member.npz", "compression method 12",
         zip_archive([("x.npy", member, 0, None)]).replace(struct.pack("<HHHH", 45, 45, 0, 0), struct.pack("<HHHH", 45, 45, 0, 12), 1))
    eocd = good.rindex(struct.pack("<I", 0x06054B50))
    too_many = bytearray(good)
    too_many[eocd + 8:eocd + 12] = struct.pack("<HH", 60000, 60000)
    case("too_many_entries.npz", "entries", bytes(too_many))
    outside = bytearray(good)
    outside[eocd + 16:eocd + 20] = struct.pack("<I", 0x7FFFFFF0)
    case("directory_outside.npz", "outside the file", bytes(outside))


def safetensors_cases():
    t = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    data = b"\0" * 16
    case("st_header_too_large.safetensors", "exceeds the limit", safetensors(b"{}", length=200_000_000))
    case("st_truncated_header.safetensors", "truncated header", safetensors(b'{"a": 1}', length=1000))
    case("st_invalid_json.safetensors", "not valid JSON", safetensors(b'{"a": {"dtype": "F32",,}}'))
    case("st_invalid_utf8.safetensors", "not valid JSON", safetensors(b'{"\xff\xfe": 1}'))
    case("st_duplicate_key.safetensors", "duplicate key 'a'",
         safetensors(b'{"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},'
                     b' "a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}', data))
    case("st_missing_key.safetensors", "missing key 'data_offsets'",
         safetensors({"a": {"dtype": "F32", "shape": [2, 2]}}, data))
    case("st_extra_key.safetensors", "unexpected key 'strides'", safetensors({"a": dict(t, strides=[2, 1])}, data))
    case("st_unknown_dtype.safetensors", "not a safetensors dtype", safetensors({"a": dict(t, dtype="F128")}, data))
    case("st_shape_overflow.safetensors", "overflows 64 bits",
         safetensors({"a": dict(t, shape=[1 << 40, 1 << 40, 1 << 40])}, data))
    case("st_negative_dim.safetensors", "non-negative integer", safetensors({"a": dict(t, shape=[-2, 2])}, data))
    case("st_size_mismatch.safetensors", "shape x dtype needs 24", safetensors({"a": dict(t, shape=[2, 3])}, data))
    case("st_offsets_past_end.safetensors", "past the end", safetensors({"a": t}, b"\0" * 8))
    case("st_trailing_bytes.safetensors", "trailing bytes", safetensors({"a": t}, b"\0" * 24))
    case("st_overlap.safetensors", "(overlap)",
         safetensors({"a": t, "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}, data))
    case("st_gap.safetensors", "(gap)",
         safetensors({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                      "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}}, data))
    case("st_reversed_offsets.safetensors", "negative size",
         safetensors({"a": {"dtype": "F32", "shape": [4], "data_offsets": [16, 0]}}, data))
    case("st_metadata_not_string.safetensors", "__metadata__",
         safetensors({"__metadata__": {"epoch": 3}, "a": t}, data))
    case("st_deep_nesting.safetensors", "nested deeper", safetensors(b'{"a":' + b"[" * 100000 + b"]" * 100000 + b"}"))
    case("st_short.safetensors", "unrecognised format", b"\x08\x00\x00")


def main():
    global OUTDIR
    OUTDIR = sys.argv[1]
    os.makedirs(OUTDIR, exist_ok=True)
    npy_cases()
    npz_cases()
    safetensors_cases()
    with open(os.path.join(OUTDIR, "malformed.json"), "w") as out:
        json.dump({"cases": CASES}, out, indent=1)
    print(f"wrote {len(CASES)} malformed files to {OUTDIR}")


if __name__ == "__main__":
    main()
