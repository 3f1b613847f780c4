"""Pass-through on real IR: does xsplit print back the program iree-opt read?

    python bench/passthrough.py DIR_OR_FILE... [--jobs N] [--examples N] [--json OUT]

Each `.mlir` file is split on `// -----` lines, as `--split-input-file` does.
A case counts when `iree-opt --allow-unregistered-dialect` 3.13 reads it. For
each such case xsplit reads and prints it as `xsplit-opt` with no pipeline
does (`parse_module` then `print_module`, in this process), and the case passes
when `iree-opt --mlir-print-op-generic` prints the input and xsplit's output
identically (`xsplit.iree.roundtrip`'s rule). Failures are grouped into
classes: what xsplit said when it rejected a case, or the first op whose
generic form differs. The inputs are read where they lie; nothing is copied.

iree-opt runs once per file over all its cases (and once over xsplit's
outputs), which is what keeps a corpus of a thousand cases affordable; xsplit
itself runs iree-opt for each case it carries, as xsplit-opt would.
"""

from __future__ import annotations

import argparse
import difflib
import json
import multiprocessing
import re
import signal
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from xsplit.diagnostics import XsplitError
from xsplit.files import ensure_writable, write_output
from xsplit.iree.roundtrip import generic_forms

SPLIT = re.compile(r"^// -----.*$", re.MULTILINE)
COMMENT = re.compile(r"//[^\n]*")
OP_NAME = re.compile(r'"([\w$.]+)"\(')
CASE_TIMEOUT_S = 120


@dataclass
class Case:
    file: str
    index: int
    first_line: int
    status: str
    """`not-read` (iree-opt rejects it), `pass`, `rejected`, `differs`, `crash`."""
    mode: str = ""
    """`native` or `carried`: how xsplit read it."""
    failure_class: str = ""
    detail: str = ""
    seconds: float = 0.0
    demoted: list[tuple[str, str]] = field(default_factory=list)
    """Known ops xsplit held as unregistered ops, with the verifier's reason."""


def split_cases(text: str) -> list[tuple[str, int]]:
    """The file's cases, each with the line it starts on."""
    cases: list[tuple[str, int]] = []
    start, line = 0, 1
    for marker in SPLIT.finditer(text):
        cases.append((text[start : marker.start()], line))
        line += text.count("\n", start, marker.end()) + 1
        start = marker.end() + 1
    cases.append((text[start:], line))
    return cases


class _Timeout(Exception):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise _Timeout


def xsplit_pass_through(
    text: str, name: str, first_line: int, demoted: list[tuple[str, str]]
) -> tuple[str, str, str]:
    """(`ok`|`rejected`|`crash`, mode, output or message), as xsplit-opt does."""
    from xsplit.api import parse_module, print_module
    from xsplit.diagnostics import XsplitError
    from xsplit.reader import demoted_ops, was_carried

    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(CASE_TIMEOUT_S)
    mode = ""
    try:
        module = parse_module(text, name, None, first_line)
        mode = "carried" if was_carried(module) else "native"
        demoted += demoted_ops(module)
        return "ok", mode, print_module(module)
    except XsplitError as e:
        return "rejected", mode, e.diagnostic
    except _Timeout:
        return "crash", mode, f"over {CASE_TIMEOUT_S} s"
    except Exception as e:  # the harness reports crashes; it must not stop on one
        return "crash", mode, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    finally:
        signal.alarm(0)


def rejection_class(message: str) -> str:
    """A message with its location, names and numbers masked."""
    message = re.sub(r"^.*?error: ", "", message)
    message = re.sub(r"%[\w#]+", "%_", message)
    message = re.sub(r"@[\w$.]+", "@_", message)
    message = re.sub(r"\d+", "N", message)
    return message[:110]


def difference_class(before: str, after: str | None, mode: str) -> tuple[str, str]:
    if after is None:
        return f"differs ({mode}): iree-opt rejects xsplit's output", ""
    a, b = before.splitlines(), after.splitlines()
    diff = list(difflib.unified_diff(a, b, "input", "xsplit", n=0, lineterm=""))
    first_removed = next((line for line in diff[2:] if line.startswith("-")), "")
    first_added = next((line for line in diff[2:] if line.startswith("+")), "")
    ops = OP_NAME.findall(first_removed or first_added)
    op = ops[0] if ops else "(structure)"
    return f"differs ({mode}): {op}", "\n".join(diff[2:12])


def run_file(path: str) -> list[Case]:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    cases = [(i, c, line) for i, (c, line) in enumerate(split_cases(text)) if COMMENT.sub("", c).strip()]
    before = generic_forms([c for _, c, _ in cases])
    results: list[Case] = []
    outputs: list[tuple[Case, str, str]] = []
    for (index, chunk, line), generic in zip(cases, before):
        if generic is None:
            results.append(Case(path, index, line, "not-read"))
            continue
        start = time.perf_counter()
        demoted: list[tuple[str, str]] = []
        status, mode, out = xsplit_pass_through(chunk, path, line, demoted)
        case = Case(path, index, line, status, mode, seconds=time.perf_counter() - start)
        case.demoted = demoted
        results.append(case)
        if status == "ok":
            outputs.append((case, generic, out))
        else:
            case.failure_class = f"{status}: {rejection_class(out)}"
            case.detail = out
    after = generic_forms([out for _, _, out in outputs]) if outputs else []
    for (case, generic, _), out_generic in zip(outputs, after):
        if out_generic == generic:
            case.status = "pass"
            continue
        case.status = "differs"
        case.failure_class, case.detail = difference_class(generic, out_generic, case.mode)
    return results


def mlir_files(paths: list[str]) -> list[str]:
    files: list[str] = []
    for p in map(Path, paths):
        files += sorted(str(f) for f in p.rglob("*.mlir")) if p.is_dir() else [str(p)]
    return files


def report(cases: list[Case], examples: int) -> str:
    read = [c for c in cases if c.status != "not-read"]
    counts = Counter(c.status for c in read)
    modes = Counter(c.mode for c in read if c.status == "pass")
    lines = [
        f"cases: {len(cases)}; read by iree-opt: {len(read)}",
        f"pass: {counts['pass']} ({modes['native']} native, {modes['carried']} carried); "
        f"rejected: {counts['rejected']}; differs: {counts['differs']}; crash: {counts['crash']}",
    ]
    by_class: dict[str, list[Case]] = defaultdict(list)
    for c in read:
        if c.status != "pass":
            by_class[c.failure_class].append(c)
    for cls, members in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"{len(members):5d}  {cls}")
        for c in members[:examples]:
            lines.append(f"         {c.file}:{c.first_line}")
            lines += [f"           {d}" for d in c.detail.splitlines()[:6]]
    lines += demotion_table(read)
    return "\n".join(lines)


def demotion_table(cases: list[Case]) -> list[str]:
    """Known ops carried as unregistered ops: passes cannot see them."""
    by_reason: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for c in cases:
        for op, reason in dict.fromkeys(map(tuple, c.demoted)):
            by_reason[(op, rejection_class(reason))].append(c)
    if not by_reason:
        return []
    lines = ["known ops held unregistered (cases, op, verifier's reason, first case):"]
    for (op, reason), members in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"{len(members):5d}  {op}: {reason}  [{members[0].file}:{members[0].first_line}]")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help=".mlir files or directories (searched recursively)")
    parser.add_argument("--jobs", type=int, default=1, help="files processed in parallel")
    parser.add_argument("--examples", type=int, default=1, help="cases shown per failure class")
    parser.add_argument("--json", help="write every case's result here")
    args = parser.parse_args(argv)
    if args.json:
        ensure_writable(args.json)
    files = mlir_files(args.paths)
    start = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs, maxtasksperchild=8) as pool:
            per_file = pool.map(run_file, files, chunksize=1)
    else:
        per_file = [run_file(f) for f in files]
    cases = [c for file_cases in per_file for c in file_cases]
    print(f"files: {len(files)}; {time.perf_counter() - start:.0f} s")
    print(report(cases, args.examples))
    if args.json:
        write_output(args.json, json.dumps([asdict(c) for c in cases], indent=1))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except XsplitError as e:
        print(e.diagnostic, file=sys.stderr)
        sys.exit(1)
