"""Reductions fused into their GEMM producer and lowered in stages (atomic, LDS, subgroup)."""
