"""xsplit's verifier: every op of a module, and the dominance of its uses.

xDSL's `Operation.verify` walks and checks each op on its own; a module that a
pass has grown to tens of thousands of ops repeats a few op signatures
thousands of times (a pattern builds the same ops for every function), so the
checks that depend on nothing but the signature run once per signature
(`_definitions_checked_once`), and dominance is settled in one walk where the
uses allow (`_uses_visibly_dominated`). What a user sees for bad IR is what
xDSL's verifier says, one line, located at the first op that fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, ErasedSSAValue, Operation, Region
from xdsl.irdl import OpDef
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException

from xsplit.collector import collector_paused
from xsplit.diagnostics import XsplitError
from xsplit.dialects.op_helpers import nested_ops
from xsplit.xdsl_compat import compare_attributes_by_parameters, overridden


def one_line(message: str) -> str:
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def verify_module(module: ModuleOp) -> None:
    """Verifies every op and that every use is dominated by its definition
    and inside the definition's nearest isolated-from-above op, naming the
    first op that fails by its location."""
    with collector_paused():
        ops = nested_ops(module)
        _verify_ops(ops)
        if not _uses_visibly_dominated(module):
            verify_dominance(module, ops)


def _verify_ops(ops: list[Operation]) -> None:
    with _definitions_checked_once() as signature_verified:
        for op in ops:
            try:
                if not signature_verified(op):
                    _verify_op(op)
            except Exception as e:
                message = one_line(str(e))
                if not message.startswith(f"'{op.name}' op"):
                    message = f"'{op.name}' op {message}"
                raise XsplitError(message, op) from None


def _verify_op(op: Operation) -> None:
    """`op.verify(verify_nested_ops=False)`, with the same checks and
    messages, reading the operand tuple and the region's block links where
    xDSL 0.74 makes a view of the operands and counts the region's blocks
    by walking them, for every op."""
    if type(op).verify is not _OPERATION_VERIFY or op._successors:  # pyright: ignore[reportPrivateUsage]
        op.verify(verify_nested_ops=False)
        return
    for operand in op._operands:  # pyright: ignore[reportPrivateUsage]
        if isinstance(operand, ErasedSSAValue):
            raise ValueError("Erased SSA value is used by the operation")
    block = op.parent
    region = None if block is None else block.parent
    if block is not None and region is not None and block.last_op == op:
        if region.first_block is region.last_block:
            parent = region.parent
            if (
                parent is not None
                and not parent.has_trait(NoTerminator)
                and not op.has_trait(IsTerminator)
            ):
                raise VerifyException(
                    f"Operation {op.name} terminates block in "
                    "single-block region but is not a terminator"
                )
        elif not op.has_trait(IsTerminator):
            raise VerifyException(
                f"Operation {op.name} terminates block in multi-block "
                "region but is not a terminator"
            )
    try:
        op.verify_()
    except VerifyException as err:
        op.emit_error(f"Operation does not verify: {err}", err)


_OPERATION_VERIFY = Operation.verify


def _signature_only_ops() -> tuple[type[Operation], ...]:
    """Ops whose own `verify_` reads nothing but their signature (operand
    and result types, properties, attributes, the entry block's argument
    types): slices and dispatch loads and stores check static lists against
    their dynamic operands, a fill its value's type, a structured op its
    maps against its operands' ranks and its body's argument types, and an
    `scf.forall` its bounds, outputs, results, mapping and entry arguments
    against each other. One such
    op that passed vouches for every op of the same signature; the others'
    verifiers look at the IR around them (a terminator, a region's ops)."""
    from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
    from xdsl.dialects.linalg.ops import FillOp
    from xdsl.dialects.tensor import ExtractSliceOp, InsertSliceOp

    from xsplit.dialects.iree_tensor_ext import DispatchTensorLoadOp, DispatchTensorStoreOp
    from xsplit.dialects.linalg import StructuredNamedOp
    from xsplit.dialects.scf import ForallOp
    from xsplit.dialects.tensor import ParallelInsertSliceOp

    return (
        ExtractSliceOp,
        InsertSliceOp,
        ParallelInsertSliceOp,
        ForallOp,
        FillOp,
        LinalgStructuredOperation,
        StructuredNamedOp,
        DispatchTensorLoadOp,
        DispatchTensorStoreOp,
    )


@contextmanager
def _definitions_checked_once() -> Iterator[Callable[[Operation], bool]]:
    """Checks an op against its IRDL definition once per signature, and
    yields a check that says whether an op is verified by its signature alone.

    What xDSL's `OpDef.verify` checks, the traits aside, depends only on the
    op's definition, its operand and result types, its properties and
    attributes, the block count and entry argument types of its regions and
    its successor count: the signature. A module repeats a few signatures
    thousands of times (a pass instantiates the same ops for every function),
    so each signature is checked once and the traits of every op each time.
    The same holds for the whole verifier of the ops `_signature_only_ops`
    names: the check yielded runs only their traits, and the placement checks
    of `Operation.verify`, for a signature one of them passed with. Only
    signatures that passed are remembered; an op that fails is checked, and
    reported, by xDSL itself. Attributes are compared first by identity (the
    module keeps them all alive meanwhile), then by value."""
    compare_attributes_by_parameters()
    xdsl_verify = OpDef.verify
    signature_only = _signature_only_ops()

    canon = _Canonical()

    class Seen:
        """Signatures that passed."""

        def __init__(self) -> None:
            self.passed: set[tuple[Any, ...]] = set()
            self.passed_objects: set[tuple[Any, ...]] = set()
            """The same signatures by the identity of their attribute
            objects: the ops a rewrite clones share their types and
            attributes, so most ops are found here without hashing an
            attribute. Every object named is held by the module, which
            does not change while it is verified, so no id is reused."""

        def check(self, op_def: Any, op: Operation, verify: Callable[[], None]) -> bool:
            """Runs `verify` unless `op`'s signature passed it before; says
            whether it ran."""
            properties, attributes = op.properties, op.attributes
            regions = op.regions
            objects = (
                id(op_def),
                # `_type`: what the `type` property reads, without the call.
                *[id(v._type) for v in op._operands],  # pyright: ignore[reportPrivateUsage]
                None,
                *[id(v._type) for v in op.results],  # pyright: ignore[reportPrivateUsage]
                None,
                *[_region_objects(r) for r in regions],
                None,
                *properties,
                *map(id, properties.values()),
                None,
                *attributes,
                *map(id, attributes.values()),
                len(op._successors),  # pyright: ignore[reportPrivateUsage]
            )
            if objects in self.passed_objects:
                return False
            try:
                signature = (
                    id(op_def),
                    tuple([canon(v.type) for v in op.operands]),
                    tuple([canon(v.type) for v in op.results]),
                    tuple(
                        [
                            (
                                len(r.blocks),
                                None
                                if (b := r.first_block) is None
                                else tuple(map(canon, b.arg_types)),
                            )
                            for r in regions
                        ]
                    ),
                    tuple(properties),
                    tuple(map(canon, properties.values())),
                    tuple(attributes),
                    tuple(map(canon, attributes.values())),
                    len(op.successors),
                )
            except TypeError:  # an unhashable attribute
                verify()
                return True
            if signature not in self.passed:
                verify()
                self.passed.add(signature)
                ran = True
            else:
                ran = False
            self.passed_objects.add(objects)
            return ran

    definitions, whole_verifiers = Seen(), Seen()

    # Each class's traits as a tuple (held with them, so no id is reused):
    # xDSL's `OpTraits` makes an iterator of its set through two calls, per op.
    trait_tuples: dict[int, tuple[Any, tuple[Any, ...]]] = {}

    def verify_traits(traits: Any, op: Operation) -> None:
        found = trait_tuples.get(id(traits))
        if found is None:
            found = trait_tuples[id(traits)] = (traits, tuple(traits))
        for trait in found[1]:
            trait.verify(op)

    # xDSL's verifier checks the traits after the signature: where it ran,
    # they are checked already.
    def verify(op_def: OpDef, op: Operation) -> None:
        if not definitions.check(op_def, op, lambda: xdsl_verify(op_def, op)):
            verify_traits(op_def.traits, op)

    # By class: `isinstance` against the abstract bases in `signature_only`
    # goes through ABC machinery, once per op of a large module otherwise.
    only_signature: dict[type[Operation], bool] = {}

    def signature_verified(op: Operation) -> bool:
        cls = type(op)
        known = only_signature.get(cls)
        if known is None:
            known = only_signature[cls] = issubclass(cls, signature_only)
        if not known or op._successors:  # pyright: ignore[reportPrivateUsage]
            return False
        block = op.parent
        if block is not None and block.last_op is op and not _may_end(op, block):
            return False  # Operation.verify's terminator check names it
        for v in op._operands:  # pyright: ignore[reportPrivateUsage]
            if type(v) is ErasedSSAValue:
                return False
        # Not skipped where the check ran: a verifier xsplit gives one of
        # these ops in place of xDSL's (`xsplit.dialects.slices`) checks no traits.
        whole_verifiers.check(type(op), op, lambda: op.verify(verify_nested_ops=False))
        verify_traits(type(op).traits, op)
        return True

    # `verify_dominance` checks isolation for every use in the walk it makes
    # anyway; the trait's own check walks each isolated op's body again.
    with (
        overridden(OpDef, "verify", verify),
        overridden(IsolatedFromAbove, "verify", _isolation_checked_with_dominance),
    ):
        yield signature_verified


class _Canonical:
    """Attributes by value, for signatures: maps each attribute object to the
    id of the first equal one seen. xDSL hashes an attribute through all its
    parameters every time; a module's ops share most of their attribute
    objects (clones share them), so each object is hashed once here, and a
    signature is then a tuple of small ints. Every object looked at is kept
    alive while this lives, so that no id is reused."""

    def __init__(self) -> None:
        self.ids: dict[int, int] = {}
        self.first: dict[Any, Any] = {}
        self.alive: list[Any] = []

    def __call__(self, attr: Any) -> int:
        found = self.ids.get(id(attr))
        if found is None:
            found = id(self.first.setdefault(attr, attr))
            self.ids[id(attr)] = found
            self.alive.append(attr)
        return found


def _region_objects(region: Region) -> tuple[Any, ...]:
    """A region's part of a signature by identity: its block count and its
    entry block's argument types."""
    block = region.first_block
    if block is None:
        return ()
    count = 1
    after = block.next_block
    while after is not None:
        count += 1
        after = after.next_block
    return (count, *[id(arg.type) for arg in block.args])


def _may_end(op: Operation, block: Block) -> bool:
    """Whether `Operation.verify`'s checks of the op that ends a block pass
    for `op`: it is a terminator, or its region has one block and its
    parent op needs none (`scf.forall.in_parallel`)."""
    region = block.parent
    if region is None:
        return True
    if region.first_block is region.last_block:
        parent = region.parent
        if parent is None or parent.has_trait(NoTerminator):
            return True
    return op.has_trait(IsTerminator)


def _isolation_checked_with_dominance(self: IsolatedFromAbove, op: Operation) -> None:
    """`IsolatedFromAbove.verify` while `verify_module` runs: its
    `verify_dominance` checks that each use lies inside its definition's
    nearest isolated op."""


def _uses_visibly_dominated(top: Operation) -> bool:
    """Whether every operand in `top` is one `verify_dominance` accepts, seen
    in one walk that carries the values visible at each op: the entry
    arguments and the earlier results of its block and of the blocks around
    it, up to the nearest isolated op, and all of a module body's results (a
    graph region). False where that does not settle it (a use it does not
    see, a region of several blocks): `verify_dominance` then decides and
    names the op at fault. Values are kept by `id`, as SSA values hash in
    Python."""

    isolated_classes: dict[type[Operation], bool] = {}

    def visit(op: Operation, visible: set[int]) -> bool:
        isolated = isolated_classes.get(type(op))
        if isolated is None:
            # A class's traits (`has_trait` is a class method) do not change
            # while a module is verified.
            isolated = op.has_trait(IsolatedFromAbove, value_if_unregistered=False)
            isolated_classes[type(op)] = isolated
        graph = isinstance(op, ModuleOp)
        for region in op.regions:
            block = region.first_block
            if block is None:
                continue
            if block.next_block is not None:
                return False
            inside = set() if isolated else set(visible)
            inside.update(map(id, block.args))
            if graph:
                for inner in block.ops:
                    inside.update(map(id, inner.results))
            inner = block.first_op
            while inner is not None:
                for operand in inner._operands:  # pyright: ignore[reportPrivateUsage]
                    if id(operand) not in inside:
                        return False
                # An op's own regions do not see its results.
                if inner.regions and not visit(inner, inside):
                    return False
                inside.update(map(id, inner.results))
                inner = inner.next_op
        return True

    return visit(top, set())


def verify_dominance(module: ModuleOp, ops: list[Operation] | None = None) -> None:
    """Each operand is defined before its use in the same block, or in a block
    that encloses it, and inside the nearest op isolated from above that
    encloses the use. Uses across the blocks of one region (a CFG) are left to
    iree-opt: xsplit's passes do not create them. `ops` is the module's ops in
    walk order, where the caller has them."""
    order: dict[Block, dict[Operation, int]] = {}
    scopes: dict[Block, Operation | None] = {}

    def scope(block: Block) -> Operation | None:
        """The nearest op isolated from above that holds `block`."""
        if block not in scopes:
            owner = block.parent_op()
            if owner is None:
                scopes[block] = None
            # An op xsplit carries without knowing it (iree-opt verified it)
            # counts as not isolated: xDSL's default, isolated, rejects every
            # value its body (a tensor.generate's yield) reads from above.
            elif owner.has_trait(IsolatedFromAbove, value_if_unregistered=False):
                scopes[block] = owner
            else:
                outer = owner.parent_block()
                scopes[block] = None if outer is None else scope(outer)
        return scopes[block]

    def position(op: Operation, block: Block) -> int:
        if block not in order:
            order[block] = {o: i for i, o in enumerate(block.ops)}
        return order[block][op]

    def dominates(definer: Operation | Block, user: Operation) -> bool:
        def_block = definer if isinstance(definer, Block) else definer.parent_block()
        if def_block is None:
            return True
        current: Operation | None = user
        while current is not None:
            block = current.parent_block()
            if block is None:
                return False
            if block is def_block:
                if isinstance(definer, Block) or isinstance(block.parent_op(), ModuleOp):
                    return True  # a block argument, or a graph region
                return definer is not current and position(definer, block) < position(
                    current, block
                )
            if block.parent is def_block.parent:
                return True
            current = block.parent_op()
        return False

    for op in module.walk() if ops is None else ops:
        operands = op.operands
        if not operands:
            continue
        use_block = op.parent_block()
        use_scope = None if use_block is None else scope(use_block)
        for index, operand in enumerate(operands):
            owner = operand.owner
            def_block = owner if isinstance(owner, Block) else owner.parent_block()
            if def_block is not None and scope(def_block) is not use_scope:
                isolated = use_scope.name if use_scope is not None else "module"
                raise XsplitError(
                    f"'{op.name}' op uses a value defined outside its isolated-from-above "
                    f"parent '{isolated}' (operand #{index})",
                    op,
                )
            if not dominates(owner, op):
                raise XsplitError(
                    f"operand #{index} of '{op.name}' does not dominate this use", op
                )


__all__ = ["one_line", "verify_dominance", "verify_module"]
