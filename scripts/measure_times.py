#!/usr/bin/env python3
"""Measures the run times the README and docs state, and rewrites them in place.

A stated time sits between markers, e.g. in README.md

    The main job ... (<!-- time:quick-ncaqm -->~1 min<!-- /time --> on 2 cores)

and this script replaces the text between `<!-- time:ID -->` and `<!-- /time -->` in
README.md and docs/**/*.md with what it measures for ID, and that between `<!-- when:ID -->`
and `<!-- /when -->` with the date and the number of cores, so no time is written by hand.
IDs:

    first-build       bash scripts/setup.sh in a fresh venv and an empty cargo target
                      folder (venv, dependencies, release build): what a fresh clone costs
    test-command      bash scripts/test.sh (cargo test and the whole pytest suite)
    quick-<name>      ncmesh reproduce <name> --quick, for every registered experiment

usage: .venv/bin/python scripts/measure_times.py [ITEM ...] [--dry-run] [--jobs N]

    ITEM     first-build, test-command, quick (every quick reproduction) or quick-<name>;
             default: quick (the cheap items; first-build takes minutes, test-command longer)
    --dry-run  measure and print, change no file
    --check    change nothing; list the markers found and fail if an ID is unknown

Each item runs in a temporary folder (outputs deleted afterwards), one at a time, and the
measured wall time is written rounded ("~20 s", "~3 min"). Times depend on the machine: run
it on the 2-core machine the docs speak of, with nothing else running (the load average
before each item is written beside it when it is above 0.5).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# <!-- time:ID -->~20 s<!-- /time -->: the time; <!-- when:ID -->2026-11-27, 2 cores<!-- /when -->:
# when and where it was measured (optional, e.g. a table column).
MARKER = re.compile(r"<!-- (time|when):([a-z0-9-]+) -->(.*?)<!-- /(?:time|when) -->", re.S)


def docs() -> list[Path]:
    return [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


def experiments() -> list[str]:
    from ncmesh.experiments import available

    return list(available())


def known_ids() -> set[str]:
    return {"first-build", "test-command"} | {f"quick-{n}" for n in experiments()}


def rounded(seconds: float) -> str:
    """~N s below 100 s (to 5 s above 20 s), else ~N min (to half a minute below 10 min)."""
    if seconds < 20:
        return f"~{max(1, round(seconds))} s"
    if seconds < 100:
        return f"~{5 * round(seconds / 5)} s"
    minutes = seconds / 60
    if minutes < 10:
        half = round(minutes * 2) / 2
        return f"~{half:g} min"
    return f"~{round(minutes)} min"


def timed(cmd: list[str], cwd: Path, env: dict | None = None) -> float:
    """Runs cmd (output to a log that is printed only if it fails); its wall time in s."""
    log = tempfile.NamedTemporaryFile("w+", prefix="measure-times-", suffix=".log", delete=False)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env={**os.environ, **(env or {})}, stdout=log, stderr=subprocess.STDOUT)
    try:
        p.wait()
    except BaseException:                 # Ctrl-C or kill: the measured command stops too
        p.terminate()
        p.wait()
        raise
    wall = time.monotonic() - t0
    if p.returncode not in (0,):
        log.seek(0)
        tail = log.read()[-4000:]
        raise SystemExit(f"measure_times: {' '.join(cmd)}: exit status {p.returncode}\n{tail}")
    os.unlink(log.name)
    return wall


def measure(item: str, jobs: int | None) -> float:
    with tempfile.TemporaryDirectory(prefix="measure-times-") as tmp:
        tmp = Path(tmp)
        if item == "first-build":
            return timed(["bash", "scripts/setup.sh"], REPO,
                         {"NCMESH_VENV": str(tmp / "venv"), "CARGO_TARGET_DIR": str(tmp / "target")})
        if item == "test-command":
            return timed(["bash", "scripts/test.sh"], REPO)
        name = item.removeprefix("quick-")
        cmd = [sys.executable, "-m", "ncmesh", "reproduce", name, "--quick", "--quiet", "--out", str(tmp / name)]
        if jobs:
            cmd += ["--jobs", str(jobs)]
        return timed(cmd, tmp)


def rewrite(values: dict[tuple[str, str], str], dry_run: bool) -> list[str]:
    """Replaces the markers' text ({(kind, ID): text}, kind "time" or "when"); returns
    'file: kind:ID: old -> new' for each change."""
    changes = []
    for path in docs():
        text = path.read_text(encoding="utf-8")

        def sub(m: re.Match) -> str:
            kind, ident, old = m.group(1), m.group(2), m.group(3)
            new = values.get((kind, ident))
            if new is None or new == old:
                return m.group(0)
            changes.append(f"{path.relative_to(REPO)}: {kind}:{ident}: {old!r} -> {new!r}")
            return f"<!-- {kind}:{ident} -->{new}<!-- /{kind} -->"

        new = MARKER.sub(sub, text)
        if new != text and not dry_run:
            path.write_text(new, encoding="utf-8")
    return changes


def check() -> int:
    known, bad = known_ids(), []
    for path in docs():
        for m in MARKER.finditer(path.read_text(encoding="utf-8")):
            print(f"{path.relative_to(REPO)}: {m.group(1)}:{m.group(2)}: {m.group(3)}")
            if m.group(2) not in known:
                bad.append(f"{path.relative_to(REPO)}: unknown time ID {m.group(2)!r}")
    for line in bad:
        print(f"error: {line}", file=sys.stderr)
    return 1 if bad else 0


def _sigterm_as_interrupt() -> None:
    import signal

    def handler(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def settled_load(limit_s: float = 150.0) -> float:
    """The 1-minute load average once it has settled: the previous item's own work keeps it
    high for a minute or two (it decays with a 60 s time constant), and that is not other
    work. Waits while it falls, at most `limit_s`, and returns it."""
    waited = 0.0
    load = os.getloadavg()[0]
    while load > 0.5 and waited < limit_s:
        time.sleep(10)
        waited += 10
        load = os.getloadavg()[0]
    return load


def main(argv: list[str] | None = None) -> int:
    _sigterm_as_interrupt()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("items", nargs="*", metavar="ITEM")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--jobs", type=int, help="passed to ncmesh reproduce (default: all cores)")
    args = ap.parse_args(argv)
    if args.check:
        return check()
    names = experiments()
    items: list[str] = []
    for it in args.items or ["quick"]:
        if it == "quick":
            items += [f"quick-{n}" for n in names]
        elif it in ("first-build", "test-command") or (it.startswith("quick-") and it[6:] in names):
            items.append(it)
        else:
            print(f"error: {it}: not an item; allowed: first-build, test-command, quick, "
                  + ", ".join(f"quick-{n}" for n in names), file=sys.stderr)
            return 2
    values = {}
    for it in items:
        load = settled_load()
        if load > 0.5:
            print(f"measure_times: the machine is busy (load {load:.1f} before {it}): the time will be high, "
                  "and the docs will say so", file=sys.stderr)
        print(f"measuring {it} ...", file=sys.stderr, flush=True)
        wall = measure(it, args.jobs)
        values[("time", it)] = rounded(wall)
        date = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d")
        busy = f", load {load:.1f} from other work" if load > 0.5 else ""
        values[("when", it)] = f"{date}, {os.cpu_count()} cores{busy}"
        print(f"{it}: {wall:.1f} s ({values[('time', it)]})", flush=True)
        # each measurement is written as soon as it is made: an interrupted run keeps them
        for line in rewrite({("time", it): values[("time", it)], ("when", it): values[("when", it)]},
                            args.dry_run):
            print(("would change " if args.dry_run else "changed ") + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
