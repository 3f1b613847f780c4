"""The corpus's dumps as the tests see them, and ONNX import as users run it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.corpus.models import Model


@dataclass(frozen=True)
class Dump:
    model: Model
    phase: str
    path: Path

    @property
    def id(self) -> str:
        return f"{self.model.name}.{self.phase}"

    @property
    def text(self) -> str:
        return self.path.read_text()


@dataclass(frozen=True)
class Corpus:
    folder: Path

    def onnx_path(self, model: Model) -> Path:
        return self.folder / f"{model.name}.onnx"

    def dump(self, model: Model, phase: str) -> Dump:
        return Dump(model, phase, self.folder / f"{model.name}.{phase}.mlir")


def import_onnx(onnx_path: Path, out: Path) -> None:
    """`iree-import-onnx MODEL -o OUT`, from the interpreter running the tests,
    so that it is the importer of the installed iree-base-compiler."""
    proc = subprocess.run(
        [sys.executable, "-m", "iree.compiler.tools.import_onnx", str(onnx_path), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"iree-import-onnx {onnx_path.name} failed:\n{proc.stderr}")
