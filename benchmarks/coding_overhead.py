#!/usr/bin/env python3
"""Engine time of coding schemes against the uncoded run of the same scenario.

    python benchmarks/coding_overhead.py [--hops 4] [--rate 1000] [--duration 60]
        [--rounds 5] [--repeat 10] [--loss P] [--string] [--roofnet PAIR]
        [--bin target/release/ncmesh-bench] SCHEME[:key=value,...] ...

Builds Takimoto et al.'s chain as `ncmesh reproduce wait-time` does (200 m, 250 m range,
carrier sense and interference at 550 m as ns-2's two-ray thresholds give, 2 / 1 Mbit/s,
RTS/CTS off, 50-packet queues, NewReno without delayed ACKs, 1024-byte packets written at
--rate kbit/s into TCP) once per scheme (`none` is
always included), e.g. `piggycode` or `waittime:wait_s=0.03` (keys of `[scheme.piggycode]`,
or `table.key` of any `[scheme.<table>]`: `combocoding:pipeline.adaptive=true`); with
`--string`, ncmesh's default chain with one saturated TCP flow instead; with `--roofnet
PAIR`, pair PAIR of Gheorghiu et al.'s CoMP experiment (`roofnet-like`: shadowing, 1 Mbit/s,
no MAC retries, d = 2 paths, one saturated TCP flow; `--hops` and `--rate` unused); `--loss P` loses
P of every frame on every link. Writes the scenario files to
benchmarks/results/scenarios/, and times `ncmesh-bench --file` on each, schemes in
alternation for --rounds rounds (a change of machine load hits all alike). Prints the
median of the batch minima per scheme and its ratio to `none`, with events and frames
(a coded run sends fewer frames for the same traffic). Needs the project venv (ncmesh).
"""

import argparse
import json
import re
import statistics
from pathlib import Path

from bench_line import run_bench
from ncmesh import Scenario
from ncmesh.experiments import wait_time

HERE = Path(__file__).resolve().parent
SCEN = HERE / "results" / "scenarios"


def scenario(hops: int, rate: float, duration: float, spec: str, loss: float, string: bool,
             roofnet: int | None = None) -> Scenario:
    name, _, opts = spec.partition(":")
    if roofnet is not None:
        s = Scenario.build("roofnet-like", pair=roofnet)
        s.update({"simulation.duration_s": duration, "scheme.name": name})
    elif string:
        # ncmesh's default chain (802.11b, 2 Mbit/s data), one saturated TCP flow.
        s = Scenario.build("chain", hops=hops)
        s.update({"tcp.delayed_ack": False, "simulation.duration_s": duration, "scheme.name": name})
    else:
        s = Scenario.build("chain", hops=hops, spacing=wait_time.SPACING_M)
        s.update({**wait_time.CHAIN_SETTINGS, "flows.0.rate_kbps": rate, "simulation.duration_s": duration,
                  "scheme.name": name})
    if loss > 0:
        s.set("loss", [{"rate": loss, "frames": "all"}])
    for kv in filter(None, opts.split(",")):
        k, _, v = kv.partition("=")
        # `wait_s=0.03` is a key of [scheme.piggycode]; `pipeline.adaptive=true` names its table.
        s.set(f"scheme.{k}" if "." in k else f"scheme.piggycode.{k}", json.loads(v))
    return s


def bench(binary: str, path: Path, repeat: int) -> dict:
    kv = run_bench(binary, ["--file", str(path), "--repeat", str(repeat)], "coding_overhead")
    return {"min": float(kv["min"]), "events": kv["events"], "frames": kv.get("frames", "?")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("schemes", nargs="+")
    ap.add_argument("--hops", type=int, default=4)
    ap.add_argument("--rate", type=float, default=1000.0)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--loss", type=float, default=0.0, help="frame loss on every link (frames = all)")
    ap.add_argument("--string", action="store_true",
                    help="ncmesh's default chain with one saturated TCP flow instead of Takimoto et al.'s")
    ap.add_argument("--roofnet", type=int, metavar="PAIR",
                    help="pair PAIR of the roofnet-like experiment (Gheorghiu et al., CoMP) instead")
    ap.add_argument("--bin", default=str(HERE.parent / "target" / "release" / "ncmesh-bench"))
    a = ap.parse_args()
    specs = ["none"] + [s for s in a.schemes if s != "none"]
    SCEN.mkdir(parents=True, exist_ok=True)
    files = {}
    for spec in specs:
        slug = re.sub(r"[^a-z0-9.]+", "-", spec.lower()).strip("-")
        setup = f"string{a.hops}" if a.string else f"chain{a.hops}-{int(a.rate)}k"
        if a.roofnet is not None:
            setup = f"roofnet-pair{a.roofnet}"
        if a.loss > 0:
            setup += f"-loss{a.loss:g}"
        path = SCEN / f"coding-{setup}-{slug}.toml"
        scenario(a.hops, a.rate, a.duration, spec, a.loss, a.string, a.roofnet).save(path)
        files[spec] = path
    mins = {s: [] for s in specs}
    info = {}
    for _ in range(a.rounds):
        for s in specs:
            r = bench(a.bin, files[s], a.repeat)
            mins[s].append(r["min"])
            info[s] = r
    base = statistics.median(mins["none"])
    what = (f"{a.hops}-hop string, saturated TCP" if a.string else f"{a.hops}-hop chain, {a.rate:g} kbit/s")
    if a.roofnet is not None:
        what = f"roofnet-like pair {a.roofnet}, saturated TCP"
    what += f", {a.loss:.0%} frame loss" if a.loss > 0 else ""
    print(f"| scheme ({what}, {a.duration:g} s) | events | frames "
          f"| engine ms (median of batch minima) | / none |")
    print("|---|---:|---:|---:|---:|")
    for s in specs:
        m = statistics.median(mins[s])
        print(f"| {s} | {info[s]['events']} | {info[s]['frames']} | {m:.2f} | {m / base:.3f} |")
    print(f"\n{a.rounds} rounds of {a.repeat} runs, schemes alternating; files in {SCEN}")


if __name__ == "__main__":
    main()
