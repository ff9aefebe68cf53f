#!/usr/bin/env python3
"""End-to-end tests of `blasscope-cli inspect` and `run` on HDF5 and Keras files the real h5py
writes at test time, and on hostile ones that must be refused (exit 3) naming the dataset or field.

usage: test_hdf5_cli.py CLI DATA_SCRIPTS_DIR
"""
import json
import os
import shutil
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
    return run_capped(CLI, args)


def setUpModule():
    global WORK, MANIFEST
    WORK = tempfile.mkdtemp(prefix="blasscope-hdf5-")
    subprocess.run([sys.executable, os.path.join(SCRIPTS, "make_hdf5_files.py"), WORK], check=True)
    with open(os.path.join(WORK, "manifest.json")) as f:
        MANIFEST = json.load(f)


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


class Hdf5Files(unittest.TestCase):
    def setUp(self):
        if "skipped" in MANIFEST:
            self.skipTest(MANIFEST["skipped"])

    def test_json_matches_h5py(self):
        for want in MANIFEST["files"]:
            with self.subTest(file=want["file"]):
                proc = run_cli("inspect", os.path.join(WORK, want["file"]), "--json")
                self.assertEqual(proc.returncode, 0, proc.err)
                report = json.loads(proc.out)
                self.assertEqual(report["format"], want["format"])
                got = {t["name"]: t for t in report["tensors"]}
                self.assertEqual(set(got), {t["name"] for t in want["tensors"]} | {t["name"] for t in want["unread"]})
                for w in want["tensors"]:
                    t = got[w["name"]]
                    for key in ("dtype", "shape", "byte_order", "nbytes", "compressed", "stats"):
                        self.assertEqual(t[key], w[key], (w["name"], key))
                for w in want["unread"]:
                    self.assertIn("not_scanned", got[w["name"]])
                for key, value in want["metadata"].items():
                    if "text" in value:
                        self.assertEqual(report["metadata"][key], value["text"], key)

    def test_text_lists_paths_attributes_and_unavailable_filters(self):
        proc = run_cli("inspect", os.path.join(WORK, "keras2.h5"))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("hdf5, 3 tensors", proc.out)
        self.assertIn("model_weights/dense/dense/kernel:0", proc.out)
        self.assertIn("metadata keras_version = 2.13.1", proc.out)
        self.assertIn("model_weights/dense@weight_names = [dense/kernel:0, dense/bias:0]", proc.out)
        proc = run_cli("inspect", os.path.join(WORK, "layouts.h5"))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("chunked/lzf: not scanned: filter — filter 32000 (lzf) not available", proc.out)

    def test_a_workload_reads_tensors_by_their_hdf5_path(self):
        outdir = os.path.join(WORK, "outputs")
        workload = os.path.join(WORK, "gemm.json")
        with open(workload, "w") as f:
            json.dump({"name": "keras weights", "tensors": {
                "x": {"shape": [2, 4], "dtype": "float32", "fill": "range"},
                "w": {"file": "keras2.h5", "key": "model_weights/dense/dense/kernel:0"},
                "v": {"file": "weights.keras", "key": "layers/dense/vars/1"},
                "k": {"file": "weights_deflated.keras", "key": "layers/dense/vars/0"}},
                "ops": [{"op": "gemm", "a": "x", "b": "w", "out": "y"},
                        {"op": "cast", "a": "v", "dtype": "float64", "out": "v64"},
                        {"op": "cast", "a": "k", "dtype": "float64", "out": "k64"}]}, f)
        proc = run_cli("run", workload, "--json", "--save-outputs", outdir)
        self.assertEqual(proc.returncode, 0, proc.err + proc.out)
        import h5py
        with h5py.File(os.path.join(WORK, "keras2.h5"), "r") as f:
            kernel = f["model_weights/dense/dense/kernel:0"][()]
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        np.testing.assert_allclose(np.load(os.path.join(outdir, "y.npy")), x @ kernel, rtol=1e-5)
        np.testing.assert_array_equal(np.load(os.path.join(outdir, "v64.npy")), np.arange(4.0))

    def test_hostile_files_exit_3_naming_the_cause(self):
        self.assertGreaterEqual(len(MANIFEST["hostile"]), 6)
        for entry in MANIFEST["hostile"]:
            with self.subTest(file=entry["file"]):
                proc = run_cli("inspect", os.path.join(WORK, entry["file"]))
                self.assertEqual(proc.returncode, 3, proc.err + proc.out)
                self.assertIn(entry["says"], proc.err)


if __name__ == "__main__":
    CLI, SCRIPTS = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
