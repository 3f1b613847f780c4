"""A rewritten program's form: what decides how iree-compile takes it."""

from __future__ import annotations

import re


def program_form(text: str) -> str:
    """`text` with its numbers blanked (shapes, chunk sizes, SSA names), the
    element types kept (`f16`, `i8`, `bf16` stay apart): two rewritten
    programs of one form differ only in numbers, and iree-compile takes both
    the same way, so one compile of the form stands for both (issue 38 item
    6: one compiled representative per form and target).

    >>> program_form("%0 = tensor.empty() : tensor<16x1009xf16>")
    '%# = tensor.empty() : tensor<#x#xf16>'
    """
    return re.sub(r"(?<![fi\d])\d+", "#", text)
