"""`base.options.seed = "run"`: the builder's own random draws (flow start times,
random layouts) follow each run's seed, so replicates differ in them too."""

from ncmesh.sweep.spec import load_sweep


def _sweep(seed_opt):
    opts = {"start_spread": 3.0, "duration": 5}
    if seed_opt is not None:
        opts["seed"] = seed_opt
    return load_sweep({
        "name": "starts",
        "base": {"builder": "x", "options": opts},
        "grid": {"spacing": [150, 200]},
        "seeds": {"count": 3},
    })


def _starts(run):
    return tuple(f["start_s"] for f in run.scenario["flows"])


def test_builder_seed_follows_the_run_seed():
    runs = _sweep("run").runs()
    assert len(runs) == 6
    by_point = {}
    for r in runs:
        assert r.error is None, r.error
        assert r.scenario["simulation"]["seed"] == r.seed
        by_point.setdefault(r.params["spacing"], []).append(_starts(r))
    for starts in by_point.values():
        assert len(set(starts)) == 3, f"each seed draws its own start times: {starts}"
    # The same seed gives the same draws at every grid point (common random numbers).
    assert by_point[150] == by_point[200]
    # And the expansion is reproducible.
    assert [r.key for r in _sweep("run").runs()] == [r.key for r in runs]


def test_a_fixed_builder_seed_keeps_the_draws_across_replicates():
    runs = _sweep(None).runs()
    assert len({_starts(r) for r in runs}) == 1
    assert len({r.seed for r in runs}) == 3
