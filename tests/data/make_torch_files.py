#!/usr/bin/env python3
"""Writes PyTorch checkpoints with the real torch.save, hostile variants of them, and
manifest.json with what torch says about each tensor (dtype, shape, order, byte order,
nbytes, stats) and what each hostile file must be refused for.

usage: make_torch_files.py OUTDIR

Nothing here is ever loaded with pickle or torch.load: the hostile pickles (one naming
posix.system through __reduce__) are only written. Without torch (the Debian package
python3-torch) the manifest says "skipped".
"""
import io
import json
import os
import pickle
import struct
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_tensor_files import expected_stats, sample  # noqa: E402

# torch dtype -> the name BLAScope (NumPy) gives it
DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16",
          "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
          "bool": "bool", "complex64": "complex64", "complex128": "complex128"}


def numpy_of(tensor):
    import torch
    if tensor.dtype == torch.bfloat16:
        return tensor.detach().float().numpy()  # exact: bfloat16 is float32's top half
    return tensor.detach().numpy()


def describe(name, tensor):
    import torch
    t = tensor.detach()
    fortran = t.dim() == 2 and not t.is_contiguous() and t.t().is_contiguous()
    itemsize = t.element_size()
    return {"name": name, "dtype": DTYPES[str(t.dtype).replace("torch.", "")], "shape": list(t.shape),
            "order": "F" if fortran else "C", "byte_order": "none" if itemsize == 1 else "little",
            "nbytes": t.numel() * itemsize, "stats": expected_stats(numpy_of(t), fortran),
            "bfloat16": t.dtype == torch.bfloat16}


def flatten(value, prefix, tensors, metadata):
    """Names as BLAScope gives them: keys joined with dots, tensors listed, scalars as metadata."""
    import collections
    import torch
    if isinstance(value, torch.Tensor):
        tensors.append((prefix, value))
    elif isinstance(value, (bytes, bytearray)):
        metadata[prefix or "value"] = f"<{len(value)} bytes>"
    elif isinstance(value, dict) and (not value or isinstance(value, collections.Counter)):
        metadata[prefix or "value"] = repr(value)  # {} and Counter({1: 1}) are values, not containers
    elif isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), tensors, metadata)
    elif isinstance(value, (list, tuple)) and any(isinstance(v, (torch.Tensor, dict, list, tuple)) for v in value):
        for i, item in enumerate(value):
            flatten(item, f"{prefix}.{i}" if prefix else str(i), tensors, metadata)
    else:
        metadata[prefix or "value"] = value if isinstance(value, str) else repr(value)


class Manifest:
    def __init__(self, outdir):
        self.outdir = outdir
        self.files, self.hostile = [], []

    def save(self, filename, obj, strided=(), **kwargs):
        import torch
        torch.save(obj, os.path.join(self.outdir, filename), **kwargs)
        tensors, metadata = [], {}
        flatten(obj, "", tensors, metadata)
        stem = os.path.splitext(filename)[0]  # a bare tensor is named after the file, as a .npy is
        tensors = [(name or stem, tensor) for name, tensor in tensors]
        self.files.append({"file": filename, "metadata": metadata, "strided": list(strided),
                           "tensors": [describe(n, t) for n, t in tensors if n not in strided]})

    def refuse(self, filename, says):
        self.hostile.append({"file": filename, "says": says})

    def write(self, extra):
        with open(os.path.join(self.outdir, "manifest.json"), "w") as out:
            json.dump({"files": self.files, "hostile": self.hostile, **extra}, out, indent=1)


def model_state():
    import torch
    torch.manual_seed(13)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                                torch.nn.Linear(8, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    model(torch.randn(5, 4)).sum().backward()
    optimizer.step()
    return model, optimizer


def write_good(m):
    import torch
    model, optimizer = model_state()
    m.save("sequential.pt", model.state_dict())
    m.save("checkpoint.pt", {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3,
                             "lr": 0.001, "name": "run-1", "best": None})
    dtypes = {}
    for name in DTYPES:
        if name == "bfloat16":
            dtypes[name] = torch.from_numpy(sample("float32", (3, 5))).to(torch.bfloat16)
        else:
            dtypes[name] = torch.from_numpy(np.ascontiguousarray(sample(name, (3, 5))))
    m.save("dtypes.pt", dtypes)
    base = torch.from_numpy(sample("float32", (4, 6)))
    shared = torch.arange(24, dtype=torch.float64)
    views = {"base": base, "transposed": base.t(), "row": base[2], "block": base[1:3, 2:5],
             "column": base[:, 1:2], "shared_flat": shared, "shared_matrix": shared[6:].view(3, 6),
             "scalar": torch.tensor(2.5), "empty": torch.zeros(0, 3), "tied": base}
    m.save("views.pt", views, strided=("block", "column"))
    m.save("bare.pt", torch.arange(5, dtype=torch.int32))
    # torch.save stores every entry; a zip tool may deflate them: still read, inflated on demand.
    deflate(os.path.join(m.outdir, "sequential.pt"), os.path.join(m.outdir, "deflated.pt"))
    entry = dict(m.files[0], file="deflated.pt")
    m.files.append(entry)
    # PyTorch 2.1+ records the byte order; a big-endian machine's checkpoint, made by hand.
    values = sample("float64", (2, 3)).astype(">f8")
    write_archive(os.path.join(m.outdir, "big_endian.pt"),
                  tensor_pickle("w", "DoubleStorage", "0", 6, 0, (2, 3), (3, 1)), {"0": values.tobytes()},
                  byteorder="big")
    m.files.append({"file": "big_endian.pt", "metadata": {}, "strided": [], "tensors": [
        {"name": "w", "dtype": "float64", "shape": [2, 3], "order": "C", "byte_order": "big", "nbytes": 48,
         "stats": expected_stats(values, False)}]})


def write_values(m):
    """Every value torch 2.x's torch.load(weights_only=True) accepts, as torch.save writes it
    at protocol 2 (its default: bytes through _codecs.encode, set through __builtin__.set) and 4
    (EMPTY_SET, ADDITEMS, FROZENSET)."""
    import collections
    import torch
    model, optimizer = model_state()
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[1, 2])
    fresh = torch.optim.SGD(model.parameters(), lr=0.1)
    values = {"w": torch.ones(2), "scheduler": scheduler.state_dict(), "fresh_optimizer": fresh.state_dict(),
              "extra": {}, "counter": collections.Counter({1: 1, 2: 1}), "no_count": collections.Counter(),
              "data": b"\x01\x02", "latin": bytes(range(250, 256)), "array": bytearray(b"abc"), "set": {1, 2},
              "empty_set": set(), "frozen": frozenset({3}), "complex": 1 + 2j, "imaginary": -2.5j,
              "dtype": torch.float16, "dtypes": [torch.bfloat16, torch.int64], "shape": torch.Size([2, 3]),
              "device": torch.device("cpu"), "cuda": torch.device("cuda", 0), "seed": 2**64 - 5,
              "huge": -(2**200) + 7, "min64": -(2**63), "max64": 2**63 - 1, "just_over": 2**63}
    m.save("values.pt", values)
    m.save("values4.pt", values, pickle_protocol=4)
    # A tensor with Python attributes, as torch 2.x writes it: _rebuild_from_type_v2(func, type, args, state).
    for new_type, filename in (("torch\nTensor", "from_type.pt"), ("torch.nn.parameter\nParameter", "from_type_param.pt")):
        values64 = sample("float64", (2, 3))
        write_archive(os.path.join(m.outdir, filename),
                      from_type_pickle("w", new_type.encode(), "torch._utils\n_rebuild_tensor_v2\n"), {"0": values64.tobytes()})
        m.files.append({"file": filename, "metadata": {}, "strided": [], "tensors": [
            {"name": "w", "dtype": "float64", "shape": [2, 3], "order": "C", "byte_order": "little", "nbytes": 48,
             "stats": expected_stats(values64, False)}]})


def tensor_args(storage_type, key, numel, offset, size, stride, offset_bytes=None):
    tup = lambda items: b"(" + b"".join(integer(i) for i in items) + b"t"  # noqa: E731
    pid = b"(" + text("storage") + f"ctorch\n{storage_type}\n".encode() + text(key) + text("cpu") + integer(numel) + b"t"
    return b"(" + pid + b"Q" + (offset_bytes or integer(offset)) + tup(size) + tup(stride) + b"\x89" + \
        b"ccollections\nOrderedDict\n)R" + b"t"


def from_type_pickle(name, new_type, func):
    """torch 2.x's opcodes for {name: tensor with attributes}: state is (dict of attributes,)."""
    state = b"}" + text("note") + text("hello") + b"s\x85"
    return b"\x80\x02}(" + text(name) + b"ctorch._tensor\n_rebuild_from_type_v2\n(c" + func.encode() + \
        b"c" + new_type + b"\n" + tensor_args("DoubleStorage", "0", 6, 0, (2, 3), (3, 1)) + state + b"tRu."


def deflate(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename))


def write_archive(path, pickle_bytes, storages=None, byteorder=None):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pickle_bytes)
        if byteorder:
            z.writestr("archive/byteorder", byteorder)
        for key, data in (storages or {}).items():
            z.writestr(f"archive/data/{key}", data)
        z.writestr("archive/version", "3\n")


def text(s):
    data = s.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def integer(i):
    return b"J" + struct.pack("<i", i)


def tensor_pickle(name, storage_type, key, numel, offset, size, stride, offset_bytes=None):
    """torch.save's opcodes for {name: tensor}, written by hand so the fields can lie."""
    args = tensor_args(storage_type, key, numel, offset, size, stride, offset_bytes)
    return b"\x80\x02}(" + text(name) + b"ctorch._utils\n_rebuild_tensor_v2\n" + args + b"Ru."


class Net:
    """A user class (pickled as __main__.Net when this script runs)."""
    def __init__(self):
        self.size = 3


class Shell:
    """Pickles as a call of os.system: what a malicious checkpoint does on torch.load."""
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def write_hostile(m):
    import torch
    out = m.outdir
    canary = os.path.join(out, "pwned")
    write_archive(os.path.join(out, "os_system.pt"),
                  pickle.dumps({"weight": Shell(f"touch {canary}")}, protocol=2))
    m.refuse("os_system.pt", "posix.system")
    write_archive(os.path.join(out, "eval.pt"),
                  b"\x80\x04\x8c\x08builtins\x8c\x04eval\x93" + text("print(1)") + b"\x85R.")
    m.refuse("eval.pt", "builtins.eval")
    write_archive(os.path.join(out, "getattr.pt"), b"\x80\x02c__builtin__\ngetattr\n)R.")
    m.refuse("getattr.pt", "__builtin__.getattr")
    write_archive(os.path.join(out, "garbage.pt"), b"\x80\x02\xff\xfe\xfd.")
    m.refuse("garbage.pt", "opcode 0xff")
    good = tensor_pickle("w", "FloatStorage", "0", 6, 0, (2, 3), (3, 1))
    write_archive(os.path.join(out, "truncated_pickle.pt"), good[: len(good) // 2], {"0": bytes(24)})
    m.refuse("truncated_pickle.pt", "truncated")
    write_archive(os.path.join(out, "truncated_storage.pt"), good, {"0": bytes(10)})
    m.refuse("truncated_storage.pt", "truncated storage")
    write_archive(os.path.join(out, "missing_storage.pt"), good, {})
    m.refuse("missing_storage.pt", "storage '0' has no entry")
    small = tensor_pickle("w", "FloatStorage", "0", 4, 0, (3, 2), (2, 1))
    write_archive(os.path.join(out, "small_storage.pt"), small, {"0": bytes(16)})
    m.refuse("small_storage.pt", "tensor 'w': its view")
    offset = tensor_pickle("w", "FloatStorage", "0", 6, 5, (2,), (1,))
    write_archive(os.path.join(out, "offset_past_storage.pt"), offset, {"0": bytes(24)})
    m.refuse("offset_past_storage.pt", "tensor 'w': its view")
    write_archive(os.path.join(out, "bad_byteorder.pt"), good, {"0": bytes(24)}, byteorder="middle")
    m.refuse("bad_byteorder.pt", "must be 'little' or 'big'")
    write_archive(os.path.join(out, "cycle.pt"), b"\x80\x02]q\x00h\x00a.")
    m.refuse("cycle.pt", "nest deeper")
    write_archive(os.path.join(out, "unknown_storage.pt"),
                  tensor_pickle("w", "QInt8Storage", "0", 6, 0, (6,), (1,)), {"0": bytes(6)})
    m.refuse("unknown_storage.pt", "torch.QInt8Storage")
    # A 64-bit seed where an offset belongs: read as a value, refused as a size.
    seed = (2**64 - 5).to_bytes(9, "little")
    write_archive(os.path.join(out, "huge_offset.pt"),
                  tensor_pickle("w", "FloatStorage", "0", 6, 0, (6,), (1,), b"\x8a\x09" + seed), {"0": bytes(24)})
    m.refuse("huge_offset.pt", "tensor 'w': storage_offset is 18446744073709551611, which does not fit 64 bits")
    write_archive(os.path.join(out, "long4_too_long.pt"), b"\x80\x02\x8b" + struct.pack("<i", 5000) + bytes(5000) + b".")
    m.refuse("long4_too_long.pt", "an integer of 5000 bytes")
    write_archive(os.path.join(out, "from_type_other_func.pt"),
                  from_type_pickle("w", b"torch\nTensor", "torch._utils\n_rebuild_parameter\n"), {"0": bytes(48)})
    m.refuse("from_type_other_func.pt", "rebuilds it with torch._utils._rebuild_parameter")
    # What to save instead, by what was pickled.
    model, optimizer = model_state()
    torch.save(model, os.path.join(out, "whole_module.pt"))
    m.refuse("whole_module.pt", "save model.state_dict() instead")
    torch.save({"net": Net()}, os.path.join(out, "user_class.pt"))
    m.refuse("user_class.pt", "'__main__.Net'")
    m.refuse("user_class.pt", "save model.state_dict() instead")
    torch.save(optimizer, os.path.join(out, "whole_optimizer.pt"))
    m.refuse("whole_optimizer.pt", "save optimizer.state_dict()")
    torch.save({"s": torch.eye(3).to_sparse()}, os.path.join(out, "sparse.pt"))
    m.refuse("sparse.pt", "torch._utils._rebuild_sparse_tensor")
    m.refuse("sparse.pt", ".to_dense()")
    torch.save({"s": torch.eye(3).to_sparse_csr()}, os.path.join(out, "sparse_csr.pt"))
    m.refuse("sparse_csr.pt", ".to_dense()")
    torch.save({"m": torch.empty(3, device="meta")}, os.path.join(out, "meta.pt"))
    m.refuse("meta.pt", "a meta tensor holds no data")
    torch.save({"q": torch.quantize_per_tensor(torch.ones(4), 0.1, 0, torch.qint8)}, os.path.join(out, "quantized.pt"))
    m.refuse("quantized.pt", "dequantize() first")
    torch.save({"w": torch.ones(2)}, os.path.join(out, "legacy.pth"), _use_new_zipfile_serialization=False)
    m.refuse("legacy.pth", "legacy torch.save format")
    torch.save({"w": torch.ones(2)}, os.path.join(out, "legacy4.pth"), _use_new_zipfile_serialization=False,
               pickle_protocol=4)
    m.refuse("legacy4.pth", "legacy torch.save format")


def write_collision(out):
    """{'a.b': t1, 'a': {'b': t2}}: both are named a.b (the second listed as a.b#2)."""
    import torch
    torch.save({"a.b": torch.ones(2), "a": {"b": torch.zeros(3)}}, os.path.join(out, "collision.pt"))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    m = Manifest(out)
    try:
        import torch  # noqa: F401
    except ImportError as error:  # python3-torch is optional: the tests then skip
        m.write({"skipped": f"torch: {error}"})
        return
    write_good(m)
    write_values(m)
    write_collision(out)
    write_hostile(m)
    m.write({"canary": "pwned"})
    print(f"wrote {len(m.files)} checkpoints and {len(m.hostile)} hostile files to {out}")


if __name__ == "__main__":
    main()
