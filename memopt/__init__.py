"""memopt: static memory planning for neural-network graphs on edge AI chips.

The installed namespace groups the repository's top-level folders:
``memopt.planning`` (IR-free planning core), ``memopt.dialects`` (the ``memopt`` xDSL dialect),
``memopt.passes`` (IR passes) and ``memopt.tools`` (command-line drivers).
"""

__version__ = "0.1.0"
