"""An ONNX model as users bring it to xsplit: imported with iree-import-onnx,
then lowered to IREE's input form with `iree-compile --compile-to=input`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import onnx

from xsplit.iree.iree_compile import iree_compile_path


def imported_input(model: onnx.ModelProto, folder: Path) -> str:
    onnx_path, torch_path = folder / "model.onnx", folder / "model.torch.mlir"
    onnx.save(model, onnx_path)
    importer = [sys.executable, "-m", "iree.compiler.tools.import_onnx", str(onnx_path), "-o", str(torch_path)]
    subprocess.run(importer, check=True, capture_output=True)
    proc = subprocess.run(
        [iree_compile_path(), "--compile-to=input", str(torch_path), "-o", "-"],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout
