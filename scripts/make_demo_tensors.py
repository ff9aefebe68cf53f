#!/usr/bin/env python3
"""Writes the demo tensor files `scripts/dev.sh run` opens: small, real examples of what
makes BLAS and LAPACK calls fail or run slowly.

usage: make_demo_tensors.py OUTDIR
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_writer import write_safetensors  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)

    # The matrix behind "Parameter 4 was incorrect on entry to DLASCL": a NaN reaching SVD.
    a = rng.standard_normal((10, 5))
    a[3, 2] = np.nan
    np.save(os.path.join(out, "svd_input_with_nan.npy"), a)

    # A healthy Fortran-order matrix: column-major is BLAS's native layout, not a problem.
    np.save(os.path.join(out, "fortran_order_matrix.npy"), np.asfortranarray(rng.standard_normal((64, 32))))

    # Activations from a training step: big-endian weights, an overflowed float16 tensor,
    # and gradients that underflowed into subnormals.
    grads = (rng.standard_normal((128, 64)) * 1e-39).astype(np.float32)
    logits = (rng.standard_normal((32, 10)) * 30000).astype(np.float32)
    with np.errstate(over="ignore"):
        logits16 = (logits * 4).astype(np.float16)  # values above 65504 become inf
    np.savez_compressed(os.path.join(out, "training_step.npz"), weights=rng.standard_normal((64, 64)).astype(">f8"),
                        logits_fp16=logits16, grads=grads, labels=rng.integers(0, 10, 32))

    # A model checkpoint in safetensors with bfloat16 weights and metadata.
    w = rng.standard_normal((256, 128)).astype(np.float32)
    bf16 = (w.view(np.uint32) >> 16).astype("<u2")
    bias = np.zeros(128, dtype="<f4")
    write_safetensors(os.path.join(out, "checkpoint.safetensors"),
                      [("encoder.weight", "BF16", w.shape, bf16.tobytes()), ("encoder.bias", "F32", bias.shape,
                                                                              bias.tobytes())],
                      {"format": "pt", "source": "BLAScope demo"})
    print(f"demo tensors written to {out}")


if __name__ == "__main__":
    main()
