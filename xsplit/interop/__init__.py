"""Handing xsplit's output to IREE: compiling (`iree_compile`), running on the
CPU (`cpu_runner`), and reading workgroup counts (`workgroups`). The target
flags live in one table, `targets.TARGETS`."""
