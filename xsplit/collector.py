"""Pausing Python's cyclic garbage collector around whole-module work.

Parsing, verifying or rewriting a module allocates many small objects while
the module (often millions of objects) is alive, and each allocation burst
triggers a collection that scans that heap again: a third or more of the
time. The IR's own cycles (ops and their blocks) are dropped only when ops
are erased, and are collected once the work ends."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Runs the block with the cyclic collector off, restoring its state after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
