"""Shared fixtures: the CLI as a subprocess, and small scenarios that run quickly."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import ncmesh

# Short runs keep the suite fast; the measurement window starts after the TCP start (1 s).
SHORT = {"simulation.duration_s": 12.0, "simulation.measure_start_s": 2.0}


def run_cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """`ncmesh ARGS...` in a fresh interpreter (same one as the tests). No wall-clock
    timeout: a quick reproduction on a busy 2-core machine takes longer than any fixed
    limit (combocoding's took 9 min under a load of 4.6 from other work)."""
    return subprocess.run(
        [sys.executable, "-m", "ncmesh", *args],
        input=input, capture_output=True, text=True,
    )


def reproduce_quick(tmp_path_factory, name: str, *extra: str):
    """`ncmesh reproduce NAME --quick EXTRA...` into a fresh directory: (out dir, process)."""
    out = tmp_path_factory.mktemp("reproduce") / name
    p = run_cli("reproduce", name, "--quick", *extra, "--out", str(out))
    assert p.returncode == 0, p.stderr
    return out, p


# The arguments each experiment's quick run is made with, the same for every test that
# reads it: the experiment's own tests and the identity gate share one run per session.
QUICK_ARGS = {"chain-vs-ns3": (), "ncaqm": ("--jobs", "2"), "cope-tcp": ("--jobs", "2"),
              "combocoding": ("--jobs", "2"), "modern-tcp": ("--jobs", "2"),
              "wait-time": ("--jobs", "2")}


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory):
    """`ncmesh reproduce NAME --quick` once per test session and experiment, shared by
    pytest-xdist's workers: a function NAME -> (out dir, process). The first worker that
    needs it runs it under a lock in the session's shared temporary folder and stores the
    process's output beside it; another worker waits for the lock and reads them."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent                  # the folder every worker's basetemp is in
    root = base / "quick-reproductions"
    root.mkdir(exist_ok=True)
    done: dict = {}

    def get(name: str):
        if name in done:
            return done[name]
        out, record = root / name, root / f"{name}.process.json"
        with open(root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not record.exists():
                p = run_cli("reproduce", name, "--quick", *QUICK_ARGS[name], "--out", str(out))
                record.write_text(json.dumps({"args": p.args, "returncode": p.returncode,
                                              "stdout": p.stdout, "stderr": p.stderr}))
            r = json.loads(record.read_text())
        p = subprocess.CompletedProcess(r["args"], r["returncode"], r["stdout"], r["stderr"])
        assert p.returncode == 0, p.stderr
        done[name] = (out, p)
        return done[name]

    return get


def short_chain(hops: int = 2) -> ncmesh.Scenario:
    return ncmesh.Scenario.build("chain", hops=hops).update(SHORT)


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def chain_file(tmp_path):
    """A short 2-hop chain scenario as a complete TOML file."""
    path = tmp_path / "chain.toml"
    short_chain(2).save(path)
    return path
