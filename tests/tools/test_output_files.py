"""Output files written as Unix tools write them (issue 23): a new file gets
the umask's mode, an existing one keeps its mode, a symbolic link stays a link
and its target gets the text, and a device, a named pipe or a descriptor
(/dev/stdout, /dev/fd/N) is written in place, never replaced. A failed run
leaves an existing output as it was and no temporary file behind.

Device nodes are made in the test's own directory, and /dev/stdout is reached
through a link there: a regression may replace only what the test made. No
output here is the real /dev/null."""

from __future__ import annotations

import os
import re
import resource
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import assert_one_line_error
from xsplit import files
from xsplit.diagnostics import XsplitError

REPO = Path(__file__).parents[2]
SMALL = REPO / "examples" / "small_matmul.mlir"
PIPELINE = "split-k{factor=4}"
BAD_IR = "func.func @f() {\n  %0 = foo.bar() : () -> i32\n  func.return\n}\n"


def xsplit_opt(*args: str, umask: int = 0o022, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """xsplit-opt under a known umask; its standard output is captured unless
    `stdout` says where it goes."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        [sys.executable, "-m", "xsplit.tools.xsplit_opt", *args],
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        umask=umask,
        **kwargs,
    )


@pytest.fixture(scope="module")
def expected() -> str:
    """What xsplit-opt prints for SMALL on its standard output."""
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE)
    assert proc.returncode == 0, proc.stderr
    assert "scf.forall" in proc.stdout
    return proc.stdout


def temporaries(*directories: Path) -> list[str]:
    return [p.name for d in directories for p in d.iterdir() if p.name.startswith(".xsplit-")]


def make_char_device(path: Path, major: int, minor: int) -> int:
    """A character device node at `path`, or a skip where none can be made or
    opened (not root, no CAP_MKNOD, a nodev mount)."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    rdev = os.makedev(major, minor)
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, rdev)
    except PermissionError as e:
        pytest.skip(f"cannot make a device node here: {e.strerror}")
    try:
        os.close(os.open(path, os.O_WRONLY))
    except OSError as e:
        pytest.skip(f"cannot open a device node here (nodev mount?): {e.strerror}")
    return rdev


# Regular files: the mode


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_file_gets_the_mode_the_umask_gives(
    umask: int, mode: int, tmp_path: Path, expected: str
) -> None:
    out = tmp_path / "out.mlir"
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(out), umask=umask)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == expected
    assert oct(stat.S_IMODE(out.stat().st_mode)) == oct(mode)
    assert temporaries(tmp_path) == []


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o755])
def test_an_existing_file_keeps_its_mode(mode: int, tmp_path: Path, expected: str) -> None:
    out = tmp_path / "out.mlir"
    out.write_text("old\n")
    out.chmod(mode)
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == expected
    assert oct(stat.S_IMODE(out.stat().st_mode)) == oct(mode)
    assert temporaries(tmp_path) == []


# Symbolic links


def test_a_symlink_stays_a_link_and_its_target_gets_the_text(tmp_path: Path, expected: str) -> None:
    links, real = tmp_path / "links", tmp_path / "real"
    links.mkdir()
    real.mkdir()
    target = real / "out.mlir"
    target.write_text("old\n")
    target.chmod(0o640)
    link = links / "out.mlir"
    link.symlink_to(Path("..") / "real" / "out.mlir")
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert os.readlink(link) == str(Path("..") / "real" / "out.mlir")
    assert target.read_text() == expected
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in links.iterdir()) == ["out.mlir"]
    assert sorted(p.name for p in real.iterdir()) == ["out.mlir"]


def test_a_dangling_symlink_gets_its_target_created(tmp_path: Path, expected: str) -> None:
    link = tmp_path / "link.mlir"
    link.symlink_to(tmp_path / "new.mlir")
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert (tmp_path / "new.mlir").read_text() == expected
    assert stat.S_IMODE((tmp_path / "new.mlir").stat().st_mode) == 0o644


def test_a_symlink_to_the_input_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "in.mlir"
    src.write_text(SMALL.read_text())
    link = tmp_path / "link.mlir"
    link.symlink_to(src)
    proc = xsplit_opt(str(src), "-p", PIPELINE, "-o", str(link))
    assert_one_line_error(proc, "refusing to overwrite the input file")
    assert src.read_text() == SMALL.read_text()
    assert link.is_symlink()


# Devices, named pipes and descriptors: written in place


def test_a_character_device_is_written_in_place(tmp_path: Path) -> None:
    node = tmp_path / "null"
    rdev = make_char_device(node, 1, 3)  # the node /dev/null is
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(node))
    assert proc.returncode == 0, proc.stderr
    after = node.lstat()
    assert stat.S_ISCHR(after.st_mode)
    assert after.st_rdev == rdev
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_a_device_that_refuses_the_write_is_an_error_and_stays(tmp_path: Path) -> None:
    node = tmp_path / "full"
    rdev = make_char_device(node, 1, 7)  # the node /dev/full is: every write fails
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(node))
    assert proc.returncode == 1
    assert_one_line_error(proc, f"cannot write '{node}': No space left on device")
    after = node.lstat()
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == rdev
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_a_named_pipe_s_reader_receives_the_text(tmp_path: Path, expected: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # Open for reading first, without blocking, so that the tool's open for
    # writing returns at once; the text fits in the pipe's buffer.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(fifo), timeout=120)
        assert proc.returncode == 0, proc.stderr
        received = read_all(reader)
    finally:
        os.close(reader)
    assert received.decode() == expected
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def test_dev_fd_n_writes_to_the_inherited_descriptor(expected: str) -> None:
    """What `-o >(gzip > out.gz)` hands the tool. Named as it is: /dev/fd
    leads into /proc/self/fd, where no writer can create or replace a file."""
    read_end, write_end = os.pipe()
    try:
        proc = xsplit_opt(
            str(SMALL), "-p", PIPELINE, "-o", f"/dev/fd/{write_end}", pass_fds=(write_end,)
        )
        os.close(write_end)
        write_end = -1
        assert proc.returncode == 0, proc.stderr
        assert read_all(read_end).decode() == expected
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


# /dev/stdout is a link in a writable /dev: a writer that replaced it by name
# would replace the system's own (as the code before issue 23 did, run as
# root). These tests name it through a link of their own, which is all such a
# writer could replace; what a descriptor name is, is checked without writing.


def test_descriptor_names() -> None:
    for name in ("/dev/stdout", "/dev/stderr", "/dev/fd/3", "/proc/self/fd/1", "/proc/42/fd/7"):
        assert files._names_a_descriptor(name), name
    for name in ("/dev/null", "/dev/fd", "/tmp/stdout", "out.mlir", "/proc/self/fdinfo/1"):
        assert not files._names_a_descriptor(name), name


@pytest.fixture
def stdout_link(tmp_path: Path) -> Path:
    link = tmp_path / "links" / "stdout"
    link.parent.mkdir()
    link.symlink_to("/dev/stdout")
    return link


def test_dev_stdout_on_a_pipe(stdout_link: Path, expected: str) -> None:
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(stdout_link))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    assert os.readlink(stdout_link) == "/dev/stdout"
    assert temporaries(stdout_link.parent) == []


def test_dev_stdout_on_a_file_writes_that_file_not_a_new_one(
    tmp_path: Path, stdout_link: Path, expected: str
) -> None:
    captured = tmp_path / "captured.mlir"
    with open(captured, "wb") as stdout:
        before = os.fstat(stdout.fileno()).st_ino
        proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(stdout_link), stdout=stdout)
    assert proc.returncode == 0, proc.stderr
    assert captured.stat().st_ino == before
    assert captured.read_text() == expected
    assert os.readlink(stdout_link) == "/dev/stdout"
    assert temporaries(tmp_path) == []


def test_dash_is_standard_output(tmp_path: Path, expected: str) -> None:
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    assert list(tmp_path.iterdir()) == []


# Failures


def test_bad_input_leaves_an_existing_output_byte_identical(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD_IR)
    out = tmp_path / "out.mlir"
    out.write_bytes(b"old output\x00\xff\n")
    before = out.stat()
    proc = xsplit_opt(str(bad), "-p", PIPELINE, "-o", str(out))
    assert_one_line_error(proc, f"{bad}:2:15: error: Operation foo.bar is not registered")
    assert out.read_bytes() == b"old output\x00\xff\n"
    assert out.stat().st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "out.mlir"]


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    out.write_bytes(b"old\n")

    def limit_file_size() -> None:
        # Python ignores SIGXFSZ, so the write past the limit fails with EFBIG.
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    proc = xsplit_opt(
        str(SMALL), "-p", PIPELINE, "-o", str(out),
        preexec_fn=limit_file_size,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert proc.returncode == 1
    assert_one_line_error(proc, f"cannot write '{out}': File too large")
    assert out.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.mlir"]


def test_a_failed_rename_removes_only_the_run_s_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.mlir"
    out.write_bytes(b"old\n")
    (tmp_path / ".xsplit-someone-else.mlir").write_text("not ours\n")

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", fail)
    with pytest.raises(XsplitError, match="cannot write .*: No space left on device"):
        files.write_output(str(out), "new\n")
    assert out.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".xsplit-someone-else.mlir", "out.mlir"]


def test_an_interrupted_write_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.mlir"
    out.write_bytes(b"old\n")

    def interrupt(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        files.write_output(str(out), "new\n")
    assert out.read_bytes() == b"old\n"
    assert temporaries(tmp_path) == []


def test_a_read_only_file_is_refused_before_any_work(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write a read-only file")
    out = tmp_path / "out.mlir"
    out.write_bytes(b"old\n")
    out.chmod(0o444)
    proc = xsplit_opt(str(SMALL), "-p", PIPELINE, "-o", str(out))
    assert_one_line_error(proc, f"cannot write '{out}': Permission denied")
    assert out.read_bytes() == b"old\n"


# The other writers: bench's JSON and plot, the calibration cache


def small_report():  # type: ignore[no-untyped-def]
    from xsplit.bench import driver as bench

    configs = [
        bench.ConfigResult(name, None, [], times_ms=[t, t])
        for (name, _), t in zip(bench.IREE_CONFIGS, (4.0, 3.0, 5.0))
    ]
    configs += [
        bench.ConfigResult(bench.MODEL_CONFIG, 4, [], times_ms=[2.0]),
        bench.ConfigResult("xsplit-x2", 2, [], times_ms=[2.5]),
    ]
    return bench.BenchReport(
        input="small.mlir", function="mm", threads=1, runs=1, model_target="cpu",
        model_factor=4, model_remarks=[], configs=configs, gpu=[],
    )


def test_bench_json_follows_a_symlink_and_feeds_a_named_pipe(tmp_path: Path) -> None:
    from xsplit.bench import driver as bench

    report = small_report()
    target = tmp_path / "report.json"
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    bench.write_json(report, str(link))
    assert link.is_symlink()
    assert '"model_factor": 4' in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~current_umask()

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        bench.write_json(report, str(fifo))
        assert read_all(reader).decode() == target.read_text()
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert temporaries(tmp_path) == []


def test_bench_plot_follows_a_symlink(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from xsplit.bench import driver as bench

    target = tmp_path / "plot.png"
    link = tmp_path / "link.png"
    link.symlink_to(target)
    bench.plot(small_report(), str(link))
    assert link.is_symlink()
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert temporaries(tmp_path) == []


def test_the_calibration_cache_follows_a_symlink(tmp_path: Path) -> None:
    from xsplit.targets import cpu_info

    kept = tmp_path / "dotfiles" / "cal.json"
    kept.parent.mkdir()
    kept.write_text("{}")
    link = tmp_path / "cache" / "cal.json"
    link.parent.mkdir()
    link.symlink_to(kept)
    cpu = cpu_info.NAMED_CPUS["znver4"]
    cpu_info.save_calibration(cpu, 40e9, 30e9, link)
    assert link.is_symlink()
    assert cpu_info.load_calibration(cpu, kept).flops_per_core == 40e9
    assert temporaries(kept.parent, link.parent) == []


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# The audit: no file goes out but through xsplit.files, and no tool is handed
# the null device as its output file. LLVM's tools (iree-opt, iree-compile)
# delete their output file when they fail; run as root, that deletes the
# system's null device.

OUTPUT_OPTION = re.compile(r"(?<![\w-])(?:-o|--output-file|--output)(?![\w-])")
# What may stand between the option and its value in an argument list, a
# shell line or a format string: quotes, commas, `=`, `+`, braces, line breaks.
BETWEEN = re.compile(r"""(?:[\s'"=,+{(\\]|\bf(?=['"]))*""")
NULL_DEVICE = re.compile(r"(?:/dev/null\b|(?:os\s*\.\s*)?devnull\b)", re.IGNORECASE)

SCANNED = ["xsplit", "tests", "bench", "examples", "README.md", "docs"]
TEXT_SUFFIXES = {".py", ".mlir", ".md", ".cfg", ".sh", ".toml", ".txt", ".json", ".yaml", ".yml",
                 ".rst", ".ini"}
SKIPPED_DIRECTORIES = {"__pycache__", "Output", ".pytest_cache"}


def null_outputs(text: str) -> list[str]:
    """Each place where `text` passes the null device as an output file."""
    found = []
    for option in OUTPUT_OPTION.finditer(text):
        rest = text[option.end() : option.end() + 120]
        value = rest[BETWEEN.match(rest).end() :]  # type: ignore[union-attr]
        if NULL_DEVICE.match(value):
            line = text.count("\n", 0, option.start()) + 1
            found.append(f"line {line}: {text[option.start() : option.end() + 40].strip()!r}")
    return found


def scanned_files() -> Iterator[Path]:
    for name in SCANNED:
        top = REPO / name
        if top.is_file():
            yield top
            continue
        if not top.is_dir():
            continue
        for directory, subdirectories, names in os.walk(top):
            subdirectories[:] = [d for d in subdirectories if d not in SKIPPED_DIRECTORIES]
            for file_name in names:
                if Path(file_name).suffix in TEXT_SUFFIXES:
                    yield Path(directory) / file_name


def test_the_null_device_detector_finds_what_it_must() -> None:
    option = "-" + "o"  # spelled apart, so that this file passes the audit itself
    null = "/dev/" + "null"
    caught = [
        f'["iree-opt", "{option}", os.devnull]',
        f'["iree-opt", "x.mlir", "{option}",\n     "{null}"]',
        f"iree-compile x.mlir {option} {null}",
        f'f"{option}={{os.devnull}}"',
        f'"{option}" + os.devnull',
        f"iree-opt --output-file={null} x.mlir",
        f"cmd = [tool, {option!r}, DEVNULL]",
    ]
    passed = [
        f'["iree-compile", "-", "{option}", "-"]',
        f"xsplit-opt x.mlir | iree-opt > {null}",
        f"xsplit-opt x.mlir 2>{null} | filecheck x.mlir",
        f"grep {option} 'split' x.mlir > {null}",
        f'run(["iree-opt", "{option}", str(tmp_path / "o.mlir")], stderr=subprocess.DEVNULL)',
    ]
    for text in caught:
        assert null_outputs(text), text
    for text in passed:
        assert not null_outputs(text), text


def test_no_tool_is_given_the_null_device_as_its_output_file() -> None:
    found = {
        str(path.relative_to(REPO)): hits
        for path in scanned_files()
        if (hits := null_outputs(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert found == {}, (
        "an IREE or LLVM tool deletes its -o file when it fails (as root, the system's null "
        "device): read its output from a pipe (-o -) or give it a temporary file"
    )


# Where a Python file in these trees writes a file other than through
# xsplit.files, and why that is allowed.
WRITES = re.compile(
    r"\.write_(?:text|bytes)\(|\bopen\([^)]*['\"][wax]b?\+?['\"]|\bos\.(?:replace|rename)\("
    r"|mkstemp\(|NamedTemporaryFile\(|\bjson\.dump\(|savefig\("
)
ALLOWED_WRITERS = {
    "xsplit/files.py": "the shared writer itself",
    # Its files are xsplit's own (logs of failed tool runs), under names it
    # makes in a directory it makes, never a path the user gives.
    "xsplit/iree/iree_compile.py": "logs of failed tool runs",
}
ALLOWED_LINES = {
    ("xsplit/bench/driver.py", "figure.savefig(image,"): "to memory, then to write_output",
}


def test_every_output_goes_through_the_shared_writer() -> None:
    stray = []
    for top in ("xsplit", "bench", "examples"):
        for path in sorted((REPO / top).rglob("*.py")):
            name = str(path.relative_to(REPO))
            if name in ALLOWED_WRITERS or "__pycache__" in path.parts:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if WRITES.search(line) and not any(
                    file == name and snippet in line for file, snippet in ALLOWED_LINES
                ):
                    stray.append(f"{name}:{number}: {line.strip()}")
    assert stray == [], "write through xsplit.files.write_output:\n" + "\n".join(stray)
