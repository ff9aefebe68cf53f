#!/usr/bin/env python3
"""Runs small real NumPy / SciPy / PyTorch programs that fail, and captures what they print.

    collect_error_texts.py --write DIR    (re)write DIR/CASE.txt, one file per case
    collect_error_texts.py --list         print the cases as JSON (name, expect, call)

Every text comes from running the library here, never from memory. Each file starts with one
header line naming the call that produced it and the diagnosis id that explains it; the rest is
the program's stderr (traceback or warning) as it was printed. tests/e2e/test_triage_cli.py
imports this module and runs the producers again at test time.

Run it with Debian's interpreter (/usr/bin/python3): it has numpy, scipy and torch.
"""
import json
import os
import subprocess
import sys

# name: (call, diagnosis id, program). The program runs in a fresh interpreter so a crash, a
# warning filter or an import side effect of one case cannot change another.
NAN_MATRIX = "import numpy as np\na = np.random.default_rng(0).random((5, 4))\na[1, 1] = np.nan\n"
CASES = {
    "numpy-svd-nan": (
        "numpy.linalg.svd(a), a 5x4 float64 matrix holding one NaN",
        "dlascl-invalid-cfrom",
        NAN_MATRIX + "np.linalg.svd(a)\n",
    ),
    "numpy-lstsq-nan": (
        "numpy.linalg.lstsq(a, b), a 5x4 float64 matrix holding one NaN",
        "dlascl-invalid-cfrom",
        NAN_MATRIX + "np.linalg.lstsq(a, np.ones(5), rcond=None)\n",
    ),
    "scipy-svd-nan": (
        "scipy.linalg.svd(a), a 5x4 float64 matrix holding one NaN (check_finite=True, the default)",
        "non-finite-input",
        NAN_MATRIX + "import scipy.linalg\nscipy.linalg.svd(a)\n",
    ),
    "scipy-svd-nan-unchecked": (
        "scipy.linalg.svd(a, check_finite=False), a 5x4 float64 matrix holding one NaN",
        "dlascl-invalid-cfrom",
        NAN_MATRIX + "import scipy.linalg\nscipy.linalg.svd(a, check_finite=False)\n",
    ),
    "scipy-lstsq-nan-unchecked": (
        "scipy.linalg.lstsq(a, b, check_finite=False), a 5x4 float64 matrix holding one NaN",
        "dlascl-invalid-cfrom",
        NAN_MATRIX + "import scipy.linalg\nscipy.linalg.lstsq(a, np.ones(5), check_finite=False)\n",
    ),
    "scipy-dgesdd-lwork": (
        "scipy.linalg.lapack.dgesdd(a, lwork=1): a workspace smaller than DGESDD needs",
        "illegal-argument",
        "import numpy as np, scipy.linalg.lapack as L\nL.dgesdd(np.ones((4, 3)), lwork=1)\n",
    ),
    "scipy-sgesdd-lwork": (
        "scipy.linalg.lapack.sgesdd(a, lwork=2): a workspace smaller than SGESDD needs",
        "illegal-argument",
        "import numpy as np, scipy.linalg.lapack as L\nL.sgesdd(np.ones((4, 3), np.float32), lwork=2)\n",
    ),
    "scipy-dgemm-shapes": (
        "scipy.linalg.blas.dgemm(1.0, a, b) with a 2x3 and b 4x2",
        "shape-mismatch",
        "import numpy as np, scipy.linalg.blas as B\nB.dgemm(1.0, np.ones((2, 3)), np.ones((4, 2)))\n",
    ),
    "torch-svd-nan": (
        "torch.linalg.svd(x), a 5x4 float64 tensor holding one NaN",
        "dlascl-invalid-cfrom",
        NAN_MATRIX + "import torch\ntorch.linalg.svd(torch.from_numpy(a))\n",
    ),
    "torch-svd-inf": (
        "torch.linalg.svd(x), a 3x3 float32 tensor of +Inf",
        "lapack-failed",
        "import torch\ntorch.linalg.svd(torch.full((3, 3), float('inf')))\n",
    ),
    "torch-lstsq-rank": (
        "torch.linalg.lstsq(a, b, driver='gels'), a 5x4 matrix of rank 3",
        "lapack-failed",
        "import torch\na = torch.eye(5, 4, dtype=torch.float64)\na[3, 3] = 0\n"
        "torch.linalg.lstsq(a, torch.ones(5, 1, dtype=torch.float64), driver='gels')\n",
    ),
    "numpy-cholesky-not-spd": (
        "numpy.linalg.cholesky(a), a 3x3 matrix that is not positive definite",
        "lapack-failed",
        "import numpy as np\nnp.linalg.cholesky(-np.eye(3))\n",
    ),
    "scipy-cholesky-not-spd": (
        "scipy.linalg.cholesky(a), a 3x3 matrix that is not positive definite",
        "lapack-failed",
        "import numpy as np, scipy.linalg\nscipy.linalg.cholesky(-np.eye(3))\n",
    ),
    "scipy-eigh-b-not-spd": (
        "scipy.linalg.eigh(a, b), B a 3x3 matrix that is not positive definite",
        "lapack-failed",
        "import numpy as np, scipy.linalg\nscipy.linalg.eigh(np.eye(3), -np.eye(3))\n",
    ),
    "numpy-inv-singular": (
        "numpy.linalg.inv(a), a 3x3 matrix of zeros",
        "lapack-failed",
        "import numpy as np\nnp.linalg.inv(np.zeros((3, 3)))\n",
    ),
    "scipy-solve-singular": (
        "scipy.linalg.solve(a, b), a 3x3 matrix of ones",
        "lapack-failed",
        "import numpy as np, scipy.linalg\nscipy.linalg.solve(np.ones((3, 3)), np.ones(3))\n",
    ),
    "numpy-matmul-shapes": (
        "numpy a @ b with a 2x3 and b 4x2",
        "shape-mismatch",
        "import numpy as np\nnp.ones((2, 3)) @ np.ones((4, 2))\n",
    ),
    "numpy-dot-shapes": (
        "numpy.dot(a, b) with a 2x3 and b 4x2",
        "shape-mismatch",
        "import numpy as np\nnp.dot(np.ones((2, 3)), np.ones((4, 2)))\n",
    ),
    "torch-mm-shapes": (
        "torch a @ b with a 2x3 and b 4x2",
        "shape-mismatch",
        "import torch\ntorch.ones(2, 3) @ torch.ones(4, 2)\n",
    ),
    "torch-mm-dtypes": (
        "torch a @ b with a float32 and b float64",
        "dtype-mismatch",
        "import torch\ntorch.ones(2, 3) @ torch.ones(3, 2, dtype=torch.float64)\n",
    ),
    "torch-mm-half-cpu": (
        "torch a @ b, both float16, on the CPU",
        "unsupported-dtype",
        "import torch\nh = torch.ones(2, 2, dtype=torch.half)\nh @ h\n",
    ),
    "numpy-matmul-overflow": (
        "numpy a @ b, float64 values of 1e300",
        "non-finite-output",
        "import numpy as np\nc = np.full((2, 2), 1e300) @ np.full((2, 2), 1e300)\n",
    ),
    "numpy-float16-matmul-overflow": (
        "numpy a @ b, float16 values of 300 (products past float16's 65504)",
        "cast-overflow",
        "import numpy as np\nh = np.full((2, 2), 300, np.float16)\nc = h @ h\n",
    ),
    "numpy-float16-cast-overflow": (
        "numpy a.astype(np.float16), a float64 value of 1e6",
        "cast-overflow",
        "import numpy as np\nh = np.array([1e6]).astype(np.float16)\n",
    ),
    "numpy-allocation": (
        "numpy.empty((1000000, 1000000)): 7.3 TiB of float64",
        "out-of-memory",
        "import numpy as np\nnp.empty((1000000, 1000000))\n",
    ),
}


def run_case(name, python=sys.executable):
    """The header line and the stderr of one case, as the file holds them."""
    call, expect, program = CASES[name]
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONWARNINGS", None)
    done = subprocess.run([python, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    return f"# {call} -> {expect}\n{done.stderr}"


def main(argv):
    if argv[1:] == ["--list"]:
        print(json.dumps([{"name": n, "call": c, "expect": e} for n, (c, e, _) in CASES.items()], indent=1))
        return 0
    if len(argv) != 3 or argv[1] != "--write":
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(argv[2], exist_ok=True)
    for name in CASES:
        text = run_case(name)
        if len(text.splitlines()) < 2:
            print(f"{name}: the program printed nothing; not written", file=sys.stderr)
            continue
        with open(os.path.join(argv[2], name + ".txt"), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{name}: {text.splitlines()[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
