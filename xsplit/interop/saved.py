"""Compile here, run there: a directory of compiled modules that a machine
with only IREE's runtime and numpy runs (`python -m xsplit.replay DIR
--device cuda`), as IREE users deploy.

`xsplit check|e2e|bench --device D --save DIR` writes:

- `modules/<sha256>.vmfb`: each compiled module once, named by its content;
- `manifest.json`: what was compiled (the input, each module's pipeline and
  iree-compile flags, the device and target), each program's inputs as a
  recipe (shapes, dtypes, seed, distribution; `InputRecipe`), its reference
  (numpy's float64 `A @ B (+ C)`, or the original compiled for a portable CPU
  and run there), and the comparisons to make.

This module reads and runs such a directory. It imports numpy, IREE's
runtime and xsplit's pure-Python modules only: never xDSL, never
iree.compiler (tests/interop/test_replay.py runs it with both blocked)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xsplit.diagnostics import XsplitError
from xsplit.files import write_output
from xsplit.interop.numerics import (
    InputRecipe,
    MatmulForm,
    ResultCheck,
    compare,
    compare_with_reference,
    magnitude_inputs,
)
from xsplit.iree.device import Device

FORMAT = "xsplit-saved/1"
MANIFEST = "manifest.json"
MODULES = "modules"


@dataclass
class SavedModule:
    """One compiled module of a program: the original, a rewrite, or a
    benchmark configuration."""

    name: str
    path: str
    """Relative to the directory."""
    pipeline: str | None = None
    flags: list[str] = field(default_factory=list)
    factor: int | None = None
    """The chunk count of an xsplit configuration (1: left whole)."""


@dataclass
class SavedProgram:
    name: str
    function: str
    recipe: InputRecipe
    modules: list[SavedModule]
    reference: MatmulForm | None = None
    """numpy's float64 form of the program, or None: the CPU reference runs."""
    cpu_reference: str | None = None
    """The original compiled for a portable CPU (`local-task`), where numpy
    cannot express the program."""
    flops: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """What the compile side knew that a report shows (auto's choice, remarks)."""

    def module(self, name: str) -> SavedModule:
        return next(m for m in self.modules if m.name == name)


@dataclass
class Manifest:
    kind: str
    """check, e2e or bench: which report the replay prints."""
    device: str
    compiled_for: str
    programs: list[SavedProgram]
    tool: str = "xsplit"
    notes: list[str] = field(default_factory=list)
    """Lines the report ends with, known when compiling (e2e's workgroup counts)."""
    options: dict[str, Any] = field(default_factory=dict)
    """The run's options (bench: runs, sweep, model target)."""
    compiler: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "kind": self.kind,
            "tool": self.tool,
            "device": self.device,
            "compiled_for": self.compiled_for,
            "compiler": self.compiler,
            "options": self.options,
            "notes": self.notes,
            "programs": [
                {
                    "name": p.name,
                    "function": p.function,
                    "inputs": p.recipe.to_json(),
                    "reference": p.reference.to_json() if p.reference else
                    {"kind": "cpu", "module": p.cpu_reference},
                    "flops": p.flops,
                    "extra": p.extra,
                    "modules": [m.__dict__ for m in p.modules],
                }
                for p in self.programs
            ],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Manifest:
        programs = []
        for p in data["programs"]:
            reference = p["reference"]
            programs.append(
                SavedProgram(
                    p["name"],
                    p["function"],
                    InputRecipe.from_json(p["inputs"]),
                    [SavedModule(**m) for m in p["modules"]],
                    MatmulForm.from_json(reference) if reference["kind"] == "matmul" else None,
                    reference.get("module"),
                    p.get("flops"),
                    p.get("extra", {}),
                )
            )
        return Manifest(
            data["kind"], data["device"], data["compiled_for"], programs, data.get("tool", "xsplit"),
            data.get("notes", []), data.get("options", {}), data.get("compiler", ""),
        )


def store_module(directory: str, vmfb: bytes) -> str:
    """Writes a module under its content's hash (once however many configurations
    compile to it); its path relative to `directory`."""
    name = hashlib.sha256(vmfb).hexdigest()[:24] + ".vmfb"
    try:
        os.makedirs(os.path.join(directory, MODULES), exist_ok=True)
    except OSError as e:
        raise XsplitError(f"cannot save to '{directory}': {e.strerror}") from None
    path = os.path.join(directory, MODULES, name)
    if not os.path.exists(path):
        write_output(path, vmfb)
    return f"{MODULES}/{name}"


def write_manifest(directory: str, manifest: Manifest) -> None:
    write_output(os.path.join(directory, MANIFEST), json.dumps(manifest.to_json(), indent=1) + "\n")


def read_manifest(directory: str) -> Manifest:
    path = os.path.join(directory, MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise XsplitError(f"cannot read {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise XsplitError(f"{path}: not a manifest xsplit wrote: {e}") from None
    if data.get("format") != FORMAT:
        raise XsplitError(f"{path}: format {data.get('format')!r}, expected {FORMAT!r}")
    return Manifest.from_json(data)


def read_module(directory: str, path: str) -> bytes:
    full = os.path.join(directory, path)
    try:
        with open(full, "rb") as f:
            return f.read()
    except OSError as e:
        raise XsplitError(f"cannot read {full}: {e.strerror or e}") from None


@dataclass
class Reference:
    """What results are held to: numpy's float64 results, or the original's
    on the CPU, and the magnitudes that scale the tolerance."""

    what: str
    results: list[np.ndarray]
    magnitudes: list[np.ndarray | None]
    float64: bool

    def check(self, actual: Sequence[np.ndarray]) -> list[ResultCheck]:
        if len(actual) != len(self.results):
            raise XsplitError(
                f"{len(actual)} results against {len(self.results)} of the reference"
            )
        return [
            compare_with_reference(a, r, i, m) if self.float64 else compare(a, r, i, m)
            for i, (a, r, m) in enumerate(zip(actual, self.results, self.magnitudes))
        ]


def reference_for(
    directory: str, program: SavedProgram, inputs: Sequence[np.ndarray], cpu: Device | None
) -> Reference:
    """numpy's float64 result where the program is a matmul; else the
    original run on the CPU (`cpu`: a local-task device), on the inputs and
    on their magnitudes."""
    if program.reference is not None:
        result, magnitude = program.reference.reference(inputs)
        form = "A @ B + C" if program.reference.c is not None else "A @ B"
        return Reference(f"numpy float64 ({form})", [result], [magnitude], True)
    if program.cpu_reference is None or cpu is None:
        raise XsplitError(f"{program.name}: the manifest names no reference")
    vmfb = read_module(directory, program.cpu_reference)
    results = cpu.call(vmfb, program.function, inputs, f"running {program.name} as it is")
    try:
        magnitudes: list[np.ndarray | None] = list(
            cpu.call(vmfb, program.function, magnitude_inputs(inputs), "on |inputs|")
        )
    except XsplitError:  # a program may refuse inputs it was not written for
        magnitudes = [None] * len(results)
    return Reference("the original on the CPU", results, magnitudes, False)


@dataclass
class CheckRun:
    lines: list[str]
    passed: bool
    results: list[dict[str, Any]]


def run_check(directory: str, manifest: Manifest, device: Device, cpu: Device | None) -> CheckRun:
    """Runs a saved check (or e2e): the original and the rewrite on `device`,
    on the same inputs, each against the other and against the reference."""
    (program,) = manifest.programs
    inputs = program.recipe.make()
    original_vmfb = read_module(directory, program.module("original").path)
    rewrite = program.module("rewrite")
    original = device.call(original_vmfb, program.function, inputs, f"running {program.name} as it is")
    rewritten = device.call(
        read_module(directory, rewrite.path), program.function, inputs,
        f"running {program.name} rewritten by '{rewrite.pipeline}'",
    )
    reference = reference_for(directory, program, inputs, cpu)
    lines = [
        f"{program.name} @{program.function} on {device.description}, compiled for "
        f"{manifest.compiled_for}; reference: {reference.what}"
    ]
    results: list[dict[str, Any]] = []
    groups = [
        ("rewrite vs original", [
            compare(a, e, i, m)
            for i, (a, e, m) in enumerate(zip(rewritten, original, reference.magnitudes))
        ]),
        ("original vs reference", reference.check(original)),
        ("rewrite vs reference", reference.check(rewritten)),
    ]
    for label, checks in groups:
        for c in checks:
            lines.append(f"{label}: {c.describe()}")
            results.append({"comparison": label, **c.__dict__, "passed": c.passed})
    passed = all(r["passed"] for r in results)
    lines += manifest.notes
    lines.append("PASS" if passed else "FAIL")
    return CheckRun(lines, passed, results)
