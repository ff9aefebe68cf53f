#!/usr/bin/env python3
"""Writes files inspect lists without reading every value, and manifest.json saying what
NumPy (and PyTorch) wrote:

- .npz archives mixing numeric members with strings, structured, long double (float128),
  datetime and object members, stored and deflated, and one .npy of each such dtype;
- PyTorch checkpoints: torch.save's zip format (.pt), its legacy format (.pth), a
  TorchScript archive, and a plain pickle. Skipped (listed under "skipped") without torch.

usage: make_unscanned_files.py OUTDIR
"""
import json
import os
import pickle
import sys

import numpy as np


def unscanned_arrays():
    return {
        "words": np.array(["alpha", "beta", "gamma"]),  # <U5
        "raw": np.array([b"ab", b"cde"]),  # |S3
        "records": np.zeros(4, dtype=[("x", "<f4"), ("n", "<i8")]),
        "wide": np.arange(6, dtype=np.longdouble).reshape(2, 3),
        "when": np.array(["2024-01-01", "2024-06-30"], dtype="datetime64[D]"),
        "objects": np.array([{"a": 1}, None, "x"], dtype=object),
    }


def write_numpy(out, manifest):
    numbers = np.array([[1.0, np.nan], [3.0, 4.0]], dtype=np.float32)
    arrays = {"numbers": numbers, **unscanned_arrays()}
    np.savez(os.path.join(out, "mixed.npz"), **arrays)
    np.savez_compressed(os.path.join(out, "mixed_compressed.npz"), **arrays)
    members = [{"name": k, "descr": np.lib.format.dtype_to_descr(a.dtype), "shape": list(a.shape)}
               for k, a in arrays.items()]
    manifest["npz"] = {"files": ["mixed.npz", "mixed_compressed.npz"], "members": members}
    manifest["npy"] = []
    for name, array in unscanned_arrays().items():
        np.save(os.path.join(out, name + ".npy"), array, allow_pickle=True)
        manifest["npy"].append({"file": name + ".npy", "shape": list(array.shape)})


def write_torch(out, manifest):
    try:
        import torch
    except ImportError as error:  # the Debian package python3-torch is optional here
        manifest["skipped"] = f"torch: {error}"
        return
    state = {"weight": torch.ones(2, 3), "bias": torch.zeros(3)}
    torch.save(state, os.path.join(out, "checkpoint.pt"))
    torch.save(state, os.path.join(out, "legacy.pth"), _use_new_zipfile_serialization=False)
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), os.path.join(out, "scripted.pt"))
    manifest["torch"] = ["checkpoint.pt", "legacy.pth", "scripted.pt"]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = {}
    write_numpy(out, manifest)
    with open(os.path.join(out, "state.pkl"), "wb") as f:
        pickle.dump({"w": [1.0, 2.0]}, f, protocol=4)
    write_torch(out, manifest)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
