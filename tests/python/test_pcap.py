"""`ncmesh run --pcap DIR` / `ncmesh.run(pcap_dir=...)`: per-node 802.11 captures that
tshark reads (docs/pcap.md)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys

import pytest

import ncmesh

TSHARK = shutil.which("tshark")
# On CI (root, apt-get) scripts/setup.sh installs tshark: a missing tshark is an error
# there, not a reason to skip.
_CI_CAN_INSTALL = bool(os.environ.get("CI")) and os.geteuid() == 0 and shutil.which("apt-get") is not None




@pytest.fixture
def tshark():
    """Runs tshark and returns its output; skips the test when tshark is missing."""
    if TSHARK is None:
        if _CI_CAN_INSTALL:
            pytest.fail("tshark is missing on CI although scripts/setup.sh installs it (root, apt-get)")
        pytest.skip("tshark is not installed (scripts/setup.sh installs it as root with apt-get; "
                    "or: apt-get install tshark)")
    return _tshark


MSS = 1000


def _chain(tmp_path, hops: int = 2, duration: float = 3.0):
    path = tmp_path / "chain.toml"
    ncmesh.Scenario.build("chain", hops=hops).update(
        {"simulation.duration_s": duration, "simulation.measure_start_s": 0.0}).save(path)
    return path


def _tshark(*args: str) -> str:
    p = subprocess.run([TSHARK, *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _records(path) -> int:
    """Number of records in a classic pcap file (checks the global header)."""
    data = path.read_bytes()
    magic, major, minor, _, _, _, linktype = struct.unpack_from("<IHHiIII", data)
    assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 105)
    n, off = 0, 24
    while off < len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        off += 16 + incl
        n += 1
    assert off == len(data)
    return n


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """A 3 s, 2-hop chain run through the CLI with --pcap."""
    tmp = tmp_path_factory.mktemp("pcap")
    out = tmp / "caps"
    p = subprocess.run([sys.executable, "-m", "ncmesh", "run", str(_chain(tmp)), "--pcap", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert f"packet captures written to {out}" in p.stdout
    return out


def test_one_file_per_node(captures):
    assert sorted(f.name for f in captures.iterdir()) == ["node-0.pcap", "node-1.pcap", "node-2.pcap"]
    for f in captures.iterdir():
        assert _records(f) > 100


def test_python_api_writes_the_same_captures(tmp_path, captures):
    r = ncmesh.run(_chain(tmp_path), pcap_dir=tmp_path / "caps")
    plain = ncmesh.run(_chain(tmp_path))
    for i in range(3):
        name = f"node-{i}.pcap"
        assert (tmp_path / "caps" / name).read_bytes() == (captures / name).read_bytes()
    # Capturing observes the run without changing it.
    a, b = r.to_dict(), plain.to_dict()
    a.pop("wall_time_s"), b.pop("wall_time_s")
    assert a == b


def test_pcap_dir_errors_are_os_errors(tmp_path, cli):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OSError):
        ncmesh.run(_chain(tmp_path, duration=1.5), pcap_dir=blocker)
    p = cli("run", str(_chain(tmp_path, duration=1.5)), "--pcap", str(blocker / "sub"))
    assert p.returncode == 2
    assert p.stderr.startswith("error:")


def test_tshark_finds_the_tcp_flow_and_its_sequence_numbers(tshark, captures):
    out = tshark("-r", str(captures / "node-0.pcap"), "-Y", "tcp",
                  "-T", "fields", "-e", "tcp.seq_raw", "-e", "tcp.len", "-e", "ip.src", "-e", "ip.dst",
                  "-e", "wlan.fc.retry", "-e", "wlan.ta")
    rows = [line.split("\t") for line in out.splitlines() if line]
    assert rows, "no TCP segments in node-0.pcap"
    # Node 0 also overhears node 1 forwarding its segments: keep what node 0 sent.
    data = [(int(seq), int(ln), retry) for seq, ln, src, dst, retry, ta in rows
            if (src, dst) == ("10.0.0.0", "10.0.0.2") and int(ln) > 0 and ta == "02:00:00:00:00:00"]
    overheard = [r for r in rows if r[5] == "02:00:00:00:00:01" and int(r[1]) > 0]
    acks = [r for r in rows if (r[2], r[3]) == ("10.0.0.2", "10.0.0.0")]
    assert len(data) > 50, f"{len(data)} data segments from node 0 to node 2"
    assert acks, "node 0 decodes the returning ACKs"
    assert overheard, "node 0 overhears node 1 forwarding"
    assert all(ln == MSS for _, ln, _ in data)
    # First transmissions (802.11 Retry bit clear): sequence numbers step by one
    # segment from 0, until a TCP retransmission (if there is one).
    seqs = [seq for seq, _, retry in data if retry in ("False", "0")]
    assert seqs[0] == 0
    steps = 0
    while steps + 1 < len(seqs) and seqs[steps + 1] - seqs[steps] == MSS:
        steps += 1
    assert steps >= 50, seqs[: steps + 2]
    assert steps + 1 == len(seqs) or seqs[steps + 1] < seqs[steps], "a break is a retransmission"


@pytest.mark.parametrize("node", [0, 1, 2])
def test_tshark_reports_nothing_malformed(tshark, captures, node):
    path = str(captures / f"node-{node}.pcap")
    assert tshark("-r", path, "-Y", "_ws.malformed || _ws.expert.severity == error") == ""
    # Every record is dissected as 802.11 (no frame shorter than its header).
    n = len(tshark("-r", path, "-Y", "wlan", "-T", "fields", "-e", "frame.number").split())
    assert n == _records(captures / f"node-{node}.pcap")


def test_relay_sees_exactly_one_tcp_conversation(tshark, captures):
    out = tshark("-r", str(captures / "node-1.pcap"), "-q", "-z", "conv,tcp")
    convs = [line for line in out.splitlines() if "<->" in line]
    assert len(convs) == 1, out
    assert "10.0.0.0:50000" in convs[0] and "10.0.0.2:40000" in convs[0], convs[0]


def test_tshark_time_stamps_are_simulated_time(tshark, captures):
    out = tshark("-r", str(captures / "node-0.pcap"), "-T", "fields", "-e", "frame.time_epoch")
    times = [float(t) for t in out.split()]
    assert times == sorted(times)
    assert 0.0 <= times[0] and times[-1] < 3.0
