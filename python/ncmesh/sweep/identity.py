"""Which sweep and which simulator a results directory belongs to (DIR/store.json).

A run key hashes the resolved scenario and the seed, not the simulator's code, and a
results directory used to take the runs of any sweep: rerunning an edited sweep into
the same directory pooled old and new runs (n = 10 for 5 seeds). Now a directory
belongs to one sweep definition and one build of the simulator core:

    DIR/store.json   {"format": 1, "sweep": NAME, "sweep_id": ..., "core_build": ...,
                      "definition": {...}, "ncmesh_version": ...}

written before the first run. `run_sweep` then

- continues (resumes) when the definition and the build are those of the directory;
- refuses (`StoreMismatch`, one line naming what differs) when the definition differs:
  another sweep, or the same file edited (other seeds, grid values, base, overrides);
- deletes the runs and computes them again, saying so, when they were made by another
  build of the core (`ncmesh._core.build_id()`, a hash of the core's sources), or by an
  ncmesh that did not record its build (a directory without store.json whose
  sweep.toml is this sweep's text); a directory without store.json holding other runs
  is refused.

Every runs row also carries `sweep_id` and `core_build`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from .spec import SweepError, canonical_json, run_key

MANIFEST = "store.json"
FORMAT = 1


class StoreMismatch(SweepError):
    """The results directory holds the runs of another sweep definition (or of an
    unknown one). A user error: `ncmesh sweep` prints it on one line, exit status 2."""


def definition_id(definition: dict) -> str:
    """16 hex digits identifying a sweep definition (`Sweep.definition()`)."""
    return run_key(definition)


def read_manifest(out: Path) -> dict | None:
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise StoreMismatch(str(out / MANIFEST), f"unreadable ({' '.join(str(e).split())}); "
                                                 "delete the directory to start over") from None
    return data if isinstance(data, dict) else {}


@dataclass
class StoreState:
    """What a results directory holds, compared with the sweep about to run.

    kind: "new" (no runs, no manifest), "same" (same definition and build: resume),
    "stale" (same definition, runs of another or an unrecorded build: recompute them),
    "other" (another definition: refuse). `runs`: runs done in it; `why`: for stale and
    other, what differs."""

    kind: str
    runs: int
    why: str = ""


def inspect(out: Path, definition: dict, build: str, sweep_toml: str, done: int) -> StoreState:
    """Compares DIR (with `done` runs done) with this sweep's definition and build."""
    manifest = read_manifest(out)
    if manifest is None:
        if done == 0:
            return StoreState("new", 0)
        try:
            old_text = (out / "sweep.toml").read_text(encoding="utf-8")
        except OSError:
            old_text = None
        if old_text == sweep_toml:
            return StoreState("stale", done, "they were made by an ncmesh that did not record which "
                                             "build of the simulator made them")
        return StoreState("other", done, "it has no store.json (written by an earlier ncmesh) and its "
                                         "sweep.toml is not this sweep")
    if manifest.get("sweep_id") != definition_id(definition):
        return StoreState("other", done, describe(manifest.get("definition"), definition))
    if manifest.get("core_build") != build:
        old = manifest.get("core_build") or "unknown"
        return StoreState("stale", done, f"they were made by another build of the simulator core "
                                         f"({old}; this one is {build})")
    return StoreState("same", done)


def refusal(out: Path, state: StoreState) -> StoreMismatch:
    return StoreMismatch(str(out), f"holds {state.runs} runs of another sweep definition ({state.why}); "
                                   "results of different sweeps are never pooled: give another --out, "
                                   "or delete the directory to start over")


def claim(out: Path, state: StoreState, definition: dict, build: str, version: str,
          fsync: bool = False) -> int:
    """Makes DIR this sweep's store: refuses another definition, deletes stale runs
    (those of another build), writes store.json. Returns the number of runs deleted."""
    from .store import ALL_TABLES, ERRORS, PENDING, done_keys, write_text

    if state.kind == "other":
        raise refusal(out, state)
    deleted = 0
    if state.kind == "stale":
        deleted = len(done_keys(out))
        # pending/ and runs/ first: a run is done iff its bundle, its runs file or a pack's
        # runs file holds it, so an interruption here leaves no stale run that counts as
        # done.
        for sub in (PENDING,) + ALL_TABLES + (ERRORS,):
            folder = out / sub
            try:
                entries = list(os.scandir(folder))
            except FileNotFoundError:
                continue
            for e in entries:
                if e.is_file():
                    os.unlink(e.path)
    if state.kind != "same":
        out.mkdir(parents=True, exist_ok=True)
        manifest = {"format": FORMAT, "sweep": definition["name"], "sweep_id": definition_id(definition),
                    "core_build": build, "ncmesh_version": version, "definition": definition}
        write_text(out / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True, default=str) + "\n", fsync)
    return deleted


# ---------------------------------------------------------------- what differs


def _short(value, limit: int = 60) -> str:
    if isinstance(value, list) and len(value) > 3 and all(isinstance(v, int) for v in value) \
            and value == list(range(value[0], value[0] + len(value))):
        return f"{value[0]}..{value[-1]}"
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _diffs(old, new, path: str, out: list[str]) -> None:
    if canonical_json(old) == canonical_json(new):
        return
    if path == "base.file":
        out.append("base.file: another scenario")
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            _diffs(old.get(k), new.get(k), f"{path}.{k}" if path else str(k), out)
        return
    if path == "grid" and isinstance(old, list) and isinstance(new, list):
        _diffs(dict(map(tuple, old)), dict(map(tuple, new)), "grid", out)
        if not out and [k for k, _ in old] != [k for k, _ in new]:
            out.append("grid: the keys are in another order")
        return
    where = path or "the sweep"
    if old is None:
        out.append(f"{where}: {_short(new)} here, not set there")
    elif new is None:
        out.append(f"{where}: {_short(old)} there, not set here")
    else:
        out.append(f"{where}: {_short(old)} there, {_short(new)} here")


def describe(old: dict | None, new: dict) -> str:
    """What differs between the directory's definition and this one, briefly."""
    if not isinstance(old, dict):
        return "its definition is not recorded"
    found: list[str] = []
    _diffs(old, new, "", found)
    if not found:
        return "another definition"
    more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
    return "; ".join(found[:3]) + more
