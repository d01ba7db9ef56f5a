"""`ncmesh compare-ns3` and its helpers (python/ncmesh/validation.py)."""

import csv
import statistics

import pytest

from ncmesh.validation import (
    NS3_CHAIN_RUNS_KBPS, PER_SEED_COLUMNS, SUMMARY_COLUMNS, TAGS, YANS_GATE_W, chain_reference,
    format_comparison, format_tag_table, load_reference, load_reference_table, parse_hops, parse_tags, run_comparison,
)

REFERENCE_TAGS = ["chain", "chain-delack-off", "chain-tworay", "chain-per05", "chain-per10", "x", "x-tworay"]


def test_parse_hops():
    assert parse_hops("1-8") == list(range(1, 9))
    assert parse_hops("1,2,4") == [1, 2, 4]
    assert parse_hops("3") == [3]
    with pytest.raises(ValueError):
        parse_hops("0-2")
    with pytest.raises(ValueError):
        parse_hops("x")


def test_parse_tags():
    assert parse_tags(None) == REFERENCE_TAGS
    assert parse_tags("all") == REFERENCE_TAGS
    assert parse_tags("x, chain") == ["x", "chain"]
    with pytest.raises(ValueError, match="unknown tag"):
        parse_tags("chain,nope")


def test_embedded_chain_rows_are_the_reference_csv(monkeypatch):
    """Without the CSV (an installed package), the embedded chain rows give the same numbers."""
    import ncmesh.validation as validation

    table, _ = load_reference_table()
    assert {h: tuple(c.totals) for (t, h), c in table.items() if t == "chain"} == NS3_CHAIN_RUNS_KBPS
    with_csv = chain_reference()
    monkeypatch.setattr(validation, "_default_reference", lambda: None)
    fallback, source = load_reference_table()
    assert "embedded" in source and {t for t, _ in fallback} == {"chain"}
    assert chain_reference() == with_csv


def test_load_reference_csv(tmp_path):
    path = tmp_path / "ref.csv"
    path.write_text(
        "tag,topo,hops,flow,goodput_kbps,run\n"
        "chain,chain,1,0,1400,1\n"
        "chain,chain,1,0,1410,2\n"
        "chain,chain,2,0,605,1\n"
        "per,chain,2,0,100,1\n"
        "x,x,2,0,300,1\n"
        "x,x,2,1,200,1\n"
        "x,x,2,0,500,2\n"
        "x,x,2,1,10,2\n"
    )
    ref, source = load_reference(path)
    assert ref == {1: 1405.0, 2: 605.0}
    assert source.startswith(str(path))
    table, _ = load_reference_table(path)
    assert table[("x", 2)].totals == [500.0, 510.0]          # X: total of both flows per run
    assert table[("x", 2)].flow_means() == [400.0, 105.0]
    assert table[("per", 2)].totals == [100.0]


def test_every_reference_tag_is_mapped():
    table, _ = load_reference_table()
    assert {t for t, _ in table} == set(REFERENCE_TAGS) == set(TAGS)


@pytest.mark.parametrize("tag", REFERENCE_TAGS)
def test_tag_scenarios_are_valid(tag):
    """Every tag's override set gives a valid scenario at each hop count of the reference."""
    table, _ = load_reference_table()
    hops = sorted(h for t, h in table if t == tag)
    assert hops
    for h in hops:
        resolved = TAGS[tag].scenario(h).resolved()
        if TAGS[tag].kind == "chain":
            assert len(resolved["nodes"]) == h + 1
            assert [(f["src"], f["dst"]) for f in resolved["flows"]] == [(0, h)]
        else:
            assert len(resolved["nodes"]) == 5
            assert [(f["src"], f["dst"]) for f in resolved["flows"]] == [(0, 2), (3, 4)]


def test_tag_overrides():
    def res(tag, hops=2):
        return TAGS[tag].scenario(hops).resolved()

    base = res("chain")
    assert base["tcp"]["delayed_ack"] is True and base["channel"]["model"] == "range" and not base["loss"]
    assert res("chain-delack-off")["tcp"]["delayed_ack"] is False
    for tag, rate in (("chain-per05", 0.05), ("chain-per10", 0.10)):
        (loss,) = res(tag)["loss"]
        assert loss["rate"] == rate and loss["frames"] == "data" and not loss["links"]
    for tag in ("chain-tworay", "x-tworay"):
        ch = res(tag)["channel"]
        assert ch["model"] == "tworay" and ch["preamble_detection_db"] <= -100
        # ns-3's YansWifiChannel discards signals below RxSensitivity x 22/20 before the PHY
        assert ch["cs_threshold_w"] == ch["rx_threshold_w"] == pytest.approx(YANS_GATE_W)
        assert YANS_GATE_W == pytest.approx(3.652e-10 * 1.1)
    with pytest.raises(ValueError):
        TAGS["x"].scenario(3)


def test_chain_within_10_percent_of_ns3_at_1_and_2_hops():
    """Fidelity regression test: one seed of the 1- and 2-hop chain lands within 10% of ns-3."""
    per_seed, summary, _ = run_comparison(["chain"], [1, 2], seeds=1)
    assert [r["hops"] for r in summary] == [1, 2]
    for r in summary:
        assert r["ns3_runs"] == 3
        assert abs(r["diff_pct"]) <= 10.0, r
        assert r["within_10pct"] == "yes"
    assert len(per_seed) == 2


def test_compare_ns3_csv_columns(cli, tmp_path):
    out, summ = tmp_path / "seeds.csv", tmp_path / "summary.csv"
    p = cli("compare-ns3", "--tags", "chain,x", "--hops", "1,2", "--seeds", "2", "--jobs", "2",
            "--csv", str(out), "--summary-csv", str(summ))
    assert p.returncode == 0, p.stderr
    with open(out, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert reader.fieldnames == PER_SEED_COLUMNS
    assert PER_SEED_COLUMNS[:4] == ["tag", "kind", "hops", "seed"]
    assert {"ncmesh_kbps", "ns3_mean_kbps", "ns3_min_kbps", "ns3_max_kbps"} <= set(PER_SEED_COLUMNS)
    assert [(r["tag"], r["hops"], r["seed"]) for r in rows] == [
        ("chain", "1", "1"), ("chain", "1", "2"), ("chain", "2", "1"), ("chain", "2", "2"),
        ("x", "2", "1"), ("x", "2", "2")]
    for r in rows:
        assert float(r["ns3_min_kbps"]) <= float(r["ns3_mean_kbps"]) <= float(r["ns3_max_kbps"])
    x = rows[-1]
    assert float(x["ncmesh_kbps"]) == pytest.approx(float(x["ncmesh_flow0_kbps"]) + float(x["ncmesh_flow1_kbps"]),
                                                    abs=0.01)
    with open(summ, newline="") as f:
        reader = csv.DictReader(f)
        srows = list(reader)
    assert reader.fieldnames == SUMMARY_COLUMNS
    assert [(r["tag"], r["hops"]) for r in srows] == [("chain", "1"), ("chain", "2"), ("x", "2")]
    chain1 = [float(r["ncmesh_kbps"]) for r in rows if r["tag"] == "chain" and r["hops"] == "1"]
    assert float(srows[0]["ncmesh_mean_kbps"]) == pytest.approx(statistics.fmean(chain1), abs=0.01)
    assert srows[0]["within_10pct"] in ("yes", "no")


def test_compare_ns3_cli_default_table(cli):
    p = cli("compare-ns3", "--tags", "chain", "--hops", "1,2", "--seeds", "1")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[0].startswith("TCP goodput over an 802.11b chain")
    assert [ln.split()[0] for ln in lines[2:4]] == ["1", "2"]
    assert lines[-1] == "all 2 hop counts within 10%: yes"


def test_compare_ns3_cli_all_tags_chain_first(cli):
    p = cli("compare-ns3", "--hops", "2", "--seeds", "1")
    assert p.returncode == 0, p.stderr
    tables = p.stdout.strip().split("\n\n")
    assert len(tables) == len(REFERENCE_TAGS)
    assert tables[0].startswith("TCP goodput over an 802.11b chain")
    for table, tag in zip(tables[1:], REFERENCE_TAGS[1:]):
        assert table.startswith(tag + " ")
        assert "hop count" in table.splitlines()[-1]


def test_compare_ns3_bad_arguments(cli):
    for args in (("--hops", "zero"), ("--tags", "nope"), ("--seeds", "0")):
        p = cli("compare-ns3", *args)
        assert p.returncode == 2 and "Traceback" not in p.stderr, args


def test_format_tag_table_verdict():
    rows = [{"tag": "chain", "kind": "chain", "hops": h, "seeds": 3, "ncmesh_mean_kbps": m,
             "ncmesh_halfwidth_kbps": 1.0, "ncmesh_flow0_mean_kbps": "", "ncmesh_flow1_mean_kbps": "",
             "ns3_mean_kbps": n, "ns3_min_kbps": n - 1, "ns3_max_kbps": n + 1, "ns3_flow0_mean_kbps": "",
             "ns3_flow1_mean_kbps": "", "diff_pct": (m - n) / n * 100, "within_10pct": w, "wall_s": 0.01,
             "source": "s"}
            for h, m, n, w in ((1, 1390.0, 1400.0, "yes"), (2, 700.0, 600.0, "no"))]
    text = format_tag_table(rows, "chain")
    assert "-0.7%" in text and "+16.7%" in text
    assert text.splitlines()[-1] == "all 2 hop counts within 10%: no (1 of 2)"


def test_format_comparison_legacy():
    rows = [{"hops": 1, "ns3_kbps": 1400.0, "ncmesh_kbps": 1390.0, "ncmesh_halfwidth_kbps": 0.0,
             "diff_pct": -0.7, "seeds": 1, "wall_s": 0.1, "source": "x"}]
    assert "1400" in format_comparison(rows) and "-0.7%" in format_comparison(rows)
