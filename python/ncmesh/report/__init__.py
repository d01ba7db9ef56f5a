"""Self-contained HTML reports (one page, inline CSS, figures embedded).

    >>> from ncmesh.report import write_results_report
    >>> write_results_report("out/sweep")          # out/sweep/report.html

`Report`, `Table` and `Figure` build a page piece by piece (the experiments use them).
"""

from .html import Figure, Report, Table
from .results import results_report, write_results_report

__all__ = ["Report", "Table", "Figure", "results_report", "write_results_report"]
