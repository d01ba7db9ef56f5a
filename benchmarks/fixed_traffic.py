#!/usr/bin/env python3
"""Fixed traffic on a growing grid: the same flows, more (idle) nodes.

    fixed_traffic.py BASE.toml BASE_ROWS BASE_COLS ROWS COLS > OUT.toml

BASE.toml is a `ncmesh scenario grid` scenario (node r*BASE_COLS + c at (c*s, r*s)) whose
tables other than [simulation], [[nodes]] and [[flows]] hold defaults (true for the grid
builder). The output is a minimal scenario, so that it parses with older and newer
versions of the schema alike: [simulation] duration/seed/measurement start, the nodes
0..BASE_ROWS*BASE_COLS-1 of BASE.toml at the same positions, the same flows (src, dst,
start time), then the nodes of a ROWS x COLS grid with the same spacing that lie outside
the base block (rows >= BASE_ROWS or cols >= BASE_COLS). ROWS = BASE_ROWS and COLS =
BASE_COLS give the base scenario itself in minimal form.
On a 4-neighbour grid a shortest path between two nodes of the block stays inside the
block, so the flows, their routes and the number of transmissions stay (almost) the
same while the node count grows; the added nodes only overhear the block's border.
"""

from __future__ import annotations

import sys
import tomllib


def main() -> None:
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    base_path, br, bc, rows, cols = sys.argv[1], *map(int, sys.argv[2:])
    sc = tomllib.loads(open(base_path, encoding="utf-8").read())
    nodes = sc["nodes"]
    assert len(nodes) == br * bc, f"{base_path}: expected {br * bc} nodes, found {len(nodes)}"
    spacing = nodes[1]["x"] - nodes[0]["x"]
    assert nodes[bc]["y"] - nodes[0]["y"] == spacing, "base is not a regular grid"
    sim = sc.get("simulation", {})
    out = [f'name = "grid-{rows}x{cols}-fixed-traffic-of-{br}x{bc}"', "", "[simulation]"]
    out += [f"{k} = {sim[k]!r}" for k in ("duration_s", "seed", "measure_start_s") if k in sim]
    out.append("")
    for k, nd in enumerate(nodes):
        out += [f"[[nodes]]  # node {k}", f"x = {float(nd['x'])!r}", f"y = {float(nd['y'])!r}", ""]
    k = len(nodes)
    for r in range(rows):
        for c in range(cols):
            if r < br and c < bc:
                continue
            out += [f"[[nodes]]  # node {k} (added, idle)", f"x = {float(c * spacing)!r}", f"y = {float(r * spacing)!r}", ""]
            k += 1
    for i, fl in enumerate(sc["flows"]):
        out += [f"[[flows]]  # flow {i}", f"src = {fl['src']}", f"dst = {fl['dst']}", f"start_s = {float(fl['start_s'])!r}", ""]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
