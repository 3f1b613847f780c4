"""A warm xsplit command line for the tests: one process imports xsplit once
and forks a copy of itself for every run of a tool, which `tool_client.py`
stands in for.

Importing xsplit and xDSL is most of what a FileCheck RUN line costs (about
half a second of CPU, against milliseconds for the small modules the tests
run passes on), and lit runs some 450 of them; `filecheck`, a Python program
too, runs from it as well. A forked child starts from the state a fresh tool
process has once its imports are done, nothing run yet,
and calls the tool's own entry point as its console script does: with the
client's argument list, working folder, environment and standard streams
(passed over the socket as file descriptors). Its exit status goes back to
the client, which ends with it.

    python tool_server.py SOCKET MODULE...

imports each MODULE, prints one line when it listens, and ends when the
process that started it does, or after an hour with no request.
"""

from __future__ import annotations

import array
import atexit
import importlib
import json
import os
import select
import signal
import socket
import struct
import sys
import traceback

IDLE_LIMIT_S = 3600.0
# The client's request: a length, then the JSON of the entry point
# ("module:function"), argv, cwd and environ; its three standard streams ride
# along with the first bytes.
HEADER = struct.Struct("!I")
STATUS = struct.Struct("!i")


def receive_request(conn: socket.socket) -> tuple[dict, list[int]]:
    fds = array.array("i")
    data, ancillary, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(3 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    while len(data) < HEADER.size:
        more = conn.recv(65536)
        if not more:
            raise EOFError("short request")
        data += more
    (length,) = HEADER.unpack_from(data)
    body = data[HEADER.size :]
    while len(body) < length:
        more = conn.recv(max(65536, length - len(body)))
        if not more:
            raise EOFError("short request")
        body += more
    return json.loads(body[:length]), list(fds)


def exit_code(error: SystemExit) -> int:
    """The status an interpreter ends with on an uncaught SystemExit."""
    code = error.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def serve_one(conn: socket.socket) -> int:
    """The forked child: become the tool for one request."""
    request, fds = receive_request(conn)
    if len(fds) != 3:
        raise OSError(f"expected 3 descriptors, got {len(fds)}")
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    # The server's stream objects describe the files it started with (a log
    # file is seekable, a pipe is not): a tool that reconfigures its streams,
    # as filecheck does, needs them made afresh for the client's, as a fresh
    # interpreter makes them.
    for target, name in enumerate(("stdin", "stdout", "stderr")):
        old = getattr(sys, name)
        interactive = os.isatty(target)
        setattr(sys, name, open(  # noqa: SIM115 - the process's own stream, closed at its exit
            target, "r" if target == 0 else "w", encoding=old.encoding, errors=old.errors,
            buffering=1 if interactive or name == "stderr" else -1, closefd=False,
        ))  # fmt: skip
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = list(request["argv"])
    module, function = request["entry"].split(":")
    try:
        sys.exit(getattr(importlib.import_module(module), function)())
    except SystemExit as error:
        code = exit_code(error)
    except BaseException:  # noqa: BLE001 - reported as the interpreter reports it
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120
    return code


def serve(path: str, modules: list[str]) -> None:
    # sys.path as a console script's: this folder is not on it.
    del sys.path[0]
    for module in modules:
        importlib.import_module(module)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    # SIGCHLD wakes the loop through a pipe; children are reaped there and
    # their clients told how they ended.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    parent = os.getppid()
    waiting: dict[int, socket.socket] = {}
    print("ready", flush=True)
    idle = 0.0
    while True:
        ready, _, _ = select.select([listener, wake_r], [], [], 1.0)
        if not ready:
            idle += 1.0
            if os.getppid() != parent or (idle > IDLE_LIMIT_S and not waiting):
                break
        else:
            idle = 0.0
        if wake_r in ready:
            os.read(wake_r, 4096)
        if listener in ready:
            conn, _ = listener.accept()
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    listener.close()
                    for other in waiting.values():
                        other.close()
                    os.close(wake_r)
                    os.close(wake_w)
                    code = serve_one(conn)
                finally:
                    os._exit(code)
            waiting[pid] = conn
        while waiting:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            if conn is None:
                continue
            try:
                conn.sendall(STATUS.pack(os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            conn.close()
    listener.close()
    os.unlink(path)


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
