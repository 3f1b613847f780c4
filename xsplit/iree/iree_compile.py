"""Driving IREE's tools (iree-compile, iree-opt, iree-import-onnx) on MLIR text.

A tool that fails or crashes is reported in one line that names the tool, what
xsplit was doing (the phase) and the target, with the cause and the fix when
xsplit knows them. The tool's whole output, its command line and its input go
to a log file whose path the line names: a crash's last stack frame says
nothing, and the input that made it is what a bug report needs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import signal
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from functools import cache

from iree.compiler.tools.binaries import find_tool

from xsplit.diagnostics import XsplitError
from xsplit.targets.table import target

LOG_DIR_VARIABLE = "XSPLIT_LOG_DIR"
"""Where failed tool runs are logged; by default `xsplit-logs` in the
system's temporary directory."""

COMPILE_CACHE_VARIABLE = "XSPLIT_COMPILE_CACHE"
"""A directory where `compile_mlir` keeps what iree-compile wrote, under a hash
of the input, the target, the flags and iree-compile's version, and takes it
from there when the same compile comes again. Unset (the default), nothing is
kept. The tests set it to a directory of their own for one run, shared by the
processes of that run, so that each program is compiled once per target."""


@cache
def tool_path(tool: str) -> str:
    path = find_tool(tool)
    if path is None:
        raise XsplitError(f"cannot find {tool}: install iree-base-compiler==3.13.0")
    return path


def iree_compile_path() -> str:
    return tool_path("iree-compile")


class IreeToolError(XsplitError):
    """An IREE tool rejected its input or crashed on it."""

    def __init__(self, message: str, tool: str, output: str, log_path: str | None):
        super().__init__(message)
        self.tool = tool
        self.stderr = output
        self.log_path = log_path


IreeCompileError = IreeToolError
"""The name xsplit used before iree-opt and iree-import-onnx were driven too."""


def log_dir() -> str:
    return os.environ.get(LOG_DIR_VARIABLE) or os.path.join(tempfile.gettempdir(), "xsplit-logs")


def _write_log(
    tool: str, phase: str, target_name: str | None, command: Sequence[str], source: bytes,
    returncode: int, output: str,
) -> tuple[str | None, str | None]:
    """Writes the input and a log of the failed run; returns their paths
    (None when the log directory cannot be written: the error still goes out)."""
    slug = re.sub(r"[^a-z0-9_]+", "-", f"{tool} {target_name or ''}".lower()).strip("-")
    try:
        os.makedirs(log_dir(), exist_ok=True)
        fd, log_path = tempfile.mkstemp(prefix=f"{slug}-", suffix=".log", dir=log_dir())
        input_path = log_path[: -len(".log")] + ".input"
        with open(input_path, "wb") as f:
            f.write(source)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"# {tool}, {phase}" + (f", target {target_name}" if target_name else "") + "\n")
            f.write(f"# command: {' '.join(command)} < {input_path}\n")
            f.write(f"# exit status: {_describe_status(returncode)}\n\n")
            f.write(output)
        return log_path, input_path
    except OSError:
        return None, None


def _describe_status(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    if returncode > 128:  # a shell's way of saying the same
        try:
            return f"{returncode} ({signal.Signals(returncode - 128).name})"
        except ValueError:
            pass
    return str(returncode)


def crashed(returncode: int, output: str) -> bool:
    """Whether the tool died rather than reported an error: a signal, or
    LLVM's crash handler's stack dump."""
    return returncode < 0 or returncode > 128 or "Stack dump:" in output


_GRAPH_LEVEL_FORALL = re.compile(r"^\s*(%[\w#:]+\s*=\s*)?scf\.forall\b", re.MULTILINE)
_DISPATCH = re.compile(r"\bflow\.dispatch\.(workgroups|region)\b")


def has_graph_level_forall(source: str) -> bool:
    """Whether an scf.forall lies outside every dispatch: iree-compile 3.13
    segfaults on that (in stream affinity analysis)."""
    # Each open dispatch: the brace depth it starts at, and whether its region
    # has opened yet (its `{` may come on a later line).
    dispatches: list[list[int | bool]] = []
    depth = 0
    for line in source.splitlines():
        if _DISPATCH.search(line):
            dispatches.append([depth, False])
        if _GRAPH_LEVEL_FORALL.match(line) and not dispatches:
            return True
        depth += line.count("{") - line.count("}")
        for d in dispatches:
            d[1] = d[1] or depth > d[0]
        while dispatches and dispatches[-1][1] and depth <= dispatches[-1][0]:
            dispatches.pop()
    return False


_XSPLIT_ONLY_DIALECT = re.compile(r"Dialect `(linalg_ext|rock)' not found")


def known_cause(tool: str, source: str, returncode: int, output: str) -> str | None:
    """The cause of a failure and its fix, when xsplit knows them."""
    if tool != "iree-compile":
        return None
    if (m := _XSPLIT_ONLY_DIALECT.search(output)) is not None:
        op = "linalg_ext.split_grouped_gemm" if m.group(1) == "linalg_ext" else "rock.reduce"
        return (
            f"{op} is xsplit's own op, which iree-compile does not know; add "
            "materialize-late to the pipeline"
        )
    if crashed(returncode, output) and has_graph_level_forall(source):
        return "a graph-level scf.forall crashes iree-compile 3.13; add materialize-late to the pipeline"
    if "flow.tensor.encode" in output or "does not dominate" in output:
        return "iree-compile 3.13 cannot data-tile a split reduction (--iree-opt-data-tiling)"
    return None


_STDIN_LOCATION = re.compile(r"^(?:-|<stdin>)(?=:\d+:\d+:)")


def _first_error(output: str, input_path: str | None) -> str | None:
    for line in output.splitlines():
        if "error:" in line:
            line = line.strip()
            if input_path is not None:
                line = _STDIN_LOCATION.sub(input_path, line)
            return line
    return None


def run_tool(
    tool: str,
    args: Sequence[str],
    source: str | bytes,
    phase: str,
    target_name: str | None = None,
) -> bytes:
    """Runs an IREE tool on `source` (its stdin); returns its stdout.

    `phase` says what xsplit was doing, for the error: "compiling the
    rewritten program". On a failure the error names the tool, the phase and
    the target, gives the known cause and fix or the tool's first error, and
    names the log file that holds everything."""
    data = source.encode() if isinstance(source, str) else source
    command = [tool_path(tool), *args]
    try:
        proc = subprocess.run(command, input=data, capture_output=True, check=False)
    except OSError as e:
        raise XsplitError(f"cannot run {tool}: {e.strerror}") from None
    if proc.returncode == 0:
        return proc.stdout
    output = proc.stderr.decode(errors="replace")
    log_path, input_path = _write_log(
        tool, phase, target_name, [tool, *args], data, proc.returncode, output
    )
    where = f" for {target_name}" if target_name else ""
    text = data.decode(errors="replace")
    cause = known_cause(tool, text, proc.returncode, output)
    if crashed(proc.returncode, output):
        what = f"{tool} crashed ({_describe_status(proc.returncode)}) {phase}{where}"
        detail = cause or "a bug in IREE; the log has the stack trace and the input"
    else:
        what = f"{tool} failed {phase}{where}"
        detail = cause or _first_error(output, input_path) or output.strip().splitlines()[-1:]
        if isinstance(detail, list):
            detail = detail[0] if detail else f"exit status {proc.returncode}"
    log = f"; full output in {log_path}" if log_path else ""
    raise IreeToolError(f"{what}: {detail}{log}", tool, output, log_path)


def compile_mlir(
    source: str,
    target_name: str,
    extra_flags: Sequence[str] = (),
    compile_to: str | None = None,
    phase: str = "compiling the program",
) -> bytes:
    """Compiles MLIR text for a target; returns the vmfb, or the IR at `compile_to`."""
    flags = [*target(target_name).flags, *extra_flags]
    if compile_to is not None:
        flags.append(f"--compile-to={compile_to}")
    return compile_with_flags(source, target_name, flags, phase)


def compile_keeping(
    source: str, target_name: str, keep: str, phase: str = "compiling the program"
) -> bytes:
    """`compile_mlir(source, target_name)` that also keeps the IR the same
    compile passed through at phase `keep` (`executable-targets`), for
    `ir_at_phase` to return rather than compile the program a second time.
    The vmfb is byte for byte a plain compile's, cached under its key."""
    flags = list(target(target_name).flags)
    vmfb_key = _cache_key(target_name, flags, source)
    kept_key = _kept_key(source, target_name, keep)
    vmfb = _cached_entry(vmfb_key)
    kept = _KEPT.get(kept_key) or _cached_entry(kept_key)
    if vmfb is None or kept is None:
        with tempfile.TemporaryDirectory(prefix="xsplit-phases-") as folder:
            vmfb = run_tool(
                "iree-compile",
                [*flags, f"--dump-compilation-phases-to={folder}", "-", "-o", "-"],
                source,
                phase,
                target_name,
            )
            # One file per phase: `_stdin_.N.PHASE.mlir`.
            kept = next(
                (_read(os.path.join(folder, n)) for n in os.listdir(folder) if n.endswith(f".{keep}.mlir")),
                None,
            )
        _store(vmfb_key, vmfb)
        if kept is not None:
            _store(kept_key, kept)
    if kept is not None:
        _KEPT[kept_key] = kept
        while len(_KEPT) > _KEPT_MAX:
            del _KEPT[next(iter(_KEPT))]
    return vmfb


def ir_at_phase(source: str, target_name: str, at: str, phase: str) -> bytes:
    """The IR of `source` at `--compile-to=at`: what a `compile_keeping` of
    the same program for the same target kept, or else its own compile. (The
    kept IR prints attributes through aliases; the ops are the same.)"""
    key = _kept_key(source, target_name, at)
    kept = _KEPT.get(key) or _cached_entry(key)
    if kept is not None:
        return kept
    return compile_mlir(source, target_name, compile_to=at, phase=phase)


_KEPT: dict[str, bytes] = {}
"""IR kept by `compile_keeping` in this process, newest last: a command
compiles a program and reads its workgroup counts right after, with or
without a compile cache."""
_KEPT_MAX = 32


def _kept_key(source: str, target_name: str, phase: str) -> str:
    return _cache_key(target_name, [*target(target_name).flags, f"<kept phase {phase}>"], source)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def compile_with_flags(source: str, target_name: str, flags: Sequence[str], phase: str) -> bytes:
    """Runs iree-compile with exactly `flags` (`target_name` names the target
    in errors and in the cache key)."""
    return _cached(
        target_name,
        flags,
        source,
        lambda: run_tool("iree-compile", [*flags, "-", "-o", "-"], source, phase, target_name),
    )


def portable_cpu_flags() -> list[str]:
    """The CPU target's flags for any x86-64 or AArch64 machine of this
    architecture rather than this one's CPU: the reference a saved run carries
    to another machine (`--save`) must run on that machine's CPU."""
    return [f for f in target("cpu").flags if not f.startswith("--iree-llvmcpu-target-cpu=")]


@cache
def _compiler_version() -> bytes:
    """What `iree-compile --version` says (the build's hash among it)."""
    proc = subprocess.run([iree_compile_path(), "--version"], capture_output=True, check=False)
    return proc.stdout + proc.stderr


def _cache_key(target_name: str, flags: Sequence[str], source: str) -> str:
    digest = hashlib.sha256()
    for part in (_compiler_version(), target_name, "\0".join(flags), source):
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def _cached_entry(key: str) -> bytes | None:
    """What the compile cache holds under `key`, if there is a cache and it does."""
    directory = os.environ.get(COMPILE_CACHE_VARIABLE)
    if not directory:
        return None
    try:
        return _read(os.path.join(directory, key))
    except OSError:
        return None


def _cached(
    target_name: str, flags: Sequence[str], source: str, compile: Callable[[], bytes]
) -> bytes:
    """`compile()`, or what it returned for the same compile before, when
    XSPLIT_COMPILE_CACHE names a directory. Only a compile that succeeded is
    kept: a failure runs, and is reported, every time."""
    key = _cache_key(target_name, flags, source)
    output = _cached_entry(key)
    if output is None:
        output = compile()
        _store(key, output)
    return output


def _store(key: str, output: bytes) -> None:
    directory = os.environ.get(COMPILE_CACHE_VARIABLE)
    if not directory:
        return
    # Written whole under a temporary name, then renamed: a process reading the
    # cache beside this one finds the whole file or none.
    try:
        os.makedirs(directory, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=directory, prefix=".partial-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(output)
        os.replace(temporary, os.path.join(directory, key))
    except OSError:
        pass  # only a cache: the next run of this compile compiles again
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # left only when the rename was not made
