"""IR helpers that more than one subsystem builds with."""
