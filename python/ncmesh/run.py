"""`run()`: simulate a scenario once."""

from __future__ import annotations

import os
import warnings
from typing import Any

from . import _core
from .result import RunResult
from .scenario import Scenario, uncoded_udp_note


class UncodedUdpWarning(UserWarning):
    """A scheme that codes only TCP (CoMP, MORE, TCP/NC, PiggyCode) runs with a UDP flow:
    that flow is carried uncoded."""


def as_scenario(scenario: Scenario | dict | str | os.PathLike) -> Scenario:
    """A Scenario from a Scenario, a dict, or the path of a TOML file ('-' = stdin)."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.load(scenario)
    raise TypeError(f"expected a Scenario, dict or path, not {type(scenario).__name__}")


def run(
    scenario: Scenario | dict | str | os.PathLike,
    seed: int | None = None,
    overrides: dict[str, Any] | None = None,
    pcap_dir: str | os.PathLike | None = None,
) -> RunResult:
    """Runs one simulation and returns its RunResult.

    `seed` replaces simulation.seed; `overrides` maps dotted keys ('mac.queue_packets',
    'flows.0.dst') to values, applied before validation. Raises ScenarioError for an
    invalid scenario. The GIL is released while the simulation runs, so threads can
    run several at once. With `pcap_dir`, one packet capture per node is written
    there (DIR/node-<i>.pcap, created if needed; see docs/pcap.md). A scheme that codes
    only TCP with a UDP flow (carried uncoded) gives a `UncodedUdpWarning`, once per
    call site (Python's default warning filter).
    """
    sc = as_scenario(scenario)
    if overrides:
        sc = sc.copy().update(overrides)
    note = uncoded_udp_note(sc.resolved())
    if note:
        warnings.warn(note.removeprefix("note: "), UncodedUdpWarning, stacklevel=2)
    if pcap_dir is None:
        return RunResult(_core.run(sc.to_dict(), seed))
    return RunResult(_core.run(sc.to_dict(), seed, os.fspath(pcap_dir)))
