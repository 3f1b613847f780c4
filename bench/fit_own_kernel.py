"""The cost model's own-kernel terms (xsplit/targets/own_kernel_terms.py),
fitted to a device call's times of the own kernel.

    python bench/fit_own_kernel.py gpu.json [--also-as sm_80] [--dry-run]

reads the gpu.json of a device call of bench/gpu.py: its `own` programs, the
own kernel on each shape and element type, atomic and deterministic, at
three chunk counts, on the tiles recorded in the program. For each target
and element type it fits the model's two free terms by inverting
`cost_model.own_kernel_estimate` (GpuFit's formula) point by point:

- the rate (FLOP/s an SM at saturation) from the runs without atomics (one
  chunk, or the deterministic merge), the geometric mean over them;
- the atomic rate (f32 atomic adds a second an SM) from the atomic runs, given
  that rate; where there are no runs without atomics, the rate from the
  atomic runs at the target's atomic rate.

A run the model has at the memory's floor (its operands' read time) says
nothing of the rate and is left out. The entries are written into the table
marked MEASURED, with the device, the runs and how close the model with them
comes to each time; the entries it has no runs for are left as they are. The
other terms (saturation, fixed cost a workgroup) stay the H200 split model's.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from xsplit.bench.table_source import replace_entries
from xsplit.files import write_output

ROOT = Path(__file__).parent.parent
TABLE = ROOT / "xsplit" / "targets" / "own_kernel_terms.py"
BEGIN, END = "# own-kernel terms: begin", "# own-kernel terms: end"
KEY = re.compile(r'^    \("(?P<target>\w+)", "(?P<cls>\w+)"\): OwnKernelTerm\(')
GIGA = 1e9


@dataclass(frozen=True)
class Run:
    """One timed, right configuration of the own kernel."""

    target: str
    element: str
    shape: tuple[int, int, int]
    tile: tuple[int, int, int]
    chunks: int
    merge: str
    seconds: float
    device: str


def runs_of(reports: list[dict]) -> list[Run]:
    """The usable own-kernel runs of a gpu.json (wrong or untimed ones left out)."""
    runs = []
    for r in reports:
        extra = r.get("extra", {})
        if extra.get("kind") != "own" or "shape" not in extra:
            continue
        for c in r["configs"]:
            times = c.get("times_ms") or []
            if not times or not c.get("passed"):
                continue
            merge = re.search(r"merge=(\w+)", c.get("pipeline") or "")
            ms = statistics.median(times)
            runs.append(Run(
                extra["target"], extra["element"], tuple(extra["shape"]), tuple(extra["tile"]),
                int(c["factor"] or 1), merge[1] if merge else "atomic", ms * 1e-3, r["device"],
            ))  # fmt: skip
    return runs


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


@dataclass(frozen=True)
class Fit:
    target: str
    element: str
    rate: float
    atomic_rate: float | None
    runs: list[Run]
    worst: float
    """The largest |modeled - measured| / measured over the runs."""

    def entry(self) -> str:
        shapes = sorted({"x".join(map(str, r.shape)) for r in self.runs})
        source = (
            f"measured on {self.runs[0].device}: {len(self.runs)} runs of bench/gpu.py's own "
            f"kernel ({', '.join(shapes)}), fitted by bench/fit_own_kernel.py; the model with "
            f"these terms is within {self.worst:.0%} of each"
        )
        atomic = ""
        if self.atomic_rate:
            atomic = f"        atomic_rate={self.atomic_rate / GIGA!r} * GIGA,\n"
        return (
            f'    ("{self.target}", "{self.element}"): OwnKernelTerm(\n'
            f"        {self.rate / GIGA!r} * GIGA,\n"
            f"        MEASURED,\n"
            f"        {json.dumps(source)},\n"
            f"{atomic}"
            f"    ),\n"
        )


def fit(runs: list[Run]) -> list[Fit]:
    """The fitted terms per target and element type of `runs`."""
    from xsplit.analysis.cost_model import matmul_problem, own_kernel_estimate, own_kernel_parts
    from xsplit.targets.own_kernel_terms import MEASURED, OwnKernelTerm
    from xsplit.targets.table import target

    fits = []
    for key in sorted({(r.target, r.element) for r in runs}):
        group = [r for r in runs if (r.target, r.element) == key]
        tgt = target(key[0])
        own = tgt.own_kernel
        assert own is not None
        parts = [
            (r, own_kernel_parts(
                matmul_problem(*r.shape, r.element), tgt, r.chunks, r.merge, r.tile
            ))
            for r in group
        ]  # fmt: skip
        plain = [(r, p) for r, p in parts if not p.atomics]
        atomic_rate = own.term(key[1]).atomic_rate or own.atomic_rate
        rates = []
        for r, p in plain or parts:
            rest = r.seconds - p.launch - p.partials - p.merge - p.host_fill
            rest -= p.atomics / atomic_rate
            if rest > 0 and p.work / rest > p.floor:
                rates.append(p.work / rest)
        if not rates:
            print(f"bench/fit_own_kernel.py: no run of {key} tells the rate (all at the memory's "
                  "floor); left as it is", file=sys.stderr)
            continue
        rate = _geomean(rates)
        fitted_atomic = None
        if plain:
            atomics = []
            for r, p in parts:
                if p.atomics:
                    rest = r.seconds - max(p.work / rate, p.floor) - p.launch - p.host_fill
                    if rest > 0:
                        atomics.append(p.atomics / rest)
            fitted_atomic = _geomean(atomics) if atomics else None
        term = OwnKernelTerm(rate, MEASURED, "fit", fitted_atomic)
        with_fit = replace(tgt, own_kernel=replace(own, terms={**own.terms, key[1]: term}))
        worst = max(
            abs(own_kernel_estimate(matmul_problem(*r.shape, r.element), with_fit, r.chunks,
                                    r.merge, r.tile).seconds - r.seconds) / r.seconds
            for r in group
        )  # fmt: skip
        fits.append(Fit(key[0], key[1], rate, fitted_atomic, group, worst))
    return fits


def rewrite_table(text: str, entries: dict[tuple[str, str], str]) -> str:
    """The table's source with `entries` in place of the entries of the same
    keys (added at its end where it has none)."""
    return replace_entries(text, entries, BEGIN, END, KEY, lambda m: (m["target"], m["cls"]))  # type: ignore[arg-type]


def entries_of(fits: list[Fit], also_as: list[str]) -> dict[tuple[str, str], str]:
    entries = {}
    for f in fits:
        for name in [f.target, *also_as]:
            entries[(name, f.element)] = replace(f, target=name).entry()
    return entries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="the device call's gpu.json")
    parser.add_argument("--also-as", action="append", default=[], metavar="TARGET",
                        help="write the fitted entries for this target too (sm_80)")
    parser.add_argument("--dry-run", action="store_true", help="print the table, do not write it")
    args = parser.parse_args()
    try:
        reports = json.loads(Path(args.json).read_text())
    except (OSError, json.JSONDecodeError) as e:
        print(f"bench/fit_own_kernel.py: cannot read {args.json}: {e}", file=sys.stderr)
        return 2
    fits = fit(runs_of(reports))
    if not fits:
        print(f"bench/fit_own_kernel.py: {args.json} has no right, timed run of the own kernel "
              "that tells its rate; the table is left as it is", file=sys.stderr)
        return 1
    for f in fits:
        atomic = f", {f.atomic_rate / GIGA:.3g} G atomics/s an SM" if f.atomic_rate else ""
        print(f"{f.target} {f.element}: {f.rate / GIGA:.1f} GFLOP/s an SM{atomic} from "
              f"{len(f.runs)} runs; the model within {f.worst:.1%} of each", file=sys.stderr)
    text = rewrite_table(TABLE.read_text(), entries_of(fits, args.also_as))
    if args.dry_run:
        print(text[text.index(BEGIN):text.index(END) + len(END)])
    else:
        write_output(str(TABLE), text)
        print(f"wrote {len(fits) * (1 + len(args.also_as))} measured entries into {TABLE}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
