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

The read bandwidth is the yardstick for a matrix-vector product, which reads
its matrix once and writes next to nothing: the best of a read-only pass over
256 MiB on every core (a C loop, one thread a core, each over its slice) and
numpy's own matrix-vector product over a matrix of that size. A single
thread's sum (numpy's `sum` is compute-bound at about 18 GB/s here) or a copy
(half its bytes are writes) understates it. The copy bandwidth, numpy's copy
of a 256 MiB array into one already touched, bytes read plus bytes written,
is kept beside it.
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
from xsplit.targets.cpu_info import host_cpu, read_flags

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


_READ_PROBE = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
typedef struct { const uint64_t *words; long count; uint64_t folded; int cpu; } slice_t;
/* XOR-folds a slice: no arithmetic to wait on, so the loop runs at the rate
   memory delivers; the folded word is kept so the reads cannot be dropped. */
static void *fold(void *arg) {
  slice_t *s = arg;
  /* One thread a core, as IREE pins its workers: left to the scheduler,
     two new threads sometimes shared a core for a whole pass (35 against
     62 GB/s, in turn). */
  if (s->cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(s->cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  }
  uint64_t a = 0, b = 0, c = 0, d = 0;
  for (long i = 0; i + 4 <= s->count; i += 4) {
    a ^= s->words[i]; b ^= s->words[i + 1]; c ^= s->words[i + 2]; d ^= s->words[i + 3];
  }
  s->folded = a ^ b ^ c ^ d;
  return 0;
}
/* Seconds for `threads` threads to read `count` words, each its own slice. */
double read_pass(const uint64_t *words, long count, int threads) {
  pthread_t ids[256];
  slice_t slices[256];
  if (threads > 256) threads = 256;
  long per = count / threads;
  cpu_set_t allowed;
  int cpus[256], found = 0;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE && found < threads; c++)
      if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  double start = now();
  for (int t = 0; t < threads; t++) {
    slices[t].words = words + t * per;
    slices[t].count = per;
    slices[t].cpu = t < found ? cpus[t] : -1;
    pthread_create(&ids[t], 0, fold, &slices[t]);
  }
  uint64_t all = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(ids[t], 0);
    all ^= slices[t].folded;
  }
  double seconds = now() - start;
  __asm__ volatile("" : : "r"(all));
  return seconds;
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


def _build(directory: str, name: str, source_text: str, options: list[str]) -> ctypes.CDLL | None:
    """`source_text` built as a shared library with the system's C compiler;
    None where there is none or the build fails."""
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None:
        return None
    source = Path(directory) / f"{name}.c"
    library = Path(directory) / f"{name}.so"
    write_output(str(source), source_text)
    build = subprocess.run(
        [compiler, *options, "-shared", "-fPIC", str(source), "-o", str(library)],
        capture_output=True,
    )
    if build.returncode != 0:
        return None
    return ctypes.CDLL(str(library))


def _build_probe(directory: str, flags: set[str]) -> ctypes.CDLL | None:
    isa = []
    if "avx512f" in flags:
        isa = ["-mavx512f", "-mfma"]
    elif "avx2" in flags and "fma" in flags:
        isa = ["-mavx2", "-mfma"]
    probe = _build(directory, "probe", _PROBE, ["-O2", *isa])
    if probe is None:
        return None
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


@dataclass(frozen=True)
class ReadBandwidth:
    """Bytes per second this machine reads from memory written before."""

    all_cores: float | None
    """A read-only pass on every core; None where no C compiler was found."""
    numpy_matvec: float
    """The matrix's bytes over numpy's matrix-vector product's time (its BLAS, all cores)."""

    @property
    def best(self) -> float:
        """The machine's read bandwidth: the faster of the two."""
        return max(self.numpy_matvec, self.all_cores or 0.0)

    def describe(self) -> str:
        probe = "no C compiler" if self.all_cores is None else f"{self.all_cores / 1e9:.1f}"
        return (
            f"read {self.best / 1e9:.1f} GB/s (best of a read pass on every core, {probe}, "
            f"and numpy's matvec, {self.numpy_matvec / 1e9:.1f})"
        )


class ReadPass:
    """A read-only pass on every core over a buffer of `nbytes`: a call
    timed beside the programs of `xsplit bench`, so that a matvec's rate
    over its matrix is compared with what the machine reads in the same
    minutes (this virtual machine's memory read 45 to 80 GB/s from one
    hour to the next). `ReadPass.build` returns None without a C compiler."""

    def __init__(self, library: ctypes.CDLL, nbytes: int, threads: int):
        self._library = library
        self._words = np.ones(max(1, nbytes // 8), dtype=np.uint64)
        self._threads = threads
        self.nbytes = self._words.nbytes

    @staticmethod
    def build(nbytes: int) -> ReadPass | None:
        # Loaded, the library outlives its file; -march=native gives the
        # widest loads this CPU has, where the compiler knows it.
        with tempfile.TemporaryDirectory(prefix="xsplit-read-") as directory:
            library = _build(
                directory, "read", _READ_PROBE, ["-O3", "-march=native", "-pthread"]
            ) or _build(directory, "read", _READ_PROBE, ["-O3", "-pthread"])
        if library is None:
            return None
        library.read_pass.restype = ctypes.c_double
        library.read_pass.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_int]
        return ReadPass(library, nbytes, host_cpu().cores)

    def __call__(self) -> float:
        """Reads the buffer once; returns the seconds it took."""
        return self._library.read_pass(self._words.ctypes.data, self._words.size, self._threads)


def read_bandwidth(mib: int = 256, repeats: int = 7) -> ReadBandwidth:
    """The best of `repeats` read passes over `mib` MiB on every core, and
    the best of `repeats` numpy matrix-vector products over as many bytes:
    the best, not the median, because a read's rate only falls to noise."""
    nbytes = mib * 1024 * 1024
    probe = ReadPass.build(nbytes)
    all_cores = None if probe is None else probe.nbytes / min(probe() for _ in range(repeats))
    del probe
    matrix = np.random.default_rng(0).standard_normal((nbytes // 4 // 4096, 4096), dtype=np.float32)
    vector = np.ones(matrix.shape[0], dtype=np.float32)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        vector @ matrix
        times.append(time.perf_counter() - start)
    return ReadBandwidth(all_cores, matrix.nbytes / min(times))
