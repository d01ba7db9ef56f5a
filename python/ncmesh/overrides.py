"""Dotted-key overrides of a scenario dict: `flows.0.src`, `flows[0].src`, `mac.queue_packets`.

Values given as text (command line `--set key=value`) are read as TOML values
(numbers, booleans, strings, arrays, inline tables); anything else is a bare string.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from .errors import scenario_error

_PART = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


def split_key(key: str) -> list[str | int]:
    """'flows[0].src' or 'flows.0.src' -> ['flows', 0, 'src']."""
    parts: list[str | int] = []
    pos = 0
    text = key.strip()
    while pos < len(text):
        if text[pos] == "." and parts:
            pos += 1
        m = _PART.match(text, pos)
        if not m:
            raise scenario_error(key, "malformed key (expected e.g. mac.queue_packets or flows[0].src)")
        name, index = m.groups()
        if index is not None:
            parts.append(int(index))
        elif re.fullmatch(r"-?\d+", name):
            parts.append(int(name))
        else:
            parts.append(name)
        pos = m.end()
    if not parts or isinstance(parts[0], int):
        raise scenario_error(key, "malformed key (expected e.g. mac.queue_packets or flows[0].src)")
    return parts


def _dotted(parts: list[str | int]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def set_path(data: dict, key: str, value: Any) -> None:
    """Sets data[key] in place, creating missing tables; index len(list) appends."""
    parts = split_key(key)
    node: Any = data
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = _dotted(parts[: depth + 1])
        if isinstance(part, int):
            if not isinstance(node, list):
                raise scenario_error(_dotted(parts[:depth]), "is not an array, cannot index it")
            if part == len(node):
                node.append({})
            elif not -len(node) <= part < len(node):
                raise scenario_error(where, f"index out of range (array has {len(node)} items)")
            if last:
                node[part] = value
            else:
                if node[part] is None:
                    node[part] = {}
                node = node[part]
        else:
            if not isinstance(node, dict):
                raise scenario_error(_dotted(parts[:depth]), "is not a table, cannot set a key in it")
            if last:
                node[part] = value
            else:
                child = node.get(part)
                if child is None:
                    child = [] if isinstance(parts[depth + 1], int) else {}
                    node[part] = child
                node = child


def parse_value(text: str) -> Any:
    """A command-line value as a TOML value; unparseable text is taken as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_assignment(assignment: str) -> tuple[str, Any]:
    """'mac.queue_packets=20' -> ('mac.queue_packets', 20)."""
    key, sep, value = assignment.partition("=")
    if not sep or not key.strip():
        raise scenario_error(assignment, "expected KEY=VALUE, e.g. mac.queue_packets=20")
    return key.strip(), parse_value(value.strip())
