"""xsplit's declarative rewrite DSL.

A pattern is declared, not coded: its match side is data (`Constraint`s on the
root op, its operands, their producers and the pass options, with named
captures), and its rewrite reads like the IR it produces (a `Template` of MLIR
text with `$capture` holes, or builder calls that mirror the ops). Patterns
group into a `Pass` with typed `Option`s; the engine applies them greedily to a
fixpoint, deterministically, and can count what fired and explain what did not.
"""

from xsplit.analysis.shapes import divides, is_static, static_shape
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.constraints import (
    ALWAYS,
    Constraint,
    Failure,
    Match,
    attr,
    init,
    input,
    is_structural,
    iterators,
    leaves,
    no_discardable_attributes,
    no_discardable_attributes_but,
    not_inside,
    operand,
    operand_group_size,
    option,
    reduction_loops,
    region_blocks,
    result,
    root_is,
    where,
)
from xsplit.rewrites.dsl.declared_pass import PASSES, Option, OptionError, Pass
from xsplit.rewrites.dsl.engine import engine_settings
from xsplit.rewrites.dsl.numbers import (
    Number,
    captured,
    cases,
    ceildiv,
    dim,
    minimum,
    number,
    parent_is,
    some_operand,
)
from xsplit.rewrites.dsl.pattern import Check, Pattern, Remark, positive
from xsplit.rewrites.dsl.template import Template, UpdateRoot

__all__ = [
    "ALWAYS",
    "PASSES",
    "Check",
    "Constraint",
    "Failure",
    "IRBuilder",
    "Number",
    "Match",
    "Option",
    "OptionError",
    "Pass",
    "Pattern",
    "Remark",
    "Template",
    "UpdateRoot",
    "attr",
    "captured",
    "cases",
    "ceildiv",
    "dim",
    "divides",
    "engine_settings",
    "init",
    "input",
    "is_static",
    "is_structural",
    "iterators",
    "leaves",
    "minimum",
    "no_discardable_attributes",
    "no_discardable_attributes_but",
    "not_inside",
    "number",
    "operand",
    "operand_group_size",
    "parent_is",
    "option",
    "positive",
    "reduction_loops",
    "region_blocks",
    "result",
    "root_is",
    "some_operand",
    "static_shape",
    "where",
]
