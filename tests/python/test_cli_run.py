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


# ---------------------------------------------------------------- a UDP flow through a TCP-only coder


@pytest.mark.parametrize("field,scheme,name", [("scheme.name", "comp", "CoMP"), ("scheme.intra", "tcp-nc", "TCP/NC"),
                                              ("scheme.name", "piggycode", "PiggyCode")])
def test_tcp_only_scheme_with_a_udp_flow_says_it_is_uncoded(cli, chain_file, field, scheme, name):
    line = f"note: {field} = '{scheme}' ({name}) codes only TCP: UDP flow 0 is carried uncoded"
    udp = ["--set", "flows.0.transport=udp", "--set", f"{field}={scheme}"]
    for command in ("run", "validate"):
        p = cli(command, str(chain_file), *udp)
        assert p.returncode == 0, p.stderr
        assert p.stderr.splitlines() == [line]          # once, one line
    with pytest.warns(ncmesh.UncodedUdpWarning, match="carried uncoded"):
        ncmesh.run(chain_file, overrides={"flows.0.transport": "udp", field: scheme})


def test_no_uncoded_note_for_tcp_or_for_schemes_that_code_udp(cli, chain_file):
    for extra in (["--set", "scheme.name=comp"],                                   # TCP flow
                  ["--set", "flows.0.transport=udp", "--set", "scheme.name=cope"],  # COPE codes UDP
                  ["--set", "flows.0.transport=udp", "--set", "scheme.intra=pipeline"]):
        p = cli("validate", str(chain_file), *extra)
        assert (p.returncode, p.stdout, p.stderr) == (0, "ok\n", ""), extra


def test_sweep_says_once_how_many_runs_carry_udp_uncoded(tmp_path, cli):
    path = tmp_path / "udp.toml"
    path.write_text('name = "udp"\n[base]\nbuilder = "chain"\noptions = { hops = 2, duration = 5 }\n'
                    'set = { "flows.0.transport" = "udp", "simulation.measure_start_s" = 1.0 }\n'
                    '[grid]\n"scheme.name" = ["none", "comp", "more"]\n')
    p = cli("sweep", str(path), "--out", str(tmp_path / "out"), "-q")
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines() == [
        "note: scheme.name = 'comp' (CoMP) codes only TCP: UDP flow 0 is carried uncoded (2 of 3 runs)"]


# ---------------------------------------------------------------- where a value error is in the file


def test_value_error_names_the_line_and_column_of_its_field(cli, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("# a scenario\n[mac]\nqueue_packets = -3\n\n[[nodes]]\nx = 0\ny = 0\n[[nodes]]\nx = 200\n"
                    "y = 0\n[[flows]]\nsrc = 0\ndst = 1\n[[flows]]\nsrc = 0\ndst = 9\n")
    for command in ("validate", "run"):
        p = cli(command, str(path))
        assert p.returncode == 2
        assert p.stderr.splitlines() == [
            "error: mac.queue_packets: -3 is not allowed: expected a non-negative integer (at most 4294967295) "
            f"({path}, line 3, column 17)"]
    p = cli("validate", str(path), "--set", "mac.queue_packets=5")
    assert p.stderr.splitlines() == [
        f"error: flows[1].dst: node 9 does not exist (scenario has 2 nodes: 0-1) ({path}, line 16, column 7)"]
    # both values fixed with --set: no error left
    p = cli("validate", str(path), "--set", "mac.queue_packets=5", "--set", "flows.1.dst=1")
    assert p.returncode == 0, p.stderr
    # a value given with --set is not in the file: no place
    p = cli("validate", str(path), "--set", "mac.queue_packets=-4")
    assert p.stderr.splitlines() == [
        "error: mac.queue_packets: -4 is not allowed: expected a non-negative integer (at most 4294967295)"]


@pytest.mark.parametrize("text,field,where", [
    ("mac.queue_packets = -3\n", "mac.queue_packets", (1, 21)),
    ("mac = { queue_packets = -3 }\n", "mac.queue_packets", (1, 7)),              # the inline table
    ('nodes = [\n  {x = 0},\n]\n[mac]\n  queue_packets = 1\n', "mac.queue_packets", (5, 19)),
    ("[[loss]]\nrate = 0.1\n[[loss.schedule]]\nto_s = 1\n[[loss.schedule]]\nto_s = -1\n",
     "loss[0].schedule[1].to_s", (6, 8)),
    ("[[flows]]  # flow 0\nsrc = 0\n", "flows[0]", (1, 1)),
    ("[tcp]\nsack = true\n", "mac.queue_packets", None),
])
def test_locate(text, field, where):
    from ncmesh.locate import locate

    assert locate(text, field) == where
