"""The corpus's IR, made once per test session the way users make theirs: each
ONNX model is imported with `iree-import-onnx`, then dumped with
`iree-compile --compile-to=PHASE` for the CPU at every phase users dump.

Under pytest-xdist every worker needs the dumps; the first to get the lock
makes them in the session's shared temporary folder and the others read them.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import onnx
import pytest

from tests.corpus.models import MODELS, PHASES, Model
from xsplit.iree.iree_compile import compile_mlir
from xsplit.target.targets import host_threads


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


def _make(model: Model, folder: Path) -> None:
    onnx_path = folder / f"{model.name}.onnx"
    onnx.save(model.build(), onnx_path)
    imported = folder / f"{model.name}.mlir"
    import_onnx(onnx_path, imported)
    source = imported.read_text()
    for phase in PHASES:
        ir = compile_mlir(source, "cpu", compile_to=phase, phase=f"dumping {model.name}")
        (folder / f"{model.name}.{phase}.mlir").write_bytes(ir)


def build_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=host_threads()) as pool:
        list(pool.map(lambda m: _make(m, folder), MODELS))  # list(): re-raises a failure


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = tmp_path_factory.getbasetemp()
    # xdist gives each worker a folder inside the session's; share that one.
    folder = (base.parent if worker else base) / "onnx-corpus"
    folder.parent.mkdir(parents=True, exist_ok=True)
    done = folder / "DONE"
    with open(folder.parent / "onnx-corpus.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                build_corpus(folder)
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    yield Corpus(folder)
