"""Runs ncmesh-bench and reads its last line (`key=value` pairs; a value may be a
`[...]` list) into a dict of strings; the benchmark scripts share it."""

import re
import subprocess
import sys


def run_bench(binary: str, args: list[str], who: str) -> dict[str, str]:
    """`binary args...`'s summary line as {key: value}; exits with one line naming `who`
    and the failing command when the run fails."""
    out = subprocess.run([binary, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{who}: {binary} {' '.join(args)} failed: {out.stderr.strip()}")
    return dict(re.findall(r"(\w+)=(\[[^\]]*\]|\S+)", out.stdout.strip().splitlines()[-1]))
