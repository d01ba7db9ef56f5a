#!/usr/bin/env python3
"""Engine time of two ncmesh-bench binaries, measured side by side in one run.

    python3 benchmarks/side_by_side.py OLD_BIN NEW_BIN [--rounds R] [--out FILE]

Times the 4-hop chain (60 s simulated, 10 runs per batch) and 120 s of COPE on the
cross (3 runs per batch) with each binary in turn, R rounds, alternating old and new so
that a change of machine load hits both alike, and prints the minimum and the median of
the batch minima per binary and scenario, their ratio, and (with valgrind) the
instructions of one chain run, which load does not change. Both binaries must give the
same events, frames and goodput (checked: a refactor keeps results bit for bit).

The old binary reads the scenario format of its time: the COPE cross file has a
`.pre-seams.toml` twin for binaries before the coding seams (scheme keys in [scheme],
routing.disjoint_paths). Build an old binary with
`git worktree add /tmp/old COMMIT && cargo build --release -p ncmesh-core --bin
ncmesh-bench --manifest-path /tmp/old/Cargo.toml`.
"""

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_line import run_bench

HERE = Path(__file__).resolve().parent
SCEN = HERE / "results" / "scenarios"


def bench(binary: str, args: list[str]) -> dict:
    kv = run_bench(binary, args, "side_by_side")
    return {
        "min": float(kv["min"]),
        "result": (kv["events"], kv["frames"], kv["goodput_kbps"]),
    }


def instructions(binary: str) -> float | None:
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out",
             binary, "--hops", "4", "--repeat", "1"],
            capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", out.stderr)
    return int(m.group(1)) / 1e6 if m else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    cases = {
        "4-hop chain, 60 s": lambda old: ["--hops", "4", "--repeat", "10"],
        "COPE cross, 120 s": lambda old: [
            "--file",
            str(SCEN / ("cross-cope-120s.pre-seams.toml" if old else "cross-cope-120s.toml")),
            "--repeat", "3"],
    }
    mins = {(c, w): [] for c in cases for w in ("old", "new")}
    for r in range(a.rounds):
        for case, args in cases.items():
            res = {}
            for who, binary in (("old", a.old), ("new", a.new)) if r % 2 == 0 else (("new", a.new), ("old", a.old)):
                b = bench(binary, args(who == "old"))
                mins[(case, who)].append(b["min"])
                res[who] = b["result"]
            if res["old"] != res["new"]:
                sys.exit(f"side_by_side: {case}: results differ: old {res['old']} new {res['new']}")
    lines = ["| scenario | old: min / median of batch minima, ms | new: min / median, ms | new / old (medians) |",
             "|---|---|---|---|"]
    for case in cases:
        o, n = mins[(case, "old")], mins[(case, "new")]
        lines.append(f"| {case} | {min(o):.2f} / {statistics.median(o):.2f} | {min(n):.2f} / "
                     f"{statistics.median(n):.2f} | {statistics.median(n) / statistics.median(o):.3f} |")
    io, inew = instructions(a.old), instructions(a.new)
    if io and inew:
        lines.append(f"\nInstructions, one 4-hop chain run (callgrind): old {io:.1f} M, new {inew:.1f} M "
                     f"({inew / io:.3f}).")
    lines.append(f"\n{a.rounds} rounds, old and new alternating; identical events, frames and goodput.")
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
