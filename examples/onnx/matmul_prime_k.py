"""Builds an ONNX model whose reduction IREE 3.13 does not split: one MatMul,
C[32x64] = A[32x8191] · B[8191x64], with K = 8191, a prime. IREE's split
reduction needs a chunk that divides K, and a prime has none.

    python examples/onnx/matmul_prime_k.py [OUT.onnx] [--inputs DIR]

writes the model (default: matmul_prime_k.onnx) and, with --inputs, seeded
random inputs a.npy and b.npy for iree-run-module. A and B are both model
inputs, so that iree-compile cannot fold the product into a constant.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

M, K, N = 32, 8191, 64


def build() -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])],
        "matmul_prime_k",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, [M, K]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [K, N]),
        ],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [M, N])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model, full_check=True)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default="matmul_prime_k.onnx")
    parser.add_argument("--inputs", metavar="DIR", help="also write a.npy and b.npy here")
    args = parser.parse_args()
    onnx.save(build(), args.out)
    if args.inputs:
        rng = np.random.default_rng(0)
        folder = Path(args.inputs)
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "a.npy", rng.uniform(-1, 1, (M, K)).astype(np.float32))
        np.save(folder / "b.npy", rng.uniform(-1, 1, (K, N)).astype(np.float32))


if __name__ == "__main__":
    main()
