"""A user's own split-K, written as the IR it produces: a static matmul whose
K the chunk count divides becomes one matmul per chunk of K, from zero, and
a chain of adds that sums them into C.

    %r = linalg.matmul ins(%a, %b) outs(%c)          (K = 8, chunks=2)
becomes
    %a0 = tensor.extract_slice %a[0, 0] [M, 4] [1, 1]
    %b0 = tensor.extract_slice %b[0, 0] [4, N] [1, 1]
    %p0 = linalg.matmul ins(%a0, %b0) outs(%zero)
    ... the same for chunk 1, at offset 4 ...
    %acc0 = arith.addf %c, %p0
    %acc1 = arith.addf %acc0, %p1

Run it with
    xsplit-opt --load-patterns examples/patterns/split_k_unrolled.py \\
        -p 'split-k-unrolled{chunks=2}' examples/matmul_plus_c.mlir
"""

from xdsl.dialects.builtin import TensorType

from xsplit.rewrites.dsl import (
    Option,
    Pass,
    Pattern,
    Template,
    dim,
    init,
    input,
    no_discardable_attributes,
    number,
    option,
    positive,
    root_is,
)

# The match side: an op tree with captures and typed constraints; the
# matmul's dimensions are named, K once on A and again on B.
STATIC_MATMUL = (
    root_is("linalg.matmul")
    & no_discardable_attributes()
    & input(0).has_static_shape()
    & input(1).has_static_shape()
    & init().has_static_shape()
    & input(0).has_shape("M", "K")
    & input(1).has_shape("K", "N")
    & init().has_shape("M", "N")
    & input(0).capture("a")
    & input(1).capture("b")
    & init().capture("c")
)

# The numbers: relations among named dimensions and options are match
# constraints, and the same numbers fill the template's holes.
CHUNKS = number(option("chunks"))
CHUNK = dim("K") // CHUNKS


# What arithmetic on numbers does not say, a small named helper computes.
def offsets(m) -> list[int]:
    return [s * CHUNK(m) for s in range(CHUNKS(m))]


def a_chunk_type(m) -> TensorType:
    return TensorType(m["a"].type.element_type, [dim("M")(m), CHUNK(m)])


def b_chunk_type(m) -> TensorType:
    return TensorType(m["b"].type.element_type, [CHUNK(m), dim("N")(m)])


SPLIT_K_UNROLLED = Pattern(
    name="split-k-unrolled",
    doc="a static matmul as one matmul per chunk of K, summed into C",
    root="linalg.matmul",
    where=STATIC_MATMUL & (CHUNKS > 1) & (dim("K") % CHUNKS == 0),
    rewrite=Template(
        """
%zero = arith.constant 0.0 : $c.element_type
%empty = tensor.empty() : $c.type
%init = linalg.fill ins(%zero : $c.element_type) outs(%empty : $c.type) -> $c.type
$for s in $chunks:
%a$s = tensor.extract_slice $a[0, $offsets[$s]] [$rows, $chunk] [1, 1] : $a.type to $a_chunk_type
%b$s = tensor.extract_slice $b[$offsets[$s], 0] [$chunk, $columns] [1, 1] : $b.type to $b_chunk_type
%p$s = linalg.matmul ins(%a$s, %b$s : $a_chunk_type, $b_chunk_type) outs(%init : $c.type) -> $c.type
$end
%acc0 = arith.addf $c, %p0 : $c.type
$for s in 1..$chunks:
%acc$s = arith.addf %acc$s.prev, %p$s : $c.type
$end
""",
        chunks=CHUNKS,
        chunk=CHUNK,
        offsets=offsets,
        rows=dim("M"),
        columns=dim("N"),
        a_chunk_type=a_chunk_type,
        b_chunk_type=b_chunk_type,
    ),
    options=["chunks"],
)

Pass(
    "split-k-unrolled",
    "Splits static matmuls into one matmul per chunk of K, summed into C.",
    [SPLIT_K_UNROLLED],
    options=[Option("chunks", int, 2, "the number of chunks of K", check=positive)],
)
