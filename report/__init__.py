"""Plan reports: the memory-layout picture, the live-bytes curve, the DMA timeline and the summary
tables (``memopt-report``). Readers turn a planned module or a plan CSV into
:mod:`memopt.report.model` data; :mod:`memopt.report.figures` draws it with matplotlib,
:mod:`memopt.report.summary` prints it and :mod:`memopt.report.html` puts both on one page."""
