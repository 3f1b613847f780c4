"""Hand-written gfx942 kernels for f16 GEMMs with M < 16, compiled by
iree-compile only to read their ISA (issue 37): which form of the skinny
K loop can make MFMA >= 20% of it. Not run, not checked for numerics; the
loop covers the chunk's whole K tiles only (a ragged last tile would be
peeled after it, as `stream_loop` does); N a multiple of 8 (a lane's run
past N reads B's last run, as `lower_stream_gemm` does, and is not written).

    python bench/proto_skinny_f16_gfx942.py --matmul 8x4096x14339 --form f32-grouped

Both forms stream B from global memory straight into registers (each lane
one 16-byte row run of 8 columns per K) and stage only A (16 x 64, double
buffered, one barrier a K tile of 64); 2 wavefronts of 128 columns each,
lane l on columns 8 * (l % 16) + j of MFMA j (j = 0..7), K permuted within
the tile so that a lane's 16 K of A are one 32-byte run.

- `f16`: `v_mfma_f32_16x16x16_f16`: its B operand is 4 consecutive K of one
  column per lane, so 4 rows are loaded and every operand dword is a
  `v_perm_b32` of two rows: 2 perms a MFMA, whatever the staging.
- `f32`, `f32-grouped`: f16 widened to f32 (exact) feeding
  `v_mfma_f32_16x16x4_f32`, whose B operand is one element per lane: no
  packing, one `v_cvt_f32_f16` an element (`_sdwa` for the high half), and 8
  MFMA per 16-byte load. `f32-grouped` puts an `amdgpu.sched_barrier`
  between a K's conversions and its MFMAs, so that LLVM does not interleave
  them one to one (each VALU write read by the next MFMA costs `s_nop`s).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from xsplit.bench.machine_code import read_rocmasm, dump_executables

def kernel(m: int, n: int, k: int, form: str, chunks: int = 2, kt: int = 64) -> str:
    """The dispatch (`hal.executable.source` and its caller) for `form`."""
    kw = k - k % kt
    per = -(-kw // chunks // kt) * kt
    L = []
    e = L.append
    cnt = [0]
    def v():
        cnt[0] += 1
        return f"%v{cnt[0]}"
    def c(x):
        r = v(); e(f"{r} = arith.constant {x} : index"); return r
    lay = "#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>"
    A, B, C = f"memref<{m}x{k}xf16>", f"memref<{k}x{n}xf16>", f"memref<{m}x{n}xf32>"
    LDS = "memref<2x16x64xf16, #gpu.address_space<workgroup>>"
    z0 = c(0)
    e(f"%a = hal.interface.binding.subspan layout({lay}) binding(0) alignment(64) offset({z0}) flags(ReadOnly) : {A}")
    e(f"%b = hal.interface.binding.subspan layout({lay}) binding(1) alignment(64) offset({z0}) flags(ReadOnly) : {B}")
    e(f"%c = hal.interface.binding.subspan layout({lay}) binding(2) alignment(64) offset({z0}) : {C}")
    e("%tid = gpu.thread_id x")
    e("%wx = hal.interface.workgroup.id[0] : index")
    e("%wz = hal.interface.workgroup.id[2] : index")
    def op(o, x, y):
        r = v(); e(f"{r} = arith.{o} {x}, {y} : index"); return r
    lane = op("remui", "%tid", c(64)); w = op("divui", "%tid", c(64))
    # 16x16 forms: lane group g (K), column lane cc; 4x4x1 (16 blocks): block g
    # (K), column lane cc of 4.
    blocks = form == "f32-4x4x1"
    width = 64 if blocks else 256
    lanes_n = 4 if blocks else 16
    g = op("divui", lane, c(lanes_n)); cc = op("remui", lane, c(lanes_n))
    ncol = op("addi", op("addi", op("muli", "%wx", c(width)), op("muli", w, c(width // 2))), op("muli", cc, c(8)))
    # Runs past N read B's last run: no mask in the loop.
    bcol = op("minui", ncol, c(n - 8)) if n % width else ncol
    kbeg = op("muli", "%wz", c(per)); kend = op("minui", op("addi", kbeg, c(per)), c(kw))
    e(f"%lds = memref.alloc() : {LDS}")
    ar = op("divui", "%tid", c(8)); acol = op("muli", op("remui", "%tid", c(8)), c(8))
    rowin = v(); e(f"{rowin} = arith.cmpi ult, {ar}, {c(m)} : index")
    zero8 = v(); e(f"{zero8} = arith.constant dense<0.0> : vector<8xf16>")
    def copy_a(k0, buf):
        kk = op("addi", k0, acol)
        r = v()
        e(f"{r} = scf.if {rowin} -> (vector<8xf16>) {{")
        x = v(); e(f"{x} = vector.load %a[{ar}, {kk}] : {A}, vector<8xf16>")
        e(f"scf.yield {x} : vector<8xf16>"); e("} else {"); e(f"scf.yield {zero8} : vector<8xf16>"); e("}")
        e(f"vector.store {r}, %lds[{buf}, {ar}, {acol}] : {LDS}, vector<8xf16>")
    copy_a(kbeg, z0)
    zacc = v(); e(f"{zacc} = arith.constant dense<0.0> : vector<4xf32>")
    accs = [f"%acc{j}" for j in range(8)]
    res = [f"%r{j}" for j in range(8)]
    e(f"{', '.join(res)} = scf.for %k0 = {kbeg} to {kend} step {c(kt)} iter_args("
      + ", ".join(f"{a} = {zacc}" for a in accs) + ") -> (" + ", ".join(["vector<4xf32>"] * 8) + ") {")
    buf = op("remui", op("divui", op("subi", "%k0", kbeg), c(kt)), c(2))
    e("gpu.barrier")
    nxt = op("addi", "%k0", c(kt)); more = v(); e(f"{more} = arith.cmpi ult, {nxt}, {kend} : index")
    e(f"scf.if {more} {{")
    copy_a(nxt, op("subi", c(1), buf))
    e("}")
    if blocks:
        # Block g takes K 4g + s of the tile at step s; lane cc is A's row cc.
        g4 = op("muli", g, c(4))
        a4 = v(); e(f"{a4} = vector.load %lds[{buf}, {cc}, {g4}] : {LDS}, vector<4xf16>")
        a32 = v(); e(f"{a32} = arith.extf {a4} : vector<4xf16> to vector<4xf32>")
        kg = op("addi", "%k0", g4)
        cur = list(accs)
        for s_ in range(4):
            row = op("addi", kg, c(s_))
            bv = v(); e(f"{bv} = vector.load %b[{row}, {bcol}] : {B}, vector<8xf16>")
            bf = v(); e(f"{bf} = arith.extf {bv} : vector<8xf16> to vector<8xf32>")
            af = v(); e(f"{af} = vector.extract {a32}[{s_}] : f32 from vector<4xf32>")
            e("amdgpu.sched_barrier allow = none")
            for j in range(8):
                bj = v(); e(f"{bj} = vector.extract {bf}[{j}] : f32 from vector<8xf32>")
                r = v(); e(f"{r} = amdgpu.mfma blocks(16) 4x4x1 {af} * {bj} + {cur[j]} : f32, f32, vector<4xf32>")
                cur[j] = r
    else:
        g16 = op("muli", g, c(16))
        alo = v(); e(f"{alo} = vector.load %lds[{buf}, {cc}, {g16}] : {LDS}, vector<8xf16>")
        ahi = v(); e(f"{ahi} = vector.load %lds[{buf}, {cc}, {op('addi', g16, c(8))}] : {LDS}, vector<8xf16>")
        a16 = v(); e(f"{a16} = vector.shuffle {alo}, {ahi} [" + ", ".join(map(str, range(16))) + "] : vector<8xf16>, vector<8xf16>")
        kg = op("addi", "%k0", g16)
        cur = list(accs)
    if blocks:
        pass
    elif form.startswith("f32"):
        a32 = v(); e(f"{a32} = arith.extf {a16} : vector<16xf16> to vector<16xf32>")
        for s in range(16):
            row = op("addi", kg, c(s))
            bv = v(); e(f"{bv} = vector.load %b[{row}, {bcol}] : {B}, vector<8xf16>")
            bf = v(); e(f"{bf} = arith.extf {bv} : vector<8xf16> to vector<8xf32>")
            af = v(); e(f"{af} = vector.extract {a32}[{s}] : f32 from vector<16xf32>")
            if form == "f32-grouped":
                e("amdgpu.sched_barrier allow = none")
            for j in range(8):
                bj = v(); e(f"{bj} = vector.extract {bf}[{j}] : f32 from vector<8xf32>")
                r = v(); e(f"{r} = amdgpu.mfma 16x16x4 {af} * {bj} + {cur[j]} : f32, f32, vector<4xf32>")
                cur[j] = r
    else:
        for s in range(4):
            rows = []
            for i in range(4):
                row = op("addi", kg, c(4 * s + i))
                bv = v(); e(f"{bv} = vector.load %b[{row}, {bcol}] : {B}, vector<8xf16>"); rows.append(bv)
            af = v(); e(f"{af} = vector.shuffle {a16}, {a16} [{4*s}, {4*s+1}, {4*s+2}, {4*s+3}] : vector<16xf16>, vector<16xf16>")
            for j in range(8):
                els = []
                for i in range(4):
                    x = v(); e(f"{x} = vector.extract {rows[i]}[{j}] : f16 from vector<8xf16>"); els.append(x)
                bj = v(); e(f"{bj} = vector.from_elements {', '.join(els)} : vector<4xf16>")
                r = v(); e(f"{r} = amdgpu.mfma 16x16x16 {af} * {bj} + {cur[j]} : vector<4xf16>, vector<4xf16>, vector<4xf32>")
                cur[j] = r
    e(f"scf.yield {', '.join(cur)} : " + ", ".join(["vector<4xf32>"] * 8)); e("}")
    ptr = v(); e(f'{ptr} = "memref.extract_aligned_pointer_as_index"(%c) : ({C}) -> index')
    for j in range(8):
        for i in range(4):
            # 4x4x1: every block holds rows 0..3 of its own K; the atomics sum them.
            row = c(i) if blocks else op("addi", op("muli", g, c(4)), c(i))
            ok = v(); e(f"{ok} = arith.cmpi ult, {row}, {c(m)} : index")
            col = op("addi", ncol, c(j))
            inn = v(); e(f"{inn} = arith.cmpi ult, {col}, {c(n)} : index")
            both = v(); e(f"{both} = arith.andi {ok}, {inn} : i1")
            ok = both
            e(f"scf.if {ok} {{")
            x = v(); e(f"{x} = vector.extract {res[j]}[{i}] : f32 from vector<4xf32>")
            off = op("addi", op("muli", row, c(n)), op("addi", ncol, c(j)))
            addr = op("addi", ptr, op("muli", off, c(4)))
            ai = v(); e(f"{ai} = arith.index_cast {addr} : index to i64")
            p = v(); e(f"{p} = llvm.inttoptr {ai} : i64 to !llvm.ptr<1>")
            q = v(); e(f'{q} = llvm.atomicrmw fadd {p}, {x} syncscope("agent") monotonic : !llvm.ptr<1>, f32')
            e("}")
    body = "\n        ".join(L)
    return f"""builtin.module {{
  hal.executable.source private @mm_dispatch {{
    hal.executable.export public @mm ordinal(0) layout({lay}) count(%0: !hal.device) -> (index, index, index) {{
      %1 = arith.constant {-(-n // (64 if form == "f32-4x4x1" else 256))} : index
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
"""

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--matmul", required=True, help="MxNxK, M < 16, N a multiple of 8")
    p.add_argument("--form", choices=["f16", "f32", "f32-grouped", "f32-4x4x1"], default="f32-grouped")
    p.add_argument("--chunks", type=int, default=2)
    p.add_argument("--keep", help="write the kernel's MLIR here")
    args = p.parse_args(argv)
    m, n, k = (int(x) for x in args.matmul.split("x"))
    if args.form == "f32-4x4x1" and m > 4:
        p.error("f32-4x4x1 takes M up to 4")
    if m >= 16 or n % 8:
        p.error("M must be under 16 and N a multiple of 8")
    source = kernel(m, n, k, args.form, args.chunks)
    if args.keep:
        Path(args.keep).write_text(source)
    with tempfile.TemporaryDirectory() as work:
        dump = dump_executables(source, "gfx942", Path(work))
        for f in sorted(dump.glob("*.rocmasm")):
            for x in read_rocmasm(f):
                print(args.form, args.matmul, x.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
