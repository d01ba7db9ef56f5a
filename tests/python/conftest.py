"""Shared fixtures: the CLI as a subprocess, and small scenarios that run quickly."""

from __future__ import annotations

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
