"""`ncmesh table` and `ncmesh plot` (registered in ncmesh.cli.COMMANDS)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_USER_ERROR = 2


def add_table_parser(sub):
    p = sub.add_parser(
        "table", help="means with 95%% confidence intervals across seeds of a results directory",
        description="Means with 95% confidence intervals (Student t, n-1 degrees of freedom) across "
                    "seeds, per group of --by keys. Each metric is first reduced to one number per run "
                    "(--per-run: mean or sum over the run's flows or nodes).")
    p.add_argument("results", metavar="RESULTS", help="results directory (written by ncmesh sweep)")
    p.add_argument("--by", metavar="KEYS", help="group by these parameters, comma-separated "
                   "(default: every sweep parameter; '' pools all runs)")
    p.add_argument("--metric", "-m", action="append", metavar="M",
                   help="numeric column of the flows, nodes or runs table (default goodput_kbps); "
                        "repeatable or comma-separated")
    p.add_argument("--table", dest="table_name", choices=["flows", "nodes", "runs"],
                   help="table the metric is read from (default: the first of flows, nodes, runs that has it)")
    p.add_argument("--per-run", dest="per_run", default="mean", choices=["mean", "sum", "min", "max"],
                   help="how a run's flows/nodes are reduced to one number (default mean)")
    p.add_argument("--format", "-f", dest="fmt", choices=["text", "csv", "markdown"],
                   help="output format (default text, or from the -o extension: .csv, .md)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    return p


def add_plot_parser(sub):
    p = sub.add_parser(
        "plot", help="plot a results directory (PNG and SVG)",
        description="Figures of a results directory, written as PREFIX.png and PREFIX.svg. "
                    "line: mean of --y over seeds against --x, 95% CI error bars, one line per --hue; "
                    "cdf: empirical CDF over runs of the per-run --y, one curve per --hue; "
                    "series: a time-series column (flow_series/node_series) over time, mean over seeds "
                    "with a 95% CI band, one curve per --hue.")
    p.add_argument("results", metavar="RESULTS", help="results directory (written by ncmesh sweep)")
    p.add_argument("--x", metavar="KEY", help="parameter on the x axis (line plots)")
    p.add_argument("--y", metavar="METRIC", default="goodput_kbps", help="metric (default goodput_kbps)")
    p.add_argument("--hue", metavar="KEY", help="one curve per value of this parameter (comma-separated for several); "
                   "default: every parameter that varies, other than --x (runs are never pooled across them)")
    p.add_argument("--kind", choices=["line", "cdf", "series"], default=None,
                   help="line (default when --x is given), cdf (default otherwise) or series")
    p.add_argument("--table", dest="table_name", help="table the metric is read from")
    p.add_argument("--per-run", dest="per_run", default="mean", choices=["mean", "sum", "min", "max"],
                   help="how a run's flows/nodes are reduced to one number (default mean)")
    p.add_argument("--title", help="figure title")
    p.add_argument("-o", "--output", metavar="PREFIX",
                   help="write PREFIX.png and PREFIX.svg (default RESULTS/figures/<kind>-<y>[-vs-<x>])")
    return p


def _metrics(values) -> list[str]:
    out: list[str] = []
    for v in values or ["goodput_kbps"]:
        out += [m.strip() for m in v.split(",") if m.strip()]
    return out


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USER_ERROR


def cmd_table(args: argparse.Namespace) -> int:
    from .table import format_table, summarize

    fmt = args.fmt
    if fmt is None:
        suffix = Path(args.output).suffix.lower() if args.output else ""
        fmt = {".csv": "csv", ".md": "markdown", ".markdown": "markdown"}.get(suffix, "text")
    try:
        df = summarize(args.results, _metrics(args.metric), by=args.by, table_name=args.table_name,
                       per_run_agg=args.per_run)
    except KeyError as e:
        return _error(e.args[0] if e.args else str(e))
    except ValueError as e:
        return _error(str(e))
    text = format_table(df, fmt)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from . import plot

    kind = args.kind or ("line" if args.x else "cdf")
    if kind == "line" and not args.x:
        return _error("plot: a line plot needs --x KEY (a sweep parameter)")
    try:
        # Runs of different parameter values are never pooled into one curve: the
        # parameters that vary (other than --x) become the curves (--hue), or, when
        # --hue names others, the plot is refused.
        from .results import load_results, ok_runs, param_columns, varying

        res = load_results(args.results)
        hues = [h.strip() for h in (args.hue or "").split(",") if h.strip()]
        left = [k for k in varying(ok_runs(res), param_columns(res)) if k != args.x and k not in hues]
        if left and args.hue is None:
            args.hue = ",".join(left)
            print(f"plot: one curve per {', '.join(left)} (varies in the results; --hue chooses)",
                  file=sys.stderr)
        elif left:
            return _error(f"plot: the results also vary in {', '.join(left)}: add it to --hue "
                          f"(--hue {','.join(hues + left)}) or --x, so that runs of different "
                          f"{', '.join(left)} are not pooled into one curve")
        if kind == "line":
            fig = plot.plot_line(args.results, args.x, args.y, hue=args.hue, table_name=args.table_name,
                                 per_run_agg=args.per_run, title=args.title)
        elif kind == "cdf":
            fig = plot.plot_cdf(args.results, args.y, hue=args.hue, table_name=args.table_name,
                                per_run_agg=args.per_run, title=args.title)
        else:
            fig = plot.plot_series(args.results, args.y, hue=args.hue, table_name=args.table_name,
                                   per_run_agg=args.per_run, title=args.title)
    except KeyError as e:
        return _error(e.args[0] if e.args else str(e))
    except ValueError as e:
        return _error(str(e))
    prefix = args.output
    if not prefix:
        name = f"{kind}-{args.y}" + (f"-vs-{args.x}" if kind == "line" else "") + (f"-by-{args.hue}" if args.hue else "")
        prefix = Path(args.results) / "figures" / plot.safe_name(name)
    png, svg = plot.save_figure(fig, prefix)
    print(f"wrote {png}")
    print(f"wrote {svg}")
    return 0
