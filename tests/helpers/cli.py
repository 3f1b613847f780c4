"""Running xsplit's command-line tools as a user does, and what their
failures must look like."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HELPERS = Path(__file__).resolve().parent
COLD_VARIABLE = "XSPLIT_TESTS_COLD"
"""Set, every tool run below starts its own interpreter."""

_server: tuple[subprocess.Popen[str] | None, str] | None = None


def _server_socket() -> str | None:
    """The socket of this process's warm tool server (tool_server.py), started
    on first use: the tests run the tools some hundreds of times, and a fresh
    interpreter spends most of each run importing xsplit."""
    global _server
    if os.environ.get(COLD_VARIABLE):
        return None
    if _server is None:
        folder = tempfile.mkdtemp(prefix="xsplit-tools-")
        path = os.path.join(folder, "tool")
        modules = ["xsplit.tools.xsplit_opt", "xsplit.tools.xsplit_cli"]
        server = subprocess.Popen(
            [sys.executable, str(HELPERS / "tool_server.py"), path, *modules],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

        def stop() -> None:
            server.terminate()
            server.wait()
            shutil.rmtree(folder, ignore_errors=True)

        atexit.register(stop)
        ready = server.stdout is not None and server.stdout.readline().strip() == "ready"
        _server = (server, path) if ready else (None, "")
    return _server[1] or None


def tool_command(entry: str, name: str, cold: list[str]) -> list[str]:
    """The command that runs `entry` ("module:function") as the console
    script `name` does, through the warm server where there is one, else
    `cold`."""
    path = _server_socket()
    if path is None:
        return cold
    return [sys.executable, "-S", str(HELPERS / "tool_client.py"), path, entry, name]


def xsplit_opt_command() -> list[str]:
    return tool_command(
        "xsplit.tools.xsplit_opt:main", "xsplit-opt",
        [sys.executable, "-m", "xsplit.tools.xsplit_opt"],
    )  # fmt: skip


def xsplit_opt(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*xsplit_opt_command(), *args],
        capture_output=True,
        text=True,
        input=stdin,
        check=False,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], expected: str) -> None:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stderr
    assert expected in errors[0], proc.stderr


SMALL = EXAMPLES / "small_matmul.mlir"


# A pattern that drops the init: right only where C is zero, which random
# inputs never are, so `check` must catch it.
WRONG_PATTERN = '''
from xsplit.rewrites.dsl import Pass, Pattern, Template, init, input

DROP_INIT = Pattern(
    name="drop-matmul-init",
    doc="replaces the init of a matmul by zeros (wrong on purpose)",
    root="linalg.matmul",
    where=input(0).capture("a") & input(1).capture("b") & init().capture("c")
    & ~init().defined_by("linalg.fill"),
    rewrite=Template(
        """
        %zero = arith.constant 0.0 : f32
        %filled = linalg.fill ins(%zero : f32) outs($c : $c.type) -> $c.type
        %r = linalg.matmul ins($a, $b : $a.type, $b.type) outs(%filled : $c.type) -> $c.type
        """
    ),
)

Pass("drop-init", "Drops matmul inits (a wrong rewrite, to test xsplit check).", [DROP_INIT])
'''


def xsplit(*args: str) -> subprocess.CompletedProcess[str]:
    cold = [sys.executable, "-c", "from xsplit.tools.xsplit_cli import console_main; console_main()"]
    return subprocess.run(
        [*tool_command("xsplit.tools.xsplit_cli:console_main", "xsplit", cold), *args],
        capture_output=True,
        text=True,
        check=False,
    )


# Runs the replay as a machine without xDSL and iree-compile would: an import
# of either, however deep, fails.
BLOCKED_REPLAY = """
import runpy, sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "xdsl" or name == "iree.compiler" or name.startswith("iree.compiler."):
            raise ImportError(f"{name} is not installed on the device machine")
        return None

sys.meta_path.insert(0, Blocked())
sys.argv = ["xsplit.replay", *sys.argv[1:]]
runpy.run_module("xsplit.replay", run_name="__main__", alter_sys=True)
"""


def replay_blocked(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKED_REPLAY, *args], capture_output=True, text=True, check=False,
        cwd=ROOT,
    )
