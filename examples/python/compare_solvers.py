"""Compares three LCP solvers on a generated contact problem, with no plotting dependency.

A 2D packing of disks (radius 0.5, a square lattice of COLUMNS x LAYERS, every neighbour
touching) rests on a floor between two walls; `signorini.contact` detects the contacts and
assembles the frictionless acceleration-level LCP w = W z + b (W = J M^-1 J', sparse). Each
solver's answer is re-checked with numpy: the merit ||min(z, w)||_2 / ||b||_2 recomputed from
z, and the floor's total reaction against the total weight. Writes a CSV table and a
hand-written SVG chart.

    pip install ./crates/python
    python examples/python/compare_solvers.py [--columns 12] [--layers 8] [--out DIR]
"""

import argparse
import csv
from pathlib import Path

import numpy as np

import signorini

SOLVERS = ["lemke", "pgs", "newton-min"]
G = 9.81


def packing(columns, layers):
    """The scene dict: disks of masses 1..4 kg in a lattice, a floor and two side walls."""
    bodies = []
    for i in range(columns):
        for j in range(layers):
            bodies.append({
                "name": f"disk_{i}_{j}",
                "mass": 1.0 + (i + 2 * j) % 4,
                "particle": True,
                "shape": {"type": "sphere", "radius": 0.5},
                "position": [0.5 + i, 0.5 + j],
            })
    walls = [
        ("floor", [0.0, 1.0], 0.0),
        ("left-wall", [1.0, 0.0], 0.0),
        ("right-wall", [-1.0, 0.0], -float(columns)),
    ]
    for name, normal, offset in walls:
        bodies.append({"name": name, "fixed": True,
                       "shape": {"type": "halfspace", "normal": normal, "offset": offset}})
    return {"dimension": 2, "gravity": [0.0, -G], "margin": 1e-9, "body": bodies}


def svg(rows, path, title):
    """A two-panel bar chart: log10 of the residual and the solve time per solver."""
    width, height, left, bar = 720, 120 + 60 * len(rows), 150, 26
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="15">{title}</text>']
    panels = [
        ("residual ||min(z, w)|| / ||b|| (bar: -log10, longer is smaller)", "residual", 60),
        ("solve time (ms)", "seconds", 90 + 30 * len(rows)),
    ]
    for label, key, top in panels:
        values = [r[key] for r in rows]
        if key == "residual":
            shown = [-np.log10(max(v, 1e-17)) for v in values]
            texts = [f"{v:.1e}" for v in values]
        else:
            shown = [1e3 * v for v in values]
            texts = [f"{1e3 * v:.2f} ms" for v in values]
        scale = (width - left - 120) / max(max(shown), 1e-12)
        out.append(f'<text x="10" y="{top}" font-weight="bold">{label}</text>')
        for k, (row, s, t) in enumerate(zip(rows, shown, texts)):
            y = top + 8 + k * (bar + 4)
            out.append(f'<text x="10" y="{y + 18}">{row["solver"]}</text>')
            out.append(f'<rect x="{left}" y="{y}" width="{max(s * scale, 1):.1f}" '
                       f'height="{bar}" fill="#4a7ab7"/>')
            out.append(f'<text x="{left + max(s * scale, 1) + 6:.1f}" y="{y + 18}">{t} '
                       f'({row["status"]})</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=12)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    scene = packing(args.columns, args.layers)
    assembled = signorini.contact(scene)
    W, b = assembled["W"], assembled["b"]
    n = len(b)
    weight = G * sum(body["mass"] for body in scene["body"] if "mass" in body)
    floor = [k for k, c in enumerate(assembled["contacts"]) if "floor" in (c["body_a"], c["body_b"])]
    print(f"{args.columns} x {args.layers} disks: {n} contacts, W {W.shape[0]}x{W.shape[1]} "
          f"sparse with {W.nnz} entries; total weight {weight:.3f} N")
    rows = []
    for solver in SOLVERS:
        sol = signorini.solve(W, b, solver=solver, tol=1e-10)
        z = sol.z
        w = W @ z + b
        residual = np.linalg.norm(np.minimum(z, w)) / np.linalg.norm(b)
        rows.append({
            "solver": sol.solver, "status": sol.status, "residual": residual,
            "iterations": sol.iterations, "seconds": sol.solve_seconds,
            "floor_reaction": float(z[floor].sum()),
            "weight": weight,
        })
        print(f"{sol.solver:<12} {sol.status:<12} residual {residual:.2e} "
              f"iterations {sol.iterations:<6} {1e3 * sol.solve_seconds:8.2f} ms  "
              f"floor {z[floor].sum():.6f} N")
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "compare_solvers.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    svg(rows, args.out / "compare_solvers.svg",
        f"{n} contacts, {args.columns} x {args.layers} disks")
    print(f"wrote {args.out / 'compare_solvers.csv'} and {args.out / 'compare_solvers.svg'}")


if __name__ == "__main__":
    main()
