"""Hand-written gfx942 K loops for f16 GEMMs with M < 16, compiled by
iree-compile only to read their ISA (issue 37): which form of the skinny
loop can make MFMA >= 20% of it. Not run and not checked for numerics; the
loop covers each chunk's whole K tiles only (a ragged last tile would be
peeled after it, as `stream_loop` does); N a multiple of 8 (a lane's run
past N reads B's last run, as `lower_stream_gemm` does, and is not written).

    python bench/proto_skinny_f16_gfx942.py --matmul 8x4096x14339 --form f32-grouped

Every form streams B from global memory straight into registers (a lane:
one 16-byte run of 8 columns a K row) and stages only A (16 x 64, two
buffers, one barrier a K tile of 64), on 2 wavefronts; lane l's columns are
8 * (l % L) + j for MFMA j (j = 0..7), so that one load feeds 8 MFMA.

- `f16`: `v_mfma_f32_16x16x16_f16`, whose B operand is 4 consecutive K of
  one column a lane: 4 rows are loaded and every operand dword is a
  `v_perm_b32` of two of them (2 a MFMA, staged or not).
- `f32`, `f32-grouped`: f16 widened to f32 (exact) for
  `v_mfma_f32_16x16x4_f32`, whose B operand is one element a lane: no
  packing, one `v_cvt_f32_f16` an element. Lane group g takes the tile's K
  16g..16g+15 (the MFMA sums over groups, the loop over the 16), so A's 16
  K of a lane are one 32-byte run. `f32-grouped` puts an
  `amdgpu.sched_barrier` between a K row's conversions and its MFMAs:
  LLVM otherwise pairs each conversion with the MFMA that reads it and
  pays 2 wait states (`s_nop 1`) each.
- `f32-4x4x1` (M <= 4): `v_mfma_f32_4x4x1_16b_f32`, 16 blocks of 4x4 (2
  passes where 16x16x4 takes 8, no rows past 4); block b takes the tile's
  K 4b..4b+3, and the atomics sum the blocks. A wavefront covers 32
  columns.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from xsplit.bench.machine_code import dump_executables, read_rocmasm
from xsplit.diagnostics import XsplitError
from xsplit.files import write_output

FORMS = ("f16", "f32", "f32-grouped", "f32-4x4x1")
K_TILE = 64
BINDING = "#hal.pipeline.binding<storage_buffer{}>"
LAYOUT = "#hal.pipeline.layout<bindings = [{}]>".format(
    ", ".join(BINDING.format(x) for x in (", ReadOnly", ", ReadOnly", ""))
)
LDS = "memref<2x16x64xf16, #gpu.address_space<workgroup>>"
ACC = "vector<4xf32>"


class Emitter:
    """Lines of MLIR with fresh value names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def value(self, text: str) -> str:
        """Emits `%vN = text` and returns `%vN`."""
        self.count += 1
        name = f"%v{self.count}"
        self.lines.append(f"{name} = {text}")
        return name

    def line(self, text: str) -> None:
        self.lines.append(text)

    def c(self, x: int) -> str:
        return self.value(f"arith.constant {x} : index")

    def op(self, name: str, x: str, y: str | int) -> str:
        y = self.c(y) if isinstance(y, int) else y
        return self.value(f"arith.{name} {x}, {y} : index")

    def below(self, x: str, y: str | int) -> str:
        y = self.c(y) if isinstance(y, int) else y
        return self.value(f"arith.cmpi ult, {x}, {y} : index")


def kernel(m: int, n: int, k: int, form: str, chunks: int = 2) -> str:
    """The dispatch (`hal.executable.source`) of `form` and its caller."""
    whole = k - k % K_TILE
    per_chunk = -(-whole // chunks // K_TILE) * K_TILE
    ta, tb, tc = f"memref<{m}x{k}xf16>", f"memref<{k}x{n}xf16>", f"memref<{m}x{n}xf32>"
    x = Emitter()
    zero = x.c(0)
    for name, i, flags, t in (("a", 0, " flags(ReadOnly)", ta), ("b", 1, " flags(ReadOnly)", tb),
                              ("c", 2, "", tc)):  # fmt: skip
        x.line(
            f"%{name} = hal.interface.binding.subspan layout({LAYOUT}) binding({i}) "
            f"alignment(64) offset({zero}){flags} : {t}"
        )
    x.line("%tid = gpu.thread_id x")
    x.line("%wx = hal.interface.workgroup.id[0] : index")
    x.line("%wz = hal.interface.workgroup.id[2] : index")
    lane, wave = x.op("remui", "%tid", 64), x.op("divui", "%tid", 64)
    blocks = form == "f32-4x4x1"
    width = 64 if blocks else 256  # columns of a workgroup (2 wavefronts)
    lanes_n = 4 if blocks else 16  # lanes along N in an MFMA
    group, cl = x.op("divui", lane, lanes_n), x.op("remui", lane, lanes_n)
    col = x.op(
        "addi",
        x.op("addi", x.op("muli", "%wx", width), x.op("muli", wave, width // 2)),
        x.op("muli", cl, 8),
    )
    # Runs past N read B's last run: no mask in the loop.
    b_col = x.op("minui", col, n - 8) if n % width else col
    k_begin = x.op("muli", "%wz", per_chunk)
    k_end = x.op("minui", x.op("addi", k_begin, per_chunk), whole)
    x.line(f"%lds = memref.alloc() : {LDS}")
    a_row, a_col = x.op("divui", "%tid", 8), x.op("muli", x.op("remui", "%tid", 8), 8)
    row_in = x.below(a_row, m)
    zeros = x.value("arith.constant dense<0.0> : vector<8xf16>")

    def copy_a(k0: str, buf: str) -> None:
        at = x.op("addi", k0, a_col)
        got = x.value(f"scf.if {row_in} -> (vector<8xf16>) {{")
        loaded = x.value(f"vector.load %a[{a_row}, {at}] : {ta}, vector<8xf16>")
        x.line(f"scf.yield {loaded} : vector<8xf16>")
        x.line("} else {")
        x.line(f"scf.yield {zeros} : vector<8xf16>")
        x.line("}")
        x.line(f"vector.store {got}, %lds[{buf}, {a_row}, {a_col}] : {LDS}, vector<8xf16>")

    copy_a(k_begin, zero)
    zero_acc = x.value(f"arith.constant dense<0.0> : {ACC}")
    accs, results = [f"%acc{j}" for j in range(8)], [f"%r{j}" for j in range(8)]
    x.line(
        f"{', '.join(results)} = scf.for %k0 = {k_begin} to {k_end} step {x.c(K_TILE)} "
        f"iter_args({', '.join(f'{a} = {zero_acc}' for a in accs)}) -> ({', '.join([ACC] * 8)}) {{"
    )
    buf = x.op("remui", x.op("divui", x.op("subi", "%k0", k_begin), K_TILE), 2)
    x.line("gpu.barrier")
    ahead = x.op("addi", "%k0", K_TILE)
    x.line(f"scf.if {x.below(ahead, k_end)} {{")
    copy_a(ahead, x.op("subi", x.c(1), buf))
    x.line("}")
    out = _multiply(x, form, tb, buf, group, cl, b_col, list(accs))
    x.line(f"scf.yield {', '.join(out)} : {', '.join([ACC] * 8)}")
    x.line("}")
    _merge(x, tc, m, n, blocks, group, col, results)
    body = "\n        ".join(x.lines)
    return f"""builtin.module {{
  hal.executable.source private @mm_dispatch {{
    hal.executable.export public @mm ordinal(0) layout({LAYOUT}) count(%0: !hal.device) -> (index, index, index) {{
      %1 = arith.constant {-(-n // width)} : index
      %2 = arith.constant 1 : index
      %3 = arith.constant {chunks} : index
      hal.return %1, %2, %3 : index, index, index
    }}
    builtin.module {{
      func.func @mm() attributes {{translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [128, 1, 1]>}} {{
        {body}
        func.return
      }}
    }}
  }}
  func.func @mm(%a: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf16>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
    %0 = flow.dispatch @mm_dispatch::@mm(%a, %b, %c) : (tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>, tensor<{m}x{n}xf32>) -> %c
    func.return %0 : tensor<{m}x{n}xf32>
  }}
}}
"""  # noqa: E501


def _multiply(
    x: Emitter, form: str, tb: str, buf: str, group: str, cl: str, b_col: str, acc: list[str]
) -> list[str]:
    """One K tile's MFMAs into the 8 accumulators; returns their new values."""

    def b_row(k: str) -> str:
        return x.value(f"vector.load %b[{k}, {b_col}] : {tb}, vector<8xf16>")

    def widened(v: str, n: int) -> str:
        return x.value(f"arith.extf {v} : vector<{n}xf16> to vector<{n}xf32>")

    def element(v: str, i: int, n: int, t: str = "f32") -> str:
        return x.value(f"vector.extract {v}[{i}] : {t} from vector<{n}x{t}>")

    if form == "f32-4x4x1":
        first = x.op("muli", group, 4)  # block g: the tile's K 4g..4g+3; lane cl: A's row cl
        a = widened(x.value(f"vector.load %lds[{buf}, {cl}, {first}] : {LDS}, vector<4xf16>"), 4)
        k = x.op("addi", "%k0", first)
        for s in range(4):
            b = widened(b_row(x.op("addi", k, s)), 8)
            a_s = element(a, s, 4)
            x.line("amdgpu.sched_barrier allow = none")
            for j in range(8):
                acc[j] = x.value(
                    f"amdgpu.mfma blocks(16) 4x4x1 {a_s} * {element(b, j, 8)} + {acc[j]} "
                    f": f32, f32, {ACC}"
                )
        return acc
    first = x.op("muli", group, 16)  # lane group g: the tile's K 16g..16g+15
    lo = x.value(f"vector.load %lds[{buf}, {cl}, {first}] : {LDS}, vector<8xf16>")
    hi = x.value(
        f"vector.load %lds[{buf}, {cl}, {x.op('addi', first, 8)}] : {LDS}, vector<8xf16>"
    )
    a16 = x.value(
        f"vector.shuffle {lo}, {hi} [{', '.join(map(str, range(16)))}] "
        ": vector<8xf16>, vector<8xf16>"
    )
    k = x.op("addi", "%k0", first)
    if form == "f16":
        for s in range(4):
            rows = [b_row(x.op("addi", k, 4 * s + i)) for i in range(4)]
            lanes_k = ", ".join(str(4 * s + i) for i in range(4))
            a = x.value(f"vector.shuffle {a16}, {a16} [{lanes_k}] : vector<16xf16>, vector<16xf16>")
            for j in range(8):
                parts = ", ".join(element(r, j, 8, "f16") for r in rows)
                b = x.value(f"vector.from_elements {parts} : vector<4xf16>")
                acc[j] = x.value(
                    f"amdgpu.mfma 16x16x16 {a} * {b} + {acc[j]} "
                    f": vector<4xf16>, vector<4xf16>, {ACC}"
                )
        return acc
    a = widened(a16, 16)
    for s in range(16):
        b = widened(b_row(x.op("addi", k, s)), 8)
        a_s = element(a, s, 16)
        if form == "f32-grouped":
            x.line("amdgpu.sched_barrier allow = none")
        for j in range(8):
            acc[j] = x.value(
                f"amdgpu.mfma 16x16x4 {a_s} * {element(b, j, 8)} + {acc[j]} : f32, f32, {ACC}"
            )
    return acc


def _merge(
    x: Emitter, tc: str, m: int, n: int, blocks: bool, group: str, col: str, results: list[str]
) -> None:
    """Each lane's C elements added to C (device-scope atomics), rows past M
    and columns past N skipped. A lane of MFMA j holds 4 rows of column
    col + j: rows 4g..4g+3 (16x16), or rows 0..3 of its block (4x4x1)."""
    base = x.value(f'"memref.extract_aligned_pointer_as_index"(%c) : ({tc}) -> index')
    for j in range(8):
        for i in range(4):
            row = x.c(i) if blocks else x.op("addi", x.op("muli", group, 4), i)
            column = x.op("addi", col, j)
            inside = x.value(f"arith.andi {x.below(row, m)}, {x.below(column, n)} : i1")
            x.line(f"scf.if {inside} {{")
            value = x.value(f"vector.extract {results[j]}[{i}] : f32 from {ACC}")
            offset = x.op("addi", x.op("muli", row, n), column)
            address = x.value(f"arith.index_cast {x.op('addi', base, x.op('muli', offset, 4))} "
                              ": index to i64")  # fmt: skip
            pointer = x.value(f"llvm.inttoptr {address} : i64 to !llvm.ptr<1>")
            x.value(
                f'llvm.atomicrmw fadd {pointer}, {value} syncscope("agent") monotonic '
                ": !llvm.ptr<1>, f32"
            )
            x.line("}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--matmul", required=True, help="MxNxK, M < 16, N a multiple of 8")
    p.add_argument("--form", choices=FORMS, default="f32-grouped")
    p.add_argument("--chunks", type=int, default=2)
    p.add_argument("--keep", help="also write the kernel's MLIR here")
    args = p.parse_args(argv)
    m, n, k = (int(v) for v in args.matmul.split("x"))
    if m >= 16 or n % 8 or (args.form == "f32-4x4x1" and m > 4):
        p.error("M must be under 16 (4 at most for f32-4x4x1) and N a multiple of 8")
    source = kernel(m, n, k, args.form, args.chunks)
    if args.keep:
        write_output(args.keep, source)
    with tempfile.TemporaryDirectory() as work:
        dump = dump_executables(source, "gfx942", Path(work))
        for f in sorted(dump.glob("*.rocmasm")):
            for found in read_rocmasm(f):
                print(args.form, args.matmul, found.summary())
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except XsplitError as e:
        print(e.diagnostic, file=sys.stderr)
        sys.exit(1)
