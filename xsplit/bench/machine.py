"""What this machine can do at most, measured rather than looked up: its f32
peak as cores x FMA width x clock, and the bandwidth of a plain copy.

The clock is not what /proc/cpuinfo says (a virtual machine reports the
nominal frequency; the cores run at their boost clock), so it is timed: a
chain of dependent integer adds retires one add per cycle on every x86 and
Arm core. The FMA width is timed too, as FMAs retired per cycle on
independent accumulators at the widest vectors the CPU's flags offer: it
counts the FMA pipes and whether a 512-bit FMA runs at full width (Zen 5,
Intel server cores) or as two halves (Zen 4). Both are measured by a small
C program built with the system's C compiler; without one, the clock falls
back to /proc/cpuinfo and the width to the flags (two pipes), and the peak
says so.

The copy bandwidth is numpy's copy of a 256 MiB array into one already
touched, bytes read plus bytes written: the yardstick for a matvec, which
must stream its matrix at close to it.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xsplit.files import write_output
from xsplit.target.cpu_info import host_cpu, read_flags

_PROBE = r"""
#include <stdint.h>
#include <time.h>
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
/* Seconds for n iterations of four dependent adds: 4n cycles. */
double add_chain(long n) {
  uint64_t x = 0;
  double start = now();
  for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
    __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
#elif defined(__aarch64__)
    __asm__ volatile("add %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1\n\tadd %0, %0, #1" : "+r"(x));
#endif
  }
  return now() - start;
}
#define TWELVE(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
/* f32 FMA lanes retired per second on twelve independent accumulators. */
double fma_lanes_per_second(long n) {
#if defined(__AVX512F__)
#define VEC __m512
#define LANES 16
#define SET _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#elif defined(__AVX2__) && defined(__FMA__)
#define VEC __m256
#define LANES 8
#define SET _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#endif
#ifdef VEC
#define DECLARE(i) VEC a##i = SET(0.001f * i);
  TWELVE(DECLARE)
  VEC b = SET(0.9999f), c = SET(0.0001f);
  double start = now();
  for (long i = 0; i < n; i++) {
#define STEP(i) a##i = FMA(a##i, b, c);
    TWELVE(STEP)
#define KEEP(i) __asm__ volatile("" : "+x"(a##i));
    TWELVE(KEEP)
  }
  return 12.0 * LANES * n / (now() - start);
#else
  return 0.0;
#endif
}
"""


@dataclass(frozen=True)
class Peak:
    cores: int
    clock_hz: float
    fma_lanes_per_cycle: float
    """f32 FMA lanes one core retires per cycle (pipes x vector width)."""
    measured: bool
    """False where no C compiler was found and the clock and width are read, not timed."""

    @property
    def flops(self) -> float:
        """All cores, 2 flops per FMA lane."""
        return self.cores * self.fma_lanes_per_cycle * 2 * self.clock_hz

    def describe(self) -> str:
        how = "timed" if self.measured else "read from /proc/cpuinfo and the flags, not timed"
        return (
            f"{self.flops / 1e9:.0f} GFLOP/s f32 peak = {self.cores} cores x "
            f"{self.fma_lanes_per_cycle:.0f} FMA lanes x 2 x {self.clock_hz / 1e9:.2f} GHz ({how})"
        )


def _flag_width(flags: set[str]) -> int:
    if "avx512f" in flags:
        return 16
    if "avx2" in flags and "fma" in flags:
        return 8
    return 4


def _build_probe(directory: str, flags: set[str]) -> ctypes.CDLL | None:
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None:
        return None
    source = Path(directory) / "probe.c"
    library = Path(directory) / "probe.so"
    write_output(str(source), _PROBE)
    isa = []
    if "avx512f" in flags:
        isa = ["-mavx512f", "-mfma"]
    elif "avx2" in flags and "fma" in flags:
        isa = ["-mavx2", "-mfma"]
    build = subprocess.run(
        [compiler, "-O2", *isa, "-shared", "-fPIC", str(source), "-o", str(library)],
        capture_output=True,
    )
    if build.returncode != 0:
        return None
    probe = ctypes.CDLL(str(library))
    probe.add_chain.restype = probe.fma_lanes_per_second.restype = ctypes.c_double
    probe.add_chain.argtypes = probe.fma_lanes_per_second.argtypes = [ctypes.c_long]
    return probe


def measure_peak(repeats: int = 5) -> Peak:
    """This machine's f32 peak: the best of `repeats` timings of each probe."""
    cpu = host_cpu()
    _, flags = read_flags()
    with tempfile.TemporaryDirectory(prefix="xsplit-peak-") as directory:
        probe = _build_probe(directory, flags)
        if probe is not None:
            iterations = 200_000_000
            clock = max(4 * iterations / probe.add_chain(iterations) for _ in range(repeats))
            lanes = max(probe.fma_lanes_per_second(50_000_000) for _ in range(repeats)) / clock
            if lanes > 0:
                # Round to what a core can retire: a whole number of vectors.
                width = _flag_width(flags)
                lanes = max(width / 2, round(lanes / (width / 2)) * (width / 2))
                return Peak(cpu.cores, clock, lanes, True)
    return Peak(cpu.cores, _cpuinfo_clock(), 2 * _flag_width(flags), False)


def _cpuinfo_clock() -> float:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return float(line.split(":")[1]) * 1e6
    except (OSError, ValueError):
        pass
    return 3e9


def copy_bandwidth(mib: int = 256, repeats: int = 7) -> float:
    """Bytes per second (read + written) of numpy copying `mib` MiB into an
    array it has written before: the median of `repeats` copies."""
    source = np.random.default_rng(0).standard_normal(mib * 1024 * 1024 // 4, dtype=np.float32)
    target = np.empty_like(source)
    np.copyto(target, source)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(target, source)
        times.append(time.perf_counter() - start)
    return 2 * source.nbytes / statistics.median(times)
