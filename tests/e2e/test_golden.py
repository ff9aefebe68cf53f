#!/usr/bin/env python3
"""Golden outputs: `run ID --json` of every scenario and `inspect --json` of every test file
(good and malformed) must stay what they were when the refactor of issue 9 started.

Timings, the machine's environment and diagnoses about the machine are left out; paths are
reduced to file names. The goldens live in tests/golden/ (small JSON, committed).

usage: test_golden.py CLI TESTS_DIR [--write]   (--write records the goldens anew)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

CLI = TESTS = None
WRITE = False
WORK = None

# Measured, not computed: they differ between runs and machines.
VOLATILE_KEYS = {"seconds", "seconds_each", "gflops", "gbytes_per_second", "t", "environment", "device_seconds",
                 "cpu_seconds", "gpu_seconds", "speedup", "cast_seconds"}
ENVIRONMENT_IDS = {"blas-kernel-mismatch"}
# Values a kernel computes, whose last bits depend on the OpenBLAS kernel set in use.
KERNEL_DEPENDENT_KEYS = {"max_abs"}
# Diagnoses whose severity follows a timing measured in the run (a layout that costs time here).
MEASURED_SEVERITY_IDS = {"ld-cache-aliasing", "misaligned-buffer"}
# Times and rates quoted inside evidence sentences ("3.2 ms", "41.5 GFLOP/s", "12% slower").
MEASURED_TEXT = re.compile(r"[-+]?\d[\d.,]*(e[-+]?\d+)?\s*(ms|µs|us|ns|s|GFLOP/s|GB/s|%|×|x)(?![A-Za-z])")
# Why this machine has no GPU (no driver, a build without CUDA, a missing library): the
# machine's, not the workload's.
NO_GPU_REASON = re.compile(r"(no usable NVIDIA driver|no CUDA device is visible|only the CUDA driver's stub library|"
                           r"the CUDA runtime (could not start|started but sees no device)|the GPU plugin|"
                           r"a CUDA library the GPU plugin needs).*$")
# A side-by-side timing and what it concluded ("(ratio 1.33)", "(ratio 0.85): no measurable cost").
MEASURED_RATIO = re.compile(r"\(ratio [^)]*\).*$")


def normalize(value, work):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in VOLATILE_KEYS:
                continue
            if key in KERNEL_DEPENDENT_KEYS and isinstance(item, float):
                # A float32 GEMM's largest output differs in its last bits between OpenBLAS
                # kernel sets (Haswell, SkylakeX): compared to 4 significant digits.
                out[key] = float(f"{item:.4g}")
                continue
            if key == "diagnoses" and isinstance(item, list):
                item = [d for d in item if d.get("id") not in ENVIRONMENT_IDS]
            if key == "findings" and isinstance(item, list):
                item = [f for f in item if f.get("id") not in ENVIRONMENT_IDS]
            out[key] = normalize(item, work)
        if out.get("id") in MEASURED_SEVERITY_IDS:
            out.pop("severity", None)
        return out
    if isinstance(value, list):
        return [normalize(v, work) for v in value]
    if isinstance(value, str):
        text = value.replace(work + os.sep, "").replace(work, "")
        text = NO_GPU_REASON.sub("<why there is no GPU here>", text)
        return MEASURED_RATIO.sub("<measured ratio>", MEASURED_TEXT.sub("<measured>", text))
    return value


def cli_json(*args):
    proc = subprocess.run([CLI, *args], capture_output=True, timeout=600)
    out = proc.stdout.decode()
    try:
        return proc.returncode, json.loads(out)
    except json.JSONDecodeError:
        return proc.returncode, {"stdout": out.strip(), "stderr": proc.stderr.decode().strip()}


def read_json(path):
    with open(path) as f:
        return json.load(f)


def golden_path(name):
    return os.path.join(TESTS, "golden", name)


class Golden(unittest.TestCase):
    def check(self, name, actual):
        path = golden_path(name)
        if WRITE:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                json.dump(actual, f, indent=1, sort_keys=True, ensure_ascii=False)
                f.write("\n")
            return
        expected = normalize(read_json(path), WORK)  # rounds its floats the same way
        self.assertEqual(actual, expected, f"{name} differs from its golden output")

    def test_run_json_of_every_scenario(self):
        rc, scenarios = cli_json("scenarios", "--json")
        self.assertEqual(rc, 0)
        worker = os.path.join(os.path.dirname(CLI), "blasscope-worker")
        env = json.loads(subprocess.run([worker, "--environment"], capture_output=True, timeout=120).stdout)
        gpu_here = env.get("gpu", {}).get("available", False)
        for s in scenarios:
            with self.subTest(scenario=s["id"]):
                golden = golden_path(f"run/{s['id']}.json")
                uses_gpu = os.path.exists(golden) and any(
                    op.get("device") == "gpu" for op in read_json(golden)["report"].get("ops", []))
                if gpu_here and uses_gpu:
                    print(f"skipped {s['id']}: its goldens were recorded where no GPU runs it")
                    continue
                rc, report = cli_json("run", s["id"], "--json")
                self.check(f"run/{s['id']}.json", {"exit": rc, "report": normalize(report, WORK)})

    def test_inspect_json_of_every_test_file(self):
        for sub in ("good", "bad"):
            folder = os.path.join(WORK, sub)
            for name in sorted(os.listdir(folder)):
                if name.endswith(".json") or os.path.getsize(os.path.join(folder, name)) > (64 << 20):
                    continue  # the manifest; the large files are the reader suite's
                with self.subTest(file=name):
                    rc, report = cli_json("inspect", os.path.join(folder, name), "--json")
                    self.check(f"inspect/{sub}/{name}.json", {"exit": rc, "report": normalize(report, WORK)})


def setUpModule():
    global WORK
    WORK = tempfile.mkdtemp(prefix="blasscope-golden-")
    scripts = os.path.join(TESTS, "data")
    for script, sub in (("make_tensor_files.py", "good"), ("make_malformed_files.py", "bad")):
        subprocess.run([sys.executable, os.path.join(scripts, script), os.path.join(WORK, sub)], check=True,
                       stdout=subprocess.DEVNULL)


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    CLI, TESTS = sys.argv[1], sys.argv[2]
    WRITE = "--write" in sys.argv[3:]
    unittest.main(argv=[sys.argv[0]], verbosity=2)
