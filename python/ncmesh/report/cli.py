"""`ncmesh report` (registered in ncmesh.cli.COMMANDS: add_parser, cmd_report)."""

from __future__ import annotations

import shlex
import sys


def add_parser(sub):
    p = sub.add_parser("report", help="write a self-contained HTML report of a results directory",
                       description="One HTML page (figures embedded) in the layout every report shares: "
                                   "the headline (the runs that finished; a table of goodput, RTT, "
                                   "retransmissions and timeouts with 95% confidence intervals per parameter "
                                   "combination), figures, the errors, and the settings (runs, seeds, the sweep, "
                                   "the base scenario) folded.")
    p.add_argument("results", metavar="RESULTS", help="results directory (written by ncmesh sweep)")
    p.add_argument("-o", "--output", metavar="FILE", help="the HTML file (default RESULTS/report.html)")
    p.add_argument("--title", help="page title")
    return p


def command_line() -> str | None:
    """The ncmesh command line being run, when the process is the ncmesh command."""
    import os

    prog = os.path.basename(sys.argv[0]) if sys.argv else ""
    if prog in ("ncmesh", "__main__.py") or (prog == "-m" and len(sys.argv) > 1):
        return "ncmesh " + shlex.join(sys.argv[1:])
    return None


def cmd_report(args) -> int:
    from .results import write_results_report

    path = write_results_report(args.results, args.output, title=args.title, command=command_line())
    print(f"wrote {path}")
    return 0
