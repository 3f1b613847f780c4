"""Benchmark drivers behind `xsplit bench`: xsplit against IREE alone and numpy."""
