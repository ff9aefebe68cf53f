#!/usr/bin/env python3
"""Writes HDF5 files and Keras weight files with the real h5py (libhdf5), hostile variants of
them, and manifest.json with what h5py says about each dataset (dtype, shape, byte order,
nbytes, filters, stats) and attribute, and what each hostile file must be refused for.

usage: make_hdf5_files.py OUTDIR

Without h5py (the Debian package python3-h5py) the manifest says "skipped".
"""
import io
import json
import os
import struct
import sys
import zipfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_tensor_files import expected_stats  # noqa: E402

RNG = np.random.default_rng(1313)


def byte_order_name(dtype):
    if dtype.itemsize == 1:
        return "none"
    base = dtype.subdtype[0] if dtype.subdtype else dtype
    if base.kind == "c":
        base = np.dtype(base.byteorder + "f" + str(base.itemsize // 2)) if base.byteorder in "<>" else base
    return "big" if base.byteorder == ">" else "little"


def attribute_expectation(value):
    """What BLAScope's metadata text must say: exact text, or numbers to compare numerically."""
    if isinstance(value, bytes):
        return {"text": value.decode()}
    if isinstance(value, str):
        return {"text": value}
    a = np.asarray(value)
    if a.dtype.kind == "b":
        words = ["True" if v else "False" for v in a.ravel()]
        return {"text": words[0] if a.ndim == 0 else "[" + ", ".join(words) + "]"}
    if a.dtype.kind in "iu":
        words = [str(int(v)) for v in a.ravel()]
        return {"text": words[0] if a.ndim == 0 else "[" + ", ".join(words) + "]"}
    if a.dtype.kind == "f":
        return {"numbers": [float(v) for v in a.ravel()], "scalar": a.ndim == 0}
    if a.dtype.kind in "SO":
        words = [v.decode() if isinstance(v, bytes) else str(v) for v in a.ravel()]
        return {"text": words[0] if a.ndim == 0 else "[" + ", ".join(words) + "]"}
    return None


class Manifest:
    def __init__(self, outdir):
        self.outdir = outdir
        self.files, self.hostile, self.degraded = [], [], []

    def path(self, name):
        return os.path.join(self.outdir, name)

    def describe(self, filename, h5file, fmt="hdf5", extra_metadata=None, mapped=True):
        import h5py
        tensors, unread, metadata = [], [], dict(extra_metadata or {})

        def attributes(prefix, obj):
            for key, value in obj.attrs.items():
                want = attribute_expectation(value)
                if want is not None:
                    metadata[(prefix + "@" if prefix else "") + key] = want

        attributes("", h5file)

        def visit(name, obj):
            attributes(name, obj)
            if not isinstance(obj, h5py.Dataset):
                return
            dt = obj.dtype
            if dt.kind in "SUOV" or h5py.check_dtype(vlen=dt) is not None:
                unread.append({"name": name, "says": "not numbers"})
                return
            if obj.compression == "lzf":
                unread.append({"name": name, "says": "filter 32000 (lzf) not available"})
                return
            data = obj[()]
            filtered = bool(obj.compression or obj.shuffle or obj.fletcher32)
            contiguous = obj.chunks is None and obj.id.get_offset() is not None
            tensors.append({"name": name, "dtype": dt.name if dt.kind != "b" else "bool", "shape": list(obj.shape),
                            "byte_order": byte_order_name(dt), "nbytes": int(data.nbytes), "compressed": filtered,
                            "storage": "mapped" if (contiguous and mapped) else "streamed",
                            "offset": (obj.id.get_offset() if contiguous else None),
                            "stats": expected_stats(data, False)})

        h5file.visititems(visit)
        self.files.append({"file": filename, "format": fmt, "tensors": tensors, "unread": unread,
                           "metadata": metadata})

    def refuse(self, filename, says):
        self.hostile.append({"file": filename, "says": says})

    def write(self, extra):
        with open(self.path("manifest.json"), "w") as out:
            json.dump({"files": self.files, "hostile": self.hostile, "degraded": self.degraded, **extra}, out, indent=1)


def floats_with_specials(dtype, shape):
    a = RNG.standard_normal(int(np.prod(shape))).astype(dtype)
    if a.size >= 8:
        a[1] = np.nan
        a[3] = np.inf
        a[5] = -np.inf
        a[6] = 0
        a[7] = np.finfo(a.dtype).tiny / 4  # subnormal
    return a.reshape(shape)


def write_layouts(m):
    import h5py
    name = "layouts.h5"
    with h5py.File(m.path(name), "w") as f:
        f.attrs["title"] = "layouts and types"
        f.attrs["count"] = np.int64(-7)
        f.attrs["ratio"] = 0.25
        f.attrs["flag"] = np.bool_(True)
        f.attrs["shape"] = np.array([3, 4], dtype=np.uint32)
        f.attrs["weights"] = np.array([0.5, -1.5, 2.0])
        f.attrs["names"] = np.array([b"alpha", b"beta"])
        f.attrs["vlen_names"] = np.array(["x", "yy"], dtype=h5py.string_dtype())
        f.create_dataset("contiguous/f32", data=floats_with_specials("<f4", (64, 33)))
        f.create_dataset("contiguous/f64", data=floats_with_specials("<f8", (17,)))
        f.create_dataset("contiguous/f16", data=floats_with_specials("<f2", (40,)))
        f.create_dataset("contiguous/be_f4", data=floats_with_specials(">f4", (9, 5)))
        f.create_dataset("contiguous/be_i8", data=np.arange(-20, 20, dtype=">i8").reshape(4, 10))
        for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"):
            info = np.iinfo(t)
            d = RNG.integers(info.min, info.max, size=50, dtype=t, endpoint=True)
            d[:3] = [info.min, info.max, 0]
            f.create_dataset("ints/" + np.dtype(t).name, data=d)
        f.create_dataset("bool", data=RNG.integers(0, 2, size=(6, 7)).astype(bool))
        f.create_dataset("complex/c64", data=(floats_with_specials("<f4", (12,)) + 1j).astype("<c8"))
        f.create_dataset("complex/c128", data=(1 - 2j) * np.arange(10, dtype="<c16"))
        f.create_dataset("scalar", data=np.float64(3.5))
        f.create_dataset("empty", data=np.zeros((0, 3), dtype="f4"))
        f.create_dataset("never_written", shape=(20, 3), dtype="f4", fillvalue=1.5)
        f.create_dataset("compact", data=np.arange(6, dtype="<i4"),
                         **({} if not hasattr(h5py.h5d, "COMPACT") else {}))
        base = floats_with_specials("<f4", (100, 37))
        f.create_dataset("chunked/plain", data=base, chunks=(16, 10))
        f.create_dataset("chunked/gzip", data=base, chunks=(30, 37), compression="gzip", compression_opts=6)
        f.create_dataset("chunked/shuffle", data=base, chunks=(30, 20), shuffle=True)
        f.create_dataset("chunked/gzip_shuffle", data=base, chunks=(7, 37), compression="gzip", shuffle=True)
        f.create_dataset("chunked/fletcher32", data=base, chunks=(50, 37), fletcher32=True)
        f.create_dataset("chunked/be_gzip", data=base.astype(">f8"), chunks=(33, 11), compression="gzip")
        f.create_dataset("chunked/lzf", data=base, chunks=(50, 37), compression="lzf")
        f.create_dataset("chunked/partly_written", shape=(40, 40), chunks=(10, 10), dtype="<i2", fillvalue=-3)
        f["chunked/partly_written"][0:10, 0:10] = 5
        f.create_dataset("chunked/3d", data=floats_with_specials("<f4", (5, 7, 9)), chunks=(2, 3, 4),
                         compression="gzip")
        f.create_dataset("strings/fixed", data=np.array([b"ab", b"cde"]))
        f.create_dataset("strings/vlen", data=np.array(["x", "yz"], dtype=h5py.string_dtype()))
        f["nested/a/b/c"] = np.arange(4, dtype="<u2")
        f["nested/a"].attrs["level"] = 1
        f["nested/a/b/c"].attrs["units"] = "m/s"
        f["soft"] = h5py.SoftLink("/nested/a/b/c")          # not followed: no second tensor
        f["external"] = h5py.ExternalLink("other.h5", "/x")  # never opened
        f["hard_again"] = f["nested/a/b/c"]                  # one object, listed once
        m.describe(name, f)


def write_big(m):
    """Several hyperslab blocks: rows of 8.4 MB split along the second axis, and many chunks."""
    import h5py
    name = "big.h5"
    with h5py.File(m.path(name), "w") as f:
        rows = np.tile(np.arange(2100000, dtype="<f4") % 1000 - 500, (3, 1))
        rows[1, 2099999] = np.nan
        rows[2, 1234567] = -np.inf
        f.create_dataset("wide", data=rows, chunks=(1, 700000), compression="gzip", compression_opts=1)
        tall = np.arange(3000 * 700, dtype="<f8").reshape(3000, 700)
        tall[2999, 699] = np.inf
        f.create_dataset("tall", data=tall, chunks=(700, 300), compression="gzip", compression_opts=1, shuffle=True)
        m.describe(name, f)


def write_userblock(m):
    import h5py
    name = "userblock.h5"
    with h5py.File(m.path(name), "w", userblock_size=512) as f:
        f.create_dataset("x", data=floats_with_specials("<f4", (32,)))
        f.attrs["note"] = "after a 512-byte user block"
        m.describe(name, f)
    with open(m.path(name), "r+b") as out:
        out.write(b"user block text, not HDF5")


def write_unusual_layouts(m):
    """Valid files our own header checks must not refuse: addresses and lengths of different
    sizes (the root symbol table entry's link name offset is a length), a pipeline deflating
    twice, and a variable-length attribute too large to show (listed as not read)."""
    import h5py
    for offsets, lengths in ((8, 4), (4, 8), (2, 8)):
        name = f"sizes_{offsets}_{lengths}.h5"
        create = h5py.h5p.create(h5py.h5p.FILE_CREATE)
        create.set_sizes(offsets, lengths)
        with h5py.File(h5py.h5f.create(m.path(name).encode(), h5py.h5f.ACC_TRUNC, fcpl=create)) as f:
            f.create_dataset("x", data=floats_with_specials("<f8", (5,)))
            f.attrs["sizes"] = f"{offsets}/{lengths}"
        with h5py.File(m.path(name), "r") as f:
            m.describe(name, f)
    # libhdf5 1.10.8 writes, with 4-byte offsets and lengths at libver latest, a resizable chunked
    # dataset it then cannot open (h5py cannot either): listed as not read, the rest is read.
    name = "unopenable_dataset.h5"
    create = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    create.set_sizes(4, 4)
    access = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    access.set_libver_bounds(h5py.h5f.LIBVER_LATEST, h5py.h5f.LIBVER_LATEST)
    with h5py.File(h5py.h5f.create(m.path(name).encode(), h5py.h5f.ACC_TRUNC, fcpl=create, fapl=access)) as f:
        f.create_dataset("x", data=floats_with_specials("<f8", (5,)))
        f.create_dataset("c", data=np.arange(100), chunks=(10,), compression="gzip", maxshape=(None,))
    with h5py.File(m.path(name), "r") as f:
        try:
            f["c"]
            unopenable = False  # another libhdf5 opens it: nothing to test here
        except (KeyError, OSError, ValueError):
            unopenable = True
        x = f["x"]
        if unopenable:
            m.files.append({"file": name, "format": "hdf5", "metadata": {},
                            "unread": [{"name": "c", "says": "libhdf5 cannot open it"}],
                            "tensors": [{"name": "x", "dtype": "float64", "shape": [5], "nbytes": 40,
                                         "byte_order": byte_order_name(x.dtype), "compressed": False,
                                         "storage": "mapped", "offset": x.id.get_offset(),
                                         "stats": expected_stats(x[()], False)}]})
    with h5py.File(m.path("deflate_twice.h5"), "w") as f:
        create = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        create.set_chunk((50,))
        create.set_shuffle()
        create.set_deflate(4)
        create.set_deflate(1)
        d = h5py.h5d.create(f.id, b"twice", h5py.h5t.STD_I32LE, h5py.h5s.create_simple((200,)), create)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(-100, 100, dtype="<i4"))
    with h5py.File(m.path("deflate_twice.h5"), "r") as f:
        m.describe("deflate_twice.h5", f)
    with h5py.File(m.path("huge_string_attribute.h5"), "w", libver="latest") as f:
        f.create_dataset("w", data=np.ones(3, "<f4"))
        f.attrs["big"] = "x" * (65 << 20)
    m.degraded.append({"file": "huge_string_attribute.h5", "key": "big", "tensors": 1,
                       "says": "not read: a value claims 68157440 bytes"})


KERAS2_CONFIG = json.dumps({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
    {"class_name": "Dense", "config": {"name": "dense", "units": 3}}]}})


def write_keras2(m):
    import h5py
    name = "keras2.h5"
    kernel = RNG.standard_normal((4, 3)).astype("f4")
    bias = np.zeros(3, dtype="f4")
    with h5py.File(m.path(name), "w") as f:
        f.attrs["keras_version"] = "2.13.1"
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = KERAS2_CONFIG
        f.attrs["training_config"] = json.dumps({"loss": "mse"})
        g = f.create_group("model_weights")
        g.attrs["layer_names"] = np.array([b"dense"])
        g.attrs["backend"] = "tensorflow"
        g.attrs["keras_version"] = "2.13.1"
        d = g.create_group("dense")
        d.attrs["weight_names"] = np.array([b"dense/kernel:0", b"dense/bias:0"])
        d.create_dataset("dense/kernel:0", data=kernel)
        d.create_dataset("dense/bias:0", data=bias)
        o = f.create_group("optimizer_weights")
        o.create_dataset("Adam/iter:0", data=np.int64(10))
        m.describe(name, f)


def keras3_weights():
    import h5py
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        f.create_group("vars")
        layer = f.create_group("layers/dense/vars")
        layer.create_dataset("0", data=floats_with_specials("<f4", (8, 4)))
        layer.create_dataset("1", data=np.arange(4, dtype="<f4"))
        f.create_dataset("optimizer/vars/0", data=np.int64(3))
    return buffer.getvalue()


def write_keras3(m, name, compression):
    import h5py
    weights = keras3_weights()
    config = json.dumps({"module": "keras", "class_name": "Sequential", "config": {"name": "sequential"}})
    meta = json.dumps({"keras_version": "3.3.3", "date_saved": "2026-11-23@21:00:00"})
    with zipfile.ZipFile(m.path(name), "w", compression=compression) as z:
        z.writestr("metadata.json", meta)
        z.writestr("config.json", config)
        z.writestr("model.weights.h5", weights)
    with h5py.File(io.BytesIO(weights), "r") as f:
        m.describe(name, f, fmt="keras",
                   extra_metadata={"config.json": {"text": config}, "metadata.json": {"text": meta}},
                   mapped=compression == zipfile.ZIP_STORED)


def patch(path, old, new):
    with open(path, "rb") as f:
        data = f.read()
    assert data.count(old) == 1, (path, data.count(old))
    with open(path, "wb") as f:
        f.write(data.replace(old, new))


def write_hostile(m):
    import h5py
    with open(m.path("layouts.h5"), "rb") as f:
        good = f.read()
    with open(m.path("truncated.h5"), "wb") as f:
        f.write(good[: len(good) // 2])
    m.refuse("truncated.h5", "truncated")

    with h5py.File(m.path("past_end.h5"), "w") as f:
        f.create_dataset("weights/huge", data=np.arange(1000, dtype="<f8"))
        offset = f["weights/huge"].id.get_offset()
    patch(m.path("past_end.h5"), struct.pack("<Q", offset), struct.pack("<Q", offset + (1 << 40)))
    m.refuse("past_end.h5", "dataset 'weights/huge': its data (8000 bytes at offset")

    with h5py.File(m.path("corrupt_gzip.h5"), "w") as f:
        d = f.create_dataset("layer/kernel", data=np.arange(20000, dtype="<f4"), chunks=(5000,), compression="gzip")
        info = d.id.get_chunk_info(1)
    with open(m.path("corrupt_gzip.h5"), "r+b") as f:
        f.seek(info.byte_offset + 2)
        f.write(bytes(range(7, 7 + 64)))
    m.refuse("corrupt_gzip.h5", "dataset 'layer/kernel'")

    with h5py.File(m.path("absurd_dims.h5"), "w") as f:
        f.create_dataset("fill/everything", shape=(10**7, 10**6), chunks=(1000, 1000), dtype="<f4")
    m.refuse("absurd_dims.h5", "dataset 'fill/everything': claims")

    # libhdf5 1.10 decodes an attribute name with strdup: without its NUL it reads past the header.
    with h5py.File(m.path("attribute_name_unterminated.h5"), "w") as f:
        f.create_dataset("dense/kernel", data=np.ones((2, 2), "<f4")).attrs["abcdefg"] = 1
    patch(m.path("attribute_name_unterminated.h5"), b"abcdefg\0", b"abcdefgh")
    m.refuse("attribute_name_unterminated.h5", "HDF5 object 'dense/kernel': an attribute name of 8 bytes has no terminating NUL")

    # A symbol table's local heap claiming 1 TiB: libhdf5 1.10 would allocate it before reading.
    with h5py.File(m.path("local_heap_claims_tib.h5"), "w") as f:
        f.create_dataset("x", data=np.ones(4, "<f4"))
    with open(m.path("local_heap_claims_tib.h5"), "r+b") as f:
        data = f.read()
        assert data.count(b"HEAP") == 1
        f.seek(data.find(b"HEAP") + 8)
        f.write(struct.pack("<Q", 1 << 40))
    m.refuse("local_heap_claims_tib.h5", "HDF5 object '/': its local heap's data segment (1099511627776 bytes")

    # A chunk index entry pointing at another dataset's smaller chunk: libhdf5 1.10 copies a whole
    # chunk out of the shorter inflated buffer. v1 B-tree key: size, filter mask, offsets; then the address.
    with h5py.File(m.path("chunk_inflates_short.h5"), "w") as f:
        big = f.create_dataset("big", data=np.arange(400, dtype="<f4"), chunks=(100,), compression="gzip")
        small = f.create_dataset("small", data=np.arange(10, dtype="<f4"), chunks=(10,), compression="gzip")
        first, other = big.id.get_chunk_info(0), small.id.get_chunk_info(0)
    patch(m.path("chunk_inflates_short.h5"), struct.pack("<IIQQQ", first.size, 0, 0, 0, first.byte_offset),
          struct.pack("<IIQQQ", other.size, 0, 0, 0, other.byte_offset))
    m.refuse("chunk_inflates_short.h5", "dataset 'big': a chunk inflates to 40 bytes, not the 400 bytes")

    # 64 MiB of zeros deflated into one chunk of 256 KiB: libhdf5's deflate would inflate all of
    # it, doubling its buffer; the chunk's own size is the limit.
    with h5py.File(m.path("inflate_bomb.h5"), "w") as f:
        d = f.create_dataset("x", shape=(1 << 16,), dtype="<f4", chunks=(1 << 16,), compression="gzip")
        packer = zlib.compressobj(9)
        d.id.write_direct_chunk((0,), b"".join(packer.compress(bytes(1 << 22)) for _ in range(16)) + packer.flush(), 0)
    m.refuse("inflate_bomb.h5", "dataset 'x': a chunk inflates to more than the 262144 bytes of its chunk shape")

    with zipfile.ZipFile(m.path("missing_weights.keras"), "w") as z:
        z.writestr("metadata.json", "{}")
        z.writestr("config.json", "{}")
    m.refuse("missing_weights.keras", "'model.weights.h5' is missing")

    weights = keras3_weights()
    with zipfile.ZipFile(m.path("size_lie.keras"), "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("metadata.json", "{}")
        z.writestr("config.json", "{}")
        z.writestr("model.weights.h5", weights)
    with open(m.path("size_lie.keras"), "rb") as f:
        data = bytearray(f.read())
    central = data.rfind(b"PK\x01\x02" + data[data.rfind(b"PK\x01\x02") + 4:][:0])
    at = data.find(b"model.weights.h5", data.find(b"PK\x01\x02"))
    entry = data.rfind(b"PK\x01\x02", 0, at)
    assert central >= 0 and struct.unpack_from("<I", data, entry + 24)[0] == len(weights)
    struct.pack_into("<I", data, entry + 24, len(weights) - 100)
    with open(m.path("size_lie.keras"), "wb") as f:
        f.write(data)
    m.refuse("size_lie.keras", "model.weights.h5")


def write_degraded(m):
    """A global heap whose first entry is a zero-size free-space entry: libhdf5 1.10 would loop
    forever decoding it, so its variable-length strings are not read; the tensors still are."""
    with open(m.path("keras2.h5"), "rb") as f:
        data = bytearray(f.read())
    at = data.find(b"GCOL")
    assert at > 0
    first = at + 16  # 8-byte header + 8-byte collection size
    struct.pack_into("<HHIQ", data, first, 0, 0, 0, 0)
    with open(m.path("heap_loop.h5"), "wb") as f:
        f.write(data)
    m.degraded.append({"file": "heap_loop.h5", "key": "keras_version", "tensors": 3,
                       "says": f"HDF5 global heap collection at offset {at}: a free-space entry of size 0"})


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    m = Manifest(outdir)
    try:
        import h5py  # noqa: F401
    except ImportError as error:
        m.write({"skipped": f"h5py: {error}"})
        return
    write_layouts(m)
    write_big(m)
    write_userblock(m)
    write_unusual_layouts(m)
    write_keras2(m)
    write_keras3(m, "weights.keras", zipfile.ZIP_STORED)
    write_keras3(m, "weights_deflated.keras", zipfile.ZIP_DEFLATED)
    write_hostile(m)
    write_degraded(m)
    m.write({})


if __name__ == "__main__":
    main()
