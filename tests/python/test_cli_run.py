"""`ncmesh run`: summary, --json, --set, --seed, --out, standard input."""

import json

import pandas as pd
import pytest

import ncmesh


def _json(p) -> dict:
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)          # exactly one JSON object


def _without_wall(d: dict) -> dict:
    d = dict(d)
    d.pop("wall_time_s")
    return d


def test_summary(cli, chain_file):
    p = cli("run", str(chain_file))
    assert p.returncode == 0, p.stderr
    assert "goodput" in p.stdout and "events" in p.stdout
    assert p.stderr == ""


def test_json_shape(cli, chain_file):
    d = _json(cli("run", str(chain_file), "--json"))
    for key in ("flows", "nodes", "events", "sim_time_s", "wall_time_s", "seed", "conservation"):
        assert key in d
    assert isinstance(d["events"], int) and d["events"] > 0
    flow = d["flows"][0]
    for key in ("src", "dst", "goodput_kbps", "rtt_mean_ms", "retransmissions", "timeouts"):
        assert key in flow
    assert (flow["src"], flow["dst"]) == (0, 2)
    assert all("mac_frames_sent" in n for n in d["nodes"])
    assert "flow_series" not in d
    assert "flow_series" in _json(cli("run", str(chain_file), "--json", "--series"))


def test_json_matches_python_api(cli, chain_file):
    d = _json(cli("run", str(chain_file), "--json", "--seed", "7"))
    r = ncmesh.run(chain_file, seed=7)
    assert _without_wall(d) == _without_wall(json.loads(r.to_json(series=False)))


def test_determinism_across_processes(cli, chain_file):
    a = _json(cli("run", str(chain_file), "--json", "--seed", "11"))
    b = _json(cli("run", str(chain_file), "--json", "--seed", "11"))
    c = _json(cli("run", str(chain_file), "--json", "--seed", "12"))
    assert _without_wall(a) == _without_wall(b)
    assert _without_wall(a) != _without_wall(c)


def test_set_overrides(cli, chain_file):
    d = _json(cli("run", str(chain_file), "--json", "--set", "simulation.duration_s=5",
                  "--set", "flows[0].dst=1", "--set", "name=short run"))
    assert d["sim_time_s"] == pytest.approx(5.0)
    assert d["flows"][0]["dst"] == 1
    assert d["name"] == "short run"


def test_stdin(cli, chain_file):
    d = _json(cli("run", "-", "--json", input=chain_file.read_text()))
    assert d["flows"][0]["dst"] == 2


def test_out_dir(cli, chain_file, tmp_path):
    out = tmp_path / "res"
    d = _json(cli("run", str(chain_file), "--json", "--seed", "2", "--out", str(out)))
    flows = pd.read_parquet(out / "flows.parquet")
    nodes = pd.read_parquet(out / "nodes.parquet")
    assert list(flows["goodput_kbps"]) == [f["goodput_kbps"] for f in d["flows"]]
    assert list(nodes["mac_frames_sent"]) == [n["mac_frames_sent"] for n in d["nodes"]]
    assert len(pd.read_parquet(out / "flow_series.parquet")) > 0
    assert len(pd.read_parquet(out / "node_series.parquet")) > 0
    assert json.loads((out / "result.json").read_text())["events"] == d["events"]
    again = _json(cli("run", str(out / "scenario.toml"), "--json"))   # seed 2 is in the file
    assert _without_wall(again) == _without_wall(d)


def test_validate_ok(cli, chain_file):
    p = cli("validate", str(chain_file))
    assert (p.returncode, p.stdout.strip()) == (0, "ok")


def test_no_command_prints_help(cli):
    p = cli()
    assert p.returncode == 2 and "usage" in p.stderr
