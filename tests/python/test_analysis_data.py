"""Helpers for the analysis / report / reproduce tests: results directories in the sweep
layout (DIR/runs, flows, nodes, flow_series, node_series, errors), made by hand so the
tests do not depend on the sweep runner: synthetic numbers, or real (short) ncmesh runs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import ncmesh

SHORT = {"simulation.duration_s": 10.0, "simulation.measure_start_s": 2.0}


def _write(out: Path, table: str, key: str, df: pd.DataFrame) -> None:
    (out / table).mkdir(parents=True, exist_ok=True)
    df.to_parquet(out / table / f"{key}.parquet", index=False)


def write_synthetic(out: Path, goodputs: dict, sweep: str = "synthetic", param: str = "hops") -> Path:
    """goodputs: {param value: [goodput of seed 1, seed 2, ...]} -> a results directory
    with one single-flow run per (value, seed); a value of None is a failed run."""
    out = Path(out)
    for value, per_seed in goodputs.items():
        for seed, gp in enumerate(per_seed, start=1):
            key = f"{param}{value}-s{seed}"
            params = {param: value}
            ident = {"run_key": key, "sweep": sweep, "seed": seed, param: value}
            if gp is None:          # a failed run: an error record, no table rows
                (out / "errors").mkdir(parents=True, exist_ok=True)
                (out / "errors" / f"{key}.json").write_text(json.dumps(
                    {"run_key": key, "sweep": sweep, "seed": seed, "params": params,
                     "error": "boom", "error_type": "RuntimeError"}))
                continue
            _write(out, "runs", key, pd.DataFrame([{
                **ident, "status": "ok", "events": 1000 * seed, "sim_time_s": 10.0,
                "wall_time_s": 0.01 * seed, "ncmesh_version": ncmesh.__version__,
                "scenario_toml": 'name = "synthetic"\n', "params_json": json.dumps(params)}]))
            _write(out, "flows", key, pd.DataFrame([{
                **ident, "flow": 0, "src": 0, "dst": value, "transport": "tcp", "goodput_kbps": gp,
                "rx_bytes": int(gp * 1000), "tx_packets": 10, "rtt_mean_ms": 10.0 * seed,
                "rtt_samples": 5, "retransmissions": seed, "fast_retransmits": 0, "timeouts": 0,
                "payload_errors": 0, "path": "0-1"}]))
            _write(out, "nodes", key, pd.DataFrame([
                {**ident, "node": n, "mac_frames_sent": 100 * (n + 1) * seed, "collisions": n} for n in range(2)]))
            _write(out, "flow_series", key, pd.DataFrame([
                {**ident, "t_s": float(t), "flow": 0, "goodput_kbps": gp * t / 3, "cwnd_bytes": 1000.0 * t}
                for t in (1, 2, 3)]))
    return out


def write_real(out: Path, hops=(1, 2), seeds=(1, 2), sweep: str = "chain-test") -> Path:
    """Short real chain runs (10 s) in the results-directory layout."""
    out = Path(out)
    for h in hops:
        sc = ncmesh.Scenario.build("chain", hops=h).update(SHORT)
        for seed in seeds:
            res = ncmesh.run(sc, seed=seed)
            key = f"hops{h}-s{seed}"
            ident = {"run_key": key, "sweep": sweep, "seed": seed, "hops": h}
            _write(out, "runs", key, pd.DataFrame([{
                **ident, "status": "ok", "events": res.events, "sim_time_s": res.sim_time_s,
                "wall_time_s": res.wall_time_s, "ncmesh_version": ncmesh.__version__,
                "scenario_toml": sc.to_toml(), "params_json": json.dumps({"hops": h})}]))
            for name in ("flows", "nodes", "flow_series", "node_series"):
                df = getattr(res, name).copy()
                for k, v in ident.items():
                    df[k] = v
                _write(out, name, key, df)
    return out


def tiny_sweep(name: str = "tiny", hops=(1, 2), seeds: int = 2, duration: float = 10.0) -> dict:
    """A sweep dict small enough for tests: chain, a few hop counts, short runs."""
    return {"name": name, "base": {"builder": "chain", "options": {"duration": duration}},
            "grid": {"hops": list(hops)}, "seeds": {"count": seeds, "start": 1}}


# --- headless Chromium (Debian's `chromium`; scripts/setup.sh installs it)

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0"]


def chromium() -> str | None:
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


def render(page: Path, workdir: Path, screenshot: Path | None = None, size=(1200, 2600)) -> dict:
    """Opens page in headless Chromium twice, in a window of `size`: --dump-dom (after the
    load event) and, if asked, --screenshot. Returns {"dom": str, "console": [console lines
    on stderr], "errors": [...recorded by the page's check script], "figures": int, "loaded":
    int, "page_overflow": px the page is wider than the window, "wide_tables": tables wider
    than their scrolling box}."""
    import re
    import subprocess

    exe = chromium()
    url = Path(page).resolve().as_uri()
    common = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={workdir / 'chromium-profile'}"]
    p = subprocess.run([*common, "--virtual-time-budget=10000", f"--window-size={size[0]},{size[1]}", "--dump-dom", url],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line]
    if screenshot is not None:
        s = subprocess.run([*common, f"--screenshot={screenshot}", f"--window-size={size[0]},{size[1]}",
                            "--hide-scrollbars", url], capture_output=True, text=True)
        assert s.returncode == 0, s.stderr[-2000:]
        console += [line for line in s.stderr.splitlines() if ":CONSOLE" in line]

    def attr(name):
        m = re.search(rf'<html[^>]*\s{name}="([^"]*)"', dom)
        return m.group(1) if m else None

    import html as _html

    errors = json.loads(_html.unescape(attr("data-errors") or "null") or "null")
    return {"dom": dom, "console": console, "errors": errors, "rendered": attr("data-rendered"),
            "figures": int(attr("data-figures") or -1), "loaded": int(attr("data-figures-loaded") or -1),
            "page_overflow": int(attr("data-page-overflow") or -1), "wide_tables": int(attr("data-wide-tables") or -1)}


def pixel_stats(png: Path) -> tuple[float, int]:
    """(standard deviation of grey levels, number of distinct colours) of a PNG."""
    from PIL import Image, ImageStat

    img = Image.open(png).convert("RGB")
    grey = img.convert("L")
    return ImageStat.Stat(grey).stddev[0], len(img.getcolors(maxcolors=1 << 20) or [])


def artifact_dir(tmp_path: Path) -> Path:
    """Where screenshots are kept: $NCMESH_TEST_ARTIFACTS if set, else the test's tmp dir."""
    import os

    d = Path(os.environ.get("NCMESH_TEST_ARTIFACTS") or tmp_path)
    d.mkdir(parents=True, exist_ok=True)
    return d
