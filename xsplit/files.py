"""Writing output files whole or not at all, never over the input."""

from __future__ import annotations

import os
import tempfile

from xsplit.diagnostics import XsplitError


def ensure_writable(path: str, input_path: str | None = None) -> None:
    """Raises the error writing `path` would meet before anything is written:
    a tool checks its outputs this way before long work."""
    if input_path not in (None, "-") and os.path.exists(path) and os.path.samefile(path, input_path):
        raise XsplitError(f"refusing to overwrite the input file '{path}'")
    if os.path.isdir(path):
        raise XsplitError(f"cannot write '{path}': it is a directory")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise XsplitError(f"cannot write '{path}': no directory '{directory}'")


def write_atomically(path: str, data: str | bytes, input_path: str | None = None) -> None:
    """Writes `data` to `path` through a temporary file in the same directory,
    so that a failure leaves no partial file behind."""
    ensure_writable(path, input_path)
    directory = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1]
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".xsplit-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise XsplitError(f"cannot write '{path}': {e.strerror}") from None
