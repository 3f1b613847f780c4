from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest


# The CPU model reads the per-user calibration (`xsplit bench --calibrate`)
# when xsplit is first imported: the tests model the machine as a fresh one
# does, whatever a developer has calibrated, and so does every process they
# start.
_CACHE_HOME = tempfile.mkdtemp(prefix="xsplit-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)

# Templates are verified once filled, for every shape the tests fill them
# with, here and in the processes the tests start; a run of the tool only
# parses them (its output is verified).
os.environ["XSPLIT_VERIFY_TEMPLATES"] = "1"


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


def _runs_kept_beside_the_compiles() -> None:
    """`check_rewrite` (and `run_e2e` through it) runs the program as it is,
    and once more on |inputs|, in every test that checks a rewrite of it: the
    seed's unsplit 123x456x51234 matmul, one serial dispatch, takes seconds
    each time, in a dozen tests. What one program (the vmfb's bytes) returns
    for one function and the same inputs is kept in the compile cache's folder
    and read back, as its compile is (tests/helpers/kept_dumps.py's
    `kept_run`). The rewritten program's run is kept too: the e2e tests
    that compare it with numpy or with another split ask `kept_run` for
    the same run. A run that fails is not kept: it fails, and is reported,
    every time. Tests that run one program twice to compare the runs call
    the runtime themselves."""
    import xsplit.interop.check as check
    from tests.helpers.kept_dumps import kept_run

    check.run_on_cpu = kept_run


_runs_kept_beside_the_compiles()


def _machine_code_kept_beside_the_compiles() -> None:
    """`read_machine_code` compiles for a GPU, assembles and disassembles:
    what it read of one program for one target is kept in the compile
    cache's folder (tests/helpers/kept_dumps.py), as `dumped_assembly`'s
    listings are, for the tests that read the same kernel again."""
    import xsplit.bench.machine_code as machine_code
    from tests.helpers.kept_dumps import kept

    read = machine_code.read_machine_code

    def kept_read(source: str, target_name: str, work: Path) -> Any:
        return kept("machine-code", source, target_name, lambda: read(source, target_name, work))

    machine_code.read_machine_code = kept_read


_machine_code_kept_beside_the_compiles()


def _iree_opt_kept_beside_the_compiles() -> None:
    """xsplit reads a module it carries through iree-opt and prints it back
    through it twice more, and `program_difference` has iree-opt print both
    of its programs: the corpus tests rewrite each dump three times and
    compare it with each output, and test_real_modules rewrites the same
    dumps again, so one text went through iree-opt with the same flags up
    to six times. What iree-opt printed for one text, flags and file name
    is kept in the compile cache's folder (tests/helpers/kept_dumps.py), as
    a compile is; a text it rejects is not kept, and fails each time."""
    import hashlib

    import xsplit.iree.iree_opt as iree_opt
    import xsplit.iree.roundtrip as roundtrip
    from tests.helpers.kept_dumps import kept_by_digest

    run, forms = iree_opt.run_iree_opt, roundtrip.generic_forms

    def digest(*parts: str) -> hashlib._Hash:
        found = hashlib.sha256()
        for part in (iree_opt.iree_opt_path(), *parts):
            data = part.encode()
            found.update(len(data).to_bytes(8, "little") + data)
        return found

    def kept_run_iree_opt(source: str, filename: str, flags=()) -> str:
        return kept_by_digest(
            "iree-opt", digest(filename, *flags, source), lambda: run(source, filename, flags)
        )

    class Rejected(Exception):
        """iree-opt rejected a text of the batch: nothing of it is kept."""

    def all_read(texts: list[str]) -> list[str | None]:
        found = forms(texts)
        if None in found:
            raise Rejected(found)
        return found

    def kept_generic_forms(texts: list[str]) -> list[str | None]:
        try:
            return kept_by_digest("generic-forms", digest(*texts), lambda: all_read(texts))
        except Rejected as rejected:
            return rejected.args[0]

    iree_opt.run_iree_opt = roundtrip.run_iree_opt = kept_run_iree_opt
    roundtrip.generic_forms = kept_generic_forms


_iree_opt_kept_beside_the_compiles()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.corpus.summary import summary

    for line in summary(terminalreporter.stats):
        terminalreporter.write_line(line)


COSTS = Path(__file__).with_name("costs.json")
"""Each test module's recorded seconds (`XSPLIT_RECORD_COSTS=1 pytest ...`
writes them), for the order below."""
RECORD_COSTS_VARIABLE = "XSPLIT_RECORD_COSTS"
_seconds: defaultdict[str, float] = defaultdict(float)


def pytest_configure(config: pytest.Config) -> None:
    # xdist's default hands each worker a quarter of its share in one
    # consecutive block, so one worker can get most of the expensive modules
    # that lead the order below; blocks of a few keep both busy to the end.
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = 4


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The most expensive modules first, so that the run does not end on one
    worker still busy with a long test while the other waits; a module's
    tests stay together and in their order (its module-scoped fixtures are
    made once per worker), and modules with no recorded cost keep theirs,
    after the others."""
    try:
        costs = json.loads(COSTS.read_text())
    except (OSError, ValueError):
        return
    rank = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        rank.setdefault(module, (-costs.get(module, 0.0), len(rank)))
    items.sort(key=lambda item: rank[item.nodeid.split("::")[0]])


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _seconds[report.nodeid.split("::")[0]] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    # Written by the process that saw every report: xdist's controller, or
    # the only process without it.
    if not os.environ.get(RECORD_COSTS_VARIABLE) or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    try:
        costs = json.loads(COSTS.read_text())
    except (OSError, ValueError):
        costs = {}
    costs.update((module, round(seconds, 1)) for module, seconds in _seconds.items())
    costs = dict(sorted(costs.items()))
    COSTS.write_text(json.dumps(costs, indent=1) + "\n")
