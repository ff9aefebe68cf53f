#!/usr/bin/env python3
"""Every built-in scenario produces exactly its expected diagnoses; explain and report work.

usage: test_scenarios.py CLI
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

CLI = None
# Diagnoses about the machine, not the workload: they may appear anywhere (e.g. when
# OPENBLAS_CORETYPE forces older kernels) and are checked by their own tests.
ENVIRONMENT_IDS = {"blas-kernel-mismatch"}


def cli(*args, timeout=300):
    proc = subprocess.run([CLI, *args], capture_output=True, timeout=timeout)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


class Scenarios(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rc, out, err = cli("scenarios", "--json")
        assert rc == 0, err
        cls.scenarios = json.loads(out)
        cls.work = tempfile.mkdtemp(prefix="blasscope-scenarios-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_gallery_covers_the_seed_examples_and_the_real_failures(self):
        ids = {s["id"] for s in self.scenarios}
        self.assertEqual(len([s for s in self.scenarios if s["seed"]]), 9)
        for required in ("nan-svd", "nan-lstsq", "dlascl-cfrom-zero", "rowmajor-lda", "float16-cast-overflow",
                         "index-overflow", "out-of-memory-limit", "buffer-overrun-crash", "misaligned-vs-aligned",
                         "ld-aliasing-vs-padded", "healthy-baseline"):
            self.assertIn(required, ids)

    def test_every_scenario_produces_exactly_its_expected_diagnoses(self):
        table = []
        for s in self.scenarios:
            with self.subTest(scenario=s["id"]):
                session = os.path.join(self.work, s["id"] + ".session.json")
                rc, out, err = cli("run", s["id"], "--json", "--session", session)
                self.assertIn(rc, (0, 1), err)
                report = json.loads(out)
                got = {d["id"] for d in report["diagnoses"]} - ENVIRONMENT_IDS
                self.assertEqual(got, set(s["expected"]), json.dumps(report["diagnoses"], indent=1)[:3000])
                errors = [d for d in report["diagnoses"] if d["severity"] == "error"]
                self.assertEqual(rc, 1 if errors else 0)
                for d in report["diagnoses"]:
                    for field in ("title", "evidence", "cause", "fix", "seen_as"):
                        self.assertTrue(d[field], f"{d['id']} has an empty {field}")
                table.append((s["id"], sorted(got)))
        healthy = dict(table)["healthy-baseline"]
        self.assertEqual(healthy, [])
        print("\n".join(f"{sid:34} {', '.join(ids) or '(none)'}" for sid, ids in table), file=sys.stderr)

    def test_reports_from_a_session(self):
        session = os.path.join(self.work, "report.session.json")
        rc, _, err = cli("run", "rowmajor-lda", "--session", session)
        self.assertEqual(rc, 1, err)
        rc, md, err = cli("report", session)
        self.assertEqual(rc, 0, err)
        for text in ("# BLAScope report: rowmajor-lda", "## Ops", "cblas_dgemm", "illegal-argument", "**Cause**",
                     "mix-up", "On entry to DGEMM parameter number"):
            self.assertIn(text, md)
        html_path = os.path.join(self.work, "report.html")
        rc, _, err = cli("report", session, "--format", "html", "--output", html_path)
        self.assertEqual(rc, 0, err)
        with open(html_path) as f:
            html = f.read()
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        self.assertIn("<h2>Diagnoses</h2>", html)
        self.assertNotIn("<script", html)
        self.assertEqual(cli("report", os.path.join(self.work, "missing.json"))[0], 3)
        self.assertEqual(cli("report", session, "--format", "pdf")[0], 2)

    def test_explain_every_id(self):
        rc, _, err = cli("explain")
        self.assertEqual(rc, 2)
        ids = err.split("ids:")[1].split()
        self.assertGreaterEqual(len(ids), 21)
        for diagnosis_id in ids:
            rc, out, _ = cli("explain", diagnosis_id)
            self.assertEqual(rc, 0)
            for heading in ("## Cause", "## Fix", "## Seen as"):
                self.assertIn(heading, out)
        self.assertEqual(cli("explain", "no-such-id")[0], 2)


if __name__ == "__main__":
    CLI = sys.argv[1]
    unittest.main(argv=sys.argv[:1], verbosity=2)
