"""What the cost model needs to know of the CPU it runs on, read from the
machine (Linux sysfs and /proc/cpuinfo), from a named CPU, or given outright.

- cores: the CPUs in this process's affinity mask (IREE's local-task runtime
  runs one worker per such CPU);
- cache sizes per level, per core (a cache shared by several cores counts its
  share), from /sys/devices/system/cpu/cpu*/cache;
- the SIMD width and FMA, from the CPU flags.

`xsplit bench --calibrate` measures two rates (per-core f32 FLOP/s with IREE's
data-tiled code, and streaming bandwidth) and stores them per user
(`calibration_path()`); `host_cpu()` then uses them instead of estimates.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from xsplit.diagnostics import XsplitError
from xsplit.files import write_output

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class CpuInfo:
    name: str
    cores: int
    l1d: int
    """Bytes of L1 data cache per core."""
    l2: int
    """Bytes of L2 per core (its share where cores share it)."""
    l3: int
    """Bytes of last-level cache per core (its share)."""
    simd_bits: int
    """The widest vector registers IREE's x86 code uses: 512 (AVX-512), 256, 128."""
    fma: bool
    vnni: bool = False
    bf16: bool = False
    ghz: float = 3.0
    flops_per_core: float | None = None
    """Measured f32 FLOP/s of one core (calibration); None: estimated from SIMD."""
    bandwidth: float | None = None
    """Measured streaming bytes/s, all cores (calibration); None: estimated."""
    read_bandwidth: float | None = None
    """Measured bytes/s read from memory already written, all cores (a sum
    over 128 MiB; calibration); None: three times `bandwidth`."""
    source: str = "detected"
    family: int | None = None
    """The x86 CPU family /proc/cpuinfo gives (AMD: 25 for Zen 3 and 4, 26 for
    Zen 5), where it gives one."""
    l2_ways: int = 8
    """Ways of L2 associativity (sysfs's; 8 where it does not say): how many
    rows a power-of-two stride apart one set holds."""

    @property
    def f32_lanes(self) -> int:
        return self.simd_bits // 32

    def peak_flops_per_core(self) -> float:
        """Datasheet-style f32 peak: two FMA pipes of `f32_lanes`, 2 flops each.
        AMD's Zen 4 runs AVX-512 on 256-bit pipes, so counts as AVX2 there;
        Zen 5 (family 26) has 512-bit pipes: a 2-core EPYC of that family
        calibrated at 215 GFLOP/s per core, against the 96 of the halved count
        at 3 GHz, and with those 96 the model took data tiling for
        512x768x16384 (67 ms) over the split (31 ms)."""
        lanes = self.f32_lanes
        if self._halves_avx512():
            lanes = min(lanes, 8)
        return 2 * (2 if self.fma else 1) * lanes * self.ghz * 1e9

    def _halves_avx512(self) -> bool:
        if self.name.startswith("znver"):
            return self.name in ("znver3", "znver4")
        return "AMD" in self.name.upper() and (self.family is None or self.family < 26)

    def f32_flops_per_core(self) -> float:
        """What the model takes one core to reach on IREE's mmt4d code: the
        calibrated rate, else a fraction of the peak that IREE's code reached
        on the machines measured (bench/RESULTS.md)."""
        if self.flops_per_core is not None:
            return self.flops_per_core
        # Calibrated on a 2-core Zen 4: 108 GFLOP/s per core against this
        # "peak" of 96 (its clock is above the 3 GHz assumed).
        return self.peak_flops_per_core()

    def memory_bandwidth(self) -> float:
        """Bytes/s streamed into freshly allocated memory, all cores (what a
        pack or a partial buffer costs): calibrated, else 3.1 GB/s per core,
        as measured on the 2-core Zen 4."""
        if self.bandwidth is not None:
            return self.bandwidth
        return 3.1e9 * self.cores

    def describe(self) -> str:
        rates = ""
        if self.flops_per_core is not None:
            rates = f", calibrated {self.flops_per_core / 1e9:.0f} GFLOP/s per core"
        if self.bandwidth is not None:
            rates += f", {self.bandwidth / 1e9:.0f} GB/s"
        if self.read_bandwidth is not None:
            rates += f" written, {self.read_bandwidth / 1e9:.0f} GB/s read"
        return (
            f"{self.name} ({self.source}): {self.cores} cores, L1d {self.l1d // KIB} KiB, "
            f"L2 {self.l2 // KIB} KiB, L3 {self.l3 // KIB} KiB per core, "
            f"{self.simd_bits}-bit SIMD{' + FMA' if self.fma else ''}{rates}"
        )


NAMED_CPUS: dict[str, CpuInfo] = {
    c.name: c
    for c in (
        CpuInfo("znver3", 2, 32 * KIB, 512 * KIB, 16 * MIB, 256, True, ghz=3.0, source="named"),
        CpuInfo(
            "znver4", 2, 32 * KIB, 1 * MIB, 16 * MIB, 512, True, vnni=True, bf16=True,
            ghz=3.0, source="named",
        ),
        CpuInfo("skylake-avx512", 2, 32 * KIB, 1 * MIB, 1375 * KIB, 512, True, ghz=3.0,
                source="named", l2_ways=16),
        CpuInfo("haswell", 2, 32 * KIB, 256 * KIB, 2 * MIB, 256, True, ghz=3.0, source="named"),
    )
}
"""CPUs by LLVM's name, 2 cores each (override `cores=` for more)."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _size(text: str) -> int:
    text = text.strip().upper()
    for suffix, scale in (("K", KIB), ("M", MIB), ("G", 1024 * MIB)):
        if text.endswith(suffix):
            return int(float(text[:-1]) * scale)
    return int(text)


def _cpu_list_count(text: str) -> int:
    count = 0
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            count += int(hi) - int(lo) + 1
        elif part:
            count += 1
    return count


def affinity_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _data_caches(sysfs: Path) -> Iterator[tuple[int, Path]]:
    """The level and sysfs folder of each data or unified cache of cpu0."""
    base = sysfs / "cpu0" / "cache"
    if not base.is_dir():
        return
    for index in sorted(base.glob("index*")):
        kind, level = _read(index / "type"), _read(index / "level")
        if kind in ("Data", "Unified") and level is not None:
            yield int(level), index


def read_caches(sysfs: Path = Path("/sys/devices/system/cpu")) -> dict[int, int]:
    """Per-core bytes of each data or unified cache level of cpu0."""
    caches: dict[int, int] = {}
    for level, index in _data_caches(sysfs):
        size = _read(index / "size")
        if size is None:
            continue
        sharing = _read(index / "shared_cpu_list")
        share = max(1, _cpu_list_count(sharing)) if sharing else 1
        caches[level] = _size(size) // share
    return caches


def read_l2_ways(sysfs: Path = Path("/sys/devices/system/cpu")) -> int | None:
    """The associativity of cpu0's level-2 data or unified cache, if sysfs says."""
    for level, index in _data_caches(sysfs):
        ways = _read(index / "ways_of_associativity")
        if level == 2 and ways and ways.isdigit() and int(ways):
            return int(ways)
    return None


def read_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, set[str]]:
    """The model name and flags of the first CPU listed."""
    text = _read(cpuinfo) or ""
    name, flags = platform.processor() or "cpu", set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and name in ("cpu", "", platform.processor()):
            name = value.strip()
        if key in ("flags", "Features"):
            flags = set(value.split())
            break
    return name, flags


def read_family(cpuinfo: Path = Path("/proc/cpuinfo")) -> int | None:
    """The `cpu family` of the first CPU listed, where there is one."""
    for line in (_read(cpuinfo) or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "cpu family":
            try:
                return int(value.strip())
            except ValueError:
                return None
    return None


def detect(
    sysfs: Path = Path("/sys/devices/system/cpu"), cpuinfo: Path = Path("/proc/cpuinfo")
) -> CpuInfo:
    """The running machine's CPU."""
    name, flags = read_flags(cpuinfo)
    caches = read_caches(sysfs)
    simd = 512 if "avx512f" in flags else 256 if "avx2" in flags or "avx" in flags else 128
    return CpuInfo(
        name or "cpu",
        affinity_cores(),
        caches.get(1, 32 * KIB),
        caches.get(2, 512 * KIB),
        caches.get(3, 0),
        simd,
        "fma" in flags or "asimd" in flags,
        vnni="avx512_vnni" in flags or "avx_vnni" in flags,
        bf16="avx512_bf16" in flags,
        family=read_family(cpuinfo),
        l2_ways=read_l2_ways(sysfs) or CpuInfo.l2_ways,
    )


def calibration_path() -> Path:
    """Where `xsplit bench --calibrate` keeps its measurements for this user."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "xsplit" / "cpu-calibration.json"


def load_calibration(cpu: CpuInfo, path: Path | None = None) -> CpuInfo:
    """`cpu` with the rates measured on it, if a calibration for this CPU
    (same name, cores and SIMD width) was saved."""
    path = path or calibration_path()
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return cpu
    entry = data.get(_key(cpu)) if isinstance(data, dict) else None
    if not isinstance(entry, dict):
        return cpu
    try:
        return replace(
            cpu,
            flops_per_core=float(entry["flops_per_core"]),
            bandwidth=float(entry["bandwidth"]),
            read_bandwidth=(
                float(entry["read_bandwidth"]) if entry.get("read_bandwidth") else None
            ),
            source=f"{cpu.source}, calibrated",
        )
    except (KeyError, TypeError, ValueError):
        return cpu


def save_calibration(
    cpu: CpuInfo,
    flops_per_core: float,
    bandwidth: float,
    path: Path | None = None,
    read_bandwidth: float | None = None,
) -> Path:
    path = path or calibration_path()
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[_key(cpu)] = {
        "flops_per_core": flops_per_core,
        "bandwidth": bandwidth,
        "read_bandwidth": read_bandwidth,
        "cpu": asdict(cpu),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise XsplitError(f"cannot write '{path}': {e.strerror}") from None
    write_output(str(path), json.dumps(data, indent=1))
    return path


def _key(cpu: CpuInfo) -> str:
    return f"{cpu.name}|{cpu.cores}|{cpu.simd_bits}"


_OVERRIDABLE = {"cores": int, "l1d": int, "l2": int, "l3": int, "simd_bits": int, "ghz": float,
                "l2_ways": int, "flops_per_core": float, "bandwidth": float}


def parse_cpu_spec(spec: str) -> CpuInfo:
    """`host`, a named CPU (`znver3`), either followed by `:key=value,...`
    overrides (`host:cores=8,l2=2M`); cache sizes take K/M suffixes."""
    base, _, overrides = spec.partition(":")
    if base in ("", "host"):
        cpu = load_calibration(detect())
    elif base in NAMED_CPUS:
        cpu = NAMED_CPUS[base]
    else:
        raise ValueError(f"unknown CPU '{base}', expected host or one of {', '.join(NAMED_CPUS)}")
    changes: dict[str, object] = {}
    for item in filter(None, overrides.split(",")):
        key, _, value = item.partition("=")
        if key not in _OVERRIDABLE:
            raise ValueError(
                f"unknown CPU override '{key}', expected one of {', '.join(_OVERRIDABLE)}"
            )
        try:
            changes[key] = _size(value) if key in ("l1d", "l2", "l3") else _OVERRIDABLE[key](value)
        except ValueError:
            raise ValueError(f"bad value '{value}' for CPU override '{key}'") from None
    if changes:
        cpu = replace(cpu, source=f"{cpu.source}, overridden", **changes)  # type: ignore[arg-type]
    return cpu


def cpu_for_features(base: CpuInfo, cpu: str, features: str, native_vector_size: int | None) -> CpuInfo:
    """`base` (the machine it runs on: cores, caches) as an llvm-cpu
    executable target describes its code: SIMD from the `cpu_features`
    string, as IREE's CPU encoding resolver reads it (`+avx512f` is
    512-bit, `+avx` 256-bit; `+avx2` alone is neither), else from
    `native_vector_size` (bytes) where the features say nothing."""
    flags = {f[1:] for f in features.split(",") if f.startswith("+")}
    if "avx512f" in flags:
        simd = 512
    elif "avx" in flags:
        simd = 256
    elif not flags and native_vector_size:
        simd = min(512, 8 * native_vector_size)
    else:
        simd = 128
    changed = replace(
        base,
        name=cpu or base.name,
        simd_bits=simd,
        fma="fma" in flags or (not flags and base.fma),
        vnni=bool({"avx512vnni", "avxvnni"} & flags),
        bf16="avx512bf16" in flags,
        source=f"{base.source}, features {features or 'none'}",
    )
    if simd != base.simd_bits:
        # A calibration measured other SIMD: scale it by the lanes.
        rate = base.f32_flops_per_core() * simd / base.simd_bits
        changed = replace(changed, flops_per_core=rate)
    return changed


_HOST: CpuInfo | None = None


def forget_host() -> None:
    """Drop the host CPU read so far, so that the next `host_cpu` reads the
    calibration saved since."""
    global _HOST
    _HOST = None


def host_cpu() -> CpuInfo:
    """This machine's CPU with its calibration, read once per process
    (`XSPLIT_CPU` names another CPU spec, as `parse_cpu_spec` reads it)."""
    global _HOST
    if _HOST is None:
        spec = os.environ.get("XSPLIT_CPU", "host")
        _HOST = parse_cpu_spec(spec)
    return _HOST
