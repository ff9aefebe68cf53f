#!/usr/bin/env python3
"""End-to-end tests of `blasscope-cli run`: outputs against NumPy, failures reported, the
worker isolated from the CLI.

usage: test_run_cli.py CLI RESOURCES_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

CLI = None
RESOURCES = None
WORK = None


def run_cli(*args, timeout=120):
    proc = subprocess.run([CLI, *args], capture_output=True, timeout=timeout)
    proc.out = proc.stdout.decode("utf-8")
    proc.err = proc.stderr.decode("utf-8")
    return proc


def empty_folder():
    path = os.path.join(WORK, "empty folder")
    os.makedirs(path, exist_ok=True)
    return path


def safetensors_named_bin():
    """A safetensors file under a name that says nothing (the readers go by its bytes)."""
    header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    path = os.path.join(WORK, "model.bin")
    with open(path, "wb") as f:
        f.write(len(header).to_bytes(8, "little") + header + np.ones(2, np.float32).tobytes())
    return path


def write_workload(name, document):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        json.dump(document, f)
    return path


def run_json(workload, *extra):
    proc = run_cli("run", workload, "--json", *extra)
    return proc, (json.loads(proc.out) if proc.out.strip() else None)


def finding_ids(report):
    return {f["id"] for f in report["findings"]}


def setUpModule():
    global WORK
    WORK = tempfile.mkdtemp(prefix="blasscope-run-")
    rng = np.random.default_rng(7)
    np.save(os.path.join(WORK, "a32.npy"), rng.standard_normal((37, 23)).astype(np.float32))
    np.save(os.path.join(WORK, "b32_f.npy"), np.asfortranarray(rng.standard_normal((23, 19)).astype(np.float32)))
    np.save(os.path.join(WORK, "a64_be.npy"), rng.standard_normal((31, 17)).astype(">f8"))
    np.save(os.path.join(WORK, "b64.npy"), rng.standard_normal((31, 12)))
    np.save(os.path.join(WORK, "b23.npy"), rng.standard_normal((23, 8)))
    np.savez_compressed(os.path.join(WORK, "complex.npz"),
                        x=(rng.standard_normal((9, 6)) + 1j * rng.standard_normal((9, 6))).astype(np.complex64),
                        y=(rng.standard_normal((6, 5)) + 1j * rng.standard_normal((6, 5))).astype(np.complex64))
    m = rng.standard_normal((10, 5))
    m[3, 2] = np.nan
    np.save(os.path.join(WORK, "nan_matrix.npy"), m)
    np.save(os.path.join(WORK, "lsq_a.npy"), rng.standard_normal((20, 6)))
    np.save(os.path.join(WORK, "lsq_b.npy"), rng.standard_normal(20))


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


class OutputsMatchNumPy(unittest.TestCase):
    def test_saved_outputs_equal_numpy(self):
        workload = write_workload("gemm.json", {
            "name": "gemm vs numpy",
            "tensors": {"a32": {"file": "a32.npy"}, "b32": {"file": "b32_f.npy"}, "a64": {"file": "a64_be.npy"},
                        "b64": {"file": "b64.npy"}, "x": {"file": "complex.npz", "key": "x"},
                        "y": {"file": "complex.npz", "key": "y"}, "lsq_a": {"file": "lsq_a.npy"},
                        "lsq_b": {"file": "lsq_b.npy"}, "b23": {"file": "b23.npy"}},
            "ops": [{"op": "gemm", "a": "a32", "b": "b32", "out": "c32"},
                    {"op": "gemm", "a": "a64", "b": "b64", "trans_a": True, "out": "c64", "alpha": 2.0},
                    {"op": "gemm", "a": "x", "b": "y", "out": "cxy"},
                    {"op": "gemm", "a": "a32", "b": "b23", "promote": True, "out": "mixed"},
                    {"op": "svd", "a": "a64", "out": "s"},
                    {"op": "lstsq", "a": "lsq_a", "b": "lsq_b", "out": "x_ls"},
                    {"op": "cast", "a": "a64", "dtype": "float16", "out": "a16"},
                    {"op": "svd", "a": "a64", "compute_uv": True, "out": "usv"}]})
        outdir = os.path.join(WORK, "outputs")
        proc, report = run_json(workload, "--save-outputs", outdir)
        self.assertEqual(proc.returncode, 0, proc.err + proc.out)
        self.assertEqual([op["status"] for op in report["ops"]], ["ok"] * 8)
        load = lambda name: np.load(os.path.join(WORK, name))  # noqa: E731
        out = lambda name: np.load(os.path.join(outdir, name + ".npy"))  # noqa: E731
        # svd with compute_uv saves U and V^T beside S, and they rebuild the input.
        np.testing.assert_allclose(out("usv_u") @ np.diag(out("usv")) @ out("usv_vt"), load("a64_be.npy"),
                                   rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(out("c32"), load("a32.npy") @ load("b32_f.npy"), rtol=1e-5, atol=1e-5)
        self.assertEqual(out("c32").dtype, np.float32)
        np.testing.assert_allclose(out("c64"), 2.0 * load("a64_be.npy").T @ load("b64.npy"), rtol=1e-12, atol=1e-12)
        z = np.load(os.path.join(WORK, "complex.npz"))
        np.testing.assert_allclose(out("cxy"), z["x"] @ z["y"], rtol=1e-5, atol=1e-5)
        self.assertEqual(out("cxy").dtype, np.complex64)
        # float32 @ float64 with "promote": NumPy's promotion, computed in float64.
        self.assertEqual(out("mixed").dtype, np.float64)
        np.testing.assert_allclose(out("mixed"), load("a32.npy") @ load("b23.npy"), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(out("s"), np.linalg.svd(load("a64_be.npy"), compute_uv=False), rtol=1e-12)
        expected_x = np.linalg.lstsq(load("lsq_a.npy"), load("lsq_b.npy"), rcond=None)[0]
        np.testing.assert_allclose(out("x_ls"), expected_x, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(out("a16"), load("a64_be.npy").astype(np.float16))

    def test_report_fields(self):
        workload = write_workload("fields.json", {
            "name": "fields", "tensors": {"a": {"shape": [128, 64], "dtype": "float64"},
                                          "b": {"shape": [64, 32], "dtype": "float64", "order": "F"}},
            "ops": [{"op": "gemm", "a": "a", "b": "b", "repeat": 2}]})
        proc, report = run_json(workload)
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(report["workload"], "fields")
        op = report["ops"][0]
        for key in ("index", "op", "device", "kernel", "dtype", "m", "n", "k", "status", "seconds", "gflops", "info",
                    "error"):
            self.assertIn(key, op)
        self.assertEqual((op["m"], op["n"], op["k"]), (128, 32, 64))
        self.assertEqual(op["kernel"], "cblas_dgemm")
        self.assertGreater(op["gflops"], 0)
        self.assertIsNone(report["crash"])
        env = report["environment"]["cpu"]
        for key in ("openblas_corename", "openblas_config", "openblas_threads", "openblas_parallel", "cpu_model",
                    "simd", "peak_gflops_fp64", "memory_total", "memory_available"):
            self.assertIn(key, env)


class FailuresAreReported(unittest.TestCase):
    def test_nan_into_svd_gives_the_info_event(self):
        workload = write_workload("svd_nan.json", {
            "name": "svd nan", "tensors": {"m": {"file": "nan_matrix.npy"}},
            "ops": [{"op": "svd", "a": "m"}, {"op": "dlascl", "a": "m", "cfrom": "norm", "cto": 1.0}]})
        session = os.path.join(WORK, "svd_nan.session.json")
        proc, report = run_json(workload, "--session", session)
        self.assertEqual(proc.returncode, 1)
        svd, lascl = report["ops"]
        self.assertTrue(svd["info"] < 0 or svd["record"]["xerbla"], svd)
        self.assertEqual(lascl["info"], -4)
        self.assertEqual(lascl["record"]["xerbla"][0]["routine"], "DLASCL")
        self.assertEqual(lascl["record"]["xerbla"][0]["parameter"], 4)
        self.assertIn("non-finite-input", finding_ids(report))
        self.assertIn("dlascl-invalid-cfrom", finding_ids(report))
        self.assertNotIn("illegal-argument", finding_ids(report))
        with open(session) as f:
            saved = json.load(f)
        self.assertEqual(saved["format"], "blasscope-session")
        self.assertEqual(saved["version"], 1)
        self.assertTrue(any(e["event"] == "xerbla" and e["routine"] == "DLASCL" for e in saved["events"]))

    def test_leading_dimension_past_the_buffer_crashes_only_the_worker(self):
        workload = write_workload("crash.json", {
            "name": "crash", "tensors": {"a": {"shape": [64, 64], "dtype": "float64"}},
            "ops": [{"op": "gemm", "a": "a", "b": "a", "out": "first"},
                    {"op": "gemm", "a": "a", "b": "a", "lda": 1000000},
                    {"op": "gemm", "a": "a", "b": "a", "out": "never"}]})
        trace = os.path.join(WORK, "crash.trace.json")
        proc, report = run_json(workload, "--trace", trace)
        self.assertEqual(proc.returncode, 1)
        # Where a read 8 MB past the tensor lands is the address space's layout: unmapped memory
        # (SIGSEGV) or a mapped file past its end (SIGBUS).
        signal = report["crash"]["signal"]
        self.assertIn(signal, ("SIGSEGV", "SIGBUS"))
        self.assertEqual(report["crash"]["op"], 1)
        self.assertEqual(report["ops"][0]["status"], "ok")  # events before the crash are kept
        self.assertEqual(report["ops"][1]["status"], "crashed")
        self.assertEqual(len(report["ops"]), 2)
        self.assertIn("worker-crashed", finding_ids(report))
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        self.assertTrue(any(e["ph"] == "i" and signal in e["name"] for e in events))
        human = run_cli("run", workload)
        self.assertEqual(human.returncode, 1)
        self.assertRegex(human.out, r"crash: worker died with SIG(SEGV|BUS) in op 1")

    def test_memory_limit_gives_out_of_memory_without_a_kill(self):
        workload = write_workload("oom.json", {
            "name": "oom", "memory_limit": "16MiB",
            "tensors": {"big": {"shape": [2048, 2048], "dtype": "float64"},
                        "small": {"shape": [256, 256], "dtype": "float64"}},
            "ops": [{"op": "gemm", "a": "small", "b": "small", "out": "ok"},
                    {"op": "gemm", "a": "big", "b": "big"},
                    {"op": "gemm", "a": "small", "b": "small", "out": "grows"}]})
        proc, report = run_json(workload)
        self.assertEqual(proc.returncode, 1)
        self.assertIsNone(report["crash"])
        self.assertIn("out-of-memory", finding_ids(report))
        self.assertEqual([op["status"] for op in report["ops"]], ["ok", "skipped", "ok"])
        self.assertLessEqual(report["peak_host_bytes"], 16 << 20)

    def test_device_both_without_a_gpu_states_the_real_reason(self):
        workload = write_workload("gpu.json", {"name": "gpu", "tensors": {"a": {"shape": [8, 8], "dtype": "float32"}},
                                               "ops": [{"op": "gemm", "a": "a", "b": "a"}]})
        proc, report = run_json(workload, "--device", "both")
        gpu = report["environment"]["gpu"]
        if gpu["available"]:
            self.skipTest("a GPU is present: scripts/dev.sh gpu-test covers it")
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(sorted((op["device"], op["status"]) for op in report["ops"]), [("cpu", "ok"), ("gpu", "skipped")])
        self.assertIn("no-gpu", finding_ids(report))
        reason = gpu["reason"]
        self.assertTrue(reason)
        gpu_op = next(op for op in report["ops"] if op["device"] == "gpu")
        self.assertEqual(gpu_op["error"], reason)
        no_gpu = next(d for d in report["diagnoses"] if d["id"] == "no-gpu")
        self.assertIn(reason, " ".join(no_gpu["evidence"]))
        self.assertEqual(report["comparisons"], [])
        print("no-gpu reason:", reason, file=sys.stderr)

    def test_a_hung_lapack_driver_is_stopped_at_its_time_limit_as_kernel_hang(self):
        # One Inf in this 6x4 matrix (seed 6) makes dgesdd with U and V^T spin in dbdsqr forever.
        workload = write_workload("hang.json", {
            "name": "hang", "timeout": 3,
            "tensors": {"a": {"shape": [6, 4], "dtype": "float64", "seed": 6, "inf": 1}},
            "ops": [{"op": "svd", "a": "a", "out": "s0"},
                    {"op": "svd", "a": "a", "driver": "gesdd", "compute_uv": True, "out": "s1"}]})
        proc, report = run_json(workload)
        self.assertEqual(proc.returncode, 1, proc.err)
        statuses = {op["index"]: op["status"] for op in report["ops"]}
        self.assertEqual(statuses[0], "ok")  # the op before it is kept
        hang = next(d for d in report["diagnoses"] if d["id"] == "kernel-hang")
        self.assertEqual(hang["op"], 1)
        self.assertIn("time limit of 3 s", hang["title"] + " ".join(hang["evidence"]))
        self.assertIn("1 Inf", " ".join(hang["evidence"]))
        self.assertEqual(report["crash"]["signal"], "time limit")
        # --timeout wins over the workload's; no worker is left spinning.
        proc = run_cli("run", workload, "--timeout", "1")
        self.assertIn("time limit of 1 s", proc.out)
        left = subprocess.run(["pgrep", "-f", f"blasscope-worker.*{workload}"], capture_output=True, text=True).stdout
        self.assertEqual(left.split(), [])

    def test_in_process_gives_the_same_statuses(self):
        workload = write_workload("same.json", {
            "name": "same", "tensors": {"a": {"shape": [8, 6], "dtype": "float64", "nan": 2},
                                        "h": {"shape": [4, 4], "dtype": "float16"}},
            "ops": [{"op": "gemm", "a": "a", "b": "a", "trans_b": True}, {"op": "gemm", "a": "h", "b": "h"},
                    {"op": "gemm", "a": "a", "b": "a", "ldb": 1}]})
        _, isolated = run_json(workload)
        _, in_process = run_json(workload, "--in-process")
        strip = lambda r: [(o["status"], o["kernel"], o["info"]) for o in r["ops"]]  # noqa: E731
        self.assertEqual(strip(isolated), strip(in_process))
        self.assertEqual(finding_ids(isolated), finding_ids(in_process))


class ShippedWorkloads(unittest.TestCase):
    def test_every_shipped_workload_runs_without_crashing(self):
        folder = os.path.join(RESOURCES, "workloads")
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        self.assertTrue(names)
        for name in names:
            with self.subTest(workload=name):
                proc, report = run_json(os.path.join(folder, name))
                self.assertIn(proc.returncode, (0, 1), proc.err)
                self.assertIsNone(report["crash"])
                self.assertTrue(report["ops"])


class Rejections(unittest.TestCase):
    def test_bad_workloads_exit_3_naming_the_field(self):
        cases = [
            ({"name": "x", "tensors": {}, "ops": [{"op": "gemm", "a": "p", "b": "q"}]}, "ops[0].a: unknown tensor 'p'"),
            ({"name": "x", "tensors": {"a": {"file": "missing.npy"}}, "ops": []}, "missing.npy"),
            ({"name": "x", "tensors": {"a": {"file": "complex.npz", "key": "zz"}}, "ops": []}, "has no tensor 'zz'"),
            ({"name": "x", "tensors": {"a": {"file": "complex.npz"}}, "ops": []}, "name one with \"key\""),
            ({"name": "x", "tensors": {}, "ops": [], "color": "red"}, "unknown key 'color'"),
        ]
        for document, expected in cases:
            with self.subTest(expected=expected):
                workload = write_workload("bad.json", document)
                proc = run_cli("run", workload)
                self.assertEqual(proc.returncode, 3, proc.err)
                self.assertTrue(proc.err.startswith(f"error: {workload}: "), proc.err)
                self.assertIn(expected, proc.err)
                proc, report = run_json(workload)
                self.assertEqual(proc.returncode, 3)
                self.assertIn(expected, report["error"]["message"])

    def test_the_wrong_kind_of_file_is_named_and_the_right_command_given(self):
        tensor = os.path.join(WORK, "a32.npy")
        workload = write_workload("ok.json", {"name": "ok", "tensors": {"a": {"file": "a32.npy"}},
                                              "ops": [{"op": "gemm", "a": "a", "b": "a", "trans_b": True}]})
        session = os.path.join(WORK, "ok.session.json")
        self.assertEqual(run_cli("run", workload, "--session", session).returncode, 0)
        for args, expected in ((("run", tensor), "a tensor file, not a workload"),
                               (("run", session), "a saved session, not a workload"),
                               (("report", workload), "a workload, not a saved session"),
                               (("report", tensor), "a tensor file, not a saved session"),
                               (("report", empty_folder()), "a folder, not a saved session"),
                               (("report", safetensors_named_bin()), "a tensor file, not a saved session"),
                               (("report", write_workload("list.json", [])), "nor a tensor file BLAScope reads")):
            with self.subTest(args=args):
                proc = run_cli(*args)
                self.assertEqual(proc.returncode, 3, proc.err)
                self.assertIn(expected, proc.err)
        # The session itself reports (into a folder made for it), and keeps the workload file as
        # an absolute path.
        self.assertEqual(run_cli("report", session).returncode, 0)
        report = os.path.join(WORK, "new folder", "r.html")
        self.assertEqual(run_cli("report", session, "--format", "html", "--output", report).returncode, 0)
        self.assertTrue(os.path.getsize(report) > 0)
        with open(session) as f:
            self.assertEqual(json.load(f)["workload_file"], os.path.abspath(workload))

    def test_worker_events_this_build_cannot_read_are_said_not_dropped(self):
        workload = write_workload("one_solve.json", {"name": "one", "tensors": {
            "a": {"shape": [3, 3], "dtype": "float64", "seed": 1}, "b": {"shape": [3], "dtype": "float64"}},
            "ops": [{"op": "solve", "a": "a", "b": "b"}]})
        # A worker of another build: its op kind is one this CLI does not know.
        worker = os.path.join(os.path.dirname(os.path.abspath(CLI)), "blasscope-worker")
        wrapper = os.path.join(WORK, "other_worker.sh")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\n"{worker}" "$@" | sed \'s/"op_kind":"solve"/"op_kind":"future_op"/\'\n')
        os.chmod(wrapper, 0o755)
        proc = subprocess.run([CLI, "run", workload], capture_output=True, timeout=120,
                              env={**os.environ, "BLASSCOPE_WORKER": wrapper})
        err = proc.stderr.decode()
        self.assertIn("event(s) from the worker", err)
        self.assertIn("could not be read", err)
        self.assertNotIn("warning", run_cli("run", workload).err)

    def test_a_killed_cli_leaves_no_worker_and_no_partial_files(self):
        # A GEMM, then an SVD that never returns (an Inf makes dgesdd spin in dbdsqr): the CLI is
        # killed while the worker is inside it, however fast the machine.
        workload = write_workload("killed-mid-run.json", {
            "name": "killed-mid-run", "timeout": 120,
            "tensors": {"a": {"shape": [6, 4], "dtype": "float64", "seed": 6, "inf": 1},
                        "b": {"shape": [4, 6], "dtype": "float64", "seed": 2}},
            "ops": [{"op": "gemm", "a": "a", "b": "b", "out": "c"},
                    {"op": "svd", "a": "a", "driver": "gesdd", "compute_uv": True, "out": "s"}]})
        session = os.path.join(WORK, "killed.session.json")
        outputs = os.path.join(WORK, "killed-outputs")
        proc = subprocess.Popen([CLI, "run", workload, "--session", session, "--save-outputs", outputs],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def workers():
            found = []
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        cmdline = f.read()
                except OSError:
                    continue
                if b"blasscope-worker" in cmdline and workload.encode() in cmdline:
                    found.append(pid)
            return found

        deadline = time.time() + 30
        while not workers() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        self.assertTrue(workers(), "the worker never started")
        time.sleep(1.0)
        proc.kill()
        proc.wait()
        deadline = time.time() + 10
        while workers() and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(workers(), [], "the worker outlived the CLI that started it")
        left = os.listdir(outputs) if os.path.isdir(outputs) else []
        self.assertFalse(os.path.exists(session) or os.path.exists(session + ".part"))
        self.assertEqual([f for f in left if not f.endswith(".npy") or f.endswith(".part")], [])
        for name in left:  # the GEMM's result, written before the SVD began, is whole
            self.assertEqual(np.load(os.path.join(outputs, name)).shape, (6, 6))

    def test_usage_errors_exit_2(self):
        for args in (("run",), ("run", "w.json", "--device", "tpu"), ("run", "w.json", "--trace"),
                     ("run", "a.json", "b.json"), ("run", "--frobnicate", "w.json"),
                     ("run", "w.json", "--timeout", "0"), ("run", "w.json", "--timeout", "soon")):
            with self.subTest(args=args):
                self.assertEqual(run_cli(*args).returncode, 2)


if __name__ == "__main__":
    CLI, RESOURCES = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
