"""Stands for one of xsplit's tools: hands its arguments, folder,
environment and standard streams to `tool_server.py` and ends as the run
there ended. Only the standard library is imported (it runs as `python -S`),
which is what makes it cheaper than the tool itself.

    python -S tool_client.py SOCKET MODULE:FUNCTION ARGV0 ARGS...

Where the server does not answer, the entry point runs here, in a fresh
interpreter, as it would without the server.
"""

import array
import json
import os
import socket
import struct
import sys


def main() -> None:
    path, entry, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    request = {"entry": entry, "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    body = json.dumps(request).encode()
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
    except OSError:
        module, function = entry.split(":")
        run = f"import sys; sys.argv[0] = {argv[0]!r}; from {module} import {function}; sys.exit({function}())"
        os.execv(sys.executable, [sys.executable, "-c", run, *argv[1:]])
    streams = array.array("i", [0, 1, 2])
    message = struct.pack("!I", len(body)) + body
    sent = conn.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, streams)])
    conn.sendall(message[sent:])
    status = b""
    while len(status) < 4:
        more = conn.recv(4 - len(status))
        if not more:
            print(f"{argv[0]}: error: the tool server ended during the run", file=sys.stderr)
            sys.exit(1)
        status += more
    (code,) = struct.unpack("!i", status)
    if code < 0:
        # Killed by a signal there: end the same way here.
        os.kill(os.getpid(), -code)
    sys.exit(code)


main()
