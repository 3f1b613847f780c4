"""A user pattern file for xsplit: folds a zero-initialised matmul into the
add that follows it.

    %zero = linalg.fill ins(%cst0 : f32) outs(%e : T) -> T
    %mm = linalg.matmul ins(%a, %b : ...) outs(%zero : T) -> T
    %r = arith.addf %mm, %c : T          (or %c, %mm)
becomes
    %r = linalg.matmul ins(%a, %b : ...) outs(%c : T) -> T

Run it with
    xsplit-opt --load-patterns examples/patterns/fold_zero_init.py -p fold-zero-init in.mlir
"""

from xsplit.rewrites.dsl import Pass, Pattern, Template, init, input, operand


def zero_initialised_matmul(i: int):
    """Operand `i` is a matmul, used only here, whose init is a fill of 0."""
    return operand(i).has_one_use() & operand(i).defined_by(
        "linalg.matmul",
        where=input(0).capture("a")
        & input(1).capture("b")
        & init().defined_by("linalg.fill", where=input(0).is_constant(0)),
    )


FOLD_ZERO_INIT = Pattern(
    name="fold-zero-init-matmul-into-add",
    doc="A*B (from a zero init) + C becomes one matmul accumulating into C",
    root="arith.addf",
    where=(zero_initialised_matmul(0) & operand(1).capture("c"))
    | (zero_initialised_matmul(1) & operand(0).capture("c")),
    rewrite=Template(
        "%r = linalg.matmul ins($a, $b : $a.type, $b.type) outs($c : $c.type) -> $c.type"
    ),
)

Pass(
    "fold-zero-init",
    "Folds zero-initialised matmuls into the adds that follow them.",
    [FOLD_ZERO_INIT],
)
