"""memopt.passes."""
