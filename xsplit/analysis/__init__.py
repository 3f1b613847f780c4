"""Analyses shared by xsplit's passes."""
