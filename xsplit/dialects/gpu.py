"""The GPU loop-mapping attributes that xDSL 0.74 lacks.

`#gpu.block<x>`, `#gpu.thread<linear_dim_0>` and their kin name the processor
level an `scf.forall` dimension is distributed over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

MAPPING_IDS: tuple[str, ...] = ("x", "y", "z") + tuple(f"linear_dim_{i}" for i in range(10))


class _ProcessorMappingAttr(ParametrizedAttribute):
    """A processor level and which of its ids a loop dimension maps to."""

    mapping_id: StringAttr

    LEVEL: ClassVar[str]

    def __init__(self, mapping_id: str):
        super().__init__(StringAttr(mapping_id))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            ident = parser.parse_identifier()
            if ident not in MAPPING_IDS:
                parser.raise_error(f"expected one of {', '.join(MAPPING_IDS)}", pos, parser.pos)
        return (StringAttr(ident),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.mapping_id.data}>")

    def verify(self) -> None:
        if self.mapping_id.data not in MAPPING_IDS:
            raise VerifyException(
                f"'{self.mapping_id.data}' is not a GPU mapping id ({', '.join(MAPPING_IDS)})"
            )


@irdl_attr_definition
class BlockMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over thread blocks (workgroups)."""

    name = "gpu.block"
    LEVEL = "block"


@irdl_attr_definition
class WarpgroupMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over warpgroups of a block."""

    name = "gpu.warpgroup"
    LEVEL = "warpgroup"


@irdl_attr_definition
class WarpMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over warps of a block."""

    name = "gpu.warp"
    LEVEL = "warp"


@irdl_attr_definition
class ThreadMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over threads of a block."""

    name = "gpu.thread"
    LEVEL = "thread"


@irdl_attr_definition
class LaneMappingAttr(_ProcessorMappingAttr):
    """Distributes a loop dimension over lanes of a warp."""

    name = "gpu.lane"
    LEVEL = "lane"


GPU_MAPPING_ATTRS = (
    BlockMappingAttr,
    WarpgroupMappingAttr,
    WarpMappingAttr,
    ThreadMappingAttr,
    LaneMappingAttr,
)
