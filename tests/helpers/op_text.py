"""Where MLIR op text sits in Python strings (issue 38: none outside templates).

Op text is a line of MLIR that defines or runs an op: `%x = linalg.fill ...`,
or a line opening with `dialect.op` then an operand, `ins(`, a symbol or a
region (`func.func @f`, `flow.return %v`). An op's bare name (`"linalg.matmul"`
in a match) is not op text, nor is prose naming one.

A string with op text is in its place when it is

- a docstring (module, class, function, or the string after an assignment);
- in a diagnostic's call (`XsplitError(...)`, `remark(...)`), which may quote IR;
- template text: a plain literal (no f-string), alone or joined by `+` (or
  filled by `.format`, the receiver only), that is the text argument of a
  `...Template(...)` call, or is assigned to a name such a call reads, or that
  a call of a function of the module that makes templates is given.

Anything else (an f-string, text joined in a function that is not a
template's, a program written as text and parsed) is an offender.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

_DIALECT_OP = (
    r"(?:linalg|tensor|arith|scf|flow|func|memref|gpu|affine|vector|math|iree_[a-z_]+|hal|"
    r"util|stream|rock|xsplit(?:_[a-z_]+)?|nvgpu|amdgpu|llvm|nvvm|rocdl|bufferization|cf)"
    r"\.[a-z_][\w.]*"
)
OP_TEXT = re.compile(
    r"%[\w#:$.{}\-]+\s*=\s*" + _DIALECT_OP + r"|(?:^|\n)\s*" + _DIALECT_OP + r"\s+(?:%|ins\(|@|\{)"
)
DIAGNOSTICS = frozenset({"XsplitError", "remark", "warning", "error"})


def _called(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _is_template_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _called(node).endswith("Template")


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for statement in body if isinstance(body, list) else []:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                found.add(id(statement.value))
    return found


def _text_parts(expr: ast.expr) -> list[ast.Constant] | None:
    """The literals `expr` joins by `+` (a `.format` receiver's too), or None
    where it builds text any other way; a name adds no literal."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _text_parts(expr.left), _text_parts(expr.right)
        return None if left is None or right is None else left + right
    if isinstance(expr, ast.Name):
        return []
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "format":
        return _text_parts(expr.func.value)
    return None


def _names(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


def _template_makers(tree: ast.Module) -> set[str]:
    """The module's functions that make a template, or call one that does."""
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    calls = {
        name: {_called(c) for c in ast.walk(f) if isinstance(c, ast.Call)}
        for name, f in functions.items()
    }
    makers = {n for n, f in functions.items() if any(_is_template_call(c) for c in ast.walk(f))}
    while True:
        more = {n for n, called in calls.items() if called & makers} - makers
        if not more:
            return makers
        makers |= more


def offenders(source: str) -> list[tuple[int, str]]:
    """(line, op text) of each string literal with op text out of its place."""
    tree = ast.parse(source)
    allowed: set[int] = set()
    quoted = _docstrings(tree)
    makers = _template_makers(tree)
    read: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if _called(node) in DIAGNOSTICS:
            quoted |= {id(n) for n in ast.walk(node)}
        elif _is_template_call(node) and node.args:
            allowed |= {id(c) for c in _text_parts(node.args[0]) or []}
            read += _names(node.args[0])
        elif isinstance(node.func, ast.Name) and node.func.id in makers:
            read += [n for a in (*node.args, *(k.value for k in node.keywords)) for n in _names(a)]
    assigned: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name):
            assigned.setdefault(target.id, []).append(value)
    seen: set[str] = set()
    while read:
        name = read.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in assigned.get(name, []):
            allowed |= {id(c) for c in _text_parts(value) or []}
            read += _names(value)
    formatted = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        text = OP_TEXT.search(node.value)
        if text is None or id(node) in quoted:
            continue
        if id(node) not in allowed or id(node) in formatted:
            found.append((node.lineno, text.group(0).strip()))
    return sorted(found)


def offenders_under(root: Path) -> dict[str, list[tuple[int, str]]]:
    """`offenders` of every Python file under `root`, by path from its parent."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        each = offenders(path.read_text())
        if each:
            found[str(path.relative_to(root.parent))] = each
    return found
