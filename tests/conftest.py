from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.corpus.summary import summary

    for line in summary(terminalreporter.stats):
        terminalreporter.write_line(line)
