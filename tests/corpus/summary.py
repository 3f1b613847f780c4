"""The corpus test's counts, printed at the end of a session (tests/conftest.py
calls this): pass-through N/N per phase, how many dumps each pipeline split,
and the numerics verdicts. Read from the test reports, so that it also works
when pytest-xdist runs the tests in other processes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from tests.corpus.models import MODELS, PHASES

_TEST_FILE = "tests/corpus/test_corpus.py::"


def _reports(stats: dict[str, list[object]]) -> Iterable[tuple[str, str, bool, dict[str, object]]]:
    """(test, parameters, passed, properties) of each corpus test that ran or
    failed to set up."""
    for reports in stats.values():
        for r in reports:
            nodeid = getattr(r, "nodeid", "")
            when = getattr(r, "when", None)
            if _TEST_FILE not in nodeid or "[" not in nodeid:
                continue
            if when == "call" or (when == "setup" and not r.passed and not r.skipped):
                test, params = nodeid.split("::", 1)[1].rstrip("]").split("[", 1)
                yield test, params, bool(r.passed), dict(r.user_properties)


def summary(stats: dict[str, list[object]]) -> list[str]:
    passing: dict[str, list[bool]] = defaultdict(list)
    split: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    numerics: list[bool] = []
    checked = 0
    for test, params, passed, props in _reports(stats):
        if test == "test_pass_through":
            passing[params.rsplit(".", 1)[1]].append(passed)
        elif test == "test_split_k_pipeline":
            dump, which = params.rsplit("-", 1)
            phase = dump.rsplit(".", 1)[1]
            split[which]["runs"].append(passed)
            split[which][phase].append(int(props.get("split_loops", 0) or 0) > 0)
        elif test == "test_cpu_numerics":
            numerics.append(passed)
            checked += int(props.get("numerics_checked", 0) or 0)
    if not (passing or split or numerics):
        return []

    def count(values: list[bool]) -> str:
        return f"{sum(values)}/{len(values)}"

    lines = [f"xsplit ONNX corpus: {len(MODELS)} models, phases {', '.join(PHASES)}"]
    if passing:
        every = [v for p in PHASES for v in passing[p]]
        per_phase = ", ".join(f"{p} {count(passing[p])}" for p in PHASES if passing[p])
        lines.append(f"  pass-through {count(every)} ({per_phase})")
    for which, label in (("default", "split-k"), ("factor", "split-k{factor=N}")):
        if which not in split:
            continue
        by_phase = split[which]
        per_phase = ", ".join(f"{p} {count(by_phase[p])}" for p in PHASES if by_phase[p])
        lines.append(
            f"  {label},materialize-late: {count(by_phase['runs'])} tests pass; "
            f"dumps split: {per_phase}"
        )
    if numerics:
        lines.append(
            f"  CPU numerics of the input dumps: {count(numerics)} models pass, "
            f"{checked} split programs checked against the unsplit one"
        )
    return lines
