"""The assembly iree-compile writes for a GPU target, for tests that check
what a pass's barriers, shared-memory accesses and atomics became."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers.kept_dumps import kept
from xsplit.iree.iree_compile import iree_compile_path
from xsplit.targets.table import target

ASSEMBLY_SUFFIX = {"sm_80": ".ptx", "gfx942": ".rocmasm"}


def dumped_assembly(source: str, target_name: str, tmp_path: Path) -> list[str]:
    """Compiles `source` for the target and returns the text of each
    executable's assembly (PTX, or the ROCm ISA), in file-name order; once
    a test run for each program and target (tests/helpers/kept_dumps.py)."""
    return kept("assembly", source, target_name, lambda: _dump(source, target_name, tmp_path))


def _dump(source: str, target_name: str, tmp_path: Path) -> list[str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    dump = tmp_path / target_name
    proc = subprocess.run(
        [
            iree_compile_path(),
            *target(target_name).flags,
            f"--iree-hal-dump-executable-files-to={dump}",
            "-",
            "-o",
            str(tmp_path / f"{target_name}.vmfb"),
        ],
        input=source.encode(),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    suffix = ASSEMBLY_SUFFIX[target_name]
    return [p.read_text() for p in sorted(dump.iterdir()) if p.name.endswith(suffix)]
