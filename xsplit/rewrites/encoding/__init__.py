"""Data tiling: encodings set on contractions and materialized, early or late."""
