"""xsplit bench's numpy rival for vector forms: the entry point's inputs
are judged by shape (a vector and a matrix, in either order, batched or not,
with or without an init) and numpy computes the op; generated shapes."""

from __future__ import annotations

import random

import numpy as np

from xsplit.bench.driver import matmul_flops, numpy_matmul


def test_numpy_computes_vector_forms_from_their_inputs() -> None:
    rng = random.Random(4099)
    gen = np.random.default_rng(4099)
    for _ in range(40):
        batch = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 2)))
        k, n = rng.randint(1, 50), rng.randint(2, 30)
        x = gen.standard_normal((*batch, k)).astype(np.float32)
        transposed = rng.random() < 0.5
        w = gen.standard_normal((*batch, n, k) if transposed else (*batch, k, n)).astype(np.float32)
        want = np.einsum("...nk,...k->...n" if transposed else "...k,...kn->...n", w if transposed else x, x if transposed else w)
        inputs = [w, x] if transposed else [x, w]
        if rng.random() < 0.5:
            init = gen.standard_normal((*batch, n)).astype(np.float32)
            inputs.append(init)
            want = want + init
        call = numpy_matmul(inputs)
        assert call is not None
        np.testing.assert_allclose(call(), want, rtol=1e-5, atol=1e-5)
        assert matmul_flops(inputs) == 2.0 * np.prod(batch, dtype=np.int64) * k * n


def test_shapes_that_do_not_contract_have_no_rival() -> None:
    x = np.ones(5, np.float32)
    assert numpy_matmul([x, np.ones((4, 3), np.float32)]) is None
    assert numpy_matmul([np.ones((2, 5), np.float32), np.ones((3, 5, 4), np.float32)]) is None
    assert numpy_matmul([x, x]) is None
