"""split-k: reductions split into partial reductions over chunks of K, then merged."""
