#!/usr/bin/env python3
"""ns-3's ACKs replayed into ncmesh's TCP sender: where the two NewReno senders part.

    python3 benchmarks/tcp_replay_ns3.py --ns3-python /path/to/ns3-venv/bin/python \\
        [--case chain-2] [--seeds 1 2 ...] [--every-ack] [--limited-transmit] [--careful]

For each seed, runs ns-3 3.44 on one case of `benchmarks/aodv_vs_ns3.py` (AODV, the anchor's
radio and TCP) with its `TcpSocketBase` log at debug level, and reads from the log what the
flow's source did: every ACK it received (time, ACK number), every data segment it sent,
its fast recoveries ("Enter fast recovery") and its retransmission timeouts once data flows
(those of the SYN, before the first data segment, are not counted). The ACKs are
then fed, at the same times, into ncmesh's sender on its own
(`crates/ncmesh-core/examples/tcp_replay.rs`, open loop: what it sends does not change
the ACKs), and its sends are compared with ns-3's, segment by segment. A sender that
follows the same rules sends the same segments at the same times; the first segment that
differs says where the rules part, and the two counts of fast recoveries say what that
does over the whole run. The options set ncmesh's sender as the scenario fields of the
same names do (`tcp.rtt_sampling = "every-ack"`, `tcp.limited_transmit`,
`tcp.newreno_careful`).

A benchmark script, not a test: each ns-3 run takes 10-30 s. A bad `--ns3-python`, a failed
ns-3 run or replay, or a bad option ends it with one line on standard error and status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aodv_vs_ns3 as bench  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ACK_RE = re.compile(r"^\+([0-9.]+)s\s+\[node (\d+)\] ACK of (\d+) ")
SEND_RE = re.compile(r"^\+([0-9.]+)s\s+\[node (\d+)\] Send segment .* Seq=(\d+) ")
# ns-3 numbers the first data byte 1 (its SYN takes 0); ncmesh numbers it 0.
NS3_OFFSET = 1


def fail(msg: str) -> NoReturn:
    """One line on standard error, exit status 2."""
    print(f"tcp_replay_ns3: {msg}", file=sys.stderr, flush=True)
    sys.exit(2)


def target_dir() -> Path:
    """Cargo's target folder: $CARGO_TARGET_DIR (relative to the repository root, where cargo
    runs, if relative) or ROOT/target."""
    env = os.environ.get("CARGO_TARGET_DIR")
    return ROOT / env if env else ROOT / "target"  # ROOT / an absolute path is that path


def replay_binary() -> Path:
    """Builds the replay example (release) and returns its path."""
    cmd = ["cargo", "build", "-q", "--release", "-p", "ncmesh-core", "--example", "tcp_replay"]
    try:
        r = subprocess.run(cmd, cwd=ROOT)
    except OSError as e:
        fail(f"cannot run cargo to build the tcp_replay example: {e}")
    if r.returncode != 0:
        fail(f"building the tcp_replay example failed ({bench.exit_status(r.returncode)}; cargo's errors are above)")
    binary = target_dir() / "release" / "examples" / "tcp_replay"
    if not binary.is_file():
        fail(f"the tcp_replay example built but {binary} does not exist (CARGO_TARGET_DIR="
             f"{os.environ.get('CARGO_TARGET_DIR')!r})")
    return binary


def ns3_source_log(py: str, case: str, seed: int, duration: float) -> tuple[dict, str]:
    """One ns-3 run with TcpSocketBase logging; returns (its result line, its log). A run that
    cannot start, fails or prints no RESULT line ends the program (`fail`)."""
    what = f"ns-3 run (--ns3-python {py!r}, case {case}, seed {seed})"
    with tempfile.TemporaryDirectory() as d:
        try:
            return bench.ns3_process(py, bench.case_spec(case, seed, duration), seed, os.path.join(d, "aodv"),
                                     tcp_log=True)
        except OSError as e:
            fail(f"{what} could not start: {e}")
        except subprocess.CalledProcessError as e:
            fail(f"{what} failed ({bench.status_and_last_line(e.returncode, e.stderr)})")
        except StopIteration:
            fail(f"{what} printed no RESULT line")
        except json.JSONDecodeError as e:
            fail(f"{what} printed a RESULT line that is not JSON: {e}")


def parse_source(log: str, src: int) -> dict:
    """The source's ACK arrivals, sends, fast recoveries and timeouts from ns-3's log. Only the
    timeouts after its first data segment count: before it, a timeout resends the SYN, which
    the replay (it starts at the first data segment) does not see."""
    acks, sends, fr, rto = [], [], 0, 0
    tag = f"[node {src}]"
    for ln in log.splitlines():
        if tag not in ln:
            continue
        if m := ACK_RE.match(ln):
            acks.append((m[1], int(m[3])))
        elif m := SEND_RE.match(ln):
            sends.append((float(m[1]), int(m[3])))
        elif "Enter fast recovery" in ln:
            fr += 1
        elif "ReTxTimeout Expired" in ln and sends:
            rto += 1
    return {"acks": acks, "sends": sends, "fast_recoveries": fr, "timeouts": rto}


def replay(binary: Path, acks: list, start: float, flags: list[str]) -> tuple[list, dict]:
    """ncmesh's sender driven by `acks`; returns (its sends, its summary counts)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.writelines(f"{t} {a}\n" for t, a in acks)
        path = f.name
    try:
        r = subprocess.run([str(binary), path, f"{start:.9f}", "--offset", str(NS3_OFFSET), *flags],
                           capture_output=True, text=True)
    except OSError as e:
        fail(f"cannot run {binary}: {e}")
    finally:
        os.unlink(path)
    if r.returncode != 0:
        fail(f"replaying ns-3's ACKs failed ({bench.status_and_last_line(r.returncode, r.stderr)})")
    out = r.stdout
    sends, summary = [], {}
    for ln in out.splitlines():
        parts = ln.split()
        if len(parts) == 3 and parts[1] == "SEND":
            sends.append((float(parts[0]), int(parts[2])))
        elif parts and parts[0] == "SUMMARY":
            summary = {k: int(v) for k, v in (p.split("=") for p in parts[1:])}
    return sends, summary


def first_difference(ns3: list, ours: list, tol_s: float = 1e-6) -> tuple[int, str]:
    """How many sends agree (same segment, same time) before the first that differs."""
    for i, (a, b) in enumerate(zip(ns3, ours)):
        if a[1] != b[1] or abs(a[0] - b[0]) > tol_s:
            return i, f"{a[0]:.4f} s: ns-3 sends {a[1]}, ncmesh {b[1]} at {b[0]:.4f} s"
    n = min(len(ns3), len(ours))
    return n, "none" if len(ns3) == len(ours) else f"one side stops after {n} segments"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-python", required=True, help="python of a venv with `pip install ns3` (3.44)")
    ap.add_argument("--case", default="chain-2", choices=[c for c in bench.CASES if not c.endswith("-udp")])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--every-ack", action="store_true", help="RTT samples from every ACK, as ns-3 takes them")
    ap.add_argument("--limited-transmit", action="store_true", help="Limited Transmit, as ns-3 uses it")
    ap.add_argument("--careful", action="store_true", help="RFC 6582's Careful variant")
    a = ap.parse_args()
    if not (math.isfinite(a.duration) and a.duration > 10.0):
        fail(f"--duration {a.duration:g} is not allowed: expected a finite number of seconds above 10 "
             "(goodput is measured from 10 s on)")
    if bad := [s for s in a.seeds if s < 0]:
        fail(f"--seeds {bad[0]} is not allowed: expected non-negative integers")
    problem = bench.ns3_python_problem(a.ns3_python)
    if problem:
        fail(problem)
    flags = [f for f, on in (("--every-ack", a.every_ack), ("--limited-transmit", a.limited_transmit),
                             ("--careful", a.careful)) if on]
    binary = replay_binary()
    print(f"case {a.case}, ncmesh's sender {' '.join(flags) or '(defaults)'}; ns-3 / replayed ncmesh sender")
    print()
    print("| seed | ns-3 goodput kbit/s | fast recoveries | timeouts | segments sent | segments alike | first difference |")
    print("|---|---|---|---|---|---|---|")
    for seed in a.seeds:
        res, log = ns3_source_log(a.ns3_python, a.case, seed, a.duration)
        src = bench.case_spec(a.case, seed, a.duration)["src"]
        ns3 = parse_source(log, src)
        if not ns3["sends"]:
            print(f"| {seed} | {res['goodput_kbps']:.1f} | - | - | 0 | - | the source sent nothing |")
            continue
        ours, summary = replay(binary, ns3["acks"], ns3["sends"][0][0], flags)
        alike, where = first_difference(ns3["sends"], ours)
        print(f"| {seed} | {res['goodput_kbps']:.1f} | {ns3['fast_recoveries']} / {summary['fast_retransmits']} "
              f"| {ns3['timeouts']} / {summary['timeouts']} | {len(ns3['sends'])} / {summary['segments_sent']} "
              f"| {alike} | {where} |", flush=True)


if __name__ == "__main__":
    main()
