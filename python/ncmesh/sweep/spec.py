"""Sweep files: parsing, checking and expanding them into runs.

A sweep file (TOML) names a base scenario (a builder or a scenario file), a grid of
overrides and the seeds; `load_sweep()` checks it and returns a `Sweep`, whose
`.runs()` is the list of `RunSpec`s (the cartesian product of the grid, times the
seeds), each with its fully resolved scenario and its run key. See docs/sweeps.md.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _core
from .._core import ScenarioError
from ..overrides import set_path, split_key
from ..tables import COLUMNS

TOP_LEVEL = ("name", "description", "base", "grid", "seeds")
BASE_FIELDS = ("builder", "file", "options", "set")
# base.options.seed = "run": the builder's seed follows each run's seed.
RUN_SEED = "run"
SEED_FIELDS = ("count", "start", "list", "min", "max", "target", "step", "metric")
RULE_FIELDS = ("min", "max", "target", "step", "metric")
# What the seed rule measures per run: the run's total over its flows.
RULE_METRICS = ("goodput_kbps", "rx_bytes")
MAX_SEED = 2**63 - 1

# Columns every table of the results directory carries besides the params, and the
# columns of the runs table: a grid key may not take one of these names.
KEY_COLUMNS = ("run_key", "sweep", "seed")
RUN_COLUMNS = ("status", "events", "sim_time_s", "wall_time_s", "ncmesh_version",
               "core_build", "sweep_id", "scenario_toml", "params_json")
RESERVED = frozenset(KEY_COLUMNS + RUN_COLUMNS + tuple(c for cols in COLUMNS.values() for c in cols))


class SweepError(ValueError):
    """A bad sweep file. str() is one line, 'field: message'; `.field` names the field."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


@dataclass
class RunSpec:
    """One run of a sweep.

    key: the run key (16 hex digits, see `run_key`); seed: simulation.seed;
    params: {grid key: value} in grid order; scenario: the fully resolved scenario
    (dict) that runs. If the scenario could not be built or resolved, `error` holds
    the one-line reason, `scenario` what was tried, and the key is computed from that;
    running it records the error.
    """

    key: str
    seed: int
    params: dict[str, Any]
    scenario: dict
    error: str | None = None


@dataclass(frozen=True)
class SeedRule:
    """Sequential seeds (`[seeds]` with min, max, target): every grid point (cell) runs
    seeds start .. start+n_min-1 first; a cell whose 95% CI half-width of `metric` (per
    run: the total over its flows) is above `target` x |mean| gets `step` more seeds, in
    order, and is judged again, up to n_max seeds. The decision at n seeds depends only on
    the cell's first n runs, so the first seeds of a cell are those of a fixed-count
    sweep with the same start, and a resumed sweep takes the same decisions."""

    n_min: int
    n_max: int
    target: float
    step: int = 1
    metric: str = "goodput_kbps"

    def checkpoints(self) -> list[int]:
        """The seed counts at which a cell is judged: n_min, n_min+step, ..., n_max."""
        out = list(range(self.n_min, self.n_max, self.step))
        return out + [self.n_max]

    def met(self, values: list[float]) -> bool:
        """Whether runs with these metric values (failed runs: None) meet the target:
        at least two values, every run ok, 95% CI half-width <= target x |mean|."""
        from ..analysis.stats import mean_ci

        if any(v is None or not math.isfinite(v) for v in values):
            return False
        mean, half, n = mean_ci(values)
        return n >= 2 and math.isfinite(half) and half <= self.target * abs(mean)

    def as_dict(self) -> dict:
        return {"min": self.n_min, "max": self.n_max, "target": self.target, "step": self.step,
                "metric": self.metric}


try:                       # the interpreter's own SHA-256: importing hashlib loads OpenSSL (~7 ms)
    from _sha2 import sha256 as _sha256          # Python >= 3.12
except ImportError:
    try:
        from _sha256 import sha256 as _sha256    # Python 3.11
    except ImportError:
        from hashlib import sha256 as _sha256


def _copy(value: Any) -> Any:
    """A deep copy of plain data (dicts, lists, scalars), several times faster than
    copy.deepcopy."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return copy.deepcopy(value) if not isinstance(value, (str, int, float, bool, type(None))) else value


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def run_key(resolved_scenario: dict) -> str:
    """The run key: the first 16 hex digits of the SHA-256 of the scenario's canonical JSON
    (sort_keys, separators (",", ":")); the scenario contains the seed."""
    return _sha256(canonical_json(resolved_scenario).encode("utf-8")).hexdigest()[:16]


def _field_name(section: str, key: str) -> str:
    """'grid' + 'hops' -> 'grid.hops'; 'grid' + 'tcp.sack' -> 'grid."tcp.sack"'."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return f"{section}.{key}"
    return f'{section}."{key}"'


def _type_name(v: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
            dict: "table"}.get(type(v), type(v).__name__)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def norm_option(name: str) -> str:
    """A builder option name as the builder reads it ('start-spread' -> 'start_spread')."""
    return name.strip().lstrip("-").replace("-", "_")


_OPTION_CACHE: dict[str, tuple[str, ...]] = {}


def builder_options(kind: str) -> tuple[str, ...]:
    """The option names builder `kind` accepts (asked from the core)."""
    if kind not in _OPTION_CACHE:
        names: tuple[str, ...] = ()
        try:
            _core.build_scenario(kind, {"ncmesh_sweep_probe": 0})
        except ScenarioError as e:
            m = re.search(r"allowed: (.*)$", str(e))
            if m:
                names = tuple(n.strip() for n in m.group(1).split(",") if n.strip())
        _OPTION_CACHE[kind] = names
    return _OPTION_CACHE[kind]


# ---------------------------------------------------------------- values


def _expand_range(fname: str, spec: Any) -> list:
    """{range = [start, stop, step]} -> start, start+step, ..., stop (inclusive)."""
    if not (isinstance(spec, list) and len(spec) == 3
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in spec)):
        raise SweepError(fname, f"range must be [start, stop, step] (three numbers), not {spec!r}")
    start, stop, step = spec
    if not all(math.isfinite(x) for x in spec):
        raise SweepError(fname, f"range {spec!r}: numbers must be finite")
    if step <= 0:
        raise SweepError(fname, f"range {spec!r}: step must be > 0")
    if stop < start:
        raise SweepError(fname, f"range {spec!r}: stop must be >= start")
    n = int(math.floor((stop - start) / step + 1e-9)) + 1
    if n > 100_000:
        raise SweepError(fname, f"range {spec!r}: {n} values (at most 100000)")
    if all(isinstance(x, int) for x in spec):
        return [start + i * step for i in range(n)]
    # Rounded to 12 decimals so that 0.1 * 3 gives 0.3, not 0.30000000000000004.
    return [round(start + i * step, 12) for i in range(n)]


def _is_range(v: Any) -> bool:
    return isinstance(v, dict) and "range" in v


def _normalise_values(fname: str, values: list) -> tuple[list, str]:
    """Checks one grid key's values and gives them one type; returns (values, arrow type)."""
    if not values:
        raise SweepError(fname, "needs at least one value")
    kinds = {_type_name(v) for v in values}
    if kinds <= {"integer", "float"} and "float" in kinds:
        values = [float(v) for v in values]
        kinds = {"float"}
    if len(kinds) > 1:
        raise SweepError(fname, f"values mix types ({', '.join(sorted(kinds))}); use one type")
    kind = kinds.pop()
    if kind == "float" and not all(math.isfinite(v) for v in values):
        raise SweepError(fname, "values must be finite numbers")
    seen: set[str] = set()
    for v in values:
        c = canonical_json(v)
        if c in seen:
            raise SweepError(fname, f"value {json.dumps(v)} appears twice")
        seen.add(c)
    if kind == "array":
        inner = {_type_name(x) for v in values for x in v}
        if inner <= {"integer"}:
            arrow = "list<int64>"
        elif inner <= {"integer", "float"}:
            arrow = "list<float64>"
        elif inner == {"string"}:
            arrow = "list<string>"
        elif inner == {"boolean"}:
            arrow = "list<bool>"
        else:
            arrow = "json"
    else:
        arrow = {"boolean": "bool", "integer": "int64", "float": "float64", "string": "string",
                 "table": "json"}.get(kind, "json")
    return values, arrow


def _flatten(table: dict, prefix: str = "", keep=lambda v: False):
    """Nested tables -> dotted keys, in file order ({tcp = {sack = x}} -> 'tcp.sack')."""
    for k, v in table.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v and not keep(v):
            yield from _flatten(v, key, keep)
        else:
            yield key, v


# ---------------------------------------------------------------- the sweep


@dataclass
class Sweep:
    """A checked sweep file. `.runs()` expands it (cached); len() is the number of runs."""

    name: str
    builder: str | None
    file: Path | None
    options: dict[str, Any]
    set: dict[str, Any]
    grid: dict[str, list]
    grid_kind: dict[str, str]          # grid key -> "option" | "scenario"
    param_types: dict[str, str]        # grid key -> arrow type name
    seeds: list[int]                   # with a seed rule: every seed a cell may use (n_max)
    source: str | None = None          # the sweep file's text, when read from a file
    seed_rule: SeedRule | None = None  # sequential seeds, or None: every seed runs
    path: Path | None = None
    data: dict = field(default_factory=dict, repr=False)
    _runs: list[RunSpec] | None = field(default=None, repr=False)
    _file_scenario: dict | None = field(default=None, repr=False)

    @property
    def params(self) -> list[str]:
        """The grid keys (= param column names), in file order."""
        return list(self.grid)

    def __len__(self) -> int:
        """Grid points x seeds (with a seed rule: x n_max, the most it may run)."""
        return self.points() * len(self.seeds)

    def points(self) -> int:
        """The number of grid points (cells)."""
        return math.prod(len(v) for v in self.grid.values())

    def combinations(self):
        """The grid points as {key: value} dicts, first key outermost."""
        keys = list(self.grid)
        for values in itertools.product(*(self.grid[k] for k in keys)):
            yield dict(zip(keys, values))

    def runs(self) -> list[RunSpec]:
        """Every run: for each grid point (first grid key outermost), for each seed."""
        if self._runs is None:
            self._runs = list(self._expand())
        return self._runs

    def iter_runs(self, keep: bool = True):
        """The runs of `runs()`, in the same order, each expanded when it is asked for.
        keep: keep them (as `runs()` does) once all are expanded."""
        if self._runs is not None:
            yield from self._runs
            return
        if not keep:
            yield from self._expand()
            return
        runs = []
        for spec in self._expand():
            runs.append(spec)
            yield spec
        self._runs = runs

    def cells(self) -> list[tuple[dict, "CellRuns"]]:
        """The runs grouped by grid point (cell), in `runs()` order: (params, its runs in
        seed order), each run expanded when it is first asked for (a seed rule's cell may
        never need its later seeds)."""
        build_cache: dict[str, Any] = {}
        return [(params, CellRuns(self, params, build_cache)) for params in self.combinations()]

    # --- expansion
    @property
    def builder_seed_follows_run(self) -> bool:
        """`base.options.seed = "run"`: the builder's seed (flow start times, random
        layouts) is the run's seed, so replicates differ in those draws too."""
        return self.options.get("seed") == RUN_SEED

    def _base_scenario(self, params: dict, seed: int | None = None) -> dict:
        """The scenario before the fixed overrides: built, or read from the base file."""
        if self.builder is not None:
            options = dict(self.options)
            if self.builder_seed_follows_run:
                options["seed"] = seed if seed is not None else (self.seeds[0] if self.seeds else 1)
            for k, v in params.items():
                if self.grid_kind[k] == "option":
                    options[norm_option(k)] = v
            return _core.build_scenario(self.builder, options)
        if self._file_scenario is None:
            self._file_scenario = _load_base_file(self.file)
        return _copy(self._file_scenario)

    def first_runs(self):
        """One run per grid point, its first seed, in `runs()` order: a check that every
        point builds and resolves, without expanding every seed (a full reproduction's
        sweeps have tens of thousands of runs)."""
        return self._expand(self.seeds[:1])

    def _expand(self, seeds: list[int] | None = None):
        build_cache: dict[str, Any] = {}
        for params in self.combinations():
            for seed in self.seeds if seeds is None else seeds:
                yield self._run(params, seed, build_cache)

    def _run(self, params: dict, seed: int, build_cache: dict[str, Any]) -> RunSpec:
        """The run of grid point `params` with `seed`; `build_cache` keeps the built base
        scenarios (one per builder options and, if the builder's seed follows the run's, seed)."""
        opt_params = {k: v for k, v in params.items() if self.grid_kind[k] == "option"}
        ck = canonical_json([opt_params, seed if self.builder_seed_follows_run else None])
        if ck not in build_cache:
            try:
                build_cache[ck] = self._base_scenario(params, seed)
            except (ScenarioError, SweepError) as e:
                build_cache[ck] = e
        return self._make_run(build_cache[ck], params, seed)

    def _make_run(self, built, params: dict, seed: int) -> RunSpec:
        if isinstance(built, Exception):
            tried = {"builder": self.builder, "options": {**self.options, **{
                norm_option(k): v for k, v in params.items() if self.grid_kind[k] == "option"}},
                "set": self.set, "params": params, "seed": seed}
            return RunSpec(run_key(tried), seed, dict(params), tried, error=_one_line(built))
        scenario = _copy(built)
        try:
            grid_set = {k: v for k, v in params.items() if self.grid_kind[k] == "scenario"}
            preset = grid_set.get("preset", self.set.get("preset"))
            if preset is not None:
                # A simulator preset first: it gives the fields still at ncmesh's defaults,
                # and every other override then wins over it.
                scenario = _core.apply_preset(scenario, preset)
            for k, v in self.set.items():
                if k != "preset":
                    set_path(scenario, k, _copy(v))
            for k, v in grid_set.items():
                if k != "preset":
                    set_path(scenario, k, _copy(v))
            set_path(scenario, "simulation.seed", seed)
            resolved = _core.resolve(scenario)
        except ScenarioError as e:
            return RunSpec(run_key({"scenario": scenario, "seed": seed}), seed, dict(params), scenario,
                           error=_one_line(e))
        return RunSpec(run_key(resolved), seed, dict(params), resolved)

    def definition(self) -> dict:
        """What decides the sweep's runs, as plain data: its name, the base (the builder
        and its options, or the base file's scenario as read), the fixed overrides, the
        grid (in order) and the seeds. Comments, the description and the layout of the
        file do not count. The results directory records it (`identity.py`)."""
        if self.builder is not None:
            base: dict = {"builder": self.builder, "options": self.options}
        else:
            if self._file_scenario is None:
                self._file_scenario = _load_base_file(self.file)
            base = {"file": self._file_scenario}
        out = {"name": self.name, "base": base, "set": self.set,
               "grid": [[k, v] for k, v in self.grid.items()], "seeds": self.seeds}
        if self.seed_rule is not None:
            out["seed_rule"] = self.seed_rule.as_dict()
        return out

    def to_toml(self) -> str:
        """The sweep file's text (as read), or a TOML rendering of the dict it came from."""
        if self.source is not None:
            return self.source
        return _dump_toml(self.data)


def _load_base_file(path: Path) -> dict:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SweepError("base.file", f"{path}: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text) if path.suffix.lower() != ".json" else json.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise SweepError("base.file", f"{path}: not a valid scenario file: {_one_line(e)}") from None
    if not isinstance(data, dict):
        raise SweepError("base.file", f"{path}: not a scenario (a table)")
    return data


def load_sweep(source: str | os.PathLike | dict, base_dir: str | os.PathLike | None = None) -> Sweep:
    """Reads and checks a sweep: a TOML file path, or the same structure as a dict.

    A relative `base.file` is taken relative to the sweep file's folder (for a dict:
    `base_dir`, default the current directory). Raises SweepError (one line naming the
    field) for a bad sweep, and the error of `ncmesh validate` for a grid value (or a
    base) that makes every run invalid (`_check_every_run_invalid`); values that make
    only some runs invalid are not errors here (those runs fail when run and are
    recorded as failed).
    """
    text = None
    path = None
    if isinstance(source, dict):
        data = copy.deepcopy(source)
        folder = Path(base_dir) if base_dir is not None else Path.cwd()
    else:
        path = Path(source)
        try:
            text = path.read_bytes().decode("utf-8")
        except OSError as e:
            raise SweepError(str(path), e.strerror or str(e)) from None
        except UnicodeDecodeError as e:
            raise SweepError(str(path), f"not UTF-8 text: {e}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise SweepError(str(path), f"invalid TOML: {e}") from None
        folder = Path(base_dir) if base_dir is not None else path.resolve().parent
    sweep = _check(data, folder)
    sweep.source = text
    sweep.path = path
    return sweep


def _check(data: dict, folder: Path) -> Sweep:
    for k in data:
        if k not in TOP_LEVEL:
            raise SweepError(k, f"unknown field; allowed: {', '.join(TOP_LEVEL)}")
    name = data.get("name")
    if name is None:
        raise SweepError("name", "missing (every sweep needs a name, e.g. name = \"chain-hops\")")
    if not isinstance(name, str) or not name.strip():
        raise SweepError("name", f"expected a non-empty string, not {name!r}")
    if "/" in name or "\\" in name or name.startswith(".") or name != name.strip():
        raise SweepError("name", f"{name!r} is not allowed: it names the results folder "
                                 "(no slashes, no leading dot or blanks)")
    if "description" in data and not isinstance(data["description"], str):
        raise SweepError("description", "expected a string")

    # --- base
    base = data.get("base")
    if base is None:
        raise SweepError("base", "missing: give base.builder (e.g. \"chain\") or base.file")
    if not isinstance(base, dict):
        raise SweepError("base", "expected a table")
    for k in base:
        if k not in BASE_FIELDS:
            raise SweepError(f"base.{k}", f"unknown field; allowed: {', '.join(BASE_FIELDS)}")
    builder, file = base.get("builder"), base.get("file")
    if (builder is None) == (file is None):
        raise SweepError("base", "give exactly one of base.builder and base.file")
    options: dict[str, Any] = {}
    allowed_options: tuple[str, ...] = ()
    base_path = None
    if builder is not None:
        kinds = list(_core.build_kinds())
        if builder not in kinds:
            raise SweepError("base.builder", f"unknown builder {builder!r}; allowed: {', '.join(kinds)}")
        allowed_options = builder_options(builder)
        raw_opts = base.get("options", {})
        if not isinstance(raw_opts, dict):
            raise SweepError("base.options", "expected a table of builder options")
        for k, v in raw_opts.items():
            if allowed_options and norm_option(k) not in allowed_options:
                raise SweepError(_field_name("base.options", k),
                                 f"unknown option for builder {builder!r}; allowed: {', '.join(allowed_options)}")
            options[norm_option(k)] = v
    else:
        if "options" in base:
            raise SweepError("base.options", "builder options need base.builder (the base is a file)")
        if not isinstance(file, str) or not file:
            raise SweepError("base.file", "expected a path (string)")
        base_path = Path(file)
        if not base_path.is_absolute():
            base_path = folder / base_path
        if not base_path.is_file():
            raise SweepError("base.file", f"{file}: no such file")
    set_table = base.get("set", {})
    if not isinstance(set_table, dict):
        raise SweepError("base.set", "expected a table of dotted scenario keys, e.g. { \"tcp.sack\" = true }")
    fixed = dict(_flatten(set_table))

    # --- grid
    grid_table = data.get("grid", {})
    if not isinstance(grid_table, dict):
        raise SweepError("grid", "expected a table")
    grid: dict[str, list] = {}
    grid_kind: dict[str, str] = {}
    param_types: dict[str, str] = {}
    for key, spec in _flatten(grid_table, keep=_is_range):
        fname = _field_name("grid", key)
        if key in grid:
            raise SweepError(fname, "given twice")
        if _is_range(spec):
            if set(spec) != {"range"}:
                raise SweepError(fname, "a range is { range = [start, stop, step] } and nothing else")
            values = _expand_range(fname, spec["range"])
        elif isinstance(spec, list):
            values = spec
        else:
            raise SweepError(fname, f"expected a list of values or {{ range = [start, stop, step] }}, "
                                    f"not {_type_name(spec)} {json.dumps(spec) if not isinstance(spec, dict) else ''}".rstrip())
        values, arrow = _normalise_values(fname, values)
        if key in RESERVED:
            raise SweepError(fname, f"'{key}' is also a column of the results tables; "
                                    "a grid key may not take that name")
        if builder is not None and norm_option(key) in allowed_options:
            grid_kind[key] = "option"
        else:
            grid_kind[key] = "scenario"
        grid[key] = values
        param_types[key] = arrow
    opt_names = [norm_option(k) for k in grid if grid_kind[k] == "option"]
    for n in sorted(set(opt_names)):
        if opt_names.count(n) > 1:
            raise SweepError(_field_name("grid", n), "builder option given twice")

    # --- seeds
    seeds, rule = _check_seeds(data.get("seeds", {"count": 1, "start": 1}))

    sweep = Sweep(name=name, builder=builder, file=base_path, options=options, set=fixed,
                  grid=grid, grid_kind=grid_kind, param_types=param_types, seeds=seeds, data=data,
                  seed_rule=rule)
    _check_scenario_keys(sweep)
    _check_every_run_invalid(sweep)
    return sweep


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class CellRuns:
    """The runs of one grid point of a sweep, one per seed in seed order (a list-like that
    takes slices), each expanded when it is first asked for: a seed rule decides most
    cells long before their last seeds, and expanding a full reproduction's every seed up
    front kept the workers waiting for seconds per part."""

    def __init__(self, sweep: "Sweep", params: dict, build_cache: dict[str, Any]):
        self._sweep, self._params, self._cache = sweep, params, build_cache
        self._runs: list[RunSpec] = []

    def __len__(self) -> int:
        return len(self._sweep.seeds)

    def __getitem__(self, k: slice) -> list[RunSpec]:
        stop = len(self) if k.stop is None else min(k.stop, len(self))
        while len(self._runs) < stop:
            seed = self._sweep.seeds[len(self._runs)]
            self._runs.append(self._sweep._run(self._params, seed, self._cache))
        return self._runs[k]


def _check_seeds(table: Any) -> tuple[list[int], SeedRule | None]:
    """[seeds]: a count (+ start), a list, or a seed rule (min, max, target, optional
    step and metric, + start). Returns the seeds (with a rule: start .. start+max-1) and
    the rule."""
    if not isinstance(table, dict):
        raise SweepError("seeds", "expected a table: { count = N, start = S }, { list = [...] } "
                                  "or a seed rule { min = N, max = M, target = T }")
    for k in table:
        if k not in SEED_FIELDS:
            raise SweepError(f"seeds.{k}", f"unknown field; allowed: {', '.join(SEED_FIELDS)}")
    rule_given = [k for k in RULE_FIELDS if k in table]
    if rule_given:
        if "count" in table or "list" in table:
            raise SweepError("seeds", "give seeds.count or seeds.list (a fixed number of seeds) or the seed "
                                      "rule seeds.min, seeds.max, seeds.target, not both")
        for k in ("min", "max", "target"):
            if k not in table:
                raise SweepError(f"seeds.{k}", "missing: a seed rule needs seeds.min, seeds.max and seeds.target")
        n_min, n_max, target = table["min"], table["max"], table["target"]
        step, metric = table.get("step", 1), table.get("metric", "goodput_kbps")
        if not _is_int(n_min) or n_min < 2:
            raise SweepError("seeds.min", f"{n_min!r} is not allowed: expected an integer >= 2 "
                                          "(a confidence interval needs two runs)")
        if not _is_int(n_max) or n_max < n_min:
            raise SweepError("seeds.max", f"{n_max!r} is not allowed: expected an integer >= seeds.min ({n_min})")
        if n_max > 100_000:
            raise SweepError("seeds.max", f"{n_max!r} is not allowed: at most 100000")
        if isinstance(target, bool) or not isinstance(target, (int, float)) or not math.isfinite(target) \
                or target <= 0:
            raise SweepError("seeds.target", f"{target!r} is not allowed: expected a number > 0 (the 95% CI "
                                             "half-width as a fraction of the mean, e.g. 0.05)")
        if not _is_int(step) or step < 1:
            raise SweepError("seeds.step", f"{step!r} is not allowed: expected an integer >= 1")
        if metric not in RULE_METRICS:
            raise SweepError("seeds.metric", f"{metric!r} is not allowed: expected one of {', '.join(RULE_METRICS)}")
        count, rule = n_max, SeedRule(n_min, n_max, float(target), step, metric)
    elif "list" in table:
        if "count" in table or "start" in table:
            raise SweepError("seeds", "give either seeds.list or seeds.count (+ seeds.start), not both")
        seeds = table["list"]
        if not isinstance(seeds, list) or not seeds:
            raise SweepError("seeds.list", "expected a non-empty list of integers")
        for s in seeds:
            if not _is_int(s) or not 0 <= s <= MAX_SEED:
                raise SweepError("seeds.list", f"{s!r} is not allowed: seeds are integers in [0, 2^63-1]")
        if len(set(seeds)) != len(seeds):
            raise SweepError("seeds.list", "a seed appears twice")
        return list(seeds), None
    else:
        count, rule = table.get("count", 1), None
        if not _is_int(count) or count < 1:
            raise SweepError("seeds.count", f"{count!r} is not allowed: expected an integer >= 1")
    start = table.get("start", 1)
    if not _is_int(start) or not 0 <= start <= MAX_SEED - count + 1:
        raise SweepError("seeds.start", f"{start!r} is not allowed: expected an integer >= 0")
    return list(range(start, start + count)), rule


def _check_every_run_invalid(sweep: Sweep) -> None:
    """Refuses a grid value that makes every run invalid (`scheme.name = "copee"`), and a
    base that does, before any run starts, with the one line `ncmesh validate` gives for
    such a run (the scenario's field, the value and what is allowed). The first point is
    tried, and each value of a scenario key on it (the other keys at their first values,
    the first seed: one build, then one resolution per value); only a value that fails
    there is tried on every point that has it (the first seed, or every seed when the
    builder's seed follows the run's). Values that make only some runs invalid, and
    builder options' values (each would cost a build), are left to the runs, which
    record the error."""
    seeds = sweep.seeds if sweep.builder_seed_follows_run else sweep.seeds[:1]
    built: dict[str, Any] = {}

    def error_at(params: dict, seed: int) -> str | None:
        options = {k: v for k, v in params.items() if sweep.grid_kind[k] == "option"}
        ck = canonical_json([options, seed if sweep.builder_seed_follows_run else None])
        if ck not in built:
            try:
                built[ck] = sweep._base_scenario(params, seed)
            except ScenarioError as e:
                built[ck] = e
        return sweep._make_run(built[ck], params, seed).error

    def fails_everywhere(key: str | None, value: Any) -> bool:
        others = [k for k in sweep.grid if k != key]
        for combo in itertools.product(*(sweep.grid[k] for k in others)):
            point = dict(zip(others, combo))
            params = {k: (value if k == key else point[k]) for k in sweep.grid}
            if any(error_at(params, seed) is None for seed in seeds):
                return False
        return True

    first = {k: v[0] for k, v in sweep.grid.items()}
    probes = [(None, None)] + [(key, value) for key, values in sweep.grid.items()
                               if sweep.grid_kind[key] == "scenario" for value in values]
    for key, value in probes:
        params = {**first, key: value} if key is not None else first
        error = error_at(params, sweep.seeds[0])
        if error is not None and fails_everywhere(key, value):
            raise SweepError("", error)


def _check_scenario_keys(sweep: Sweep) -> None:
    """Every key of base.set and of the grid that is not a builder option must be a
    scenario field: each is tried alone on the base scenario. Errors that depend on the
    value or on the combination (an index past the end for some hop counts, an invalid
    value) are left to the runs."""
    first = {k: v[0] for k, v in sweep.grid.items()}
    try:
        reference = sweep._base_scenario(first)
    except SweepError:
        raise
    except ScenarioError:
        try:
            reference = sweep._base_scenario({})
        except ScenarioError:
            reference = None  # the builder needs grid options that fail: the runs will tell

    def check(fname: str, key: str, value: Any, scenario: dict | None, what: str) -> None:
        if split_key(key)[:2] == ["simulation", "seed"]:
            raise SweepError(fname, "simulation.seed is set by [seeds] (use seeds.list or seeds.count)")
        if scenario is None:
            return
        trial = copy.deepcopy(scenario)
        try:
            set_path(trial, key, copy.deepcopy(value))
        except ScenarioError as e:
            if "index out of range" in str(e):
                return
            raise SweepError(fname, f"{what}: {_one_line(e)}") from None
        try:
            _core.resolve(trial)
        except ScenarioError as e:
            if "unknown field" in str(e):
                raise SweepError(fname, f"{what}: {_one_line(e)}") from None

    for key in sweep.set:
        try:
            split_key(key)
        except ScenarioError as e:
            raise SweepError(_field_name("base.set", key), _one_line(e)) from None
    for key, value in sweep.set.items():
        check(_field_name("base.set", key), key, value, reference, "not a scenario key")

    with_set = None
    if reference is not None:
        with_set = copy.deepcopy(reference)
        try:
            for k, v in sweep.set.items():
                set_path(with_set, k, copy.deepcopy(v))
        except ScenarioError:
            with_set = None
    for key, values in sweep.grid.items():
        if sweep.grid_kind[key] != "scenario":
            continue
        fname = _field_name("grid", key)
        try:
            split_key(key)
        except ScenarioError:
            raise SweepError(fname, f"{_not_option(sweep)} nor a scenario key "
                                    "(dotted, e.g. tcp.sack or flows.0.dst)") from None
        check(fname, key, values[0], with_set, f"{_not_option(sweep)} nor a scenario key")


def _not_option(sweep: Sweep) -> str:
    if sweep.builder is None:
        return "not a builder option (the base is a file)"
    return f"neither an option of builder {sweep.builder!r} ({', '.join(builder_options(sweep.builder))})"


# ---------------------------------------------------------------- TOML out


def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _dump_toml(data: dict) -> str:
    """A sweep dict as TOML (scalars first, then one [section] per table)."""
    lines = []
    for k, v in data.items():
        if not isinstance(v, dict):
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in data.items():
        if isinstance(v, dict):
            lines.append("")
            lines.append(f"[{_toml_key(k)}]")
            for kk, vv in v.items():
                lines.append(f"{_toml_key(kk)} = {_toml_value(vv)}")
    return "\n".join(lines) + "\n"
