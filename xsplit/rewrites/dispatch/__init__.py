"""Dispatch formation, and export of kernels as custom dispatches iree-compile takes."""
