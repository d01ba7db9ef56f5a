"""The tables of a run result as pandas DataFrames (pandas imported on first use)."""

from __future__ import annotations

from typing import Any

from . import _core

# Columns of each table, used when a table is empty (e.g. a run without flows).
COLUMNS = {
    "flows": ["flow", "src", "dst", "transport", "goodput_kbps", "rx_bytes", "tx_packets",
              "rtt_mean_ms", "rtt_samples", "retransmissions", "fast_retransmits",
              "timeouts", "payload_errors", "acks_sent", "out_of_order_segments", "delay_mean_ms", "path"],
    "nodes": ["node", "x", "y", "mac_frames_sent", "mac_data_frames_sent", "mac_data_bytes_sent", "mac_retries",
              "mac_frames_received", "mac_frames_overheard", "collisions", "channel_losses",
              "mac_duplicates", "drops_queue_full", "drops_retry_limit", "drops_ttl",
              "drops_no_route", "drops_scheme", "queue_max", "airtime_busy",
              "drops_discovery", "aodv_rreq_tx", "aodv_rrep_tx", "aodv_rerr_tx", "aodv_hello_tx",
              "aodv_discoveries", "aodv_discoveries_failed", "aodv_route_breaks",
              # then every coding family's counters, from the core's registry
              *_core.coding_counters()],
    "flow_series": ["t_s", "flow", "goodput_kbps", "cwnd_bytes"],
    "node_series": ["t_s", "node", "queue_len"],
}

TABLES = tuple(COLUMNS)


def frame(name: str, rows: list[dict[str, Any]]):
    """One result table (list of row dicts) as a DataFrame."""
    import pandas as pd

    if not rows:
        return pd.DataFrame(columns=COLUMNS[name])
    return pd.DataFrame.from_records(rows)
