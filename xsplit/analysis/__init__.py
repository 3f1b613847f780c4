"""Analyses shared by passes and the cost model."""
