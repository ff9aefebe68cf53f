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
    import torch
    if isinstance(value, torch.Tensor):
        tensors.append((prefix, value))
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


def tensor_pickle(name, storage_type, key, numel, offset, size, stride):
    """torch.save's opcodes for {name: tensor}, written by hand so the fields can lie."""
    tup = lambda items: b"(" + b"".join(integer(i) for i in items) + b"t"  # noqa: E731
    pid = b"(" + text("storage") + f"ctorch\n{storage_type}\n".encode() + text(key) + text("cpu") + integer(numel) + b"t"
    args = b"(" + pid + b"Q" + integer(offset) + tup(size) + tup(stride) + b"\x89" + \
        b"ccollections\nOrderedDict\n)R" + b"t"
    return b"\x80\x02}(" + text(name) + b"ctorch._utils\n_rebuild_tensor_v2\n" + args + b"Ru."


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
    torch.save({"w": torch.ones(2)}, os.path.join(out, "legacy.pth"), _use_new_zipfile_serialization=False)
    m.refuse("legacy.pth", "legacy torch.save format")
    torch.save({"w": torch.ones(2)}, os.path.join(out, "legacy4.pth"), _use_new_zipfile_serialization=False,
               pickle_protocol=4)
    m.refuse("legacy4.pth", "legacy torch.save format")


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
    write_hostile(m)
    m.write({"canary": "pwned"})
    print(f"wrote {len(m.files)} checkpoints and {len(m.hostile)} hostile files to {out}")


if __name__ == "__main__":
    main()
