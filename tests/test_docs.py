"""The README and the manual in docs/ still hold: the README stays a front
door (under 250 lines, the two commands verbatim), their links, anchors
included, and the paths and modules they name exist, the layer order the
README shows (the block after `<!-- layers -->`) is the one
tests/test_layout.py enforces, every pipeline they show builds, and the
`xsplit-opt` runs marked `<!-- doctest -->` still print what is shown.

What runs iree-compile (the main job, `xsplit check`, `xsplit e2e`) is too
slow for this file and is not rerun here.

A doctest mark is an HTML comment on the line before a fenced block (blank
lines between are allowed); it does not show on a rendered page:

- `<!-- doctest -->` before a ```sh block of one `xsplit-opt` command: the
  next fenced block is what it prints, stdout, or stderr when the command ends
  in `> /dev/null`. Only fast, CPU-only runs on shipped files are marked.
- `<!-- doctest: file PATH -->`: the block is the file PATH, whole.
- `<!-- doctest: excerpt of PATH -->`: the block appears in PATH as it is.

Text is compared line by line, ignoring trailing whitespace and blank lines
at either end.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.cli import xsplit_opt_command

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
# bench/README.md is not part of the manual, but it names paths too.
PATH_CHECKED = [*DOCS, ROOT / "bench" / "README.md"]

MAIN_JOB = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
    "xsplit-e2e examples/matmul_123x456x51234.mlir -p 'split-k{factor=77},materialize-late'"
)
TESTS_JOB = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && "
    "lit -v tests/filecheck && pytest -n 2 tests"
)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --- reading markdown -------------------------------------------------------


@dataclass
class Block:
    lang: str
    body: str
    line: int  # 1-based line of the opening fence
    mark: str | None  # the text of an HTML comment on the line before it


_MARK = re.compile(r"^\s*<!--\s*(.*?)\s*-->\s*$")


def blocks(text: str) -> list[Block]:
    found: list[Block] = []
    lines = text.splitlines()
    i, last_text = 0, ""
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            start, lang, body = i, line[3:].strip(), []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            mark = _MARK.match(last_text)
            found.append(Block(lang, "\n".join(body), start + 1, mark.group(1) if mark else None))
            last_text = ""
        elif line.strip():
            last_text = line
        i += 1
    return found


def prose(text: str) -> str:
    """`text` without its fenced blocks, whose lines are code, not markdown."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return "\n".join(out)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[str]:
    return [m.group(2) for m in re.finditer(r"^(#{1,6})\s+(.*?)\s*#*$", prose(text), re.MULTILINE)]


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for h in headings(text):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def normalized(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


# --- the checks, as functions that return what is wrong ---------------------


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def broken_links(md: Path) -> list[str]:
    text = md.read_text()
    bad = []
    for target in _LINK.findall(prose(text)):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        dest = (md.parent / path).resolve() if path else md
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif fragment and fragment not in anchors(dest.read_text()):
            bad.append(f"{target}: no heading with that anchor")
    return bad


_PATH = re.compile(
    r"(?<![\w./~-])((?:xsplit|tests|bench|examples|docs)/(?:[\w.\-/]|\{[\w.\-,]*\})*)"
)


def _expand(path: str) -> list[str]:
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    return [
        x
        for alt in m.group(1).split(",")
        for x in _expand(path[: m.start()] + alt + path[m.end() :])
    ]


def missing_paths(text: str) -> list[str]:
    bad = []
    for raw in sorted(set(_PATH.findall(text))):
        for path in _expand(raw.rstrip(".")):
            if not (ROOT / path).exists():
                bad.append(path)
    return bad


def _module_file(dotted: str) -> Path | None:
    base = ROOT / Path(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def _top_level_names(path: Path) -> frozenset[str]:
    names = set()
    body = ast.parse(path.read_text()).body
    # A module may name what it loads on first use (`xsplit/__init__.py`'s
    # `__getattr__`) under `if TYPE_CHECKING:`.
    body += [n for node in body if isinstance(node, ast.If) for n in node.body]
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(names)


@functools.cache
def _attribute_names() -> frozenset[str]:
    # IR attributes such as `xsplit.split_factor` are dotted like modules.
    text = (ROOT / "xsplit" / "attr_names.py").read_text()
    return frozenset(re.findall(r"\"(xsplit\.[\w.]+)\"", text))


def unknown_modules(text: str) -> list[str]:
    """Dotted `xsplit.a.b` names that are neither a module, nor a module and
    one name defined in it, nor an `xsplit.*` attribute name."""
    bad = []
    for name in sorted(set(re.findall(r"(?<![\w.])xsplit(?:\.\w+)+", text))):
        if name in _attribute_names() or _module_file(name):
            continue
        module, _, attribute = name.rpartition(".")
        path = _module_file(module)
        if path is None or attribute not in _top_level_names(path):
            bad.append(name)
    return bad


def shown_layers(text: str) -> list[tuple[str, ...]]:
    """The block marked `<!-- layers... -->`, one layer a line after its number."""
    block = next(b for b in blocks(text) if b.mark and b.mark.startswith("layers"))
    return [tuple(line.split()[1:]) for line in block.body.splitlines() if line.strip()]


def enforced_layers() -> list[tuple[str, ...]]:
    tree = ast.parse((ROOT / "tests" / "test_layout.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "LAYERS":
            return ast.literal_eval(node.value)
    raise AssertionError("tests/test_layout.py has no LAYERS")


# --- doctests ---------------------------------------------------------------


@dataclass
class Doctest:
    where: str
    mark: str
    block: Block
    expected: Block | None


def doctests(md: Path) -> list[Doctest]:
    found = []
    bs = blocks(md.read_text())
    for i, b in enumerate(bs):
        if b.mark and b.mark.startswith("doctest"):
            after = bs[i + 1] if i + 1 < len(bs) else None
            found.append(Doctest(f"{_rel(md)}:{b.line}", b.mark, b, after))
    return found


ALL_DOCTESTS = [d for md in DOCS for d in doctests(md)]


@functools.cache
def run_shown(command: str) -> tuple[str, str]:
    """Runs a shown `xsplit-opt` command from the repository root: (what it
    printed to the stream shown, stderr for the failure message)."""
    argv = shlex.split(command)
    to_stderr = argv[-2:] == [">", "/dev/null"]
    if to_stderr:
        argv = argv[:-2]
    assert argv[0] == "xsplit-opt" and not {"|", ">", "<", "&&", ";"} & set(argv), (
        f"a doctest runs one xsplit-opt command, optionally '> /dev/null'; not {command!r}"
    )
    proc = subprocess.run(
        [*xsplit_opt_command(), *argv[1:]],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"{command} exited {proc.returncode}:\n{proc.stderr}"
    return (proc.stderr if to_stderr else proc.stdout), proc.stderr


def mismatch(expected: str, actual: str) -> str | None:
    want, got = normalized(expected), normalized(actual)
    if want == got:
        return None
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            return f"line {i + 1} differs:\n  shown: {w}\n  now:   {g}"
    return f"shown {len(want)} lines, now {len(got)}"


def check_doctest(d: Doctest) -> str | None:
    if d.mark == "doctest":
        assert d.block.lang == "sh" and len(normalized(d.block.body)) == 1, (
            f"{d.where}: a doctest is a ```sh block of one command"
        )
        assert d.expected is not None, f"{d.where}: no output block follows"
        actual, _ = run_shown(d.block.body.strip())
        return mismatch(d.expected.body, actual)
    if m := re.fullmatch(r"doctest: file (\S+)", d.mark):
        return mismatch((ROOT / m.group(1)).read_text(), d.block.body)
    if m := re.fullmatch(r"doctest: excerpt of (\S+)", d.mark):
        source = "\n".join(line.rstrip() for line in (ROOT / m.group(1)).read_text().splitlines())
        shown = "\n".join(normalized(d.block.body))
        return None if shown in source else f"not found as it is in {m.group(1)}"
    raise AssertionError(f"{d.where}: unknown mark {d.mark!r}")


# --- pipelines --------------------------------------------------------------


def shown_pipelines(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """(pipeline, pattern files it needs) of every xsplit command shown in a
    code block: on a line of a ```sh block, or after `$ ` in any block, alone
    or chained with `&&`, `|` or `;`."""
    found = []
    for b in blocks(text):
        for line in b.body.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            elif b.lang != "sh":
                continue
            try:
                tokens = shlex.split(line, comments=True)
            except ValueError:  # not shell: output that happens to be in the block
                continue
            commands, argv = [], []
            for token in tokens + [";"]:
                if token in ("&&", "|", ";"):
                    commands.append(argv)
                    argv = []
                else:
                    argv.append(token)
            for argv in commands:
                if not argv or argv[0] not in ("xsplit-opt", "xsplit", "xsplit-e2e"):
                    continue
                files = tuple(
                    argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--load-patterns"
                )
                for i, a in enumerate(argv[:-1]):
                    if a == "-p" and not argv[i + 1].isupper():  # not a placeholder: PIPELINE
                        found.append((argv[i + 1], files))
    return found


_BUILD = """
import json, sys
from xsplit import load_patterns
from xsplit.diagnostics import XsplitError
from xsplit.pipeline import build_pipeline
bad = []
for pipeline, files in json.loads(sys.stdin.read()):
    try:
        for f in files:
            load_patterns(f)
        build_pipeline(pipeline)
    except XsplitError as e:
        bad.append(f"{pipeline}: {e}")
print(json.dumps(bad))
"""


def unbuildable(pipelines: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    # In a process of its own, so that pattern files loaded here do not
    # register passes in the test session's registry.
    proc = subprocess.run(
        [sys.executable, "-c", _BUILD],
        input=json.dumps(pipelines),
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# --- tests ------------------------------------------------------------------


def test_readme_is_a_front_door():
    text = README.read_text()
    assert len(text.splitlines()) < 250
    assert MAIN_JOB in text and TESTS_JOB in text
    for heading in ("The two commands", "Layout", "Pinned versions"):
        assert heading in headings(text)


@pytest.mark.parametrize("md", DOCS, ids=_rel)
def test_links_resolve(md):
    assert broken_links(md) == []


@pytest.mark.parametrize("md", DOCS, ids=_rel)
def test_no_heading_twice(md):
    hs = headings(md.read_text())
    assert sorted({h for h in hs if hs.count(h) > 1}) == []


@pytest.mark.parametrize("md", PATH_CHECKED, ids=_rel)
def test_named_paths_and_modules_exist(md):
    text = md.read_text()
    assert missing_paths(text) == []
    assert unknown_modules(text) == []


def test_readme_shows_the_enforced_layers():
    assert shown_layers(README.read_text()) == enforced_layers()


def test_shown_pipelines_build():
    pipelines = sorted({p for md in DOCS for p in shown_pipelines(md.read_text())})
    assert len(pipelines) >= 10  # the extraction still finds what is shown
    assert unbuildable(pipelines) == []


def test_there_are_doctests():
    marks = [d.mark for d in ALL_DOCTESTS]
    assert marks.count("doctest") >= 3 and len(marks) >= 5


@pytest.mark.parametrize("d", ALL_DOCTESTS, ids=lambda d: d.where)
def test_doctest(d):
    assert check_doctest(d) is None, f"{d.where}: {check_doctest(d)}"


# --- the checks can fail ----------------------------------------------------


def test_a_broken_link_is_caught(tmp_path):
    md = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# Here\n")
    md.write_text(
        "[a](there.md) [b](there.md#here) [c](https://example.com/x)\n"
        "[d](gone.md) [e](there.md#nowhere) [f](#self)\n"
        "```sh\n[g](in-code-is-not-a-link.md)\n```\n## Self\n"
    )
    assert broken_links(md) == [
        "gone.md: no such file",
        "there.md#nowhere: no heading with that anchor",
    ]


def test_old_paths_and_modules_are_caught():
    text = (
        "`xsplit/rewrites/split_k.py`, `xsplit/interop/targets.py`, "
        "`tests/filecheck/rewrites/{split-k,no-such-pass}/`, `xsplit.interop.simulate`, "
        "`xsplit.reader.no_such_function`; fine: `xsplit/rewrites/split/split_k.py`, "
        "`xsplit.reader.demoted_ops`, `xsplit.split_factor`, `xsplit.XsplitError`, "
        "`~/.cache/xsplit/cpu-calibration.json`"
    )
    assert missing_paths(text) == [
        "tests/filecheck/rewrites/no-such-pass/",
        "xsplit/interop/targets.py",
        "xsplit/rewrites/split_k.py",
    ]
    assert unknown_modules(text) == ["xsplit.interop.simulate", "xsplit.reader.no_such_function"]


def test_a_changed_output_is_caught():
    d = next(d for d in ALL_DOCTESTS if d.mark == "doctest" and "split-k{factor=3}" in d.block.body)
    actual, _ = run_shown(d.block.body.strip())
    assert mismatch(d.expected.body, actual + "  \n\n") is None
    assert mismatch(d.expected.body, actual.replace("334", "333", 1)) is not None
    assert mismatch(d.expected.body, actual + "}\n") is not None


def test_a_wrong_layer_order_is_caught():
    layers = enforced_layers()
    text = (
        "<!-- layers -->\n```\n"
        + "\n".join(f"{i} " + " ".join(layer) for i, layer in enumerate(reversed(layers), 1))
        + "\n```\n"
    )
    assert shown_layers(text) != layers


def test_a_pipeline_that_does_not_build_is_caught():
    assert len(unbuildable([("split-k{fctor=3}", ()), ("no-such-pass", ())])) == 2
