"""`gpu`: thread and block ids and sizes, and the subgroup collectives.
(`gpu.barrier` is the machine's own: it closes an epoch of the log.)"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from xsplit.semantics import op_property, safe_divisor
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, Launch, expand
from xsplit.simulator.semantics.operands import dim_index, slot_of
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


def _c_id_op(kind: str):
    def make(m: Compiled, op: Operation):
        d = dim_index(op)
        launch = m.launch
        r = slot_of(m, op.results[0])
        if kind in ("thread", "block"):
            source = (launch.tid if kind == "thread" else launch.bid)[d]

            def run(fr: Frame, chunked: bool) -> None:
                fr.env[r] = source[fr.lanes]

            return run
        size = np.int64(launch.block[d] if kind == "block_dim" else launch.grid[d])

        def run_size(fr: Frame, chunked: bool) -> None:
            fr.env[r] = size

        return run_size

    return make


def _c_lanes(values: Callable[[Launch], np.ndarray]):
    def make(m: Compiled, op: Operation):
        source = values(m.launch)
        r = slot_of(m, op.results[0])

        def run(fr: Frame, chunked: bool) -> None:
            fr.env[r] = source[fr.lanes]

        return run

    return make


@register("gpu.subgroup_size", lane_local=True)
def _c_subgroup_size(m: Compiled, op: Operation):
    size = np.int64(m.launch.subgroup_size)
    r = slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = size

    return run


@register("gpu.shuffle")
def _c_shuffle(m: Compiled, op: Operation):
    sv, so, sw = (slot_of(m, v) for v in op.operands[:3])
    mode = str(op_property(op, "mode"))
    results = [slot_of(m, r) for r in op.results]
    launch = m.launch

    def run(fr: Frame, chunked: bool) -> None:
        value, offset, width = m.arr(fr, sv), m.arr(fr, so), m.arr(fr, sw)
        lane = launch.thread_of_lane[fr.lanes]
        base = launch.block_of_lane[fr.lanes] * launch.threads
        w = np.broadcast_to(width, lane.shape)
        seg_start = lane - lane % safe_divisor(w)
        within = lane % safe_divisor(w)
        if "xor" in mode:
            src = within ^ offset
        elif "down" in mode:
            src = within + offset
        elif "up" in mode:
            src = within - offset
        else:
            src = np.broadcast_to(offset, lane.shape)
        valid = (src >= 0) & (src < w)
        src_lane = base + seg_start + np.where(valid, src, within)
        # Control flow around a synchronizing op is uniform in each workgroup
        # (`_check_uniform`), so this frame holds whole workgroups and the
        # source lane, in the same workgroup, is in it.
        full = expand(value, fr.n)
        result = full[fr.m.position(fr)[src_lane]]
        fr.env[results[0]] = np.where(valid, result, full)
        if len(results) > 1:
            fr.env[results[1]] = valid

    return run


@register("gpu.subgroup_reduce")
def _c_subgroup_reduce(m: Compiled, op: Operation):
    sv, r = slot_of(m, op.operands[0]), slot_of(m, op.results[0])
    text = str(op_property(op, "op"))
    kinds = (
        "add", "mul", "minsi", "minui", "minimumf", "minnumf", "maxsi", "maxui", "maximumf",
        "maxnumf", "and", "or", "xor",
    )  # fmt: skip
    kind = next((k for k in kinds if re.search(rf"\b{k}\b", text)), None)
    ufunc = {
        "add": np.add, "mul": np.multiply, "minsi": np.minimum, "minui": np.minimum,
        "minimumf": np.minimum, "minnumf": np.fmin, "maxsi": np.maximum, "maxui": np.maximum,
        "maximumf": np.maximum, "maxnumf": np.fmax, "and": np.bitwise_and, "or": np.bitwise_or,
        "xor": np.bitwise_xor,
    }.get(kind or "")  # fmt: skip
    cluster = op_property(op, "cluster_size")
    launch = m.launch
    size = int(cluster.value.data) if isinstance(cluster, IntegerAttr) else launch.subgroup_size
    stride_attr = op_property(op, "cluster_stride")
    stride = int(stride_attr.value.data) if isinstance(stride_attr, IntegerAttr) else 1
    flat = launch.block_of_lane * launch.threads + launch.thread_of_lane
    # A cluster is `size` lanes `stride` apart: lanes i and j meet when they
    # share the span of size * stride lanes and their offset modulo stride.
    groups = (flat // (size * stride)) * stride + flat % stride
    ngroups = int(groups.max()) + 1 if launch.lanes else 0

    def run(fr: Frame, chunked: bool) -> None:
        value = expand(m.arr(fr, sv), fr.n)
        if ufunc is None:
            raise SimulationError(f"unknown subgroup reduction {text}", op)
        group = groups[fr.lanes]
        if ufunc is np.add:
            acc = np.zeros(ngroups, dtype=value.dtype)
            np.add.at(acc, group, value)
        else:
            first = np.zeros(ngroups, dtype=value.dtype)
            first[group[::-1]] = value[::-1]
            acc = first.copy()
            ufunc.at(acc, group, value)
        fr.env[r] = acc[group]

    return run


register("gpu.thread_id", lane_local=True)(_c_id_op("thread"))
register("gpu.block_id", lane_local=True)(_c_id_op("block"))
register("gpu.block_dim", lane_local=True)(_c_id_op("block_dim"))
register("gpu.grid_dim", lane_local=True)(_c_id_op("grid_dim"))
register("gpu.lane_id", lane_local=True)(_c_lanes(lambda launch: launch.thread_of_lane % launch.subgroup_size))
register("gpu.subgroup_id", lane_local=True)(_c_lanes(lambda launch: launch.thread_of_lane // launch.subgroup_size))
