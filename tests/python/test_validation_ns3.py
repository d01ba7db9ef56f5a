"""`ncmesh compare-ns3` and its helpers."""

import pytest

from ncmesh.validation import NS3_CHAIN_GOODPUT_KBPS, format_comparison, load_reference, parse_hops


def test_parse_hops():
    assert parse_hops("1-8") == list(range(1, 9))
    assert parse_hops("1,2,4") == [1, 2, 4]
    assert parse_hops("3") == [3]
    with pytest.raises(ValueError):
        parse_hops("0-2")
    with pytest.raises(ValueError):
        parse_hops("x")


def test_embedded_reference_is_the_anchor_table():
    assert NS3_CHAIN_GOODPUT_KBPS == {1: 1400, 2: 605, 3: 412, 4: 334, 5: 297, 6: 284, 7: 280, 8: 270}


def test_load_reference_csv(tmp_path):
    path = tmp_path / "ref.csv"
    path.write_text(
        "tag,topo,hops,flow,goodput_kbps,run\n"
        "chain,chain,1,0,1400,1\n"
        "chain,chain,1,0,1410,2\n"
        "chain,chain,2,0,605,1\n"
        "per,chain,2,0,100,1\n"
        "x,x,3,0,999,1\n"
    )
    ref, source = load_reference(path)
    assert ref == {1: 1405.0, 2: 605.0}
    assert source.startswith(str(path))


def test_compare_ns3_cli(cli):
    p = cli("compare-ns3", "--hops", "1,2", "--seeds", "1")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 4
    assert lines[2].split()[0] == "1" and lines[3].split()[0] == "2"


def test_compare_ns3_bad_hops(cli):
    p = cli("compare-ns3", "--hops", "zero")
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_format_comparison():
    rows = [{"hops": 1, "ns3_kbps": 1400.0, "ncmesh_kbps": 1390.0, "ncmesh_sd_kbps": 0.0,
             "diff_pct": -0.7, "seeds": 1, "wall_s": 0.1, "source": "x"}]
    assert "1400" in format_comparison(rows) and "-0.7%" in format_comparison(rows)
