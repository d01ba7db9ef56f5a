"""Where a scenario field is written in a TOML file: the line and column of an error's field.

The core checks a scenario as data (from a file, `--set` or a dict), so its errors name the
field (`mac.queue_packets`, `flows[0].dst`), not a place in a file. For a scenario read from
a TOML file, `locate(text, field)` finds the line that sets the field, or the deepest table
or key above it that is written in the file (a whole `[[flows]]` entry, an inline table),
and the column of its value; `ncmesh run` and `ncmesh validate` add it to the error line:

    error: mac.queue_packets: -3 is not allowed: expected ... (chain.toml, line 12, column 17)

A reader of lines, not a TOML parser: it follows `[table]`, `[[array.of.tables]]` and
`key = value` lines (dotted and quoted keys too) and skips the inside of multi-line values
and strings it can tell; when it cannot place a field it returns None and the error keeps
its one line without a place.
"""

from __future__ import annotations

import re

_BARE = r"[A-Za-z0-9_-]+"
_KEY = rf"(?:{_BARE}|\"(?:[^\"\\]|\\.)*\"|'[^']*')"
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(rf"^(\s*)({_DOTTED})(\s*=\s*)")
_FIELD_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _keys(dotted: str) -> list[str]:
    return [k.strip().strip("\"'") for k in re.findall(_KEY, dotted)]


def _field(field: str) -> list[str]:
    """'flows[0].dst' or 'flows.0.dst' -> ['flows', '0', 'dst']."""
    return [m.group(1) or m.group(2) for m in _FIELD_PART.finditer(field)]


def locate(text: str, field: str) -> tuple[int, int] | None:
    """(line, column), both from 1, where `field` (or the deepest part of it the file
    writes) is set in the TOML `text`; None if not found."""
    want = _field(field)
    if not want:
        return None
    table: list[str] = []                 # the current table's path, array indices included
    counts: dict[tuple, int] = {}         # array of tables -> entries seen
    best: tuple[int, tuple[int, int]] | None = None
    open_brackets = 0
    in_multiline: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if in_multiline:
            if in_multiline in line:
                in_multiline = None
            continue
        if open_brackets > 0:             # inside a multi-line array or inline table
            open_brackets += _balance(line)
            continue
        header = _HEADER.match(line)
        if header:
            keys = _keys(header.group(2))
            if header.group(1) == "[[":
                parent = _resolve(keys[:-1], table)
                arr = tuple(parent + [keys[-1]])
                counts[arr] = counts.get(arr, 0) + 1
                table = list(arr) + [str(counts[arr] - 1)]
            else:
                table = _resolve(keys, table)
            best = _better(best, want, table, (number, line.index("[") + 1))
            continue
        assign = _ASSIGN.match(line)
        if not assign:
            continue
        path = table + _keys(assign.group(2))
        col = len(assign.group(1)) + len(assign.group(2)) + len(assign.group(3)) + 1
        best = _better(best, want, path, (number, col))
        rest = _strip_strings(line[assign.end():])
        for quote in ('"""', "'''"):
            if line[assign.end():].count(quote) == 1:
                in_multiline = quote
        open_brackets = max(0, _balance(rest))
    return best[1] if best else None


def _resolve(keys: list[str], table: list[str]) -> list[str]:
    """A [table] header's path: a key naming an array of tables already seen means its
    last entry (as TOML does for [fruit.variety] after [[fruit]])."""
    # Without the counts here, a header under an array of tables keeps the current entry's
    # index when the names agree.
    out: list[str] = []
    i = 0
    for k in keys:
        out.append(k)
        if i < len(table) and table[i] == k:
            i += 1
            if i < len(table) and table[i].isdigit():
                out.append(table[i])
                i += 1
        else:
            i = len(table)
    return out


def _better(best, want: list[str], path: list[str], where: tuple[int, int]):
    """Keeps the deepest written path that is a prefix of `want` (a later line wins a tie)."""
    if len(path) > len(want) or want[: len(path)] != path:
        return best
    if best is None or len(path) >= best[0]:
        return (len(path), where)
    return best


def _strip_strings(s: str) -> str:
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', s)
    s = re.sub(r"'[^']*'", "''", s)
    return s.split("#", 1)[0]


def _balance(line: str) -> int:
    s = _strip_strings(line)
    return s.count("[") + s.count("{") - s.count("]") - s.count("}")
