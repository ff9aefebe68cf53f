#!/usr/bin/env python3
"""End-to-end tests of `blasscope-cli inspect` on PyTorch checkpoints the real torch.save
writes at test time, and on hostile ones that must be refused (exit 3) without running anything.

usage: test_pytorch_cli.py CLI DATA_SCRIPTS_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from capped_cli import run_capped

CLI = None
SCRIPTS = None
WORK = None
MANIFEST = None


def run_cli(*args):
    return run_capped(CLI, args, timeout=60)


def setUpModule():
    global WORK, MANIFEST
    WORK = tempfile.mkdtemp(prefix="blasscope-torch-")
    subprocess.run([sys.executable, os.path.join(SCRIPTS, "make_torch_files.py"), WORK], check=True)
    with open(os.path.join(WORK, "manifest.json")) as f:
        MANIFEST = json.load(f)


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


class Checkpoints(unittest.TestCase):
    def setUp(self):
        if "skipped" in MANIFEST:
            self.skipTest(MANIFEST["skipped"])

    def inspect(self, filename):
        proc = run_cli("inspect", os.path.join(WORK, filename), "--json")
        self.assertEqual(proc.returncode, 0, proc.err + proc.out[:2000])
        return json.loads(proc.out)

    def test_every_field_agrees_with_torch(self):
        self.assertGreaterEqual(len(MANIFEST["files"]), 6)
        for entry in MANIFEST["files"]:
            with self.subTest(file=entry["file"]):
                report = self.inspect(entry["file"])
                self.assertEqual(report["format"], "pytorch")
                got = {t["name"]: t for t in report["tensors"]}
                want_names = [t["name"] for t in entry["tensors"]] + entry["strided"]
                self.assertEqual(sorted(got), sorted(want_names))
                self.assertEqual(len(report["tensors"]), len(want_names))
                for want in entry["tensors"]:
                    tensor = got[want["name"]]
                    for field in ("dtype", "shape", "order", "byte_order", "nbytes", "stats"):
                        self.assertEqual(tensor[field], want[field], f"{want['name']}.{field}")
                    self.assertNotIn("not_scanned", tensor)
                    self.assertEqual(tensor["compressed"], entry["file"] == "deflated.pt")
                for name in entry["strided"]:
                    self.assertEqual(got[name]["not_scanned"], "strided")
                    self.assertIsNone(got[name]["stats"])
                self.assertEqual(report["metadata"], entry["metadata"])

    def test_nested_checkpoint_names_and_metadata(self):
        report = self.inspect("checkpoint.pt")
        names = [t["name"] for t in report["tensors"]]
        self.assertIn("model.0.weight", names)
        self.assertIn("optimizer.state.0.exp_avg", names)
        self.assertEqual(report["metadata"]["epoch"], "3")
        self.assertEqual(report["metadata"]["lr"], "0.001")
        self.assertEqual(report["metadata"]["optimizer.param_groups.0.betas"], "(0.9, 0.999)")

    def test_storages_are_read_in_place_and_aligned(self):
        report = self.inspect("sequential.pt")
        for tensor in report["tensors"]:
            if tensor["nbytes"]:
                self.assertGreaterEqual(tensor["alignment"], 64, tensor["name"])

    def test_shared_storage_and_views(self):
        report = self.inspect("views.pt")
        got = {t["name"]: t for t in report["tensors"]}
        self.assertEqual(got["shared_matrix"]["data_offset"] - got["shared_flat"]["data_offset"], 6 * 8)
        self.assertEqual(got["row"]["data_offset"] - got["base"]["data_offset"], 2 * 6 * 4)
        self.assertEqual(got["tied"]["data_offset"], got["base"]["data_offset"])
        self.assertEqual(got["transposed"]["order"], "F")
        block = [f for f in report["findings"] if f["tensor"] == "block"]
        self.assertTrue(block and "neither C- nor Fortran-contiguous" in block[0]["message"], block)

    def test_values_torch_allows_are_shown(self):
        for filename in ("values.pt", "values4.pt"):
            report = self.inspect(filename)
            self.assertEqual(report["metadata"]["scheduler.milestones"], "Counter({1: 1, 2: 1})")
            self.assertEqual(report["metadata"]["seed"], "18446744073709551611")
            self.assertEqual(report["metadata"]["device"], "device(type='cpu')")
            self.assertEqual(report["metadata"]["extra"], "{}")

    def test_colliding_names_are_warned_about(self):
        report = self.inspect("collision.pt")
        self.assertEqual([t["name"] for t in report["tensors"]], ["a.b", "a.b#2"])
        warned = [f for f in report["findings"] if f["tensor"] == "a.b#2"]
        self.assertTrue(warned and "a workload asking for 'a.b' gets the first" in warned[0]["message"], warned)

    def test_text_report_shows_metadata(self):
        proc = run_cli("inspect", os.path.join(WORK, "checkpoint.pt"))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("model.0.weight", proc.out)
        self.assertIn("epoch", proc.out)


class HostileCheckpoints(unittest.TestCase):
    def setUp(self):
        if "skipped" in MANIFEST:
            self.skipTest(MANIFEST["skipped"])

    def test_each_is_refused_naming_what_was_wrong(self):
        self.assertGreaterEqual(len(MANIFEST["hostile"]), 10)
        for entry in MANIFEST["hostile"]:
            path = os.path.join(WORK, entry["file"])
            with self.subTest(file=entry["file"]):
                proc = run_cli("inspect", path)
                self.assertEqual(proc.returncode, 3, proc.err)
                self.assertTrue(proc.err.startswith(f"error: {path}: "), proc.err)
                self.assertIn(entry["says"], proc.err)
                self.assertNotIn("Traceback", proc.err)
                proc_json = run_cli("inspect", path, "--json")
                self.assertEqual(proc_json.returncode, 3)
                self.assertIn(entry["says"], json.loads(proc_json.out)["error"]["message"])

    def test_nothing_in_a_pickle_is_ever_called(self):
        path = os.path.join(WORK, "os_system.pt")
        proc = run_cli("inspect", path)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("refused, nothing was loaded or called", proc.err)
        self.assertFalse(os.path.exists(os.path.join(WORK, MANIFEST["canary"])))

    def test_legacy_format_says_how_to_convert(self):
        proc = run_cli("inspect", os.path.join(WORK, "legacy.pth"))
        self.assertEqual(proc.returncode, 3)
        self.assertIn("legacy torch.save format", proc.err)
        self.assertIn("torch.save(torch.load(", proc.err)


if __name__ == "__main__":
    CLI = os.path.abspath(sys.argv[1])
    SCRIPTS = os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)
