"""memopt.dialects."""
