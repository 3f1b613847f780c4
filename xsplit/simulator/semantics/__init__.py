"""What each op does in the simulator, one module per dialect, as xDSL's
interpreter functions are (`xdsl/interpreters/`). Each module registers its
ops' compilers in `registry`; the machine finds them there by op name.

A dialect's new op goes in that dialect's module with `@register("name")`
(`lane_local=True` where it meets the registry's terms, so that the machine
may run chunks of it at once); a new dialect gets a module of its own,
imported here. A compiler gets the compiled function (`compiled.Compiled`);
its closure reaches the running machine through the frame (`fr.m`).
"""

# Importing a dialect's module registers its ops (each names its own
# modules, so that the package does not import itself).
import xsplit.simulator.semantics.affine  # noqa: F401
import xsplit.simulator.semantics.amdgpu  # noqa: F401
import xsplit.simulator.semantics.arith  # noqa: F401
import xsplit.simulator.semantics.func  # noqa: F401
import xsplit.simulator.semantics.gpu  # noqa: F401
import xsplit.simulator.semantics.hal  # noqa: F401
import xsplit.simulator.semantics.linalg  # noqa: F401
import xsplit.simulator.semantics.llvm  # noqa: F401
import xsplit.simulator.semantics.memref  # noqa: F401
import xsplit.simulator.semantics.nvgpu  # noqa: F401
import xsplit.simulator.semantics.scf  # noqa: F401
import xsplit.simulator.semantics.vector  # noqa: F401
from xsplit.simulator.semantics.registry import compile_op, register, registered

__all__ = ["compile_op", "register", "registered"]
