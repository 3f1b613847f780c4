"""What each op does in the simulator, one module per dialect, as xDSL's
interpreter functions are (`xdsl/interpreters/`). Each module registers its
ops' compilers in `registry`; the machine finds them there by op name.

A dialect's new op goes in that dialect's module with `@register("name")`;
a new dialect gets a module of its own, imported here.
"""

from xsplit.simulator.semantics import (
    affine,
    amdgpu,
    arith,
    func,
    gpu,
    hal,
    linalg,
    llvm,
    memref,
    nvgpu,
    scf,
    vector,
)
from xsplit.simulator.semantics.registry import compile_op, register, registered

__all__ = [
    "affine",
    "amdgpu",
    "arith",
    "compile_op",
    "func",
    "gpu",
    "hal",
    "linalg",
    "llvm",
    "memref",
    "nvgpu",
    "register",
    "registered",
    "scf",
    "vector",
]
