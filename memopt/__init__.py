"""memopt: static memory planning for neural-network graphs on edge AI chips.

The installed namespace groups the repository's top-level folders:
``memopt.planning`` (IR-free planning core), ``memopt.dialects`` (the ``memopt`` xDSL dialect),
``memopt.passes`` (IR passes) and ``memopt.tools`` (command-line drivers), ... (pyproject's
``package-dir``). This folder holds a link to each of them too (``memopt/planning`` →
``../planning`` ...), so that the repository itself is the package as installed for the tools
that read it from the file system rather than import it: ``lint-imports`` and ``mypy`` run in the
repository as they are.
"""

__version__ = "0.1.0"
