"""The readable text summary of a run (what `ncmesh run` prints)."""

from __future__ import annotations

def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    fmt = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [fmt(header)] + [fmt(r) for r in rows]


def _drops(node: dict) -> str:
    """Non-zero drop counters by reason: 'queue_full=3 retry_limit=12', or '-'."""
    parts = [f"{k[len('drops_'):]}={v}" for k, v in node.items() if k.startswith("drops_") and v]
    return " ".join(parts) if parts else "-"


def format_summary(raw: dict) -> str:
    """Per flow goodput, RTT, retransmissions, timeouts; per node frames and drops; engine figures."""
    lines = []
    name = raw.get("name") or "unnamed"
    sim = (raw.get("scenario") or {}).get("simulation") or {}
    window = ""
    if "measure_start_s" in sim:
        end = sim.get("measure_end_s") or sim.get("duration_s", raw.get("sim_time_s", 0))
        window = f" (goodput measured over {round(sim['measure_start_s'], 3):g}-{round(end, 3):g} s)"
    lines.append(f"scenario {name}, seed {raw.get('seed')}, {raw.get('sim_time_s', 0):g} s simulated{window}")
    lines.append("")
    flows = raw.get("flows", [])
    lines.append(f"flows ({len(flows)})")
    lines += _table(
        ["flow", "src", "dst", "proto", "goodput kbit/s", "rtt ms", "retx", "fast retx", "timeouts"],
        [[str(f["flow"]), str(f["src"]), str(f["dst"]), f.get("transport", ""),
          f"{f['goodput_kbps']:.1f}", f"{f['rtt_mean_ms']:.1f}" if f.get("rtt_samples") else "-",
          str(f["retransmissions"]), str(f["fast_retransmits"]), str(f["timeouts"])]
         for f in flows],
    )
    lines.append("")
    nodes = raw.get("nodes", [])
    lines.append(f"nodes ({len(nodes)})")
    lines += _table(
        ["node", "frames sent", "data sent", "retries", "received", "collisions", "ch. losses",
         "queue max", "busy", "drops"],
        [[str(n["node"]), str(n["mac_frames_sent"]), str(n["mac_data_frames_sent"]),
          str(n["mac_retries"]), str(n["mac_frames_received"]), str(n["collisions"]),
          str(n["channel_losses"]), str(n["queue_max"]), f"{n['airtime_busy']:.2f}", _drops(n)]
         for n in nodes],
    )
    lines.append("")
    cons = raw.get("conservation", {})
    if cons and not cons.get("balanced", True):
        lines.append("WARNING: packet conservation does not balance: " + str(cons))
    wall = raw.get("wall_time_s", 0.0)
    events = raw.get("events", 0)
    rate = f", {events / wall / 1e6:.2f} M events/s" if wall > 0 else ""
    lines.append(f"{events} events simulated in {wall:.3f} s engine wall time{rate}")
    return "\n".join(lines)
