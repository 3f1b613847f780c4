"""End-to-end checks against IREE: a rewrite compiled and run beside the
original (`check`), and the README's main job (`e2e`). The IREE wrappers they
use are in `xsplit.iree`; the target table in `xsplit.targets`."""
