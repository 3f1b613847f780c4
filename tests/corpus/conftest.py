"""The corpus's IR, made once per test session the way users make theirs: each
ONNX model is imported with `iree-import-onnx`, then dumped with
`iree-compile --compile-to=PHASE` for the CPU at every phase users dump.

Under pytest-xdist every worker needs the dumps; the first to get the lock
makes them in the session's shared temporary folder and the others read them.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import onnx
import pytest

from tests.corpus.models import MODELS, PHASES, Model
from tests.corpus.real_modules import REAL_MODELS, REGIONS_PIPELINE
from tests.helpers.corpus import Corpus, import_onnx
from xsplit.iree.iree_compile import compile_mlir
from xsplit.iree.iree_opt import run_iree_opt
from xsplit.targets.table import host_threads


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


def _shared_folder(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """`build(folder)` once per session, in a folder pytest-xdist's workers
    share: the first to get the lock builds, the others wait and read."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = tmp_path_factory.getbasetemp()
    # xdist gives each worker a folder inside the session's; share that one.
    folder = (base.parent if worker else base) / name
    folder.parent.mkdir(parents=True, exist_ok=True)
    done = folder / "DONE"
    with open(folder.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                build(folder)
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    yield Corpus(_shared_folder(tmp_path_factory, "onnx-corpus", build_corpus))


def _make_real(model: Model, folder: Path) -> None:
    onnx_path = folder / f"{model.name}.onnx"
    onnx.save(model.build(), onnx_path)
    imported = folder / f"{model.name}.mlir"
    import_onnx(onnx_path, imported)
    source = imported.read_text()
    for phase in ("input", "global-optimization", "dispatch-creation"):
        ir = compile_mlir(source, "cpu", compile_to=phase, phase=f"dumping {model.name}")
        (folder / f"{model.name}.{phase}.mlir").write_bytes(ir)
    optimized = (folder / f"{model.name}.global-optimization.mlir").read_text()
    regions = run_iree_opt(optimized, model.name, [f"--pass-pipeline={REGIONS_PIPELINE}"])
    (folder / f"{model.name}.regions.mlir").write_text(regions)


def build_real_modules(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=host_threads()) as pool:
        list(pool.map(lambda m: _make_real(m, folder), REAL_MODELS))


@pytest.fixture(scope="session")
def real_modules(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    """The dumps of `real_modules.REAL_MODELS` at `REAL_PHASES`, made once per
    session as the corpus's are."""
    yield Corpus(_shared_folder(tmp_path_factory, "real-modules", build_real_modules))
