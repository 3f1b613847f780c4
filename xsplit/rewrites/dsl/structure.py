"""More of the match side's vocabulary: sets of values, the ops around the
root, and reasons said in the pattern's own words.

`constraints.py` names one value at a time (`operand(0)`, `init()`). Here:

- `operands()`, `results()`, `outputs()`, `arguments()`,
  `block_arguments()` and `values_from_above()` name a set of values. `each(test)` holds when `test`
  holds for every one of them, said of `the_value`; `capture_those(name,
  test)` captures, as a list, those for which it holds (PDLL's ranges of
  values).

      values_from_above().each(~the_value.is_tensor() | the_value.has_static_shape())

  reads "every value the root uses from above is a static tensor or no tensor".
- `parent(op)` and `enclosing(op)` are the op the root is directly in (at
  the top of its entry block) and the nearest op around it of that name;
  `where=` then holds there, as `defined_by(..., where=)` does at a producer.
- `block_holds(n)` and `terminator(op, where=)` are about the root's block;
  `region_ops(region, capture)` captures the ops of one of its regions.
- `producer_chain(value, *ops, capture=, each=)` captures the chain of
  those ops (pads, reshapes) that a value comes from, each value along it
  as `each` says.
- `because(test, "words")` is `test`, failing with the pattern's own reason,
  for remarks that tell users why an op is left as it is.

Every test here states a fact of the op tree, so each is structural as long
as the tests given to it are.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from xsplit.rewrites.dsl.constraints import (
    Constraint,
    Failure,
    Match,
    Predicate,
    ValueRef,
    is_structural,
)

_each: list[SSAValue] = []
"""The value `the_value` names while `each` or `capture_those` tries a test:
a stack, so that a set's test may itself go through another set."""


class Value(ValueRef):
    """A value, with the tests `ValueRef` has and a few more."""

    def type_is(self, *kinds: type[Attribute] | object) -> Constraint:
        """Its type is an instance of one of `kinds` (classes, or unions of them)."""
        union = functools.reduce(operator.or_, kinds)
        names = " or ".join(getattr(k, "__name__", str(k)) for k in kinds)
        return self._check(
            f"is of type {names}",
            lambda v, m: isinstance(v.type, union) or f"its type is {v.type}",  # type: ignore[arg-type]
        )

    def has_no_zero_dim(self) -> Constraint:
        """A tensor with no dimension of size 0."""

        def test(v: SSAValue, m: Match) -> bool | str:
            shape = v.type.get_shape() if isinstance(v.type, TensorType) else ()
            return 0 not in shape or f"its type {v.type} has a dimension of 0"

        return self._check("has no dimension of 0", test)

    def is_argument_of_block(self) -> Constraint:
        """An argument of the block the root is in (a function's argument,
        for an op at the top of a function)."""

        def test(v: SSAValue, m: Match) -> bool | str:
            here = m.root.parent_block()
            return (isinstance(v, BlockArgument) and v.block is here) or (
                "it is not an argument of the root's block"
            )

        return self._check("is an argument of the root's block", test)


the_value = Value("the value", lambda op: _each[-1] if _each else None)
"""The value of a set that `each` or `capture_those` is testing."""


def testing_a_set() -> bool:
    """Whether an `each` or `capture_those` is testing one of its values now:
    then `the_value` means that value, and a test's outcome depends on it."""
    return bool(_each)


def _predicate(description: str, test: Callable[[Match], bool | str | None], *inner: Constraint) -> Constraint:
    return Predicate(description, test, structural=all(is_structural(c) for c in inner))


class ValuesRef:
    """A set of values found from the match root, in order."""

    def __init__(self, description: str, find: Callable[[Match], Sequence[SSAValue] | None]):
        self.description = description
        self.find = find

    def _values(self, m: Match) -> Sequence[SSAValue] | str:
        found = self.find(m)
        return f"'{m.root.name}' has no {self.description}" if found is None else found

    def each(self, test: Constraint, why: Callable[[SSAValue, Failure], str] | None = None) -> Constraint:
        """`test`, said of `the_value`, holds for every value; else the first
        failure's reason (or `why(value, failure)`)."""

        def run(m: Match) -> bool | str:
            values = self._values(m)
            if isinstance(values, str):
                return values
            for v in values:
                _each.append(v)
                try:
                    failure = test.check(m)
                finally:
                    _each.pop()
                if failure is not None:
                    return why(v, failure) if why is not None else failure.reason
            return True

        return _predicate(f"each of the {self.description}: {test}", run, test)

    def capture_those(self, name: str, test: Constraint) -> Constraint:
        """Always holds (if the set exists); captures as `name` the list of
        values for which `test` holds."""

        def run(m: Match) -> bool | str:
            values = self._values(m)
            if isinstance(values, str):
                return values
            kept: list[SSAValue] = []
            for v in values:
                _each.append(v)
                saved = dict.copy(m.captures)  # not a read of them: `engine._Watched`
                try:
                    if test.check(m) is None:
                        kept.append(v)
                finally:
                    _each.pop()
                    m.captures.clear()
                    m.captures.update(saved)
            m.captures[name] = kept
            return True

        return _predicate(f"the {self.description} where {test} captured as ${name}", run, test)

    def capture(self, name: str) -> Constraint:
        """Always holds (if the set exists) and records the list as `name`."""

        def run(m: Match) -> bool | str:
            values = self._values(m)
            if isinstance(values, str):
                return values
            m.captures[name] = list(values)
            return True

        return _predicate(f"the {self.description} captured as ${name}", run)

    def count(self, n: int) -> Constraint:
        """There are exactly `n` of them."""

        def run(m: Match) -> bool | str:
            values = self._values(m)
            if isinstance(values, str):
                return values
            return len(values) == n or f"there are {len(values)}"

        return _predicate(f"there are {n} {self.description}", run)

    def distinct(self) -> ValuesRef:
        """The same values, each once, in order of first appearance (a
        loop's outputs, one `tensor.empty` feeding two of them)."""

        def find(m: Match) -> Sequence[SSAValue] | None:
            found = self.find(m)
            return None if found is None else list(dict.fromkeys(found))

        return ValuesRef(f"distinct {self.description}", find)

    def all_distinct(self) -> Constraint:
        """No value appears twice."""

        def run(m: Match) -> bool | str:
            values = self._values(m)
            if isinstance(values, str):
                return values
            return len(set(values)) == len(values) or "a value appears twice"

        return _predicate(f"the {self.description} are distinct", run)


def operands() -> ValuesRef:
    """The root's operands."""
    return ValuesRef("operands", lambda m: list(m.root.operands))


def results() -> ValuesRef:
    """The root's results."""
    return ValuesRef("results", lambda m: list(m.root.results))


def outputs() -> ValuesRef:
    """The root's destinations: a linalg op's `outs`, a loop's `shared_outs`."""
    return ValuesRef("outputs", lambda m: getattr(m.root, "outputs", None))


def arguments() -> ValuesRef:
    """The arguments of the root's first region's entry block (a function's
    arguments, seen from the function)."""

    def find(m: Match) -> Sequence[SSAValue] | None:
        if not m.root.regions or not m.root.regions[0].blocks:
            return None
        return list(m.root.regions[0].blocks[0].args)

    return ValuesRef("arguments", find)


def block_arguments() -> ValuesRef:
    """The arguments of the block the root is in (a function's arguments,
    for an op at the top of a function)."""

    def find(m: Match) -> Sequence[SSAValue] | None:
        block = m.root.parent_block()
        return None if block is None else list(block.args)

    return ValuesRef("arguments of its block", find)


def values_from_above() -> ValuesRef:
    """The values defined outside the root that it, or an op nested in it,
    uses, in order of first use (the values a region captures)."""
    return ValuesRef("values it uses from above", lambda m: m.defined_above())


def _at(m: Match, op: Operation, where: Constraint | None, capture: str | None) -> bool | str:
    if capture is not None:
        m.captures[capture] = op
    if where is not None and (failure := where.check(m.at(op))) is not None:
        return str(failure)
    return True


def _inner(where: Constraint | None) -> tuple[str, tuple[Constraint, ...]]:
    return (f" where {where}", (where,)) if where is not None else ("", ())


def parent(op_name: str, *, where: Constraint | None = None, capture: str | None = None) -> Constraint:
    """The root is at the top of the entry block of an `op_name` op, on
    which `where` then holds."""

    def test(m: Match) -> bool | str:
        block = m.root.parent_block()
        op = m.root.parent_op()
        if op is None or op.name != op_name or block is not op.regions[0].blocks[0]:
            return f"it is not at the top of a {op_name}"
        return _at(m, op, where, capture)

    words, inner = _inner(where)
    return _predicate(f"is at the top of a {op_name}{words}", test, *inner)


def enclosing(op_name: str, *, where: Constraint | None = None, capture: str | None = None) -> Constraint:
    """The root is nested, at any depth, in an `op_name` op; `where` holds
    on the nearest one."""

    def test(m: Match) -> bool | str:
        op = m.root.parent_op()
        while op is not None and op.name != op_name:
            op = op.parent_op()
        if op is None:
            return f"it is not inside a {op_name}"
        return _at(m, op, where, capture)

    words, inner = _inner(where)
    return _predicate(f"is inside a {op_name}{words}", test, *inner)


def block_holds(count: int) -> Constraint:
    """The block the root is in holds `count` ops, the root and terminator included."""

    def test(m: Match) -> bool | str:
        block: Block | None = m.root.parent_block()
        n = len(list(block.ops)) if block is not None else 0
        return n == count or f"it holds {n}"

    return _predicate(f"its block holds {count} op{'s' if count != 1 else ''}", test)


def terminator(op_name: str, *, where: Constraint | None = None) -> Constraint:
    """The last op of the root's block is an `op_name`, on which `where` holds."""

    def test(m: Match) -> bool | str:
        block = m.root.parent_block()
        last = block.last_op if block is not None else None
        if last is None or last.name != op_name:
            return f"its block does not end in {op_name}"
        return _at(m, last, where, None)

    words, inner = _inner(where)
    return _predicate(f"its block ends in {op_name}{words}", test, *inner)


def region_ops(region: str | int, capture: str, yielded: str | None = None) -> Constraint:
    """The root's region `region` (as its op class names it, or its index:
    `linalg.reduce` calls its body `region`, the other linalg ops `body`) is
    one block; captures its ops but the terminator as `capture`, and the
    terminator's operands as `yielded`: what a template copies into another op."""

    def test(m: Match) -> bool | str:
        if isinstance(region, int) and len(m.root.regions) <= region:
            return f"it has no region {region}"
        found = m.root.regions[region] if isinstance(region, int) else getattr(m.root, region)
        blocks = found.blocks
        if len(blocks) != 1:
            return f"it has {len(blocks)} blocks"
        ops = list(blocks[0].ops)
        if not ops:
            return "it is empty"
        m.captures[capture] = ops[:-1]
        if yielded is not None:
            m.captures[yielded] = list(ops[-1].operands)
        return True

    return _predicate(f"region {region}'s ops captured as ${capture}", test)


def producer_chain(value: ValueRef, *op_names: str, capture: str, each: Constraint) -> Constraint:
    """Captures as `capture`, in the order of the IR, the ops of `op_names`
    that `value` comes from, each from the first operand of the next (the
    pad and the expand_shape before a set_encoding); `each`, said of
    `the_value`, must hold of every value such an op gives, else it fails.
    The list is empty where `value`'s producer is none of them. A template
    copies the chain where it wants it with `$clone $capture.ops`, as
    IREE's dispatch formation pulls a pack's producers into its dispatch."""

    def run(m: Match) -> bool | str:
        v = value.find(m.root)
        if v is None:
            return f"'{m.root.name}' has no {value.description}"
        chain: list[Operation] = []
        while isinstance(v.owner, Operation) and v.owner.name in op_names:
            _each.append(v)
            try:
                failure = each.check(m)
            finally:
                _each.pop()
            if failure is not None:
                return f"the {v.owner.name} it comes from: {failure.reason}"
            chain.append(v.owner)
            v = v.owner.operands[0]
        m.captures[capture] = chain[::-1]
        return True

    names = " or ".join(op_names)
    return _predicate(
        f"the {names} ops {value.description} comes from, each {each}, captured as ${capture}",
        run,
        each,
    )


def because(test: Constraint, why: str) -> Constraint:
    """`test`, which fails with the reason `why`: a remark then tells users
    what the pattern needs in its own words."""

    def run(m: Match) -> bool | str:
        return test.check(m) is None or why

    return _predicate(str(test), run, test)


__all__: Sequence[str] = [
    "Value",
    "ValuesRef",
    "arguments",
    "because",
    "block_arguments",
    "block_holds",
    "enclosing",
    "operands",
    "outputs",
    "parent",
    "producer_chain",
    "region_ops",
    "results",
    "terminator",
    "the_value",
    "values_from_above",
]
