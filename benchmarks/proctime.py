#!/usr/bin/env python3
"""Wall time and peak RSS of a whole process, repeated.

    proctime.py [--n N] [--warmup W] [--label L] [--engine-json] -- CMD ARG ...

Runs CMD N times in sequence (after W untimed warm-up runs), each as a fresh process,
and prints one line of key=value pairs:

    label=L n=N wall_ms_median=... wall_ms_min=... wall_ms_max=... maxrss_mb_max=...
    [engine_ms_median=... engine_ms_min=...]

Wall time is measured around spawn + wait (time.perf_counter); peak RSS is the
child's ru_maxrss from os.wait4 (kB on Linux). With --engine-json the command must
print one JSON object with `wall_time_s` (as `ncmesh run --json` does): its median and
min are reported too. Standard output of the child goes to a pipe and is read in full
(it is small), standard error is passed through.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def one(cmd: list[str], want_stdout: bool) -> tuple[float, float, bytes]:
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if want_stdout else subprocess.DEVNULL)
    out = p.stdout.read() if want_stdout else b""
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"proctime: {' '.join(cmd)} exited with status {p.returncode}")
    return dt, ru.ru_maxrss / 1024.0, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--label", default="")
    ap.add_argument("--engine-json", action="store_true")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("give a command after --")
    for _ in range(a.warmup):
        one(cmd, a.engine_json)
    walls, rss, eng = [], [], []
    for _ in range(a.n):
        dt, mb, out = one(cmd, a.engine_json)
        walls.append(dt * 1e3)
        rss.append(mb)
        if a.engine_json:
            eng.append(json.loads(out)["wall_time_s"] * 1e3)
    fields = [
        f"label={a.label}", f"n={a.n}",
        f"wall_ms_median={statistics.median(walls):.2f}", f"wall_ms_min={min(walls):.2f}",
        f"wall_ms_max={max(walls):.2f}", f"maxrss_mb_max={max(rss):.1f}",
        f"maxrss_mb_median={statistics.median(rss):.1f}",
    ]
    if eng:
        fields += [f"engine_ms_median={statistics.median(eng):.2f}", f"engine_ms_min={min(eng):.2f}"]
    print(" ".join(fields), flush=True)


if __name__ == "__main__":
    main()
