"""`ncmesh sweep FILE [--out DIR] [--jobs N] [--ray [ADDRESS]]`.

Exit status: 0 if every run is done, 1 if any run failed (see DIR/errors/), 2 for a bad
sweep file or command line (one line, `error: <field>: <message>`), 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

EXIT_OK, EXIT_FAILED_RUNS, EXIT_USER_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def add_parser(sub) -> argparse.ArgumentParser:
    """Adds the `sweep` subcommand to the `ncmesh` command's subparsers."""
    p = sub.add_parser("sweep", help="run a parameter sweep (grid x seeds) into a Parquet results directory",
                       description="Runs every run of a sweep file that is not done yet in the results "
                                   "directory (see docs/sweeps.md). Exit status 1 if any run failed.")
    p.add_argument("file", metavar="FILE", help="sweep file (TOML)")
    p.add_argument("--out", metavar="DIR", help="results directory (default results/<name>)")
    p.add_argument("--jobs", "-j", type=int, metavar="N",
                   help="worker processes (default: all cores)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run on Ray: a local instance, or the cluster at ADDRESS (e.g. auto, "
                        "ray://head:10001; DIR must be on a shared filesystem)")
    p.add_argument("--dry-run", action="store_true",
                   help="only check the file and print how many runs there are and how many are done")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    p.add_argument("--fsync", action="store_true",
                   help="fsync every result file before it counts as done (survives power loss, "
                        "not only killed processes; slower)")
    return p


def cmd_sweep(args) -> int:
    from .spec import SweepError, load_sweep

    try:
        sweep = load_sweep(args.file)
        if args.jobs is not None and args.jobs < 1:
            raise SweepError("--jobs", f"{args.jobs} is not allowed: expected at least 1")
        if args.dry_run:
            return _dry_run(sweep, args.out)
    except SweepError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USER_ERROR

    from .runner import RayUnavailable, run_sweep

    previous = _sigterm_as_interrupt()
    try:
        report = run_sweep(sweep, args.out, jobs=args.jobs, ray=args.ray, progress=not args.quiet,
                           fsync=args.fsync)
    except SweepError as e:            # the results directory belongs to another sweep
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except RayUnavailable as e:
        print(f"error: --ray: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print(f"\nsweep {sweep.name}: interrupted; finished runs are kept, run the same command "
              "again to compute the missing ones", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)

    out = report.out_dir
    timing = f"{report.wall_s:.1f} s"
    if report.done + report.failed:
        overhead = max(0.0, 1.0 - report.sim_s / (report.jobs * report.wall_s)) if report.wall_s > 0 else 0.0
        timing += (f" (simulation {report.sim_s:.2f} s on {report.jobs} workers: "
                   f"harness overhead {100 * overhead:.0f}%)")
    print(f"sweep {sweep.name}: {report.total} runs: {report.done} done now, {report.skipped} done "
          f"before, {report.failed} failed, {timing}; results in {out}")
    if report.seeds_used is not None:
        print(seeds_line(sweep, report.seeds_used) + f" (per grid point: {out}/seeds.json)")
    for note in report.notes:
        print(note, file=sys.stderr)
    if report.failed:
        for key, message in list(report.errors.items())[:5]:
            print(f"  failed {key}: {message}", file=sys.stderr)
        more = report.failed - min(report.failed, 5)
        tail = f" (and {more} more)" if more else ""
        print(f"sweep {sweep.name}: {report.failed} runs failed{tail}; see {out}/errors/", file=sys.stderr)
        return _finish(EXIT_FAILED_RUNS, args)
    return _finish(EXIT_OK, args)


def _finish(code: int, args) -> int:
    """The exit status. When this process is the `ncmesh` command itself (not a program
    calling ncmesh.cli.main) and ran a process-pool sweep, it ends right here: output
    flushed, then os._exit(code). That skips the interpreter's teardown (freeing every
    module and object, ~15 ms that would count in every sweep's wall time); the workers
    are gone and every result file is closed by then."""
    if args.ray is None and _is_the_command():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(code)
    return code


def _is_the_command() -> bool:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:
        return spec.name == "ncmesh.__main__"               # python -m ncmesh
    return os.path.basename(sys.argv[0] or "") == "ncmesh"  # the installed script


def _dry_run(sweep, out_dir) -> int:
    from pathlib import Path

    from .. import _core
    from . import identity
    from .store import done_keys

    runs = sweep.runs()
    out = Path(out_dir) if out_dir else Path("results") / sweep.name
    done = done_keys(out)
    state = identity.inspect(out, sweep.definition(), _core.build_id(), sweep.to_toml(), len(done))
    if state.kind == "other":
        raise identity.refusal(out, state)
    keys = {r.key for r in runs}
    bad = sum(1 for r in runs if r.error)
    reuse = (f"{len(keys & done)} done in {out}" if state.kind != "stale"
             else f"0 reusable in {out} ({len(done)} runs there will be computed again: {state.why})")
    rule = sweep.seed_rule
    seeds = f"{len(sweep.seeds)} seeds" if rule is None else f"{rule.n_min}..{rule.n_max} seeds by the seed rule"
    print(f"sweep {sweep.name}: {'' if rule is None else 'up to '}{len(keys)} runs ({seeds} x "
          f"{len(runs) // len(sweep.seeds)} grid points), {reuse}"
          + (f", {bad} invalid (they will fail)" if bad else ""))
    return EXIT_OK


def seeds_line(sweep, used) -> str:
    """One line on what the seed rule chose: how many grid points used how many seeds."""
    rule = sweep.seed_rule
    counts: dict[tuple[int, bool], int] = {}
    for _, n, met in used:
        counts[(n, met)] = counts.get((n, met), 0) + 1
    parts = [f"{k} point{'s' if k != 1 else ''} {n} seeds" + ("" if met else " (target not met)")
             for (n, met), k in sorted(counts.items())]
    return (f"sweep {sweep.name}: seed rule (95% CI half-width of {rule.metric} within "
            f"{100 * rule.target:g}% of the mean, {rule.n_min}..{rule.n_max} seeds): " + ", ".join(parts))


def _sigterm_as_interrupt():
    """`kill PID` stops a sweep like Ctrl-C (workers stopped, finished runs kept)."""
    def handler(signum, frame):
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return None
