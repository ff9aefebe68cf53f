#!/usr/bin/env python3
"""Writes the tensor files the reader tests use, and manifest.json with what NumPy says
about each: dtype, shape, order, byte order, nbytes and every stats field.

usage: make_tensor_files.py OUTDIR [--large]

Files are made at test time (nothing binary is committed). safetensors files are built
here byte by byte to the format's specification, since the safetensors package is not
a Debian package.
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from safetensors_writer import write_safetensors  # noqa: E402

RNG = np.random.default_rng(20261121)
NUMERIC = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"]


def special_values(dtype):
    info = np.finfo(dtype)
    return [np.nan, np.inf, -np.inf, 0.0, -0.0, float(info.tiny) / 2, -float(info.tiny) / 4,
            float(info.max), -float(info.max), 1.5, -2.25]


def sample(dtype, shape, specials=True):
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return RNG.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        flat = RNG.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
        if n >= 3:
            flat[:3] = [info.min, info.max, 0]
            RNG.shuffle(flat)
        return flat.reshape(shape)
    real_dtype = np.dtype(dt.char.lower() if dt.kind == "c" else dt)
    real_dtype = np.float32 if dt == np.complex64 else np.float64 if dt == np.complex128 else real_dtype
    parts = []
    for _ in range(2 if dt.kind == "c" else 1):
        flat = (RNG.standard_normal(n) * 100).astype(real_dtype)
        if specials and n:
            values = special_values(real_dtype)
            positions = RNG.choice(n, size=min(n, len(values)), replace=False)
            with np.errstate(over="ignore"):
                flat[positions] = np.array(values[: len(positions)], dtype=real_dtype)
        parts.append(flat)
    if dt.kind != "c":
        return parts[0].reshape(shape)
    flat = np.empty(n, dtype=dt)
    flat.real, flat.imag = parts  # no arithmetic: Inf * 1j would turn into NaN
    return flat.reshape(shape)


def expected_stats(array, fortran):
    """Stats as BLAScope defines them; complex values count per component."""
    a = np.asarray(array)
    if a.dtype.kind == "c":
        flat = a.ravel(order="F" if fortran else "C")
        components = np.empty(flat.size * 2, dtype=flat.real.dtype)
        components[0::2] = flat.real
        components[1::2] = flat.imag
        x = components
    else:
        x = a.ravel(order="F" if fortran else "C")
    x = x.astype(x.dtype.newbyteorder("="))
    if x.dtype.kind in "biu":
        ints = x.astype(object) if x.dtype.kind != "b" else x.astype(int).astype(object)
        return {"nan": 0, "posinf": 0, "neginf": 0, "zero": int((x == 0).sum()), "subnormal": 0,
                "finite": int(x.size), "min": int(min(ints)) if x.size else None,
                "max": int(max(ints)) if x.size else None, "first_nonfinite": None}
    finite = np.isfinite(x)
    tiny = np.finfo(x.dtype).tiny
    nonfinite_at = np.flatnonzero(~finite)
    return {
        "nan": int(np.isnan(x).sum()),
        "posinf": int(np.isposinf(x).sum()),
        "neginf": int(np.isneginf(x).sum()),
        "zero": int((x == 0).sum()),
        "subnormal": int(((x != 0) & finite & (np.abs(x) < tiny)).sum()),
        "finite": int(finite.sum()),
        "min": float(x[finite].min()) if finite.any() else None,
        "max": float(x[finite].max()) if finite.any() else None,
        "first_nonfinite": int(nonfinite_at[0]) if nonfinite_at.size else None,
    }


def byte_order_name(dtype):
    if dtype.itemsize == 1:
        return "none"
    return "big" if dtype.byteorder == ">" else "little"


def describe(name, array, fortran):
    return {"name": name, "dtype": array.dtype.name, "shape": list(array.shape),
            "order": "F" if fortran else "C", "byte_order": byte_order_name(array.dtype),
            "nbytes": int(array.nbytes), "stats": expected_stats(array, fortran)}


class Manifest:
    def __init__(self, outdir):
        self.outdir = outdir
        self.files = []

    def add(self, filename, fmt, tensors):
        self.files.append({"file": filename, "format": fmt, "tensors": tensors})

    def write(self):
        with open(os.path.join(self.outdir, "manifest.json"), "w") as out:
            json.dump({"files": self.files}, out, indent=1)


def write_npy_files(m):
    for dtype in NUMERIC:
        orders = ["<", ">"] if np.dtype(dtype).itemsize > 1 else ["|"]
        for bo in orders:
            for fortran in (False, True):
                a = sample(dtype, (4, 5))
                a = a.astype(a.dtype.newbyteorder(bo)) if bo != "|" else a
                if fortran:
                    a = np.asfortranarray(a)
                tag = {"<": "le", ">": "be", "|": "na"}[bo]
                name = f"{dtype}_{tag}_{'F' if fortran else 'C'}"
                np.save(os.path.join(m.outdir, name + ".npy"), a)
                m.add(name + ".npy", "npy", [describe(name, a, fortran)])
    cases = {
        "scalar_f64": np.array(np.nan),
        "scalar_i32": np.array(-7, dtype=np.int32),
        "empty_f32": np.zeros((0, 3), dtype=np.float32),
        "empty_1d": np.zeros((0,), dtype=np.float64),
        "vector_f16": sample("float16", (33,)),
        "cube_f32": sample("float32", (3, 4, 5)),
        "all_nan": np.full((2, 2), np.nan, dtype=np.float32),
    }
    for name, a in cases.items():
        np.save(os.path.join(m.outdir, name + ".npy"), a)
        m.add(name + ".npy", "npy", [describe(name, a, False)])
    for version in ((1, 0), (2, 0), (3, 0)):
        a = np.asfortranarray(sample("float64", (6, 7)))
        name = f"version_{version[0]}"
        with open(os.path.join(m.outdir, name + ".npy"), "wb") as f:
            np.lib.format.write_array(f, a, version=version)
        m.add(name + ".npy", "npy", [describe(name, a, True)])


def write_npz_files(m):
    members = {"a": sample("float32", (8, 3)), "b": sample("int64", (5,)),
               "c": np.asfortranarray(sample(">f8", (4, 6))), "d": np.array(2.5, dtype=np.float16),
               "e": np.zeros((0, 2), dtype=np.complex64)}
    np.savez(os.path.join(m.outdir, "stored.npz"), **members)
    np.savez_compressed(os.path.join(m.outdir, "deflated.npz"), **members)
    for fname in ("stored.npz", "deflated.npz"):
        m.add(fname, "npz", [describe(k, v, v.flags.f_contiguous and not v.flags.c_contiguous)
                              for k, v in members.items()])
    many = {f"layer{i:03d}.weight": sample("float32", (i % 7 + 1, 3)) for i in range(60)}
    np.savez_compressed(os.path.join(m.outdir, "many.npz"), **many)
    m.add("many.npz", "npz", [describe(k, v, False) for k, v in many.items()])


# --- safetensors, written to the specification ---------------------------------------

def bf16_bits(values):
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    return (bits >> 16).astype(np.uint16)  # truncation keeps NaN, Inf and subnormals


def decode_minifloat(bits, exp_bits, man_bits, ieee):
    sign = -1.0 if (bits >> (exp_bits + man_bits)) & 1 else 1.0
    exp = (bits >> man_bits) & ((1 << exp_bits) - 1)
    man = bits & ((1 << man_bits) - 1)
    bias = (1 << (exp_bits - 1)) - 1
    top = (1 << exp_bits) - 1
    if ieee and exp == top:
        return math.nan if man else sign * math.inf
    if not ieee and exp == top and man == (1 << man_bits) - 1:
        return math.nan
    if exp == 0:
        return sign * man * 2.0 ** (1 - bias - man_bits)
    return sign * (1 + man / 2 ** man_bits) * 2.0 ** (exp - bias)


def stats_of_decoded(values, subnormal_flags):
    x = np.array(values, dtype=np.float64)
    finite = np.isfinite(x)
    nonfinite_at = np.flatnonzero(~finite)
    return {"nan": int(np.isnan(x).sum()), "posinf": int(np.isposinf(x).sum()),
            "neginf": int(np.isneginf(x).sum()), "zero": int((x == 0).sum()),
            "subnormal": int(sum(subnormal_flags)), "finite": int(finite.sum()),
            "min": float(x[finite].min()) if finite.any() else None,
            "max": float(x[finite].max()) if finite.any() else None,
            "first_nonfinite": int(nonfinite_at[0]) if nonfinite_at.size else None}


def float8_tensor(name, exp_bits, man_bits, ieee, dtype_name):
    bits = np.arange(256, dtype=np.uint8)
    values = [decode_minifloat(int(b), exp_bits, man_bits, ieee) for b in bits]
    subnormal = [((int(b) >> man_bits) & ((1 << exp_bits) - 1)) == 0 and (int(b) & ((1 << man_bits) - 1)) != 0
                 for b in bits]
    return bits.tobytes(), [16, 16], {"name": name, "dtype": dtype_name, "shape": [16, 16], "order": "C",
                                       "byte_order": "none", "nbytes": 256,
                                       "stats": stats_of_decoded(values, subnormal)}


def write_safetensors_files(m):
    codes = {"float64": "F64", "float32": "F32", "float16": "F16", "int64": "I64", "int32": "I32",
             "int16": "I16", "int8": "I8", "uint64": "U64", "uint32": "U32", "uint16": "U16",
             "uint8": "U8", "bool": "BOOL", "complex64": "C64"}
    tensors, expected = [], []
    for dtype, code in codes.items():
        a = sample(dtype, (3, 7))
        tensors.append((f"t_{dtype}", code, [3, 7], a.astype(a.dtype.newbyteorder("<")).tobytes()))
        entry = describe(f"t_{dtype}", a, False)
        entry["byte_order"] = "little" if a.dtype.itemsize > 1 else "none"
        expected.append(entry)
    f32 = sample("float32", (5, 4))
    bf = bf16_bits(f32)
    tensors.append(("t_bfloat16", "BF16", [5, 4], bf.tobytes()))
    back = (bf.astype(np.uint32) << 16).view(np.float32)
    stats = expected_stats(back, False)
    stats["subnormal"] = int(((back != 0) & np.isfinite(back) & (np.abs(back) < np.finfo(np.float32).tiny)).sum())
    expected.append({"name": "t_bfloat16", "dtype": "bfloat16", "shape": [5, 4], "order": "C",
                     "byte_order": "little", "nbytes": 40, "stats": stats})
    for name, eb, mb, ieee, code, dname in (("t_e4m3", 4, 3, False, "F8_E4M3", "float8_e4m3fn"),
                                            ("t_e5m2", 5, 2, True, "F8_E5M2", "float8_e5m2")):
        raw, shape, entry = float8_tensor(name, eb, mb, ieee, dname)
        tensors.append((name, code, shape, raw))
        expected.append(entry)
    tensors.append(("t_empty", "F32", [0, 4], b""))
    expected.append({"name": "t_empty", "dtype": "float32", "shape": [0, 4], "order": "C", "byte_order": "little",
                     "nbytes": 0, "stats": expected_stats(np.zeros((0, 4), np.float32), False)})
    write_safetensors(os.path.join(m.outdir, "model.safetensors"), tensors, {"format": "pt", "note": "test"})
    m.add("model.safetensors", "safetensors", expected)


def write_large_files(m):
    """Tensors above the parallel-scan threshold (32 MiB), with NaN/Inf placed far in."""
    a = RNG.standard_normal(12_000_000).astype(np.float32)
    a[9_000_001] = np.nan
    a[11_999_999] = -np.inf
    a[5] = np.float32(1e-40)
    np.save(os.path.join(m.outdir, "large_f32.npy"), a)
    m.add("large_f32.npy", "npy", [describe("large_f32", a, False)])
    b = np.asfortranarray(RNG.standard_normal((3000, 1500)).astype(">f8"))
    b[2999, 1499] = np.inf
    np.save(os.path.join(m.outdir, "large_be_f8.npy"), b)
    m.add("large_be_f8.npy", "npy", [describe("large_be_f8", b, True)])


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    m = Manifest(outdir)
    write_npy_files(m)
    write_npz_files(m)
    write_safetensors_files(m)
    if "--large" in sys.argv:
        write_large_files(m)
    m.write()
    print(f"wrote {len(m.files)} files to {outdir}")


if __name__ == "__main__":
    main()
