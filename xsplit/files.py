"""Writing output files as Unix tools write them, never over the input.

A regular file is written whole or not at all: through a temporary file
beside it and a rename, with the mode a new file gets under the umask, or the
mode (and owner) of the file it replaces. A symbolic link is followed: its
target gets the new content and the link stays. Anything else (a device such
as /dev/null, a named pipe, /dev/stdout, /dev/fd/N) is opened and written in
place, as the shell's `>` would: renaming over it would replace the node
itself. `-` is standard output.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys

from xsplit.diagnostics import XsplitError

STDOUT = "-"

# Names of a process's open descriptors. Behind one may lie a regular file
# (`-o /dev/stdout > out.mlir`); replacing that file by name would leave the
# descriptor, which is where the output is wanted, on the unlinked old one.
_DESCRIPTOR = re.compile(
    r"^/dev/(stdout|stderr|stdin|fd/\d+)$|^/proc/(self|thread-self|\d+)/fd/\d+$"
)

_MAX_LINKS = 40  # Linux's own limit on symbolic links followed in one lookup


def _names_a_descriptor(path: str) -> bool:
    """Whether `path`, or a symbolic link on the way from it, names an open
    descriptor. os.path.realpath cannot say: it resolves /dev/stdout to the
    file behind the descriptor, or to a name like `pipe:[123]` that no open()
    can reach."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        if _DESCRIPTOR.match(current):
            return True
        if not os.path.islink(current):
            return False
        try:
            target = os.readlink(current)
        except OSError:
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return False


def _existing(path: str) -> os.stat_result | None:
    """What `path` names, symbolic links followed; None where nothing is
    there yet (a dangling link counts as nothing: its target gets created)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise XsplitError(f"cannot write '{path}': {e.strerror}") from None


def _in_place(path: str, existing: os.stat_result | None) -> bool:
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        return True
    return _names_a_descriptor(path)


def ensure_writable(path: str, input_path: str | None = None) -> None:
    """Raises the error writing `path` would meet before anything is written:
    a tool checks its outputs this way before long work."""
    if path == STDOUT:
        return
    may_be_input = input_path not in (None, STDOUT) and os.path.exists(path)
    if may_be_input and os.path.samefile(path, input_path):  # type: ignore[arg-type]
        raise XsplitError(f"refusing to overwrite the input file '{path}'")
    if os.path.isdir(path):
        raise XsplitError(f"cannot write '{path}': it is a directory")
    existing = _existing(path)
    # A read-only file is refused as the shell's `>` refuses it, though the
    # rename would go through.
    if existing is not None and not os.access(path, os.W_OK):
        raise XsplitError(f"cannot write '{path}': {os.strerror(errno.EACCES)}")
    if _in_place(path, existing):
        return
    # The temporary file goes beside the link's target, not beside the link.
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        raise XsplitError(f"cannot write '{path}': no directory '{directory}'")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise XsplitError(f"cannot write '{path}': {os.strerror(errno.EACCES)}")


def write_output(path: str | None, data: str | bytes, input_path: str | None = None) -> None:
    """Writes `data` to `path` (None or `-`: standard output) as the module
    docstring says. A failure raises XsplitError; it leaves an existing
    regular file as it was and no temporary file behind."""
    if path is None or path == STDOUT:
        if isinstance(data, str):
            sys.stdout.write(data)
        else:
            sys.stdout.flush()  # text printed before goes out before these bytes
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        return
    payload = data.encode() if isinstance(data, str) else data
    ensure_writable(path, input_path)
    existing = _existing(path)
    if _in_place(path, existing):
        _write_in_place(path, payload)
    else:
        _replace(path, payload, existing)


def _write_in_place(path: str, payload: bytes) -> None:
    # What the process printed must come out before this, where `path` is its
    # own standard output or error.
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        with open(path, "wb") as f:
            f.write(payload)
    except OSError as e:
        raise XsplitError(f"cannot write '{path}': {e.strerror}") from None


def _replace(path: str, payload: bytes, existing: os.stat_result | None) -> None:
    target = os.path.realpath(path)
    # A new file is created with 0o666 so that the kernel applies the umask
    # (and a directory's default ACL) as it does for any tool; mkstemp's 0o600
    # would stay. A replaced file is kept private until it has the old one's mode.
    tmp = None
    try:
        fd, tmp = _create_beside(target, 0o600 if existing is not None else 0o666)
        with os.fdopen(fd, "wb") as f:
            if existing is not None:
                _keep_owner_and_mode(f.fileno(), existing)
            f.write(payload)
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise XsplitError(f"cannot write '{path}': {e.strerror}") from None
    finally:
        # Also on KeyboardInterrupt; only this run's own file is removed.
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _create_beside(target: str, mode: int) -> tuple[int, str]:
    """A new file in `target`'s directory, open for writing, and its path."""
    directory, name = os.path.split(target)
    suffix = os.path.splitext(name)[1]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        candidate = os.path.join(directory, f".xsplit-{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(candidate, flags, mode), candidate
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST))


def _keep_owner_and_mode(fd: int, existing: os.stat_result) -> None:
    if (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, existing.st_uid, existing.st_gid)
        except OSError:
            pass  # only root may give a file away; the content still goes out
    # After fchown, which clears set-user-ID and set-group-ID bits.
    os.fchmod(fd, stat.S_IMODE(existing.st_mode))
