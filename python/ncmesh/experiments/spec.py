"""Sweep specifications (the sweep-file structure as a dict) written as TOML."""

from __future__ import annotations

import json
import math
import re
from typing import Any

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if BARE_KEY.match(k) else json.dumps(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def to_toml(spec: dict) -> str:
    """TOML text of a nested dict: scalars first, then a [table] per nested dict (a
    dict whose values are all scalars/lists inside a table becomes a sub-table too,
    except {range = [...]}-style grid values, which stay inline)."""
    lines: list[str] = []

    def emit(table: dict, path: list[str]) -> None:
        scalars = {k: v for k, v in table.items() if not _is_table(v)}
        subs = {k: v for k, v in table.items() if _is_table(v)}
        if path and (scalars or not subs):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_key(p) for p in path) + "]")
        for k, v in scalars.items():
            lines.append(f"{_key(k)} = {_value(v)}")
        for k, v in subs.items():
            emit(v, path + [k])

    emit(spec, [])
    return "\n".join(lines) + "\n"


def _is_table(v: Any) -> bool:
    # Grid values such as {range = [1, 9, 1]} read better inline.
    return isinstance(v, dict) and not (set(v) <= {"range", "values", "list"})
