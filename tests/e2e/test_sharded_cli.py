#!/usr/bin/env python3
"""End-to-end tests of `blasscope-cli inspect` and `run` on sharded checkpoints written at
test time (tests/data/make_sharded_files.py: safetensors shards as save_pretrained lays them
out, torch.save shards, a folder without an index) and on hostile ones (exit 3, the field or
file named).

usage: test_sharded_cli.py CLI DATA_SCRIPTS_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

from capped_cli import run_capped

import numpy as np

CLI = None
SCRIPTS = None
WORK = None
MANIFEST = None


def run_cli(*args):
    return run_capped(CLI, args, cwd=WORK)


def setUpModule():
    global WORK, MANIFEST
    WORK = tempfile.mkdtemp(prefix="blasscope-sharded-")
    subprocess.run([sys.executable, os.path.join(SCRIPTS, "make_sharded_files.py"), WORK], check=True)
    with open(os.path.join(WORK, "manifest.json")) as f:
        MANIFEST = json.load(f)


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


def safetensors_array(path, name):
    """A tensor's values read from a safetensors file with numpy alone."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    entry = json.loads(data[8:8 + length])[name]
    begin, end = entry["data_offsets"]
    dtype = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8"}[entry["dtype"]]
    return np.frombuffer(data[8 + length + begin:8 + length + end], dtype=dtype).reshape(entry["shape"])


class Checkpoints(unittest.TestCase):
    def inspect(self, path):
        proc = run_cli("inspect", path, "--json")
        self.assertEqual(proc.returncode, 0, proc.err + proc.out[:2000])
        return json.loads(proc.out)

    def test_every_field_and_count_agrees_with_the_writer(self):
        checkpoints = MANIFEST["checkpoints"]
        self.assertGreaterEqual(len(checkpoints), 2 if "torch_skipped" in MANIFEST else 3)
        for entry in checkpoints:
            paths = [entry["folder"]] + ([os.path.join(entry["folder"], entry["index"])] if entry["index"] else [])
            for path in paths:
                with self.subTest(path=path):
                    report = self.inspect(path)
                    self.assertEqual(report["format"], "sharded")
                    self.assertEqual(report["shards"], entry["shards"])
                    self.assertEqual(len(report["tensors"]), len(entry["tensors"]))
                    for got, want in zip(report["tensors"], entry["tensors"]):
                        for field in ("name", "dtype", "shape", "nbytes", "shard"):
                            self.assertEqual(got[field], want[field], f"{want['name']}.{field}")
                        for field in ("nan", "posinf", "neginf", "zero", "subnormal", "finite", "first_nonfinite"):
                            self.assertEqual(got["stats"][field], want["stats"][field], f"{want['name']}.{field}")
                    self.assertEqual(report["metadata"]["shards"], str(len(entry["shards"])))
                    if entry["total_size"] is not None:
                        self.assertEqual(report["metadata"]["total_size"], str(entry["total_size"]))
                    ids = {f["id"] for f in report["findings"]}
                    self.assertFalse(ids & {"shard-tensor-not-indexed", "shard-total-size"}, report["findings"])

    def test_text_report_has_the_shard_table_and_column(self):
        proc = run_cli("inspect", "st")
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("st: sharded, 12 tensors", proc.out)
        self.assertIn("shards:\n  SHARD", proc.out)
        for shard in MANIFEST["checkpoints"][0]["shards"]:
            self.assertIn(shard["name"], proc.out)
        header = next(line for line in proc.out.splitlines() if line.strip().startswith("NAME"))
        self.assertIn("SHARD", header.split())

    def test_a_workload_reads_a_tensor_from_a_checkpoint(self):
        name = "model.layers.1.mlp.down_proj.weight"
        want = safetensors_array(os.path.join(WORK, "st", "model-00002-of-00003.safetensors"), name)
        for source in ("st", "st/model.safetensors.index.json"):
            with self.subTest(source=source):
                workload = os.path.join(WORK, "sharded_workload.json")
                with open(workload, "w") as f:
                    json.dump({"name": "sharded source", "tensors": {"w": {"file": source, "key": name}},
                               "ops": [{"op": "cast", "a": "w", "dtype": "float64", "out": "w64"}]}, f)
                outdir = os.path.join(WORK, "outputs")
                proc = run_cli("run", workload, "--json", "--save-outputs", outdir)
                self.assertIn(proc.returncode, (0, 1), proc.err + proc.out)
                report = json.loads(proc.out)
                self.assertEqual([op["status"] for op in report["ops"]], ["ok"], report["ops"])
                np.testing.assert_array_equal(np.load(os.path.join(outdir, "w64.npy")), want.astype(np.float64))

    def test_a_tensor_missing_from_the_checkpoint_is_named(self):
        workload = os.path.join(WORK, "missing_workload.json")
        with open(workload, "w") as f:
            json.dump({"name": "missing", "tensors": {"w": {"file": "st", "key": "model.nope"}},
                       "ops": [{"op": "cast", "a": "w", "dtype": "float64", "out": "w64"}]}, f)
        proc = run_cli("run", workload)
        self.assertEqual(proc.returncode, 3, proc.err)
        self.assertIn("model.nope", proc.err)


class HostileCheckpoints(unittest.TestCase):
    def test_each_is_refused_naming_what_was_wrong(self):
        self.assertGreaterEqual(len(MANIFEST["hostile"]), 15)
        for entry in MANIFEST["hostile"]:
            path = entry["path"]
            with self.subTest(path=path):
                proc = run_cli("inspect", path)
                self.assertEqual(proc.returncode, 3, proc.err + proc.out[:500])
                self.assertTrue(proc.err.startswith(f"error: {path}: "), proc.err)
                self.assertIn(entry["says"], proc.err)
                proc_json = run_cli("inspect", path, "--json")
                self.assertEqual(proc_json.returncode, 3)
                self.assertIn(entry["says"], json.loads(proc_json.out)["error"]["message"])

    def test_nothing_outside_the_folder_is_read(self):
        proc = run_cli("inspect", "hostile/absolute_name/model.safetensors.index.json")
        self.assertNotIn("root:", proc.out + proc.err)
        self.assertEqual(proc.returncode, 3)

    def test_warnings_do_not_stop_the_read(self):
        for entry in MANIFEST["warned"]:
            with self.subTest(path=entry["path"]):
                proc = run_cli("inspect", entry["path"], "--json")
                self.assertEqual(proc.returncode, 0, proc.err)
                findings = [f for f in json.loads(proc.out)["findings"] if f["id"] == entry["id"]]
                self.assertEqual(len(findings), 1, findings)
                self.assertEqual(findings[0]["severity"], "warning")
                self.assertEqual(findings[0]["tensor"], entry["tensor"])
                self.assertIn(entry["says"], findings[0]["message"])

    def test_a_folder_of_separate_checkpoints_is_told_apart_from_shards(self):
        import torch
        folder = os.path.join(WORK, "epochs")
        os.makedirs(folder, exist_ok=True)
        for epoch in (1, 2):
            torch.save({"fc.weight": torch.full((2, 2), float(epoch))}, os.path.join(folder, f"ckpt_epoch{epoch}.pt"))
        proc = run_cli("inspect", folder)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("'fc.weight' is in two shards", proc.err)
        self.assertIn("separate checkpoints", proc.err)
        # The same tensor in two shards of an indexed checkpoint is blamed on the shards, no hint.
        dup = next(e for e in MANIFEST["hostile"] if "two shards" in e.get("says", ""))
        proc = run_cli("inspect", dup["path"])
        self.assertNotIn("separate checkpoints", proc.err)


if __name__ == "__main__":
    CLI = os.path.abspath(sys.argv[1])
    SCRIPTS = os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)
