"""End to end: rewrite a program, compile it and the original with iree-compile,
run both on the CPU on the same random inputs, compile for the GPU targets, and
compare each target's workgroup counts.

    xsplit e2e IN.mlir -p 'split-k{factor=77},materialize-late' [--dim N ...]

`xsplit-e2e` is the same command under the name the README's main job uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xsplit.dialects.iree_codegen import COMPILATION_INFO, CompilationInfoAttr
from xsplit.dialects.iree_cpu import LoweringConfigAttr
from xsplit.interop.check import check_rewrite, save_check
from xsplit.interop.saved import write_manifest
from xsplit.iree.workgroups import DispatchCount, split_dispatch_pair, workgroup_counts
from xsplit.targets.gpu_tiles import drop_gpu_tiles, fits
from xsplit.targets.table import COMPILED_GPU_TARGETS, target


@dataclass
class E2EReport:
    max_abs_error: list[float] = field(default_factory=list)
    tolerances: list[float] = field(default_factory=list)
    counts_before: dict[str, list[DispatchCount]] = field(default_factory=dict)
    counts_after: dict[str, list[DispatchCount]] = field(default_factory=dict)
    cpu_only_reason: str | None = None
    """Why the GPU targets were not compiled, where they were asked for."""

    @property
    def numerics_pass(self) -> bool:
        return all(e <= t for e, t in zip(self.max_abs_error, self.tolerances))

    def split_dispatch_workgroups(self, target: str) -> tuple[int | None, int | None]:
        """Workgroups of the reduction's dispatch on `target`, unsplit and split."""
        return split_dispatch_pair(self.counts_before[target], self.counts_after[target])


def run_e2e(
    source: str,
    pipeline: str,
    dims: Sequence[int] = (),
    gpu_targets: Sequence[str] = COMPILED_GPU_TARGETS,
    function: str | None = None,
    seed: int = 0,
    name: str = "<string>",
    tool: str = "xsplit e2e",
    complete: bool = True,
) -> tuple[str, E2EReport]:
    """Rewrites `source` and checks the result against it; returns the IR and a report."""
    rewritten_text, checks = check_rewrite(
        source, pipeline, dims, function, seed, name, tool, complete
    )
    report = E2EReport(
        max_abs_error=[c.max_abs_error for c in checks], tolerances=[c.tolerance for c in checks]
    )
    _count_workgroups(report, source, rewritten_text, gpu_targets, name)
    return rewritten_text, report


def _count_workgroups(
    report: E2EReport, source: str, rewritten_text: str, gpu_targets: Sequence[str], name: str
) -> None:
    if gpu_targets and carries_cpu_tiles(rewritten_text):
        # IREE's GPU backends cannot build the CPU pipeline such an op names.
        report.cpu_only_reason = "the rewritten program carries IREE CPU tile sizes"
        gpu_targets = ()
    for target_name in ("cpu", *gpu_targets):
        report.counts_before[target_name] = workgroup_counts(
            source, target_name, f"reading the workgroup counts of {name} as it is"
        )
        report.counts_after[target_name] = workgroup_counts(
            for_target(rewritten_text, target_name),
            target_name,
            f"reading the workgroup counts of {name} rewritten",
        )


def save_e2e(
    source: str,
    pipeline: str,
    device: str,
    directory: str,
    dims: Sequence[int] = (),
    gpu_targets: Sequence[str] = COMPILED_GPU_TARGETS,
    function: str | None = None,
    seed: int = 0,
    name: str = "<string>",
    tool: str = "xsplit e2e",
    complete: bool = True,
) -> str:
    """`run_e2e` for a device, compiled only: `save_check`'s directory, whose
    report ends with the workgroup counts (read here, where iree-compile is).
    Returns the rewritten IR."""
    rewritten_text, manifest = save_check(
        source, pipeline, device, directory, dims, function, seed, name, tool, complete, kind="e2e"
    )
    report = E2EReport()
    _count_workgroups(report, source, rewritten_text, gpu_targets, name)
    manifest.notes = workgroup_lines(report)
    write_manifest(directory, manifest)
    return rewritten_text


def for_target(text: str, target_name: str) -> str:
    """`text` as `target_name` can build it: GPU tiles chosen for another
    kind of target (the CPU, a GPU of another subgroup size) are dropped,
    leaving those ops to IREE's own configuration."""
    from xsplit.api import parse_module, print_module

    if "#iree_gpu.lowering_config" not in text:
        return text
    module = parse_module(text)
    if fits(module, target(target_name)):
        return text
    drop_gpu_tiles(module)
    return print_module(module)


def carries_cpu_tiles(text: str) -> bool:
    """Whether an op of the program fixes its IREE CPU configuration
    (`compilation_info` with an `#iree_cpu.lowering_config`, as
    `split-k{cpu_tiles=true}` and `target=cpu` set): it compiles for the CPU only."""
    from xsplit.api import parse_module

    for op in parse_module(text).walk():
        info = op.attributes.get(COMPILATION_INFO)
        if isinstance(info, CompilationInfoAttr) and isinstance(info.lowering_config, LoweringConfigAttr):
            return True
    return False


def format_report(report: E2EReport) -> str:
    lines = []
    for i, (err, tol) in enumerate(zip(report.max_abs_error, report.tolerances)):
        verdict = "PASS" if err <= tol else "FAIL"
        lines.append(
            f"result {i}: max |split - unsplit| = {err:.3g} (tolerance {tol:.3g}): {verdict}"
        )
    return "\n".join(lines + workgroup_lines(report))


def workgroup_lines(report: E2EReport) -> list[str]:
    compiled = "all targets compiled" if len(report.counts_after) > 1 else "the CPU only"
    if report.cpu_only_reason:
        compiled += f": {report.cpu_only_reason}"
    lines = [f"workgroups per dispatch, in program order ({compiled}):"]
    for target_name in report.counts_after:
        before = ", ".join(_describe(c) for c in report.counts_before[target_name])
        after = ", ".join(_describe(c) for c in report.counts_after[target_name])
        lines.append(f"  {target_name:6s} unsplit [{before}]  split [{after}]")
    return lines


def _describe(count: DispatchCount) -> str:
    return "dynamic" if count.total is None else str(count.total)
