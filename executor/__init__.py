"""memopt.executor: numpy execution of memopt programs, unplanned or in one planned arena."""
