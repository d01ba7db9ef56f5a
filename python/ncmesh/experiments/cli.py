"""`ncmesh reproduce` (registered in ncmesh.cli.COMMANDS: add_parser, cmd_reproduce)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

EXIT_USER_ERROR = 2
EXIT_BROKEN_EXPERIMENT = 1


def add_parser(sub):
    p = sub.add_parser(
        "reproduce", help="run a registered experiment (reproduction) and write its tables, figures and report",
        description="Runs a registered experiment: its sweep, then its tables (with 95% confidence "
                    "intervals and, where a paper or reference printed numbers, those numbers beside "
                    "ours), figures, DIR/summary.json and DIR/report.html. --list shows the experiments.")
    p.add_argument("name", nargs="?", metavar="NAME", help="experiment name (see --list)")
    p.add_argument("--list", action="store_true", help="list the experiments")
    p.add_argument("--quick", action="store_true", help="fewer seeds and shorter runs: a first look in a few minutes")
    p.add_argument("--out", metavar="DIR", help="output directory (default out/NAME)")
    p.add_argument("--seeds", type=int, metavar="N", help="use seeds 1..N instead of the experiment's count")
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="simulations run at once (default: the sweep runner's)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress output (a move or deletion of earlier results is still said)")
    p.add_argument("--force", action="store_true",
                   help="delete results of a different sweep found in DIR/results (an earlier --quick "
                        "run, an edited experiment) instead of moving them to DIR/previous-<time>/")
    return p


def cmd_reproduce(args) -> int:
    from . import ExperimentError, available, get, reproduce

    try:
        exps = available()
    except ExperimentError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BROKEN_EXPERIMENT
    if args.list:
        width = max((len(n) for n in exps), default=0)
        for name, module in exps.items():
            print(f"{name:<{width}}  {module.TITLE}")
        return 0
    if not args.name:
        print("error: reproduce: give an experiment NAME (ncmesh reproduce --list shows them)", file=sys.stderr)
        return EXIT_USER_ERROR
    try:
        module = get(args.name)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return EXIT_USER_ERROR
    if args.seeds is not None and args.seeds < 1:
        print("error: --seeds must be at least 1", file=sys.stderr)
        return EXIT_USER_ERROR
    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USER_ERROR
    out = Path(args.out) if args.out else Path("out") / args.name
    command = _command_line() or (f"ncmesh reproduce {args.name}" + (" --quick" if args.quick else "")
                                  + f" --out {out}")

    def log(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr)

    log(f"{args.name}: {module.TITLE}" + (" (quick)" if args.quick else ""))
    from ..sweep.progress import for_experiment
    summary = reproduce(args.name, quick=args.quick, out_dir=out, seeds=args.seeds, jobs=args.jobs,
                        progress=False if args.quiet else for_experiment(module, args.quick, args.seeds),
                        command=command, log=log, force=args.force)
    for md in summary["outputs"]["tables"]:
        if md.endswith(".md"):
            print()
            print((out / md).read_text(encoding="utf-8").rstrip())
    runs = summary["runs"]
    print()
    for label, value, *_ in summary.get("highlights", []):
        print(f"{label}: {value}")
    print(f"runs: {runs['done']} done, {runs['reused']} reused, {runs['failed']} failed ({runs['wall_s']:.1f} s)")
    print(f"wrote {out / 'summary.json'}")
    for path in summary["outputs"]["tables"] + summary["outputs"]["figures"]:
        print(f"wrote {out / path}")
    print(f"wrote {out / summary['outputs']['report']}")
    return 1 if runs["failed"] else 0


def _command_line() -> str | None:
    import shlex

    prog = os.path.basename(sys.argv[0]) if sys.argv else ""
    if prog in ("ncmesh", "__main__.py"):
        return "ncmesh " + shlex.join(sys.argv[1:])
    return None
