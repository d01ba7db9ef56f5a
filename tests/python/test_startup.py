"""`ncmesh` starts fast: pandas, pyarrow, numpy and matplotlib are imported only on demand."""

import subprocess
import sys

HEAVY = ("pandas", "pyarrow", "numpy", "matplotlib")


def _imported_after(code: str) -> set[str]:
    probe = code + "\nimport sys\nprint(' '.join(m for m in sys.modules if m.split('.')[0] in %r))" % (HEAVY,)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_ncmesh_is_light():
    assert _imported_after("import ncmesh, ncmesh.cli") == set()


def test_cli_run_without_out_is_light(chain_file):
    code = (
        "import contextlib, io, ncmesh.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert ncmesh.cli.main(['run', {str(chain_file)!r}, '--json']) == 0\n"
    )
    assert _imported_after(code) == set()


def test_console_script_is_installed():
    import shutil
    from pathlib import Path

    script = Path(sys.executable).with_name("ncmesh")
    assert script.exists() or shutil.which("ncmesh")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ncmesh", *args], capture_output=True, text=True)


def test_help_lists_every_command_and_each_command_has_its_own_help():
    top = _cli("--help")
    assert top.returncode == 0, top.stderr
    for name in ("scenario", "run", "validate", "compare-ns3", "sweep", "table", "plot", "report", "reproduce"):
        assert name in top.stdout
        sub = _cli(name, "--help")
        assert sub.returncode == 0, (name, sub.stderr)
        assert f"usage: ncmesh {name}" in sub.stdout


def test_a_sweep_loads_no_other_experiment_command():
    code = "import ncmesh.cli\nncmesh.cli.build_parser('sweep')\nimport sys\n" \
           "print(' '.join(m for m in sys.modules if m.startswith('ncmesh.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "ncmesh.sweep.cli" in out
    assert not {"ncmesh.analysis.cli", "ncmesh.report.cli", "ncmesh.experiments.cli"} & set(out)
