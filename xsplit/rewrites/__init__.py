"""xsplit's passes, one module each."""
