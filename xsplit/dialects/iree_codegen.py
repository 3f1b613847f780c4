"""The parts of IREE's `iree_codegen` dialect that a custom dispatch needs.

A kernel written by hand carries
`translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [256, 1, 1]>`:
IREE then lowers its ops as they are, with that many threads per workgroup,
instead of tiling and distributing it with one of its own pipelines.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntAttr, NoneAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

TRANSLATION_INFO = "translation_info"
"""The function attribute that names a kernel's codegen pipeline."""


@irdl_attr_definition
class NoPipelineAttr(ParametrizedAttribute):
    """The pipeline that leaves a kernel's ops as written."""

    name = "iree_codegen.no_pipeline"


@irdl_attr_definition
class TranslationInfoAttr(ParametrizedAttribute):
    """How IREE lowers one kernel: its pipeline, workgroup size and subgroup size."""

    name = "iree_codegen.translation_info"

    pipeline: Attribute
    workgroup_size: ArrayAttr[IntAttr]
    subgroup_size: IntAttr
    configuration: DictionaryAttr | NoneAttr
    """The `, {...}` dictionary, or none; an empty one given is kept, as MLIR keeps it."""

    def __init__(
        self,
        pipeline: Attribute | None = None,
        workgroup_size: Sequence[int] = (),
        subgroup_size: int = 0,
        configuration: DictionaryAttr | None = None,
    ):
        super().__init__(
            pipeline or NoPipelineAttr(),
            ArrayAttr([IntAttr(n) for n in workgroup_size]),
            IntAttr(subgroup_size),
            configuration or NoneAttr(),
        )

    @property
    def workgroup_sizes(self) -> list[int]:
        return [a.data for a in self.workgroup_size.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return cls.parse_body(parser)

    @classmethod
    def parse_body(cls, parser: AttrParser) -> Sequence[Attribute]:
        """The parameters between the angle brackets."""
        sizes: list[int] = []
        subgroup = 0
        config: Attribute = NoneAttr()
        parser.parse_keyword("pipeline")
        parser.parse_punctuation("=")
        pipeline = parser.parse_attribute()
        if parser.parse_optional_keyword("workgroup_size") is not None:
            parser.parse_punctuation("=")
            sizes = parser.parse_comma_separated_list(
                AttrParser.Delimiter.SQUARE,
                lambda: parser.parse_integer(allow_boolean=False, allow_negative=False),
            )
        if parser.parse_optional_keyword("subgroup_size") is not None:
            parser.parse_punctuation("=")
            subgroup = parser.parse_integer(allow_boolean=False, allow_negative=False)
        if parser.parse_optional_punctuation(","):
            pos = parser.pos
            config = parser.parse_attribute()
            if not isinstance(config, DictionaryAttr):
                parser.raise_error("expected a configuration dictionary", pos, parser.pos)
        return (pipeline, ArrayAttr([IntAttr(n) for n in sizes]), IntAttr(subgroup), config)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<pipeline = ")
        printer.print_attribute(self.pipeline)
        if self.workgroup_size.data:
            printer.print_string(" workgroup_size = [")
            printer.print_list(self.workgroup_sizes, lambda n: printer.print_string(str(n)))
            printer.print_string("]")
        if self.subgroup_size.data:
            printer.print_string(f" subgroup_size = {self.subgroup_size.data}")
        if isinstance(self.configuration, DictionaryAttr):
            printer.print_string(", ")
            printer.print_attribute(self.configuration)
        printer.print_string(">")

    def verify(self) -> None:
        if len(self.workgroup_size.data) > 3 or any(n <= 0 for n in self.workgroup_sizes):
            raise VerifyException(
                f"translation_info workgroup_size must be at most 3 positive sizes, got {self.workgroup_sizes}"
            )


COMPILATION_INFO = "compilation_info"
"""The op attribute that fixes how IREE compiles the dispatch the op roots."""


@irdl_attr_definition
class CompilationInfoAttr(ParametrizedAttribute):
    """A configuration chosen outside IREE for one op: its tile sizes (a
    backend's lowering config, e.g. `#iree_cpu.lowering_config`) and the
    pipeline that lowers its dispatch. IREE's own configuration pass then
    leaves that dispatch as configured. The translation info is printed
    without its `#iree_codegen.translation_info` prefix, as MLIR prints it."""

    name = "iree_codegen.compilation_info"

    lowering_config: Attribute
    translation_info: TranslationInfoAttr

    def __init__(self, lowering_config: Attribute, translation_info: TranslationInfoAttr):
        super().__init__(lowering_config, translation_info)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            parser.parse_keyword("lowering_config")
            parser.parse_punctuation("=")
            config = parser.parse_attribute()
            parser.parse_punctuation(",")
            parser.parse_keyword("translation_info")
            parser.parse_punctuation("=")
            pos = parser.pos
            # MLIR elides the mnemonic of a parameter whose attribute class is
            # fixed, and reads either form.
            if parser.parse_optional_punctuation("<") is not None:
                translation = TranslationInfoAttr.new(TranslationInfoAttr.parse_body(parser))
                parser.parse_punctuation(">")
            else:
                translation = parser.parse_attribute()
            if not isinstance(translation, TranslationInfoAttr):
                parser.raise_error("expected #iree_codegen.translation_info", pos, parser.pos)
        return (config, translation)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<lowering_config = ")
        printer.print_attribute(self.lowering_config)
        printer.print_string(", translation_info = ")
        self.translation_info.print_parameters(printer)
        printer.print_string(">")


IREECodegen = Dialect(
    "iree_codegen", [], [NoPipelineAttr, TranslationInfoAttr, CompilationInfoAttr]
)
