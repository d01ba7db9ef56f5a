"""Bit-identity gate for refactors: runs a fixed set of scenarios and quick reproductions
and compares every result with outputs recorded before the change.

    python validation/identity/identity.py record   # write baseline.json (before a refactor)
    python validation/identity/identity.py check    # compare; exit 1 on any difference
    python validation/identity/identity.py check --no-reproduce   # scenarios only (~20 s)
    python validation/identity/identity.py check --summary ncaqm=DIR/summary.json ...
                                  # a quick reproduction already run with this build

What is compared, bit for bit:
- every scenario of `cases()` (the ns-3 chain settings, COPE / NCAQM / BFLY on the cross,
  X, Alice-and-Bob, butterfly and grid with payload bytes on and off, TCP variants, the
  other channel and MAC options): the core's whole result (flows, nodes, conservation,
  events, time series), less the wall time; stored as a SHA-256 of canonical JSON plus the
  events count and goodputs, so a difference says where it starts;
- the packet captures of a plain chain and of a COPE cross (SHA-256 of each file);
- `summary.json` of `ncmesh reproduce ncaqm --quick`, `cope-tcp --quick` and
  `chain-vs-ns3 --quick`: every key of the baseline, less what changes from one
  invocation to the next (date, command, wall time, how many runs were reused, computed
  or taken from another part) and the wording (the title, a claim's text: its numbers,
  "ours" and "holds", are compared).
  Keys added since the baseline are not compared.
- Columns added since the baseline: the baseline records the per-flow and per-node keys
  it hashed (`flow_keys`, `node_keys`). A key a run has beyond them is left out of the
  hash: a new measurement of the same run (a flow's ACK count, the data bytes on the
  air) or a new coding family's counter. A node counter column (`ncmesh._core.coding_counters()`)
  added since the baseline must be 0 in every case: a scenario that does not use the
  family must not count anything in it. So a new family needs no entry here.

A change that is meant to alter results re-records the baseline in the same commit and
says why in its message.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import ncmesh
from ncmesh import Scenario
from ncmesh._core import coding_counters

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "baseline.json"
REPRODUCTIONS = ("ncaqm", "cope-tcp", "chain-vs-ns3")
VOLATILE_SUMMARY_KEYS = ("date", "command", "ncmesh_version")
WORDING_KEYS = ("title",)
def _results(key: str, value):
    """What a summary entry says, without its wording: claims keep "ours" and "holds"."""
    if key == "claims" and isinstance(value, list):
        return [{k: c.get(k) for k in ("ours", "holds")} if isinstance(c, dict) else c for c in value]
    return value

# The ncaqm experiment's set-up (15% data-frame loss, RTS/CTS, 445 m sensing).
CODED = {"mac.rts_threshold_bytes": 0, "mac.data_rate_mbps": 2.0, "mac.basic_rate_mbps": 1.0,
         "mac.queue_packets": 10, "tcp.sack": True, "tcp.mss_bytes": 1000, "channel.rx_range_m": 250.0,
         "channel.cs_range_m": 445.0, "channel.interference_range_m": 445.0,
         "loss": [{"rate": 0.15, "frames": "data"}]}
NS3_MAC = {"mac.cw_reset_after_drop": False}
TWORAY = {"channel.model": "tworay", "channel.preamble_detection_db": -1000.0,
          "channel.rx_threshold_w": 3.652e-10 * 22.0 / 20.0, "channel.cs_threshold_w": 3.652e-10 * 22.0 / 20.0}


def _sc(kind: str, options: dict, overrides: dict) -> Scenario:
    return Scenario.build(kind, **options).update(json.loads(json.dumps(overrides)))


def cases() -> dict[str, tuple[Scenario, int]]:
    """name -> (scenario, seed)."""
    out: dict[str, tuple[Scenario, int]] = {}
    # ns-3 anchor settings (compare-ns3 tags)
    for hops in range(1, 9):
        out[f"ns3-chain-{hops}"] = (_sc("chain", {"hops": hops, "duration": 30}, NS3_MAC), 1)
    out["ns3-chain-3-delack-off"] = (_sc("chain", {"hops": 3, "duration": 30}, {**NS3_MAC, "tcp.delayed_ack": False}), 2)
    out["ns3-chain-4-tworay"] = (_sc("chain", {"hops": 4, "duration": 30}, {**NS3_MAC, **TWORAY}), 1)
    out["ns3-chain-4-per10"] = (_sc("chain", {"hops": 4, "duration": 30},
                                    {**NS3_MAC, "loss": [{"rate": 0.10, "frames": "data"}]}), 3)
    out["ns3-x"] = (_sc("x", {"duration": 30}, NS3_MAC), 1)
    # XOR family on the paper topologies, payload off and on
    topologies = {"alice-bob": {}, "x": {"spacing": 150.0}, "cross": {}, "butterfly": {},
                  "grid": {"rows": 4, "cols": 4, "spacing": 200.0, "flows": 4, "min_hops": 2, "seed": 3}}
    for topo, opts in topologies.items():
        schemes = ["none", "cope", "ncaqm"] + (["bfly", "ncaqm-two-hop"] if topo == "butterfly" else [])
        for scheme in schemes:
            for payload in (False, True):
                o = {"duration": 30, "start": 1.0, "start_spread": 4.0, "measure_start": 10.0, **opts}
                ov = dict(CODED)
                ov["scheme.name"] = scheme.removesuffix("-two-hop")
                if scheme.endswith("two-hop"):
                    ov["scheme.xor.two_hop"] = True
                ov["simulation.payload_bytes"] = payload
                out[f"{topo}-{scheme}{'-payload' if payload else ''}"] = (_sc(topo, o, ov), 2)
    # Encode Once, a 60-packet buffer, a COPE cross of 120 s (the benchmark run)
    out["cross-cope-encode-once"] = (_sc("cross", {"duration": 30}, {**CODED, "scheme.name": "cope",
                                                                     "scheme.xor.encode_once": True}), 4)
    out["x-ncaqm-buffer60"] = (_sc("x", {"duration": 30, "spacing": 150.0},
                                   {**CODED, "scheme.name": "ncaqm", "mac.queue_packets": 60}), 5)
    out["cross-cope-120s"] = (_sc("cross", {"duration": 120}, {**CODED, "scheme.name": "cope"}), 1)
    # TCP variants over COPE (cope-tcp's chain and X at 550 m sensing)
    for variant in ("newreno", "few", "ap"):
        for scheme in ("none", "cope"):
            ov = {"channel.cs_range_m": 550.0, "channel.interference_range_m": 550.0, "tcp.variant": variant,
                  "tcp.delayed_ack": False, "scheme.name": scheme}
            out[f"chain4-{variant}-{scheme}"] = (_sc("chain", {"hops": 4, "duration": 30}, ov), 1)
    out["x-ap-nc-aware"] = (_sc("x", {"duration": 30, "spacing": 150.0},
                                {"tcp.variant": "nc-aware", "scheme.name": "cope",
                                 "channel.cs_range_m": 550.0, "channel.interference_range_m": 550.0}), 1)
    # Gheorghiu et al. (CoMP): TCP Vegas, TCP/NC as its TCP-ARQ and Horizon in its set-up
    out["chain4-vegas"] = (_sc("chain", {"hops": 4, "duration": 30}, {"tcp.variant": "vegas"}), 1)
    out["diamond-tcp-nc-payload"] = (_sc("diamond", {"duration": 20, "loss": 0.1},
                                         {"scheme.name": "tcp-nc", "simulation.payload_bytes": True}), 1)
    out["diamond-horizon"] = (_sc("diamond", {"duration": 20}, {"scheme.name": "horizon"}), 1)
    out["roofnet-like-tcp-nc-vegas"] = (_sc("roofnet-like", {"duration": 20, "pair": 0},
                                            {"scheme.name": "tcp-nc", "tcp.variant": "vegas", "tcp.vegas_alpha": 28,
                                             "tcp.vegas_beta": 30, "tcp.vegas_gamma": 2}), 1)
    # Every coding family under the gate (added with issue 25's refactor): Pipeline and
    # ComboCoding on lossy strings (802.11b and Chen et al.'s 802.11g 54 Mbit/s, whose
    # bit-error model is the hot path), PiggyCode and wait time on a chain, CoMP and MORE
    # on the lossy diamond and a roofnet-like pair, payload bytes on where they decode.
    lossy = {"simulation.payload_bytes": True, "tcp.delayed_ack": False,
             "loss": [{"rate": 0.1, "frames": "all"}]}
    for scheme in ("pipeline", "combocoding"):
        out[f"chain4-{scheme}-lossy"] = (_sc("chain", {"hops": 4, "duration": 20}, {**lossy, "scheme.name": scheme}), 1)
    out["chain4-pipeline-coded-acks"] = (_sc("chain", {"hops": 4, "duration": 20},
                                              {**lossy, "scheme.intra": "pipeline", "scheme.pipeline.code_acks": True}), 2)
    out["chain6-combocoding-11g"] = (_sc("chain", {"hops": 6, "duration": 5},
                                         {"scheme.name": "combocoding", "mac.standard": "802.11g", "mac.data_rate_mbps": 54.0,
                                          "mac.basic_rate_mbps": 6.0, "channel.reception": "ber",
                                          "loss": [{"rate": 0.2, "frames": "all"}]}), 1)
    for scheme in ("piggycode", "waittime"):
        out[f"chain3-{scheme}"] = (_sc("chain", {"hops": 3, "duration": 20},
                                       {"scheme.name": scheme, "simulation.payload_bytes": True}), 1)
    for scheme in ("comp", "more"):
        out[f"diamond-{scheme}-payload"] = (_sc("diamond", {"duration": 15, "loss": 0.2},
                                                {"scheme.name": scheme, "simulation.payload_bytes": True}), 1)
        out[f"roofnet-like-{scheme}"] = (_sc("roofnet-like", {"duration": 15, "pair": 3}, {"scheme.name": scheme}), 1)
    # other channel and MAC options
    out["chain5-rts"] = (_sc("chain", {"hops": 5, "duration": 20}, {"mac.rts_threshold_bytes": 0}), 1)
    out["chain3-noretx"] = (_sc("chain", {"hops": 3, "duration": 20},
                                {"mac.retransmissions": False, "loss": [{"rate": 0.1, "frames": "all"}]}), 1)
    out["chain4-capture"] = (_sc("chain", {"hops": 4, "duration": 20}, {"channel.reception": "capture"}), 1)
    out["chain4-shadowing"] = (_sc("chain", {"hops": 4, "duration": 20},
                                   {"channel.model": "shadowing", "channel.fading": "rayleigh"}), 1)
    out["chain3-udp-cbr"] = (_sc("chain", {"hops": 3, "duration": 20},
                                 {"flows.0.transport": "udp", "flows.0.app": "cbr", "flows.0.rate_kbps": 400.0,
                                  "simulation.payload_bytes": True}), 1)
    out["chain3-udp-bulk"] = (_sc("chain", {"hops": 3, "duration": 20}, {"flows.0.transport": "udp"}), 1)
    out["chain3-tcp-cbr"] = (_sc("chain", {"hops": 3, "duration": 20},
                                 {"flows.0.app": "cbr", "flows.0.rate_kbps": 300.0, "tcp.sack": True}), 1)
    out["chain4-loss-schedule"] = (_sc("chain", {"hops": 4, "duration": 20},
                                       {"loss": [{"schedule": [{"from_s": 5.0, "to_s": 10.0, "rate": 0.3}]}]}), 1)
    out["random-20"] = (_sc("random", {"nodes": 20, "flows": 3, "duration": 20, "seed": 7}, {"routing.metric": "etx"}), 1)
    mobile = _sc("chain", {"hops": 3, "duration": 20}, {})
    mobile.set("nodes.2.waypoints", [{"t_s": 5.0, "x": 400.0, "y": 150.0}, {"t_s": 12.0, "x": 400.0, "y": 0.0}])
    out["chain3-mobility"] = (mobile, 1)
    out["wheel-cope"] = (_sc("wheel", {"flows": 6, "duration": 20}, {**CODED, "scheme.name": "cope"}), 1)
    return out


def _canonical(x) -> str:
    def fix(v):
        if isinstance(v, float):
            if math.isnan(v):
                return "nan"
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            return v.hex()
        if isinstance(v, dict):
            return {k: fix(w) for k, w in v.items()}
        if isinstance(v, list):
            return [fix(w) for w in v]
        return v
    return json.dumps(fix(x), sort_keys=True, separators=(",", ":"))


def _digest(x) -> str:
    return hashlib.sha256(_canonical(x).encode()).hexdigest()


def run_case(sc: Scenario, seed: int, known: dict | None) -> dict:
    """The hashed result of one case; `known`: the baseline's `flow_keys` and `node_keys`
    (None when recording: every key is hashed)."""
    raw = dict(ncmesh.run(sc, seed=seed).raw)
    raw.pop("wall_time_s", None)
    raw.pop("scenario", None)
    counters = set(coding_counters())
    if known is not None:
        for flow in raw["flows"]:
            for k in [k for k in flow if k not in known["flow_keys"]]:
                flow.pop(k)
        for node in raw["nodes"]:
            for k in [k for k in node if k not in known["node_keys"]]:
                if node.pop(k) != 0 and k in counters:
                    raise SystemExit(f"identity: node {node['node']} counts {k}, a counter "
                                     "added since the baseline, in a case without its family")
    return {"sha256": _digest(raw), "events": raw["events"],
            "goodput_kbps": [f["goodput_kbps"] for f in raw["flows"]],
            "conservation": raw["conservation"],
            "keys": ({k for f in raw["flows"] for k in f}, {k for n in raw["nodes"] for k in n})}


def pcaps() -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, sc in (("chain3", _sc("chain", {"hops": 3, "duration": 3}, {"simulation.payload_bytes": True})),
                         ("cross-cope", _sc("cross", {"duration": 4}, {**CODED, "scheme.name": "cope",
                                                                        "simulation.payload_bytes": True}))):
            d = Path(tmp) / name
            ncmesh.run(sc, seed=1, pcap_dir=str(d))
            out[name] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.glob("*.pcap"))}
    return out


def _strip(summary: dict) -> dict:
    s = {k: v for k, v in summary.items() if k not in VOLATILE_SUMMARY_KEYS}
    if isinstance(s.get("runs"), dict):
        s["runs"] = {k: v for k, v in s["runs"].items() if k not in ("wall_s", "done", "reused", "shared")}
    return s


def reproductions(given: dict[str, Path]) -> dict:
    """The quick reproductions' stripped summaries: read from `given` (name -> the
    summary.json of a `reproduce NAME --quick` run this build made), or run here."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in REPRODUCTIONS:
            path = given.get(name)
            if path is None:
                d = Path(tmp) / name
                subprocess.run([sys.executable, "-m", "ncmesh", "reproduce", name, "--quick", "--out", str(d)],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                path = d / "summary.json"
            summary = json.loads(path.read_text())
            out[name] = {"sha256": _digest(_strip(summary)), "summary": _strip(summary)}
    return out


def _summary_arg(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or name not in REPRODUCTIONS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME=PATH with NAME one of {', '.join(REPRODUCTIONS)}")
    if not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"{path}: no such file")
    return name, Path(path)


def collect(with_reproduce: bool, known: dict | None, given: dict[str, Path] | None = None) -> dict:
    res: dict = {"cases": {}, "flow_keys": set(), "node_keys": set()}
    for name, (sc, seed) in cases().items():
        case = run_case(sc, seed, known)
        flow_keys, node_keys = case.pop("keys")
        res["cases"][name] = case
        res["flow_keys"] |= flow_keys
        res["node_keys"] |= node_keys
    res["flow_keys"], res["node_keys"] = sorted(res["flow_keys"]), sorted(res["node_keys"])
    res["pcap"] = pcaps()
    if with_reproduce:
        res["reproduce"] = reproductions(given or {})
    return res


def compare(base: dict, now: dict) -> list[str]:
    diffs = []
    for name, b in base["cases"].items():
        n = now["cases"].get(name)
        if n is None:
            diffs.append(f"case {name}: not run")
        elif n["sha256"] != b["sha256"]:
            what = [f"{k} {b[k]} -> {n[k]}" for k in ("events", "goodput_kbps", "conservation") if n[k] != b[k]]
            diffs.append(f"case {name}: differs ({'; '.join(what) or 'in detail only'})")
    for name, files in base["pcap"].items():
        if now["pcap"].get(name) != files:
            diffs.append(f"pcap {name}: differs")
    for name, b in base.get("reproduce", {}).items():
        n = now.get("reproduce", {}).get(name)
        if n is None:
            continue
        keys = sorted(k for k in b["summary"] if k not in WORDING_KEYS
                      and _results(k, b["summary"][k]) != _results(k, n["summary"].get(k)))
        if keys:
            diffs.append(f"reproduce {name}: summary.json differs in {', '.join(keys)}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["record", "check"])
    ap.add_argument("--no-reproduce", action="store_true", help="skip the three quick reproductions")
    ap.add_argument("--summary", type=_summary_arg, action="append", default=[], metavar="NAME=PATH",
                    help="take NAME's quick reproduction from PATH, the summary.json of a "
                         "`ncmesh reproduce NAME --quick` run with this build, instead of running it")
    a = ap.parse_args(argv)
    base = json.loads(BASELINE.read_text()) if a.mode == "check" else None
    known = None if base is None else {k: set(base[k]) for k in ("flow_keys", "node_keys")}
    now = collect(with_reproduce=not a.no_reproduce, known=known, given=dict(a.summary))
    if a.mode == "record":
        BASELINE.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(now['cases'])} cases, {len(now['pcap'])} captures, "
              f"{len(now.get('reproduce', {}))} reproductions -> {BASELINE}")
        return 0
    diffs = compare(base, now)
    checked = len(now["cases"]) + len(now["pcap"]) + len(now.get("reproduce", {}))
    if diffs:
        print(f"identity: {len(diffs)} of {checked} differ from the baseline:")
        for d in diffs:
            print("  " + d)
        return 1
    print(f"identity: {len(now['cases'])} scenarios, {len(now['pcap'])} captures and "
          f"{len(now.get('reproduce', {}))} reproductions bit for bit identical to the baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
