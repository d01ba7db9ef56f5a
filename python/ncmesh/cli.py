"""The `ncmesh` command.

    ncmesh scenario KIND [options] [-o FILE]   print a complete scenario (TOML)
    ncmesh scenario --list                     list scenario kinds
    ncmesh scenario KIND --pair-stats [options] mean hop counts of the experiment's pairs
    ncmesh run FILE [--seed N] [--set k=v] [--json [--series]] [--out DIR] [--pcap DIR]
    ncmesh validate FILE [--seed N] [--set k=v]   print 'ok' or the error (every check of `run`)
    ncmesh compare-ns3 [--tags all] [--seeds 3] [--hops 1-8] [--csv FILE]
    ncmesh sweep FILE [--out DIR] [--jobs N] [--ray [ADDRESS]]   parameter sweep (docs/sweeps.md)

A bad scenario prints `error: <field>: <message>` on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NamedTuple

from ._core import ScenarioError

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1

# `ncmesh scenario` options passed to the scenario builder (flag -> builder option).
BUILD_OPTIONS = {
    "hops": int, "spacing": float, "flows": int, "rows": int, "cols": int,
    "nodes": int, "area": float, "seed": int, "tq_map": str,
}


def _add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a field before validation, e.g. mac.queue_packets=20 or "
                        "flows[0].dst=3 (value read as TOML; bare words are strings); repeatable")


class Command(NamedTuple):
    """One `ncmesh` command: the module that defines it, its one-line help (what `ncmesh
    --help` lists without importing the module), and the names of the module's functions that
    add its parser (sub -> ArgumentParser) and carry it out (args -> exit status)."""

    module: str
    help: str
    parser: str
    handler: str


# Every command, in the order `ncmesh --help` lists them. Only the running command's module is
# imported (the experiment commands' modules take tens of ms to import).
COMMANDS: dict[str, Command] = {
    "scenario": Command(__name__, "print a complete generated scenario as TOML", "add_scenario_parser",
                        "cmd_scenario"),
    "run": Command(__name__, "run a scenario", "add_run_parser", "cmd_run"),
    "validate": Command(__name__, "check a scenario file: every check `run` makes, without simulating", "add_validate_parser", "cmd_validate"),
    "compare-ns3": Command(__name__, "ncmesh vs ns-3 goodput on the chain and X topologies",
                           "add_compare_ns3_parser", "cmd_compare_ns3"),
    "sweep": Command("ncmesh.sweep.cli", "run a parameter sweep (grid x seeds) into a Parquet results directory",
                     "add_parser", "cmd_sweep"),
    "table": Command("ncmesh.analysis.cli", "means with 95% confidence intervals across seeds of a results directory",
                     "add_table_parser", "cmd_table"),
    "plot": Command("ncmesh.analysis.cli", "plot a results directory (PNG and SVG)", "add_plot_parser", "cmd_plot"),
    "report": Command("ncmesh.report.cli", "write a self-contained HTML report of a results directory",
                      "add_parser", "cmd_report"),
    "reproduce": Command("ncmesh.experiments.cli",
                         "run a registered experiment (reproduction) and write its tables, figures and report",
                         "add_parser", "cmd_reproduce"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `ncmesh` argument parser: the full parser of `command` (its module imported), a
    one-line entry for every other command of COMMANDS."""
    from . import __version__

    parser = argparse.ArgumentParser(prog="ncmesh", description="Packet-level simulator of TCP over 802.11 multihop networks.")
    parser.add_argument("--version", action="version", version=f"ncmesh {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in COMMANDS.items():
        if name == command:
            module = importlib.import_module(cmd.module)
            getattr(module, cmd.parser)(sub).set_defaults(handler=getattr(module, cmd.handler))
        else:
            sub.add_parser(name, help=cmd.help.replace("%", "%%"))
    return parser


def _help(name: str) -> str:
    return COMMANDS[name].help


def add_scenario_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("scenario", help=_help("scenario"))
    p.add_argument("kind", nargs="?", help="scenario kind (see --list)")
    p.add_argument("topology", nargs="?", metavar="FILE", help="topology file, for kinds that read one")
    p.add_argument("--list", action="store_true", help="list the scenario kinds")
    p.add_argument("--pair-stats", dest="pair_stats", action="store_true",
                   help="print the mean hop counts and one-hop share of the experiment's pairs "
                        "(roofnet-like: its whole pair list) instead of the scenario")
    p.add_argument("--hops", type=int)
    p.add_argument("--spacing", type=float, help="node spacing, m")
    p.add_argument("--flows", type=int)
    p.add_argument("--rows", type=int)
    p.add_argument("--cols", type=int)
    p.add_argument("--nodes", type=int)
    p.add_argument("--area", type=float, help="side of the square area, m")
    p.add_argument("--seed", type=int)
    p.add_argument("--file", help="topology file (same as the positional FILE)")
    p.add_argument("--tq-map", dest="tq_map", choices=["linear", "sqrt"],
                   help="how link quality maps to delivery probability")
    p.add_argument("--opt", dest="build_opts", action="append", default=[], metavar="NAME=VALUE",
                   help="any other builder option (e.g. duration=30, min_hops=3; see docs/scenario-format.md); repeatable")
    _add_set(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    return p


def add_run_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("run", help=_help("run"),
                       epilog="Every result column (per flow, per node, each coding family's counters), "
                              "with its unit and meaning: docs/results-format.md.")
    p.add_argument("file", metavar="FILE", help="scenario file (TOML, or JSON), or - for standard input")
    p.add_argument("--seed", type=int, help="override simulation.seed")
    _add_set(p)
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--series", action="store_true", help="with --json: include the time series")
    p.add_argument("--out", metavar="DIR", help="write Parquet tables, scenario.toml and result.json to DIR")
    p.add_argument("--pcap", metavar="DIR", help="write one 802.11 packet capture per node to DIR/node-<i>.pcap (docs/pcap.md)")
    return p


def add_validate_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("validate", help=_help("validate"))
    p.add_argument("file", metavar="FILE", help="scenario file (TOML, or JSON), or - for standard input")
    p.add_argument("--seed", type=int, help="override simulation.seed")
    _add_set(p)
    return p


def add_compare_ns3_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("compare-ns3", help=_help("compare-ns3"))
    p.add_argument("--tags", default="all", help="anchor settings of validation/ns3/reference.csv, comma-separated "
                   "(chain, chain-delack-off, chain-tworay, chain-per05, chain-per10, x, x-tworay; default all)")
    p.add_argument("--hops", help="hop counts, e.g. 1-8 or 1,2,4 (default: those in the reference; X is 2 hops)")
    p.add_argument("--seeds", type=int, default=3, help="seeds per hop count (default 3)")
    p.add_argument("--reference", metavar="CSV", help="ns-3 reference CSV (default validation/ns3/reference.csv if present)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="simulations run at once")
    p.add_argument("--csv", metavar="FILE", help="write one row per (tag, hops, seed) as CSV")
    p.add_argument("--summary-csv", metavar="FILE", help="write one row per (tag, hops) as CSV")
    return p


def _command_of(argv: list[str]) -> str | None:
    """The sub-command named on the command line (the first word not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _load(path: str, overrides: list[str]):
    from .overrides import parse_assignment
    from .scenario import Scenario

    sc = Scenario.load(path)
    for assignment in overrides:
        sc.set(*parse_assignment(assignment))
    return sc


def _write_text(text: str, path: str | None) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def cmd_scenario(args) -> int:
    from .overrides import parse_assignment
    from .scenario import Scenario

    if args.list:
        print("\n".join(Scenario.kinds()))
        return 0
    if not args.kind:
        raise UsageError("scenario: give a KIND (ncmesh scenario --list shows them)")
    if args.file and args.topology:
        raise UsageError("scenario: give the topology file once (FILE or --file)")
    options = {name: getattr(args, name) for name in BUILD_OPTIONS}
    options["file"] = args.file or args.topology
    for assignment in args.build_opts:
        name, value = parse_assignment(assignment)
        options[name] = value
    overrides = [parse_assignment(a) for a in args.overrides]
    # `--set simulation.duration_s=5` on a generated scenario is the builder's `duration`
    # (as `--opt duration=5`): the builder then derives what depends on it (the
    # measurement start, min(10, duration/6)) unless that is given as well.
    for key, option in (("simulation.duration_s", "duration"), ("simulation.measure_start_s", "measure_start")):
        if options.get(option) is None and any(_same_key(k, key) for k, _ in overrides):
            options[option] = [v for k, v in overrides if _same_key(k, key)][-1]
    if args.pair_stats:
        if args.overrides or args.output:
            raise UsageError("scenario: --pair-stats describes the kind as built; it takes no --set or -o "
                             "(the statistics follow the builder's routing, which --set could change)")
        st = Scenario.pair_stats(args.kind, **options)
        print(f"{st['nodes']} nodes, mean degree {st['mean_degree']:.1f}; {len(st['pairs'])} pairs: "
              f"mean hops {st['mean_hops']:.2f}, one-hop share {st['one_hop_share']:.2f}, "
              f"mean fewest hops {st['mean_fewest_hops']:.2f}")
        return 0
    sc = Scenario.build(args.kind, **options)
    for key, value in overrides:
        sc.set(key, value)
    _write_text(sc.to_toml(), args.output)
    return 0


def _same_key(a: str, b: str) -> bool:
    from .overrides import split_key

    try:
        return split_key(a) == split_key(b)
    except ValueError:
        return False


def cmd_run(args) -> int:
    from . import _core
    from .result import RunResult

    if args.series and not args.json:
        raise UsageError("run: --series needs --json (the text summary has no time series; "
                         "--out writes them as Parquet)")
    sc = _load(args.file, args.overrides)
    try:
        _note_uncoded_udp(sc)
        if args.pcap:
            result = RunResult(_core.run(sc.to_dict(), args.seed, args.pcap))
        else:
            result = RunResult(_core.run(sc.to_dict(), args.seed))
    except ScenarioError as e:
        raise _located(e, sc, args.overrides) from None
    if args.out:
        result.write(args.out)
    if args.json:
        print(result.to_json(series=args.series))
    else:
        print(result.summary())
        if args.out:
            print(f"tables written to {args.out}")
        if args.pcap:
            print(f"packet captures written to {args.pcap}")
    return 0


def cmd_validate(args) -> int:
    # The checks of `run` without the simulation: fields, then building the network.
    sc = _load(args.file, args.overrides)
    try:
        sc.validate(seed=args.seed)
        _note_uncoded_udp(sc)
    except ScenarioError as e:
        raise _located(e, sc, args.overrides) from None
    print("ok")
    return 0


def _located(e: ScenarioError, sc, overrides: list[str]) -> ScenarioError:
    """The error with the file, line and column of its field appended, when the scenario
    came from a TOML file that writes the field (not a value given with --set)."""
    from .errors import scenario_error
    from .locate import _field, locate
    from .overrides import parse_assignment, split_key

    source = getattr(sc, "_toml_source", None)
    field, message = getattr(e, "field", ""), getattr(e, "message", None)
    if not source or not field or message is None:
        return e
    want = _field(field)
    for assignment in overrides:
        try:
            key = [str(k) for k in split_key(parse_assignment(assignment)[0])]
        except (ValueError, ScenarioError):
            continue
        n = min(len(key), len(want))
        if key[:n] == want[:n]:
            return e                      # the value (or the table holding it) came from --set
    where = locate(source[1], field)
    if where is None:
        return e
    return scenario_error(field, f"{message} ({source[0]}, line {where[0]}, column {where[1]})")


def _note_uncoded_udp(sc) -> None:
    """Says once (standard error) when the scheme codes only TCP and a flow is UDP."""
    from .scenario import uncoded_udp_note

    note = uncoded_udp_note(sc.resolved())
    if note:
        print(note, file=sys.stderr)


def cmd_compare_ns3(args) -> int:
    from .validation import cli_compare_ns3

    try:
        return cli_compare_ns3(args)
    except ValueError as e:
        raise UsageError(str(e)) from None


class UsageError(Exception):
    """A command line that cannot be carried out (printed with the usage line, status 2)."""


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(_command_of(words))
    args, extra = parser.parse_known_args(argv)
    # argparse fills optional positionals at their first chance: a topology FILE given
    # after options (`ncmesh scenario topology --flows 2 net.json`) arrives here.
    if extra and args.command == "scenario" and args.topology is None and len(extra) == 1 \
            and not extra[0].startswith("-"):
        args.topology, extra = extra[0], []
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_USER_ERROR
    try:
        return args.handler(args)
    except ScenarioError as e:
        print(f"error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_USER_ERROR
    except UsageError as e:
        parser.print_usage(sys.stderr)
        print(f"ncmesh: error: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            _silence_stdout()
            return 0
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except RuntimeError as e:
        print(f"error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    except KeyboardInterrupt:
        return 130


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _silence_stdout() -> None:
    # Output went to a closed pipe (e.g. `| head`): avoid a second error at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    raise SystemExit(main())
