"""`auto{target=NAME}`: the target model's choice for every reduction, applied.

It runs `set-encoding`, on a CPU `stream-prefetch` (xsplit's own dispatch
prefetching B, where the CPU model measured it faster than split-k's
tiles), `split-k`, on a CPU `split-lanes` (a matrix-vector product split-k
left whole, its K contiguous in the matrix, streamed lane by lane) and
`materialize-late`, each with the same `target=`, held as pass instances (`auto_pipeline`, a `PassPipeline` applied
in auto's own context): the model (`cost_model.choose_tiling`) decides per op between
leaving it whole, splitting it, encoding it (data tiling), and splitting the
encoded op (partial products as batch_mmt4d), and each pass applies its part
of that decision and says why in a remark (`--xsplit-explain` adds why each
pattern did not apply). On a GPU, IREE 3.13 drops encodings, so the choice is
between splitting and not.

On CUDA targets the model may also lower a static matmul to xsplit's own
split-K GEMM kernel (`kernel=auto`, the default; `own` forces it where the
kernel can take the op, `iree` forbids it): `split-k` outlines it into a
kernel and leaves the function a host, and `auto` then runs
`export-dispatch{target=NAME called=true}`, which turns the host back into
tensors around the kernel's custom dispatch, so that iree-compile takes the
output as before.

Without `target=` (or with `target=device`), each op is modeled on its own
device (`xsplit.analysis.devices`): in a module with an llvm-cpu and a VMVX
device, the remarks say `on @dev_b (vmvx): ...`, and each device's
contractions get its own layout. A module that declares no device is
modeled as `target=cpu`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xsplit.analysis.devices import DEVICE
from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dispatch.export_dispatch import EXPORT_DISPATCH
from xsplit.rewrites.encoding.materialize_late import MATERIALIZE_LATE
from xsplit.rewrites.encoding.set_encoding import SET_ENCODING
from xsplit.rewrites.pass_pipeline import PassPipeline
from xsplit.rewrites.split.split_k import SPLIT_K
from xsplit.rewrites.split.split_lanes import SPLIT_LANES
from xsplit.rewrites.split.stream_prefetch import STREAM_PREFETCH
from xsplit.targets.table import TARGETS, target


KERNELS = ("auto", "iree", "own")


def auto_pipeline(target_name: str, kernel: str = "auto") -> PassPipeline:
    """The passes `auto{target=NAME}` runs (`device`: each op's own device,
    which materialize-late reads without `target=`). On a GPU,
    `export-dispatch{called=true}` then exports the kernels split-k's hosts
    call (xsplit's own GEMM kernel), and nothing else."""
    on_device = target_name == DEVICE
    late = MATERIALIZE_LATE.pass_class
    passes = [SET_ENCODING.pass_class(target=target_name)]
    if on_device or not target(target_name).is_gpu:
        # Before split-k: a product of up to 16 rows against a row-major B
        # becomes xsplit's prefetching dispatch where the CPU model measured
        # it faster than split-k's tiles (9 to 12 rows), else split-k's.
        passes.append(STREAM_PREFETCH.pass_class(target=target_name))
    passes.append(SPLIT_K.pass_class(target=target_name, kernel=kernel))
    if on_device or not target(target_name).is_gpu:
        # After split-k: the matrix-vector products it left whole (on each
        # op's device, those on an llvm-cpu one).
        passes.append(SPLIT_LANES.pass_class(target=target_name))
    passes.append(late() if on_device else late(target=target_name))
    if not on_device and target(target_name).is_gpu:
        passes.append(EXPORT_DISPATCH.pass_class(target=target_name, called=True))
    return PassPipeline(passes)


@dataclass(frozen=True)
class AutoPass(ModulePass):
    """Runs set-encoding, split-k and materialize-late with the target model's choices."""

    name = "auto"
    target: str = DEVICE
    kernel: str = "auto"

    NAMES: ClassVar[tuple[str, ...]] = (
        tuple(TARGETS) + tuple(a for t in TARGETS.values() for a in t.aliases) + (DEVICE,)
    )
    OPTION_MEANINGS: ClassVar[dict[str, str]] = {
        "target": "the target whose cost model chooses, per op, between leaving it "
        f"whole, splitting, encoding, and both; takes one of {', '.join(NAMES)}; "
        f"default {DEVICE}: each op's own device (cpu where the module declares none)",
        "kernel": "GPU targets: auto (the cost model chooses, per static matmul, between IREE's "
        "code and xsplit's own split-K GEMM kernel), iree (never the own kernel) or own "
        "(always, where it can take the op)",
    }

    def __post_init__(self) -> None:
        if self.target not in self.NAMES:
            raise XsplitError(
                f"auto: unknown target '{self.target}', expected one of {', '.join(self.NAMES)}"
            )
        if self.kernel not in KERNELS:
            raise XsplitError(
                f"auto: unknown kernel '{self.kernel}', expected one of {', '.join(KERNELS)}"
            )

    @property
    def pipeline(self) -> PassPipeline:
        """The passes it runs, with their options."""
        name = self.target if self.target == DEVICE else target(self.target).name
        return auto_pipeline(name, self.kernel)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xsplit.analysis.devices import check_affinities

        # Checked before any rewrite, so that a bad affinity leaves the module untouched.
        check_affinities(op)
        self.pipeline.apply(ctx, op)


@dataclass(frozen=True)
class _Registered:
    pass_class: type[ModulePass]


AUTO = _Registered(AutoPass)
