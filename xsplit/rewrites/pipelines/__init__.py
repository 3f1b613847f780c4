"""Pipelines that choose passes per op: `auto`."""
