"""What xsplit's DSL engine costs: `split-k,materialize-late` on a generated
module of N matmuls, against xDSL's parse plus print of the same file.

    python bench/dsl_overhead.py                 # N = 2000, 5 runs
    python bench/dsl_overhead.py --sizes 2000 5000 10000 20000 --runs 3

Reports medians. Target: the rewrite adds at most 100% to parse + print, and
its time per matmul stays flat (linear scaling) up to 20,000 ops. "rewrite"
is the passes alone; "verify" is one verification of the result, which
xsplit-opt runs once at the end (after each pass with --verify-each). "parse" is xDSL's own
parser, without the location recording and verification xsplit adds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from xdsl.parser import Parser

from xsplit.api import build_pipeline, print_module, run_passes, verify_module
from xsplit.dialects import make_context

PIPELINE = "split-k{factor=4},materialize-late"


def generate(n: int) -> str:
    """N independent matmuls, each in its own function, K = 1000."""
    parts = []
    for i in range(n):
        parts.append(
            f"func.func @mm{i}(%a: tensor<16x1000xf32>, %b: tensor<1000x32xf32>, "
            f"%c: tensor<16x32xf32>) -> tensor<16x32xf32> {{\n"
            f"  %0 = linalg.matmul ins(%a, %b : tensor<16x1000xf32>, tensor<1000x32xf32>) "
            f"outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>\n"
            f"  func.return %0 : tensor<16x32xf32>\n}}\n"
        )
    return "".join(parts)


def measure(n: int, runs: int) -> dict[str, float]:
    text = generate(n)
    ctx = make_context()
    passes = build_pipeline(PIPELINE)
    parse_s, print_s, rewrite_s, verify_s = [], [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        module = Parser(ctx, text, "bench.mlir").parse_module()
        t1 = time.perf_counter()
        print_module(module)
        t2 = time.perf_counter()
        run_passes(module, passes, ctx, verify=False)
        t3 = time.perf_counter()
        verify_module(module)
        t4 = time.perf_counter()
        parse_s.append(t1 - t0)
        print_s.append(t2 - t1)
        rewrite_s.append(t3 - t2)
        verify_s.append(t4 - t3)
    parse, prnt, rew, ver = (statistics.median(x) for x in (parse_s, print_s, rewrite_s, verify_s))
    return {"n": n, "parse": parse, "print": prnt, "rewrite": rew, "verify": ver}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"pipeline: {PIPELINE}; medians of {args.runs} runs")
    print(
        f"{'matmuls':>8} {'parse s':>8} {'print s':>8} {'rewrite s':>9} {'verify s':>8} "
        f"{'rewrite/(parse+print)':>22} {'rewrite us/op':>13}"
    )
    for n in args.sizes:
        r = measure(n, args.runs)
        ratio = r["rewrite"] / (r["parse"] + r["print"])
        print(
            f"{n:>8} {r['parse']:>8.2f} {r['print']:>8.2f} {r['rewrite']:>9.2f} "
            f"{r['verify']:>8.2f} {ratio:>21.0%} {1e6 * r['rewrite'] / n:>13.0f}"
        )


if __name__ == "__main__":
    main()
