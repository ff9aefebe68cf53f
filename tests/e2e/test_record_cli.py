#!/usr/bin/env python3
"""End-to-end tests of `blasscope-cli record`: real, unmodified NumPy, SciPy, PyTorch and C
programs (written and built here), recorded through the preload library. Counts must equal
what the program made, failures must get their diagnosis ids, and the program must behave
as it does without BLAScope (output, exit status).

usage: test_record_cli.py CLI [unittest arguments: test names, -k PATTERN]
"""
import fcntl
import json
import os
import re
import shlex
import shutil
import struct
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

CLI = None
WORK = None
PYTHON = "/usr/bin/python3"


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


def record(*command, options=(), timeout=300):
    session = os.path.join(WORK, f"session-{len(os.listdir(WORK))}.json")
    proc = subprocess.run([CLI, "record", "--output", session, *options, "--", *command], capture_output=True,
                          timeout=timeout, cwd=WORK)
    proc.out = proc.stdout.decode("utf-8", "replace")
    proc.err = proc.stderr.decode("utf-8", "replace")
    report = None
    if os.path.exists(session):
        rep = subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True, timeout=120)
        if rep.returncode != 0:
            raise AssertionError(f"report failed: {rep.stderr.decode()}")
        report = json.loads(rep.stdout)
        report["_index"] = session.rsplit("-", 1)[1].split(".")[0]
    return proc, report


def replay_ids(capture):
    """The diagnosis ids of `blasscope-cli run` on a capture's workload (the machine's own left out)."""
    proc = subprocess.run([CLI, "run", capture["workload"], "--json"], capture_output=True, timeout=300)
    report = json.loads(proc.stdout)
    return [d["id"] for d in report["diagnoses"] if d["id"] != "blas-kernel-mismatch"]


def report_path(report):
    return os.path.join(WORK, f"session-{report['_index']}.json")


def calls_of(report, routine):
    return sum(r["calls"] for r in report["routines"] if r["routine"] == routine)


def ids(report):
    """The diagnosis ids about the program (the machine's own kernel mismatch left out)."""
    return [d["id"] for d in report["diagnoses"] if d["id"] != "blas-kernel-mismatch"]


def gemm_counter():
    """A Python program making argv[1] DGEMMs (20 x 20 float64 matmuls)."""
    return write("gemm_counter.py", """
        import sys
        import numpy as np
        a = np.random.rand(20, 20)
        for _ in range(int(sys.argv[1])):
            a @ a
    """)


def child_gemm_counts(report):
    """The DGEMM count of each child session a recording lists, in its order."""
    counts = []
    for c in report["children"]:
        rep = subprocess.run([CLI, "report", c["session"], "--format", "json"], capture_output=True, timeout=60)
        counts.append(sum(r["calls"] for r in json.loads(rep.stdout)["routines"] if r["routine"] == "dgemm"))
    return counts


def build_c(name, source, *flags):
    src = write(name + ".c", source)
    exe = os.path.join(WORK, name)
    subprocess.run(["gcc", "-O1", "-o", exe, src, *flags], check=True)
    return exe


def kill_processes_running(path):
    """SIGKILL to every process whose command line names `path` (no procps needed)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if path.encode() in f.read().split(b"\0"):
                    os.kill(int(pid), 9)
        except OSError:
            pass


def np_dtype(path):
    """The dtype NumPy reads a .npy file as."""
    return subprocess.run([PYTHON, "-c", f"import numpy as np; print(np.load({path!r}).dtype)"], capture_output=True,
                          text=True, check=True).stdout.strip()


def kernel_tells_signals():
    """Whether this kernel says through a pidfd how a process ended once it was reaped
    (PIDFD_GET_INFO with PIDFD_INFO_EXIT, Linux 6.15): the recorder, holding one on each process
    of the recording, names the signal only then (its children's are not its to wait for)."""
    pid = os.fork()
    if pid == 0:
        signal.pause()
        os._exit(0)
    fd = os.pidfd_open(pid)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    info = bytearray(struct.pack("=Q56x", 1 << 3))
    try:
        fcntl.ioctl(fd, 0xC040FF0B, info)  # _IOWR(0xFF, 11, 64 bytes)
    except OSError:
        return False
    finally:
        os.close(fd)
    mask, = struct.unpack_from("=Q", info)
    status, = struct.unpack_from("=i", info, 60)
    return bool(mask & (1 << 3)) and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM


def recording_buffer_of(pid):
    """The recording buffer a running recorder has mapped (its path), or None: other recordings
    on the machine (a parallel test) have buffers of their own, which are none of the test's."""
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            path = line.split(maxsplit=5)[-1].strip()
            if os.path.basename(path).startswith("blasscope-buffer-"):
                return path
    return None


# A C function timing `calls` 1x1 GEMMs and writing the seconds they took to `path`.
TIMED_GEMMS_C = r"""
    #include <cblas.h>
    #include <stdio.h>
    #include <time.h>
    #include <unistd.h>
    static void timed_gemms(int calls, const char* path) {
      double a = 1, b = 1, c = 0;
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      for (int i = 0; i < calls; ++i)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      FILE* out = fopen(path, "w");
      fprintf(out, "%f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
      fclose(out);
    }
"""


def seconds_written_to(path):
    """What a program wrote to `path` with timed_gemms, once it has (a minute at most)."""
    deadline = time.monotonic() + 60
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)
    with open(path) as f:
        return float(f.read())


# SciPy's lstsq of a matrix holding a NaN: DGELSD's DLASCL refuses CFROM = NaN (parameter 4).
LSTSQ_OF_A_NAN = """
    import numpy as np, scipy.linalg
    a = np.random.rand(30, 9); b = np.random.rand(30)
    a[2, 3] = np.nan
    try:
        scipy.linalg.lstsq(a, b, check_finite=False)
    except ValueError as e:
        print("ValueError:", e)
"""


def has_module(name):
    return subprocess.run([PYTHON, "-c", f"import {name}"], capture_output=True).returncode == 0


class RecordNumPy(unittest.TestCase):
    def test_counts_equal_the_calls_made_and_the_exit_status_is_the_programs(self):
        script = write("counts.py", """
            import sys
            import numpy as np
            a, b = np.random.rand(64, 48), np.random.rand(48, 32)
            for _ in range(17):
                c = a @ b          # one cblas_dgemm each
            s = np.random.rand(40, 40)
            for _ in range(5):
                t = s @ s.T        # NumPy turns A @ A.T into one cblas_dsyrk
            x = np.random.rand(30, 30).astype(np.float32)
            for _ in range(3):
                y = x @ x[:, :7].copy()   # float32: cblas_sgemm
            print("sum", float(c.sum()) > 0)
            sys.exit(7)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 7, proc.err)
        self.assertIn("sum True", proc.out)  # stdout untouched
        self.assertEqual(report["exit_status"], 7)
        self.assertEqual(calls_of(report, "dgemm"), 17)
        self.assertEqual(calls_of(report, "dsyrk"), 5)
        self.assertEqual(calls_of(report, "sgemm"), 3)
        gemm = [c for c in report["calls"] if c["routine"] == "dgemm"]
        self.assertEqual(len(gemm), 17)
        self.assertEqual((gemm[0]["m"], gemm[0]["n"], gemm[0]["k"]), (64, 32, 48))
        for key in ("seq", "thread", "dtype", "seconds", "start"):
            self.assertIn(key, gemm[0])
        self.assertEqual(ids(report), [])
        self.assertIn("dgemm", proc.err)  # the summary
        self.assertIn("OF PEAK", proc.err)
        with open(report_path(report)) as f:
            self.assertTrue(json.load(f)["machine"]["openblas_corename"])
        # The same session re-written by another JSON writer (keys reordered, indented) is read
        # by the general parser instead of the fast path: the same calls come back.
        with open(report_path(report)) as f:
            session = json.load(f)
        rewritten = write("rewritten.json", json.dumps(session, indent=1, sort_keys=True))
        rep = subprocess.run([CLI, "report", rewritten, "--format", "json"], capture_output=True, timeout=120)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        again = json.loads(rep.stdout)
        self.assertEqual(again["calls"], report["calls"])
        self.assertEqual(again["routines"], report["routines"])

    def test_workspace_queries_are_counted_and_marked_but_left_out_of_the_mean(self):
        # NumPy's svd asks DGESDD for its workspace (LWORK = -1) before each real call.
        script = write("queries.py", """
            import numpy as np
            s = np.random.rand(120, 120)
            for _ in range(6):
                np.linalg.svd(s)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        gesdd = next(r for r in report["routines"] if r["routine"] == "dgesdd")
        self.assertEqual(gesdd["calls"], 12)
        self.assertEqual(gesdd["workspace_queries"], 6)
        calls = [c for c in report["calls"] if c["routine"] == "dgesdd"]
        self.assertEqual(sum(1 for c in calls if c.get("workspace_query")), 6)
        # A query scans nothing, and what it calls (DGESDD asks GEQRF and ORGQR for their sizes) are
        # queries too.
        for c in calls:
            self.assertEqual("values_checked" in c, not c.get("workspace_query"), c)
        queries = {c["id"] for c in calls if c.get("workspace_query")}
        inside = [c for c in report["calls"] if c.get("parent") in queries]
        self.assertTrue(all(c.get("workspace_query") for c in inside), inside[:3])
        self.assertIn("6 of 12 dgesdd", proc.err)
        # MEAN is the real calls' mean: their time over 6, not the total over 12.
        row = next(line for line in proc.err.splitlines() if line.strip().startswith("dgesdd")).split()
        units = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
        mean = float(row[8]) * units[row[9]]  # ROUTINE DTYPE CALLS TOTAL(2) SELF(2) SHARE MEAN(2)
        working = gesdd["seconds"] - gesdd["workspace_query_seconds"]
        self.assertAlmostEqual(mean / (working / 6), 1, delta=0.01)

    def test_svd_of_a_nan_matrix_is_the_dlascl_parameter_4_failure(self):
        script = write("svd.py", """
            import numpy as np
            a = np.random.rand(50, 40)
            a[3, 4] = np.nan
            try:
                np.linalg.svd(a)
            except np.linalg.LinAlgError as e:
                print("LinAlgError:", e)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("LinAlgError: SVD did not converge", proc.out)
        self.assertIn("dlascl-invalid-cfrom", ids(report))
        self.assertIn("non-finite-input", ids(report))
        gesdd = [c for c in report["calls"] if c["routine"] == "dgesdd" and c.get("input_nan")]
        self.assertEqual(gesdd[0]["input_nan"], 1)
        self.assertNotEqual(gesdd[0]["info"], 0)
        d = next(d for d in report["diagnoses"] if d["id"] == "dlascl-invalid-cfrom")
        self.assertEqual(d["call"], gesdd[0]["id"])
        capture = next(c for c in report["captures"] if c["call"] == gesdd[0]["id"])
        self.assertEqual(replay_ids(capture), ["dlascl-invalid-cfrom", "non-finite-input"])
        # The HTML report is a page of tables and sections, not the Markdown text in a <pre>.
        page = subprocess.run([CLI, "report", report_path(report), "--format", "html"], capture_output=True,
                              text=True, timeout=60).stdout
        self.assertIn("<th>ROUTINE</th>", page)
        self.assertIn("<td>dgesdd</td>", page)
        self.assertIn('<h3 class="error" id="d1">', page)
        self.assertIn(capture["workload"], page)
        self.assertNotIn("| --- |", page)
        markdown = subprocess.run([CLI, "report", report_path(report)], capture_output=True, text=True, timeout=60).stdout
        self.assertIn("## Captures and child processes", markdown)
        # --capture none writes nothing; a cap of 0 MiB says what it left out.
        proc, report = record(PYTHON, script, options=("--capture", "none"))
        self.assertEqual(report["captures"], [])
        self.assertIn("note: captures were off (--capture none)", proc.err)
        self.assertNotIn("not captured", proc.err)  # no reason to give for each failing call
        self.assertEqual(report["uncaptured"], {"not_replayable": {}, "finite_inputs": {}})
        proc, report = record(PYTHON, script, options=("--capture-limit", "0"))
        self.assertEqual(report["captures"], [])
        self.assertEqual(report["captures_skipped"], 1)
        self.assertIn("1 call to be captured was not: over the size or count cap", proc.err)

    def test_a_factorisation_failure_says_what_its_info_means(self):
        # DPOTRF and DGESV return INFO > 0 for a matrix, not for a convergence failure: NumPy's
        # own messages, and the diagnoses, must say the same thing.
        script = write("factor.py", """
            import numpy as np
            for name, f in (("cholesky", lambda: np.linalg.cholesky(-np.eye(3))),
                            ("inv", lambda: np.linalg.inv(np.zeros((3, 3))))):
                try:
                    f()
                except np.linalg.LinAlgError as e:
                    print(name, e)
        """)
        proc, report = record(PYTHON, script)
        self.assertIn("cholesky Matrix is not positive definite", proc.out)
        self.assertIn("inv Singular matrix", proc.out)
        titles = [d["title"] for d in report["diagnoses"] if d["id"] == "lapack-failed"]
        self.assertTrue(any("DPOTRF (N=3, LDA=3): returned INFO = 1: the leading minor of order 1 is not positive "
                            "definite" in t for t in titles), titles)
        self.assertTrue(any("DGESV" in t and "U(1,1) is exactly zero: the matrix is singular" in t for t in titles),
                        titles)
        causes = " ".join(d["cause"] for d in report["diagnoses"] if d["id"] == "lapack-failed")
        self.assertIn("POTRF (Cholesky)", causes)
        self.assertNotIn("did not converge", " ".join(titles))
        # Their finite inputs were not copied (only --capture all copies them): said, not left out silently.
        self.assertIn("failing calls not captured because their inputs were finite (only --capture all copies "
                      "those before every call): 1 dgesv, 1 dpotrf", proc.err)
        self.assertEqual(report["uncaptured"]["finite_inputs"], {"dgesv": 1, "dpotrf": 1})

    @unittest.skipUnless(has_module("scipy"), "python3-scipy is not installed (scripts/dev.sh installs it)")
    def test_an_error_inside_a_driver_is_told_in_the_drivers_terms(self):
        # SciPy's gesvd without U and V^T hands a NaN scale to DLASCL as CTO: the error the user
        # sees names DLASCL's parameter 5, which the program never passed.
        script = write("inner.py", """
            import numpy as np, scipy.linalg
            a = np.random.default_rng(2).random((6, 4)); a[1, 1] = np.nan
            try:
                scipy.linalg.svd(a, lapack_driver="gesvd", compute_uv=False, check_finite=False)
            except ValueError as e:
                print(e)
        """)
        proc, report = record(PYTHON, script)
        self.assertIn("On entry to DLASCL parameter number 5 had an illegal value", proc.out)
        d = next(d for d in report["diagnoses"] if d["id"] == "illegal-argument")
        gesvd = next(c for c in report["calls"] if c["id"] == d["call"])
        self.assertEqual(gesvd["routine"], "dgesvd")
        self.assertIn("(in DLASCL, called inside it)", d["title"])
        self.assertTrue(any("that parameter is CTO = nan" in e for e in d["evidence"]), d["evidence"])
        self.assertIn("5 CTO", d["cause"])
        self.assertNotIn("TRANSA", d["cause"])

    def test_a_silent_overflow_is_found_with_check_values(self):
        script = write("overflow.py", """
            import numpy as np
            a = np.full((16, 16), 1e200)
            c = a @ a.copy()        # finite inputs, every product overflows: all +Inf, no error anywhere
            print("finite", bool(np.isfinite(c).all()))
            s = a @ a.T             # a SYRK, which --check-values does not scan: said so
        """)
        proc, report = record(PYTHON, script, options=("--check-values",))
        self.assertIn("finite False", proc.out)
        self.assertIn("1 GEMV, SYRK or TRSM call was not checked", proc.err)
        gemm = next(c for c in report["calls"] if c["routine"] == "dgemm")
        self.assertEqual(gemm["output_inf"], 256)
        self.assertNotIn("input_inf", gemm)
        self.assertIn("non-finite-output", ids(report))
        # The silent failure is a failure: captured with its values, and the replay overflows too.
        capture = next(c for c in report["captures"] if c["call"] == gemm["id"])
        self.assertEqual(replay_ids(capture), ["non-finite-output"])
        # Without --check-values GEMM operands are not scanned (it would cost as much as a small GEMM).
        proc, report = record(PYTHON, script)
        self.assertNotIn("output_inf", next(c for c in report["calls"] if c["routine"] == "dgemm"))

    def test_check_values_reads_c_where_beta_is_not_zero_and_captures_it(self):
        # PyTorch's Linear passes its bias as C with beta = 1: a NaN bias is a NaN input, not an
        # overflow. C is not read where beta = 0, nor A and B where alpha = 0.
        script = write("bias.py", """
            import numpy as np, scipy.linalg.blas as blas
            a = np.asfortranarray(np.random.rand(4, 4)); b = np.asfortranarray(np.random.rand(4, 4))
            nan = lambda: np.asfortranarray(np.full((4, 4), np.nan))
            print(np.isfinite(blas.dgemm(1.0, a, b, beta=0.0, c=nan())).all(),
                  np.isfinite(blas.dgemm(0.0, nan(), b)).all(),
                  np.isnan(blas.dgemm(1.0, a, b, beta=1.0, c=nan())).sum(),
                  np.isnan(blas.zgemm(1.0, a, b, beta=1j, c=nan().astype(complex))).sum(), flush=True)  # beta = i
            import torch
            linear = torch.nn.Linear(16, 8)
            with torch.no_grad():
                linear.bias[3] = float("nan")
            print(int(torch.isnan(linear(torch.rand(32, 16))).sum()))
        """)
        proc, report = record(PYTHON, script, options=("--check-values",))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out.split(), ["True", "True", "16", "16", "32"])
        gemms = [c for c in report["calls"] if c["routine"] in ("dgemm", "zgemm", "sgemm") and not c.get("parent")]
        self.assertEqual([(c["routine"], c.get("input_nan", 0), c.get("output_nan", 0)) for c in gemms],
                         [("dgemm", 0, 0), ("dgemm", 0, 0), ("dgemm", 16, 16), ("zgemm", 16, 16), ("sgemm", 32, 32)],
                         gemms)
        told = json.dumps([(d["title"], d["evidence"]) for d in report["diagnoses"]])
        self.assertNotIn("overflow", told)
        self.assertIn("its NaN/Inf inputs gave 32 NaN", told)
        self.assertNotIn("every input was finite", told)
        # Both failing calls are captured with their C, and replay to the same findings.
        self.assertEqual(sorted(c["routine"] for c in report["captures"]), ["dgemm", "sgemm"], proc.err)
        for capture in report["captures"]:
            # Exactly: the operands' Fortran order is the call's own, not a layout finding.
            self.assertEqual(set(replay_ids(capture)), {"non-finite-input", "non-finite-output"})

    def test_the_value_scans_leave_the_programs_floating_point_flags_alone(self):
        # NumPy checks the CPU's "invalid" flag after LAPACK and GEMM calls: a scan that computed
        # Inf - Inf in the program's thread turned a det of an Inf matrix into an exception.
        script = write("fp_flags.py", """
            import warnings
            import numpy as np
            warnings.simplefilter("always")
            a = np.array([[4.0, 1.0], [1.0, np.inf]])
            with np.errstate(all="raise", under="ignore"):
                print("det", np.linalg.det(a), np.linalg.slogdet(a.astype(np.float32)), flush=True)
            big = np.full((16, 16), 1e20, dtype=np.float32)
            print("max", (big @ big).max(), np.linalg.det(a), flush=True)
        """)
        plain = subprocess.run([PYTHON, script], capture_output=True, text=True, timeout=120)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        for options in ((), ("--check-values",)):
            with self.subTest(options=options):
                proc, report = record(PYTHON, script, options=(*options, "--quiet"))
                self.assertEqual((proc.returncode, proc.out, proc.err), (0, plain.stdout, plain.stderr))
                self.assertIn("non-finite-input", ids(report))

    def test_a_child_started_with_an_environment_of_its_own_is_recorded_too(self):
        # subprocess with env= (vfork, then execve), os.posix_spawn with an empty environment,
        # `env -u LD_PRELOAD` (execvp of environ), a C program's execle with no environment at all
        # and its execl after clearenv(): each drops LD_PRELOAD and the buffer's name, which the
        # preload gives back.
        child = gemm_counter()
        execle = build_c("execle", f"""
            #include <stdlib.h>
            #include <unistd.h>
            int main(int argc, char** argv) {{
              char* empty[] = {{0}};
              if (argc > 1) {{  /* its own environment emptied, then execl */
                clearenv();
                execl("{PYTHON}", "{PYTHON}", "{child}", argv[1], (char*)0);
              }}
              execle("{PYTHON}", "{PYTHON}", "{child}", "2", (char*)0, empty);
              return 127;
            }}
        """)
        script = write("clean_env.py", f"""
            import os, subprocess
            subprocess.run(["{PYTHON}", "{child}", "7"], env={{"PATH": "/usr/bin:/bin"}}, check=True)
            pid = os.posix_spawn("{PYTHON}", ["{PYTHON}", "{child}", "5"], {{}})
            os.waitpid(pid, 0)
            subprocess.run(["env", "-u", "LD_PRELOAD", "{PYTHON}", "{child}", "3"], check=True)
            subprocess.run(["{execle}"], check=True)
            subprocess.run(["{execle}", "4"], check=True)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(sorted(child_gemm_counts(report)), [2, 3, 4, 5, 7], report["children"])

    def test_every_exec_and_spawn_wrapper_gives_the_environment_back(self):
        # The wrappers the test above does not reach, each with an empty environment: execvpe
        # (a PATH search), fexecve (a descriptor), posix_spawnp, and execv and execvp after
        # clearenv().
        child = gemm_counter()
        spawner = build_c("exec_ways", f"""
            #define _GNU_SOURCE
            #include <fcntl.h>
            #include <spawn.h>
            #include <stdlib.h>
            #include <string.h>
            #include <sys/wait.h>
            #include <unistd.h>
            extern char** environ;
            int main(int argc, char** argv) {{
              char* empty[] = {{0}};
              char* args[] = {{"python3", "{child}", argv[2], 0}};
              if (!strcmp(argv[1], "execvpe")) execvpe("python3", args, empty);
              if (!strcmp(argv[1], "fexecve")) fexecve(open("{PYTHON}", O_RDONLY | O_CLOEXEC), args, empty);
              if (!strcmp(argv[1], "execv")) {{ clearenv(); execv("{PYTHON}", args); }}
              if (!strcmp(argv[1], "execvp")) {{ clearenv(); execvp("{PYTHON}", args); }}
              if (!strcmp(argv[1], "posix_spawnp")) {{
                pid_t pid;
                int status = 0;
                if (posix_spawnp(&pid, "python3", 0, 0, args, empty) != 0) return 126;
                waitpid(pid, &status, 0);
                return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
              }}
              return 127;
            }}
        """)
        script = write("exec_ways.py", f"""
            import subprocess
            for way, count in (("execvpe", 2), ("fexecve", 3), ("execv", 4), ("execvp", 5), ("posix_spawnp", 6)):
                subprocess.run(["{spawner}", way, str(count)], check=True, env={{"PATH": "/usr/bin:/bin"}})
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(sorted(child_gemm_counts(report)), [2, 3, 4, 5, 6], report["children"])

    def test_an_exec_from_a_constructor_that_runs_before_the_preloads_is_recorded(self):
        # A library the program preloads after ours initialises first: its constructor's execve
        # (with an empty environment) reaches the wrapper before the wrapper's own constructor.
        child = gemm_counter()
        src = write("spawner.c", f"""
            #include <stdlib.h>
            #include <sys/wait.h>
            #include <unistd.h>
            __attribute__((constructor)) static void spawn(void) {{
              /* Not in the recorder, which LD_PRELOAD reaches too. */
              if (!getenv("SPAWN_ONCE") || !getenv("BLASSCOPE_RECORD_SHM")) return;
              unsetenv("SPAWN_ONCE");
              pid_t pid = fork();
              if (pid == 0) {{
                char* argv[] = {{"{PYTHON}", "{child}", "6", 0}};
                char* empty[] = {{0}};
                execve("{PYTHON}", argv, empty);
                _exit(127);
              }}
              int status = 0;
              waitpid(pid, &status, 0);
            }}
        """)
        lib = os.path.join(WORK, "libspawner.so")
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", lib, src], check=True)
        session = os.path.join(WORK, "spawner.json")
        # Through env(1), which replaces LD_PRELOAD: the recorder itself (ASan-instrumented in the
        # sanitize build, whose runtime must come first) is not given the library, and the
        # wrappers put ours back in front of it.
        proc = subprocess.run([CLI, "record", "--quiet", "--output", session, "--", "env", f"LD_PRELOAD={lib}",
                               "SPAWN_ONCE=1", PYTHON, child, "2"], capture_output=True, text=True, timeout=120,
                              cwd=WORK)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rep = subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True, timeout=60)
        report = json.loads(rep.stdout)
        # The program's 2 and its child's 6 (the session's totals hold its children's).
        self.assertEqual([(r["routine"], r["calls"]) for r in report["routines"]], [("dgemm", 8)])
        self.assertEqual(child_gemm_counts(report), [6], report["children"])

    def test_a_forked_child_is_recorded_too(self):
        script = write("fork.py", """
            import os
            import numpy as np
            a = np.random.rand(20, 20)
            pid = os.fork()
            if pid == 0:
                for _ in range(4):
                    a @ a.copy()
                os._exit(0)
            for _ in range(2):
                a @ a.copy()
            os.waitpid(pid, 0)
            os.system("true")  # a child that makes no BLAS call: listed, but no session of its own
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 6)
        self.assertGreaterEqual(len(report["processes"]), 3)  # the shell os.system starts, and true
        self.assertIn(f"note: {len(report['processes']) - 2} other process", proc.err)
        self.assertEqual(len({c["pid"] for c in report["calls"]}), 2)
        # The child has a session of its own, named by host and pid, listed in the parent's.
        self.assertEqual(len(report["children"]), 1)
        child = report["children"][0]
        self.assertIn(f"-{child['pid']}.json", child["session"])
        self.assertTrue(os.path.isabs(child["session"]), child["session"])  # readable from any folder
        rep = subprocess.run([CLI, "report", child["session"], "--format", "json"], capture_output=True, timeout=60)
        child_report = json.loads(rep.stdout)
        self.assertEqual(calls_of(child_report, "dgemm"), 4)
        self.assertEqual({c["pid"] for c in child_report["calls"]}, {child["pid"]})
        # A recording given to `run` is refused by name (it was read as an empty workload).
        run = subprocess.run([CLI, "run", child["session"]], capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertIn("a recording, not a workload: `blasscope-cli report", run.stderr)


    @unittest.skipIf(os.environ.get("BLASSCOPE_SANITIZED") == "1",
                     "ASan reserves terabytes of address space: a ulimit -v cannot be tested under it")
    def test_forked_workers_recorded_under_an_address_space_limit_keep_every_session(self):
        # A recorder under `ulimit -v` (a batch system's memory cap) with workers making 600,000
        # calls between them: their calls wait on disk for their sessions, not in its memory
        # (which ran out here: `error: record: std::bad_alloc`, no session at all).
        forker = build_c("forker", """
            #include <cblas.h>
            #include <sys/wait.h>
            #include <unistd.h>
            int main(void) {
              double a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4];
              for (int k = 0; k < 4; ++k) {
                if (fork() == 0) {
                  for (int i = 0; i < 150000; ++i)
                    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);
                  _exit(c[0] == 1 ? 0 : 1);
                }
              }
              int status, failed = 0;
              for (int k = 0; k < 4; ++k) failed |= wait(&status) < 0 || status != 0;
              return failed;
            }
        """, "-lopenblas")
        import resource
        limit = 300 << 20
        session = os.path.join(WORK, "limited.json")
        proc = subprocess.run([CLI, "record", "--output", session, "--", forker], capture_output=True, text=True,
                              timeout=300, cwd=WORK,
                              preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("not saved", proc.stderr)
        with open(session) as f:
            program = json.load(f)
        self.assertEqual(len(program["calls"]), 600000)
        self.assertEqual(len(program["children"]), 4)
        for child in program["children"]:
            with open(child["session"]) as f:
                calls = json.load(f)["calls"]
            self.assertEqual(len(calls), 150000, child["session"])
            self.assertEqual({c["pid"] for c in calls}, {child["pid"]})
            ids = [c["id"] for c in calls]
            self.assertEqual(ids, sorted(ids), "in the order they were made")

    def test_a_childs_failure_names_the_child(self):
        # Which process failed matters where several run the same code (a pool's workers): the
        # diagnosis says, and its pid is the child's, whose own session says it too, plainly.
        script = write("pool.py", """
            import multiprocessing as mp
            import numpy as np
            def work(i):
                a = np.random.rand(20, 20)
                if i == 1:
                    a[0, 0] = np.nan
                try:
                    np.linalg.svd(a)
                    return "ok"
                except np.linalg.LinAlgError as e:
                    return str(e)
            if __name__ == "__main__":
                np.linalg.svd(np.random.rand(5, 5))  # the program's own call, which does not fail
                with mp.get_context("fork").Pool(2) as pool:
                    print(pool.map(work, range(3)))
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("SVD did not converge", proc.out)
        d = next(d for d in report["diagnoses"] if d["id"] == "dlascl-invalid-cfrom")
        child = d["pid"]
        self.assertEqual(next(c for c in report["calls"] if c["id"] == d["call"])["pid"], child)
        self.assertNotEqual(child, report["pid"])
        self.assertTrue(d["title"].endswith(f"(in child process {child})"), d["title"])
        self.assertIn(f"(in child process {child})", proc.err)
        session = next(c["session"] for c in report["children"] if c["pid"] == child)
        own = json.loads(subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True,
                                        timeout=60).stdout)
        own_d = next(d for d in own["diagnoses"] if d["id"] == "dlascl-invalid-cfrom")
        self.assertNotIn("child process", own_d["title"])

    def test_a_terminated_childs_session_says_the_signal_that_ended_it(self):
        # A child ended by SIGTERM (Process.terminate(), as a Pool ends its workers): its own session
        # says so at its top, where a program's session says how the program ended, with no exit
        # status made up, as a request to stop and not a crash, and its status line says it once.
        if not kernel_tells_signals():
            self.skipTest("this kernel does not say how a reaped process ended (PIDFD_INFO_EXIT, Linux 6.15)")
        script = write("terminated.py", """
            import multiprocessing as mp, time
            import numpy as np
            def work(ready):
                np.linalg.svd(np.random.rand(8, 8))
                ready.set()
                time.sleep(120)
            if __name__ == "__main__":
                ctx = mp.get_context("fork")
                ready = ctx.Event()
                p = ctx.Process(target=work, args=(ready,))
                p.start()
                ready.wait(60)
                p.terminate()
                p.join()
                print(p.exitcode)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual((proc.returncode, proc.out.strip()), (0, "-15"), proc.err)
        [child] = report["children"]
        own = json.loads(subprocess.run([CLI, "report", child["session"], "--format", "json"], capture_output=True,
                                        timeout=60).stdout)
        process = own["processes"][0]
        self.assertEqual((process["ended"], process.get("signal"), process.get("exit_status")),
                         ("signal", "SIGTERM", None))
        self.assertEqual((own["signal"], own["exit_status"]), ("SIGTERM", None))
        self.assertEqual(own["crash"], {"signal": "SIGTERM", "call": None})
        self.assertNotIn("program-crashed", [d["id"] for d in own["diagnoses"]])
        self.assertIn("dgesdd", [c["routine"] for c in own["calls"]])  # its calls are its own
        text = subprocess.run([CLI, "report", child["session"], "--format", "md"], capture_output=True, text=True,
                              timeout=60).stdout
        status = next(line for line in text.splitlines() if "SIGTERM" in line)
        self.assertEqual(status.count("SIGTERM"), 1, text)

    def test_complex_svd_failures_are_captured_and_replay(self):
        # NumPy's svd of a complex NaN (ZGESDD: INFO = -4), SciPy's gesvd of a complex64 Inf (NaN
        # singular values, INFO = 0) and its gesdd without vectors: each captured with its complex
        # input and replayed to the same diagnoses. The shapes are ones where OpenBLAS's complex
        # SVDs read past the end of A and V^H: the replay's guard pages must not turn that into a
        # crash the program never had.
        script = write("complex_svd.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(0)
            a = rng.random((20, 12)) + 1j * rng.random((20, 12)); a[3, 4] = np.nan
            try:
                np.linalg.svd(a)
            except np.linalg.LinAlgError as e:
                print("numpy:", e)
            b = (rng.random((30, 9)) + 1j * rng.random((30, 9))).astype(np.complex64); b[0, 0] = np.inf
            print("gesvd finite:", bool(np.isfinite(sl.svd(b, lapack_driver="gesvd", check_finite=False)[1]).all()))
            c = rng.random((9, 30)) + 1j * rng.random((9, 30)); c[1, 1] = np.inf
            print("gesdd finite:", bool(np.isfinite(sl.svd(c, compute_uv=False, check_finite=False)).all()))
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out.splitlines(), ["numpy: SVD did not converge", "gesvd finite: False",
                                                 "gesdd finite: False"])
        captures = {c["routine"]: c for c in report["captures"]}
        self.assertEqual(len(report["captures"]), 3, proc.err)
        self.assertEqual(sorted(captures), ["cgesvd", "zgesdd"])
        self.assertEqual(report["uncaptured"]["not_replayable"], {})
        for capture in report["captures"]:
            with self.subTest(call=capture["call"], routine=capture["routine"]):
                tensor = os.path.join(os.path.dirname(capture["workload"]), "a.npy")
                self.assertEqual(np_dtype(tensor), "complex64" if capture["routine"] == "cgesvd" else "complex128")
                recorded = {d["id"] for d in report["diagnoses"] if capture["call"] in d.get("calls", [d.get("call")])}
                self.assertIn("non-finite-input", recorded)
                self.assertEqual(set(replay_ids(capture)), recorded)
        zgesdd_nan = min(c["call"] for c in report["captures"] if c["routine"] == "zgesdd")
        self.assertIn("dlascl-invalid-cfrom",
                      [d["id"] for d in report["diagnoses"] if zgesdd_nan in d.get("calls", [d.get("call")])])
        # Finite ones, captured under --capture all, replay as cleanly as they ran.
        finite = write("complex_svd_finite.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(1)
            for shape in ((6, 4), (30, 9), (9, 30)):
                a = rng.random(shape) + 1j * rng.random(shape)
                sl.svd(a, lapack_driver="gesvd", compute_uv=False)
                np.linalg.svd(a.astype(np.complex64))
        """)
        proc, report = record(PYTHON, finite, options=("--capture", "all"))
        self.assertEqual(proc.returncode, 0, proc.err)
        svds = [c for c in report["captures"] if c["routine"] in ("zgesvd", "zgesdd")]  # NumPy: complex128
        self.assertEqual(len(svds), 6, report["captures"])
        for capture in svds:
            with self.subTest(call=capture["call"], routine=capture["routine"]):
                replay = json.loads(subprocess.run([CLI, "run", capture["workload"], "--json"], capture_output=True,
                                                   timeout=120).stdout)
                self.assertEqual([op["status"] for op in replay["ops"]], ["ok"], replay["diagnoses"])

    def test_complex_eigen_and_solve_failures_are_captured_and_replay(self):
        # Hermitian eigen drivers (NumPy's ZHEEVD, SciPy's CHEEVD, ZHEEVR and ZHEEV) on a NaN,
        # and the LU path SciPy takes for lu_solve(trans=2): ZGETRF of a NaN, then ZGETRS with
        # TRANS 'C' on the NaN factors. Each is captured with its complex inputs and replays
        # to the diagnoses it had; ZGETRS's replay solves with A^H, as the program did.
        script = write("complex_eigen.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(1)
            x = rng.standard_normal((8, 8)) + 1j * rng.standard_normal((8, 8))
            h = x @ x.conj().T + 8 * np.eye(8)
            bad = h.copy(); bad[3, 2] = bad[2, 3] = np.nan
            for name, call in (("eigh", lambda: np.linalg.eigh(bad)),
                               ("evd64", lambda: sl.eigh(bad.astype(np.complex64), driver="evd", check_finite=False)),
                               ("evr", lambda: sl.eigh(bad, check_finite=False)),
                               ("ev", lambda: sl.eigh(bad, driver="ev", check_finite=False))):
                try:
                    w = call()
                    print(name, bool(np.isfinite(w[0] if isinstance(w, tuple) else w).all()))
                except np.linalg.LinAlgError:
                    print(name, "LinAlgError")
            x = sl.lu_solve(sl.lu_factor(bad, check_finite=False), h[:, 0], trans=2, check_finite=False)
            print("lu_solve", bool(np.isfinite(x).all()))
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        # ZHEEVR computes no eigenvalue and says INFO = 0: SciPy returns its zeros, finite.
        self.assertEqual(proc.out.split(), ["eigh", "LinAlgError", "evd64", "LinAlgError", "evr", "True", "ev",
                                            "LinAlgError", "lu_solve", "False"])
        routines = sorted(c["routine"] for c in report["captures"])
        self.assertEqual(routines, ["cheevd", "zgetrf", "zgetrs", "zheev", "zheevd", "zheevr"], proc.err)
        self.assertEqual(report["uncaptured"]["not_replayable"], {})
        for capture in report["captures"]:
            with self.subTest(call=capture["call"], routine=capture["routine"]):
                tensor = os.path.join(os.path.dirname(capture["workload"]), "a.npy")
                self.assertEqual(np_dtype(tensor), "complex64" if capture["routine"] == "cheevd" else "complex128")
                recorded = {d["id"] for d in report["diagnoses"] if capture["call"] in d.get("calls", [d.get("call")])}
                self.assertIn("non-finite-input", recorded)
                self.assertEqual(set(replay_ids(capture)), recorded)
        getrs = next(c for c in report["captures"] if c["routine"] == "zgetrs")
        with open(getrs["workload"]) as f:
            self.assertEqual(json.load(f)["ops"][0]["trans"], "C")

    def test_complex_least_squares_failures_are_captured_and_replay(self):
        # SciPy's three lstsq drivers and NumPy's on a complex NaN, 30 x 9: ZGELSD's DLASCL
        # refusal, ZGELSY's silent NaN result, ZGELSS's INFO > 0. The replays run the complex
        # drivers on the captured complex A and B (with room after them: ZGELSS and ZGELSD
        # reduce A with the complex GEMVs that read past its end) to the recorded diagnoses.
        script = write("complex_lstsq.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(2)
            a = rng.standard_normal((30, 9)) + 1j * rng.standard_normal((30, 9))
            b = rng.standard_normal((30, 2)) + 1j * rng.standard_normal((30, 2))
            a[0, 0] = np.nan
            for driver in ("gelsd", "gelsy", "gelss"):
                try:
                    print(driver, bool(np.isfinite(sl.lstsq(a, b, lapack_driver=driver, check_finite=False)[0]).all()))
                except (ValueError, np.linalg.LinAlgError) as e:
                    print(driver, type(e).__name__)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out.split(), ["gelsd", "ValueError", "gelsy", "False", "gelss", "LinAlgError"])
        self.assertEqual(sorted(c["routine"] for c in report["captures"]), ["zgelsd", "zgelss", "zgelsy"], proc.err)
        self.assertEqual(report["uncaptured"]["not_replayable"], {})
        for capture in report["captures"]:
            with self.subTest(call=capture["call"], routine=capture["routine"]):
                folder = os.path.dirname(capture["workload"])
                self.assertEqual([np_dtype(os.path.join(folder, f)) for f in ("a.npy", "b.npy")],
                                 ["complex128", "complex128"])
                recorded = {d["id"] for d in report["diagnoses"] if capture["call"] in d.get("calls", [d.get("call")])}
                self.assertEqual(set(replay_ids(capture)), recorded)

    def test_children_that_crash_at_once_are_named_by_their_signal(self):
        # A child that crashes a moment after its fork, reaped by its parent at once: the recorder
        # holds a pidfd on it before it can go on (else its thread, waiting for a core, lost the
        # race to the parent's waitpid in about one run in ten, and which signal ended the child
        # was not known). Twenty such children, each named.
        if not kernel_tells_signals():
            self.skipTest("this kernel does not say how a reaped process ended (PIDFD_INFO_EXIT, Linux 6.15)")
        exe = build_c("crash_at_once", """
            #include <cblas.h>
            #include <stdlib.h>
            #include <sys/wait.h>
            #include <unistd.h>
            int main(void) {
              double a = 1, c = 0;
              int aborted = 0;
              for (int i = 0; i < 20; ++i) {
                const pid_t pid = fork();
                if (pid == 0) {
                  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &a, 1, 0.0, &c, 1);
                  abort();
                }
                int status = 0;
                waitpid(pid, &status, 0);
                aborted += WIFSIGNALED(status) && WTERMSIG(status) == 6;
              }
              return aborted == 20 ? 0 : 1;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        children = [p for p in report["processes"] if p["pid"] != report["pid"]]
        self.assertEqual(len(children), 20, report["processes"])
        self.assertEqual([(p["ended"], p.get("signal")) for p in children], [("signal", "SIGABRT")] * 20)
        crashed = [d for d in report["diagnoses"] if d["id"] == "program-crashed"]
        self.assertEqual(len(crashed), 20, [d["title"] for d in report["diagnoses"]])

    def test_how_each_child_ended_is_said(self):
        # A worker that raises (multiprocessing exits it with 1), one that calls os._exit(3), one
        # killed by a signal outside any call, and a C program that returns from main.
        exe = build_c("returns", """
            #include <cblas.h>
            #include <stdlib.h>
            int main(int argc, char** argv) {
              double a[4] = {1, 2, 3, 4}, c[4];
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, a, 2, 0.0, c, 2);
              if (argc > 1) {  /* exit(0), then a crash in an exit handler: not a clean exit */
                atexit(abort);
                exit(0);
              }
              return 5;
            }
        """, "-lopenblas")
        script = write("ends.py", f"""
            import multiprocessing as mp, os, signal, subprocess
            import numpy as np
            def raises():
                np.ones((8, 8)) @ np.ones((8, 8))
                raise RuntimeError("worker failed")
            def exits():
                np.ones((8, 8)) @ np.ones((8, 8))
                os._exit(3)
            def killed():
                np.ones((8, 8)) @ np.ones((8, 8))
                os.kill(os.getpid(), signal.SIGKILL)
            if __name__ == "__main__":
                mp.set_start_method("fork")
                for target in (raises, exits, killed):
                    p = mp.Process(target=target); p.start(); p.join()
                    print(target.__name__, p.exitcode, flush=True)
                print("C", subprocess.run(["{exe}"]).returncode)
                print("C-abort", subprocess.run(["{exe}", "abort"]).returncode)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out.split(), ["raises", "1", "exits", "3", "killed", "-9", "C", "5", "C-abort", "-6"])
        ended = sorted((p["ended"], p.get("exit_status", -1)) for p in report["processes"] if p["pid"] != report["pid"])
        # The C program's main returned 5: its status is seen too (main is wrapped, libc's exit is not).
        self.assertEqual(ended, [("exit", 1), ("exit", 3), ("exit", 5), ("signal", -1), ("signal", -1)],
                         report["processes"])
        # Which signal, where the kernel tells a process that is not the parent (Linux 6.15).
        told = kernel_tells_signals()
        if not told:
            print("\n  (this kernel does not say which signal ended a process: the signals are not named)")
        signals = sorted(p.get("signal", "") for p in report["processes"] if p["ended"] == "signal")
        self.assertEqual(signals, ["SIGABRT", "SIGKILL"] if told else ["", ""], report["processes"])
        self.assertRegex(proc.err, r"child: pid \d+ \(.*returns abort\), called exit\(0\) or returned 0 from main, "
                                   r"then " + ("crashed: SIGABRT, in" if told else "ended by a signal in") +
                                   " its exit handlers")
        c_program = next(p for p in report["processes"] if p["command"].endswith("returns"))
        self.assertEqual((c_program["ended"], c_program["exit_status"]), ("exit", 5))
        # Each child's session and the summary say it too.
        by_status = {}
        for child in report["children"]:
            rep = subprocess.run([CLI, "report", child["session"], "--format", "json"], capture_output=True, timeout=60)
            by_status[json.loads(rep.stdout)["exit_status"]] = child
        self.assertEqual(sorted(k for k in by_status if k is not None), [1, 3, 5])
        self.assertIn(None, by_status)  # not known: null, never a made-up number
        self.assertRegex(proc.err, r"child: pid \d+ \(.*\), exit status 3 -> ")
        self.assertRegex(proc.err, r"child: pid \d+ \(.*\), killed by SIGKILL" if told else
                         r"child: pid \d+ \(.*\), gone without exiting: a signal")
        self.assertRegex(proc.err, r"child: pid \d+ \(.*returns\), exit status 5 -> ")
        # The parent's diagnoses name the children that died by a signal outside every call: the
        # abort in an exit handler an error, the SIGKILL (a kill -9, the OOM killer) a warning.
        crashed = sorted((d["severity"], d["title"].split(" died with ")[1].split()[0])
                         for d in report["diagnoses"] if d["id"] == "program-crashed")
        self.assertEqual(crashed, [("error", "SIGABRT"), ("warning", "SIGKILL")] if told else [], report["diagnoses"])
        if told:  # a kill comes from outside: no guess at where a crash was, and the kill's causes
            kill = next(d for d in report["diagnoses"] if d["id"] == "program-crashed" and "SIGKILL" in d["title"])
            self.assertNotIn("crashed in the program", " ".join(kill["evidence"]), kill)
            self.assertIn("out-of-memory killer", kill["cause"])

    def test_a_child_interpreter_that_raised_has_its_exit_status(self):
        # Python returns 1 from main after an uncaught exception: the status a failed step of a
        # script ends with, told apart from a step that succeeded.
        script = write("steps.sh", f"""
            {PYTHON} -c "import numpy as np; np.linalg.cholesky(-np.eye(4))" 2>/dev/null
            echo "failed step $?"
            {PYTHON} -c "import numpy as np; np.ones((3, 3)) @ np.ones((3, 3))"
            echo "good step $?"
        """)
        proc, report = record("/bin/sh", script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out.split(), ["failed", "step", "1", "good", "step", "0"])
        steps = {p["command"].split("; ")[-1]: p for p in report["processes"] if "np." in p["command"]}
        self.assertEqual(len(steps), 2, report["processes"])
        by_step = {("cholesky" in k): (p["ended"], p.get("exit_status")) for k, p in steps.items()}
        self.assertEqual(by_step, {True: ("exit", 1), False: ("exit", 0)})
        self.assertRegex(proc.err, r"child: pid \d+ \(.*cholesky.*\), exit status 1 -> ")

    def test_a_main_that_never_returns_ends_as_returned_without_a_status(self):
        # pthread_exit from main: the last thread's end runs the exit handlers with no exit() and
        # no return from main, so no status is seen, and none is made up. One OpenBLAS thread: its
        # pool's threads never end, and the process would wait for them.
        exe = build_c("pthread_main", """
            #include <cblas.h>
            #include <pthread.h>
            int main(void) {
              double a[4] = {1, 2, 3, 4}, c[4];
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, a, 2, 0.0, c, 2);
              pthread_exit(0);
            }
        """, "-lopenblas", "-pthread")
        proc, report = record("/bin/sh", "-c", f"OPENBLAS_NUM_THREADS=1 {exe}; echo rc=$?", timeout=60)
        self.assertEqual(proc.out.strip(), "rc=0", proc.err)
        child = next(p for p in report["processes"] if p["command"].endswith("pthread_main"))
        self.assertEqual(child["ended"], "returned", report["processes"])
        self.assertNotIn("exit_status", child)
        self.assertRegex(proc.err, r"child: pid \d+ \(.*pthread_main\), ended after its exit handlers ran")

    def test_children_ended_by_the_timeout_are_stopped_not_still_running(self):
        # A pool whose first task hangs in LAPACK (SciPy's lstsq of an Inf never returns) and
        # whose other worker waits: --timeout stops the program and its workers, and every
        # session says the recorder stopped them, with no exit status made up for the workers.
        script = write("pool_hangs.py", """
            import multiprocessing as mp
            import numpy as np, scipy.linalg
            def work(i):
                np.ones((64, 64)) @ np.ones((64, 64))
                if i == 0:
                    a = np.random.rand(30, 9); a[0, 0] = np.inf
                    scipy.linalg.lstsq(a, np.ones(30), check_finite=False)
                return i
            if __name__ == "__main__":
                with mp.get_context("fork").Pool(2) as pool:
                    print(pool.map(work, range(2)))
        """)
        proc, report = record(PYTHON, script, options=["--timeout", "5"])
        self.assertEqual(proc.returncode, 124, proc.err)
        workers = [p for p in report["processes"] if p["pid"] != report["pid"]]
        self.assertEqual(len(workers), 2, report["processes"])
        # The idle worker may see its parent's pipe close and exit by itself (status 0) before the
        # recorder's SIGTERM reaches it: then its own end is said. The others were stopped.
        own = next(p for p in report["processes"] if p["pid"] == report["pid"])
        self.assertEqual(own["ended"], "stopped")
        for p in workers:
            self.assertIn((p["ended"], p.get("exit_status")), {("stopped", None), ("exit", 0)}, report["processes"])
        self.assertNotIn("still running when the program ended", proc.err)
        stopped = [p for p in workers if p["ended"] == "stopped"]
        self.assertEqual(len(re.findall(r"child: pid \d+ \(.*\), stopped by the recorder with the program", proc.err)),
                         len(stopped), proc.err)
        # Which signal ended each: the kernel says so of a worker left a zombie (its parent went
        # first), and of one reaped since (Linux 6.15).
        told = kernel_tells_signals()
        if told:
            for p in stopped:
                self.assertIn(p.get("signal"), ("SIGTERM", "SIGKILL"), report["processes"])
            self.assertEqual(len(re.findall(r"child: pid \d+ \(.*\), stopped by the recorder with the program "
                                            r"\(.*\); SIG(TERM|KILL) ended it", proc.err)), len(stopped), proc.err)
        else:
            print("\n  (this kernel does not say which signal ended a reaped process: not checked)")
        hung = []
        for child in report["children"]:
            rep = subprocess.run([CLI, "report", child["session"], "--format", "json"], capture_output=True, timeout=60)
            child_report = json.loads(rep.stdout)
            ended = child_report["processes"][0]["ended"]
            self.assertEqual(child_report["exit_status"], None if ended == "stopped" else 0)
            if told and ended == "stopped":
                self.assertIn(child_report["signal"], ("SIGTERM", "SIGKILL"), child_report["processes"])
                md = subprocess.run([CLI, "report", child["session"], "--format", "md"], capture_output=True,
                                    text=True, timeout=60).stdout
                self.assertRegex(md, r"stopped by the recorder with the program at --timeout \(5 s\): "
                                     r"SIG(TERM|KILL) ended it \(a child process\)")
            ids = [d["id"] for d in child_report["diagnoses"]]
            self.assertNotIn("program-crashed", ids, "stopped, not crashed")
            if "kernel-hang" in ids:
                hung.append(child_report)
        self.assertEqual(len(hung), 1, "the worker inside the lstsq, in its own session")
        hang = next(d for d in hung[0]["diagnoses"] if d["id"] == "kernel-hang")
        self.assertIn("GELSD", hang["title"])
        self.assertIn("kernel-hang", [d["id"] for d in report["diagnoses"]])

    def test_a_program_that_loads_blas_but_calls_nothing_recorded_says_so(self):
        script = write("dot_only.py", """
            import numpy as np
            print(np.dot(np.ones(5), np.ones(5)))   # DDOT: not a routine BLAScope records
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.out.strip(), "5.0")
        self.assertEqual(report["calls"], [])
        own = next(p for p in report["processes"] if p["pid"] == report["pid"])
        self.assertEqual((own["blas_found"], own.get("blas_loaded")), (False, True))

    def test_the_commands_the_summary_suggests_can_be_pasted_into_a_shell(self):
        # A folder with a space and a child given an argument with a space: every path and command
        # the summary prints reads back through a shell as what it names.
        folder = os.path.join(WORK, "odd dir 'quoted'")
        os.makedirs(folder, exist_ok=True)
        script = os.path.join(WORK, "child_args.py")
        with open(script, "w") as f:
            f.write(textwrap.dedent("""
                import subprocess, sys
                subprocess.run([sys.executable, "-c", "import numpy as n; n.linalg.svd(n.full((3, 3), n.nan))", "a b"])
            """))
        session = os.path.join(folder, "s.json")
        proc = subprocess.run([CLI, "record", "--output", session, "--", PYTHON, script], capture_output=True,
                              text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stderr.splitlines()
        child = next(line for line in lines if line.startswith("child: "))
        self.assertIn("'a b'", child)
        session_line = next(line for line in lines if line.startswith("session: "))
        suggested = shlex.split(session_line.split("(", 1)[1].rstrip(")"))
        self.assertEqual(suggested, ["blasscope-cli", "report", session])
        [child_session] = shlex.split(child.rsplit(" -> ", 1)[1])
        self.assertTrue(child_session.startswith(folder), child)
        capture = next(line for line in lines if line.startswith("capture: "))
        suggested = shlex.split(capture.split(" -> ", 1)[1])
        self.assertEqual(suggested[:2], ["blasscope-cli", "run"])
        self.assertTrue(os.path.exists(suggested[2]), capture)

    def test_a_forked_child_that_execs_is_named_by_both_commands(self):
        # Its BLAS calls were made as the forked Python, before the exec: both are said.
        script = write("fork_exec.py", """
            import os, numpy as np
            a = np.random.rand(4, 4)
            pid = os.fork()
            if pid == 0:
                np.linalg.inv(a)
                os.execv("/bin/true", ["true", "after-exec"])
            os.waitpid(pid, 0)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        child = next(p for p in report["processes"] if p["pid"] != report["pid"])
        self.assertRegex(child["command"], r"fork_exec\.py, then exec'd true after-exec$")
        self.assertIn("then exec'd true after-exec", proc.err)
        # Commands too long for a line of the summary: each is cut, the exec'd one still shown
        # (the children a shell starts differ only there).
        proc, report = record(PYTHON, script, "x" * 120)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertRegex(proc.err, r"child: pid \d+ \([^)]{10,40}…, then exec'd true after-exec\)")

    def test_a_child_sessions_command_flops_and_time_are_its_own(self):
        # A child started with a long command line (a spawn-style worker), whose arguments hold
        # spaces: its session has its own argv whole, its GEMMs' FLOPs and the time it ran.
        child_code = "import sys, time, numpy as np; a = np.random.rand(50, 50); " + \
            "[a @ a for _ in range(20)]; time.sleep(0.4)  # " + "x" * 120
        script = write("spawner.py", f"""
            import subprocess, sys, time
            subprocess.run([sys.executable, "-c", {child_code!r}, "an argument with spaces"], check=True)
            time.sleep(0.6)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        child = report["children"][0]
        with open(child["session"]) as f:
            session = json.load(f)
        self.assertEqual(session["command"], [PYTHON, "-c", child_code, "an argument with spaces"])
        listed = next(p for p in report["processes"] if p["pid"] == child["pid"])
        self.assertIn("an argument with spaces", listed["command"])
        dgemm = next(r for r in session["routines"] if r["routine"] == "dgemm")
        self.assertAlmostEqual(dgemm["gflop"], 20 * 2 * 50 ** 3 * 1e-9)
        # It ran about 0.4 s (and its start-up), inside the program's 1 s and more.
        self.assertGreater(session["wall_seconds"], 0.35)
        self.assertLess(session["wall_seconds"], report["wall_seconds"] - 0.4)

    def test_the_peak_is_that_of_the_threads_the_programs_openblas_uses(self):
        # A program that sets OPENBLAS_NUM_THREADS=1 before NumPy loads OpenBLAS can reach one
        # core's peak, not the machine's: its session says the threads and scales the peak.
        sessions = {}
        for threads in ("1", None):
            script = write(f"threads_{threads}.py", f"""
                import os
                os.environ.pop("OPENBLAS_NUM_THREADS", None)
                if {threads!r}: os.environ["OPENBLAS_NUM_THREADS"] = {threads!r}
                import ctypes, numpy as np
                a = np.ones((64, 64)); a @ a
                print(ctypes.CDLL("libopenblas.so.0").openblas_get_num_threads())
            """)
            proc, report = record(PYTHON, script)
            self.assertEqual(proc.returncode, 0, proc.err)
            with open(report_path(report)) as f:
                sessions[threads] = (json.load(f), int(proc.out.split()[-1]), proc.err)
        one, default = sessions["1"], sessions[None]
        self.assertEqual(one[1], 1)
        for session, used, err in (one, default):
            self.assertEqual(session["machine"]["openblas_threads"], used)
            self.assertEqual(session["processes"][0]["openblas_threads"], used)
            self.assertIn(", %d thread%s (" % (used, "" if used == 1 else "s"), err)
        # Both peaks come from the same machine: in the ratio of the threads each could use.
        cpus = os.cpu_count()  # the peak is counted over every online CPU
        expected = 1 / min(default[1], cpus)
        ratio = one[0]["machine"]["peak_gflops_fp64"] / default[0]["machine"]["peak_gflops_fp64"]
        self.assertAlmostEqual(ratio, expected, delta=0.1 * expected)

    def test_the_kernels_named_are_those_of_the_programs_own_blas(self):
        # The program's OpenBLAS says which kernels it runs, from inside the program: the same
        # name openblas_get_corename gives it there, and the library it came from.
        script = write("which_blas.py", """
            import ctypes, ctypes.util, numpy as np
            a = np.ones((4, 4)); a @ a
            openblas = ctypes.CDLL("libopenblas.so.0")
            openblas.openblas_get_corename.restype = openblas.openblas_get_config.restype = ctypes.c_char_p
            print(openblas.openblas_get_corename().decode())
            print(openblas.openblas_get_config().decode())
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        corename, config = proc.out.splitlines()
        with open(report_path(report)) as f:
            session = json.load(f)
        machine = session["machine"]
        self.assertEqual(machine["openblas_corename"], corename)
        # The process keeps what the mismatch was judged from: its config and OPENBLAS_CORETYPE.
        process = session["processes"][0]
        self.assertEqual(process["openblas_config"], config)
        self.assertEqual(process.get("openblas_coretype", ""), os.environ.get("OPENBLAS_CORETYPE", ""))
        self.assertIn("libblas.so.3", machine["blas_library"])
        self.assertIn("OpenBLAS kernels: " + corename + ", ", proc.err)
        # Another BLAS (Debian's reference BLAS and LAPACK, chosen by LD_LIBRARY_PATH): no
        # OpenBLAS kernels to name, so no kernel mismatch either, whatever the recorder's own is.
        reference = "/usr/lib/x86_64-linux-gnu/blas"
        if not os.path.exists(os.path.join(reference, "libblas.so.3")):
            self.skipTest("Debian's reference BLAS (libblas3) is not installed")
        env = dict(os.environ, LD_LIBRARY_PATH=reference + ":/usr/lib/x86_64-linux-gnu/lapack")
        session = os.path.join(WORK, "reference_blas.json")
        ran = subprocess.run([CLI, "record", "--output", session, "--", PYTHON, "-c",
                              "import numpy as np; a = np.ones((4, 4)); a @ a; np.linalg.svd(a)"],
                             capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(ran.returncode, 0, ran.stderr)
        with open(session) as f:
            recorded = json.load(f)
        self.assertEqual(recorded["machine"]["openblas_corename"], "")
        self.assertTrue(recorded["machine"]["blas_library"].startswith(reference), recorded["machine"])
        self.assertIn("not identified as OpenBLAS", ran.stderr)
        self.assertEqual(recorded["machine"]["kernel_mismatch"], "")
        self.assertGreater(sum(r["calls"] for r in recorded["routines"]), 0)

    def test_a_blas_at_a_path_too_long_for_the_session_is_named_by_its_end(self):
        # The session's field holds 251 characters: a longer path keeps its end, which names
        # the library, after "...".
        reference = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"
        if not os.path.exists(reference):
            self.skipTest("Debian's reference BLAS (libblas3) is not installed")
        deep = os.path.join(WORK, "blas-folders", *(["a-rather-long-folder-name-" + "x" * 30] * 5))
        os.makedirs(deep, exist_ok=True)
        shutil.copy(reference, os.path.join(deep, "libblas.so.3"))
        env = dict(os.environ, LD_LIBRARY_PATH=deep + ":/usr/lib/x86_64-linux-gnu/lapack")
        session = os.path.join(WORK, "long_blas.json")
        ran = subprocess.run([CLI, "record", "--output", session, "--", PYTHON, "-c",
                              "import numpy as np; a = np.ones((4, 4)); a @ a"],
                             capture_output=True, text=True, env=env, timeout=120, cwd=WORK)
        shutil.rmtree(os.path.join(WORK, "blas-folders"))
        self.assertEqual(ran.returncode, 0, ran.stderr)
        with open(session) as f:
            named = json.load(f)["machine"]["blas_library"]
        self.assertGreater(len(os.path.join(deep, "libblas.so.3")), 251)
        self.assertTrue(named.startswith("...") and named.endswith("-" + "x" * 30 + "/libblas.so.3"), named)
        self.assertEqual(len(named), 251)
        self.assertIn("BLAS: " + named, ran.stderr)

    def test_a_short_childs_wall_time_is_from_its_start_to_its_exit(self):
        # The recorder looks at the processes only now and then (up to 0.2 s apart while the
        # program is quiet): a child's time comes from its own start and end, not those looks.
        # A C child of 40 ms times itself from main to exit: its session's time is at least
        # that, and at most what its parent timed around it.
        child = build_c("timed_child", r"""
            #include <cblas.h>
            #include <stdio.h>
            #include <time.h>
            int main(void) {
              struct timespec a, b, pause = {0, 40000000};
              clock_gettime(CLOCK_MONOTONIC, &a);
              double x = 1, y = 1, z = 0;
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &x, 1, &y, 1, 0.0, &z, 1);
              nanosleep(&pause, NULL);
              clock_gettime(CLOCK_MONOTONIC, &b);
              printf("%.6f\n", (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
              return z == 1 ? 0 : 1;
            }
        """, "-lopenblas")
        script = write("short_child.py", f"""
            import subprocess, time
            time.sleep(0.3)
            for _ in range(3):
                start = time.monotonic()
                own = subprocess.run([{child!r}], check=True, capture_output=True, text=True).stdout
                print(own.strip(), time.monotonic() - start)
                time.sleep(0.3)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        timed = [tuple(float(x) for x in line.split()) for line in proc.out.splitlines()]
        walls = []
        for c in report["children"]:
            with open(c["session"]) as f:
                walls.append(json.load(f)["wall_seconds"])
        self.assertEqual(len(walls), 3, report["children"])
        for wall in walls:  # the three ran alike: each within the least timed inside, the most around
            self.assertGreaterEqual(wall, min(own for own, _ in timed))
            self.assertLessEqual(wall, max(around for _, around in timed) + 0.005)

def top_call_of(call, by_id):
    while call.get("parent") in by_id:
        call = by_id[call["parent"]]
    return call


class RecordNestedCalls(unittest.TestCase):
    """LAPACK's own calls past the first N inside each call are counted, not listed."""

    SVDS = """
        import numpy as np
        s = np.random.rand(200, 200)
        for _ in range(3):
            np.linalg.svd(s)
        np.linalg.svd(np.random.rand(800, 800))
    """

    def check_totals_add_up(self, report, killed=False):
        # A program killed (--timeout's SIGTERM) while its thread wrote a finished call's record into
        # the ring loses that one record (seen once on a loaded VM): counted as not kept, never wrong.
        lost = report["calls_not_kept"]
        self.assertLessEqual(lost, 1 if killed else 0)
        self.assertEqual(sum(r["calls"] for r in report["routines"]), report["calls_total"])
        self.assertIn(report["calls_total"] - len(report["calls"]) - report["calls_unlisted"], {0, lost})
        self.assertEqual(sum(c.get("unlisted", 0) for c in report["calls"] + report["running"]),
                         report["calls_unlisted"])

    def test_calls_past_the_limit_are_counted_in_the_totals_and_in_their_caller(self):
        proc, report = record(PYTHON, write("svds.py", self.SVDS))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(report["nested_limit"], 64)
        self.assertGreater(report["calls_unlisted"], 3 * 1000)  # a 200x200 DGESDD makes about 2,000
        self.check_totals_add_up(report)
        by_id = {c["id"]: c for c in report["calls"]}
        drivers = [c for c in report["calls"] if c["routine"] == "dgesdd" and not c.get("workspace_query")]
        self.assertEqual(len(drivers), 4)
        self.assertTrue(all(c.get("unlisted", 0) > 1000 for c in drivers), [c.get("unlisted") for c in drivers])
        long_past_the_limit = 0
        for c in report["calls"]:
            if "parent" not in c:
                continue
            top = top_call_of(c, by_id)
            # Ids are handed out in the order calls start, one thread here: the id's distance from
            # its top-level call's is the order it was made in.
            if c["id"] - top["id"] <= 64:
                continue
            made_listed = any(o.get("parent") == c["id"] for o in report["calls"])
            self.assertTrue(c["seconds"] >= 99e-6 or made_listed, c)
            long_past_the_limit += 1
        self.assertGreater(long_past_the_limit, 0, "the 800x800 SVD's long GEMMs are listed whenever they come")
        self.assertIn("not listed one by one", proc.err)
        # DGESDD's GEQRF calls only size its workspace: no work to average, no MEAN.
        row = next(line for line in proc.err.splitlines() if line.strip().startswith("dgeqrf"))
        self.assertEqual(re.split(r"\s{2,}", row.strip())[6], "-", row)
        md = subprocess.run([CLI, "report", report_path(report), "--format", "md"], capture_output=True, timeout=60)
        self.assertIn(f"{report['calls_unlisted']} calls made inside other calls", md.stdout.decode())

    def test_calls_stopped_by_the_timeout_while_waiting_for_the_ring_are_accounted_for(self):
        # Four threads making tiny calls as fast as they can, stopped by --timeout: a thread may
        # be waiting for room in the ring with a call that has finished and been counted. Every
        # call counted is listed, counted inside a listed one, or said not to be kept.
        exe = build_c("fast_threads", """
            #include <cblas.h>
            #include <pthread.h>
            static void* work(void* arg) {
              double a = 1, b = 1, c = 0;
              for (;;) cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
              return arg;
            }
            int main(void) {
              pthread_t t[4];
              for (int i = 0; i < 4; ++i) pthread_create(&t[i], 0, work, 0);
              for (int i = 0; i < 4; ++i) pthread_join(t[i], 0);
              return 0;
            }
        """, "-lopenblas", "-lpthread")
        for _ in range(3):
            proc, report = record(exe, options=("--timeout", "1", "--max-calls", "1000"))
            self.assertEqual(proc.returncode, 124, proc.err)
            self.assertGreater(report["calls_total"], 1000)
            self.assertEqual(report["calls_total"],
                             len(report["calls"]) + report["calls_not_kept"] + report["calls_unlisted"], proc.err)

    def test_calls_made_inside_a_call_stopped_by_the_timeout_are_counted(self):
        script = write("svd_stopped.py", """
            import numpy as np
            np.linalg.svd(np.random.rand(2500, 2500))
        """)
        # 2.5 s: Python's start and the random matrix took over 0.7 s on a loaded 2-core CI VM; the
        # SVD of 2500 x 2500 runs for 10 s or more there.
        proc, report = record(PYTHON, script, options=["--timeout", "2.5"])
        self.assertEqual(proc.returncode, 124, proc.err)
        self.assertEqual([c["routine"] for c in report["running"]][:1], ["dgesdd"])
        svd = report["running"][0]
        if svd.get("unlisted", 0) == 0:
            # A loaded machine (CI's sanitizer run) can make every GEMV of 2500 run 100 us or more:
            # then each is listed, with the calls it is inside of, and none is left to count.
            inside = sorted((c for c in report["calls"] if c.get("parent") == svd["id"]), key=lambda c: c["start"])
            self.assertGreater(len(inside), 64, "past the first 64, a call is listed only for a reason")
            for c in inside[64:]:
                self.assertTrue(c["seconds"] >= 99e-6 or any(o.get("parent") == c["id"] for o in report["calls"]), c)
        self.check_totals_add_up(report, killed=True)  # the finished calls made inside it, listed or counted

    def test_nested_calls_all_lists_every_call(self):
        proc, report = record(PYTHON, write("svds_all.py", self.SVDS), options=["--nested-calls", "all"])
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIsNone(report["nested_limit"])
        self.assertEqual(report["calls_unlisted"], 0)
        self.check_totals_add_up(report)
        self.assertGreater(calls_of(report, "dgemv"), 4 * 1000)
        self.assertEqual(len([c for c in report["calls"] if c["routine"] == "dgemv"]), calls_of(report, "dgemv"))
        self.assertNotIn("not listed one by one", proc.err)

    @unittest.skipUnless(has_module("scipy"), "python3-scipy is not installed (scripts/dev.sh installs it)")
    def test_with_none_listed_a_failing_call_inside_is_still_listed_with_its_callers(self):
        script = write("lstsq_nan_nested.py", LSTSQ_OF_A_NAN)
        proc, report = record(PYTHON, script, options=["--nested-calls", "0"])
        self.assertIn("DLASCL parameter number 4", proc.out)
        self.assertEqual(report["nested_limit"], 0)
        self.check_totals_add_up(report)
        lascl = [c for c in report["calls"] if c["routine"] == "dlascl" and c.get("xerbla")]
        self.assertTrue(lascl)
        parent = next(c for c in report["calls"] if c["id"] == lascl[0]["parent"])
        self.assertEqual(parent["routine"], "dgelsd")
        self.assertIn("dlascl-invalid-cfrom", ids(report))
        # Nothing else made inside DGELSD is listed: only what the failure needs, and calls that
        # ran 100 us or more (a loaded machine, CI's sanitizer run, can make a 30 x 9 DGEQRF that slow).
        inside = [c for c in report["calls"] if "parent" in c]
        self.assertTrue(all(c.get("xerbla") or c.get("info") or "alpha" in c or c["seconds"] >= 99e-6 for c in inside),
                        inside)

    def test_a_nested_call_past_the_listed_ones_that_fails_or_runs_long_is_listed_in_its_caller(self):
        # A LAPACK of one's own (a build with a bug) whose DGESV passes a DGEMV an illegal LDA
        # after a hundred good ones, then makes a long DGEMM: past the first 64 calls made
        # inside, calls are only counted, but these two are listed, inside their caller.
        lib_src = write("bad_lapack.c", """
            #include <stdlib.h>
            void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*,
                        const double*, const int*, const double*, double*, const int*, size_t);
            void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                        const int*, const double*, const int*, const double*, double*, const int*, size_t, size_t);
            void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
                        const int* ldb, int* info) {
              int two = 2, one = 1, zero = 0, big = 500; double alpha = 1, beta = 0, x[2] = {1, 1}, y[2];
              for (int i = 0; i < 100; ++i) dgemv_("N", &two, &two, &alpha, a, &two, x, &one, &beta, y, &one, 1);
              dgemv_("N", &two, &two, &alpha, a, &zero, x, &one, &beta, y, &one, 1);  /* LDA = 0 < M */
              for (int i = 0; i < 100; ++i) dgemv_("N", &two, &two, &alpha, a, &two, x, &one, &beta, y, &one, 1);
              double* m = calloc((size_t)big * big, sizeof *m);
              double* c = calloc((size_t)big * big, sizeof *c);
              dgemm_("N", "N", &big, &big, &big, &alpha, m, &big, m, &big, &beta, c, &big, 1, 1);
              free(m), free(c);
              *info = 0;
            }
        """)
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", os.path.join(WORK, "libbad_lapack.so"), lib_src,
                        "-lblas"], check=True)
        exe = build_c("bad_lapack_main", """
            #include <unistd.h>
            void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
            int main(void) {
              int n = 2, nrhs = 1, ipiv[2], info = 0; double a[4] = {4, 1, 1, 3}, b[2] = {1, 2};
              usleep(600000);  /* what a long call is: known once the recorder has timed its clock */
              dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
              return info;
            }
        """, "-L" + WORK, "-lbad_lapack", "-Wl,-rpath," + WORK)
        for options in ([], ["--nested-calls", "all"]):
            proc, report = record(exe, options=options)
            self.assertEqual(proc.returncode, 0, proc.err)
            self.assertIn("parameter number 6", proc.out + proc.err)
            self.check_totals_add_up(report)
            self.assertEqual((calls_of(report, "dgemv"), calls_of(report, "dgemm")), (201, 1))
            gesv = next(c for c in report["calls"] if c["routine"] == "dgesv")
            bad = [c for c in report["calls"] if c.get("xerbla")]
            self.assertEqual([(c["routine"], c["xerbla"], c["parent"], c.get("lda", 0)) for c in bad],
                             [("dgemv", {"routine": "DGEMV", "parameter": 6}, gesv["id"], 0)], options)
            gemm = [c for c in report["calls"] if c["routine"] == "dgemm"]
            self.assertEqual([(c["parent"], c["m"], c["n"], c["k"]) for c in gemm], [(gesv["id"], 500, 500, 500)])
            # Ids are taken in the order the calls start, counted or listed: 101 calls came before.
            self.assertEqual(bad[0]["id"] - gesv["id"], 101)
            self.assertEqual(gemm[0]["id"] - gesv["id"], 202)
            inside = [c for c in report["calls"] if c.get("parent") == gesv["id"]]
            self.assertEqual(gesv.get("unlisted", 0), 202 - len(inside))
            if not options:  # past the first 64, only what failed or ran 100 us or more (a loaded machine)
                self.assertTrue(all(c.get("xerbla") or c["seconds"] >= 99e-6 for c in inside[64:]), inside[64:])
            self.assertIn("illegal-argument", ids(report))
        # An xerbla that never returns (it aborts): the report is still the running DGEMV's.
        abort_src = write("abort_xerbla.c", """
            #include <stdlib.h>
            void xerbla_(const char* name, const int* info, size_t len) { abort(); }
        """)
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", os.path.join(WORK, "libabort_xerbla.so"), abort_src],
                       check=True)
        exe = build_c("bad_lapack_abort", """
            void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
            int main(void) {
              int n = 2, nrhs = 1, ipiv[2], info = 0; double a[4] = {4, 1, 1, 3}, b[2] = {1, 2};
              dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
              return info;
            }
        """, "-L" + WORK, "-Wl,--no-as-needed", "-labort_xerbla", "-lbad_lapack", "-Wl,-rpath," + WORK)
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 128 + 6, proc.err)
        running = {c["routine"]: c for c in report["running"]}
        self.assertEqual(running["dgemv"]["xerbla"], {"routine": "DGEMV", "parameter": 6}, report["running"])
        self.assertEqual(running["dgemv"]["parent"], running["dgesv"]["id"])
        self.assertEqual(running["dgemv"]["id"] - running["dgesv"]["id"], 101)

    def test_a_child_process_keeps_exact_totals_of_its_own(self):
        script = write("fork_svd.py", """
            import os
            import numpy as np
            s = np.random.rand(200, 200)
            pid = os.fork()
            if pid == 0:
                np.linalg.svd(s)
                os._exit(0)
            os.waitpid(pid, 0)
            s @ s
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        child = report["children"][0]
        rep = subprocess.run([CLI, "report", child["session"], "--format", "json"], capture_output=True, timeout=60)
        child_report = json.loads(rep.stdout)
        # The child made every DGEMV of the recording, most of them not listed: its session's
        # totals are the preload's own count for its process, not a sum of what is listed.
        self.assertGreater(child_report["calls_unlisted"], 1000)
        self.assertEqual(calls_of(child_report, "dgemv"), calls_of(report, "dgemv"))
        self.assertEqual(calls_of(child_report, "dgemm"), calls_of(report, "dgemm") - 1)
        self.assertEqual(child_report["calls_total"], len(child_report["calls"]) + child_report["calls_unlisted"])
        self.assertIsNone(child_report["problem"])

    def test_children_past_the_call_cap_keep_their_totals_and_say_what_was_not_kept(self):
        exe = build_c("fork_capped", """
            #include <cblas.h>
            #include <stdlib.h>
            #include <sys/wait.h>
            #include <unistd.h>
            static void calls(int n) {
              double a = 1, b = 1, c = 0;
              for (int i = 0; i < n; ++i)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
            }
            int main(void) {
              calls(1500);  /* the cap is used up here: every child's calls come past it */
              for (int k = 0; k < 2; ++k) {
                pid_t pid = fork();
                if (pid == 0) { calls(700 + 100 * k); _exit(0); }
                waitpid(pid, NULL, 0);
              }
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe, "an argument", "another", options=("--max-calls", "1000"))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(report["command"], [exe, "an argument", "another"])
        self.assertEqual(report["calls_total"], 1500 + 700 + 800)
        # Each child has a session though none of its calls is listed: its totals are exact, and
        # what is not listed is counted as not kept.
        self.assertEqual(len(report["children"]), 2, proc.err)
        self.assertNotIn("made no recorded", proc.err)
        made = []
        for child in report["children"]:
            rep = subprocess.run([CLI, "report", child["session"], "--format", "json"], capture_output=True, timeout=60)
            child_report = json.loads(rep.stdout)
            made.append(child_report["calls_total"])
            self.assertEqual(child_report["command"], report["command"])  # forked, never exec'd: the program's
            self.assertEqual(child_report["calls_total"],
                             len(child_report["calls"]) + child_report["calls_unlisted"] + child_report["calls_not_kept"])
            self.assertGreater(child_report["calls_not_kept"], 0)
        self.assertEqual(sorted(made), [700, 800])


@unittest.skipUnless(has_module("scipy"), "python3-scipy is not installed (scripts/dev.sh installs it)")
class RecordSciPy(unittest.TestCase):
    def test_the_headline_is_the_report_the_program_raised(self):
        # GELSD of an Inf: DLASCL reports parameter 4 (CFROM), later 5 (CTO), then 4 again, and
        # SciPy raises the last. The diagnoses lead with parameter 4 and list the 5 as evidence.
        script = write("lstsq_inf_reports.py", """
            import numpy as np, scipy.linalg as sl
            a = np.array([[1., 2], [3, 4], [5, 6]]); a[1, 1] = np.inf
            try:
                sl.lstsq(a, np.array([1., 2, 3]), lapack_driver="gelsd", check_finite=False)
            except ValueError as error:
                print(error)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("DLASCL parameter number 4", proc.out)
        reports = [c["xerbla"]["parameter"] for c in report["calls"] if c.get("xerbla")]
        self.assertIn(5, reports)
        self.assertEqual(reports[-1], 4)
        gelsd = [d for d in report["diagnoses"] if d.get("routine") == "dgelsd"]
        self.assertEqual(gelsd[0]["id"], "dlascl-invalid-cfrom", gelsd)
        self.assertNotIn("parameter number 5", " ".join(d["title"] for d in gelsd))
        self.assertIn("parameter number 5", " ".join(gelsd[0]["evidence"]))

    def test_nan_vectors_beside_finite_values_are_a_non_finite_output(self):
        # A NaN input can leave the eigenvalues or singular values finite and the vectors NaN,
        # with INFO = 0: the vectors are the call's output too, and the capture replays to the same.
        script = write("nan_vectors.py", """
            import numpy as np, scipy.linalg as sl
            w, v = sl.eigh(np.array([[np.nan, 1], [1, 2.]]), check_finite=False)
            print(int(np.isnan(w).sum()), int(np.isnan(v).sum()))
            u, s, vt = sl.svd(np.array([[np.nan, 1, 0], [1, 2, 0.]], dtype=np.float32), lapack_driver="gesvd",
                              check_finite=False)
            print(int(np.isnan(s).sum()) + int(np.isnan(u).sum()) + int(np.isnan(vt).sum()))
        """)
        plain = subprocess.run([PYTHON, script], capture_output=True, text=True, cwd=WORK)
        proc, report = record(PYTHON, script)
        self.assertEqual((proc.returncode, proc.out), (0, plain.stdout), proc.err)
        nan_values, nan_vectors = map(int, plain.stdout.split()[:2])
        svd_nan = int(plain.stdout.split()[2])
        top = {c["routine"]: c for c in report["calls"] if not c.get("parent") and c["routine"] in ("dsyevr", "sgesvd")}
        self.assertEqual(top["dsyevr"].get("output_nan", 0), nan_values + nan_vectors, top)
        self.assertEqual(top["sgesvd"].get("output_nan", 0), svd_nan, top)
        failing = {d["routine"] for d in report["diagnoses"] if d["id"] == "non-finite-output"}
        self.assertTrue({"dsyevr", "sgesvd"} <= failing, report["diagnoses"])
        self.assertNotIn("with a finite result", json.dumps(report["diagnoses"]))
        capture = next(c for c in report["captures"] if c["routine"] == "dsyevr")
        self.assertIn("non-finite-output", replay_ids(capture))

    def test_eigen_qr_inverse_and_triangular_solves_are_recorded_with_their_failures(self):
        script = write("more_lapack.py", """
            import numpy as np, scipy.linalg as sl
            from scipy.linalg import lapack
            rng = np.random.default_rng(0)
            a = rng.standard_normal((30, 30)); s = a + a.T
            q, r = np.linalg.qr(a)                                  # dgeqrf, dorgqr
            qf, rf = sl.qr(rng.standard_normal((60, 20)), mode="full")  # dorgqr fills Q's last 40 columns
            w = np.linalg.eigvals(a)                                # dgeev
            inv = sl.inv(a)                                         # dgetrf, dgetri
            c = sl.cho_factor(s @ s.T + np.eye(30))
            x = sl.cho_solve(c, np.ones(30))                        # dpotrf, dpotrs
            t = np.triu(a); t[4, 4] = 0
            try:
                sl.solve_triangular(t, np.ones(30))                 # dtrtrs: INFO = 5
            except np.linalg.LinAlgError as e:
                print("trtrs:", e)
            lu, piv, info = lapack.dgetrf(np.zeros((4, 4)))
            inverse, info = lapack.dgetri(lu, piv)                  # INFO = 1
            print("getri info", info)
            bad = s.copy(); bad[0, 1] = bad[1, 0] = np.nan
            try:
                sl.eigh(bad, check_finite=False, eigvals_only=True)  # dsyevr: INFO > 0
            except np.linalg.LinAlgError as e:
                print("syevr:", e)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("getri info 1", proc.out)
        for routine in ("dgeqrf", "dorgqr", "dgeev", "dgetri", "dpotrs", "dtrtrs", "dsyevr"):
            self.assertGreaterEqual(calls_of(report, routine), 1, routine)
        self.assertEqual(calls_of(report, "dpotrs"), 1)
        # LAPACK's own BLAS calls inside them are theirs, not the program's.
        by_id = {c["id"]: c for c in report["calls"]}
        qr = [c for c in report["calls"] if c["routine"] in ("dgeqrf", "dorgqr") and not c.get("workspace_query")]
        inside = [c for c in report["calls"] if c.get("parent") in {q["id"] for q in qr}]
        self.assertTrue(inside, "no call was recorded inside the QR")
        self.assertTrue(all(by_id[c["parent"]]["routine"] in ("dgeqrf", "dorgqr") for c in inside))
        failed = {d["routine"]: d for d in report["diagnoses"] if d["id"] == "lapack-failed"}
        self.assertIn("diagonal element 5 of the triangular matrix is zero", failed["dtrtrs"]["title"])
        self.assertIn("has no inverse", failed["dgetri"]["title"])
        self.assertIn("internal error", failed["dsyevr"]["title"])
        # What SciPy says for SYEVR's INFO > 0 is what the explanation quotes.
        said = next(line for line in proc.out.splitlines() if line.startswith("syevr:")).split(": ", 1)[1]
        self.assertIn(said, failed["dsyevr"]["cause"])
        self.assertEqual([d["routine"] for d in report["diagnoses"] if d["id"] == "non-finite-input"], ["dsyevr"])
        # GFLOP/s counts the calls that did work, not the workspace queries.
        geqrf = next(t for t in report["routines"] if t["routine"] == "dgeqrf")
        worked = [c for c in report["calls"] if c["routine"] == "dgeqrf" and not c.get("workspace_query")]
        expected = sum(2 * c["n"] ** 2 * (c["m"] - c["n"] / 3) for c in worked) * 1e-9
        self.assertAlmostEqual(geqrf["gflop"], expected, delta=expected * 1e-3)  # whole FLOPs a call

    def test_values_are_scanned_where_lapack_reads_and_writes_them(self):
        script = write("scan_regions.py", """
            import numpy as np, scipy.linalg as sl
            from scipy.linalg import lapack
            rng = np.random.default_rng(3)
            # TRTRS with a unit diagonal never reads it: a NaN there is no input.
            t = np.triu(rng.standard_normal((6, 6))) ; t[2, 2] = np.nan
            x = sl.solve_triangular(t, np.ones(6), unit_diagonal=True, check_finite=False)
            print("trtrs", np.isfinite(x).all())
            # ORGQR reads the reflectors below the diagonal and TAU, not R above it.
            qr, tau, work, info = lapack.dgeqrf(rng.standard_normal((8, 4)))
            qr[0, 3] = np.inf
            q, work, info = lapack.dorgqr(qr, tau)
            print("orgqr", np.isfinite(q).all())
            tau[1] = np.nan
            q, work, info = lapack.dorgqr(qr, tau)
            print("orgqr nan tau", int(np.isnan(q).sum()) > 0)
            # SYEVR with an Inf: INFO = 0, NaN eigenvalues. Only the M it computed are read.
            s = rng.standard_normal((5, 5)); s = s + s.T; s[0, 0] = np.inf
            w = sl.eigh(s, check_finite=False, eigvals_only=True)
            print("syevr", int(np.isnan(w).sum()))
            f = rng.standard_normal((5, 5))
            w = sl.eigh(f + f.T, eigvals_only=True, subset_by_index=[0, 1])
            print("syevr subset", len(w))
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("trtrs True", proc.out)
        self.assertIn("orgqr True", proc.out)
        found = {(d["id"], d.get("routine")) for d in report["diagnoses"]}  # an environment finding names none
        self.assertNotIn(("non-finite-input", "dtrtrs"), found)
        orgqr = [c for c in report["calls"] if c["routine"] == "dorgqr" and not c.get("workspace_query")]
        self.assertEqual([c.get("input_nan", 0) + c.get("input_inf", 0) for c in orgqr], [0, 1])
        nan_tau = next(d for d in report["diagnoses"] if d["id"] == "non-finite-output" and d["routine"] == "dorgqr")
        self.assertIn("its NaN/Inf inputs gave", nan_tau["title"])
        syevr = [c for c in report["calls"] if c["routine"] == "dsyevr" and not c.get("workspace_query")]
        self.assertGreater(syevr[0].get("output_nan", 0), 0, syevr[0])
        self.assertEqual(syevr[1].get("output_nan", 0) + syevr[1].get("output_inf", 0), 0, syevr[1])

    def test_any_of_heevrs_three_workspace_sizes_asks_a_query(self):
        # LAPACK takes LWORK, LRWORK or LIWORK = -1 as a workspace query: here only LIWORK is.
        exe = build_c("heevr_query", """
            #include <complex.h>
            #include <stdio.h>
            #include <stddef.h>
            void zheevr_(const char*, const char*, const char*, const int*, double complex*, const int*,
                         const double*, const double*, const int*, const int*, const double*, int*, double*,
                         double complex*, const int*, int*, double complex*, const int*, double*, const int*,
                         int*, const int*, int*, size_t, size_t, size_t);
            int main(void) {
              double complex a[9] = {2, 0, 0, 0, 3, 0, 0, 0, 4}, z[9], work[200];
              double w[3], rwork[200], zero = 0;
              int n = 3, m = 0, isuppz[6], iwork[100], info = 0, lwork = 200, lrwork = 200, liwork = -1;
              zheevr_("N", "A", "L", &n, a, &n, &zero, &zero, &n, &n, &zero, &m, w, z, &n, isuppz, work, &lwork,
                      rwork, &lrwork, iwork, &liwork, &info, 1, 1, 1);
              printf("query m=%d info=%d\\n", m, info);
              liwork = 100;
              zheevr_("N", "A", "L", &n, a, &n, &zero, &zero, &n, &n, &zero, &m, w, z, &n, isuppz, work, &lwork,
                      rwork, &lrwork, iwork, &liwork, &info, 1, 1, 1);
              printf("m=%d info=%d w0=%g\\n", m, info, w[0]);
              return 0;
            }
        """, "-llapack")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("m=3 info=0 w0=2", proc.out)
        heevr = next(t for t in report["routines"] if t["routine"] == "zheevr")
        self.assertEqual((heevr["calls"], heevr.get("workspace_queries")), (2, 1))
        calls = [c for c in report["calls"] if c["routine"] == "zheevr"]
        self.assertEqual([bool(c.get("workspace_query")) for c in calls], [True, False])

    def test_a_crash_in_a_lapack_calls_own_arguments_is_that_calls(self):
        exe = build_c("bad_pointer", """
            void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
            int main(void) {
              int n = 64, ipiv[64], info = 0;
              dgetrf_(&n, &n, (double*)16, &n, ipiv, &info);
              return 0;
            }
        """, "-llapack")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 128 + 11, proc.err)
        crash = next(d for d in report["diagnoses"] if d["id"] == "program-crashed")
        self.assertIn("SIGSEGV inside call", crash["title"])
        self.assertIn("DGETRF", crash["title"])

    def test_a_program_that_calls_only_routines_not_recorded_is_told_so(self):
        script = write("dot_only.py", """
            import numpy as np
            print(np.ones(5) @ np.ones(5))   # ddot, a BLAS level 1 routine
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(report["calls_total"], 0)
        self.assertIn("loaded BLAS/LAPACK but called none of the routines BLAScope records", report["problem"])
        # A program with no BLAS/LAPACK loaded at all is told that instead.
        proc, report = record("/bin/true")
        self.assertEqual(report["calls_total"], 0)
        self.assertIn("made no BLAS or LAPACK call through a shared library", report["problem"])

    def test_lstsq_of_a_nan_matrix_reports_dlascl_inside_dgelsd(self):
        script = write("lstsq.py", LSTSQ_OF_A_NAN)
        proc, report = record(PYTHON, script)
        self.assertIn("On entry to DLASCL parameter number 4 had an illegal value", proc.out)
        lascl = [c for c in report["calls"] if c["routine"] == "dlascl" and c.get("xerbla")]
        self.assertTrue(lascl)
        self.assertEqual(lascl[0]["xerbla"], {"routine": "DLASCL", "parameter": 4})
        parent = next(c for c in report["calls"] if c["id"] == lascl[0]["parent"])
        self.assertEqual(parent["routine"], "dgelsd")
        d = next(d for d in report["diagnoses"] if d["id"] == "dlascl-invalid-cfrom")
        self.assertEqual(d["call"], parent["id"])
        self.assertEqual(lascl[0]["alpha"], "NaN")  # the NaN CFROM survives the session file
        # The failing call's inputs, as they were before DGELSD overwrote them, replay the failure.
        self.assertEqual([c["call"] for c in report["captures"]], [parent["id"]])
        self.assertIn("dlascl-invalid-cfrom", replay_ids(report["captures"][0]))
        self.assertTrue(any("CFROM = nan" in e for e in d["evidence"]), d["evidence"])
        self.assertNotIn("lapack-failed", ids(report))  # INFO > 0 there is the consequence, not a second cause

    def test_a_solve_with_a_singular_lu_factor_names_the_factorisation(self):
        # lu_factor only warns about the zero pivot; lu_solve divides by it and says nothing.
        script = write("singular_lu.py", """
            import numpy as np, scipy.linalg as sl
            a = np.array([[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]])
            x = sl.lu_solve(sl.lu_factor(a), np.ones(3))
            print("finite" if np.isfinite(x).all() else "non-finite", flush=True)
        """)
        plain = subprocess.run([PYTHON, script], capture_output=True, text=True, timeout=120)
        proc, report = record(PYTHON, script)
        self.assertEqual((proc.returncode, proc.out), (plain.returncode, plain.stdout))
        self.assertEqual(proc.out.strip(), "non-finite")
        self.assertIn("Diagonal number 3 is exactly zero. Singular matrix.", proc.err)
        getrf = next(c for c in report["calls"] if c["routine"] == "dgetrf")
        getrs = next(c for c in report["calls"] if c["routine"] == "dgetrs")
        self.assertEqual((getrf["info"], getrs["info"]), (3, 0))
        # The factorisation is complete with a zero pivot (det rightly 0): a warning; the solve failed.
        singular = next(d for d in report["diagnoses"] if d["id"] == "lapack-failed" and d["call"] == getrf["id"])
        self.assertEqual(singular["severity"], "warning")
        d = next(d for d in report["diagnoses"] if d["id"] == "non-finite-output")
        self.assertIn(f"after call {getrf['id']} DGETRF", d["title"])
        self.assertIn("found the matrix singular", d["title"])
        self.assertNotIn("overflow", " ".join(d["evidence"]))
        # Its capture (every call's, --capture all) replays to the same finding and the same cause:
        # the replay sees only the factors, and finds U's zero pivot in them, not an overflow.
        proc, report = record(PYTHON, script, options=("--capture", "all"))
        capture = next(c for c in report["captures"] if c["routine"] == "dgetrs")
        replay = json.loads(subprocess.run([CLI, "run", capture["workload"], "--json"], capture_output=True,
                                           timeout=120).stdout)
        found = next(d for d in replay["diagnoses"] if d["id"] == "non-finite-output")
        self.assertIn("U's diagonal in the LU factors holds an exact zero at (2, 2)", found["evidence"][0])
        self.assertIn("GETRF returned INFO = 3", found["evidence"][0])
        self.assertNotIn("overflow", found["evidence"][0])

    def test_a_singular_getrf_says_why_it_is_a_warning_and_what_raises_after_it(self):
        script = write("singular_inv.py", """
            import numpy as np, scipy.linalg as sl
            for f in (lambda: sl.inv(np.ones((3, 3))), lambda: sl.solve(np.zeros((3, 3)), np.ones(3))):
                try:
                    f()
                except sl.LinAlgError as e:
                    print(repr(str(e)))
            print(np.linalg.det(np.ones((3, 3))))
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.out.split("\n")[:3], ["'singular matrix'", "'Matrix is singular.'", "0.0"])
        found = [d for d in report["diagnoses"] if d["id"] == "lapack-failed"]
        self.assertTrue(found and all(d["severity"] == "warning" for d in found), found)
        said = " ".join(found[0]["evidence"])
        self.assertIn('scipy.linalg.inv and solve raise LinAlgError after it ("singular matrix", "Matrix is singular.")',
                      said)

    def test_symmetric_solves_ldl_and_schur_are_recorded_with_their_failures(self):
        script = write("sym_schur.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(0)
            a = rng.random((50, 50)); a = a + a.T
            x = sl.solve(a, np.ones(50), assume_a='sym')          # DSYSV
            try:
                sl.solve(np.zeros((4, 4)), np.ones(4), assume_a='sym')
            except sl.LinAlgError as e:
                print("singular:", e)
            sl.ldl(a)                                              # DSYTRF
            sl.schur(rng.random((200, 200)))                       # DGEES: thousands of calls inside
            m = rng.random((30, 30)); m[3, 4] = np.nan
            try:
                sl.schur(m, check_finite=False)
            except sl.LinAlgError as e:
                print("schur:", e)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("singular: Matrix is singular.", proc.out)
        for routine in ("dsysv", "dsytrf", "dgees"):
            self.assertTrue(any(c["routine"] == routine and "parent" not in c for c in report["calls"]), routine)
        # The Schur form's own calls are made inside DGEES now, not top-level calls of the program.
        gees = [c for c in report["calls"] if c["routine"] == "dgees" and not c.get("workspace_query")]
        self.assertGreater(gees[0].get("unlisted", 0), 1000)
        # (SciPy's DSYCON, not recorded, makes top-level DGEMVs of its own: the 50 x 50 system's.)
        self.assertEqual([c["routine"] for c in report["calls"] if "parent" not in c and 200 in (c.get("m"), c.get("n"))],
                         ["dgees"] * len([c for c in report["calls"] if c["routine"] == "dgees" and c.get("m") == 200]))
        singular = next(d for d in report["diagnoses"] if d["id"] == "lapack-failed" and "DSYSV" in d["title"])
        self.assertIn("D(4,4) is exactly zero", singular["title"])
        nan = next(c for c in report["calls"] if c["routine"] == "dgees" and c.get("input_nan"))
        self.assertEqual((nan["m"], nan["input_nan"]), (30, 1))
        self.assertIn(nan["id"], [d["call"] for d in report["diagnoses"] if d["id"] == "non-finite-input"])

    def test_a_positive_definite_solve_says_what_scipys_singular_means(self):
        # SciPy's solve(assume_a='pos') is DPOSV, whose INFO = i SciPy reports as "Matrix is singular."
        # for a matrix that is only not positive definite; a Hermitian solve is ZHESV. Their inner
        # calls are theirs, not the program's.
        script = write("posv_hesv.py", """
            import numpy as np, scipy.linalg as sl
            try:
                sl.solve(np.ones((5, 5)), np.ones(5), assume_a='pos')
            except sl.LinAlgError as e:
                print("pos:", e)
            rng = np.random.default_rng(0)
            h = rng.random((40, 40)) + 1j * rng.random((40, 40)); h = h + h.conj().T
            sl.solve(h, np.ones(40), assume_a='her')
            sl.ldl(h, hermitian=True)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("pos: Matrix is singular.", proc.out)
        top = [c["routine"] for c in report["calls"] if "parent" not in c and not c.get("workspace_query")]
        self.assertEqual([r for r in top if r in ("dposv", "zhesv", "zhetrf")], ["dposv", "zhesv", "zhetrf"], top)
        self.assertNotIn("dpotrf", top, "POSV's Cholesky is made inside it")
        posv = next(c for c in report["calls"] if c["routine"] == "dposv")
        self.assertIn("dpotrf", [c["routine"] for c in report["calls"] if c.get("parent") == posv["id"]])
        hesv = next(c for c in report["calls"] if c["routine"] == "zhesv" and not c.get("workspace_query"))
        inside = {c["routine"] for c in report["calls"] if c.get("parent") == hesv["id"]}
        self.assertIn("zhetrf", inside, "HESV's factorisation is made inside it")
        # (SciPy's ZHECON, not recorded, then makes top-level ZGEMVs of its own.)
        found = [d for d in report["diagnoses"] if d["id"] == "lapack-failed"]
        self.assertEqual(len(found), 1, [d["title"] for d in found])
        self.assertIn("DPOSV", found[0]["title"])
        self.assertIn("leading minor of order 2 is not positive definite", found[0]["title"])
        self.assertIn("need not be singular", found[0]["cause"])
        self.assertEqual(found[0]["seen_as"][0], "numpy.linalg.LinAlgError: Matrix is singular.")

    def test_generalized_eigen_hessenberg_pivoted_qr_and_qz_are_recorded(self):
        script = write("generalized.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(0)
            a = rng.standard_normal((6, 6)); a = a + a.T
            b = np.eye(6); b[3, 3] = -1.0                          # not positive definite from order 4
            for driver in ("gvd", "gv"):                           # DSYGVD, DSYGV
                try:
                    sl.eigh(a, b, driver=driver)
                except sl.LinAlgError as e:
                    print(driver + ":", e)
            sl.eigh(a.astype(np.complex128), np.eye(6))            # ZHEGVD
            big = rng.standard_normal((200, 200))
            sl.hessenberg(big)                                     # DGEHRD: its GEMVs inside it
            sl.qr(big, pivoting=True)                              # DGEQP3
            sl.qz(big, rng.standard_normal((200, 200)))            # DGGES
            c = rng.standard_normal((20, 20)); c[2, 5] = np.inf
            try:
                sl.qz(c, np.eye(20), check_finite=False)
            except (sl.LinAlgError, ValueError) as e:
                print("qz:", e)
            # The complex routines' arguments sit elsewhere (RWORK, LRWORK): sizes, INFO, queries.
            h = (a + 1j * np.triu(a, 1) - 1j * np.tril(a, -1)).astype(np.complex64)
            hb = np.eye(7, dtype=np.complex64); hb[4, 4] = -2
            for driver in ("gvd", "gv"):                           # CHEGVD, CHEGV: minor 5 of B
                try:
                    sl.eigh(np.pad(h, ((0, 1), (0, 1))) + 0, hb, driver=driver)
                except sl.LinAlgError as e:
                    print("c" + driver + ":", e)
            z = rng.standard_normal((9, 7)) + 1j * rng.standard_normal((9, 7))
            sl.qr(z, pivoting=True)                                # ZGEQP3, 9 x 7
            sl.qz(z[:7], z[2:], output="complex")                  # ZGGES, 7 x 7
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("gvd: The leading minor of order 4 of B is not positive definite", proc.out)
        self.assertIn("gv: The leading minor of order 4 of B is not positive definite", proc.out)
        for routine in ("dsygvd", "dsygv", "zhegvd", "dgehrd", "dgeqp3", "dgges"):
            self.assertTrue(any(c["routine"] == routine and "parent" not in c for c in report["calls"]), routine)
        # B's Cholesky is made inside the driver, which says what its INFO = N + 4 means.
        for routine in ("DSYGVD", "DSYGV"):
            d = next(d for d in report["diagnoses"] if d["id"] == "lapack-failed" and routine + " " in d["title"])
            self.assertIn("returned INFO = 10: the leading minor of order 4 of B is not positive definite", d["title"])
        potrf = [c for c in report["calls"] if c["routine"] == "dpotrf"]
        self.assertEqual([c["info"] for c in potrf], [4, 4])
        self.assertTrue(all(c.get("parent") for c in potrf))
        # The 200 x 200 reductions' BLAS calls are theirs, not top-level calls of the program.
        top = [c for c in report["calls"] if "parent" not in c and 200 in (c.get("m"), c.get("n"))]
        self.assertEqual({c["routine"] for c in top}, {"dgehrd", "dgeqp3", "dorgqr", "dgges"})  # qr forms Q
        gehrd = next(c for c in top if c["routine"] == "dgehrd" and not c.get("workspace_query"))
        self.assertGreater(gehrd.get("unlisted", 0) + len([c for c in report["calls"] if c.get("parent") == gehrd["id"]]),
                           100)
        self.assertIn("cgvd: The leading minor of order 5 of B is not positive definite", proc.out)
        self.assertIn("cgv: The leading minor of order 5 of B is not positive definite", proc.out)
        for routine in ("CHEGVD", "CHEGV"):
            d = next(d for d in report["diagnoses"] if d["id"] == "lapack-failed" and routine + " " in d["title"])
            self.assertIn(f"call {d['call']} {routine} (N=7, LDA=7, LDB=7): returned INFO = 12: the leading minor of "
                          "order 5 of B", d["title"])
        for routine, shape in (("zgeqp3", (9, 7, 9)), ("zgges", (7, 7, 7))):
            done = [c for c in report["calls"] if c["routine"] == routine and not c.get("workspace_query")]
            self.assertEqual([(c["m"], c["n"], c["lda"], c.get("info", 0)) for c in done], [shape + (0,)], routine)
            self.assertEqual(len([c for c in report["calls"] if c["routine"] == routine and c.get("workspace_query")]),
                             1, routine)
        # An Inf in A is read by DGGES: its input is flagged.
        inf = next(c for c in report["calls"] if c["routine"] == "dgges" and c.get("input_inf"))
        self.assertEqual((inf["n"], inf["input_inf"]), (20, 1))
        self.assertIn(inf["id"], [d["call"] for d in report["diagnoses"] if d["id"] == "non-finite-input"])

    def test_a_solve_with_nan_in_its_lu_factors_reads_them(self):
        # Factors the program changed (or that GETRF made NaN: torch.linalg.inv of a NaN matrix)
        # are GETRS's input: its NaN result is no overflow of finite inputs.
        script = write("nan_lu.py", """
            import numpy as np, scipy.linalg as sl
            lu, piv = sl.lu_factor(np.random.rand(8, 8) + 8 * np.eye(8))
            lu[5, 5] = np.nan
            x = sl.lu_solve((lu, piv), np.ones(8), check_finite=False)
            print("nan" if np.isnan(x).any() else "finite", flush=True)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.out.strip(), "nan", proc.err)
        getrs = next(c for c in report["calls"] if c["routine"] == "dgetrs")
        self.assertEqual(getrs.get("input_nan"), 1)
        self.assertIn("non-finite-input", ids(report))
        self.assertNotIn("overflow", " ".join(e for d in report["diagnoses"] for e in d["evidence"]))
        # Captured before it ran, with its pivots: the replay says what the recording said.
        capture = next(c for c in report["captures"] if c["call"] == getrs["id"])
        recorded = {d["id"] for d in report["diagnoses"] if d["call"] == getrs["id"]}
        self.assertEqual(set(replay_ids(capture)), recorded)

    def test_lu_solve_captures_replay_the_programs_own_solution(self):
        # GETRS replays as lu_solve from the factors and pivots it was given: the replay's X is
        # the program's, untransposed and transposed, and a NaN in B replays as recorded.
        script = write("lu_solve.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(4)
            a = rng.random((7, 7)); b = rng.random((7, 2))
            lu = sl.lu_factor(a)
            np.save("x_N.npy", sl.lu_solve(lu, b))
            np.save("x_T.npy", sl.lu_solve(lu, b, trans=1))
            bad = np.ones(7, dtype=np.float32); bad[3] = np.nan
            x = sl.lu_solve(sl.lu_factor(a.astype(np.float32)), bad, check_finite=False)
            print("nan" if np.isnan(x).any() else "finite", flush=True)
        """)
        proc, report = record(PYTHON, script, options=("--capture", "all"))
        self.assertEqual(proc.out.strip(), "nan", proc.err)
        calls = {c["id"]: c for c in report["calls"]}
        by_call = {}
        for d in report["diagnoses"]:
            by_call.setdefault(d["call"], set()).add(d["id"])
        getrs = {c["call"]: c for c in report["captures"] if calls[c["call"]]["routine"] in ("dgetrs", "sgetrs")}
        self.assertEqual(len(getrs), 3, proc.err)
        self.assertNotIn("getrs", json.dumps(report["uncaptured"]))
        solved = 0
        for call, capture in sorted(getrs.items()):
            with open(capture["workload"]) as f:
                op = json.load(f)["ops"][0]
            self.assertEqual(op["op"], "lu_solve")
            if calls[call]["routine"] == "sgetrs":
                self.assertEqual(set(replay_ids(capture)), by_call[call])
                self.assertEqual(by_call[call], {"non-finite-input", "non-finite-output"})
                continue
            outputs = os.path.join(WORK, f"lu_solve_out_{call}")
            run = subprocess.run([CLI, "run", capture["workload"], "--json", "--save-outputs", outputs],
                                 capture_output=True, timeout=300)
            self.assertEqual(run.returncode, 0, run.stderr.decode())
            self.assertEqual(json.loads(run.stdout)["ops"][0]["kernel"], "dgetrs")
            import numpy as np
            saved = [n for n in os.listdir(outputs) if n not in ("a.npy", "b.npy", "pivots.npy")]
            self.assertEqual(len(saved), 1, saved)
            expected = np.load(os.path.join(WORK, f"x_{op['trans']}.npy"))
            np.testing.assert_allclose(np.load(os.path.join(outputs, saved[0])), expected, rtol=1e-12)
            solved += 1
        self.assertEqual(solved, 2)

    def test_failing_factorisations_are_captured_and_replay_their_info(self):
        # NumPy's cholesky, solve and eigh as users hit them: a matrix that is not positive
        # definite, a singular one, a NaN that eigh cannot take, and the all-NaN matrix this
        # LAPACK's POTRF factors into NaN with INFO = 0 (NumPy returns it without a word).
        script = write("factorisations.py", """
            import numpy as np
            nan = np.full((4, 4), np.nan)
            sym = np.random.default_rng(2).random((5, 5)); sym = sym + sym.T; sym[1, 1] = np.nan
            for name, call in (("cholesky", lambda: np.linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))),
                               ("solve", lambda: np.linalg.solve(np.ones((3, 3)), np.ones(3))),
                               ("eigh", lambda: np.linalg.eigh(sym)),
                               ("nan cholesky", lambda: print("finite" if np.isfinite(np.linalg.cholesky(nan)).all()
                                                              else "non-finite"))):
                try:
                    call()
                except np.linalg.LinAlgError as e:
                    print(name, e)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.out.splitlines(), ["cholesky Matrix is not positive definite", "solve Singular matrix",
                                                 "eigh Eigenvalues did not converge", "non-finite"], proc.err)
        calls = {c["id"]: c for c in report["calls"]}
        by_call = {}
        for d in report["diagnoses"]:
            by_call.setdefault(d["call"], set()).add(d["id"])
        potrf_finite, potrf_nan = [c for c in report["calls"] if c["routine"] == "dpotrf"]
        gesv = next(c for c in report["calls"] if c["routine"] == "dgesv")
        syevd = next(c for c in report["calls"] if c["routine"] == "dsyevd" and c["info"] != 0)
        self.assertEqual((potrf_finite["info"], gesv["info"], potrf_nan["info"]), (2, 2, 0))
        self.assertGreater(syevd["info"], 0)
        self.assertEqual(by_call[potrf_finite["id"]], {"lapack-failed"})
        self.assertEqual(by_call[potrf_nan["id"]], {"non-finite-input", "non-finite-output"})
        # NaN inputs are copied before the call: those two are captured and replay as recorded.
        captured = {c["call"]: c for c in report["captures"]}
        self.assertEqual(set(captured), {syevd["id"], potrf_nan["id"]}, proc.err)
        for call, capture in captured.items():
            self.assertEqual(set(replay_ids(capture)), by_call[call], calls[call]["routine"])
        # Finite inputs are copied only under --capture all: said, then done.
        self.assertIn("failing calls not captured because their inputs were finite (only --capture all copies "
                      "those before every call): 1 dgesv, 1 dpotrf", proc.err)
        proc, report = record(PYTHON, script, options=("--capture", "all"))
        captured = {calls_by_id["routine"]: c for c in report["captures"]
                    for calls_by_id in report["calls"] if calls_by_id["id"] == c["call"] and calls_by_id["info"] > 0}
        self.assertEqual(set(captured), {"dpotrf", "dgesv", "dsyevd"}, proc.err)
        self.assertNotIn("inputs were finite", proc.err)
        self.assertEqual(report["uncaptured"], {"not_replayable": {}, "finite_inputs": {}})
        for routine, capture in captured.items():
            run = subprocess.run([CLI, "run", capture["workload"], "--json"], capture_output=True, timeout=300)
            replay = json.loads(run.stdout)
            recorded = next(c for c in report["calls"] if c["id"] == capture["call"])
            self.assertEqual(replay["ops"][0]["info"], recorded["info"], routine)
            self.assertEqual(replay["ops"][0]["kernel"], routine)
            self.assertIn("lapack-failed", [d["id"] for d in replay["diagnoses"]], routine)
            # Said in the routine's own terms, as the recording says it.
            failed = next(d for d in replay["diagnoses"] if d["id"] == "lapack-failed")
            recorded_title = next(d["title"] for d in report["diagnoses"]
                                  if d["id"] == "lapack-failed" and d["call"] == capture["call"])
            info = f"INFO = {recorded['info']}: "
            self.assertIn(info, failed["title"])
            self.assertEqual(failed["title"].split(info)[1], recorded_title.split(info)[1], routine)

    def test_an_svd_whose_dlascl_refuses_cfrom_then_cto_replays_both(self):
        # An Inf (not a NaN) in DGESDD's input: DLASCL refuses CFROM, then CTO (parameter 5),
        # which NumPy raises. The replay tells both apart, as the recording does.
        script = write("svd_inf.py", """
            import numpy as np
            a = np.random.default_rng(2).standard_normal((30, 30)); a[5, 5] = np.inf
            np.linalg.svd(a)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("DLASCL parameter number 5", proc.err)
        capture = next(c for c in report["captures"] if c["routine"] == "dgesdd")
        recorded = {d["id"] for d in report["diagnoses"] if d.get("call") == capture["call"]}
        self.assertEqual(recorded, {"dlascl-invalid-cfrom", "illegal-argument", "non-finite-input"})
        self.assertEqual(set(replay_ids(capture)), recorded)

    def test_each_capture_replays_the_driver_the_program_called(self):
        # Every driver fails its own way on a NaN (gelsy silently, gelss and gesvd with INFO > 0,
        # gelsd through DLASCL, gesdd with INFO = -4): a replay by another driver would not.
        script = write("drivers.py", """
            import numpy as np, scipy.linalg
            a = np.random.default_rng(1).random((12, 5)); a[2, 3] = np.nan
            b = np.ones(12)
            for driver in ("gelsy", "gelss", "gelsd"):
                try:
                    scipy.linalg.lstsq(a, b, check_finite=False, lapack_driver=driver)
                except Exception as e:
                    print(driver, type(e).__name__)
            for driver in ("gesvd", "gesdd"):
                try:
                    scipy.linalg.svd(a, check_finite=False, lapack_driver=driver, compute_uv=driver == "gesvd")
                except Exception as e:
                    print(driver, type(e).__name__)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(sorted(c["routine"] for c in report["captures"]),
                         ["dgelsd", "dgelss", "dgelsy", "dgesdd", "dgesvd"], proc.err)
        for capture in report["captures"]:
            with self.subTest(routine=capture["routine"]):
                with open(capture["workload"]) as f:
                    op = json.load(f)["ops"][0]
                self.assertEqual(op["driver"], capture["routine"][1:])
                if "compute_uv" in op:
                    self.assertEqual(op["compute_uv"], capture["routine"] == "dgesvd")
                recorded = {d["id"] for d in report["diagnoses"] if d.get("call") == capture["call"]}
                self.assertTrue(recorded - {"non-finite-input"}, report["diagnoses"])
                self.assertEqual(set(replay_ids(capture)), recorded)

    def test_a_hung_lstsq_is_stopped_and_named(self):
        script = write("hang.py", """
            import numpy as np, scipy.linalg
            a = np.random.rand(30, 9); b = np.random.rand(30)
            a[0, 0] = np.inf
            scipy.linalg.lstsq(a, b, check_finite=False)
            print("returned")
        """)
        # 6 s: on a loaded 2-core VM Python's start and SciPy's import took 1.8 s of a shorter limit.
        proc, report = record(PYTHON, script, options=("--timeout", "6"))
        self.assertEqual(proc.returncode, 124, proc.err)
        self.assertNotIn("returned", proc.out)
        self.assertTrue(report["timed_out"])
        hang = next(d for d in report["diagnoses"] if d["id"] == "kernel-hang")
        self.assertIn("DGELSD", hang["title"])
        running = next(c for c in report["running"] if c["id"] == hang["call"])
        self.assertEqual(running["input_inf"], 1)
        # It never returned: how long it had run, and no duration or INFO that would read as success.
        self.assertGreater(running["ran_seconds"], 3.0)
        self.assertNotIn("seconds", running)
        self.assertNotIn("info", running)
        gelsd = next(t for t in report["routines"] if t["routine"] == "dgelsd")
        self.assertEqual(gelsd.get("unfinished"), 1, "the hung call is counted apart from the finished ones")
        self.assertNotIn("unfinished", next(t for t in report["routines"] if t["routine"] == "dlascl"))
        # Where the time went: the hung call had run for most of the 6 s, said apart from TOTAL.
        self.assertGreater(gelsd["unfinished_seconds"], 3.0)
        self.assertLess(gelsd["seconds"], 0.1)
        self.assertRegex(proc.err, r"dgelsd .* 1 \(ran [345]\.[0-9]+ s\)\n")
        # Listed first, though its finished calls' time is a few microseconds: the hang is the finding.
        self.assertRegex(proc.err, r"UNFINISHED\n +dgelsd ")
        # Captured before it ran, so the call that never returned can be replayed (with a timeout).
        capture = next(c for c in report["captures"] if c["call"] == hang["call"])
        check = subprocess.run([PYTHON, "-c", "import numpy as np, sys; a = np.load(sys.argv[1]); "
                                "print(a.shape, int(np.isinf(a).sum()))",
                                os.path.join(os.path.dirname(capture["workload"]), "a.npy")],
                               capture_output=True, text=True)
        self.assertEqual(check.stdout.strip(), "(30, 9) 1", check.stderr)
        # Its replay hangs too, and tells what the recording told: the DLASCL refused before the
        # hang, the Inf input and the hang.
        with open(capture["workload"]) as f:
            workload = json.load(f)
        workload["ops"][0]["timeout"] = 2
        limited = os.path.join(os.path.dirname(capture["workload"]), "limited.json")
        with open(limited, "w") as f:
            json.dump(workload, f)
        proc = subprocess.run([CLI, "run", limited, "--json"], capture_output=True, timeout=300)
        replayed = [d["id"] for d in json.loads(proc.stdout)["diagnoses"] if d["id"] != "blas-kernel-mismatch"]
        self.assertEqual([op["status"] for op in json.loads(proc.stdout)["ops"]], ["hung"], "stopped, not crashed")
        expected = {"kernel-hang", "dlascl-invalid-cfrom", "non-finite-input"}
        self.assertEqual(set(ids(report)), expected)
        self.assertEqual(set(replayed), expected)
        # Stopped by the user (SIGTERM to the recorder) rather than --timeout: the same finding.
        session = os.path.join(WORK, "hang-stopped.json")
        stopped = subprocess.Popen([CLI, "record", "--quiet", "--output", session, "--", PYTHON, script], cwd=WORK)
        time.sleep(3)
        stopped.send_signal(15)
        self.assertEqual(stopped.wait(timeout=30), 128 + 15)
        rep = subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True, timeout=60)
        hang = next(d for d in json.loads(rep.stdout)["diagnoses"] if d["id"] == "kernel-hang")
        self.assertIn("DGELSD", hang["title"])
        self.assertTrue(any("the recorder received SIGTERM" in e for e in hang["evidence"]), hang["evidence"])


def sleeper_script(name, gemms):
    """A NumPy program that makes `gemms` GEMMs, says "working" and sleeps: one to stop."""
    return write(name, f"""
        import numpy as np, time
        a = np.random.rand(64, 64)
        for _ in range({gemms}):
            a @ a
        print("working", flush=True)
        time.sleep(60)
    """)


class RecordLifecycle(unittest.TestCase):
    """What happens to the recorder itself: signals sent to it, where its session goes."""

    def test_the_recorder_loads_no_blas_and_the_other_commands_run_beside_it(self):
        # OpenBLAS's load and start cost every recording 6-10 ms before the program starts: the
        # recorder, the program's parent, has no BLAS library mapped.
        proc, report = record("/bin/sh", "-c", "cat /proc/$PPID/maps")
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("blasscope-cli", proc.out)
        self.assertNotRegex(proc.out, r"lib(open)?blas|liblapack")
        # Every other command is blasscope-cli-tools', run in the same process: without it beside
        # blasscope-cli, they say what is missing.
        alone = os.path.join(WORK, "cli-alone")
        os.makedirs(alone, exist_ok=True)
        shutil.copy(CLI, alone)
        run = subprocess.run([os.path.join(alone, os.path.basename(CLI)), "scenarios"], capture_output=True,
                             timeout=60)
        self.assertEqual(run.returncode, 3)
        self.assertIn(b"cannot start " + os.path.join(alone, "blasscope-cli-tools").encode(), run.stderr)
        listed = subprocess.run([CLI, "scenarios", "--json"], capture_output=True, timeout=60)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertTrue(json.loads(listed.stdout))

    def test_a_recorder_sent_sigterm_or_sighup_stops_the_program_and_still_writes_the_session(self):
        # timeout(1), a closed terminal or a job scheduler sends the recorder SIGTERM or SIGHUP: the
        # program must not run on unrecorded, and what it did until then must be in the session.
        script = sleeper_script("sleeper.py", 25)
        for number, name in ((15, "SIGTERM"), (1, "SIGHUP")):
            with self.subTest(signal=name):
                session = os.path.join(WORK, f"stopped-by-{name}.json")
                proc = subprocess.Popen([CLI, "record", "--output", session, "--", PYTHON, script],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=WORK)
                self.assertEqual(proc.stdout.readline().strip(), b"working")
                buffer = recording_buffer_of(proc.pid)
                self.assertIsNotNone(buffer)
                proc.send_signal(number)
                out, err = proc.communicate(timeout=30)
                # The recorder passes the signal on, as timeout(1) does, and exits as the program did.
                self.assertEqual(proc.returncode, 128 + number, err.decode())
                with open(session) as f:
                    recorded = json.load(f)
                self.assertEqual(recorded["signal"], name)
                self.assertIn(f"received {name} and passed it on", recorded["problem"])
                self.assertEqual(recorded["calls_total"], 25)
                self.assertEqual(len(recorded["calls"]), 25)
                # Its own session's part file (another test's killed recorder may have left one).
                own_part = os.path.basename(session) + "."
                self.assertEqual([n for n in os.listdir(WORK) if n.startswith(own_part) and n.endswith(".part")], [])
                self.assertFalse(os.path.exists(buffer), "the recording buffer was left behind")

    def test_a_sighup_is_ignored_under_nohup_and_followed_by_sigterm_where_it_did_not_stop_the_program(self):
        # Under nohup (SIGHUP ignored) a closed terminal ends neither the recorder nor the program.
        # A program that takes SIGHUP for "reload" gets SIGTERM 2 s after it, then SIGKILL.
        quick = write("hup_quick.py", """
            import numpy as np, time
            print("working", flush=True)
            time.sleep(1.5)
            np.ones((4, 4)) @ np.ones((4, 4))
        """)
        reloading = write("hup_reload.py", """
            import numpy as np, signal, time
            signal.signal(signal.SIGHUP, lambda *_: print("reload", flush=True))
            np.ones((4, 4)) @ np.ones((4, 4))
            print("working", flush=True)
            time.sleep(60)
        """)
        for name, script, ignored in (("nohup", quick, True), ("reload", reloading, False)):
            with self.subTest(name):
                session = os.path.join(WORK, f"hup-{name}.json")
                proc = subprocess.Popen([CLI, "record", "--output", session, "--", PYTHON, script],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=WORK,
                                        preexec_fn=(lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN)) if ignored
                                        else None)
                try:
                    self.assertEqual(proc.stdout.readline().strip(), b"working")
                    started = time.monotonic()
                    proc.send_signal(signal.SIGHUP)
                    out, err = proc.communicate(timeout=60)
                finally:
                    kill_processes_running(script)
                with open(session) as f:
                    recorded = json.load(f)
                if ignored:
                    self.assertEqual(proc.returncode, 0, err.decode())
                    self.assertIsNone(recorded["problem"])
                    self.assertEqual(recorded["calls_total"], 1)
                else:
                    self.assertIn(b"reload", out)
                    self.assertEqual(proc.returncode, 128 + 15, err.decode())  # the SIGTERM after it
                    self.assertGreater(time.monotonic() - started, 1.5)
                    self.assertIn("received SIGHUP and passed it on", recorded["problem"])

    def test_ctrl_c_stops_a_program_hung_in_a_call_and_leaves_one_that_handles_it(self):
        # A terminal's Ctrl-C goes to the whole process group. Python raises KeyboardInterrupt only
        # between bytecodes: inside a DGELSD that never returns it cannot, so the recorder stops
        # the program once that call has run 10 s past the Ctrl-C (or at a second Ctrl-C) and
        # writes the session. A program that ends on it, or handles it and goes on (a checkpoint
        # saved on KeyboardInterrupt), is left alone.
        hung = write("ctrl_c_hang.py", """
            import numpy as np, scipy.linalg
            a = np.random.rand(30, 9); a[0, 0] = np.inf
            print("working", flush=True)
            scipy.linalg.lstsq(a, np.ones(30), check_finite=False)
        """)
        looping = write("ctrl_c_loop.py", """
            import numpy as np
            print("working", flush=True)
            while True:
                np.ones((4, 4)) @ np.ones((4, 4))
        """)
        saving = write("ctrl_c_save.py", """
            import time
            import numpy as np
            print("working", flush=True)
            try:
                while True:
                    np.ones((4, 4)) @ np.ones((4, 4))
            except KeyboardInterrupt:
                time.sleep(3)  # saving a checkpoint, no BLAS call running
                print("saved", flush=True)
        """)
        # killpg stands for Ctrl-C (the terminal signals the whole group, with the kernel as sender):
        # the recorder, told a process sent it, says it reached the program only if sent to the group.
        # "recorder only" is a kill of the recorder alone: the program never sees it.
        # A kill of the recorder alone is said at once, and a second one stops the program, in a
        # call or not (Popen.send_signal, an IDE's stop button: the program never saw either).
        # "the recorder, then its group" is what timeout -s INT does: one press, not two.
        for name, script, presses in (("hung", hung, 1), ("hung, pressed twice", hung, 2), ("ends", looping, 1),
                                      ("handles it", saving, 1), ("recorder only, twice", hung, 2),
                                      ("recorder only, between calls", looping, 2),
                                      ("the recorder, then its group", saving, 1)):
            with self.subTest(name):
                session = os.path.join(WORK, f"ctrl-c-{name.replace(' ', '-')}.json")
                proc = subprocess.Popen([CLI, "record", "--output", session, "--", PYTHON, script],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=WORK,
                                        start_new_session=True)
                try:
                    self.assertEqual(proc.stdout.readline().strip(), b"working")
                    time.sleep(0.5)
                    started = time.monotonic()
                    for _ in range(presses):
                        if name.startswith("recorder only"):
                            os.kill(proc.pid, signal.SIGINT)
                        elif name == "the recorder, then its group":
                            os.kill(proc.pid, signal.SIGINT)
                            os.killpg(proc.pid, signal.SIGINT)
                        else:
                            os.killpg(proc.pid, signal.SIGINT)
                        time.sleep(0.5)
                    out, err = proc.communicate(timeout=60)
                finally:
                    kill_processes_running(script)
                took = time.monotonic() - started
                with open(session) as f:
                    recorded = json.load(f)
                said = (f"blasscope: SIGINT from process {os.getpid()} (the recorder cannot tell whether the program "
                        f"got it too; SIGINT again stops it): ")
                self.assertIn(said, err.decode())
                if name == "recorder only, between calls":
                    self.assertEqual(proc.returncode, 128 + 15, err.decode())  # stopped at the second
                    self.assertLess(took, 8)
                    self.assertIn(f"the recorder received SIGINT from process {os.getpid()}", recorded["problem"])
                elif script == hung:
                    self.assertEqual(proc.returncode, 128 + 15, err.decode())  # stopped with SIGTERM
                    self.assertIn(said + "1 recorded call(s) running", err.decode())
                    self.assertLess(took, 8 if presses == 2 else 20)
                    self.assertGreater(took, 0 if presses == 2 else 9.5)
                    self.assertIn(f"the recorder received SIGINT from process {os.getpid()}", recorded["problem"])
                    self.assertNotIn("Python raises", recorded["problem"], "nothing says the program saw it")
                    self.assertEqual([c["routine"] for c in recorded["running"]], ["dgelsd"])
                elif script == looping:
                    self.assertEqual(proc.returncode, 128 + 2, err.decode())  # Python's own KeyboardInterrupt
                    self.assertIn(b"KeyboardInterrupt", err)
                    self.assertIsNone(recorded["problem"])
                else:
                    self.assertEqual(proc.returncode, 0, err.decode())
                    self.assertIn(b"saved", out)
                    self.assertIsNone(recorded["problem"])

    def test_a_recorder_killed_outright_leaves_a_session_report_can_read(self):
        # SIGKILL (or the OOM killer) gives the recorder no chance to finish: the calls it had
        # streamed are in OUTPUT.XXXXXX.part, which report reads as an unfinished session.
        script = sleeper_script("killed.py", 40)
        session = os.path.join(WORK, "killed.json")
        proc = subprocess.Popen([CLI, "record", "--output", session, "--", PYTHON, script], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=WORK)
        buffer = None
        try:
            self.assertEqual(proc.stdout.readline().strip(), b"working")
            buffer = recording_buffer_of(proc.pid)
            # The recorder drains within 20 ms, and its writer (an idle-class thread) writes when a
            # core is free: on a busy CI VM that took over a second. Killed once all 40 are written.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                written = 0
                for name in os.listdir(WORK):
                    if name.startswith("killed.json.") and name.endswith(".part"):
                        with open(os.path.join(WORK, name), "rb") as f:
                            written = f.read().count(b'"routine":"dgemm"')
                if written >= 40:
                    break
                time.sleep(0.05)
            proc.kill()
            proc.wait(timeout=30)
        finally:
            kill_processes_running(script)  # the program outlives its recorder (and holds its pipes)
            proc.stdout.close()
            proc.stderr.close()
            # Nobody was left to remove the recording buffer (the README says so): this test does.
            if buffer and os.path.exists(buffer):
                os.unlink(buffer)
        parts = [n for n in os.listdir(WORK) if n.startswith("killed.json.") and n.endswith(".part")]
        self.assertEqual(len(parts), 1, os.listdir(WORK))
        rep = subprocess.run([CLI, "report", os.path.join(WORK, parts[0]), "--format", "json"], capture_output=True,
                             timeout=60)
        markdown = subprocess.run([CLI, "report", os.path.join(WORK, parts[0])], capture_output=True, text=True,
                                  timeout=60).stdout
        self.assertTrue(markdown.startswith("# BLAScope recording: `command unknown`"), markdown[:200])
        os.unlink(os.path.join(WORK, parts[0]))  # other tests check that no part file is left behind
        self.assertEqual(rep.returncode, 0, rep.stderr.decode())
        report = json.loads(rep.stdout)
        self.assertEqual(len(report["calls"]), 40)
        self.assertEqual(calls_of(report, "dgemm"), 40)
        self.assertIn("never finished", report["problem"])

    def test_a_session_named_as_a_fifo_is_written_into_it(self):
        # `--output /dev/stdout` or `>(gzip > s.gz)`: a pipe cannot be renamed over, it is written.
        fifo = os.path.join(WORK, "session.fifo")
        os.mkfifo(fifo)
        script = write("fifo_prog.py", """
            import numpy as np
            a = np.random.rand(20, 20)
            for _ in range(7):
                a @ a
        """)
        proc = subprocess.Popen([CLI, "record", "--quiet", "--output", fifo, "--", PYTHON, script], cwd=WORK,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with open(fifo) as f:
            recorded = json.load(f)
        err = proc.communicate(timeout=60)[1].decode()
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(recorded["calls_total"], 7)
        self.assertEqual(len(recorded["calls"]), 7)
        self.assertTrue(os.path.exists(fifo) and not os.path.isfile(fifo), "the FIFO was replaced by a file")


@unittest.skipUnless(has_module("torch"), "python3-torch is not installed (scripts/dev.sh installs it)")
class RecordTorch(unittest.TestCase):
    def test_torch_svd_of_a_nan_matrix(self):
        script = write("torch_svd.py", """
            import torch
            a = torch.rand(20, 10, dtype=torch.float64)
            a[1, 1] = float("nan")
            try:
                torch.linalg.svd(a)
            except Exception as e:
                print(type(e).__name__, e)
        """)
        proc, report = record(PYTHON, script)
        self.assertIn("non-finite values", proc.out)
        self.assertIn("dlascl-invalid-cfrom", ids(report))


class RecordC(unittest.TestCase):
    def test_a_row_major_gemm_with_the_row_count_as_lda(self):
        exe = build_c("bad_lda", """
            #include <cblas.h>
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
              const int m = 4, n = 3, k = 5;
              double *a = calloc(m * k, 8), *b = calloc(k * n, 8), *c = calloc(m * n, 8);
              for (int i = 0; i < 10; ++i)
                cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
              cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, m, b, n, 0.0, c, n);
              puts("done");
              return 3;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 3, proc.err)
        self.assertIn("done", proc.out)
        self.assertIn("parameter number 10 had an illegal value", proc.err)  # OpenBLAS's own message still prints
        self.assertEqual(calls_of(report, "dgemm"), 11)
        d = next(d for d in report["diagnoses"] if d["id"] == "illegal-argument")
        self.assertTrue(any("your LDA = 4, which must be at least 5" in e for e in d["evidence"]), d["evidence"])
        self.assertEqual(len(report["captures"]), 1)
        self.assertEqual(replay_ids(report["captures"][0]), ["illegal-argument"])
        # Past the per-call cap the failing call is still kept, diagnosed and captured; only the
        # good calls after the cap are left out (counted in the totals).
        proc, capped = record(exe, options=("--max-calls", "4"))
        self.assertEqual(proc.returncode, 3)
        self.assertEqual(calls_of(capped, "dgemm"), 11)
        self.assertEqual(len(capped["calls"]), 5, [c["id"] for c in capped["calls"]])
        self.assertEqual(capped["calls"][-1]["xerbla"]["parameter"], 10)
        self.assertIn("illegal-argument", ids(capped))
        self.assertEqual(len(capped["captures"]), 1)
        self.assertIn("capture: call 11 dgemm", proc.err)

    def test_a_complex_gemm_that_refused_an_argument_is_captured_and_replays(self):
        # ZGEMM and CGEMM refuse a short leading dimension as DGEMM does; the capture's synthetic
        # operands are complex too, and the replay is refused the same way.
        exe = build_c("bad_complex_lda", """
            #include <cblas.h>
            #include <complex.h>
            #include <stdlib.h>
            int main(void) {
              const int m = 4, n = 3, k = 5;
              double complex one = 1, zero = 0, *a = calloc(m * k, 16), *b = calloc(k * n, 16), *c = calloc(m * n, 16);
              float complex fone = 1, fzero = 0, *fa = calloc(m * k, 8), *fb = calloc(k * n, 8), *fc = calloc(m * n, 8);
              cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, &one, a, m, b, n, &zero, c, n);
              cblas_cgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, &fone, fa, m, fb, k, &fzero, fc, 2);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual((calls_of(report, "zgemm"), calls_of(report, "cgemm")), (1, 1))
        captures = {c["routine"]: c for c in report["captures"]}
        self.assertEqual(sorted(captures), ["cgemm", "zgemm"], proc.err)
        for routine, dtype, parameter in (("zgemm", "complex128", 10), ("cgemm", "complex64", 13)):
            with self.subTest(routine=routine):
                with open(captures[routine]["workload"]) as f:
                    workload = json.load(f)
                self.assertEqual({t["dtype"] for t in workload["tensors"].values()}, {dtype})
                self.assertEqual(replay_ids(captures[routine]), ["illegal-argument"])
                replay = subprocess.run([CLI, "run", captures[routine]["workload"]], capture_output=True, text=True,
                                        timeout=120)
                self.assertIn(f"On entry to {routine.upper()} parameter number {parameter} had an illegal value",
                              replay.stdout)
        self.assertEqual(report["uncaptured"]["not_replayable"], {})

    def test_each_bad_argument_is_its_own_finding_and_replays_in_its_own_layout(self):
        exe = build_c("bad_args", """
            #include <cblas.h>
            #include <stdlib.h>
            int main(void) {
              double *a = calloc(64, 8), *b = calloc(64, 8), *c = calloc(64, 8);
              /* row-major, LDC = 4 where N = 6 is needed: parameter 13 */
              cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 6, 5, 1.0, a, 5, b, 6, 0.0, c, 4);
              /* row-major, LDA = 3 for a transposed 5x4 A: parameter 10 (A and B swapped) */
              cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 4, 6, 5, 1.0, a, 3, b, 6, 0.0, c, 6);
              /* column-major, LDB = 5 for a transposed B stored 6x5: parameter 10, but it is LDB */
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, 4, 6, 5, 1.0, a, 4, b, 5, 0.0, c, 4);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        found = [d for d in report["diagnoses"] if d["id"] == "illegal-argument"]
        self.assertEqual([d["call"] for d in found], [1, 2, 3], [d["title"] for d in found])
        said = {d["call"]: " ".join(d["evidence"]) for d in found}
        self.assertIn("your LDC = 4, which must be at least 6", said[1])
        self.assertIn("your LDA = 3, which must be at least 4", said[2])
        self.assertIn("your LDB = 5, which must be at least 6", said[3])
        self.assertEqual(len(report["captures"]), 3)
        for capture, parameter in zip(sorted(report["captures"], key=lambda c: c["call"]), (13, 10, 10)):
            replay = subprocess.run([CLI, "run", capture["workload"], "--json"], capture_output=True, timeout=300)
            evidence = " ".join(" ".join(d["evidence"]) for d in json.loads(replay.stdout)["diagnoses"])
            self.assertIn(f"parameter number {parameter} had an illegal value", evidence, capture)

    def test_bad_gemv_syrk_and_trsm_arguments_are_bounded_captured_and_replayed(self):
        exe = build_c("bad_level23", """
            #include <cblas.h>
            #include <stddef.h>
            #include <stdlib.h>
            void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*, const double*,
                        const int*, const double*, double*, const int*, size_t);
            void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*, const int*,
                        const double*, double*, const int*, size_t, size_t);
            int main(void) {
              double *a = calloc(64, 8), *x = calloc(8, 8), *y = calloc(8, 8), *c = calloc(64, 8);
              int m = 5, n = 4, k = 3, lda = 3, ldc = 2, one = 1;
              double alpha = 1, beta = 0;
              dgemv_("N", &m, &n, &alpha, a, &lda, x, &one, &beta, y, &one, 1);             /* LDA 3 < M */
              cblas_dgemv(CblasRowMajor, CblasNoTrans, 5, 4, 1.0, a, 3, x, 1, 0.0, y, 1);   /* LDA 3 < N */
              cblas_dgemv(CblasColMajor, CblasTrans, 5, 4, 1.0, a, 5, x, 0, 0.0, y, 1);     /* INCX 0 */
              dsyrk_("U", "T", &n, &k, &alpha, a, &k, &beta, c, &ldc, 1, 1);               /* LDC 2 < N */
              cblas_dtrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, 5, 4, 1.0, a, 5, c, 3);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        found = [d for d in report["diagnoses"] if d["id"] == "illegal-argument"]
        self.assertEqual([d["call"] for d in found], [1, 2, 3, 4, 5], [d["title"] for d in found])
        said = {d["call"]: " ".join(d["evidence"]) for d in found}
        self.assertIn("your LDA = 3, which must be at least 5", said[1])
        self.assertIn("your LDA = 3, which must be at least 4 (N: A is stored row-major)", said[2])
        self.assertIn("your INCX, which is 0", said[3])
        self.assertIn("your LDC = 2, which must be at least 4", said[4])
        self.assertIn("your LDB = 3, which must be at least 4 (N: B is stored row-major)", said[5])
        # Three GEMV refusals share their cause and fix: the Markdown report tells them once.
        markdown = subprocess.run([CLI, "report", report_path(report)], capture_output=True, text=True,
                                  timeout=60).stdout
        # GEMV, SYRK, TRSM (and the kernel mismatch where OPENBLAS_CORETYPE names other kernels than the CPU's)
        environment = sum(d["id"] == "blas-kernel-mismatch" for d in report["diagnoses"])
        self.assertEqual(markdown.count("**Cause.**"), 3 + environment, markdown)
        self.assertIn("**Cause and fix:** as for 1 above.", markdown)
        captures = sorted(report["captures"], key=lambda c: c["call"])
        self.assertEqual([c["call"] for c in captures], [1, 2, 3, 4, 5])
        for capture, parameter in zip(captures, (6, 6, 8, 10, 11)):
            replay = subprocess.run([CLI, "run", capture["workload"], "--json"], capture_output=True, timeout=300)
            run = json.loads(replay.stdout)
            self.assertEqual([d["id"] for d in run["diagnoses"] if d["id"] != "blas-kernel-mismatch"],
                             ["illegal-argument"], capture)
            evidence = " ".join(" ".join(d["evidence"]) for d in run["diagnoses"])
            self.assertIn(f"parameter number {parameter} had an illegal value", evidence, capture)
            # The routine's own argument list, not GEMM's page; a leading dimension with its bound.
            cause = run["diagnoses"][0]["cause"]
            self.assertIn("for D" + capture["routine"][1:].upper() + " 1 ", cause)
            self.assertNotIn("GEMM", cause)
            if parameter != 8:
                self.assertIn("it must be at least 4" if parameter != 6 or capture["call"] == 2
                              else "it must be at least 5", evidence)

    def test_a_cblas_layout_that_is_neither_row_nor_column_major_is_a_refusal(self):
        # OpenBLAS's CBLAS reports a bad ORDER to xerbla as parameter 0 ("parameter number 0"):
        # the call computed nothing, which a report that read 0 as "no report" recorded as a success.
        exe = build_c("bad_order", """
            #include <cblas.h>
            #include <stdlib.h>
            int main(void) {
              double *a = calloc(64, 8), *b = calloc(64, 8), *c = calloc(64, 8);
              float *fa = calloc(64, 4), *fc = calloc(64, 4);
              cblas_dgemv((enum CBLAS_ORDER)7, CblasNoTrans, 4, 4, 1.0, a, 4, b, 1, 0.0, c, 1);
              cblas_sgemm((enum CBLAS_ORDER)0, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0f, fa, 4, fa, 4, 0.0f, fc, 4);
              cblas_dgemm((enum CBLAS_ORDER)99, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);  /* fine */
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out.count("parameter number  0 had an illegal value"), 3, proc.out)  # OpenBLAS's own
        calls = sorted(report["calls"], key=lambda c: c["seq"])
        self.assertEqual([c.get("xerbla", {}).get("parameter") for c in calls], [0, 0, 0, None])
        routines = {r["routine"]: r for r in report["routines"]}
        self.assertEqual((routines["dgemv"]["failures"], routines["sgemm"]["failures"], routines["dgemm"]["failures"]),
                         (1, 1, 1))
        self.assertEqual(routines["sgemm"].get("gflop", 0), 0, "a refused call computed nothing")
        found = [d for d in report["diagnoses"] if d["id"] == "illegal-argument"]
        self.assertEqual([d["call"] for d in found], [c["id"] for c in calls[:3]], [d["title"] for d in found])
        for d in found:
            self.assertIn("parameter number 0 had an illegal value", d["title"])
            self.assertIn("neither CblasRowMajor (101) nor CblasColMajor (102)", " ".join(d["evidence"]))
        self.assertEqual(report["captures"], [], "a layout no workload can state is not captured as if legal")

    def test_a_refused_gemms_replay_keeps_the_padding_of_its_legal_operands(self):
        # LDC is refused; LDA and LDB are legal and past their rows (padded operands, in both
        # layouts). The replay must refuse the same argument and find nothing else: a dense
        # tensor read with the padded LDB would be a buffer overrun the program never made.
        exe = build_c("padded_refused", """
            #include <cblas.h>
            #include <stdlib.h>
            void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                        const int*, const double*, const int*, const double*, double*, const int*);
            int main(void) {
              double *a = calloc(64, 8), *b = calloc(64, 8), *c = calloc(64, 8), one = 1, zero = 0;
              int m = 5, n = 4, k = 4, lda = 7, ldb = 5, ldc = 4;
              dgemm_("N", "N", &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc);
              cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 5, 4, 4, 1.0, a, 6, b, 7, 0.0, c, 3);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(len(report["captures"]), 2, report["captures"])
        for capture in report["captures"]:
            replay = subprocess.run([CLI, "run", capture["workload"], "--json"], capture_output=True, timeout=300)
            run = json.loads(replay.stdout)
            found = [d for d in run["diagnoses"] if d["id"] != "blas-kernel-mismatch"]
            self.assertEqual([d["id"] for d in found], ["illegal-argument"], capture)
            self.assertIn("LDC", " ".join(found[0]["evidence"]) + found[0]["title"], found[0])

    def test_a_call_lapacke_refuses_before_lapack_runs_is_recorded_and_explained(self):
        # LAPACKE checks its matrices for NaN (not Inf) and returns minus the argument's position
        # without calling LAPACK or printing anything; it refuses a bad layout itself too. Those
        # calls are recorded under their routine, marked as LAPACKE's refusals, once each; the
        # ones that reach LAPACK are recorded there, as before.
        exe = build_c("lapacke_refusals", r"""
            #include <lapacke.h>
            #include <math.h>
            #include <stdio.h>
            int main(void) {
              double a[36], s[6], u[36], vt[36];
              for (int i = 0; i < 36; ++i) a[i] = (i * 7 % 11) + 1.0;
              int ok = LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'A', 6, 6, a, 6, s, u, 6, vt, 6);
              for (int i = 0; i < 36; ++i) a[i] = (i * 7 % 11) + 1.0;
              a[7] = NAN;
              int nan = LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'A', 6, 6, a, 6, s, u, 6, vt, 6);
              int layout = LAPACKE_dgesdd(42, 'A', 6, 6, a, 6, s, u, 6, vt, 6);
              double p[9] = {4, 1, 1, 1, 4, 1, 1, 1, 4};
              p[1] = NAN;  /* row 0, column 1: in the upper triangle of the row-major matrix */
              int pot = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', 3, p, 3);
              double q[9] = {4, 1, 1, 1, 4, 1, 1, 1, 4};
              q[2] = INFINITY;  /* an Inf is not LAPACKE's to refuse: DPOTRF runs */
              int inf = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', 3, q, 3);
              double g[12] = {0};
              int ipiv[4];
              int narrow = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, 3, 4, g, 3, ipiv);  /* LDA 3 < 4 columns */
              printf("narrow %d\n", narrow);
              printf("%d %d %d %d %d\n", ok, nan, layout, pot, inf);
              return 0;
            }
        """, "-llapacke", "-llapack", "-lopenblas", "-lm")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        ok, nan, layout, pot, inf = (int(x) for x in proc.out.splitlines()[-1].split())
        self.assertEqual((ok, nan, layout, pot), (0, -5, -1, -4))
        calls = {c["seq"]: c for c in report["calls"]}
        refused = sorted((c for c in report["calls"] if c.get("lapacke")), key=lambda c: c["seq"])
        self.assertEqual([(c["routine"], c["info"]) for c in refused], [("dgesdd", -5), ("dgesdd", -1), ("dpotrf", -4),
                                                                    ("dgetrf", -5)])
        self.assertEqual([c.get("input_nan", 0) for c in refused], [1, 0, 1, 0])
        # The good SVD and the Inf Cholesky reached LAPACK: recorded there, without the mark.
        lapack = [c for c in report["calls"] if not c.get("lapacke") and not c.get("parent")]
        self.assertIn("dgesdd", [c["routine"] for c in lapack])
        dpotrf = [c for c in lapack if c["routine"] == "dpotrf"]
        self.assertEqual(len(dpotrf), 1, lapack)
        self.assertEqual(dpotrf[0]["info"], inf)
        by_call = {}
        for d in report["diagnoses"]:
            for call in [d.get("call")] + d.get("facts", {}).get("calls", []):
                by_call.setdefault(call, set()).add(d["id"])
        self.assertIn("non-finite-input", by_call[refused[0]["id"]])
        self.assertIn("illegal-argument", by_call[refused[1]["id"]])
        self.assertIn("non-finite-input", by_call[refused[2]["id"]])
        titles = " ".join(d["title"] for d in report["diagnoses"])
        self.assertIn("LAPACKE_dgesdd refused its input (1 NaN and 0 Inf in its inputs) and returned -5", titles)
        self.assertIn("LAPACKE_dgesdd refused its argument 1 (returned -1)", titles)
        self.assertIn("Wrong parameter 1 in LAPACKE_dgesdd", proc.out)  # LAPACKE's own message (stdout) still prints
        # A row-major leading dimension is refused by the _work function, which names itself: the
        # evidence quotes what was printed.
        self.assertIn("narrow -5", proc.out)
        printed = next(line for line in proc.out.splitlines() if "LAPACKE_dgetrf" in line).strip()
        self.assertEqual(printed, "Wrong parameter 5 in LAPACKE_dgetrf_work")
        self.assertIn(printed, json.dumps(report["diagnoses"]))
        self.assertNotIn(refused[0]["id"], [c["call"] for c in report["captures"]])

    def test_an_illegal_transpose_is_refused_and_not_recorded_as_a_transpose(self):
        # TRANS values BLAS refuses (CBLAS 115, Fortran 'X') are xerbla's, and the call did no
        # transposed product: the record must not say it was asked for one.
        exe = build_c("bad_trans", """
            #include <cblas.h>
            #include <stdlib.h>
            void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                        const int*, const double*, const int*, const double*, double*, const int*);
            int main(void) {
              double *a = calloc(64, 8), *b = calloc(64, 8), *c = calloc(64, 8), one = 1, zero = 0;
              int n = 4;
              cblas_dgemm(CblasColMajor, (enum CBLAS_TRANSPOSE)115, CblasNoTrans, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);
              cblas_dgemm(CblasColMajor, CblasNoTrans, (enum CBLAS_TRANSPOSE)0, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);
              dgemm_("X", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
              cblas_dgemm(CblasColMajor, CblasConjTrans, CblasTrans, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);  /* fine */
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        calls = sorted(report["calls"], key=lambda c: c["seq"])
        self.assertEqual(len(calls), 4, calls)
        self.assertEqual([c.get("xerbla") is not None for c in calls], [True, True, True, False], calls)
        self.assertEqual([(c.get("trans_a", False), c.get("trans_b", False)) for c in calls],
                         [(False, False), (False, False), (False, False), (True, True)], calls)
        self.assertEqual(report["captures"], [], "an illegal transpose is not captured as a legal call")

    def test_a_conjugate_transpose_is_told_from_a_plain_one(self):
        # PyTorch multiplies by a.mH with TRANS 'C' (its conjugate bit): the record says the
        # operand was conjugated, not only transposed. On real data 'C' is 'T', nothing more.
        script = write("conj.py", """
            import torch
            a = torch.randn(40, 30, dtype=torch.complex128); b = torch.randn(40, 20, dtype=torch.complex128)
            x = torch.randn(40, 30, dtype=torch.float64); y = torch.randn(40, 20, dtype=torch.float64)
            print((a.mH @ b).shape, (a.mT @ b).shape, (x.mH @ y).shape)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        gemms = [c for c in sorted(report["calls"], key=lambda c: c["seq"]) if c["routine"] in ("zgemm", "dgemm")]
        flags = [(c["routine"], c.get("trans_b", False), c.get("conj_b", False), c.get("conj_a", False))
                 for c in gemms]
        self.assertEqual(flags, [("zgemm", True, True, False), ("zgemm", True, False, False),
                                 ("dgemm", True, False, False)], gemms)
        # A refused call's evidence says how each operand was passed; CBLAS's ConjTrans too.
        exe = build_c("conj_refused", """
            #include <cblas.h>
            #include <complex.h>
            #include <stdlib.h>
            int main(void) {
              double complex *a = calloc(64, 16), *b = calloc(64, 16), *c = calloc(64, 16), one = 1, zero = 0;
              cblas_zgemm(CblasColMajor, CblasConjTrans, CblasTrans, 4, 4, 4, &one, a, 2, b, 4, &zero, c, 4);
              cblas_zgemm(CblasColMajor, CblasNoTrans, CblasConjTrans, 4, 4, 4, &one, a, 4, b, 4, &zero, c, 4);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        calls = sorted(report["calls"], key=lambda c: c["seq"])
        self.assertEqual([(c.get("trans_a", False), c.get("conj_a", False), c.get("trans_b", False),
                           c.get("conj_b", False)) for c in calls], [(True, True, True, False),
                                                                     (False, False, True, True)], calls)
        evidence = " ".join(e for d in report["diagnoses"] if d.get("call") == calls[0]["id"] for e in d["evidence"])
        self.assertIn("A conjugate-transposed, B transposed", evidence)

    def test_a_complex_syrk_refuses_a_conjugate_transpose_and_says_herk_does_it(self):
        # ZSYRK/CSYRK take TRANS 'N' or 'T' only (A**H*A is ?HERK's): 'C' or CblasConjTrans is
        # refused as parameter 2, and the evidence does not say the call conjugated anything.
        exe = build_c("syrk_conj", """
            #include <cblas.h>
            #include <complex.h>
            #include <stdlib.h>
            void zsyrk_(const char*, const char*, const int*, const int*, const double complex*,
                        const double complex*, const int*, const double complex*, double complex*, const int*,
                        size_t, size_t);
            int main(void) {
              const int n = 4;
              double complex *a = calloc(16, 16), *c = calloc(16, 16), one = 1, zero = 0;
              float complex *fa = calloc(16, 8), *fc = calloc(16, 8), fone = 1, fzero = 0;
              zsyrk_("U", "C", &n, &n, &one, a, &n, &zero, c, &n, 1, 1);
              cblas_csyrk(CblasColMajor, CblasUpper, CblasConjTrans, 4, 4, &fone, fa, 4, &fzero, fc, 4);
              cblas_zsyrk(CblasColMajor, CblasUpper, CblasTrans, 4, 4, &one, a, 4, &zero, c, 4);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        calls = sorted(report["calls"], key=lambda c: c["seq"])
        self.assertEqual([(c["routine"], c.get("xerbla", {}).get("parameter")) for c in calls],
                         [("zsyrk", 2), ("csyrk", 2), ("zsyrk", None)], calls)
        for call, herk, allowed in ((calls[0], "ZHERK", "must be N or T"),
                                    (calls[1], "CHERK", "must be CblasNoTrans or CblasTrans")):
            d = next(d for d in report["diagnoses"] if d.get("call") == call["id"])
            self.assertEqual(d["id"], "illegal-argument")
            evidence = " ".join(d["evidence"])
            self.assertIn(allowed, evidence)
            self.assertNotIn("conjugate-transposed", evidence)
            self.assertIn(herk, d["fix"])
            self.assertNotIn("leading dimension", d["fix"])

    def test_a_program_killed_by_sigkill_was_killed_not_crashed(self):
        # kill -9, a scheduler or the OOM killer: SIGKILL comes from outside, outside a call or in one.
        for where in ("outside", "inside"):
            script = write(f"sigkill_{where}.py", f"""
                import os, signal, threading, time
                import numpy as np
                a = np.random.rand(64, 64)
                for _ in range(3):
                    a @ a
                if "{where}" == "inside":  # killed by another thread while a long SVD runs
                    threading.Thread(target=lambda: (time.sleep(0.5), os.kill(os.getpid(), signal.SIGKILL))).start()
                    while True:
                        np.linalg.svd(np.random.rand(1500, 1500))
                os.kill(os.getpid(), signal.SIGKILL)
            """)
            proc, report = record(PYTHON, script)
            self.assertEqual(proc.returncode, 128 + signal.SIGKILL, proc.err)
            self.assertNotIn("error [program-crashed]", proc.err)
            crashed = [d for d in report["diagnoses"] if d["id"] in ("program-crashed", "kernel-hang")]
            self.assertEqual(len(crashed), 1, report["diagnoses"])
            self.assertEqual(crashed[0]["severity"], "warning", crashed[0])
            if where == "outside":
                self.assertIn("the program was killed by SIGKILL outside any recorded", crashed[0]["title"])
                self.assertNotIn("crashed in the program", " ".join(crashed[0]["evidence"]))
                self.assertIn("out-of-memory killer", crashed[0]["cause"])
                self.assertIn("dmesg", crashed[0]["fix"])

    def test_a_new_recording_replaces_the_child_sessions_of_an_older_one_of_its_name(self):
        # Each child's session stands beside the program's (STEM-HOST-PID.json): an earlier
        # recording's would stay beside the new one, pointing at captures it replaced.
        exe = build_c("forks_n", """
            #include <cblas.h>
            #include <stdlib.h>
            #include <sys/wait.h>
            #include <unistd.h>
            int main(int argc, char** argv) {
              double a = 1, b = 1, c = 0;
              for (int i = 0; i < atoi(argv[1]); ++i) {
                const pid_t pid = fork();
                if (pid == 0) {
                  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
                  _exit(0);
                }
                waitpid(pid, 0, 0);
              }
              return 0;
            }
        """, "-lopenblas")
        session = os.path.join(WORK, "kids.json")
        # Not a child session of a recording: each stays.
        write("kids-notes.json", "{}")
        write("kids-vm-12.json", '{"format":"blasscope-session","version":1,"kind":"recording","calls":[],'
                                 '"parent_pid":null,"pid":12}' + " " * 64)

        def run(children):
            proc = subprocess.run([CLI, "record", "--output", session, "--", exe, str(children)],
                                  capture_output=True, text=True, timeout=120)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            report = json.loads(subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True,
                                               text=True, timeout=60).stdout)
            return proc, sorted(os.path.basename(c["session"]) for c in report["children"])

        _, first = run(3)
        self.assertEqual(len(first), 3)
        proc, second = run(1)
        self.assertEqual(len(second), 1)
        self.assertIn("removed 3 child sessions of an earlier recording", proc.stderr)
        beside = sorted(n for n in os.listdir(WORK) if n.startswith("kids-"))
        self.assertEqual(beside, sorted(second + ["kids-notes.json", "kids-vm-12.json"]))

    def test_a_second_recording_to_a_session_being_recorded_is_refused(self):
        # Two recordings to one OUTPUT at once: the second would take the first one's captures for
        # an earlier recording's, and the first would list captures written over. It is refused
        # before anything runs, and the first one's captures are all its own.
        exe = build_c("bad_lda_waits", """
            #include <cblas.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <unistd.h>
            int main(int argc, char** argv) {
              double *a = calloc(64, 8), *c = calloc(64, 8);
              for (int i = 0; i < atoi(argv[1]); ++i)  /* refused: LDA 2 for 4 rows */
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 2, a, 4, 0.0, c, 4);
              printf("ready\\n");
              fflush(stdout);
              while (argc > 2 && access(argv[2], F_OK) != 0) usleep(10000);
              return 0;
            }
        """, "-lopenblas")
        session = os.path.join(WORK, "twice.json")
        go = os.path.join(WORK, "twice.go")
        first = subprocess.Popen([CLI, "record", "--quiet", "--output", session, "--", exe, "5", go],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=WORK)
        try:
            # OpenBLAS says each refusal on standard output first.
            while (line := first.stdout.readline()) and line.strip() != b"ready":
                pass
            self.assertEqual(line.strip(), b"ready")
            second = subprocess.run([CLI, "record", "--output", session, "--", exe, "2"], capture_output=True,
                                    text=True, timeout=60)
        finally:
            write("twice.go", "")
            first.wait(timeout=60)
            first.stdout.close()
        self.assertEqual(second.returncode, 2, second.stderr)
        self.assertIn("another recording to this session is running now", second.stderr)
        self.assertNotIn("ready", second.stdout, "nothing was run")
        self.assertEqual(first.returncode, 0)
        report = json.loads(subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True,
                                           text=True, timeout=60).stdout)
        listed = sorted(os.path.basename(os.path.dirname(c["workload"])) for c in report["captures"])
        self.assertEqual(listed, [f"call-{i}" for i in range(1, 6)])
        self.assertEqual(sorted(os.listdir(os.path.join(WORK, "twice.captures"))), listed)

    def test_a_new_recording_replaces_the_captures_of_an_older_one_of_its_name(self):
        # Captures are named after the session (SESSION.captures/call-ID): an older recording's
        # call-IDs left there would be taken for the new session's.
        exe = build_c("bad_lda_twice", """
            #include <cblas.h>
            #include <stdlib.h>
            int main(int argc, char** argv) {
              double *a = calloc(64, 8), *c = calloc(64, 8);
              int calls = argc > 1 ? atoi(argv[1]) : 1;
              for (int i = 0; i < 2 * calls; ++i)  /* every other call refused: LDA 2 for 4 rows */
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, i % 2 ? 2 : 4, a, 4, 0.0, c, 4);
              return 0;
            }
        """, "-lopenblas")
        session = os.path.join(WORK, "replaced.json")
        folder = os.path.join(WORK, "replaced.captures")
        mine = os.path.join(folder, "call-999")  # not BLAScope's: a file of the user's in it
        os.makedirs(mine, exist_ok=True)
        with open(os.path.join(mine, "notes.txt"), "w") as f:
            f.write("mine")

        def run(*options, calls="3"):
            proc = subprocess.run([CLI, "record", "--output", session, *options, "--", exe, calls],
                                  capture_output=True, text=True, timeout=120)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            report = json.loads(subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True,
                                               text=True, timeout=60).stdout)
            listed = sorted(os.path.basename(os.path.dirname(c["workload"])) for c in report["captures"])
            on_disk = sorted(d for d in os.listdir(folder) if d != "call-999") if os.path.isdir(folder) else []
            return proc, listed, on_disk

        proc, listed, on_disk = run()
        self.assertEqual(len(listed), 3, proc.stderr)
        self.assertEqual(on_disk, listed)
        proc, listed, on_disk = run(calls="1")
        self.assertEqual((len(listed), on_disk), (1, listed), proc.stderr)
        self.assertIn("removed 3 captures of an earlier recording", proc.stderr)
        # A command that cannot start leaves the earlier session and its captures as they were.
        failed = subprocess.run([CLI, "record", "--output", session, "--", exe + "-missing"], capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(failed.returncode, 127, failed.stderr)
        self.assertEqual(sorted(d for d in os.listdir(folder) if d != "call-999"), listed)
        proc, listed, on_disk = run("--capture", "none")
        self.assertEqual((listed, on_disk), ([], []), proc.stderr)
        self.assertEqual(os.listdir(mine), ["notes.txt"], "what is not BLAScope's stays")

    def test_a_program_whose_output_reader_went_away_is_not_a_crash(self):
        # `program | head`: once head exits, the program's next write raises SIGPIPE.
        exe = build_c("pipe_writer", """
            #include <cblas.h>
            #include <stdio.h>
            int main(void) {
              double a[4] = {1, 2, 3, 4}, c[4];
              for (int i = 0; i < 1000000; ++i) {
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, a, 2, 0.0, c, 2);
                printf("%d %g\\n", i, c[0]);
                fflush(stdout);
              }
              return 0;
            }
        """, "-lopenblas")
        session = os.path.join(WORK, "pipe.json")
        proc = subprocess.Popen([CLI, "record", "--output", session, "--", exe], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        self.assertTrue(proc.stdout.readline().startswith("0 "))
        proc.stdout.close()
        err = proc.stderr.read()
        self.assertEqual(proc.wait(timeout=120), 128 + signal.SIGPIPE, err)
        report = json.loads(subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True, text=True,
                                           timeout=60).stdout)
        crashed = [d for d in report["diagnoses"] if d["id"] == "program-crashed"]
        self.assertEqual(len(crashed), 1, err)
        self.assertEqual(crashed[0]["severity"], "warning", crashed[0])
        self.assertIn("SIGPIPE", crashed[0]["title"])
        self.assertIn("reader had gone", crashed[0]["cause"])
        self.assertNotIn("error [program-crashed]", err)

    def test_a_thread_waiting_for_room_in_a_full_ring_sleeps(self):
        # A calling thread that finds the ring full waits for the recorder. Spinning, it took the
        # core the recorder needed (a program keeping every core busy ran ten times slower).
        # Here the recorder is stopped while the program fills the ring: the thread must wait
        # without burning its CPU, and lose nothing.
        exe = build_c("ring_sleeper", """
            #include <cblas.h>
            #include <stdio.h>
            #include <time.h>
            static double seconds(clockid_t clock) {
              struct timespec t;
              clock_gettime(clock, &t);
              return t.tv_sec + t.tv_nsec * 1e-9;
            }
            int main(void) {
              char line[16];
              puts("ready");
              fflush(stdout);
              if (!fgets(line, sizeof line, stdin)) return 2;
              double a = 1, b = 1, c = 0;
              const double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
              for (int i = 0; i < 100000; ++i)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
              printf("%f %f\\n", seconds(CLOCK_MONOTONIC) - wall, seconds(CLOCK_THREAD_CPUTIME_ID) - cpu);
              return 0;
            }
        """, "-lopenblas")
        session = os.path.join(WORK, "ring_sleeper.json")
        proc = subprocess.Popen([CLI, "record", "--quiet", "--output", session, "--", exe], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(proc.stdout.readline(), "ready\n")  # in main: the preload has attached
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            proc.stdin.write("go\n")
            proc.stdin.flush()
            time.sleep(2.0)
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 0, err)
        wall, cpu = map(float, out.split())
        self.assertGreater(wall, 1.5, out)  # it did wait for the stopped recorder
        self.assertLess(cpu, 0.5 * wall, out)
        report = json.loads(subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True, text=True,
                                           timeout=60).stdout)
        self.assertEqual(calls_of(report, "dgemm"), 100000)
        self.assertEqual(len(report["calls"]), 100000)
        self.assertEqual(report["calls_not_kept"], 0)

    def test_a_process_left_running_after_the_recording_does_not_wait_for_room(self):
        # A daemon the program leaves behind makes calls after the recorder's last drain: the
        # ring fills and nothing will empty it. Its calls are dropped at once, not after waiting
        # ten seconds for a recorder that has gone.
        exe = build_c("leftover", TIMED_GEMMS_C + """
            int main(int argc, char** argv) {
              if (fork() != 0) return 0;
              while (access(argv[1], F_OK) != 0) usleep(10000);  /* the recorder has finished */
              timed_gemms(100000, argv[2]);
              return 0;
            }
        """, "-lopenblas")
        session = os.path.join(WORK, "leftover.json")
        took = os.path.join(WORK, "leftover.took")
        proc = subprocess.run([CLI, "record", "--quiet", "--output", session, "--", exe, session, took],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertLess(seconds_written_to(took), 5.0)

    def _seconds_after_killing_the_recorder(self, name, work_c):
        """Records a C program that makes one GEMM, says "ready" and waits; SIGKILLs the recorder
        (as the OOM killer would), then lets the program run `work_c` (a statement with `argv[2]`,
        the file it writes its seconds to), and returns those seconds."""
        exe = build_c(name, TIMED_GEMMS_C + """
            #include <sys/wait.h>
            int main(int argc, char** argv) {
              double a = 1, b = 1, c = 0;
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
              printf("ready\\n");
              fflush(stdout);
              while (access(argv[1], F_OK) != 0) usleep(10000);  /* the recorder has been killed */
              """ + work_c + """
              return 0;
            }
        """, "-lopenblas")
        go, took = os.path.join(WORK, name + ".go"), os.path.join(WORK, name + ".took")
        proc = subprocess.Popen([CLI, "record", "--quiet", "--output", os.path.join(WORK, name + ".json"), "--", exe,
                                 go, took], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=WORK)
        buffer = None
        try:
            self.assertEqual(proc.stdout.readline().strip(), b"ready")
            buffer = recording_buffer_of(proc.pid)
            self.assertIsNotNone(buffer)
            proc.kill()
            proc.wait(timeout=30)
            write(name + ".go", "")
            return seconds_written_to(took)
        finally:
            kill_processes_running(exe)
            proc.stdout.close()
            if buffer and os.path.exists(buffer):
                os.unlink(buffer)  # nobody was left to remove it
            # Nor its unfinished session, where it had begun writing one before it was killed.
            for file in os.listdir(WORK):
                if file.startswith(name + ".json.") and file.endswith(".part"):
                    os.unlink(os.path.join(WORK, file))

    def test_a_program_whose_recorder_was_killed_goes_on_at_once(self):
        # SIGKILL (or the OOM killer) takes the recorder without its last drain: the program's ring
        # fills and nobody empties it. The recorder's lock on the shared file went with it, and the
        # program, finding it free, drops its calls and goes on, instead of waiting ten seconds
        # for room.
        took_seconds = self._seconds_after_killing_the_recorder("orphaned", "timed_gemms(200000, argv[2]);")
        # 200,000 calls take well under a second here; a wait of ten seconds was the bug.
        self.assertLess(took_seconds, 5.0)

    def test_forks_of_a_program_whose_recorder_was_killed_do_not_wait_for_it(self):
        # A new process waits (up to 20 ms) until the recorder holds a handle on it, so that a
        # crash at once is still named. A killed recorder never will: the first fork finds its
        # lock gone and says so for all, instead of 50 forks waiting a second in all.
        took_seconds = self._seconds_after_killing_the_recorder("orphaned-forks", r"""
              struct timespec t0, t1;
              clock_gettime(CLOCK_MONOTONIC, &t0);
              for (int i = 0; i < 50; ++i) {
                const pid_t pid = fork();
                if (pid == 0) _exit(0);
                waitpid(pid, NULL, 0);
              }
              clock_gettime(CLOCK_MONOTONIC, &t1);
              FILE* out = fopen(argv[2], "w");
              fprintf(out, "%f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
              fclose(out);""")
        self.assertLess(took_seconds, 0.5)

    def test_a_scale_dlascl_refuses_is_captured_and_told_apart(self):
        exe = build_c("lascl", """
            #include <math.h>
            #include <stdio.h>
            void dlascl_(const char*, const int*, const int*, const double*, const double*, const int*, const int*,
                         double*, const int*, int*);
            int main(void) {
              double a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, cfrom = 0.0, cto = 2.0;
              int m = 3, n = 4, kl = 0, ku = 0, lda = 3, info;
              dlascl_("G", &kl, &ku, &cfrom, &cto, &m, &n, a, &lda, &info);
              printf("zero %d\\n", info);
              cfrom = NAN;
              dlascl_("G", &kl, &ku, &cfrom, &cto, &m, &n, a, &lda, &info);
              printf("nan %d\\n", info);
              cfrom = 1.0;
              dlascl_("G", &kl, &ku, &cfrom, &cto, &m, &n, a, &lda, &info);
              printf("fine %d\\n", info);
              return 0;
            }
        """, "-llapack")
        proc, report = record(exe)
        for line in ("zero -4", "nan -4", "fine 0"):  # this LAPACK refuses both as parameter 4
            self.assertIn(line + "\n", proc.out)
        titles = [d["title"] for d in report["diagnoses"] if d["id"] == "dlascl-invalid-cfrom"]
        self.assertEqual(len(titles), 2, titles)
        self.assertIn("CFROM = 0", titles[0])
        self.assertIn("CFROM = nan", titles[1])
        zero = next(d for d in report["diagnoses"] if d["call"] == 1)
        self.assertIn("as the program passed it", zero["cause"])
        # Both failing calls were captured (their matrix is finite: the scale is what fails), the
        # good one was not, and each replays to the same finding.
        self.assertEqual([c["call"] for c in report["captures"]], [1, 2])
        for capture in report["captures"]:
            self.assertEqual(replay_ids(capture), ["dlascl-invalid-cfrom"])

    def test_captured_gemms_replay_to_the_programs_own_result(self):
        # --capture all keeps every GEMM with its values; C is copied before the call (beta != 0
        # reads it), A and B after. Column-major with A transposed and row-major, both replayed.
        exe = build_c("gemm_values", """
            #include <cblas.h>
            #include <stdio.h>
            int main(void) {
              double a[12], b[12], c[9], r[6];
              for (int i = 0; i < 12; ++i) a[i] = 0.5 * i - 2, b[i] = 1.0 / (i + 1);
              for (int i = 0; i < 9; ++i) c[i] = i % 4;
              /* C(3x3) = 2 A^T B + 0.5 C, A stored 4x3, B 4x3, column-major */
              cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, 3, 3, 4, 2.0, a, 4, b, 4, 0.5, c, 3);
              /* R(2x3) = A(2x4) B(4x3), row-major, beta = 0 */
              cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 3, 4, 1.0, a, 4, b, 3, 0.0, r, 3);
              for (int i = 0; i < 9; ++i) printf("%.17g\\n", c[i]);
              for (int i = 0; i < 6; ++i) printf("%.17g\\n", r[i]);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe, options=("--capture", "all"))
        printed = [float(v) for v in proc.out.split()]
        self.assertEqual(len(report["captures"]), 2, proc.err)
        self.assertNotIn("not captured", proc.err)
        expected = {1: (printed[:9], "F", (3, 3)), 2: (printed[9:], "C", (2, 3))}
        for capture in report["captures"]:
            with self.subTest(call=capture["call"]):
                values, order, shape = expected[capture["call"]]
                out = os.path.join(WORK, f"gemm-out-{capture['call']}")
                run = subprocess.run([CLI, "run", capture["workload"], "--save-outputs", out], capture_output=True,
                                     timeout=300)
                self.assertEqual(run.returncode, 0, run.stderr.decode())
                check = subprocess.run(
                    [PYTHON, "-c", "import numpy as np, sys, json; c = np.load(sys.argv[1]); "
                     "print(json.dumps([list(c.shape), c.ravel(order=sys.argv[2]).tolist()]))",
                     os.path.join(out, "c.npy"), order], capture_output=True, text=True)
                got_shape, got = json.loads(check.stdout)
                self.assertEqual(tuple(got_shape), shape)
                for g, v in zip(got, values):
                    self.assertAlmostEqual(g, v, places=12)

    def test_capture_all_stops_at_its_cap_and_says_what_it_left_out(self):
        exe = build_c("many_gemms", """
            #include <cblas.h>
            #include <math.h>
            int main(void) {
              double a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4];
              for (int i = 0; i < 150; ++i)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
              a[0] = NAN;  /* the failure after them: its capture (C too: beta = 1) must find room */
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 1.0, c, 2);
              return 0;
            }
        """, "-lopenblas", "-lm")
        proc, report = record(exe, options=("--capture", "all", "--check-values"))
        # Calls not expected to fail take three quarters of the count cap (100); failures the rest.
        self.assertEqual(len(report["captures"]), 76)
        self.assertEqual(report["captures"][-1]["call"], 151)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(report["captures"][-1]["workload"]), "c.npy")))
        replayed = replay_ids(report["captures"][-1])
        self.assertIn("non-finite-input", replayed)
        self.assertIn("non-finite-output", replayed)
        self.assertEqual(report["captures_skipped"], 75)  # every call was to be captured
        self.assertIn("note: 75 calls to be captured were not", proc.err)
        self.assertIn("capture: and 66 more in", proc.err)  # 10 listed one by one
        # A call's time is the routine's: writing its capture (tens of microseconds) is not in it.
        # Each follows the previous one's capture (files written: its caches are cold), so it takes
        # microseconds where the calls past the cap take a fifth of one; writing a capture's
        # folder and files takes tens of microseconds, which must not be in it.
        seconds = sorted(c["seconds"] for c in report["calls"] if c.get("captured"))
        self.assertLess(seconds[len(seconds) // 2], 15e-6, seconds)
        # --capture failing (the default) wants only failing calls: good ones are not counted.
        proc, report = record(exe)
        self.assertEqual((report["captures"], report["captures_skipped"]), ([], 0))
        self.assertNotIn("to be captured", proc.err)

    def test_capture_all_keeps_a_finite_failure_after_many_good_calls(self):
        # A driver's capture is written before it runs, when nothing says it will fail: past the
        # good calls' share, a Cholesky of a finite matrix that is not positive definite (the
        # failure --capture all is for) keeps its copy through the call and is written after.
        script = write("many_choleskys.py", """
            import numpy as np, scipy.linalg as sl
            rng = np.random.default_rng(0)
            for i in range(90):
                x = rng.standard_normal((20, 20)); sl.cho_factor(x @ x.T + 20 * np.eye(20))
            x = rng.standard_normal((20, 20)); a = x @ x.T + 20 * np.eye(20); a[4, 4] = -1000
            try:
                sl.cho_factor(a)
            except np.linalg.LinAlgError as e:
                print(e)
        """)
        proc, report = record(PYTHON, script, options=("--capture", "all"))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("5-th leading minor", proc.out)
        failing = [c["id"] for c in report["calls"] if c["routine"] == "dpotrf" and c["info"] == 5]
        self.assertEqual(len(failing), 1)
        captured = {c["call"]: c for c in report["captures"]}
        self.assertIn(failing[0], captured, proc.err)
        self.assertEqual(len(report["captures"]), 76)  # the good calls' 75, then the failure
        self.assertEqual(replay_ids(captured[failing[0]]), ["lapack-failed"])

    def test_blas_from_many_threads_at_once(self):
        exe = build_c("threads", """
            #include <cblas.h>
            #include <pthread.h>
            #include <stdlib.h>
            static void* work(void* arg) {
              double a[16] = {1}, b[16] = {1}, c[16];
              for (int i = 0; i < 2000; ++i)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);
              return arg;
            }
            int main(void) {
              pthread_t t[8];
              for (int i = 0; i < 8; ++i) pthread_create(&t[i], 0, work, 0);
              for (int i = 0; i < 8; ++i) pthread_join(t[i], 0);
              return 0;
            }
        """, "-lopenblas", "-lpthread")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 16000)
        self.assertEqual(len(report["calls"]), 16000)
        self.assertEqual(len({c["thread"] for c in report["calls"]}), 8)
        self.assertEqual(len({c["id"] for c in report["calls"]}), 16000)

    def test_hundreds_of_thousands_of_calls_from_threads_are_all_in_the_session_once(self):
        # Many laps of the ring and many full buffers of the session, from 8 threads at once,
        # with the recorder stepping aside for its session writer: every call is listed once,
        # numbered without a gap, and each thread's calls in the order it made them.
        exe = build_c("many_threads", """
            #include <cblas.h>
            #include <pthread.h>
            static void* work(void* arg) {
              double a = 1, b = 1, c = 0;
              for (int i = 0; i < 40000; ++i)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
              return arg;
            }
            int main(void) {
              pthread_t t[8];
              for (int i = 0; i < 8; ++i) pthread_create(&t[i], 0, work, 0);
              for (int i = 0; i < 8; ++i) pthread_join(t[i], 0);
              return 0;
            }
        """, "-lopenblas", "-lpthread")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 320000)
        calls = report["calls"]
        self.assertEqual(len(calls), 320000)
        self.assertEqual([c["seq"] for c in calls], list(range(320000)))
        self.assertEqual(len({c["id"] for c in calls}), 320000)
        by_thread = {}
        for c in calls:
            by_thread.setdefault(c["thread"], []).append(c["start"])
        self.assertEqual(sorted(len(starts) for starts in by_thread.values()), [40000] * 8)
        for starts in by_thread.values():
            self.assertEqual(starts, sorted(starts))

    def test_call_times_agree_with_the_programs_own_clock_in_both_call_clocks(self):
        # The program times each GEMM itself with CLOCK_MONOTONIC; the recording (TSC mapped
        # to nanoseconds, or CLOCK_MONOTONIC when asked) must find the same time inside them.
        exe = build_c("timed", """
            #include <cblas.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <time.h>
            static double now(void) {
              struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9;
            }
            int main(void) {
              const int n = 300;
              double *a = calloc(n * n, 8), *b = calloc(n * n, 8), *c = calloc(n * n, 8);
              for (int i = 0; i < 20; ++i) {
                const double start = now();
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
                printf("%.9f\\n", now() - start);
              }
              return 0;
            }
        """, "-lopenblas")
        for clock in ("default", "monotonic"):
            with self.subTest(clock=clock):
                env = dict(os.environ)
                if clock == "monotonic":
                    env["BLASSCOPE_RECORD_CLOCK"] = "monotonic"
                session = os.path.join(WORK, f"timed-{clock}.json")
                proc = subprocess.run([CLI, "record", "--quiet", "--output", session, "--", exe], capture_output=True,
                                      text=True, timeout=300, env=env)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                inside = [float(line) for line in proc.stdout.split()]
                with open(session) as f:
                    recorded = json.load(f)
                calls = recorded["calls"]
                self.assertEqual(len(calls), 20)
                # Each call's recorded time lies inside the program's own; on a loaded machine the
                # program may lose its core between its clock and the call, so the scale is
                # judged on the call where the two agree best (a clock mapped wrong fails all).
                ratios = [c["seconds"] / own for c, own in zip(calls, inside)]
                for c, own in zip(calls, inside):
                    self.assertLessEqual(c["seconds"], own * 1.01 + 1e-4)
                self.assertGreater(max(ratios), 0.9, ratios)
                starts = [c["start"] for c in calls]
                self.assertEqual(starts, sorted(starts))
                self.assertTrue(0 <= starts[0] and starts[-1] + calls[-1]["seconds"] <= recorded["wall_seconds"])

    def test_scipy_eigh_failures_are_captured_as_syevr_and_replay(self):
        # SciPy's eigh calls SYEVR. On this LAPACK a NaN off the diagonal makes it return, with
        # eigenvectors, INFO = 0 and M = 0: no eigenvalue computed, and SciPy hands back the
        # zeros it allocated (the silent failure: the missing ones count as NaN). An Inf gives
        # NaN eigenvalues with INFO = 0. Each capture replays SYEVR with the program's JOBZ and
        # UPLO to the same diagnoses; a call for some eigenvalues (subset_by_index: RANGE 'I')
        # is not replayed: it returns fewer than it was asked for (here none), INFO = 0 and no
        # error, the same silent failure.
        script = write("eigh_syevr.py", """
            import numpy as np, scipy.linalg as sl
            s = np.random.default_rng(4).random((8, 8)); s = s + s.T
            nan = s.copy(); nan[0, 1] = nan[1, 0] = np.nan
            inf = s.copy(); inf[2, 2] = np.inf
            for name, a, kwargs in (("nan", nan, {}), ("inf upper", inf, {"lower": False, "eigvals_only": True}),
                                    ("subset", nan, {"subset_by_index": [0, 2]})):
                try:
                    out = sl.eigh(a, check_finite=False, **kwargs)
                    w = out if kwargs.get("eigvals_only") else out[0]
                    print(name, "returned, finite eigenvalues:", bool(np.isfinite(w).all()), "count:", len(w))
                except np.linalg.LinAlgError as e:
                    print(name, "LinAlgError:", e)
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("nan returned, finite eigenvalues: True count: 8", proc.out)
        self.assertIn("inf upper returned, finite eigenvalues: False", proc.out)
        self.assertIn("subset returned, finite eigenvalues: True count: 0", proc.out)
        calls = sorted((c for c in report["calls"] if c["routine"] == "dsyevr" and not c.get("workspace_query")),
                       key=lambda c: c["id"])
        self.assertEqual(len(calls), 3)
        nan_call, inf_call, subset_call = calls
        self.assertTrue(nan_call.get("incomplete"), nan_call)
        missing = next(d for d in report["diagnoses"] if d["id"] == "non-finite-output" and d["call"] == nan_call["id"])
        self.assertIn("asked for all 8 eigenvalues, it returned INFO = 0 without computing them all, on NaN/Inf input "
                      "(8 of its 8 results are no eigenvalues", missing["title"])
        self.assertIn("non-finite-output",
                      [d["id"] for d in report["diagnoses"] if inf_call["id"] in d.get("calls", [d.get("call")])])
        self.assertTrue(subset_call.get("incomplete"), subset_call)
        short = next(d for d in report["diagnoses"] if d["id"] == "non-finite-output" and d["call"] == subset_call["id"])
        self.assertIn("asked for eigenvalues by index (RANGE 'I'), it returned INFO = 0 without computing them all, "
                      "on NaN/Inf input (3 of those asked for are missing", short["title"])
        self.assertEqual(next(t for t in report["routines"] if t["routine"] == "dsyevr")["failures"], 3)
        captures = {c["call"]: c for c in report["captures"] if c["routine"] == "dsyevr"}
        self.assertEqual(sorted(captures), [nan_call["id"], inf_call["id"]], proc.err)  # not the subset
        for call, (uplo, vectors) in ((nan_call, ("L", True)), (inf_call, ("U", False))):
            with self.subTest(call=call["id"]):
                with open(captures[call["id"]]["workload"]) as f:
                    op = json.load(f)["ops"][0]
                self.assertEqual((op["op"], op["driver"], op["uplo"], op["vectors"]), ("eigh", "syevr", uplo, vectors))
                recorded = {d["id"] for d in report["diagnoses"] if call["id"] in d.get("calls", [d.get("call")])}
                self.assertEqual(set(replay_ids(captures[call["id"]])), recorded)
        self.assertEqual(report["uncaptured"]["not_replayable"], {"dsyevr": 1})

    def test_scipy_eigh_of_a_nan_on_the_diagonal_hangs_and_its_capture_hangs_too(self):
        # This LAPACK's DSYEVR with eigenvectors never returns for a NaN on the diagonal (off
        # it, all-zero eigenvalues): stopped by --timeout as kernel-hang, captured before it
        # ran, and the capture hangs the same way under run's --timeout.
        script = write("eigh_hang.py", """
            import numpy as np, scipy.linalg as sl
            s = np.random.default_rng(3).random((3, 3)); s = s + s.T; s[0, 0] = np.nan
            sl.eigh(s, check_finite=False)
            print("returned")
        """)
        proc, report = record(PYTHON, script, options=("--timeout", "4"))
        self.assertEqual(proc.returncode, 124, proc.err)
        self.assertNotIn("returned", proc.out)
        hang = next(d for d in report["diagnoses"] if d["id"] == "kernel-hang")
        self.assertEqual(hang["severity"], "error")
        self.assertIn("DSYEVR", hang["title"])
        capture = next(c for c in report["captures"] if c["call"] == hang["call"])
        replay = subprocess.run([CLI, "run", capture["workload"], "--timeout", "3", "--json"], capture_output=True,
                                timeout=120)
        ids = {d["id"] for d in json.loads(replay.stdout)["diagnoses"]}
        self.assertEqual(ids - {"blas-kernel-mismatch"}, {"kernel-hang", "non-finite-input"})

    def test_geev_of_a_nan_matrix_is_an_argument_lapack_computed_not_the_programs(self):
        # DGEEV with a NaN: its balancing DGEBAL refuses A (parameter 3), DGEHRD then its
        # parameter 2 and DHSEQR its parameter 4, the message SciPy raises. Not the program's
        # arguments: the diagnosis says the value was computed from the NaN.
        exe = build_c("geev_nan", """
            #include <stdio.h>
            #include <math.h>
            #include <stddef.h>
            void dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*, double*,
                        const int*, double*, const int*, double*, const int*, int*, size_t, size_t);
            int main(void) {
              int n = 5, info = 0, lwork = 500, one = 1;
              double a[25], wr[5], wi[5], work[500], vl[1], vr[1];
              for (int i = 0; i < 25; ++i) a[i] = (i * 7 % 11) / 10.0;
              a[1 + 2 * 5] = NAN;
              dgeev_("N", "N", &n, a, &n, wr, wi, vl, &one, vr, &one, work, &lwork, &info, 1, 1);
              printf("info %d\\n", info);
              return 0;
            }
        """, "-llapack", "-lm")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        printed = [line.split("On entry to ")[1].split(" had")[0].split() for line in proc.out.splitlines()
                   if "On entry to" in line]
        self.assertEqual(printed, [["DGEBAL", "parameter", "number", "3"], ["DGEHRD", "parameter", "number", "2"],
                                   ["DHSEQR", "parameter", "number", "4"]])
        d = next(d for d in report["diagnoses"] if d["id"] == "illegal-argument")
        self.assertIn("on entry to DHSEQR parameter number 4", d["title"])
        self.assertIn("computed from a NaN/Inf input", d["title"])
        # DGEHRD (recorded, inside DGEEV) and DGEBAL (not recorded) reported too: listed, not the title.
        for earlier in ("DGEHRD parameter number 2", "DGEBAL parameter number 3"):
            self.assertEqual(sum(f", inside it: on entry to {earlier} had" in e for e in d["evidence"]), 1,
                             d["evidence"])
        self.assertEqual([d["id"] for d in report["diagnoses"]].count("illegal-argument"), 1)
        self.assertIn("?GEBAL, refuses a NaN matrix as its parameter 3", d["cause"])
        self.assertIn("isfinite", d["fix"])
        # What SciPy raises for it is that last report.
        said = subprocess.run([PYTHON, "-c", "import numpy as np, scipy.linalg as sl\n"
                               "a = np.ones((5, 5)); a[1, 2] = np.nan\n"
                               "try: sl.eig(a, check_finite=False)\nexcept ValueError as e: print(e)"],
                              capture_output=True, text=True, timeout=120).stdout
        self.assertIn("On entry to DHSEQR parameter number 4 had an illegal value", said)

    def test_a_transposed_gels_reads_n_rows_of_b_and_writes_m(self):
        # GELS('T') solves A^T X = B: B's first N rows are read, rows N..M-1 are room for X. A NaN
        # left there is not an input; the solution fills all M rows.
        exe = build_c("gels_t", """
            #include <stdio.h>
            #include <math.h>
            #include <stddef.h>
            void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*,
                        const int*, double*, const int*, int*, size_t);
            int main(void) {
              int m = 6, n = 3, nrhs = 1, info = 0, lwork = 100;
              double a[18], b[6] = {1, 2, 3, NAN, NAN, NAN}, work[100];
              for (int i = 0; i < 18; ++i) a[i] = (i % 7) + (i % 3 == 0 ? 5 : 0);
              dgels_("T", &m, &n, &nrhs, a, &m, b, &m, work, &lwork, &info, 1);
              printf("info %d finite %d\\n", info, isfinite(b[0]) && isfinite(b[5]));
              return 0;
            }
        """, "-llapack", "-lm")
        proc, report = record(exe)
        self.assertEqual(proc.out.strip(), "info 0 finite 1", proc.err)
        gels = next(c for c in report["calls"] if c["routine"] == "dgels")
        self.assertNotIn("input_nan", gels)
        self.assertNotIn("output_nan", gels)
        self.assertEqual(ids(report), [])

    def test_a_hung_syevr_killed_from_outside_is_still_a_hang(self):
        # A scheduler, the OOM killer or a user SIGKILLs the program while DSYEVR spins: the call
        # had run seconds where its kind takes microseconds, a hang (as its capture replays).
        script = write("eigh_killed.py", """
            import numpy as np, scipy.linalg as sl
            s = np.random.default_rng(3).random((3, 3)); s = s + s.T; s[0, 0] = np.nan
            sl.eigh(s, check_finite=False)
        """)
        session = os.path.join(WORK, "killed.json")
        proc = subprocess.Popen([CLI, "record", "--quiet", "--output", session, "--", PYTHON, script],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=WORK)
        time.sleep(3)
        for pid in filter(str.isdigit, os.listdir("/proc")):  # the program, not its recorder
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    args = f.read().split(b"\0")
                if args[0] == PYTHON.encode() and script.encode() in args:
                    os.kill(int(pid), 9)
            except OSError:
                pass
        self.assertEqual(proc.wait(timeout=60), 128 + 9)
        rep = subprocess.run([CLI, "report", session, "--format", "json"], capture_output=True, timeout=60)
        report = json.loads(rep.stdout)
        hang = next(d for d in report["diagnoses"] if d["id"] == "kernel-hang")
        self.assertEqual(hang["severity"], "error")
        self.assertIn("when SIGKILL ended the program", hang["title"])
        self.assertNotIn("program-crashed", ids(report))

    def test_a_gels_of_an_inf_fails_on_the_zeros_its_dlascl_made(self):
        # DGELS scales A by CTO/norm: an Inf makes the norm Inf and A zero, and the QR's DTRTRS
        # then finds a zero diagonal. INFO = 1 is the Inf's doing, not A's rank.
        script = write("gels_inf.py", """
            import numpy as np
            from scipy.linalg import lapack
            a = np.random.default_rng(1).random((6, 4)); a[0, 0] = np.inf
            print("info", lapack.dgels(a, np.ones((6, 1)))[-1])
        """)
        proc, report = record(PYTHON, script)
        self.assertIn("info 1", proc.out, proc.err)
        failed = [d for d in report["diagnoses"] if d["id"] == "lapack-failed"]
        self.assertEqual([d["routine"] for d in failed], ["dgels"], "DGELS's DTRTRS is DGELS's failure")
        self.assertIn("after DLASCL inside it scaled by CFROM = inf", failed[0]["title"])
        self.assertNotIn("full rank", failed[0]["cause"])
        capture = next(c for c in report["captures"] if c["routine"] == "dgels")
        recorded = {d["id"] for d in report["diagnoses"] if d.get("call") == capture["call"]}
        self.assertEqual(set(replay_ids(capture)), recorded)

    def test_lapack_calls_whose_arguments_no_replay_reproduces_are_not_captured(self):
        # A replay op passes valid CHARACTER arguments and needs B: an UPLO or JOBZ that LAPACK
        # refuses, or a GESV with no right-hand side, would replay as something else.
        exe = build_c("badchar", """
            #include <stdio.h>
            #include <stddef.h>
            void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
            void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*,
                         int*, const int*, int*, size_t, size_t);
            void dgesv_(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
            int main(void) {
              double a[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, w[3], work[200], b[3] = {1, 1, 1};
              int n = 3, info = 0, lwork = 200, iwork[50], liwork = 50, ipiv[3], zero = 0;
              dpotrf_("X", &n, a, &n, &info, 1);
              dsyevd_("Q", "L", &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
              dsyevd_("v", "u", &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
              dgesv_(&n, &zero, a, &n, ipiv, b, &n, &info);
              return 0;
            }
        """, "-llapack")
        proc, report = record(exe, options=("--capture", "all"))
        self.assertEqual(proc.returncode, 0, proc.err)
        # Only the valid (lower-case: LAPACK compares them case-blind) SYEVD is captured.
        self.assertEqual(len(report["captures"]), 1, proc.err)
        with open(report["captures"][0]["workload"]) as f:
            op = json.load(f)["ops"][0]
        self.assertEqual((op["op"], op["uplo"], op["vectors"]), ("eigh", "U", True))
        # The two that failed are named as calls no replay reproduces (not as left out by the
        # caps: counted once); the GESV that succeeded is not wanted.
        self.assertEqual(report["captures_skipped"], 0)
        self.assertEqual(report["uncaptured"]["not_replayable"], {"dpotrf": 1, "dsyevd": 1})
        # The letter refused is quoted where the record holds it (DSYEVD's is its UPLO, not JOBZ).
        text = json.dumps(report["diagnoses"])
        self.assertIn("your UPLO = 'X'", text)
        self.assertIn("your JOBZ", text)
        self.assertNotIn("JOBZ = ", text)

    def test_a_gemm_with_a_refused_transpose_or_a_negative_size_is_not_captured(self):
        # No workload holds a transpose flag that is not N, T or C, nor M = -1: a capture would
        # replay a valid GEMM instead. Both are said to be left out.
        exe = build_c("badgemm", """
            void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                        const int*, const double*, const int*, const double*, double*, const int*);
            void cblas_dgemm(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                             double*, int);
            int main(void) {
              double a[16] = {0}, b[16] = {0}, c[16] = {0}, one = 1, zero = 0;
              int n = 4, negative = -1;
              dgemm_("X", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
              dgemm_("N", "N", &negative, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
              dgemm_("N", "Y", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
              /* Row-major: the library's first transpose flag is the caller's TransB. */
              cblas_dgemm(101, 111, 999, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
              return 0;
            }
        """, "-lblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(report["captures"], [])
        self.assertEqual(report["uncaptured"]["not_replayable"], {"dgemm": 4})
        illegal = [d for d in report["diagnoses"] if d["id"] == "illegal-argument"]
        self.assertEqual(len(illegal), 4, report["diagnoses"])
        text = json.dumps(report["diagnoses"])
        self.assertIn("TRANSA = 'X'", text)
        self.assertIn("your TRANSB, which must be N, T or C", text)
        self.assertIn("your TRANSB, which must be CblasNoTrans", text)
        self.assertNotIn("A transposed", text)
        self.assertIn("M, which must not be negative", text)

    def test_an_xerbla_that_longjmps_leaves_later_calls_whole(self):
        # R's xerbla longjmps back to R (in libR.so, a library, as here); a program may define its
        # own in the executable, which comes before the preload library. Either way the calls left
        # running are gone, and a later call deeper in the stack must not take them for callers.
        lib_src = write("fake_r.c", """
            #include <setjmp.h>
            #include <stddef.h>
            jmp_buf r_toplevel;
            void xerbla_(const char* name, const int* info, size_t len) { longjmp(r_toplevel, 1); }
        """)
        lib = os.path.join(WORK, "libfake_r.so")
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", lib, lib_src], check=True)
        main = """
            #include <setjmp.h>
            #include <stdio.h>
            #include <string.h>
            #include <stddef.h>
            extern jmp_buf r_toplevel;
            extern void dgesv_(int*, int*, double*, int*, int*, double*, int*, int*);
            extern void dgemm_(const char*, const char*, int*, int*, int*, double*, double*, int*, double*, int*,
                               double*, double*, int*);
            __attribute__((noinline)) void bad(void) {
              int n = -1, nrhs = 1, lda = 1, ldb = 1, info = 0, ipiv[1]; double a[1], b[1];
              dgesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, &info);
            }
            __attribute__((noinline)) void deep(void) {
              volatile unsigned char pad[16384];
              memset((void*)pad, 0x41, sizeof pad);
              int n = 2; double one = 1, zero = 0, a[4] = {1, 2, 3, 4}, c[4];
              dgemm_("N", "N", &n, &n, &n, &one, a, &n, a, &n, &zero, c, &n);
              printf("dgemm %g %d\\n", c[0], pad[100]);
            }
            int main(void) {
              if (!setjmp(r_toplevel)) bad();
              deep();
              return 0;
            }
        """
        in_library = build_c("longjmp_lib", main, f"-L{WORK}", "-lfake_r", f"-Wl,-rpath,{WORK}", "-llapack", "-lblas")
        in_program = build_c("longjmp_exe", main.replace("extern jmp_buf r_toplevel;", "jmp_buf r_toplevel;\n"
                             "void xerbla_(const char* n, const int* i, size_t l) { longjmp(r_toplevel, 1); }"),
                             "-llapack", "-lblas")
        for exe in (in_library, in_program):
            proc, report = record(exe)
            self.assertEqual(proc.returncode, 0, proc.err)
            self.assertIn("dgemm 7 65", proc.out)
            self.assertEqual(calls_of(report, "dgemm"), 1)
        # (With the program's own xerbla BLAScope never hears of the longjmp: the DGEMM is taken
        # for a call made inside the DGESV, but nothing of the program's is written into.)
        proc, report = record(in_library)
        gemm = next(c for c in report["calls"] if c["routine"] == "dgemm")
        self.assertNotIn("parent", gemm)  # a top-level call: the DGESV it came after is gone

    def test_a_program_with_its_own_xerbla_is_told_by_info(self):
        # The program's xerbla_ (the executable comes first) takes LAPACK's report, so none is
        # recorded: INFO = -4 alone says DGESV refused its LDA, and the diagnosis says so. SGESDD's
        # INFO = -4 on a NaN (no report is made for it) keeps its own diagnosis.
        exe = build_c("own_xerbla", """
            #include <math.h>
            #include <stdio.h>
            #include <stddef.h>
            void xerbla_(const char* name, const int* info, size_t len) {
              fprintf(stderr, "mine: %.*s %d\\n", (int)len, name, *info);
            }
            extern void dgesv_(int*, int*, double*, int*, int*, double*, int*, int*);
            extern void sgesdd_(const char*, int*, int*, float*, int*, float*, float*, int*, float*, int*, float*,
                                int*, int*, int*, size_t);
            int main(void) {
              double a[25] = {0}, b[5] = {0};
              int ipiv[5], n = 5, nrhs = 1, lda = 3, ldb = 5, info = 0;
              dgesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, &info);
              printf("dgesv %d\\n", info);
              float s[9] = {NAN}, sv[3], u[1], vt[1], work[200];
              int m = 3, one = 1, lwork = 200, iwork[24];
              sgesdd_("N", &m, &m, s, &m, sv, u, &one, vt, &one, work, &lwork, iwork, &info, 1);
              printf("sgesdd %d\\n", info);
              return 0;
            }
        """, "-llapack")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out.split(), ["dgesv", "-4", "sgesdd", "-4"])
        self.assertIn("mine: DGESV", proc.err)
        gesv = next(c for c in report["calls"] if c["routine"] == "dgesv")
        self.assertNotIn("xerbla", gesv)  # nothing was reported to BLAScope
        found = [d for d in report["diagnoses"] if d.get("call") == gesv["id"]]
        self.assertEqual([d["id"] for d in found], ["illegal-argument"], report["diagnoses"])
        text = " ".join(found[0]["evidence"])
        self.assertIn("DGESV returned INFO = -4: parameter 4 is your LDA = 3, which must be at least 5", text)
        self.assertIn("an xerbla_ of its own", text)
        gesdd = next(c for c in report["calls"] if c["routine"] == "sgesdd")
        self.assertEqual(sorted(d["id"] for d in report["diagnoses"] if d.get("call") == gesdd["id"]),
                         ["dlascl-invalid-cfrom", "non-finite-input"])

    def test_a_program_that_dies_inside_a_call_is_named(self):
        exe = build_c("segv", """
            #include <cblas.h>
            #include <stdlib.h>
            int main(void) {
              double a[4] = {1, 2, 3, 4}, c[4];
              /* B is an unmapped address: the GEMM reads it and the program dies in there */
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, (double*)16, 2, 0.0, c, 2);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 128 + 11, proc.err)
        self.assertEqual(report["crash"]["signal"], "SIGSEGV")
        self.assertEqual(report["crash"]["call"]["routine"], "dgemm")
        self.assertIn("program-crashed", ids(report))
        self.assertIn("recorded 0 BLAS/LAPACK calls (and 1 that had not returned)", proc.err)
        # Its only GEMM never returned: the routines table has a row for it all the same.
        self.assertRegex(proc.err, r"FAILURES +UNFINISHED\n +dgemm +float64 +0 +- +- +- +- +- +- +0 +1 \(ran [0-9.]+ [a-z]*s\)\n")
        self.assertEqual([(t["routine"], t["calls"], t.get("unfinished")) for t in report["routines"]],
                         [("dgemm", 0, 1)])

    def test_a_child_that_dies_inside_a_call_is_named(self):
        exe = build_c("child_segv", """
            #include <cblas.h>
            #include <stdio.h>
            #include <sys/wait.h>
            #include <unistd.h>
            int main(void) {
              double a[4] = {1, 2, 3, 4}, c[4];
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, a, 2, 0.0, c, 2);
              pid_t child = fork();
              if (child == 0) {  /* B is an unmapped address: the child dies inside this GEMM */
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, (double*)16, 2, 0.0, c, 2);
                return 0;
              }
              int status = 0;
              waitpid(child, &status, 0);
              printf("child signal %d\\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("child signal 11", proc.out)
        crashed = [d for d in report["diagnoses"] if d["id"] == "program-crashed"]
        self.assertEqual(len(crashed), 1, report["diagnoses"])
        child = next(p for p in report["processes"] if p["pid"] != report["pid"])
        self.assertIn(f"process {child['pid']} ended inside call", crashed[0]["title"])
        self.assertIn("DGEMM", crashed[0]["title"])
        self.assertTrue(child["blas_found"], "a forked child calls what its parent resolved")

    def test_value_checks_read_only_what_the_library_reads(self):
        # alpha = 0: DGEMM reads neither A nor B (NULL here), so --check-values must not either;
        # DPOTRF('L') reads the lower triangle only: a NaN above it is none of its business.
        # (128^3: OpenBLAS 0.3.21's small-matrix kernels for AVX-512, taken up to 100^3, do read
        # A and B with alpha = 0, and crash on these NULLs by themselves.)
        exe = build_c("reads", """
            #include <cblas.h>
            #include <math.h>
            #include <stdio.h>
            void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
            static double c[128 * 128];
            int main(void) {
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 128, 128, 128, 0.0, 0, 128, 0, 128, 0.0, c, 128);
              double a[4] = {4, 2, NAN, 3};  /* column-major 2x2: a[2] is the unused upper triangle */
              int n = 2, info = -1;
              dpotrf_("L", &n, a, &n, &info, 1);
              printf("info %d\\n", info);
              return info;
            }
        """, "-lopenblas", "-lm")
        proc, report = record(exe, options=("--check-values",))
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertIn("info 0", proc.out)
        potrf = next(c for c in report["calls"] if c["routine"] == "dpotrf")
        self.assertNotIn("input_nan", potrf)
        self.assertEqual(ids(report), [])

    def test_each_operands_alignment_is_recorded_in_bytes(self):
        # Offsets from a page-aligned buffer make each alignment exact: 8, 64 and the 4096 cap.
        exe = build_c("aligned", """
            #include <cblas.h>
            #include <stdlib.h>
            void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
                        const double*, const int*, const double*, const int*, const double*, double*,
                        const int*, size_t, size_t);
            int main(void) {
              char* base = aligned_alloc(4096, 3 * 8192);
              for (int i = 0; i < 3 * 8192; ++i) base[i] = 0;
              double *a = (double*)(base + 8), *b = (double*)(base + 8192 + 64), *c = (double*)(base + 16384);
              const int n = 4;
              const double one = 1, zero = 0;
              dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
              cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, c, n, a, n, 0.0, b, n);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        fortran, cblas = [c for c in report["calls"] if c["routine"] == "dgemm"]
        self.assertEqual((fortran["align_a"], fortran["align_b"], fortran["align_c"]), (8, 64, 4096), fortran)
        self.assertEqual((cblas["align_a"], cblas["align_b"], cblas["align_c"]), (4096, 8, 64), cblas)
        with open(report_path(report)) as f:
            self.assertEqual(json.load(f)["calls"][0]["align_b"], 64, "the session file holds them too")

    def test_each_call_goes_to_the_library_its_caller_binds(self):
        # NumPy's case: libopenblas.so.0 (loaded first, by the core module) and liblapack.so.3
        # (needed by the linalg module) both define dgesdd_, both loaded RTLD_LOCAL; unrecorded,
        # the linalg module's call runs liblapack.so.3's. Here two libraries define dpotrf_, each
        # setting its own INFO, and two callers are linked one to each, called in turn.
        for name, info in (("first", 11), ("second", 22)):
            src = write(f"lib{name}.c", f"""
                void dpotrf_(const char* u, const int* n, double* a, const int* lda, int* info, unsigned long l) {{
                  *info = {info};
                }}
            """)
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(WORK, f"lib{name}.so"), src], check=True)
        for caller, library in (("a", "first"), ("b", "second")):
            src = write(f"libcall{caller}.c", f"""
                void dpotrf_(const char*, const int*, double*, const int*, int*, unsigned long);
                int factor_{caller}(void) {{ int n = 1, info = 0; double a = 4; dpotrf_("L", &n, &a, &n, &info, 1); return info; }}
            """)
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(WORK, f"libcall{caller}.so"), src, "-L", WORK,
                            f"-l:lib{library}.so", "-Wl,-rpath,$ORIGIN"], check=True)
        exe = build_c("two_lapacks", """
            #include <dlfcn.h>
            #include <stdio.h>
            int main(int argc, char** argv) {
              void* a = dlopen("./libcalla.so", RTLD_NOW | RTLD_LOCAL);
              void* b = dlopen("./libcallb.so", RTLD_NOW | RTLD_LOCAL);
              if (!a || !b) return 90;
              int (*fa)(void) = (int (*)(void))dlsym(a, "factor_a");
              int (*fb)(void) = (int (*)(void))dlsym(b, "factor_b");
              for (int i = 0; i < 2; ++i) {
                const int first = fa(), second = fb();
                printf("a %d b %d\\n", first, second);
              }
              return 0;
            }
        """, "-ldl")
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=WORK)
        self.assertEqual(plain.stdout.split("\n")[0], "a 11 b 22")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        self.assertEqual(proc.out, plain.stdout)
        self.assertEqual([c["info"] for c in report["calls"] if c["routine"] == "dpotrf"], [11, 22, 11, 22])

    def test_a_recording_buffer_of_another_size_is_not_attached_to(self):
        # A recorder of another build (another ring or slot count) made the buffer: its header may
        # look right, but mapping this build's layout past the file's end would kill the program
        # with SIGBUS at its first call. The program must run as if it were not recorded.
        exe = build_c("one_gemm", """
            #include <cblas.h>
            #include <stdio.h>
            int main(void) {
              double a = 2, b = 3, c = 0;
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0, &a, 1, &b, 1, 0.0, &c, 1);
              printf("c %g\\n", c);
              return 0;
            }
        """, "-lopenblas")
        buffer = os.path.join(WORK, "short-buffer")
        with open(buffer, "wb") as f:  # magic "BLSR", this layout's version, ring and slot counts; 4 KiB long
            f.write(struct.pack("<IIII", 0x52534C42, 8, 1 << 16, 256).ljust(4096, b"\0"))
        preload = os.path.join(os.path.dirname(CLI), "..", "lib", "libblasscope-preload.so")
        env = dict(os.environ, LD_PRELOAD=preload, BLASSCOPE_RECORD_SHM=buffer)
        proc = subprocess.run([exe], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual((proc.returncode, proc.stdout), (0, "c 6\n"), proc.stderr)

    def test_the_preload_brings_nothing_but_itself_into_the_program(self):
        # Only the C library: libstdc++ or libgcc_s loaded ahead of everything would join every
        # symbol lookup of the program (1 % more dynamic-linker work in a NumPy program), and a
        # C++ symbol exported from it could bind the program's own calls. What it exports are
        # the names it interposes.
        preload = os.path.join(os.path.dirname(CLI), "..", "lib", "libblasscope-preload.so")
        dynamic = subprocess.run(["readelf", "-dW", preload], capture_output=True, text=True, check=True).stdout
        needed = {line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line}
        self.assertTrue(needed and all(n.startswith(("libc.so", "ld-linux")) for n in needed), needed)
        symbols = subprocess.run(["nm", "-D", "--defined-only", preload], capture_output=True, text=True,
                                 check=True).stdout.split()[2::3]
        self.assertIn("dgesdd_", symbols)
        self.assertEqual([s for s in symbols if s.startswith("_Z") or "@" in s], [])

    def test_a_statically_linked_program_is_said_to_be_unrecordable(self):
        exe = build_c("static", 'int main(void) { return 5; }', "-static")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 5)
        self.assertIn("statically linked", report["problem"])
        self.assertIn("statically linked", proc.err)


class RecordWhatNothingElseTells(unittest.TestCase):
    def test_an_argument_error_outside_every_recorded_call_is_recorded_alone(self):
        # DTRTRI is not recorded, and a program may call xerbla_ itself: the report must not be lost.
        exe = build_c("xerbla_alone", r"""
            #include <stdio.h>
            extern void dtrtri_(const char*, const char*, const int*, double*, const int*, int*);
            extern void xerbla_(const char*, const int*, long);
            int main(void) {
              double a[25] = {0}; int n = 5, lda = 2, info = 0, p = 8, four = 4;
              dtrtri_("U", "N", &n, a, &lda, &info);
              xerbla_("DGEMM ", &p, 6);
              xerbla_("DLASCL", &four, 6);  /* no CFROM is known: no claim about its value */
              printf("%d\n", info);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        # OpenBLAS's xerbla still prints (to stdout), and the program goes on.
        self.assertEqual(proc.out.splitlines()[-1], "-5", proc.err)
        self.assertIn("On entry to DTRTRI parameter number  5", proc.out)
        self.assertEqual(calls_of(report, "xerbla"), 3)
        titles = [d["title"] for d in report["diagnoses"] if d["id"] == "illegal-argument"]
        self.assertEqual(len(titles), 3, report["diagnoses"])
        self.assertNotIn("dlascl-invalid-cfrom", ids(report))
        self.assertNotIn("CFROM =", json.dumps(report["diagnoses"]))
        self.assertIn("DTRTRI (not recorded): on entry to DTRTRI parameter number 5", titles[0])
        evidence = " ".join(e for d in report["diagnoses"] for e in d["evidence"])
        self.assertIn("DTRTRI is not a routine BLAScope records", evidence)
        self.assertIn("xerbla reported DGEMM parameter 8: that parameter is LDA", evidence)
        self.assertIn("no recorded DGEMM call was running", evidence)
        self.assertEqual(report["uncaptured"]["not_replayable"], {})

    def test_a_lascl_given_an_infinite_scale_is_a_silent_nan_and_is_captured(self):
        exe = build_c("lascl_inf", r"""
            #include <math.h>
            #include <stdio.h>
            extern void slascl_(const char*, const int*, const int*, const float*, const float*, const int*,
                                const int*, float*, const int*, int*);
            int main(void) {
              float a[25] = {0}, cfrom = 1, cto = INFINITY; int zero = 0, n = 5, info = 0;
              slascl_("G", &zero, &zero, &cfrom, &cto, &n, &n, a, &n, &info);
              printf("%d %d\n", info, isnan(a[0]));
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.out.split(), ["0", "1"], proc.err)
        call = next(c for c in report["calls"] if c["routine"] == "slascl")
        self.assertEqual(call.get("output_nan"), 25)
        diagnosis = next(d for d in report["diagnoses"] if d["id"] == "non-finite-output")
        self.assertIn("its non-finite scale gave 25 NaN", diagnosis["title"])
        self.assertIn("CTO = Inf", " ".join(diagnosis["evidence"]))
        capture = next(c for c in report["captures"] if c["call"] == call["id"])
        self.assertEqual(replay_ids(capture), ["non-finite-output"])

    def test_complex_nan_counts_are_per_value_not_per_part(self):
        script = write("complex_nan.py", """
            import numpy as np
            a = np.eye(6, dtype=np.complex128) * 6 + 1j * np.eye(6)
            b = np.ones(6, dtype=np.complex128); b[2] = complex(np.nan, np.nan)
            print(int(np.isnan(np.linalg.solve(a, b)).sum()))
        """)
        proc, report = record(PYTHON, script)
        nan_values = int(proc.out.strip())  # NumPy counts complex values, whichever part is NaN
        call = next(c for c in report["calls"] if c["routine"] == "zgesv")
        self.assertEqual((call.get("input_nan"), call.get("output_nan")), (1, nan_values))
        self.assertLessEqual(nan_values, 6)

    def test_a_session_whose_folder_went_or_whose_device_is_full_is_kept(self):
        program = [PYTHON, "-c", "import numpy as np, shutil; a = np.ones((5, 5)); a @ a; shutil.rmtree('gone')"]
        proc = subprocess.run([CLI, "record", "--quiet", "--output", "gone/s.json", "--", *program],
                              capture_output=True, timeout=120, cwd=WORK)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(WORK, "gone", "s.json")) as f:
            self.assertEqual(json.load(f)["calls_total"], 1)
        folder = os.path.join(WORK, "full")
        os.makedirs(folder, exist_ok=True)
        proc = subprocess.run([CLI, "record", "--quiet", "--output", "/dev/full", "--", PYTHON, "-c", "pass"],
                              capture_output=True, timeout=120, cwd=folder)
        said = proc.stderr.decode()
        self.assertIn("cannot write /dev/full", said)
        kept = re.search(r"the session is kept in (\S+)", said)
        self.assertTrue(kept, said)
        with open(os.path.join(folder, kept.group(1))) as f:
            self.assertEqual(json.load(f)["kind"], "recording")

    def test_an_unfinished_call_has_no_seconds_and_runs_as_long_read_back(self):
        script = write("hung_lstsq.py", """
            import numpy as np, scipy.linalg
            a = np.random.rand(30, 9); a[0, 0] = np.inf
            scipy.linalg.lstsq(a, np.random.rand(30), check_finite=False)
        """)
        proc, report = record(PYTHON, script, options=("--timeout", "4"))  # the call runs over a second
        self.assertEqual(proc.returncode, 124, proc.err)
        ran = report["running"][0]["ran_seconds"]
        self.assertNotIn("seconds", report["running"][0])
        # The summary printed live and the report of the file read back say the same time.
        self.assertIn(f"(ran {ran:.4g} s)", proc.err)
        # A crash's call is an unfinished one too: no seconds, its running time.
        exe = build_c("crash_in_gemm", r"""
            #include <cblas.h>
            int main(void) {
              static double b[4], c[4];
              cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2000, 2000, 2000, 1.0, (double*)16, 2000,
                          b, 2000, 0.0, c, 2000);
              return 0;
            }
        """, "-lopenblas")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 139, proc.err)
        self.assertNotIn("seconds", report["crash"]["call"])
        self.assertIn("ran_seconds", report["crash"]["call"])


class RecordLookedUpByName(unittest.TestCase):
    """BLAS found at run time with dlsym (ctypes, cffi, dlopen + dlsym): dlsym on a handle
    searches that library's tree, where the preload library is not."""

    def test_ctypes_calls_are_recorded_and_their_failures_explained(self):
        script = write("ctypes_gemm.py", """
            import ctypes, sys
            blas = ctypes.CDLL(sys.argv[1])
            n, one, zero, no = ctypes.c_int(2), ctypes.c_double(1.0), ctypes.c_double(0.0), ctypes.c_char(b"N")
            a, b, c = (ctypes.c_double * 4)(1, 2, 3, 4), (ctypes.c_double * 4)(1, 0, 0, 1), (ctypes.c_double * 4)()
            r = ctypes.byref
            for _ in range(7):
                blas.dgemm_(r(no), r(no), r(n), r(n), r(n), r(one), a, r(n), b, r(n), r(zero), c, r(n),
                            ctypes.c_size_t(1), ctypes.c_size_t(1))
            print(list(c), flush=True)
            # Row-major, LDA 1 where K is 2: OpenBLAS refuses it (parameter 10), prints and returns.
            blas.cblas_dgemm(101, 111, 111, 2, 2, 2, ctypes.c_double(1.0), a, 1, b, 2, ctypes.c_double(0.0), c, 2)
        """)
        for library in ("libblas.so.3", "libopenblas.so.0"):
            with self.subTest(library=library):
                plain = subprocess.run([PYTHON, script, library], capture_output=True, text=True, cwd=WORK)
                proc, report = record(PYTHON, script, library)
                self.assertEqual((proc.returncode, proc.out), (plain.returncode, plain.stdout), proc.err)
                self.assertEqual(calls_of(report, "dgemm"), 8)
                failing = [c for c in report["calls"] if c.get("xerbla")]
                self.assertEqual([(c["routine"], c["lda"]) for c in failing], [("dgemm", 1)])
                diagnosis = next(d for d in report["diagnoses"] if d["id"] == "illegal-argument")
                self.assertEqual(diagnosis["call"], failing[0]["id"])
                self.assertIn("your LDA = 1", " ".join(diagnosis["evidence"]))

    def test_dlopen_and_dlsym_calls_are_recorded(self):
        exe = build_c("dlsym_gemm", r"""
            #include <dlfcn.h>
            #include <stdio.h>
            typedef void (*Gemm)(int, int, int, int, int, int, double, const double*, int, const double*, int,
                                 double, double*, int);
            int main(void) {
              void* blas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
              if (!blas) return 90;
              Gemm gemm = (Gemm)dlsym(blas, "cblas_dgemm");
              double a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, c[9];
              for (int i = 0; i < 11; ++i) gemm(102, 111, 111, 3, 3, 3, 1.0, a, 3, a, 3, 0.0, c, 3);
              printf("%g\n", c[0]);
              return 0;
            }
        """, "-ldl")
        proc, report = record(exe)
        self.assertEqual((proc.returncode, proc.out), (0, "30\n"), proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 11)
        self.assertEqual({(c["m"], c["n"], c["k"]) for c in report["calls"] if c["routine"] == "dgemm"}, {(3, 3, 3)})

    def test_a_name_looked_up_in_another_library_still_reaches_that_library(self):
        # NumPy has loaded OpenBLAS; the program then asks its own library for dgemm_. Our wrapper,
        # bound by caller, would forward to OpenBLAS's: the call is recorded, and runs the one asked for.
        src = write("myblas.c", """
            void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
                        const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
                        const int* ldc, unsigned long la, unsigned long lb) { c[0] = 42; }
        """)
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(WORK, "libmyblas.so"), src], check=True)
        script = write("own_gemm.py", """
            import ctypes, os, numpy as np
            np.ones((4, 4)) @ np.ones((4, 4))
            mine = ctypes.CDLL(os.path.abspath("libmyblas.so"))
            n, one, no, c = ctypes.c_int(1), ctypes.c_double(1.0), ctypes.c_char(b"N"), (ctypes.c_double * 1)()
            r = ctypes.byref
            mine.dgemm_(r(no), r(no), r(n), r(n), r(n), r(one), c, r(n), c, r(n), r(one), c, r(n), 1, 1)
            print(c[0])
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual((proc.returncode, proc.out), (0, "42.0\n"), proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 2, "NumPy's matmul and the program's own")

    def test_each_pointer_runs_its_own_library_whatever_is_loaded_or_unloaded_after(self):
        # A pointer from one library's handle, then another BLAS loaded RTLD_GLOBAL (it would
        # bind a new reference from the program), then the first closed and opened again.
        src = write("markblas.c", """
            void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
                        const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
                        const int* ldc, unsigned long la, unsigned long lb) { c[0] = -12345; }
        """)
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(WORK, "libmarkblas.so"), src], check=True)
        exe = build_c("pointers_kept", r"""
            #include <dlfcn.h>
            #include <stdio.h>
            typedef void (*Gemm)(const char*, const char*, const int*, const int*, const int*, const double*,
                                 const double*, const int*, const double*, const int*, const double*, double*,
                                 const int*, unsigned long, unsigned long);
            static void run(Gemm f, const char* tag) {
              int n = 3; double a[9], b[9], c[9] = {0}, one = 1, zero = 0;
              for (int i = 0; i < 9; ++i) a[i] = i + 1, b[i] = 9 - i;
              f("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
              printf("%s %g\n", tag, c[0]);
            }
            int main(void) {
              void* open = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
              Gemm first = (Gemm)dlsym(open, "dgemm_");
              run(first, "openblas");
              void* mark = dlopen("./libmarkblas.so", RTLD_NOW | RTLD_GLOBAL);
              Gemm second = (Gemm)dlsym(mark, "dgemm_");
              run(first, "openblas");
              run(second, "mark");
              dlclose(open);
              run(second, "mark");
              open = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
              run((Gemm)dlsym(open, "dgemm_"), "openblas");
              return 0;
            }
        """, "-ldl")
        plain = subprocess.run([exe], capture_output=True, text=True, cwd=WORK)
        self.assertEqual(plain.stdout.split()[1::2], ["90", "90", "-12345", "-12345", "90"])
        proc, report = record(exe)
        self.assertEqual((proc.returncode, proc.out), (0, plain.stdout), proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 5)

    def test_a_probe_for_a_blas_finds_none_where_none_is_loaded(self):
        # The preload defines cblas_dgemm itself: a program checking whether a BLAS is there must
        # still be told no (and not be handed a wrapper with nothing to call), until one is loaded.
        exe = build_c("blas_probe", r"""
            #include <dlfcn.h>
            #include <stdio.h>
            #include <string.h>
            typedef void (*Gemm)(int, int, int, int, int, int, double, const double*, int, const double*, int,
                                 double, double*, int);
            int main(void) {
              void* by_default = dlsym(RTLD_DEFAULT, "cblas_dgemm");
              const char* error = dlerror();
              const int named = error && strstr(error, "cblas_dgemm") != 0;  /* before the next dl call */
              void* on_program = dlsym(dlopen(NULL, RTLD_LAZY), "dgemm_");
              printf("%d %d %d\n", by_default != 0, on_program != 0, named);
              if (!dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL)) return 90;
              Gemm gemm = (Gemm)dlsym(RTLD_DEFAULT, "cblas_dgemm");
              double a = 2, c = 0;
              if (gemm) gemm(102, 111, 111, 1, 1, 1, 1.0, &a, 1, &a, 1, 0.0, &c, 1);
              printf("%g\n", c);
              return 0;
            }
        """, "-ldl")
        proc, report = record(exe)
        self.assertEqual((proc.returncode, proc.out), (0, "0 0 1\n4\n"), proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 1)

    def test_calls_made_while_the_pause_word_is_set_are_forwarded_unrecorded(self):
        # bench_record.py measures recording's cost by setting this word (record::kPausedOffset)
        # from inside the program: paused calls still run, and are neither listed nor counted.
        script = write("paused_calls.py", """
            import mmap, os
            import numpy as np
            with open(os.environ["BLASSCOPE_RECORD_SHM"], "r+b") as f:
                shared = mmap.mmap(f.fileno(), 0)
            a = np.ones((4, 4))
            for paused, count in ((1, 5), (0, 3), (1, 2)):
                shared[52:56] = paused.to_bytes(4, "little")
                for _ in range(count):
                    c = a @ a
            print(c[0, 0])
        """)
        proc, report = record(PYTHON, script)
        self.assertEqual((proc.returncode, proc.out), (0, "4.0\n"), proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 3)

    def test_lookups_find_what_they_find_without_the_preload(self):
        # A module loaded RTLD_LOCAL with OpenBLAS in its own tree looks names up with RTLD_DEFAULT:
        # one we do not wrap (cblas_sdot) must come from its scope, not ours (NULL before), and the
        # cblas_dgemm it hands the program must run its OpenBLAS, recorded. A successful lookup
        # leaves no error for dlerror(), and dlclose still unloads what nothing else holds.
        src = write("scoped.c", r"""
            #include <dlfcn.h>
            extern double cblas_ddot(int, const double*, int, const double*, int);
            void* keep = (void*)cblas_ddot; /* OpenBLAS in this module's tree */
            void* lookup(const char* name) { return dlsym(RTLD_DEFAULT, name); }
        """)
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(WORK, "libscoped.so"), src, "-Wl,--no-as-needed",
                        "-lopenblas"], check=True)
        exe = build_c("scoped_lookups", r"""
            #include <dlfcn.h>
            #include <stdio.h>
            #include <string.h>
            typedef void (*Gemm)(int, int, int, int, int, int, double, const double*, int, const double*, int,
                                 double, double*, int);
            static int mapped(const char* name) {
              FILE* maps = fopen("/proc/self/maps", "r");
              char line[1024];
              int found = 0;
              while (fgets(line, sizeof line, maps)) found |= strstr(line, name) != 0;
              fclose(maps);
              return found;
            }
            int main(int argc, char** argv) {
              void* module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
              if (!module) return 90;
              void* (*lookup)(const char*) = (void* (*)(const char*))dlsym(module, "lookup");
              Gemm gemm = (Gemm)lookup("cblas_dgemm");
              printf("sdot %d dgemm %d\n", lookup("cblas_sdot") != 0, gemm != 0);
              double a[4] = {1, 2, 3, 4}, c[4] = {0};
              for (int i = 0; gemm && i < 3; ++i) gemm(102, 111, 111, 2, 2, 2, 1.0, a, 2, a, 2, 0.0, c, 2);
              printf("%g %g\n", c[0], c[3]);
              void* blas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
              dlsym(blas, "no_such_routine_");
              void* dot = dlsym(blas, "sdot_");
              const char* error = dlerror();
              printf("sdot_ %d error %s\n", dot != 0, error ? "left" : "none");
              dlclose(blas);
              dlclose(module);
              printf("unloaded %d\n", !mapped("libopenblas"));
              return 0;
            }
        """, "-ldl")
        module = os.path.join(WORK, "libscoped.so")
        plain = subprocess.run([exe, module], capture_output=True, text=True)
        self.assertEqual((plain.returncode, plain.stdout), (0, "sdot 1 dgemm 1\n7 22\nsdot_ 1 error none\nunloaded 1\n"))
        proc, report = record(exe, module)
        self.assertEqual((proc.returncode, proc.out), (0, plain.stdout), proc.err)
        self.assertEqual(calls_of(report, "dgemm"), 3)

    def test_rtld_next_and_rtld_default_still_mean_what_they_mean_for_their_caller(self):
        # glibc resolves RTLD_NEXT after the object that called dlsym: the preload's dlsym must
        # not make itself the caller (libfirst would find its own probe again, not libsecond's).
        for name, value in (("first", 1), ("second", 2)):
            extra = "" if name == "second" else """
                #include <dlfcn.h>
                int next_probe(void) { return ((int (*)(void))dlsym(RTLD_NEXT, "probe"))(); }
                int default_probe(void) { return ((int (*)(void))dlsym(RTLD_DEFAULT, "probe"))(); }
            """
            src = write(f"lib{name}.c", f"#define _GNU_SOURCE\nint probe(void) {{ return {value}; }}\n{extra}")
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(WORK, f"lib{name}probe.so"), src, "-ldl"],
                           check=True)
        exe = build_c("rtld_next", r"""
            #include <stdio.h>
            int next_probe(void);
            int default_probe(void);
            int main(void) { printf("%d %d\n", next_probe(), default_probe()); return 0; }
        """, "-L", WORK, "-Wl,--no-as-needed", "-l:libfirstprobe.so", "-l:libsecondprobe.so", "-Wl,-rpath," + WORK)
        self.assertEqual(subprocess.run([exe], capture_output=True, text=True).stdout, "2 1\n")
        proc, _ = record(exe)
        self.assertEqual((proc.returncode, proc.out), (0, "2 1\n"), proc.err)


CUDA_LIB = "/usr/local/cuda/lib64"


@unittest.skipUnless(os.path.exists(os.path.join(CUDA_LIB, "libcublas.so")),
                     "no CUDA toolkit in /usr/local/cuda: cuBLAS calls cannot be built or recorded here")
class RecordCuBlas(unittest.TestCase):
    def test_cublas_create_without_a_driver_is_the_blas_gemm_launch_failure(self):
        exe = build_c("cublas_create", """
            #include <stdio.h>
            typedef struct cublasContext* cublasHandle_t;
            int cublasCreate_v2(cublasHandle_t* handle);
            int main(void) {
              cublasHandle_t h = 0;
              int status = cublasCreate_v2(&h);
              printf("status %d\\n", status);
              return status == 0 ? 0 : 1;
            }
        """, f"-L{CUDA_LIB}", "-lcublas", f"-Wl,-rpath,{CUDA_LIB}")
        proc, report = record(exe)
        status = int(proc.out.split()[-1])
        self.assertEqual(calls_of(report, "cublasCreate_v2"), 1)
        call = next(c for c in report["calls"] if c["routine"] == "cublasCreate_v2")
        self.assertEqual(call["status"], status)
        if status == 0:
            self.skipTest("a usable GPU is present: cublasCreate_v2 succeeded")
        self.assertEqual(status, 1)  # CUBLAS_STATUS_NOT_INITIALIZED
        d = next(d for d in report["diagnoses"] if d["id"] == "cublas-error")
        self.assertIn("CUBLAS_STATUS_NOT_INITIALIZED", d["title"])
        self.assertIn("Blas GEMM launch failed", " ".join(d["seen_as"]) + " ".join(d["evidence"]))

    def test_cublas_loaded_at_run_time_is_recorded(self):
        # TensorFlow and PyTorch open libcublas with dlopen and look each function up with dlsym.
        exe = build_c("cublas_dlsym", f"""
            #include <dlfcn.h>
            #include <stdio.h>
            int main(void) {{
              void* cublas = dlopen("{CUDA_LIB}/libcublas.so", RTLD_NOW | RTLD_LOCAL);
              if (!cublas) return 90;
              int (*create)(void**) = (int (*)(void**))dlsym(cublas, "cublasCreate_v2");
              void* h = 0;
              printf("status %d\\n", create(&h));
              return 0;
            }}
        """, "-ldl")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        status = int(proc.out.split()[-1])
        self.assertEqual(calls_of(report, "cublasCreate_v2"), 1)
        self.assertEqual(next(c for c in report["calls"] if c["routine"] == "cublasCreate_v2")["status"], status)
        if status != 0:
            self.assertIn("cublas-error", ids(report))

    def test_cublas_ex_gemms_tell_a_conjugate_transpose_where_the_type_is_complex(self):
        # CUBLAS_OP_C conjugates complex operands (the *Ex GEMMs name their type) and is a plain
        # transpose of real ones. Recorded as called, whether or not a GPU runs them.
        exe = build_c("cublas_ops", """
            #include <stdio.h>
            typedef struct cublasContext* cublasHandle_t;
            int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int,
                             const void*, int, int, const void*, void*, int, int, int, int);
            enum { N_OP = 0, T_OP = 1, C_OP = 2, R_32F = 0, C_64F = 5, C_32F = 4 };
            int main(void) {
              const double one[2] = {1, 0};
              printf("%d ", cublasGemmEx(0, C_OP, T_OP, 4, 4, 4, one, 0, C_64F, 4, 0, C_64F, 4, one, 0, C_64F, 4,
                                         C_64F, -1));
              printf("%d ", cublasGemmEx(0, N_OP, C_OP, 4, 4, 4, one, 0, C_32F, 4, 0, C_32F, 4, one, 0, C_32F, 4,
                                         C_32F, -1));
              printf("%d\\n", cublasGemmEx(0, C_OP, C_OP, 4, 4, 4, one, 0, R_32F, 4, 0, R_32F, 4, one, 0, R_32F, 4,
                                           68, -1));
              return 0;
            }
        """, f"-L{CUDA_LIB}", "-lcublas", f"-Wl,-rpath,{CUDA_LIB}")
        proc, report = record(exe)
        self.assertEqual(proc.returncode, 0, proc.err)
        ex = [c for c in report["calls"] if c["routine"] == "cublasGemmEx"]
        self.assertEqual(len(ex), 3)
        self.assertEqual([(c["dtype"], c.get("trans_a", False), c.get("conj_a", False), c.get("trans_b", False),
                           c.get("conj_b", False)) for c in ex],
                         [("complex128", True, True, True, False), ("complex64", False, False, True, True),
                          ("float32", True, False, True, False)])

    def test_cublas_gemms_on_a_gpu_keep_their_results_and_statuses(self):
        # Runs for real only where a GPU is usable (scripts/dev.sh gpu-test); here it skips.
        exe = build_c("cublas_gemms", """
            #include <stdio.h>
            #include <stddef.h>
            typedef struct cublasContext* cublasHandle_t;
            int cublasCreate_v2(cublasHandle_t*);
            int cublasDestroy_v2(cublasHandle_t);
            int cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float*, const float*, int,
                               const float*, int, const float*, float*, int);
            int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int,
                             const void*, int, int, const void*, void*, int, int, int, int);
            int cublasSgemmStridedBatched(cublasHandle_t, int, int, int, int, int, const float*, const float*,
                                          int, long long, const float*, int, long long, const float*, float*,
                                          int, long long, int);
            int cudaMalloc(void**, size_t);
            int cudaFree(void*);
            int cudaMemcpy(void*, const void*, size_t, int);
            int cudaDeviceSynchronize(void);
            enum { N = 64, BATCH = 3 };
            static float host[BATCH * N * N];
            int main(void) {
              cublasHandle_t h = 0;
              int create = cublasCreate_v2(&h);
              printf("create %d\\n", create);
              if (create != 0) return 3;
              float *a, *b, *c;
              size_t bytes = sizeof host;
              for (int i = 0; i < BATCH * N * N; ++i) host[i] = 1.0f;
              if (cudaMalloc((void**)&a, bytes) || cudaMalloc((void**)&b, bytes) || cudaMalloc((void**)&c, bytes))
                return 4;
              cudaMemcpy(a, host, bytes, 1), cudaMemcpy(b, host, bytes, 1);  /* host to device */
              void* huge = 0;
              int oom = cudaMalloc(&huge, (size_t)1 << 52);  /* 4 PiB: cudaErrorMemoryAllocation */
              const float one = 1, zero = 0;
              int ok = cublasSgemm_v2(h, 0, 0, N, N, N, &one, a, N, b, N, &zero, c, N);
              int bad_lda = cublasSgemm_v2(h, 0, 0, N, N, N, &one, a, 1, b, N, &zero, c, N);
              int ex = cublasGemmEx(h, 1, 0, N, N, N, &one, a, 0, N, b, 0, N, &zero, c, 0, N, 68, -1);
              int batched = cublasSgemmStridedBatched(h, 0, 0, N, N, N, &one, a, N, (long long)N * N, b, N,
                                                      (long long)N * N, &zero, c, N, (long long)N * N, BATCH);
              cudaDeviceSynchronize();
              cudaMemcpy(host, c, bytes, 2);  /* device to host */
              int right = 1;
              for (int i = 0; i < BATCH * N * N; ++i) right &= host[i] == (float)N;
              printf("oom %d ok %d bad_lda %d ex %d batched %d right %d\\n", oom, ok, bad_lda, ex, batched, right);
              cudaFree(a), cudaFree(b), cudaFree(c);
              cublasDestroy_v2(h);
              return right ? 0 : 5;
            }
        """, f"-L{CUDA_LIB}", "-lcublas", "-lcudart", f"-Wl,-rpath,{CUDA_LIB}")
        proc, report = record(exe)
        if "create 0" not in proc.out:
            self.skipTest(f"no usable GPU here: cublasCreate_v2 failed ({proc.out.strip()})")
        self.assertEqual(proc.returncode, 0, proc.out + proc.err)  # every GEMM's result is right
        # cuBLAS prints its own " ** On entry to SGEMM parameter number 9 ..." on stdout too.
        line = next(line for line in proc.out.splitlines() if line.startswith("oom "))
        status = dict(zip(*[iter(line.split())] * 2))
        self.assertEqual((status["oom"], status["ok"], status["bad_lda"], status["ex"], status["batched"]),
                         ("2", "0", "7", "0", "0"))
        counts = {r: calls_of(report, r) for r in ("cublasCreate_v2", "cublasSgemm_v2", "cublasGemmEx",
                                                    "cublasSgemmStridedBatched", "cudaMalloc")}
        self.assertEqual(counts, {"cublasCreate_v2": 1, "cublasSgemm_v2": 2, "cublasGemmEx": 1,
                                  "cublasSgemmStridedBatched": 1, "cudaMalloc": 4})
        gemms = [c for c in report["calls"] if c["routine"] == "cublasSgemm_v2"]
        self.assertEqual([(c["status"], c["lda"]) for c in gemms], [(0, 64), (7, 1)])
        by_id = {d["id"]: d for d in report["diagnoses"]}
        self.assertIn("CUBLAS_STATUS_INVALID_VALUE", by_id["cublas-error"]["title"])
        self.assertIn("out-of-memory", by_id)
        self.assertIn("cudaErrorMemoryAllocation", by_id["out-of-memory"]["title"])
        batched = next(c for c in report["calls"] if c["routine"] == "cublasSgemmStridedBatched")
        self.assertEqual((batched["m"], batched["n"], batched["k"], batched["status"]), (64, 64, 64, 0))
        ex = next(c for c in report["calls"] if c["routine"] == "cublasGemmEx")
        self.assertEqual(ex["dtype"], "float32")  # Atype CUDA_R_32F, as the program passed it


class RecordBadInput(unittest.TestCase):
    def test_an_unknown_command_exits_127(self):
        session = os.path.join(WORK, "never.json")
        proc = subprocess.run([CLI, "record", "--output", session, "--", "/no/such/program"], capture_output=True,
                              timeout=60, cwd=WORK)
        self.assertEqual(proc.returncode, 127)
        self.assertIn("/no/such/program", proc.stderr.decode())
        self.assertFalse(os.path.exists(os.path.join(WORK, "never.captures")), "an empty captures folder was left")

    def test_an_output_through_a_link_or_into_a_pipe_keeps_the_link(self):
        # A rename over --output would replace a symbolic link (/dev/stdout is one) with a file.
        target = os.path.join(WORK, "linked-session.json")
        link = os.path.join(WORK, "session-link.json")
        os.symlink("linked-session.json", link)
        proc = subprocess.run([CLI, "record", "--quiet", "--output", link, "--", "true"], capture_output=True,
                              timeout=60, cwd=WORK)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.islink(link), "the link was replaced")
        with open(target) as f:
            self.assertEqual(json.load(f)["kind"], "recording")
        # Into a pipe: the whole session on stdout, nothing else there.
        proc = subprocess.run([CLI, "record", "--quiet", "--output", "/dev/stdout", "--", "true"],
                              capture_output=True, timeout=60, cwd=WORK)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["kind"], "recording")
        self.assertTrue(os.path.islink("/dev/stdout"))
        # Into a file stdout was sent to with >>: written through the descriptor, after what
        # was there and what the program printed, nothing truncated.
        log = os.path.join(WORK, "appended.log")
        with open(log, "w") as f:
            f.write("OLD\n")
        with open(log, "a") as f:
            proc = subprocess.run([CLI, "record", "--quiet", "--output", "/dev/stdout", "--", "sh", "-c", "echo hello"],
                                  stdout=f, stderr=subprocess.PIPE, timeout=60, cwd=WORK)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(log) as f:
            text = f.read()
        self.assertTrue(text.startswith("OLD\nhello\n"), text[:100])
        self.assertEqual(json.loads(text[len("OLD\nhello\n"):])["kind"], "recording")
        self.assertFalse([n for n in os.listdir("/dev") if n.startswith("stdout") and n != "stdout"])
        # Another user's link in a shared sticky folder (/tmp) is replaced, not followed, as
        # open() would refuse to follow it (fs.protected_symlinks).
        if os.geteuid() == 0:
            victim = os.path.join(WORK, "victim.txt")
            with open(victim, "w") as f:
                f.write("mine")
            planted = tempfile.mktemp(prefix="blasscope-planted-", suffix=".json", dir="/tmp")
            os.symlink(victim, planted)
            os.lchown(planted, 65534, 65534)
            try:
                proc = subprocess.run([CLI, "record", "--quiet", "--output", planted, "--", "true"],
                                      capture_output=True, timeout=60, cwd=WORK)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                with open(victim) as f:
                    self.assertEqual(f.read(), "mine")
                self.assertFalse(os.path.islink(planted))
            finally:
                os.unlink(planted)

    def test_a_recorder_started_without_stdout_and_stderr_keeps_its_session_clean(self):
        # The session must not take fd 1 or 2 (the summary would be written into it), and the
        # program gets them closed, as they were given.
        session = os.path.join(WORK, "closed-streams.json")
        seen = os.path.join(WORK, "closed-streams.txt")
        program = [PYTHON, "-c", "import os, sys\n"
                   "def is_open(fd):\n    try:\n        os.fstat(fd); return 'open'\n"
                   "    except OSError:\n        return 'closed'\n"
                   "state = ' '.join(is_open(fd) for fd in (1, 2))\n"  # before open() takes fd 1
                   f"open({seen!r}, 'w').write(state)"]
        proc = subprocess.run([CLI, "record", "--output", session, "--", *program], stdout=subprocess.DEVNULL,
                              timeout=60, cwd=WORK, preexec_fn=lambda: (os.close(1), os.close(2)))
        self.assertEqual(proc.returncode, 0)
        with open(session) as f:
            self.assertEqual(json.load(f)["kind"], "recording")
        with open(seen) as f:
            self.assertEqual(f.read(), "closed closed")

    def test_a_session_that_cannot_be_saved_is_refused_before_the_program_runs(self):
        marker = os.path.join(WORK, "ran")
        program = [PYTHON, "-c", f"open({marker!r}, 'w').close()"]
        not_a_folder = write("plain-file", "x")
        for output, reason in ((os.path.join(not_a_folder, "s.json"), "cannot create the folder"),
                               (WORK, "is a folder")):
            proc = subprocess.run([CLI, "record", "--output", output, "--", *program], capture_output=True,
                                  timeout=60, cwd=WORK)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn(reason, proc.stderr.decode())
            self.assertIn("nothing was run", proc.stderr.decode())
            self.assertFalse(os.path.exists(marker))

    def test_usage_errors(self):
        for args in (["record"], ["record", "--timeout", "soon", "--", "true"], ["record", "--timeout", "1e9", "--", "true"],
                     ["record", "--bogus", "--", "true"], ["record", "--nested-calls", "-1", "--", "true"],
                     ["record", "--nested-calls", "1.5", "--", "true"], ["record", "--nested-calls", "many", "--", "true"],
                     ["record", "--nested-calls"], ["record", "--nested-calls", "", "--", "true"],
                     ["record", "--nested-calls", "1e3", "--", "true"], ["record", "--nested-calls", "0x10", "--", "true"],
                     ["record", "--nested-calls", " 5", "--", "true"], ["record", "--max-calls", "", "--", "true"],
                     ["record", "--max-calls", "+3", "--", "true"], ["record", "--timeout", "inf", "--", "true"]):
            proc = subprocess.run([CLI, *args], capture_output=True, timeout=60, cwd=WORK)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn("usage", proc.stderr.decode())
        # report names what it refused, not "which session?" where one was given.
        for args, said in ((["s.json", "-o", "x"], "unknown option '-o'"), (["s.json", "--bogus"], "unknown option"),
                           (["a.json", "b.json"], "one session at a time"), (["s.json", "--format"], "needs a value")):
            proc = subprocess.run([CLI, "report", *args], capture_output=True, timeout=60, cwd=WORK)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn(said, proc.stderr.decode())

    def test_each_command_has_its_own_help(self):
        for command, option in (("record", "--nested-calls"), ("report", "--format"), ("run", "--device"),
                                ("scenarios", "--json")):
            proc = subprocess.run([CLI, command, "--help"], capture_output=True, text=True, timeout=60)
            self.assertEqual(proc.returncode, 0, (command, proc.stderr))
            self.assertTrue(proc.stdout.startswith(f"usage: blasscope-cli {command}"), proc.stdout)
            self.assertIn(option, proc.stdout)
            self.assertNotIn("\n  inspect FILE", proc.stdout)  # that command's part only
        # After --, --help is the recorded program's.
        proc = subprocess.run([CLI, "record", "--output", os.path.join(WORK, "help.json"), "--", PYTHON, "--help"],
                              capture_output=True, text=True, timeout=60, cwd=WORK)
        self.assertEqual(proc.returncode, 0)
        self.assertIn("usage: ", proc.stdout)
        self.assertNotIn("blasscope-cli", proc.stdout)

    def test_a_damaged_recording_is_refused_with_a_reason(self):
        header = '{"format": "blasscope-session", "version": 1, "kind": "recording", '
        cases = {
            header + '"calls": [{"routine": "dfoo"}]}': "dfoo",
            header + '"calls": [{"routine": "dgemm", "m": 1e300}]}': '"m"',
            header + '"calls": [{"routine": "dgemm", "m": 2.5}]}': '"m"',
            header + '"pid": 1e300}': '"pid"',
            header + '"calls": [[1]]}': "array",
            header + '"calls": [{"routine": "dgemm", "xerbla": {"a": {"b": 1}}}]}': "nests",
            header + '"calls": [{"m": 1}]}': "routine",
            header + '"running": [{"routine": "dgemm", "m": 1e300}], "calls": []}': '"m"',
            header + '"running": [{"routine": "dgemm", "other": {"a": 1}}], "calls": []}': "must not be an object",
            header + '"calls": [{"routine": "dgemm"': "parse error",
            header.replace('"version": 1', '"version": 99') + '"calls": []}': "version 99",
            header + '"calls": [' + '[' * 100000 + ']' * 100000 + ']}': "array",
        }
        for i, (text, expected) in enumerate(cases.items()):
            path = write(f"damaged{i}.json", text)
            proc = subprocess.run([CLI, "report", path, "--format", "json"], capture_output=True, timeout=60)
            self.assertEqual(proc.returncode, 3, text[:120])
            self.assertIn(expected, proc.stderr.decode(), text[:120])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    CLI = os.path.abspath(sys.argv[1])
    WORK = tempfile.mkdtemp(prefix="blasscope-record-test-")
    try:
        unittest.main(argv=[sys.argv[0], *sys.argv[2:]], verbosity=2)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
