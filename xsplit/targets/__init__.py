"""The machine model: the target table (flags, tile rules, the cost model's
numbers) and the host CPU's features. Rewrites, the cost model and the IREE
wrappers all read it, so it sits below them all."""
