"""What a GPU compile dumped, kept for the test run beside its compiles.

`compile_mlir` keeps each vmfb in the session's compile cache
(conftest.compile_cache), but the tests that read a kernel's assembly run
iree-compile themselves, with a dump flag, and several compile the same
program for the same target (a machine-code test and an assembly test of
one kernel). `kept` answers the second from what the first read: the same
program text, target flags and iree-compile are the same compile. A compile
that fails raises each time, and nothing of it is kept."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from xsplit.iree.iree_compile import COMPILE_CACHE_VARIABLE, iree_compile_path
from xsplit.targets.table import target

T = TypeVar("T")


def kept(what: str, source: str, target_name: str, read: Callable[[], T]) -> T:
    """`read()`, or what it returned before for `what` on the same source
    and target in this test run."""
    digest = hashlib.sha256(f"{what}\0{iree_compile_path()}\0".encode())
    digest.update("\0".join(target(target_name).flags).encode() + b"\0")
    digest.update(source.encode())
    return kept_by_digest(what, digest, read)


def kept_by_digest(what: str, digest: hashlib._Hash, compute: Callable[[], T]) -> T:
    """`compute()`, or what it returned before for the same `what` and
    digest in this test run (in the compile cache's folder; without one,
    always `compute()`). A value is written whole or not at all."""
    folder = os.environ.get(COMPILE_CACHE_VARIABLE)
    if not folder:
        return compute()
    path = os.path.join(folder, f"{what}-{digest.hexdigest()}.pickle")
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except OSError:
        pass
    value = compute()
    fd, partial = tempfile.mkstemp(dir=folder, prefix=f".partial-{what}-")
    with os.fdopen(fd, "wb") as f:
        pickle.dump(value, f)
    os.replace(partial, path)
    return value


def kept_run(vmfb: bytes, function: str, inputs: Any, phase: str = "running the program") -> Any:
    """`xsplit.iree.cpu_runner.run_on_cpu`, or what the same program (the
    vmfb's bytes) returned for the same function and inputs before in this
    test run: `check_rewrite` runs the program it rewrote, and a test that
    then compares that program with numpy, or with another split, asks for
    the same run again. A run that fails is not kept. Not for tests that run
    one program twice to compare the runs."""
    from xsplit.iree.cpu_runner import run_on_cpu

    digest = hashlib.sha256(vmfb)
    digest.update(function.encode() + b"\0")
    for x in inputs:
        array = np.ascontiguousarray(x)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    return kept_by_digest("run", digest, lambda: run_on_cpu(vmfb, function, inputs, phase))
