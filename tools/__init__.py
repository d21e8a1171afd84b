"""memopt.tools."""
