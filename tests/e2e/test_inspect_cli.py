#!/usr/bin/env python3
"""End-to-end tests of `blasscope-cli inspect` against files NumPy writes at test time.

usage: test_inspect_cli.py CLI DATA_SCRIPTS_DIR
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

CLI = None
SCRIPTS = None
WORK = None


def run_cli(*args, limit_memory=False, timeout=60):
    def cap_address_space():
        # Malformed files may claim absurd sizes: reading them must not allocate them.
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    env = None
    if limit_memory and os.environ.get("BLASSCOPE_SANITIZED") == "1":
        # ASan's shadow memory needs terabytes of address space; its own cap stands in for the
        # limit: any single allocation over 1 GiB is reported as an error.
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "max_allocation_size_mb=1024"]))
        limit_memory = False
    start = time.monotonic()
    proc = subprocess.run([CLI, *args], capture_output=True, timeout=timeout, env=env,
                          preexec_fn=cap_address_space if limit_memory else None)
    proc.elapsed = time.monotonic() - start
    proc.out = proc.stdout.decode("utf-8")  # must always be valid UTF-8
    proc.err = proc.stderr.decode("utf-8")
    return proc


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_json(path):
    with open(path) as f:
        return json.load(f)


def setUpModule():
    global WORK
    WORK = tempfile.mkdtemp(prefix="blasscope-e2e-")
    for script, sub, extra in (("make_tensor_files.py", "good", ["--large"]), ("make_malformed_files.py", "bad", []),
                               ("make_unscanned_files.py", "unscanned", [])):
        subprocess.run([sys.executable, os.path.join(SCRIPTS, script), os.path.join(WORK, sub), *extra], check=True)


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


class InspectMatchesNumPy(unittest.TestCase):
    def test_every_field_agrees_with_numpy(self):
        manifest = read_json(os.path.join(WORK, "good", "manifest.json"))
        self.assertGreater(len(manifest["files"]), 60)
        for entry in manifest["files"]:
            path = os.path.join(WORK, "good", entry["file"])
            with self.subTest(file=entry["file"]):
                proc = run_cli("inspect", path, "--json")
                self.assertEqual(proc.returncode, 0, proc.err)
                report = json.loads(proc.out)
                self.assertEqual(report["format"], entry["format"])
                self.assertEqual(report["file"], path)
                self.assertEqual(len(report["tensors"]), len(entry["tensors"]))
                got = {t["name"]: t for t in report["tensors"]}
                for want in entry["tensors"]:
                    tensor = got[want["name"]]
                    for field in ("dtype", "shape", "order", "byte_order", "nbytes", "stats"):
                        self.assertEqual(tensor[field], want[field], f"{want['name']}.{field}")

    def test_findings_name_nonfinite_and_subnormal_tensors(self):
        report = json.loads(run_cli("inspect", os.path.join(WORK, "good", "large_f32.npy"), "--json").out)
        ids = sorted(f["id"] for f in report["findings"])
        self.assertEqual(ids, ["non-finite-input", "subnormal-values"])
        for finding in report["findings"]:
            self.assertEqual(finding["severity"], "warning")
            self.assertEqual(finding["tensor"], "large_f32")
        nonfinite = next(f for f in report["findings"] if f["id"] == "non-finite-input")
        self.assertIn("1 NaN, 0 +Inf and 1 -Inf", nonfinite["message"])
        self.assertIn("(9000001,)", nonfinite["message"])

    def test_clean_file_has_no_findings(self):
        path = os.path.join(WORK, "clean.npy")
        np.save(path, np.linspace(1, 2, 100))
        report = json.loads(run_cli("inspect", path, "--json").out)
        self.assertEqual(report["findings"], [])

    def test_data_offset_points_at_the_tensor_bytes(self):
        for name in ("float32_le_C.npy", "float64_be_F.npy", "version_2.npy", "version_3.npy", "stored.npz"):
            path = os.path.join(WORK, "good", name)
            report = json.loads(run_cli("inspect", path, "--json").out)
            arrays = np.load(path)
            arrays = {os.path.splitext(name)[0]: arrays} if isinstance(arrays, np.ndarray) else dict(arrays)
            raw = read_bytes(path)
            for tensor in report["tensors"]:
                with self.subTest(file=name, tensor=tensor["name"]):
                    a = arrays[tensor["name"]]
                    start = tensor["data_offset"]
                    order = "F" if tensor["order"] == "F" else "C"
                    self.assertEqual(raw[start:start + tensor["nbytes"]], a.tobytes(order=order))
                    expected_alignment = min(start & -start, 4096)
                    self.assertEqual(tensor["alignment"], expected_alignment)
                    self.assertFalse(tensor["compressed"])

    def test_deflated_members_are_marked_compressed(self):
        report = json.loads(run_cli("inspect", os.path.join(WORK, "good", "deflated.npz"), "--json").out)
        self.assertTrue(all(t["compressed"] for t in report["tensors"]))
        self.assertTrue(all(t["memory_alignment"] is None for t in report["tensors"]))

    def test_safetensors_metadata_and_offsets(self):
        path = os.path.join(WORK, "good", "model.safetensors")
        report = json.loads(run_cli("inspect", path, "--json").out)
        self.assertEqual(report["metadata"], {"format": "pt", "note": "test"})
        raw = read_bytes(path)
        header_end = 8 + int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8:header_end])
        for tensor in report["tensors"]:
            self.assertEqual(tensor["data_offset"], header_end + header[tensor["name"]]["data_offsets"][0])

    def test_format_is_chosen_by_magic_not_extension(self):
        renamed = os.path.join(WORK, "really_an_npz.safetensors")
        shutil.copyfile(os.path.join(WORK, "good", "stored.npz"), renamed)
        self.assertEqual(json.loads(run_cli("inspect", renamed, "--json").out)["format"], "npz")

    def test_human_output_lists_tensors_and_findings(self):
        proc = run_cli("inspect", os.path.join(WORK, "good", "stored.npz"))
        self.assertEqual(proc.returncode, 0)
        for text in ("npz, 5 tensors", "NAME", "DTYPE", "float32", "(8, 3)", "findings:", "non-finite-input"):
            self.assertIn(text, proc.out)


class MalformedInputs(unittest.TestCase):
    def test_every_malformed_file_is_rejected_with_a_clear_message(self):
        cases = read_json(os.path.join(WORK, "bad", "malformed.json"))["cases"]
        self.assertGreater(len(cases), 50)
        for case in cases:
            path = os.path.join(WORK, "bad", case["file"])
            with self.subTest(file=case["file"]):
                proc = run_cli("inspect", path, limit_memory=True, timeout=20)
                self.assertEqual(proc.returncode, 3, proc.err)
                self.assertTrue(proc.err.startswith(f"error: {path}: "), proc.err)
                self.assertIn(case["expect"], proc.err)
                self.assertLess(proc.elapsed, 10)
                self.assertEqual(proc.out, "")
                proc = run_cli("inspect", path, "--json", limit_memory=True, timeout=20)
                self.assertEqual(proc.returncode, 3)
                error = json.loads(proc.out)["error"]
                self.assertIn(error["kind"], ("malformed", "unsupported", "unreadable"))
                self.assertIn(case["expect"], error["message"])


class MutatedFiles(unittest.TestCase):
    """Random corruption of valid files (flipped bytes, truncation, insertion): every run
    must end with exit 0 or 3, never a signal or a hang."""

    def test_random_corruption_never_crashes(self):
        import random
        rng = random.Random(1121)
        seeds = ["float32_le_C.npy", "complex128_be_F.npy", "version_3.npy", "stored.npz", "deflated.npz",
                 "model.safetensors"]
        outcomes = {0: 0, 3: 0}
        for seed in seeds:
            original = read_bytes(os.path.join(WORK, "good", seed))
            for i in range(60):
                data = bytearray(original)
                kind = i % 3
                if kind == 0:
                    for _ in range(rng.randint(1, 8)):
                        data[rng.randrange(min(len(data), 400))] = rng.randrange(256)
                elif kind == 1:
                    del data[rng.randrange(len(data)):]
                else:
                    pos = rng.randrange(len(data))
                    data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
                path = os.path.join(WORK, f"mutated_{i}_{seed}")
                with open(path, "wb") as f:
                    f.write(data)
                with self.subTest(seed=seed, mutation=i):
                    proc = run_cli("inspect", path, "--json", limit_memory=True, timeout=20)
                    self.assertIn(proc.returncode, (0, 3), proc.err)
                    self.assertLess(proc.elapsed, 10)
                    body = json.loads(proc.out)
                    self.assertTrue(("error" in body) == (proc.returncode == 3))
                    outcomes[proc.returncode] += 1
                os.remove(path)
        self.assertGreater(outcomes[3], 100)  # most corruption must be caught


class UnscannedMembers(unittest.TestCase):
    """Members of strings, structured, long double, datetime or object dtype are listed with a
    "not-scanned" finding; the numeric members beside them are scanned; exit 0 as for any file read."""

    def manifest(self):
        return read_json(os.path.join(WORK, "unscanned", "manifest.json"))

    def test_npz_lists_every_member_and_scans_the_numeric_ones(self):
        manifest = self.manifest()
        for name in manifest["npz"]["files"]:
            path = os.path.join(WORK, "unscanned", name)
            with self.subTest(file=name):
                proc = run_cli("inspect", path, "--json")
                self.assertEqual(proc.returncode, 0, proc.err)
                report = json.loads(proc.out)
                got = {t["name"]: t for t in report["tensors"]}
                self.assertEqual(sorted(got), sorted(m["name"] for m in manifest["npz"]["members"]))
                for member in manifest["npz"]["members"]:
                    tensor = got[member["name"]]
                    self.assertEqual(tensor["shape"], member["shape"])
                    if member["descr"] == "<f4":
                        numbers = np.load(path)["numbers"]
                        self.assertEqual(tensor["stats"]["nan"], int(np.isnan(numbers).sum()))
                        self.assertNotIn("not_scanned", tensor)
                    else:
                        self.assertIsNone(tensor["stats"])
                        self.assertIn(tensor["not_scanned"], ("strings", "structured", "float128", "datetime", "object"))
                not_scanned = {f["tensor"]: f for f in report["findings"] if f["id"] == "not-scanned"}
                self.assertEqual(sorted(not_scanned), sorted(n for n, t in got.items() if t["stats"] is None))
                self.assertTrue(all(f["severity"] == "info" for f in not_scanned.values()))
                self.assertTrue(not_scanned["words"]["message"].startswith("not scanned: strings"))
                self.assertTrue(not_scanned["wide"]["message"].startswith("not scanned: float128"))
                self.assertIn("loading them would run code", not_scanned["objects"]["message"])
                self.assertIn("x <f4, n <i8", not_scanned["records"]["message"])
                self.assertIn("non-finite-input", [f["id"] for f in report["findings"]])

    def test_human_output_marks_the_members_not_scanned(self):
        proc = run_cli("inspect", os.path.join(WORK, "unscanned", "mixed.npz"))
        self.assertEqual(proc.returncode, 0, proc.err)
        for text in ("npz, 7 tensors", "<U5", "|S3", "structured", "float128", "object",
                     "info [not-scanned] words: not scanned: strings"):
            self.assertIn(text, proc.out)

    def test_a_single_npy_names_its_dtype(self):
        for entry in self.manifest()["npy"]:
            path = os.path.join(WORK, "unscanned", entry["file"])
            with self.subTest(file=entry["file"]):
                proc = run_cli("inspect", path, "--json")
                self.assertEqual(proc.returncode, 0, proc.err)
                report = json.loads(proc.out)
                self.assertEqual(report["tensors"][0]["shape"], entry["shape"])
                self.assertEqual([f["id"] for f in report["findings"]], ["not-scanned"])
        objects = json.loads(run_cli("inspect", os.path.join(WORK, "unscanned", "objects.npy"), "--json").out)
        self.assertEqual(objects["tensors"][0]["dtype"], "object")
        self.assertIn("never unpickles", objects["findings"][0]["message"])

    def test_help_says_what_not_scanned_means(self):
        self.assertIn("not-scanned", run_cli("--help").out)


class Python2Headers(unittest.TestCase):
    """NumPy reads `(2L,)` in version 1.0 and 2.0 headers (format.py _filter_header): so does inspect."""

    def python2_npy(self, shape_text, version):
        header = ("{'descr': '<i8', 'fortran_order': False, 'shape': %s, }" % shape_text).encode("latin1")
        prefix = 10 if version == 1 else 12
        header += b" " * ((64 - (prefix + len(header) + 1) % 64) % 64) + b"\n"
        length = len(header).to_bytes(prefix - 8, "little")
        data = np.arange(6, dtype="<i8").tobytes()
        path = os.path.join(WORK, f"python2_v{version}.npy")
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY" + bytes([version, 0]) + length + header + data)
        return path

    def test_long_integers_read_as_numpy_reads_them(self):
        for version in (1, 2, 3):
            path = self.python2_npy("(2L, 3L)", version)
            with self.subTest(version=version):
                try:
                    expected = np.load(path)
                except ValueError:
                    expected = None
                proc = run_cli("inspect", path, "--json")
                if expected is None:  # NumPy refuses the suffix in 3.0 headers
                    self.assertEqual(version, 3)
                    self.assertEqual(proc.returncode, 3)
                    self.assertIn("long suffix 'L'", proc.err)
                    continue
                self.assertEqual(proc.returncode, 0, proc.err)
                tensor = json.loads(proc.out)["tensors"][0]
                self.assertEqual(tensor["shape"], list(expected.shape))
                self.assertEqual(tensor["stats"]["max"], int(expected.max()))

    def test_numpys_own_python2_file(self):
        path = os.path.join(os.path.dirname(np.lib.__file__), "tests", "data", "win64python2.npy")
        if not os.path.exists(path):
            self.skipTest(f"{path} is not installed")
        proc = run_cli("inspect", path, "--json")
        self.assertEqual(proc.returncode, 0, proc.err)
        tensor = json.loads(proc.out)["tensors"][0]
        self.assertEqual(tensor["shape"], list(np.load(path).shape))
        self.assertEqual(tensor["dtype"], "float64")


class ForeignFormats(unittest.TestCase):
    """Pickles and the PyTorch formats BLAScope does not read are named, never unpickled: exit 3 as for any
    refused input. torch.save's zip format is read (tests/e2e/test_pytorch_cli.py)."""

    def refusal(self, name):
        path = os.path.join(WORK, "unscanned", name)
        proc = run_cli("inspect", path)
        self.assertEqual(proc.returncode, 3)
        self.assertTrue(proc.err.startswith(f"error: {path}: "), proc.err)
        proc_json = run_cli("inspect", path, "--json")
        self.assertEqual(proc_json.returncode, 3)
        self.assertEqual(json.loads(proc_json.out)["error"]["kind"], "unsupported")
        return proc.err

    def test_pytorch_checkpoints(self):
        manifest = read_json(os.path.join(WORK, "unscanned", "manifest.json"))
        if "skipped" in manifest:
            self.skipTest(manifest["skipped"])
        proc = run_cli("inspect", os.path.join(WORK, "unscanned", "checkpoint.pt"), "--json")
        self.assertEqual(proc.returncode, 0, proc.err)
        report = json.loads(proc.out)
        self.assertEqual(report["format"], "pytorch")
        self.assertEqual(sorted(t["name"] for t in report["tensors"]), ["bias", "weight"])
        message = self.refusal("legacy.pth")
        self.assertIn("legacy torch.save format", message)
        self.assertIn("weights_only=True", message)
        self.assertIn("TorchScript", self.refusal("scripted.pt"))

    def test_a_pickle_is_named_not_unpickled(self):
        self.assertIn("a Python pickle (protocol 4)", self.refusal("state.pkl"))


class Usage(unittest.TestCase):
    def test_help_and_version(self):
        proc = run_cli("--help")
        self.assertEqual(proc.returncode, 0)
        self.assertIn("usage: blasscope-cli", proc.out)
        self.assertIn("inspect FILE", proc.out)
        proc = run_cli("--version")
        self.assertEqual(proc.returncode, 0)
        self.assertRegex(proc.out, r"^blasscope-cli \d+\.\d+\.\d+\n$")

    def test_usage_errors_exit_2(self):
        for args in ((), ("frobnicate",), ("inspect",), ("inspect", "--bogus", "x.npy"), ("inspect", "a", "b")):
            with self.subTest(args=args):
                proc = run_cli(*args)
                self.assertEqual(proc.returncode, 2)
                self.assertIn("usage" if not args else "error:", proc.err)

    def test_missing_file_and_directory_are_rejected(self):
        proc = run_cli("inspect", os.path.join(WORK, "nope.npy"))
        self.assertEqual(proc.returncode, 3)
        self.assertIn("cannot open: No such file or directory", proc.err)
        # A folder is read as a sharded checkpoint (test_sharded_cli.py); one without tensor files is refused.
        empty = os.path.join(WORK, "empty_folder")
        os.makedirs(empty, exist_ok=True)
        proc = run_cli("inspect", empty, "--json")
        self.assertEqual(proc.returncode, 3)
        self.assertIn("folder holds no tensor files", json.loads(proc.out)["error"]["message"])

    def test_a_fifo_is_refused_at_once(self):
        # Opening a FIFO for reading waits for a writer: it must be refused, not waited on.
        fifo = os.path.join(WORK, "pipe.npy")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        for command in ("inspect", "run", "report"):
            with self.subTest(command=command):
                proc = run_cli(command, fifo, timeout=20)
                self.assertEqual(proc.returncode, 3, proc.err)
                self.assertIn("not a regular file", proc.err)


class HostileNames(unittest.TestCase):
    def test_a_name_with_newlines_cannot_fake_report_lines(self):
        path = os.path.join(WORK, "newline_names.npz")
        np.savez(path, **{"evil\nfindings: none\n": np.array([np.nan], dtype=np.float32)})
        proc = run_cli("inspect", path)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("evil\\nfindings: none\\n", proc.out)
        self.assertNotIn("\nfindings: none\n", proc.out)
        self.assertIn("non-finite-input", proc.out)


if __name__ == "__main__":
    CLI, SCRIPTS = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
