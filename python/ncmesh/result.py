"""`RunResult`: what one simulation run returns, with tables as pandas DataFrames."""

from __future__ import annotations

import copy
import functools
import json
import os

from .tables import TABLES, frame

SCALARS = ("name", "seed", "events", "sim_time_s", "wall_time_s")


class RunResult:
    """The result of `ncmesh.run()`.

    `.raw` is the plain dict from the core; `.flows`, `.nodes`, `.flow_series` and
    `.node_series` are DataFrames built on first access; `.scenario` is the resolved
    scenario (dict) that ran. Every column, its unit and meaning: docs/results-format.md
    (generated from the core, so it names exactly these columns).
    """

    def __init__(self, raw: dict):
        self.raw = raw

    # --- scalars
    @property
    def scenario(self) -> dict:
        return self.raw.get("scenario", {})

    @property
    def name(self) -> str:
        return self.raw["name"]

    @property
    def seed(self) -> int:
        return self.raw["seed"]

    @property
    def events(self) -> int:
        return self.raw["events"]

    @property
    def sim_time_s(self) -> float:
        return self.raw["sim_time_s"]

    @property
    def wall_time_s(self) -> float:
        return self.raw["wall_time_s"]

    @property
    def conservation(self) -> dict:
        return self.raw["conservation"]

    # --- tables (pandas imported lazily)
    @functools.cached_property
    def flows(self):
        return frame("flows", self.raw["flows"])

    @functools.cached_property
    def nodes(self):
        return frame("nodes", self.raw["nodes"])

    @functools.cached_property
    def flow_series(self):
        return frame("flow_series", self.raw["flow_series"])

    @functools.cached_property
    def node_series(self):
        return frame("node_series", self.raw["node_series"])

    # --- output (summary and jsonsafe are imported on use: `import ncmesh` stays light)
    def summary(self) -> str:
        from .summary import format_summary

        return format_summary(self.raw)

    def to_dict(self, series: bool = True, scenario: bool = False) -> dict:
        """The result as plain data: scalars, flows, nodes, conservation (+ series, scenario)."""
        out = {k: self.raw[k] for k in SCALARS}
        out["flows"] = self.raw["flows"]
        out["nodes"] = self.raw["nodes"]
        out["conservation"] = self.raw["conservation"]
        if series:
            out["flow_series"] = self.raw["flow_series"]
            out["node_series"] = self.raw["node_series"]
        if scenario:
            out["scenario"] = self.scenario
        return copy.deepcopy(out)

    def to_json(self, series: bool = True, indent: int | None = None) -> str:
        """Strict JSON (a non-finite number becomes null)."""
        from .jsonsafe import finite_or_none

        return json.dumps(finite_or_none(self.to_dict(series=series)), indent=indent, allow_nan=False)

    def write(self, out_dir: str | os.PathLike):
        """Writes flows/nodes/flow_series/node_series .parquet, scenario.toml and result.json
        into out_dir (created if needed); returns its pathlib.Path."""
        from pathlib import Path

        from . import _core
        from .jsonsafe import finite_or_none

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name in TABLES:
            getattr(self, name).to_parquet(out / f"{name}.parquet", index=False)
        (out / "scenario.toml").write_text(_core.to_toml(self.scenario), encoding="utf-8")
        scalars = {k: self.raw[k] for k in SCALARS}
        scalars["conservation"] = self.raw["conservation"]
        text = json.dumps(finite_or_none(scalars), indent=2, allow_nan=False)
        (out / "result.json").write_text(text + "\n", encoding="utf-8")
        return out

    def __repr__(self) -> str:
        gp = ", ".join(f"{f['src']}->{f['dst']} {f['goodput_kbps']:.0f} kbit/s" for f in self.raw["flows"][:4])
        more = " ..." if len(self.raw["flows"]) > 4 else ""
        return f"<RunResult {self.raw.get('name') or 'unnamed'} seed={self.seed}: {gp}{more}>"
