"""Passes composed as objects: a pass of one's own that runs split-k and
materialize-late, held as pass instances with typed options, as `auto` runs
its passes. `python examples/compose_passes.py` prints the result for
examples/small_matmul.mlir."""

from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xsplit.api import PassPipeline, parse_module, print_module, run_passes
from xsplit.rewrites.encoding.materialize_late import MATERIALIZE_LATE
from xsplit.rewrites.split.split_k import SPLIT_K


@dataclass(frozen=True)
class SplitAndMaterialize(ModulePass):
    """split-k into `factor` chunks, then IREE's dispatches around them."""

    name = "split-and-materialize"
    factor: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        split = SPLIT_K.pass_class(factor=self.factor)  # factor=0 raises here
        PassPipeline([split, MATERIALIZE_LATE.pass_class()]).apply(ctx, op)


def main() -> None:
    source = (Path(__file__).parent / "small_matmul.mlir").read_text()
    module = parse_module(source, "small_matmul.mlir")
    run_passes(module, [SplitAndMaterialize(factor=4)])  # verified once it ran
    print(print_module(module), end="")


if __name__ == "__main__":
    main()
