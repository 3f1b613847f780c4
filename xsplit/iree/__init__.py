"""Thin wrappers around the IREE tools and runtime: iree-opt, iree-compile,
running a module on the CPU, and reading workgroup counts."""
