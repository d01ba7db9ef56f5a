"""Tables with confidence intervals and figures of sweep results.

    >>> from ncmesh.analysis import summarize, plot_line, save_figure
    >>> summarize("out/sweep", "goodput_kbps", by="hops")     # DataFrame: hops, goodput_kbps_mean, _ci95, n
    >>> save_figure(plot_line("out/sweep", x="hops", y="goodput_kbps"), "goodput")  # goodput.png/.svg

`results` arguments take a results directory (the layout `ncmesh sweep` writes) or the
object `ncmesh.sweep.open_results()` returns. pandas and matplotlib are imported on use.
"""

from .plot import label, plot_cdf, plot_line, plot_series, save_figure, series_frame
from .results import load_results, param_columns
from .stats import mean_ci, t_quantile
from .table import format_table, per_run, summarize, with_ci_text

__all__ = [
    "load_results", "param_columns", "per_run", "summarize", "format_table", "with_ci_text", "mean_ci", "t_quantile",
    "plot_line", "plot_cdf", "plot_series", "series_frame", "save_figure", "label",
]
