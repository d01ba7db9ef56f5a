"""Progress: one bar (tqdm) over all runs on a terminal, for a sweep and for a
reproduction made of several sweeps; plain per-part lines (with the overall count) in
logs."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

from ncmesh.sweep.progress import PartProgress, SweepProgress

SWEEP = """\
name = "prog"
[base]
builder = "chain"
options = { duration = 3 }
set = { "simulation.measure_start_s" = 1.5 }
[grid]
hops = [1, 2, 3]
[seeds]
count = 2
"""


def run_on_terminal(*args: str, cols: int = 120) -> tuple[int, str]:
    """`ncmesh ARGS` with stderr on a pseudo-terminal (`cols` wide); (status, what the
    terminal received). stdout is discarded."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    p = subprocess.Popen([sys.executable, "-m", "ncmesh", *args], stdout=subprocess.DEVNULL,
                         stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:             # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(), b"".join(chunks).decode("utf-8", "replace")


def frames(screen: str) -> list[str]:
    return [f.strip() for f in re.split(r"[\r\n]+", screen) if f.strip()]


def test_sweep_on_a_terminal_draws_one_bar(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SWEEP)
    code, screen = run_on_terminal("sweep", str(path), "--out", str(tmp_path / "out"), "-j", "1")
    assert code == 0, screen
    bars = [f for f in frames(screen) if f.startswith("sweep prog:") and "|" in f]
    assert bars and "6/6" in bars[-1] and "100%" in bars[-1] and "run/s" in bars[-1], screen
    assert "runs done" not in screen          # no log lines on a terminal
    # a rerun: every run reused, shown beside the bar, not as progress
    code, screen = run_on_terminal("sweep", str(path), "--out", str(tmp_path / "out"), "-j", "1")
    assert code == 0 and "6 reused" in screen, screen


def test_reproduction_has_one_bar_over_all_its_sweeps(tmp_path):
    from ncmesh.experiments import cope_tcp
    from ncmesh.sweep import load_sweep

    total = 0
    for spec in cope_tcp.sweeps(True).values():
        spec = dict(spec, seeds={"count": 1, "start": 1})
        total += len({r.key for r in load_sweep(spec).runs()})
    code, screen = run_on_terminal("reproduce", "cope-tcp", "--quick", "--seeds", "1",
                                   "--out", str(tmp_path / "cope"))
    assert code == 0, screen
    bars = [f for f in frames(screen) if f.startswith("reproduce cope-tcp:")]
    assert bars, screen
    totals = {re.search(r"\| *\d+/(\d+) \[", b).group(1) for b in bars if re.search(r"\| *\d+/(\d+) \[", b)}
    assert totals == {str(total)}, (totals, total)          # one bar, over every part's runs
    assert f"{total}/{total}" in bars[-1] and "100%" in bars[-1]
    assert "ETA" not in screen and "runs done" not in screen


def test_plain_lines_in_logs_name_each_part_and_the_whole(tmp_path):
    log = tmp_path / "log.txt"
    with open(log, "w") as stream:
        overall = SweepProgress(10, label="two parts", stream=stream)
        assert not overall.tty
        for name, n in (("a", 4), ("b", 6)):
            part = PartProgress(name, n, overall, owns=False)
            part.update(n - 1, 1, force=True)
            part.close(exact_total=n)
    lines = log.read_text().splitlines()
    assert lines[0].startswith("sweep a: 3/4 runs done, 1 failed")
    assert lines[-1].startswith("sweep b: 5/6 runs done, 1 failed") and lines[-1].endswith("all parts: 10/10, ETA 0:00")
    assert overall.closed


def test_duplicate_runs_correct_the_overall_total():
    overall = SweepProgress(10, stream=open(os.devnull, "w"))
    part = PartProgress("a", 10, overall, owns=False)
    part.update(7, 0)
    part.close(exact_total=7)                 # 3 grid points were the same scenario
    assert overall.total == 7 and overall.closed
