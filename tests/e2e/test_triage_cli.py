#!/usr/bin/env python3
"""End-to-end tests of `blasscope-cli triage` on error texts made at test time.

usage: test_triage_cli.py BLASSCOPE_CLI TESTS_DATA_DIR

The producers in TESTS_DATA_DIR/collect_error_texts.py run again here (real NumPy, SciPy and
PyTorch calls): each committed text in error_texts/ must still be what the library prints, and
triage must map the whole fresh traceback to the case's diagnosis.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

CLI = sys.argv[1]
DATA = sys.argv[2]
sys.path.insert(0, DATA)
import collect_error_texts  # noqa: E402

TEXTS = os.path.join(DATA, "error_texts")


def triage(args, stdin=b"", timeout=120):
    return subprocess.run([CLI, "triage", *args], input=stdin, capture_output=True, timeout=timeout)


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("# ")]
    return lines[-1].strip()


class RealErrorTexts(unittest.TestCase):
    def test_every_case_has_its_committed_text(self):
        committed = sorted(f[:-4] for f in os.listdir(TEXTS) if f.endswith(".txt"))
        self.assertEqual(committed, sorted(collect_error_texts.CASES))
        for name, (call, expect, _) in collect_error_texts.CASES.items():
            with open(os.path.join(TEXTS, name + ".txt"), encoding="utf-8") as f:
                header = f.readline()
            self.assertEqual(header, f"# {call} -> {expect}\n", name)

    def test_the_libraries_still_print_the_committed_texts_and_triage_finds_their_page(self):
        for name, (_, expect, _) in collect_error_texts.CASES.items():
            with self.subTest(case=name):
                fresh = collect_error_texts.run_case(name)
                with open(os.path.join(TEXTS, name + ".txt"), encoding="utf-8") as f:
                    committed = f.read()
                self.assertIn(last_line(committed), fresh, "the library no longer prints the committed text")
                self.assert_triaged_as(fresh.encode(), expect, name)
                self.assert_triaged_as(committed.encode(), expect, name)

    def assert_triaged_as(self, text, expect, name):
        done = triage(["--json"], stdin=text)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        matches = json.loads(done.stdout)["matches"]
        ids = [m["id"] for m in matches]
        self.assertIn(expect, ids, f"{name}: {ids}")
        own = matches[ids.index(expect)]
        # Ranked first, or tied with pages that list the very same text (explicitly shared).
        for above in matches[: ids.index(expect)]:
            self.assertEqual(above["example"], own["example"], f"{name}: {above['id']} ranks above {expect}")
            self.assertEqual(above["line_number"], own["line_number"], name)


class Behaviour(unittest.TestCase):
    def test_a_file_a_dash_and_no_argument_read_the_same_text(self):
        text = b"Traceback (most recent call last):\n ** On entry to DGEMM parameter number  8 had an illegal value\n"
        with tempfile.NamedTemporaryFile(suffix=".log") as f:
            f.write(text)
            f.flush()
            outputs = [triage([f.name, "--json"]), triage(["-", "--json"], text), triage(["--json"], text)]
        for done in outputs:
            self.assertEqual(done.returncode, 0, done.stderr)
        first = [json.loads(d.stdout)["matches"] for d in outputs]
        self.assertEqual(first[0], first[1])
        self.assertEqual(first[1], first[2])
        m = first[0][0]
        self.assertEqual(m["id"], "illegal-argument")
        self.assertEqual(m["line_number"], 2)
        self.assertEqual(m["values"], {"routine": "DGEMM", "parameter": "8"})
        self.assertEqual(m["scenario"], "rowmajor-lda")
        self.assertEqual(set(m), {"id", "title", "severity", "line", "line_number", "values", "example", "scenario", "score"})

    def test_text_output_names_the_line_values_explanation_and_scenario(self):
        done = triage([], b"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx(h)`\n")
        self.assertEqual(done.returncode, 0)
        out = done.stdout.decode()
        self.assertIn("1. cublas-error", out)
        self.assertIn("status=CUBLAS_STATUS_EXECUTION_FAILED", out)
        self.assertIn("cause:", out)
        self.assertIn("fix:", out)

    def test_a_lapack_routines_argument_error_is_named_and_not_given_the_gemm_scenario(self):
        # SciPy's eig of a NaN matrix raises DHSEQR's (made inside DGEEV); eigh(a, b) calls DSYGVD.
        for routine, said in (("DHSEQR", "ILO (?GEEV, eig, calls DHSEQR inside"), ("DSYGVD", "N\n"),
                              ("DGEHRD", "A (?GEEV, eig, calls DGEHRD inside")):
            with self.subTest(routine=routine):
                done = triage([], f"ValueError: On entry to {routine} parameter number 4 had an illegal value\n".encode())
                self.assertEqual(done.returncode, 0, done.stdout.decode())
                out = done.stdout.decode()
                self.assertIn(f"routine={routine}  parameter=4", out)
                self.assertIn(f"parameter 4 of {routine} is {said}", out)
                self.assertNotIn("rowmajor-lda", out)
        done = triage([], b" ** On entry to DGEMM parameter number 10 had an illegal value\n")
        self.assertIn("parameter 10 of DGEMM is LDB (your lda if you called row-major CBLAS)\n", done.stdout.decode())
        self.assertIn("reproduce: blasscope-cli run rowmajor-lda", done.stdout.decode())

    def test_nothing_matched_exits_1_and_says_what_to_try(self):
        done = triage([], b"epoch 1 loss 0.31\nepoch 2 loss 0.27\nall good\n")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stdout, b"")
        self.assertIn(b"blasscope-cli record -- YOUR COMMAND", done.stderr)
        done = triage(["--json"], b"")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(json.loads(done.stdout)["matches"], [])

    def test_usage_errors_exit_2(self):
        for args in (["--bogus"], ["a.log", "b.log"], ["-x"]):
            done = triage(args)
            self.assertEqual(done.returncode, 2, args)
            self.assertIn(b"usage: blasscope-cli triage", done.stderr)
        self.assertEqual(triage(["--help"]).returncode, 0)
        help_text = subprocess.run([CLI, "--help"], capture_output=True).stdout
        self.assertIn(b"triage [FILE|-]", help_text)

    def test_unreadable_input_is_rejected_with_a_reason(self):
        with tempfile.TemporaryDirectory() as folder:
            binary = os.path.join(folder, "core.bin")
            with open(binary, "wb") as f:
                f.write(bytes(range(256)) * 64 + b"CUBLAS_STATUS_ALLOC_FAILED")
            for path, reason in ((os.path.join(folder, "missing.log"), b"No such file"), (folder, b"directory"),
                                 (binary, b"binary")):
                done = triage([path])
                self.assertEqual(done.returncode, 3, path)
                self.assertIn(reason, done.stderr)
                self.assertEqual(done.stdout, b"")

    def test_invalid_utf8_is_read_and_printed_as_valid_utf8(self):
        text = b"\xff\xfe\xc3( prefix \x80 RuntimeWarning: overflow encountered in cast \xe2\x82\n"
        done = triage([], text)
        self.assertEqual(done.returncode, 0)
        done.stdout.decode("utf-8")  # strict: raises on invalid output
        self.assertIn(b"cast-overflow", done.stdout)

    def test_a_100_mb_line_takes_bounded_time_and_memory(self):
        with tempfile.NamedTemporaryFile(suffix=".log") as f:
            for _ in range(100):  # in pieces: a forked child starts with the parent's peak memory
                f.write(b"x" * (1 << 20))
            f.write(b" ValueError: On entry to DLASCL parameter number 4 had an illegal value")
            f.write(b" " + b"y" * 1000 + b"\n")
            f.flush()
            env, limit_mib = None, 64
            if os.environ.get("BLASSCOPE_SANITIZED") == "1":
                # ASan's runtime alone takes about 55 MiB, and its quarantine keeps freed buffers
                # resident, so it is turned off here; a held 100 MB line would still pass 128 MiB.
                env = dict(os.environ)
                env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "quarantine_size_mb=0"]))
                limit_mib = 128
            start = time.monotonic()
            with tempfile.TemporaryFile() as out:
                child = subprocess.Popen([CLI, "triage", f.name, "--json"], stdout=out, stderr=subprocess.DEVNULL,
                                         env=env)
                _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory
                child.returncode = os.waitstatus_to_exitcode(status)
                out.seek(0)
                stdout = out.read()
            elapsed = time.monotonic() - start
        self.assertEqual(child.returncode, 0)
        m = json.loads(stdout)["matches"][0]
        self.assertEqual(m["id"], "dlascl-invalid-cfrom")
        self.assertLess(len(m["line"]), 600)
        self.assertLess(elapsed, 60)
        self.assertLess(usage.ru_maxrss, limit_mib * 1024, "triage held the 100 MB line in memory")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
