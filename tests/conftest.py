from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

# The CPU model reads the per-user calibration (`xsplit bench --calibrate`)
# when xsplit is first imported: the tests model the machine as a fresh one
# does, whatever a developer has calibrated, and so does every process they
# start.
_CACHE_HOME = tempfile.mkdtemp(prefix="xsplit-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def compile_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One iree-compile per program, target and flags in a test run: compiles
    are kept in the session's temporary folder, which pytest-xdist's workers
    share (each worker's own folder is inside it), and the `xsplit` processes
    the tests start inherit the variable. A cache the environment already names
    is left as it is."""
    from xsplit.iree.iree_compile import COMPILE_CACHE_VARIABLE

    if os.environ.get(COMPILE_CACHE_VARIABLE):
        yield
        return
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "compile-cache"
    folder.mkdir(parents=True, exist_ok=True)
    os.environ[COMPILE_CACHE_VARIABLE] = str(folder)
    try:
        yield
    finally:
        os.environ.pop(COMPILE_CACHE_VARIABLE, None)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.corpus.summary import summary

    for line in summary(terminalreporter.stats):
        terminalreporter.write_line(line)
