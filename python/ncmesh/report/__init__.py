"""Self-contained HTML reports (one page, inline CSS, figures embedded).

    >>> from ncmesh.report import write_results_report
    >>> write_results_report("out/sweep")          # out/sweep/report.html

`Report`, `Table`, `Figure` and `Claims` (of `ClaimRow`s) build a page piece by piece in the
layout every report shares (the experiments use them).
"""

from .html import ClaimRow, Claims, Figure, Report, Table
from .results import results_report, write_results_report

__all__ = ["Report", "Table", "Figure", "Claims", "ClaimRow", "results_report", "write_results_report"]
