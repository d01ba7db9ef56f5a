"""Smaller things a new user trips over: coding counters and large scenarios in the
text summary, plots that would pool runs of different parameter values, and the
shipped example topology."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ncmesh
from ncmesh.summary import MAX_NODE_ROWS, SHOWN_WHEN_LARGE

from conftest import SHORT, run_cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_TOPOLOGY = REPO / "examples" / "topologies" / "freifunk-leipzig-12.json"


def section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def test_coded_run_shows_its_coding_counters():
    res = ncmesh.run(ncmesh.Scenario.build("cross").update(SHORT).set("scheme.name", "cope"))
    coding = section(res.summary(), "coding (")
    header = coding[1].split()
    nodes = res.nodes
    # exactly the counter columns that are not zero everywhere, in the node table's order
    counters = [c for c in ("native_tx", "coded_tx", "coded_packets", "decode_failures", "coding_missed",
                            "coding_retransmissions", "control_tx") if nodes[c].any()]
    assert header == ["node"] + counters and "coded_tx" in counters
    total = coding[-1].split()
    assert total[0] == "all" and [int(v) for v in total[1:]] == [int(nodes[c].sum()) for c in counters]


def test_uncoded_run_has_no_coding_table():
    res = ncmesh.run(ncmesh.Scenario.build("chain", hops=2).update(SHORT))
    assert "coding (" not in res.summary()


def test_counters_of_any_scheme_family_are_found_generically():
    from ncmesh.summary import format_summary

    raw = ncmesh.run(ncmesh.Scenario.build("chain", hops=1).update(SHORT)).raw
    for n in raw["nodes"]:
        n["rlnc_innovative"] = 7 if n["node"] == 1 else 0     # a family's new counter
    coding = section(format_summary(raw), "coding (1 of 2 nodes active)")
    assert coding[1].split() == ["node", "rlnc_innovative"] and coding[2].split() == ["1", "7"]


def test_large_scenario_summarises_its_nodes(tmp_path):
    sc = ncmesh.Scenario.build("random", nodes=MAX_NODE_ROWS + 20, area=1000, flows=2).update(SHORT)
    res = ncmesh.run(sc)
    text = res.summary()
    nodes = section(text, "nodes (")
    assert len(nodes) == 2 + SHOWN_WHEN_LARGE + 1 + 1          # title, header, busiest, all, "more"
    busiest = res.nodes.sort_values(["mac_frames_sent", "node"], ascending=[False, True]).node.head(SHOWN_WHEN_LARGE)
    assert [int(line.split()[0]) for line in nodes[2:2 + SHOWN_WHEN_LARGE]] == list(busiest)
    assert nodes[-2].split()[:2] == ["all", str(int(res.nodes.mac_frames_sent.sum()))]
    assert nodes[-1].startswith("40 more nodes") and "--out DIR" in nodes[-1]
    # the full table is in --out
    path = tmp_path / "s.toml"
    sc.save(path)
    p = run_cli("run", str(path), "--out", str(tmp_path / "out"))
    assert p.returncode == 0
    import pandas as pd
    assert len(pd.read_parquet(tmp_path / "out" / "nodes.parquet")) == MAX_NODE_ROWS + 20
    small = ncmesh.run(ncmesh.Scenario.build("chain", hops=MAX_NODE_ROWS - 1).update(SHORT)).summary()
    assert len(section(small, "nodes (")) == 2 + MAX_NODE_ROWS


@pytest.fixture(scope="module")
def two_params(tmp_path_factory):
    from ncmesh.sweep import run_sweep

    d = tmp_path_factory.mktemp("two")
    (d / "s.toml").write_text('name = "two"\n[base]\nbuilder = "chain"\noptions = { duration = 4 }\n'
                              'set = { "simulation.measure_start_s" = 1.5 }\n'
                              '[grid]\nhops = [1, 2]\n"tcp.sack" = [false, true]\n[seeds]\ncount = 2\n')
    run_sweep(d / "s.toml", d / "out", jobs=1, progress=False)
    return d / "out"


def test_plot_never_pools_runs_of_different_parameters(two_params, tmp_path):
    # no --hue: one curve per varying parameter, said on stderr
    p = run_cli("plot", str(two_params), "-o", str(tmp_path / "cdf"))
    assert p.returncode == 0 and "one curve per hops, tcp.sack" in p.stderr, p.stderr
    svg = (tmp_path / "cdf.svg").read_text()
    assert svg.count("(n=2)") == 4                    # 4 curves of 2 seeds, not one of 8
    p = run_cli("plot", str(two_params), "--x", "hops", "-o", str(tmp_path / "line"))
    assert p.returncode == 0 and "one curve per tcp.sack" in p.stderr
    # a --hue that leaves a varying parameter out is refused
    p = run_cli("plot", str(two_params), "--x", "hops", "--hue", "", "-o", str(tmp_path / "x"))
    assert p.returncode == 2 and "also vary in tcp.sack" in p.stderr and "--hue tcp.sack" in p.stderr
    p = run_cli("plot", str(two_params), "--hue", "hops", "-o", str(tmp_path / "x"))
    assert p.returncode == 2 and "--hue hops,tcp.sack" in p.stderr
    p = run_cli("plot", str(two_params), "--hue", "hops,tcp.sack", "-o", str(tmp_path / "ok"))
    assert p.returncode == 0 and "one curve" not in p.stderr


def test_example_topology_builds_and_runs(tmp_path):
    data = json.loads(EXAMPLE_TOPOLOGY.read_text())
    assert len(data["nodes"]) == 12 and all(link["type"] == "wifi" for link in data["links"])
    assert "MIT" in data["source"]
    sc = ncmesh.Scenario.build("topology", file=str(EXAMPLE_TOPOLOGY), flows=2).update(SHORT)
    resolved = sc.resolved()
    assert resolved["channel"]["model"] == "linktable" and len(resolved["nodes"]) == 12
    assert len(resolved["channel"]["links"]) == len(data["links"])
    res = ncmesh.run(sc)
    assert len(res.flows) == 2 and res.flows.goodput_kbps.sum() > 0
    p = run_cli("scenario", "topology", str(EXAMPLE_TOPOLOGY), "--flows", "2")
    assert p.returncode == 0 and "freifunk-leipzig-excerpt" in p.stdout
    doc = (REPO / "docs" / "scenario-format.md").read_text()
    assert "### Topology files" in doc and "examples/topologies/freifunk-leipzig-12.json" in doc
