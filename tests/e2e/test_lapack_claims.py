#!/usr/bin/env python3
"""What the explanation pages say each LAPACK driver does with a NaN or an Inf, checked on this
machine's LAPACK through `blasscope-cli run`: every row of a page's driver table

    | driver | input | INFO | xerbla | result |

is run for several seeds (the bad value lands in a different place each time), and the page
must say what really happens for all of them. A driver that loops forever is stopped at the
op's time limit and reported as kernel-hang: "hangs".

usage: test_lapack_claims.py CLI RESOURCES [--survey]
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import unittest

CLI = None
RESOURCES = None
SEEDS = range(1, 7)
HANG_SECONDS = 4  # the op's time limit: the worker is stopped and the op reported as kernel-hang


def driver_claims():
    claims = []
    folder = os.path.join(RESOURCES, "explanations")
    for name in sorted(os.listdir(folder)):
        in_table = False
        with open(os.path.join(folder, name)) as f:
            for line in f:
                if line.startswith("| driver | input | INFO | xerbla | result |"):
                    in_table = True
                elif in_table and line.startswith("|--"):
                    continue
                elif in_table and line.startswith("| "):
                    cells = [c.strip() for c in line.strip().strip("|").split("|")]
                    claims.append({"page": name, "driver": cells[0], "input": cells[1], "info": cells[2],
                                   "xerbla": cells[3], "result": cells[4]})
                else:
                    in_table = False
    return claims


def workload(claim, seed):
    kind = "nan" if claim["input"].startswith("NaN") else "inf"
    a = {"shape": [6, 4], "dtype": "float64", "seed": seed}
    b = {"shape": [6, 2], "dtype": "float64", "seed": seed + 100}
    (b if claim["input"].endswith("in B") else a)[kind] = 1
    name = claim["driver"].split(",")[0]
    if name in ("gesdd", "gesvd"):
        op = {"op": "svd", "a": "a", "driver": name, "compute_uv": "U and V^T" in claim["driver"]}
    else:
        op = {"op": "lstsq", "a": "a", "b": "b", "driver": name}
    return {"name": "claim", "timeout": HANG_SECONDS, "tensors": {"a": a, "b": b}, "ops": [op]}


def outcome(claim, seed, work):
    path = os.path.join(work, f"{claim['driver'].split(',')[0]}-{claim['input'][:3]}-{claim['input'][-1]}-"
                              f"{'uv' if 'U and' in claim['driver'] else 'v'}-{seed}.json")
    with open(path, "w") as f:
        json.dump(workload(claim, seed), f)
    proc = subprocess.Popen([CLI, "run", path, "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        stdout, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # the time limit did not work: the test fails on this
        proc.kill()  # the worker dies with the CLI (PR_SET_PDEATHSIG)
        proc.communicate()
        return {"info": "?", "xerbla": "?", "result": "never stopped"}
    report = json.loads(stdout)
    if report["crash"] and report["crash"]["signal"] == "time limit":
        if "kernel-hang" not in {d["id"] for d in report["diagnoses"]}:
            return {"info": "?", "xerbla": "?", "result": "stopped without kernel-hang"}
        return {"info": "-", "xerbla": "-", "result": "hangs"}
    record = report["ops"][0]["record"]
    xerbla = record.get("xerbla") or []
    seen = {"info": str(record.get("info", 0)),
            "xerbla": f"{xerbla[0]['routine']} {xerbla[0]['parameter']}" if xerbla else "none"}
    out = [o for o in record["operands"] if o["role"] == "out"]
    if not out:
        seen["result"] = "no result"
    else:
        values = 1
        for d in out[0]["shape"]:
            values *= d
        bad = out[0].get("nan", 0) + out[0].get("inf", 0)
        if out[0].get("nan", 0) == values:
            seen["result"] = "all NaN"
        elif bad:
            seen["result"] = "some NaN/Inf"
        else:
            seen["result"] = "finite" if out[0].get("max_abs", 0) else "all zero"
    return seen


def outcomes(claims):
    """Every claim's outcome per seed, and how many workers of these runs are still alive."""
    with tempfile.TemporaryDirectory() as work:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            jobs = {(i, seed): pool.submit(outcome, c, seed, work) for i, c in enumerate(claims) for seed in SEEDS}
            seen = {key: job.result() for key, job in jobs.items()}
        left = subprocess.run(["pgrep", "-f", f"blasscope-worker.*{work}"], capture_output=True, text=True).stdout
        return seen, len(left.split())


class DriverTables(unittest.TestCase):
    def test_every_row_holds_for_every_seed(self):
        claims = driver_claims()
        self.assertGreaterEqual(len(claims), 20, "the driver table lost its rows")
        seen, workers_left = outcomes(claims)
        for i, claim in enumerate(claims):
            for seed in SEEDS:
                with self.subTest(page=claim["page"], driver=claim["driver"], input=claim["input"], seed=seed):
                    got = seen[(i, seed)]
                    for key in ("info", "xerbla", "result"):
                        # A cell may list what depends on where the value lands: "3 or 0".
                        self.assertIn(got[key], [v.strip() for v in claim[key].split(" or ")], key)
        # The runs stopped for hanging took their workers with them.
        self.assertEqual(workers_left, 0)


def survey():
    claims = driver_claims()
    seen, _ = outcomes(claims)
    for i, claim in enumerate(claims):
        rows = {tuple(seen[(i, s)].values()) for s in SEEDS}
        print(f"| {claim['driver']} | {claim['input']} | " +
              " | ".join(" or ".join(sorted({r[k] for r in rows})) for k in range(3)) + " |")


if __name__ == "__main__":
    CLI, RESOURCES = os.path.abspath(sys.argv[1]), sys.argv[2]
    if "--survey" in sys.argv:
        survey()
        sys.exit(0)
    unittest.main(argv=[sys.argv[0], "-v"])
