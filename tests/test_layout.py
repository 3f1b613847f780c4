"""The package's shape: no import cycles, and no import that runs from a
lower layer up to a higher one.

Every `import` in `xsplit/` counts, at module level, inside a function (a
deferred import is still a dependency) or under `if TYPE_CHECKING:` (a type
named from a higher layer is a dependency too).
"""

from __future__ import annotations

import ast
import random
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from tests.helpers.op_text import offenders, offenders_under

ROOT = Path(__file__).resolve().parent.parent / "xsplit"

# Lowest first. A module may import from its own layer and the layers below.
LAYERS: list[tuple[str, ...]] = [
    ("xsplit.diagnostics", "xsplit.collector", "xsplit.files", "xsplit.attr_names"),
    ("xsplit.dialects", "xsplit.xdsl_compat"),
    ("xsplit.semantics",),
    ("xsplit.targets",),
    ("xsplit.iree",),
    ("xsplit.reader", "xsplit.verifier"),
    ("xsplit.analysis",),
    ("xsplit.rewrites.dsl", "xsplit.rewrites.pass_pipeline"),
    ("xsplit.rewrites.common",),
    ("xsplit.rewrites.distribute",),
    ("xsplit.rewrites.dispatch",),
    ("xsplit.rewrites.reduce",),
    ("xsplit.rewrites.split",),
    ("xsplit.rewrites.encoding",),
    ("xsplit.rewrites.pipelines",),
    ("xsplit.rewrites",),
    # Pipeline text is read here and above, never by the passes.
    ("xsplit.passes", "xsplit.pipeline"),
    ("xsplit.api",),
    ("xsplit.reference",),
    ("xsplit.simulator",),
    ("xsplit.interop",),
    ("xsplit.bench",),
    ("xsplit.tools", "xsplit.universe", "xsplit.replay"),
    ("xsplit",),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The module a dotted import name lands in (`xsplit.a.b.NAME` -> `xsplit.a.b`)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            # `from PACKAGE import NAME` runs PACKAGE first, whatever NAME is.
            names = [f"{origin}.{a.name}" for a in node.names] + [origin]
        else:
            continue
        for name in names:
            if name.startswith("xsplit"):
                target = _resolve(name)
                if target:
                    found.add(target)
    return found


@cache
def _imported() -> dict[str, set[str]]:
    """Each module's imports, read when a test first asks, not at collection:
    parsing all of xsplit/ costs seconds, in every pytest-xdist worker."""
    return {m: _imports(m) for m in MODULES}


@cache
def _graph() -> dict[str, set[str]]:
    return {m: found - {m} for m, found in _imported().items()}


def _self_imports() -> list[str]:
    return sorted(m for m, found in _imported().items() if m in found)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _layer(module: str) -> int:
    """The layer of the longest prefix of `module` that LAYERS names."""
    best, depth = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and prefix.count(".") > depth:
                best, depth = i, prefix.count(".")
    return best


def test_the_cycle_finder_finds_cycles():
    # Without this, an empty answer below could mean a finder that never finds.
    rng = random.Random(7)
    for _ in range(50):
        n = rng.randint(2, 9)
        names = [f"m{i}" for i in range(n)]
        graph = {a: {b for b in names if rng.random() < 0.15 and a < b} for a in names}
        assert _cycles(graph) == []  # edges only run forward: a DAG
        a, b = sorted(rng.sample(names, 2))
        graph[a].add(b)
        graph[b].add(a)
        assert any(a in c and b in c for c in _cycles(graph))


def test_the_import_walk_sees_deferred_imports():
    # Inside a function, and inside a method.
    assert "xsplit.rewrites.reduce.gemm_stages" in _graph()["xsplit.rewrites.split.own_kernel"]
    assert "xsplit.analysis.devices" in _graph()["xsplit.rewrites.pipelines.auto"]
    assert "xsplit.dialects" in _graph()["xsplit.rewrites.dsl.declared_pass"]
    assert "xsplit.rewrites.dsl.declared_pass" not in _graph()["xsplit.rewrites.dsl.engine"]


TEXT_READERS = ("xsplit.pipeline", "xsplit.api")
"""Where pipeline text becomes passes: the command line and the API use them."""


def test_passes_compose_passes_as_objects_not_text():
    # A pass that runs passes holds them (xsplit.rewrites.pass_pipeline):
    # nothing beneath the tools and the API reads pipeline text, even lazily.
    beneath = ("xsplit.rewrites", "xsplit.analysis", "xsplit.dialects")
    readers = sorted(
        f"{m} -> {t}"
        for m in MODULES
        if m.startswith(beneath)
        for t in _graph()[m]
        if t in TEXT_READERS
    )
    assert readers == []


IR_TEXT_READERS = ("xsplit.rewrites.dsl.template",)
"""Beneath the tools and the API, MLIR text becomes IR only from a `Template`."""


def test_passes_build_ir_rather_than_parse_text():
    # Kernels are built op by op (issue 38): a pass that wrote MLIR text and
    # parsed it back would import the reader's parser.
    beneath = ("xsplit.rewrites", "xsplit.analysis", "xsplit.dialects")
    readers = []
    for module in sorted(MODULES):
        if not module.startswith(beneath) or module in IR_TEXT_READERS:
            continue
        for node in ast.walk(ast.parse(MODULES[module].read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "xsplit.reader":
                readers += [f"{module}: {a.name}" for a in node.names
                            if a.name in ("parse_module", "read_module")]
    assert readers == []


def test_no_upward_arrows_anywhere():
    upward = sorted(
        f"{m} -> {t}" for m in MODULES for t in _graph()[m] if _layer(t) > _layer(m)
    )
    assert upward == []


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_no_module_imports_itself():
    """A package's `__init__` that imports `from` itself is a cycle of one."""
    assert _self_imports() == []


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer(m) < 0] == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_upward_imports(module):
    upward = sorted(t for t in _graph()[module] if _layer(t) > _layer(module))
    assert upward == [], f"{module} (layer {_layer(module)}) imports from higher layers"


def test_rewrite_subsystems_do_not_import_each_others_privates():
    crossings = []
    for module in MODULES:
        tree = ast.parse(MODULES[module].read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xsplit"):
                crossings += [f"{module}: {node.module}.{a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    assert crossings == []


def test_passes_live_in_their_subsystem_folder():
    from xsplit.passes import _PASS_MODULES

    for name, (module, _) in _PASS_MODULES.items():
        parts = module.split(".")
        assert parts[:2] == ["xsplit", "rewrites"] and len(parts) == 4, name
        assert parts[3] == name.replace("-", "_"), f"{name} lives in {module}"


def test_layers_by_package():
    by_layer = defaultdict(list)
    for m in MODULES:
        by_layer[_layer(m)].append(m)
    assert all(by_layer[i] for i in range(len(LAYERS))), "a layer with no module in it"


MAX_LINES = 1000
"""No file under `xsplit/` is longer: a longer one is split along its seams."""

def test_no_file_is_over_1000_lines():
    lengths = {
        str(p.relative_to(ROOT.parent)): len(p.read_text().splitlines())
        for p in sorted(ROOT.rglob("*.py"))
    }
    assert {path: n for path, n in lengths.items() if n > MAX_LINES} == {}


TESTS = Path(__file__).resolve().parent


def test_no_test_module_imports_another():
    """Shared test code lives in helper modules (`tests/helpers/`, a folder's
    `cases.py`), so that a test module can change or go alone."""
    crossings = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests."):
                last = node.module.rpartition(".")[2]
                if last.startswith("test_") or last == "conftest":
                    crossings.append(f"{path.relative_to(TESTS.parent)}: {node.module}")
    assert crossings == []


OP_TEXT_KEPT = {
    "xsplit/rewrites/dsl/template.py": "the function a filled template parses in: the DSL's own "
    "wrapper of template text, not a program",
}
"""The files allowed op text outside templates, and why."""


def test_no_mlir_op_text_in_python_strings_outside_templates():
    # Issue 38: IR is built by templates and builders, not written as text.
    found = offenders_under(ROOT)
    assert sorted(set(found) - set(OP_TEXT_KEPT)) == [], found
    # The check sees the one place that must write op text: the wrapper a
    # filled template parses in.
    assert "xsplit/rewrites/dsl/template.py" in found


def test_the_op_text_check_tells_templates_from_text():
    kept = '''
"""Doc: `%r = linalg.matmul ins(%a, %b)` is what it makes."""
LOOP = """
%partials = scf.forall (%i) in ($n) {
"""
MERGE = """
%merged = linalg.reduce ins(%p : $p.type) outs($c : $c.type) dimensions = [2]
"""
T = Template(LOOP + MERGE.format(), n=count)
U = CloningTemplate("%r = $clone $x")
def fail(op):
    raise XsplitError(f"cannot read %r = linalg.fill {op}")
'''
    assert offenders(kept) == []
    written = '''
PROGRAM = "func.func @main(%a: tensor<4xf32>) {"
def merge(into):
    return f"%merged = linalg.reduce ins(%p) outs({into})"
def region(loop):
    return "%9 = flow.dispatch.region -> ($p.type) {" + loop
T = Template(merge("$c"))
module = parse_module(PROGRAM)
'''
    assert [text for _, text in offenders(written)] == [
        "func.func @",
        "%merged = linalg.reduce",
        "%9 = flow.dispatch.region",
    ]
