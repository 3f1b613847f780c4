"""The parts of IREE's `iree_gpu` dialect that set a GPU kernel's tiles.

An op in a dispatch can carry its own configuration, which IREE's GPU
backends (CUDA, ROCm) then use instead of choosing one:

    linalg.generic {compilation_info = #iree_codegen.compilation_info<
        lowering_config = #iree_gpu.lowering_config<{promote_operands = [0, 1],
            reduction = [0, 0, 32], thread = [4, 4, 0], workgroup = [64, 64, 0]}>,
        translation_info = <pipeline = #iree_gpu.pipeline<TileAndFuse>
            workgroup_size = [16, 16, 1] subgroup_size = 32,
            {gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}>>} ...

The lowering config is a dictionary, its keys sorted as MLIR prints one:
`workgroup` is a workgroup's tile per loop (0: not tiled), `thread` a
thread's, `reduction` the reduction loop's step (in elements, or in
intrinsics' K where an `mma_kind` is given), `promote_operands` the operands
staged through shared memory, `mma_kind` the tensor-core intrinsic
(`#iree_gpu.mma_layout`), `subgroup` and `padding` the intrinsic path's
subgroup tile and padded shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

PIPELINES = (
    "Default",
    "BaseLowering",
    "Distribute",
    "Vectorize",
    "VectorDistribute",
    "WinogradVectorize",
    "TileAndFuse",
)
"""The GPU lowering pipelines IREE 3.13 knows."""

MMA_FAMILIES = ("MFMA_", "WMMA_", "WMMAR3_", "WMMAR4_", "NV_MMA_SYNC_", "NV_WMMA_")
"""The prefixes of IREE 3.13's MMA intrinsics: AMD's MFMA and WMMA, NVIDIA's mma.sync and wmma."""

REORDER_STRATEGIES = ("None", "Transpose")


def _parse_enum(parser: AttrParser, what: str, allowed: Sequence[str] | None = None) -> str:
    with parser.in_angle_brackets():
        pos = parser.pos
        name = parser.parse_identifier()
        if allowed is not None and name not in allowed:
            parser.raise_error(f"expected {what}, one of {', '.join(allowed)}", pos, parser.pos)
    return name


@irdl_attr_definition
class PipelineAttr(ParametrizedAttribute):
    """One of IREE's GPU codegen pipelines, by name (`PIPELINES`)."""

    name = "iree_gpu.pipeline"

    pipeline: StringAttr

    def __init__(self, pipeline: str):
        super().__init__(StringAttr(pipeline))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (StringAttr(_parse_enum(parser, "a GPU pipeline", PIPELINES)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pipeline.data}>")

    def verify(self) -> None:
        if self.pipeline.data not in PIPELINES:
            raise VerifyException(
                f"unknown GPU pipeline {self.pipeline.data!r}; "
                f"expected one of {', '.join(PIPELINES)}"
            )


@irdl_attr_definition
class MmaLayoutAttr(ParametrizedAttribute):
    """A tensor-core intrinsic (`NV_MMA_SYNC_F32_16x8x16_F16`, `MFMA_F32_16x16x16_F16`, ...)."""

    name = "iree_gpu.mma_layout"

    intrinsic: StringAttr

    def __init__(self, intrinsic: str):
        super().__init__(StringAttr(intrinsic))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            name = parser.parse_identifier()
            if not name.startswith(MMA_FAMILIES):
                families = ", ".join(MMA_FAMILIES)
                parser.raise_error(f"expected an MMA intrinsic (starting {families})", pos, parser.pos)
        return (StringAttr(name),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.intrinsic.data}>")

    def verify(self) -> None:
        if not self.intrinsic.data.startswith(MMA_FAMILIES):
            raise VerifyException(f"unknown MMA intrinsic {self.intrinsic.data!r}")


OPTION_FIELDS = (
    "prefetch_num_stages",
    "no_reduce_shared_memory_bank_conflicts",
    "use_igemm_convolution",
    "reorder_workgroups_strategy",
)
"""The pipeline options, in the order IREE prints them."""

@irdl_attr_definition
class PipelineOptionsAttr(ParametrizedAttribute):
    """Options of the GPU pipelines, each optional, printed in IREE's order
    (`prefetch_num_stages`, `no_reduce_shared_memory_bank_conflicts`,
    `use_igemm_convolution`, `reorder_workgroups_strategy`)."""

    name = "iree_gpu.pipeline_options"

    prefetch_num_stages: IntAttr | NoneAttr
    no_reduce_shared_memory_bank_conflicts: IntegerAttr | NoneAttr
    use_igemm_convolution: IntegerAttr | NoneAttr
    reorder_workgroups_strategy: StringAttr | NoneAttr

    def __init__(
        self,
        prefetch_num_stages: int | None = None,
        no_reduce_shared_memory_bank_conflicts: bool | None = None,
        use_igemm_convolution: bool | None = None,
        reorder_workgroups_strategy: str | None = None,
    ):
        def flag(value: bool | None) -> IntegerAttr | NoneAttr:
            return NoneAttr() if value is None else IntegerAttr.from_bool(value)

        super().__init__(
            NoneAttr() if prefetch_num_stages is None else IntAttr(prefetch_num_stages),
            flag(no_reduce_shared_memory_bank_conflicts),
            flag(use_igemm_convolution),
            NoneAttr()
            if reorder_workgroups_strategy is None
            else StringAttr(reorder_workgroups_strategy),
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        given: dict[str, object] = {}

        def parse_field() -> None:
            pos = parser.pos
            name = parser.parse_identifier()
            if name not in OPTION_FIELDS or name in given:
                parser.raise_error(
                    f"expected one of {', '.join(f for f in OPTION_FIELDS if f not in given)}",
                    pos,
                    parser.pos,
                )
            parser.parse_punctuation("=")
            if name == "prefetch_num_stages":
                given[name] = parser.parse_integer(allow_boolean=False, allow_negative=False)
            elif name == "reorder_workgroups_strategy":
                given[name] = _parse_enum(parser, "a workgroup reordering", REORDER_STRATEGIES)
            else:
                given[name] = parser.parse_boolean()

        with parser.in_angle_brackets():
            if parser._current_token.text != ">":  # noqa: SLF001
                parse_field()
                while parser.parse_optional_punctuation(",") is not None:
                    parse_field()
        attr = cls(**given)  # type: ignore[arg-type]
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        parts = []
        for name, value in zip(OPTION_FIELDS, self.parameters):
            if isinstance(value, IntAttr):
                parts.append(f"{name} = {value.data}")
            elif isinstance(value, IntegerAttr):
                parts.append(f"{name} = {'true' if value.value.data else 'false'}")
            elif isinstance(value, StringAttr):
                parts.append(f"{name} = <{value.data}>")
        printer.print_string(f"<{', '.join(parts)}>")

    def verify(self) -> None:
        if isinstance(self.prefetch_num_stages, IntAttr) and self.prefetch_num_stages.data < 0:
            raise VerifyException("prefetch_num_stages must not be negative")
        if (
            isinstance(self.reorder_workgroups_strategy, StringAttr)
            and self.reorder_workgroups_strategy.data not in REORDER_STRATEGIES
        ):
            raise VerifyException(
                f"unknown workgroup reordering {self.reorder_workgroups_strategy.data!r}"
            )


TILE_LEVELS = ("workgroup", "reduction", "thread", "subgroup", "padding", "promote_operands")
"""The entries of a GPU lowering config that are lists of integers."""


@irdl_attr_definition
class LoweringConfigAttr(ParametrizedAttribute):
    """A GPU kernel's configuration: a dictionary whose integer-list entries
    (`TILE_LEVELS`, or any other list) print as `[a, b]`, a unit entry
    (`convert_acc_gemm`) as its bare name and any other entry as its
    attribute, all sorted by name."""

    name = "iree_gpu.lowering_config"

    config: DictionaryAttr

    def __init__(self, entries: Mapping[str, Sequence[int] | Attribute]):
        values: dict[str, Attribute] = {}
        for key in sorted(entries):
            value = entries[key]
            values[key] = (
                value if isinstance(value, Attribute) else ArrayAttr([IntAttr(v) for v in value])
            )
        super().__init__(DictionaryAttr(values))

    def get(self, key: str) -> Attribute | None:
        return self.config.data.get(key)

    def tile_sizes(self, level: str) -> list[int] | None:
        """The sizes at `level`, or None where the config has no such entry."""
        value = self.get(level)
        if not isinstance(value, ArrayAttr):
            return None
        return [v.data for v in value.data]  # type: ignore[union-attr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        entries: dict[str, Sequence[int] | Attribute] = {}

        def parse_entry() -> None:
            pos = parser.pos
            key = parser.parse_identifier()
            if key in entries:
                parser.raise_error(f"'{key}' is given twice", pos, parser.pos)
            if parser.parse_optional_punctuation("=") is None:
                entries[key] = UnitAttr()
            elif parser._current_token.text == "[":  # noqa: SLF001
                entries[key] = parser.parse_comma_separated_list(
                    AttrParser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
                )
            else:
                entries[key] = parser.parse_attribute()

        with parser.in_angle_brackets():
            parser.parse_punctuation("{")
            if parser.parse_optional_punctuation("}") is None:
                parse_entry()
                while parser.parse_optional_punctuation(",") is not None:
                    parse_entry()
                parser.parse_punctuation("}")
        return (cls(entries).config,)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<{")
        for i, (key, value) in enumerate(self.config.data.items()):
            if i:
                printer.print_string(", ")
            if isinstance(value, UnitAttr):
                printer.print_string(key)
                continue
            printer.print_string(f"{key} = ")
            if isinstance(value, ArrayAttr) and all(isinstance(v, IntAttr) for v in value.data):
                sizes = ", ".join(str(v.data) for v in value.data)  # type: ignore[union-attr]
                printer.print_string(f"[{sizes}]")
            elif isinstance(value, IntegerAttr):
                printer.print_string(f"{value.value.data} : ")
                printer.print_attribute(value.type)
            else:
                printer.print_attribute(value)
        printer.print_string("}>")

    def verify(self) -> None:
        keys = list(self.config.data)
        if keys != sorted(keys):
            raise VerifyException(f"lowering config entries must be sorted by name, got {keys}")
        for level in TILE_LEVELS:
            value = self.get(level)
            if value is not None and not (
                isinstance(value, ArrayAttr) and all(isinstance(v, IntAttr) for v in value.data)
            ):
                raise VerifyException(f"'{level}' must be a list of integers")
        kind = self.get("mma_kind")
        if kind is not None and not isinstance(kind, MmaLayoutAttr):
            raise VerifyException("'mma_kind' must be an #iree_gpu.mma_layout")


IREEGPU = Dialect(
    "iree_gpu", [], [PipelineAttr, MmaLayoutAttr, PipelineOptionsAttr, LoweringConfigAttr]
)
