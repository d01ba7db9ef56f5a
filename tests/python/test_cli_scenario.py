"""`ncmesh scenario`: every kind prints complete TOML that `ncmesh validate` accepts."""

import json
import tomllib

import pytest

import ncmesh

KINDS = ncmesh.Scenario.kinds()

# Options some kinds need to produce a small scenario; others take defaults.
KIND_ARGS = {
    "chain": ["--hops", "3"],
    "grid": ["--rows", "3", "--cols", "3"],
    "random": ["--nodes", "10", "--area", "500", "--seed", "2"],
    "topology": ["--flows", "1"],   # plus the topology file (fixture)
}


def test_list(cli):
    p = cli("scenario", "--list")
    assert p.returncode == 0
    assert p.stdout.split() == KINDS
    assert "chain" in KINDS


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_validates(cli, tmp_path, kind, topology_file):
    args = list(KIND_ARGS.get(kind, []))
    if kind == "topology":
        args.append(str(topology_file))
    p = cli("scenario", kind, *args)
    assert p.returncode == 0, p.stderr
    data = tomllib.loads(p.stdout)
    for table in ("simulation", "channel", "mac", "routing", "tcp", "nodes", "flows"):
        assert table in data, f"{kind}: resolved TOML lacks {table}"
    path = tmp_path / f"{kind}.toml"
    path.write_text(p.stdout)
    v = cli("validate", str(path))
    assert (v.returncode, v.stdout.strip()) == (0, "ok"), v.stderr


def test_chain_options(cli):
    p = cli("scenario", "chain", "--hops", "5", "--spacing", "150")
    assert p.returncode == 0, p.stderr
    data = tomllib.loads(p.stdout)
    xs = sorted(n["x"] for n in data["nodes"])
    assert len(xs) == 6
    assert xs[1] - xs[0] == pytest.approx(150.0)


def test_output_file_and_set(cli, tmp_path):
    out = tmp_path / "c.toml"
    p = cli("scenario", "chain", "--hops", "2", "--set", "mac.queue_packets=9", "-o", str(out))
    assert p.returncode == 0 and p.stdout == ""
    assert tomllib.loads(out.read_text())["mac"]["queue_packets"] == 9


def test_bad_option_value(cli):
    p = cli("scenario", "chain", "--hops", "0")
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and "hops" in p.stderr


@pytest.fixture
def topology_file(tmp_path):
    """A small Freifunk-style topology (JSON: nodes with positions, wifi links with TQ)."""
    nodes = [{"id": f"n{i}", "x_m": 150.0 * i, "y_m": 0.0} for i in range(5)]
    links = [{"type": "wifi", "a": f"n{i}", "b": f"n{i + 1}", "tq_ab": 0.9, "tq_ba": 0.8} for i in range(4)]
    path = tmp_path / "topology.json"
    path.write_text(json.dumps({"nodes": nodes, "links": links}))
    return path


def test_topology_file_option_and_tq_map(cli, topology_file):
    a = cli("scenario", "topology", "--file", str(topology_file), "--tq-map", "sqrt")
    b = cli("scenario", "topology", str(topology_file), "--tq-map", "sqrt")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert tomllib.loads(a.stdout)["channel"]["model"] == "linktable"


def test_topology_without_file(cli):
    p = cli("scenario", "topology")
    assert p.returncode == 2 and p.stderr.startswith("error: file: ")


def test_generic_builder_option(cli):
    p = cli("scenario", "chain", "--hops", "2", "--opt", "duration=30")
    assert p.returncode == 0, p.stderr
    assert tomllib.loads(p.stdout)["simulation"]["duration_s"] == 30.0
    p = cli("scenario", "chain", "--opt", "bogus=1")
    assert p.returncode == 2 and p.stderr.startswith("error: bogus: ")
