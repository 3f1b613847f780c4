"""Loops distributed to processors, and the barriers they need, placed and proved."""
