"""The parts of IREE's `iree_cpu` dialect that set a CPU kernel's tiles.

An op in a dispatch can carry its own configuration, which IREE's CPU
backend then uses instead of choosing one:

    linalg.generic {compilation_info = #iree_codegen.compilation_info<
        lowering_config = #iree_cpu.lowering_config<distribution = [128, 16, 0],
            vector_common_parallel = [8, 16, 0], vector_reduction = [0, 0, 4]>,
        translation_info = #iree_codegen.translation_info<
            pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>} ...

Each tiling level gives one tile size per loop of the op (0: not tiled at
that level): `distribution` is a workgroup's tile, `vector_common_parallel`
the register tile, `vector_reduction` the reduction loop's step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

PIPELINES = (
    "Default",
    "DoubleTilingExpert",
    "ConvTileAndDecomposeExpert",
    "Mmt4dTilingExpert",
    "BufferOpsTileAndVectorize",
    "DataTiling",
    "LinalgExtTileAndVectorize",
)
"""The CPU lowering pipelines IREE 3.13 knows."""


@irdl_attr_definition
class PipelineAttr(ParametrizedAttribute):
    """One of IREE's CPU codegen pipelines, by name (`PIPELINES`)."""

    name = "iree_cpu.pipeline"

    pipeline: StringAttr

    def __init__(self, pipeline: str):
        super().__init__(StringAttr(pipeline))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            pipeline = parser.parse_identifier()
            if pipeline not in PIPELINES:
                parser.raise_error(
                    f"expected a CPU pipeline, one of {', '.join(PIPELINES)}", pos, parser.pos
                )
        return (StringAttr(pipeline),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pipeline.data}>")

    def verify(self) -> None:
        if self.pipeline.data not in PIPELINES:
            raise VerifyException(
                f"unknown CPU pipeline {self.pipeline.data!r}; expected one of {', '.join(PIPELINES)}"
            )


@irdl_attr_definition
class LoweringConfigAttr(ParametrizedAttribute):
    """A CPU kernel's tile sizes, per tiling level (`level = [sizes]`, the
    levels sorted by name as MLIR prints a dictionary). A size in brackets
    (`[[8], 16]`) is scalable: a multiple of the vector length."""

    name = "iree_cpu.lowering_config"

    levels: ArrayAttr[StringAttr]
    sizes: ArrayAttr[ArrayAttr[IntAttr]]
    scalable: ArrayAttr[ArrayAttr[BoolAttr]]

    def __init__(
        self,
        levels: Mapping[str, Sequence[int]],
        scalable: Mapping[str, Sequence[bool]] | None = None,
    ):
        names = sorted(levels)
        flags = scalable or {}
        super().__init__(
            ArrayAttr([StringAttr(n) for n in names]),
            ArrayAttr([ArrayAttr([IntAttr(s) for s in levels[n]]) for n in names]),
            ArrayAttr(
                [
                    ArrayAttr([BoolAttr.from_bool(f) for f in flags.get(n, [False] * len(levels[n]))])
                    for n in names
                ]
            ),
        )

    def tile_sizes(self, level: str) -> list[int] | None:
        """The sizes at `level`, or None where the config has no such level."""
        for name, sizes in zip(self.levels.data, self.sizes.data):
            if name.data == level:
                return [s.data for s in sizes.data]
        return None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        levels: dict[str, list[int]] = {}
        flags: dict[str, list[bool]] = {}

        def parse_size(name: str) -> None:
            scalable = parser.parse_optional_punctuation("[") is not None
            levels[name].append(parser.parse_integer(allow_boolean=False))
            flags[name].append(scalable)
            if scalable:
                parser.parse_punctuation("]")

        def parse_level() -> None:
            pos = parser.pos
            name = parser.parse_identifier()
            if name in levels:
                parser.raise_error(f"tiling level '{name}' is given twice", pos, parser.pos)
            parser.parse_punctuation("=")
            levels[name], flags[name] = [], []
            parser.parse_comma_separated_list(AttrParser.Delimiter.SQUARE, lambda: parse_size(name))

        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation(">") is None:
            parse_level()
            while parser.parse_optional_punctuation(",") is not None:
                parse_level()
            parser.parse_punctuation(">")
        attr = cls(levels, flags)
        return (attr.levels, attr.sizes, attr.scalable)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for i, (name, sizes, flags) in enumerate(
            zip(self.levels.data, self.sizes.data, self.scalable.data)
        ):
            if i:
                printer.print_string(", ")
            printed = [
                f"[{s.data}]" if f.value.data else str(s.data)
                for s, f in zip(sizes.data, flags.data)
            ]
            printer.print_string(f"{name.data} = [{', '.join(printed)}]")
        printer.print_string(">")

    def verify(self) -> None:
        names = [n.data for n in self.levels.data]
        if names != sorted(set(names)):
            raise VerifyException(f"tiling levels must be distinct and sorted by name, got {names}")
        if len(self.sizes.data) != len(names) or len(self.scalable.data) != len(names):
            raise VerifyException("a lowering config needs one size list and one flag list per level")
        for name, sizes, flags in zip(names, self.sizes.data, self.scalable.data):
            if len(sizes.data) != len(flags.data):
                raise VerifyException(f"tiling level '{name}' has {len(sizes.data)} sizes but {len(flags.data)} scalable flags")


IREECPU = Dialect("iree_cpu", [], [PipelineAttr, LoweringConfigAttr])
