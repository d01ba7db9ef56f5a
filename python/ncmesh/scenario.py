"""`Scenario`: a simulation scenario (the TOML file format) as an editable object."""

from __future__ import annotations

import copy
import json
import os
import sys
import tomllib
from typing import Any

from . import _core
from .errors import scenario_error
from .overrides import set_path


# Coding schemes that code only TCP segments and acknowledgements: a UDP flow passes them
# uncoded (crates/ncmesh-core/src/coding/: comp, more and the tcp-nc coder act on TCP
# packets and pass the rest on; piggycode's roles are TCP DATA and ACK, "anything else:
# never coded"). COPE, NCAQM, BFLY, Pipeline and ComboCoding code UDP too; Horizon codes
# nothing. {scheme.name or scheme.intra value: the scheme's name in the papers}.
TCP_ONLY_CODING = {"comp": "CoMP", "more": "MORE", "tcp-nc": "TCP/NC", "piggycode": "PiggyCode",
                   "waittime": "PiggyCode"}


def uncoded_udp_note(resolved: dict) -> str | None:
    """One line when a scheme that codes only TCP runs with UDP flows (they are carried
    uncoded), else None. `resolved`: a scenario with its defaults (`Scenario.resolved()`)."""
    scheme = resolved.get("scheme") or {}
    names = [n for n in (scheme.get("name"), scheme.get("intra")) if n in TCP_ONLY_CODING]
    udp = [i for i, f in enumerate(resolved.get("flows") or []) if f.get("transport") == "udp"]
    if not names or not udp:
        return None
    field = "scheme.name" if names[0] == scheme.get("name") else "scheme.intra"
    which = f"flow {udp[0]} is" if len(udp) == 1 else f"flows {', '.join(map(str, udp))} are"
    return (f"note: {field} = {names[0]!r} ({TCP_ONLY_CODING[names[0]]}) codes only TCP: UDP {which} "
            "carried uncoded")


class Scenario:
    """A scenario as given (missing fields take their defaults when resolved or run).

    Build one with `Scenario.load(path)`, `Scenario.build(kind, **options)`,
    `Scenario.from_toml(text)` or `Scenario.from_dict(d)`; change it with `.set()`.
    """

    def __init__(self, data: dict | None = None):
        if data is not None and not isinstance(data, dict):
            raise TypeError(f"a scenario is a dict, not {type(data).__name__}")
        self._data: dict = copy.deepcopy(data) if data else {}

    # --- construction
    @classmethod
    def from_dict(cls, data: dict) -> "Scenario":
        return cls(data)

    @classmethod
    def from_toml(cls, text: str, source: str = "<toml>") -> "Scenario":
        try:
            sc = cls(tomllib.loads(text))
        except tomllib.TOMLDecodeError as e:
            raise scenario_error(source, f"invalid TOML: {e}") from None
        sc._toml_source = (source, text)   # for `ncmesh run`'s line and column of a value error
        return sc

    @classmethod
    def from_json(cls, text: str, source: str = "<json>") -> "Scenario":
        """A scenario from JSON text (the same structure as the TOML file)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise scenario_error(source, f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
        if not isinstance(data, dict):
            raise scenario_error(source, f"a scenario is a JSON object, not {type(data).__name__}")
        return cls(data)

    @classmethod
    def from_text(cls, text: str, source: str = "<text>") -> "Scenario":
        """TOML or JSON text: JSON if it starts with '{' (a TOML file cannot)."""
        if text.lstrip("\ufeff \t\r\n").startswith("{"):
            return cls.from_json(text, source)
        return cls.from_toml(text, source)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Scenario":
        """Reads a scenario file: TOML, or JSON (a name ending in .json, or text starting
        with '{'); '-' reads standard input."""
        if str(path) == "-":
            return cls.from_text(sys.stdin.read(), "<stdin>")
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise scenario_error(str(path), e.strerror or str(e)) from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise scenario_error(str(path), f"not UTF-8 text: {e}") from None
        if str(path).lower().endswith(".json"):
            return cls.from_json(text, str(path))
        return cls.from_text(text, str(path))

    @classmethod
    def build(cls, kind: str, **options: Any) -> "Scenario":
        """A generated scenario: see `Scenario.kinds()` and docs/scenario-format.md."""
        options = {k: v for k, v in options.items() if v is not None}
        return cls(_core.build_scenario(kind, options))

    @staticmethod
    def kinds() -> list[str]:
        return list(_core.build_kinds())

    @staticmethod
    def pair_stats(kind: str, **options: Any) -> dict:
        """Hop counts of an experiment's source-destination pairs under the routing of the
        scenario `Scenario.build(kind, **options)` gives: for `roofnet-like` every entry of
        its pair list, for other kinds the built flows. Keys: nodes, mean_degree, pairs,
        hops (each pair's routed path), fewest_hops, mean_hops, one_hop_share,
        mean_fewest_hops."""
        options = {k: v for k, v in options.items() if v is not None}
        return _core.pair_stats(kind, options)

    # --- editing
    def set(self, key: str, value: Any) -> "Scenario":
        """Sets a field by dotted key ('tcp.sack', 'flows.0.src', 'flows[0].src'); returns self.
        `preset` ("ns2", "linux") gives every field of that simulator's defaults that the scenario
        still has at ncmesh's default (docs/scenario-format.md, "Presets")."""
        if key == "preset":
            self._data = _core.apply_preset(self._data, value)
        else:
            set_path(self._data, key, value)
        return self

    def update(self, overrides: dict[str, Any]) -> "Scenario":
        for key, value in overrides.items():
            self.set(key, value)
        return self

    def copy(self) -> "Scenario":
        return Scenario(self._data)

    # --- views
    def to_dict(self) -> dict:
        """The scenario as given (a copy), without defaults filled in."""
        return copy.deepcopy(self._data)

    def resolved(self) -> dict:
        """The validated scenario with every default filled in; raises ScenarioError."""
        return _core.resolve(self._data)

    def validate(self, seed: int | None = None) -> None:
        """Every check `ncmesh.run` makes before simulating (with `seed` as
        simulation.seed, if given): the fields, and building the network (a flow
        without a route is an error). Raises ScenarioError."""
        _core.check(self._data, seed)

    def to_toml(self) -> str:
        """The complete, resolved scenario as TOML text; raises ScenarioError."""
        return _core.to_toml(self._data)

    def save(self, path: str | os.PathLike) -> None:
        text = self.to_toml()
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    def __repr__(self) -> str:
        name = self._data.get("name") or "unnamed"
        return f"<Scenario {name!r}: {len(self._data.get('nodes', []))} nodes, {len(self._data.get('flows', []))} flows>"
