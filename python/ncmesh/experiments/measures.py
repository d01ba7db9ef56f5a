"""Numbers the reproductions take from a results directory: per-run network throughput,
coding counters summed over nodes, paired changes against a baseline (same seed, same other
parameters), and mean ± 95% CI per group."""

from __future__ import annotations

from ..analysis.stats import mean_ci

COUNTERS = ("native_tx", "coded_tx", "coded_packets", "decode_failures", "coding_missed",
            "coding_retransmissions", "control_tx", "futile_drops")


def per_run_total(results, keys: list[str]):
    """One row per run: keys..., seed, run_key, throughput_kbps (sum of the flows'
    goodput = the network's total transport throughput)."""
    flows = results.flows
    cols = [k for k in keys if k in flows.columns]
    g = flows.groupby(cols + ["seed", "run_key"], dropna=False)["goodput_kbps"].sum().reset_index()
    return g.rename(columns={"goodput_kbps": "throughput_kbps"})


def per_run_counters(results, keys: list[str]):
    """One row per run: keys..., seed, the coding counters summed over nodes, and MAC
    data transmissions where the core reports them."""
    nodes = results.nodes
    cols = [k for k in keys if k in nodes.columns]
    have = [c for c in COUNTERS if c in nodes.columns]
    extra = [c for c in ("drops_queue", "queue_drops", "mac_drops", "drops_retry") if c in nodes.columns]
    return nodes.groupby(cols + ["seed", "run_key"], dropna=False)[have + extra].sum().reset_index()


def paired_change(base, other, on: list[str], value: str = "throughput_kbps"):
    """The rows of `other` with the change (%) of `value` over the row of `base` that matches
    them on `on` (the seed and the other parameters): column improvement_pct, and `base`'s
    value as _base. Rows without a match are left out."""
    base = base[on + [value]].rename(columns={value: "_base"})
    m = other.merge(base, on=on, how="inner")
    m["improvement_pct"] = (m[value] - m["_base"]) / m["_base"] * 100.0
    return m


def improvements(df, keys: list[str], scheme_key: str, baseline: str, value: str = "throughput_kbps"):
    """Paired per-seed improvement (%) of every scheme over `baseline` within each group
    of `keys` (same seed, same other parameters). Returns rows keys..., scheme, seed,
    improvement_pct, value, _base."""
    import pandas as pd

    m = paired_change(df[df[scheme_key] == baseline], df[df[scheme_key] != baseline], keys + ["seed"], value)
    return pd.DataFrame(m[keys + [scheme_key, "seed", "improvement_pct", value, "_base"]])


def stats_by(df, keys: list[str], value: str):
    """Mean, 95% CI half-width and n of `value` per group of `keys` ({key tuple: (m, ci, n)})."""
    out = {}
    for k, g in df.groupby(keys, dropna=False, sort=True):
        k = k if isinstance(k, tuple) else (k,)
        out[k] = mean_ci(g[value])
    return out


