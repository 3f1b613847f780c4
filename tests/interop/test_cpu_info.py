"""Reading the CPU: sysfs caches (shared ones split), SIMD and FMA flags,
named CPUs and overrides, the calibration cache, and the data tiles that
follow from them."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import f16, f32, i8, i32

from xsplit.targets import cpu_info
from xsplit.targets.cpu_info import NAMED_CPUS, detect, parse_cpu_spec
from xsplit.targets.table import PLAIN_SHARE, cpu_data_tiles, cpu_target


def _fake_machine(
    tmp_path: Path, flags: str, l2: str = "1024K", l2_shared: str = "0", l2_ways: str | None = None
) -> tuple[Path, Path]:
    sysfs = tmp_path / "cpu"
    caches = [("1", "Data", "48K", "0"), ("1", "Instruction", "32K", "0"),
              ("2", "Unified", l2, l2_shared), ("3", "Unified", "32768K", "0-7")]
    for i, (level, kind, size, shared) in enumerate(caches):
        d = sysfs / "cpu0" / "cache" / f"index{i}"
        d.mkdir(parents=True)
        (d / "level").write_text(level + "\n")
        (d / "type").write_text(kind + "\n")
        (d / "size").write_text(size + "\n")
        (d / "shared_cpu_list").write_text(shared + "\n")
        if level == "2" and l2_ways is not None:
            (d / "ways_of_associativity").write_text(l2_ways + "\n")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: {flags}\n\n")
    return sysfs, cpuinfo


def test_detect_reads_caches_per_core_and_simd(tmp_path: Path) -> None:
    sysfs, cpuinfo = _fake_machine(tmp_path, "sse avx avx2 fma", l2="2048K", l2_shared="0-1")
    cpu = detect(sysfs, cpuinfo)
    assert cpu.name == "Test CPU 9000"
    assert cpu.l1d == 48 * 1024
    assert cpu.l2 == 1024 * 1024  # 2 MiB shared by two CPUs
    assert cpu.l3 == 4 * 1024 * 1024  # 32 MiB shared by eight
    assert (cpu.simd_bits, cpu.fma, cpu.vnni) == (256, True, False)


@pytest.mark.parametrize("ways,expected,penalty", [("16", 16, 2), ("8", 8, 4), (None, 8, 4), ("0", 8, 4)])
def test_l2_ways_set_the_conflict_penalty(
    tmp_path: Path, ways: str | None, expected: int, penalty: int
) -> None:
    """Rows a power-of-two stride apart share a fraction of L2's sets that
    shrinks as its ways grow; sysfs's associativity, else 8."""
    sysfs, cpuinfo = _fake_machine(tmp_path, "avx2 fma avx512f", l2_ways=ways)
    cpu = detect(sysfs, cpuinfo)
    assert cpu.l2_ways == expected
    assert cpu_target(cpu).conflict_penalty == penalty


def test_detect_avx512_vnni(tmp_path: Path) -> None:
    sysfs, cpuinfo = _fake_machine(tmp_path, "avx2 fma avx512f avx512_vnni avx512_bf16")
    cpu = detect(sysfs, cpuinfo)
    assert (cpu.simd_bits, cpu.vnni, cpu.bf16) == (512, True, True)


@pytest.mark.parametrize(("name", "family", "lanes"), [
    ("AMD EPYC", 26, 16),  # Zen 5: 512-bit pipes
    ("AMD EPYC", 25, 8),  # Zen 4: AVX-512 on 256-bit pipes
    ("AMD EPYC", None, 8),
    ("Intel(R) Xeon(R) Platinum", 6, 16),
])
def test_avx512_counts_its_full_width_where_the_pipes_have_it(tmp_path: Path, name, family, lanes) -> None:
    sysfs, cpuinfo = _fake_machine(tmp_path, "avx2 fma avx512f")
    text = cpuinfo.read_text().replace("Test CPU 9000", name)
    if family is not None:
        text = text.replace("model name", f"cpu family\t: {family}\nmodel name")
    cpuinfo.write_text(text)
    cpu = detect(sysfs, cpuinfo)
    assert cpu.family == family
    assert cpu.peak_flops_per_core() == 2 * 2 * lanes * cpu.ghz * 1e9


def test_named_cpu_and_overrides() -> None:
    cpu = parse_cpu_spec("znver3:cores=8,l2=2M,ghz=2.5")
    assert (cpu.cores, cpu.l2, cpu.ghz, cpu.simd_bits) == (8, 2 * 1024 * 1024, 2.5, 256)
    assert "overridden" in cpu.source
    with pytest.raises(ValueError, match="unknown CPU 'pentium'"):
        parse_cpu_spec("pentium")
    with pytest.raises(ValueError, match="unknown CPU override 'colour'"):
        parse_cpu_spec("host:colour=red")
    with pytest.raises(ValueError, match="bad value 'many'"):
        parse_cpu_spec("znver4:cores=many")


def test_calibration_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    cpu = NAMED_CPUS["znver4"]
    assert cpu_info.load_calibration(cpu, path) == cpu
    cpu_info.save_calibration(cpu, 40e9, 30e9, path)
    calibrated = cpu_info.load_calibration(cpu, path)
    assert (calibrated.flops_per_core, calibrated.bandwidth) == (40e9, 30e9)
    assert calibrated.f32_flops_per_core() == 40e9
    # Another CPU does not take this one's rates.
    other = NAMED_CPUS["znver3"]
    assert cpu_info.load_calibration(other, path) == other
    # The CPU target uses them.
    target = cpu_target(calibrated)
    # It streams into fresh pages; reads of resident operands run 3x faster.
    assert target.memory_bandwidth == 90e9
    # IREE's plain code reaches a share of the calibrated data-tiled rate.
    assert target.peak_flops["f32"] == 40e9 * PLAIN_SHARE
    # A calibration that timed reads too gives that rate.
    cpu_info.save_calibration(cpu, 40e9, 30e9, path, read_bandwidth=50e9)
    calibrated = cpu_info.load_calibration(cpu, path)
    assert calibrated.read_bandwidth == 50e9
    assert cpu_target(calibrated).memory_bandwidth == 50e9
    # A corrupt cache is ignored.
    path.write_text("{not json")
    assert cpu_info.load_calibration(cpu, path) == cpu


@pytest.mark.parametrize(
    ("cpu", "elements", "m", "n", "tiles"),
    [
        ("znver3", (f32, f32, f32), 512, 512, (8, 8, 1)),
        ("znver4", (f32, f32, f32), 512, 512, (16, 16, 1)),
        ("znver4", (f16, f16, f32), 512, 512, (16, 16, 1)),
        ("znver3", (i8, i8, i32), 512, 512, (8, 8, 2)),
        ("znver4", (f32, f32, f32), 64, None, (16, 1, 1)),  # a matvec: N is 1
        ("znver4", (f32, f32, f32), 3, 512, (4, 16, 1)),  # a narrow M
    ],
)
def test_data_tiles(cpu: str, elements, m, n, tiles) -> None:  # type: ignore[no-untyped-def]
    assert cpu_data_tiles(NAMED_CPUS[cpu], elements, m, n) == tiles


def test_cpu_target_follows_the_cpu() -> None:
    big = cpu_target(parse_cpu_spec("znver3:cores=16,l2=2M"))
    assert big.processors == 16
    assert big.cache_per_processor == 512 * 1024  # a quarter of the L2
    assert big.data_tiles((f32, f32, f32), 100, 100) == (8, 8, 1)
