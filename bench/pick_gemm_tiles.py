"""The own GEMM kernel's tile table (xsplit/targets/gemm_tiles.py): filled
from the device's measurements, or its model's figures shown.

    python bench/pick_gemm_tiles.py gpu.json [--dry-run]
        reads the gpu.json of a device call of bench/gpu.py (its `tiles`
        programs: every candidate at the model's chunk count on a large and a
        small output, per element type) and writes each sweep's fastest
        right candidate into the table, marked measured (on which device,
        how fast); the entries it has no sweep for are left as they are.
        The measurements were taken on the model's target of that call
        (sm_90: an H100 or H200 running sm_80 code); --also-as sm_80 writes
        the same entries for another target too.

    python bench/pick_gemm_tiles.py --local
        what the starting values were chosen from, without a GPU, for every
        entry and candidate: global loads per FMA (1/tm + 1/tn, as the
        simulator counts them), workgroup memory against the target's
        limit, and what iree-compile makes of the kernel: gfx942's VGPRs,
        spills and LDS from the ISA's metadata, and PTX's `.local` on sm_80.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from xsplit.bench.table_source import replace_entries
from xsplit.files import write_output

TABLE = Path(__file__).parent.parent / "xsplit" / "targets" / "gemm_tiles.py"
BEGIN, END = "# gemm-tiles table: begin", "# gemm-tiles table: end"
KEY = re.compile(r'^    \("(?P<target>\w+)", "(?P<element>\w+)", (?P<cls>[A-Z_]+)\): GemmTiles\(')
"""Every entry's first line: its key, the class by its constant's name.
Only SMALL and LARGE are swept; the others are kept as they are."""


def measured_entries(reports: list[dict], also_as: list[str]) -> dict[tuple[str, str, str], str]:
    """(target, element, SMALL|LARGE) -> the entry's source lines, for each
    tile sweep of `reports` with a right, timed candidate."""
    entries = {}
    for r in reports:
        extra = r.get("extra", {})
        if extra.get("kind") != "tiles":
            continue
        timed = [
            c for c in r["configs"] if c.get("median_ms") is not None and c.get("passed")
        ]
        if not timed:
            continue
        best = min(timed, key=lambda c: c["median_ms"])
        spec = extra["candidates"][best["name"]]
        m, n, k = extra["shape"]
        rate = r["flops"] / (best["median_ms"] * 1e-3) / 1e12 if r.get("flops") else None
        others = sorted(timed, key=lambda c: c["median_ms"])[1:3]
        runner_up = ", ".join(f"{c['name']} {c['median_ms']:.3g} ms" for c in others)
        measured = (
            f"measured on {r['device']}: {best['median_ms']:.3g} ms on {m}x{n}x{k} in "
            f"{best['factor']} chunks" + (f", {rate:.1f} TFLOP/s" if rate else "")
        )
        why = f"fastest of {len(timed)} candidates (bench/gpu.py's tile sweep); next: {runner_up}"
        tile, threads = tuple(spec["tile"]), tuple(spec["threads"])
        cls = "LARGE" if extra["class"] == "large" else "SMALL"
        for target in [extra["target"], *also_as]:
            entries[(target, extra["element"], cls)] = (
                f'    ("{target}", "{extra["element"]}", {cls}): GemmTiles(\n'
                f"        {tile}, {threads}, {spec['stages']},\n"
                f"        {json.dumps(measured)},\n"
                f"        {json.dumps(why)},\n"
                f"    ),\n"
            )
    return entries


def rewrite_table(text: str, entries: dict[tuple[str, str, str], str]) -> str:
    """The table's source with `entries` in place of the entries of the same
    keys (added at its end where it has none)."""
    return replace_entries(text, entries, BEGIN, END, KEY, lambda m: (m["target"], m["element"], m["cls"]))  # type: ignore[arg-type]


def local_figures() -> int:
    """Prints the model's figures for every entry and candidate."""
    import tempfile

    from tests.gpu_assembly import dumped_assembly
    from xsplit.api import parse_module, rewrite
    from xsplit.diagnostics import XsplitError, collect_remarks
    from xsplit.dialects import make_context
    from xsplit.dialects.xsplit_gemm import GridwiseGemmOp
    from xsplit.rewrites.reduce.lower_gridwise_gemm import a_tile_shape
    from xsplit.targets.gemm_tiles import (
        CANDIDATES,
        FUSED,
        FUSED_MMA,
        GEMM_TILES,
        WORKGROUP_MEMORY,
        can_take,
    )
    from xsplit.targets.table import target

    sys.path.insert(0, str(Path(__file__).parent))
    from gpu import dps_matmul  # type: ignore[import-not-found]

    # sm_90 compiles as sm_80: its entries are sm_80's kernels; `cuda` and
    # `rocm` name sm_80 and gfx942. The fused kernel's entries are not
    # gemm-kernel's.
    rows = {
        (target(t).name, e, tiles.label): tiles
        for (t, e, form), tiles in GEMM_TILES.items()
        if t != "sm_90" and form not in (FUSED, FUSED_MMA)
    }
    for t in ("sm_80", "gfx942"):
        for e in ("f32", "f16"):
            rows.update({(t, e, c.label): c for c in CANDIDATES if (t, e, c.label) not in rows})
    print("target element tiles | A+B loads/FMA | workgroup bytes (limit) | assembly")
    for (name, element, _), tiles in sorted(rows.items()):
        tgt = target(name)
        why = can_take(tiles, tgt, element)
        if why:
            print(f"{name} {element} {tiles.label} | cannot: {why}")
            continue
        tm, tn, _ = tiles.tile
        options = f"target={name} chunks=2 {tiles.options}"
        try:
            with collect_remarks():
                kernel = rewrite(dps_matmul(256, 256, 512, element), f"gemm-kernel{{{options}}}")
                out = rewrite(
                    dps_matmul(256, 256, 512, element),
                    f"gemm-kernel{{{options}}},lower-gridwise-gemm,lower-blockwise-gemm,"
                    f"lower-threadwise-gemm,export-dispatch{{target={name}}}",
                )
        except XsplitError as e:
            # What can_take does not judge, the kernel's verifier does (a
            # candidate's K step under one MFMA block, on f16).
            print(f"{name} {element} {tiles.label} | cannot: {str(e).split('error: ', 1)[-1]}")
            continue
        op = next(o for o in parse_module(kernel, "k", make_context()).walk()
                  if isinstance(o, GridwiseGemmOp))
        size = 2 if element == "f16" else 4
        rows_a, cols_a = a_tile_shape(op)
        # An entry that streams B stages A alone.
        b_tile = 0 if tiles.stream_b else tiles.tile[2] * tn
        memory = (rows_a * cols_a + b_tile) * size * tiles.stages
        asm = "\n".join(dumped_assembly(out, name, Path(tempfile.mkdtemp())))
        if name == "gfx942":
            def meta(key: str) -> str:
                found = re.search(rf"\.{key}:\s*(\d+)", asm)
                return found[1] if found else "?"

            shown = (f"VGPRs {meta('vgpr_count')}, VGPR spills {meta('vgpr_spill_count')}, "
                     f"SGPR spills {meta('sgpr_spill_count')}, LDS {meta('group_segment_fixed_size')}")
        else:
            shown = f".local: {'yes (spills)' if re.search(r'[.]local[^_]', asm) else 'none'}"
        print(f"{name} {element} {tiles.label} | 1/{round(1 / (1 / tm + 1 / tn))} | {memory} "
              f"({WORKGROUP_MEMORY[tgt.backend]}) | {shown}", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", nargs="?", help="the device call's gpu.json")
    parser.add_argument("--also-as", action="append", default=[], metavar="TARGET",
                        help="write the measured entries for this target too (sm_80)")
    parser.add_argument("--dry-run", action="store_true", help="print the table, do not write it")
    parser.add_argument("--local", action="store_true", help="the model's figures, no GPU")
    args = parser.parse_args()
    if args.local:
        return local_figures()
    if not args.json:
        parser.error("give the device call's gpu.json, or --local")
    try:
        reports = json.loads(Path(args.json).read_text())
    except (OSError, json.JSONDecodeError) as e:
        print(f"bench/pick_gemm_tiles.py: cannot read {args.json}: {e}", file=sys.stderr)
        return 2
    entries = measured_entries(reports, args.also_as)
    if not entries:
        print(f"bench/pick_gemm_tiles.py: {args.json} has no tile sweep with a right, timed "
              "candidate; the table is left as it is", file=sys.stderr)
        return 1
    text = rewrite_table(TABLE.read_text(), entries)
    if args.dry_run:
        print(text[text.index(BEGIN):text.index(END) + len(END)])
    else:
        write_output(str(TABLE), text)
        print(f"wrote {len(entries)} measured entries into {TABLE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
