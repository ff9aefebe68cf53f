#!/usr/bin/env python3
"""Writes sharded checkpoints as Hugging Face's save_pretrained lays them out, hostile
variants of them, and manifest.json with what each must read as (names, dtypes, shapes,
byte counts, value counts, shard of each tensor) or what it must be refused for.

usage: make_sharded_files.py OUTDIR

- st/     model-0000N-of-00003.safetensors + model.safetensors.index.json (bfloat16, float16,
          float32, int64 tensors; NaN/Inf/subnormals at known places)
- pt/     pytorch_model-0000N-of-00002.bin written by the real torch.save + its index
          (skipped without python3-torch)
- single/ a folder holding only model.safetensors; loose/ two *.safetensors, no index
- hostile/NAME/ a copy of st/ with one thing wrong; warned/NAME/ read, with a finding
"""
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from make_tensor_files import bf16_bits, expected_stats, sample  # noqa: E402
from safetensors_writer import write_safetensors  # noqa: E402

CODES = {"float32": "F32", "float16": "F16", "int64": "I64", "float64": "F64"}
ST_INDEX = "model.safetensors.index.json"
PT_INDEX = "pytorch_model.bin.index.json"


def bf16_entry(name, shape):
    f32 = sample("float32", shape)
    bits = bf16_bits(f32)
    back = (bits.astype(np.uint32) << 16).view(np.float32)
    stats = expected_stats(back, False)
    stats["subnormal"] = int(((back != 0) & np.isfinite(back) & (np.abs(back) < np.finfo(np.float32).tiny)).sum())
    return (name, "BF16", list(shape), bits.astype("<u2").tobytes()), {
        "name": name, "dtype": "bfloat16", "shape": list(shape), "nbytes": bits.size * 2, "stats": stats}


def plain_entry(name, dtype, shape):
    a = sample(dtype, shape)
    raw = a.astype(a.dtype.newbyteorder("<")).tobytes()
    return (name, CODES[dtype], list(shape), raw), {
        "name": name, "dtype": dtype, "shape": list(shape), "nbytes": len(raw), "stats": expected_stats(a, False)}


def model_tensors():
    """A small decoder's tensors, shard by shard, as a 3-way split would place them."""
    layer = lambda i: [  # noqa: E731
        bf16_entry(f"model.layers.{i}.self_attn.q_proj.weight", (16, 16)),
        plain_entry(f"model.layers.{i}.self_attn.k_proj.weight", "float16", (8, 16)),
        plain_entry(f"model.layers.{i}.mlp.down_proj.weight", "float32", (16, 24)),
        plain_entry(f"model.layers.{i}.input_layernorm.weight", "float32", (16,)),
    ]
    return [
        [bf16_entry("model.embed_tokens.weight", (32, 16))] + layer(0),
        layer(1) + [plain_entry("model.rotary_emb.positions", "int64", (12,))],
        [plain_entry("model.norm.weight", "float64", (16,)), bf16_entry("lm_head.weight", (32, 16))],
    ]


def write_checkpoint(folder, shards, index_name=ST_INDEX, index_extra=None, total_size=None):
    """shards: [[(writer tuple, manifest entry), ...] per shard]; returns the manifest entry."""
    os.makedirs(folder, exist_ok=True)
    count = len(shards)
    weight_map, tensors, summaries = {}, [], []
    for n, shard in enumerate(shards, 1):
        name = f"model-{n:05d}-of-{count:05d}.safetensors"
        write_safetensors(os.path.join(folder, name), [w for w, _ in shard], {"format": "pt"})
        for w, entry in shard:
            weight_map[w[0]] = name
            tensors.append(dict(entry, shard=name))
        summaries.append({"name": name, "format": "safetensors", "file_size": os.path.getsize(os.path.join(folder, name)),
                          "tensor_count": len(shard), "tensor_bytes": sum(e["nbytes"] for _, e in shard)})
    total = sum(t["nbytes"] for t in tensors)
    index = {"metadata": {"total_size": total if total_size is None else total_size},
             "weight_map": dict(sorted(weight_map.items()))}  # save_pretrained sorts the map
    index.update(index_extra or {})
    with open(os.path.join(folder, index_name), "w") as out:
        json.dump(index, out, indent=2)
    return {"tensors": tensors, "shards": summaries, "total_size": total}


def write_torch_checkpoint(folder):
    import torch
    torch.manual_seed(13)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.LayerNorm(8), torch.nn.Linear(8, 4))
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    state["0.weight"][1, 2] = float("nan")
    state["0.weight"][3, 0] = float("inf")
    state["2.weight"] = state["2.weight"].to(torch.bfloat16)
    state["2.weight"][0, 0] = float("-inf")
    state["1.weight"] = state["1.weight"].to(torch.float16)
    os.makedirs(folder, exist_ok=True)
    keys = list(state)
    parts = [keys[:2], keys[2:]]
    weight_map, tensors, summaries = {}, [], []
    from make_torch_files import describe
    for n, part in enumerate(parts, 1):
        name = f"pytorch_model-{n:05d}-of-{len(parts):05d}.bin"
        torch.save({k: state[k] for k in part}, os.path.join(folder, name))
        entries = [dict(describe(k, state[k]), shard=name) for k in part]
        tensors += entries
        for k in part:
            weight_map[k] = name
        summaries.append({"name": name, "format": "pytorch", "file_size": os.path.getsize(os.path.join(folder, name)),
                          "tensor_count": len(part), "tensor_bytes": sum(e["nbytes"] for e in entries)})
    total = sum(t["nbytes"] for t in tensors)
    with open(os.path.join(folder, PT_INDEX), "w") as out:
        json.dump({"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}, out, indent=2)
    return {"tensors": tensors, "shards": summaries, "total_size": total}


def edit_index(folder, edit):
    path = os.path.join(folder, ST_INDEX)
    with open(path) as f:
        index = json.load(f)
    edit(index)
    with open(path, "w") as out:
        json.dump(index, out, indent=2)


def write_index_text(folder, text):
    with open(os.path.join(folder, ST_INDEX), "wb") as out:
        out.write(text)


def write_hostile(outdir, shards):
    hostile, warned = [], []
    shard1, shard2 = "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors"

    def variant(name, says, change, index=ST_INDEX, into=hostile):
        folder = os.path.join(outdir, "hostile" if into is hostile else "warned", name)
        shutil.copytree(os.path.join(outdir, "st"), folder)
        change(folder)
        into.append({"path": os.path.relpath(os.path.join(folder, index), outdir) if index else
                     os.path.relpath(folder, outdir), "says": says})

    variant("missing_shard", f"shard '{shard2}' is missing: the index maps 5 tensors to it (e.g. ",
            lambda d: os.remove(os.path.join(d, shard2)))
    variant("wrong_shard", f"weight_map.'model.embed_tokens.weight': shard '{shard2}' does not hold this tensor "
            f"(shard '{shard1}' does)",
            lambda d: edit_index(d, lambda i: i["weight_map"].update({"model.embed_tokens.weight": shard2})))
    variant("unknown_tensor", "weight_map.'model.ghost.weight': shard",
            lambda d: edit_index(d, lambda i: i["weight_map"].update({"model.ghost.weight": shard1})))

    def duplicate(d):
        write_safetensors(os.path.join(d, "model-00003-of-00003.safetensors"),
                          [w for w, _ in shards[2]] + [shards[0][0][0]], {"format": "pt"})
    variant("duplicate_tensor", f"tensor 'model.embed_tokens.weight' is in two shards: '{shard1}' and "
            "'model-00003-of-00003.safetensors'", duplicate)
    variant("dotdot_name", "weight_map.'lm_head.weight': shard file '../st/model-00003-of-00003.safetensors' has a "
            "'..' component", lambda d: edit_index(
                d, lambda i: i["weight_map"].update({"lm_head.weight": "../st/model-00003-of-00003.safetensors"})))
    variant("absolute_name", "weight_map.'lm_head.weight': shard file '/etc/passwd' is an absolute path",
            lambda d: edit_index(d, lambda i: i["weight_map"].update({"lm_head.weight": "/etc/passwd"})))
    variant("self_index", "shard 'model.safetensors.index.json': a JSON file",
            lambda d: edit_index(d, lambda i: i["weight_map"].update({"lm_head.weight": ST_INDEX})))
    variant("folder_shard", "shard 'sub' is not a regular file", lambda d: (
        os.mkdir(os.path.join(d, "sub")),
        edit_index(d, lambda i: i["weight_map"].update({"lm_head.weight": "sub"}))))
    variant("not_json", "index: ", lambda d: write_index_text(d, b'{"weight_map": {"a": "b",'))
    variant("wrong_type", "weight_map.'lm_head.weight': expected a file name, got 3",
            lambda d: edit_index(d, lambda i: i["weight_map"].update({"lm_head.weight": 3})))
    variant("map_is_list", "weight_map: expected an object, got array",
            lambda d: edit_index(d, lambda i: i.update({"weight_map": [shard1]})))
    variant("no_weight_map", "weight_map: missing", lambda d: edit_index(d, lambda i: i.pop("weight_map")))
    variant("empty_weight_map", "weight_map: empty", lambda d: edit_index(d, lambda i: i.update({"weight_map": {}})))
    variant("negative_total_size", "metadata.total_size: expected a byte count, got -5",
            lambda d: edit_index(d, lambda i: i["metadata"].update({"total_size": -5})))
    variant("duplicate_key", "duplicate", lambda d: write_index_text(
        d, b'{"weight_map": {"lm_head.weight": "a.safetensors", "lm_head.weight": "b.safetensors"}}'))

    def huge(d):  # a sparse file: the size is refused before a byte is parsed
        with open(os.path.join(d, ST_INDEX), "wb") as out:
            out.write(b'{"weight_map": {')
            out.truncate((64 << 20) + 1)
    variant("huge_index", "exceed the limit of 67108864", huge)

    def truncate(d):
        path = os.path.join(d, shard2)
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.truncate(size // 2)
    variant("truncated_shard", f"shard '{shard2}': data: ", truncate)
    variant("empty_folder", "folder holds no tensor files", lambda d: [
        os.remove(os.path.join(d, f)) for f in os.listdir(d)], index=None)

    variant("unlisted_tensor", "in shard '" + shard1 + "' but not in the index's weight_map",
            lambda d: edit_index(d, lambda i: i["weight_map"].pop("model.embed_tokens.weight")), into=warned)
    warned[-1].update(id="shard-tensor-not-indexed", tensor="model.embed_tokens.weight")
    variant("total_size_off", "metadata.total_size says 7 bytes but the shards' tensors hold ",
            lambda d: edit_index(d, lambda i: i["metadata"].update({"total_size": 7})), into=warned)
    warned[-1].update(id="shard-total-size", tensor="")
    return hostile, warned


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    shards = model_tensors()
    st = write_checkpoint(os.path.join(outdir, "st"), shards)
    st.update(path=f"st/{ST_INDEX}", folder="st", index=ST_INDEX)

    single_dir = os.path.join(outdir, "single")
    os.makedirs(single_dir)
    flat = [t for shard in shards for t in shard]
    write_safetensors(os.path.join(single_dir, "model.safetensors"), [w for w, _ in flat], {"format": "pt"})
    single = {"path": "single", "folder": "single", "index": None, "total_size": None,
              "tensors": [dict(e, shard="model.safetensors") for _, e in flat],
              "shards": [{"name": "model.safetensors", "format": "safetensors",
                          "file_size": os.path.getsize(os.path.join(single_dir, "model.safetensors")),
                          "tensor_count": len(flat), "tensor_bytes": sum(e["nbytes"] for _, e in flat)}]}
    checkpoints = [st, single]
    hostile, warned = write_hostile(outdir, shards)
    manifest = {"checkpoints": checkpoints, "hostile": hostile, "warned": warned}
    try:
        import torch  # noqa: F401
    except ImportError:
        manifest["torch_skipped"] = "python3-torch is not installed"
    else:
        pt = write_torch_checkpoint(os.path.join(outdir, "pt"))
        pt.update(path="pt", folder="pt", index=PT_INDEX)
        checkpoints.append(pt)
    with open(os.path.join(outdir, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=1)


if __name__ == "__main__":
    main()
