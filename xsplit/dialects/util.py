"""A minimal `util` dialect: IREE's `util.func` and `util.return`, enough for
the functions `iree-compile --compile-to=input` prints to be read, split and
printed back. Other `util` ops and attributes (`util.global`, tied results,
`#util.inline.*`) are left to the front end's opaque handling.

`util.func` reads and prints as `func.func` does, in iree-opt's syntax:
`util.func [public|private] @name(%arg: type {attrs}) -> (type {attrs})
[attributes {...}] { ... }`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, StringAttr
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    ReturnLike,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

_RESERVED = ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")


@irdl_op_definition
class FuncOp(IRDLOperation):
    """`util.func`: a function, as IREE's input programs define them."""

    name = "util.func"

    body = region_def()
    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    tied_operands = opt_prop_def(ArrayAttr)
    inlining_policy = opt_prop_def(Attribute)
    """`#util.inline.never` and its kind, as `iree-import-onnx`'s `$async`
    functions carry it; a property in MLIR's generic form, printed among the
    attributes in the custom one."""

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        function_type: FunctionType,
        region: Region | None = None,
        visibility: str | None = None,
        *,
        arg_attrs: ArrayAttr[DictionaryAttr] | None = None,
        res_attrs: ArrayAttr[DictionaryAttr] | None = None,
    ):
        if region is None:
            region = Region(Block(arg_types=function_type.inputs))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": function_type,
                "sym_visibility": StringAttr(visibility) if visibility else None,
                "arg_attrs": arg_attrs,
                "res_attrs": res_attrs,
            },
            regions=[region],
        )

    def verify_(self) -> None:
        if not self.body.blocks:
            return
        entry = self.body.blocks.first
        assert entry is not None
        if self.function_type.inputs.data != tuple(entry.arg_types):
            raise VerifyException(
                "'util.func' op entry block arguments must have the function's input types"
            )

    def _printed_attributes(self) -> dict[str, Attribute]:
        if self.inlining_policy is None:
            return dict(self.attributes)
        merged = {"inlining_policy": self.inlining_policy, **self.attributes}
        return dict(sorted(merged.items()))  # as MLIR's sorted attribute dictionary prints

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        visibility = parser.parse_optional_visibility_keyword()
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=_RESERVED
        )
        func = cls(
            name,
            FunctionType.from_lists(inputs, outputs),
            region,
            visibility.data if visibility else None,
            arg_attrs=arg_attrs,
            res_attrs=res_attrs,
        )
        if extra is not None:
            attrs = dict(extra.data)
            if "inlining_policy" in attrs:
                func.inlining_policy = attrs.pop("inlining_policy")
            func.attributes |= attrs
        return func

    def print(self, printer: Printer) -> None:
        if self.sym_visibility:
            printer.print_string(f" {self.sym_visibility.data}")
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self._printed_attributes(),
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=_RESERVED,
        )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`util.return`: the terminator of a `util.func`."""

    name = "util.return"
    arguments = var_operand_def()

    # No HasParent: a util.func that xsplit carries opaquely (one with
    # attributes its class does not model) still holds a util.return.
    traits = traits_def(IsTerminator(), ReturnLike())

    assembly_format = "attr-dict ($arguments^ `:` type($arguments))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        func = self.parent_op()
        if not isinstance(func, FuncOp):
            return
        # iree-opt's wording, so that a message does not depend on which
        # reader took the module.
        expected: Sequence[Attribute] = func.function_type.outputs.data
        got = self.arguments.types
        if len(expected) != len(got):
            raise VerifyException(
                f"'util.return' op has {len(got)} operands, but enclosing "
                f"function-like op returns {len(expected)}"
            )
        for i, (want, have) in enumerate(zip(expected, got)):
            if want != have:
                raise VerifyException(
                    f"'util.return' op type of return operand {i} ('{have}') doesn't "
                    f"match function result type ('{want}')"
                )


Util = Dialect("util", [FuncOp, ReturnOp], [])
