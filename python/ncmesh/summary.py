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


# Beyond this many nodes the per-node table shows the busiest nodes and the totals
# (the full table is in `--out DIR`'s nodes.parquet and in `--json`).
MAX_NODE_ROWS = 30
SHOWN_WHEN_LARGE = 10

# Node columns of the MAC/PHY table (and what is not a counter). Every other integer
# column of the node rows is a counter of the coding scheme (native_tx, coded_tx, ...,
# whatever the scheme family reports): shown when non-zero.
NODE_COLUMNS = frozenset({
    "node", "x", "y", "mac_frames_sent", "mac_data_frames_sent", "mac_data_bytes_sent", "mac_retries",
    "mac_frames_received",
    "mac_frames_overheard", "collisions", "channel_losses", "mac_duplicates", "queue_max", "airtime_busy",
})


def _node_row(n: dict) -> list[str]:
    return [str(n["node"]), str(n["mac_frames_sent"]), str(n["mac_data_frames_sent"]),
            str(n["mac_retries"]), str(n["mac_frames_received"]), str(n["collisions"]),
            str(n["channel_losses"]), str(n["queue_max"]), f"{n['airtime_busy']:.2f}", _drops(n)]


NODE_HEADER = ["node", "frames sent", "data sent", "retries", "received", "collisions", "ch. losses",
               "queue max", "busy", "drops"]


def _nodes_table(nodes: list[dict]) -> list[str]:
    """The per-node MAC table; beyond MAX_NODE_ROWS nodes the busiest ones (by frames
    sent) and a totals row."""
    if len(nodes) <= MAX_NODE_ROWS:
        return [f"nodes ({len(nodes)})"] + _table(NODE_HEADER, [_node_row(n) for n in nodes]) + [""]
    busiest = sorted(nodes, key=lambda n: (-n["mac_frames_sent"], n["node"]))[:SHOWN_WHEN_LARGE]
    total = {k: sum(n.get(k, 0) for n in nodes) for k in nodes[0] if k.startswith(("mac_", "drops_"))
             or k in ("collisions", "channel_losses")}
    total_row = ["all", str(total["mac_frames_sent"]), str(total["mac_data_frames_sent"]),
                 str(total["mac_retries"]), str(total["mac_frames_received"]), str(total["collisions"]),
                 str(total["channel_losses"]), str(max(n["queue_max"] for n in nodes)),
                 f"{sum(n['airtime_busy'] for n in nodes) / len(nodes):.2f}", _drops(total)]
    idle = sum(1 for n in nodes if not n["mac_frames_sent"])
    return ([f"nodes ({len(nodes)}; the {len(busiest)} that sent the most frames, then all nodes: "
             "queue max is the largest, busy the mean)"]
            + _table(NODE_HEADER, [_node_row(n) for n in busiest] + [total_row])
            + [f"{len(nodes) - len(busiest)} more nodes ({idle} sent nothing): the full table is in "
               "--out DIR (nodes.parquet) and --json", ""])


def _scheme_counters(nodes: list[dict]) -> list[str]:
    """Per-node counters of the coding scheme that are not zero everywhere (columns and
    nodes with nothing to show are left out)."""
    if not nodes:
        return []
    columns = [k for k in nodes[0] if k not in NODE_COLUMNS and not k.startswith("drops_")
               and all(isinstance(n.get(k), int) and not isinstance(n.get(k), bool) for n in nodes)
               and any(n.get(k) for n in nodes)]
    if not columns:
        return []
    active = [n for n in nodes if any(n.get(k) for k in columns)]
    shown = active if len(active) <= MAX_NODE_ROWS else \
        sorted(active, key=lambda n: (-sum(n[k] for k in columns), n["node"]))[:SHOWN_WHEN_LARGE]
    rows = [[str(n["node"])] + [str(n[k]) for k in columns] for n in shown]
    rows.append(["all"] + [str(sum(n[k] for n in nodes)) for k in columns])
    more = len(active) - len(shown)
    note = [f"{more} more nodes with coding activity: the full table is in --out DIR and --json"] if more else []
    return ([f"coding ({len(active)} of {len(nodes)} nodes active)"]
            + _table(["node"] + columns, rows) + note + [""])


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
    lines += _nodes_table(nodes)
    lines += _scheme_counters(nodes)
    cons = raw.get("conservation", {})
    if cons and not cons.get("balanced", True):
        lines.append("WARNING: packet conservation does not balance: " + str(cons))
    wall = raw.get("wall_time_s", 0.0)
    events = raw.get("events", 0)
    rate = f", {events / wall / 1e6:.2f} M events/s" if wall > 0 else ""
    lines.append(f"{events} events simulated in {wall:.3f} s engine wall time{rate}")
    return "\n".join(lines)
