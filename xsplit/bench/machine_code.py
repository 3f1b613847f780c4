"""What a kernel's machine code holds, read without a GPU.

sm_80 PTX (what IREE 3.13 emits for CUDA) is assembled with `ptxas -arch=sm_90`,
as the H100/H200 driver's JIT would, and disassembled with `nvdisasm`; the
gfx942 ISA is iree-compile's `.rocmasm` dump. Per kernel: registers, spills,
the innermost loop's instruction mix (the loop closed by a backward branch with
no other backward branch inside it; where several are innermost, the one with
the most math, since that is where the time goes), math per barrier in it,
async copies, and anything system-scope or compare-and-swap.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from xsplit.bench.programs import matmul  # re-exported: the machine-code tests build with it
from xsplit.iree.iree_compile import iree_compile_path
from xsplit.targets.table import target

LOWER = "lower-gridwise-gemm,lower-blockwise-gemm,lower-threadwise-gemm"


def own_kernel_pipeline(target: str, chunks: int, options: str = "") -> str:
    """The own kernel with its atomic merge, exported for `target`."""
    extra = f" {options}" if options else ""
    return (
        f"gemm-kernel{{target={target} chunks={chunks} merge=atomic{extra}}},{LOWER},"
        f"export-dispatch{{target={target}}}"
    )


SASS_CLASSES = {
    "FFMA": r"FFMA\b",
    "HMMA": r"HMMA\b",
    "LDGSTS": r"LDGSTS\b",
    "LDS": r"LDS(M)?\b",
    "LDG": r"LDG\b",
    "BAR": r"BAR\b",
    "RED": r"REDG?\b",
    "ATOM": r"ATOMG?\b",
    "MEMBAR": r"MEMBAR\b",
}
"""SASS opcode families counted in the hot loop (matched on the opcode's base)."""

AMD_CLASSES = {
    "MFMA": r"v_mfma_",
    "FMA": r"v_(pk_)?fmac?_f32\b",
    "BARRIER": r"s_barrier\b",
    "GLOBAL_LOAD_X4": r"global_load_dwordx4\b",
    "DS_READ": r"ds_read",
    "DS_WRITE": r"ds_write",
    "ATOMIC_ADD": r"global_atomic_add_f32\b",
    "CMPSWAP": r"global_atomic_cmpswap",
}
"""gfx942 instruction families counted in the hot loop."""

SASS_SYSTEM = r"MEMBAR\.\S*SYS|\.STRONG\.SYS\b"
PTX_SYSTEM = r"\b(atom|red|fence|membar)\.[\w.]*\bsys\b"


@dataclass
class Kernel:
    name: str
    target: str
    registers: int = 0
    spill_bytes: int = 0
    loop_mix: dict[str, int] = field(default_factory=dict)
    loop_instructions: int = 0
    async_copies: bool = False
    system_scope: list[str] = field(default_factory=list)
    cmpswap: int = 0
    atomic_adds: int = 0
    math_per_barrier: float | None = None

    @property
    def math(self) -> int:
        return sum(self.loop_mix.get(k, 0) for k in ("FFMA", "HMMA", "MFMA", "FMA"))

    def summary(self) -> str:
        share = 100.0 * self.math / self.loop_instructions if self.loop_instructions else 0.0
        mpb = self.math_per_barrier
        per_barrier = "no barrier in a loop" if mpb is None else f"{mpb:.1f}"
        mix = " ".join(f"{k}={v}" for k, v in self.loop_mix.items() if v)
        return (
            f"{self.target} {self.name}: {self.registers} registers, "
            f"{self.spill_bytes} spill bytes; "
            f"hot loop {self.loop_instructions} instructions, math {share:.0f}% ({mix}); "
            f"math per barrier {per_barrier}; async copies {'yes' if self.async_copies else 'no'}; "
            f"float atomic adds {self.atomic_adds}; system-scope {len(self.system_scope)}; "
            f"cmpswap {self.cmpswap}"
        )


def nvdisasm_path() -> str:
    """`nvdisasm` from PATH, else from the `nvidia-cuda-nvdisasm` wheel."""
    found = shutil.which("nvdisasm")
    if found:
        return found
    import nvidia  # the wheel's namespace package

    for root in nvidia.__path__:
        for path in Path(root).glob("**/bin/nvdisasm"):
            if os.access(path, os.X_OK):
                return str(path)
    raise FileNotFoundError("nvdisasm: not on PATH and no nvidia-cuda-nvdisasm wheel installed")


def dump_executables(source: str, target_name: str, out: Path) -> Path:
    """Compiles `source` for the target, dumping its executables into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            iree_compile_path(),
            *target(target_name).flags,
            f"--iree-hal-dump-executable-files-to={out}",
            "-",
            "-o",
            str(out / "module.vmfb"),
        ],
        input=source.encode(),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError("iree-compile: " + proc.stderr.decode().strip().splitlines()[-1])
    return out


def _loops(lines: list[str], label_re: str, branch_re: str) -> list[tuple[int, int]]:
    """Each loop as (label line, back-edge line)."""
    labels: dict[str, int] = {}
    loops: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if (m := re.match(label_re, line)) is not None:
            labels[m.group(1)] = i
        elif (m := re.search(branch_re, line)) is not None and m.group(1) in labels:
            loops.append((labels[m.group(1)], i))
    return loops


def _innermost_loop(lines: list[str], label_re: str, branch_re: str, math: str) -> list[str]:
    """The instructions of the innermost loop with the most math; [] without a loop."""
    loops = _loops(lines, label_re, branch_re)
    inner = [
        (a, b)
        for a, b in loops
        if not any((c, d) != (a, b) and a <= c and d <= b for c, d in loops)
    ]
    if not inner:
        return []
    def math_in(ab: tuple[int, int]) -> int:
        return sum(bool(re.search(math, x)) for x in lines[ab[0] : ab[1] + 1])

    best = max(inner, key=math_in)
    return [x for x in lines[best[0] : best[1] + 1] if not re.match(label_re, x)]


def _math_per_barrier(
    lines: list[str], label_re: str, branch_re: str, math: str, barrier: str
) -> float | None:
    """Math instructions per barrier in the smallest loop holding a barrier,
    counted statically (a nested loop's body once): None without one."""
    holding = [
        (a, b) for a, b in _loops(lines, label_re, branch_re)
        if any(re.search(barrier, x) for x in lines[a : b + 1])
    ]
    if not holding:
        return None
    a, b = min(holding, key=lambda ab: ab[1] - ab[0])
    body = lines[a : b + 1]
    barriers = sum(bool(re.search(barrier, x)) for x in body)
    return sum(bool(re.search(math, x)) for x in body) / barriers


def _natural_loops(
    lines: list[str], label_re: str, branch_re: str, jump_re: str, end_re: str
) -> list[list[int]]:
    """Each natural loop of a listing as the sorted indices of its lines:
    the basic blocks, the dominators from the first block, and per back
    edge (a branch to a block that dominates it) the blocks that reach it
    without passing the header, one loop per header. LLVM's AMDGPU layout
    puts blocks before the loop that branches to them (the epilogue, the
    loop's exit): a backward branch in the text is no loop by itself.
    `jump_re` marks branches that never fall through, `end_re` the end of
    the program."""
    starts = {0}
    for i, line in enumerate(lines):
        if re.match(label_re, line):
            starts.add(i)
        elif re.search(branch_re, line) or re.search(end_re, line):
            starts.add(i + 1)
    starts_sorted = sorted(x for x in starts if x < len(lines))
    blocks = [
        (a, (starts_sorted[j + 1] if j + 1 < len(starts_sorted) else len(lines)))
        for j, a in enumerate(starts_sorted)
    ]
    at_label = {}
    for b, (a, _) in enumerate(blocks):
        if (m := re.match(label_re, lines[a])) is not None:
            at_label[m.group(1)] = b
    succ: list[list[int]] = []
    for b, (a, e) in enumerate(blocks):
        last = next((lines[i] for i in range(e - 1, a - 1, -1) if lines[i].strip()), "")
        out = []
        if (m := re.search(branch_re, last)) is not None and m.group(1) in at_label:
            out.append(at_label[m.group(1)])
        falls = not re.search(jump_re, last) and not re.search(end_re, last)
        if falls and b + 1 < len(blocks):
            out.append(b + 1)
        succ.append(out)
    pred: list[list[int]] = [[] for _ in blocks]
    for b, out in enumerate(succ):
        for t in out:
            pred[t].append(b)
    every = set(range(len(blocks)))
    dom = [every.copy() for _ in blocks]
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for b in range(1, len(blocks)):
            new = set.intersection(*(dom[p] for p in pred[b])) if pred[b] else set()
            new = new | {b}
            if new != dom[b]:
                dom[b], changed = new, True
    bodies: dict[int, set[int]] = {}
    for u, out in enumerate(succ):
        for h in out:
            if h in dom[u]:
                body, work = {h, u}, [u]
                while work:
                    for p in pred[work.pop()]:
                        if p not in body:
                            body.add(p)
                            work.append(p)
                bodies.setdefault(h, set()).update(body)
    return [
        sorted(i for b in body for i in range(*blocks[b]))
        for _, body in sorted(bodies.items())
    ]


def _innermost_natural_loop(loops: list[list[int]], lines: list[str], math: str) -> list[str]:
    """Of the natural loops holding no other loop, the one with the most math."""
    sets = [set(x) for x in loops]
    inner = [x for x, s in zip(loops, sets) if not any(o < s for o in sets)]
    if not inner:
        return []
    best = max(inner, key=lambda x: sum(bool(re.search(math, lines[i])) for i in x))
    return [lines[i] for i in best]


def _math_per_barrier_natural(
    loops: list[list[int]], lines: list[str], math: str, barrier: str
) -> float | None:
    """Math per barrier in the smallest natural loop holding a barrier."""
    holding = [x for x in loops if any(re.search(barrier, lines[i]) for i in x)]
    if not holding:
        return None
    body = [lines[i] for i in min(holding, key=len)]
    barriers = sum(bool(re.search(barrier, x)) for x in body)
    return sum(bool(re.search(math, x)) for x in body) / barriers


def _count(body: list[str], classes: dict[str, str], opcode) -> dict[str, int]:
    mix = dict.fromkeys(classes, 0)
    for line in body:
        op = opcode(line)
        if op is None:
            continue
        for name, pattern in classes.items():
            if re.match(pattern, op):
                mix[name] += 1
    return mix


def _sass_opcode(line: str) -> str | None:
    m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    return m.group(1) if m else None


def read_ptx(ptx: Path, work: Path) -> list[Kernel]:
    """Assembles one PTX file for sm_90 and reads each kernel's SASS."""
    cubin = work / (ptx.stem + ".cubin")
    proc = subprocess.run(
        ["ptxas", "-arch=sm_90", "-v", str(ptx), "-o", str(cubin)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError("ptxas: " + proc.stderr.strip().splitlines()[-1])
    info = proc.stdout + proc.stderr
    # -ndf: the dataflow pass only labels jumps through the branch stack,
    # which these kernels do not make, and is a quarter of nvdisasm's time.
    sass = subprocess.run(
        [nvdisasm_path(), "-c", "-ndf", str(cubin)], capture_output=True, text=True, check=True
    ).stdout
    ptx_text = ptx.read_text()
    kernels = []
    for name, section in re.findall(r"\.text\.(\w+):\n(.*?)(?=\n\s*\.section|\Z)", sass, re.S):
        k = Kernel(name, "sm_90")
        props = re.search(rf"Function properties for {name}\n(.*?)Used (\d+) registers", info, re.S)
        if props:
            k.registers = int(props.group(2))
            k.spill_bytes = sum(int(b) for b in re.findall(r"(\d+) bytes spill", props.group(1)))
        lines = section.splitlines()
        label, branch, math = r"(\.L_x_\d+):", r"BRA\s+`?\((\.L_x_\d+)\)", r"\b[FH](FMA|MMA)\b"
        body = _innermost_loop(lines, label, branch, math)
        k.math_per_barrier = _math_per_barrier(lines, label, branch, math, r"\bBAR\.")
        k.loop_mix = _count(body, SASS_CLASSES, _sass_opcode)
        k.loop_instructions = sum(_sass_opcode(x) is not None for x in body)
        k.async_copies = "LDGSTS" in section or "cp.async" in ptx_text
        k.system_scope = re.findall(SASS_SYSTEM, section) + [
            m.group(0) for m in re.finditer(PTX_SYSTEM, ptx_text)
        ]
        k.cmpswap = len(re.findall(r"\bATOMG?\.E\.CAS\b", section))
        k.atomic_adds = len(re.findall(r"\b(RED|ATOM)G?\.E\.ADD\.F32\b", section))
        kernels.append(k)
    return kernels


def _amd_opcode(line: str) -> str | None:
    m = re.match(r"\s+([sv]_\w+|global_\w+|ds_\w+|buffer_\w+|scratch_\w+|flat_\w+)", line)
    return m.group(1) if m else None


def read_rocmasm(asm: Path) -> list[Kernel]:
    """Each kernel of a gfx942 ISA dump."""
    text = asm.read_text()
    kernels = []
    for name in re.findall(r"^\s+\.name:\s+(\S+)", text, re.M):
        k = Kernel(name, "gfx942")
        meta = text[text.find(f".name:           {name}") :]
        vgpr = re.search(r"\.vgpr_count:\s+(\d+)", meta)
        k.registers = int(vgpr.group(1)) if vgpr else 0
        scratch = re.search(r"\.private_segment_fixed_size:\s+(\d+)", meta)
        spills = re.findall(r"\.[sv]gpr_spill_count:\s+(\d+)", meta)
        k.spill_bytes = (int(scratch.group(1)) if scratch else 0) + 4 * sum(map(int, spills))
        start = text.find(f"{name}:")
        code = text[start : text.find(".Lfunc_end", start)].splitlines()
        label, branch = r"(\.LBB\d+_\d+):", r"s_c?branch\w*\s+(\.LBB\d+_\d+)"
        math = r"\bv_(mfma|(pk_)?fmac?_f32)"
        loops = _natural_loops(code, label, branch, r"\bs_branch\b", r"\bs_(endpgm|setpc)")
        body = _innermost_natural_loop(loops, code, math)
        k.math_per_barrier = _math_per_barrier_natural(loops, code, math, r"\bs_barrier\b")
        k.loop_mix = _count(body, AMD_CLASSES, _amd_opcode)
        k.loop_instructions = sum(_amd_opcode(x) is not None for x in body)
        lds_loads = r"global_load_lds|buffer_load\w*\s.*\blds\b"
        k.async_copies = bool(re.search(lds_loads, "\n".join(code)))
        k.system_scope = re.findall(r"\bsc0 sc1\b", "\n".join(x for x in code if "atomic" in x))
        k.cmpswap = len(re.findall(r"global_atomic_cmpswap", "\n".join(code)))
        k.atomic_adds = len(re.findall(r"global_atomic_add_f32\b", "\n".join(code)))
        kernels.append(k)
    return kernels


def read_machine_code(source: str, target_name: str, work: Path) -> list[Kernel]:
    """Compiles `source` (IR iree-compile takes) for sm_80 or gfx942 and reads
    every kernel; sm_80 code is read as sm_90 runs it."""
    dump = dump_executables(source, target_name, work / target_name)
    if target_name == "gfx942":
        return [k for f in sorted(dump.glob("*.rocmasm")) for k in read_rocmasm(f)]
    return [k for f in sorted(dump.glob("*.ptx")) for k in read_ptx(f, dump)]
