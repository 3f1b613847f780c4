"""The `xdsl.universe` entry point: stock `xdsl-opt` sees xsplit's dialects and
passes. Loading it also adds xsplit's upstream ops (`scf.forall`, ...) to xDSL's
own dialects, since a universe may not register a dialect name twice."""

from xdsl.universe import Universe

from xsplit.dialects import XSPLIT_DIALECTS, register_upstream_extensions
from xsplit.passes import XSPLIT_PASSES

register_upstream_extensions()

XSPLIT_UNIVERSE = Universe(all_dialects=dict(XSPLIT_DIALECTS), all_passes=dict(XSPLIT_PASSES))
