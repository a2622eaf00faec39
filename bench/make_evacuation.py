#!/usr/bin/env python3
"""Write an evacuation-density benchmark scenario (bench/README.md).

  make_evacuation.py N OUT.yaml [--density 2.0] [--exit-width 6]

A square room holding N agents on a jittered lattice at the given density
(agents/m^2, default 2, a dense evacuation crowd), walls all round with one
exit in the middle of each side, a goal region outside each exit (agents head
for the closest). Agents have radius 0.25 m (pedestrian shoulders; at
2 agents/m^2 radius-0.5 disks would not fit), so the paper's radius-0.5
lengths are halved: long-range radius 1.5 m, XSPH h 1.75 m. All constraints
are on: contact with friction, long-range collision, avoidance, walls, XSPH,
with the paper's 1 stability + 6 solver iterations and dt 1/48.
"""
import argparse
import math


def main():
    p = argparse.ArgumentParser()
    p.add_argument("n", type=int)
    p.add_argument("out")
    p.add_argument("--density", type=float, default=2.0)
    p.add_argument("--exit-width", type=float, default=6.0)
    a = p.parse_args()
    cols = math.ceil(math.sqrt(a.n))
    rows = math.ceil(a.n / cols)
    spacing = 1.0 / math.sqrt(a.density)
    inner = cols * spacing             # side of the block of agents
    side = inner + 2.0                 # room: 1 m margin to the walls
    h = side / 2.0
    e = a.exit_width / 2.0
    margin = 12.0
    w = h + margin
    # walls: four L-shaped polylines leave a gap of exit_width in the middle of each side
    walls = [
        [[-e, -h], [-h, -h], [-h, -e]],
        [[-h, e], [-h, h], [-e, h]],
        [[e, h], [h, h], [h, e]],
        [[h, -e], [h, -h], [e, -h]],
    ]
    goals = {"exit_west": [[-w + 1, -e], [-h - 4, e]], "exit_east": [[h + 4, -e], [w - 1, e]],
             "exit_south": [[-e, -w + 1], [e, -h - 4]], "exit_north": [[-e, h + 4], [e, w - 1]]}
    lo = -inner / 2.0 + spacing / 2.0
    # jitter that keeps lattice neighbours >= 1.05 x (0.25 + 0.25) m apart
    jitter = max(0.0, min(0.1, (spacing - 0.53) / 2.0))
    hi_x = lo + (cols - 1) * spacing
    hi_y = lo + (rows - 1) * spacing
    def pt(q):
        return f"[{q[0]:.4f}, {q[1]:.4f}]"
    lines = [
        f"name: evacuation-{a.n}",
        f"description: evacuation-density benchmark, {a.n} agents at {a.density} agents/m^2, four exits",
        "seed: 7",
        f"world: {{min: [{-w:.4f}, {-w:.4f}], max: [{w:.4f}, {w:.4f}]}}",
        "time: {dt: 1/48, steps: 1000}",
        "solver: {stability_iterations: 1, iterations: 6}",
        "long_range: {enabled: true, radius: 1.5}",
        "avoidance: {enabled: true, radius: 1.5}",
        "contact: {enabled: true, friction: true}",
        "walls: {enabled: true}",
        "xsph: {enabled: true, h: 1.75}",
        "model: {arrive_radius: 0.25}",
        "goals:",
    ]
    for name, (mn, mx) in goals.items():
        lines.append(f"  - {{name: {name}, rect: {{min: {pt(mn)}, max: {pt(mx)}}}}}")
    lines.append("obstacles:")
    for wl in walls:
        lines.append("  - polyline: [" + ", ".join(pt(q) for q in wl) + "]")
    lines += [
        "agents:",
        f"  - {{name: crowd, layout: grid, min: [{lo:.4f}, {lo:.4f}], max: [{hi_x:.4f}, {hi_y:.4f}], "
        f"rows: {rows}, cols: {cols}, count: {a.n}, jitter: {jitter:.4f}, agent_radius: 0.25, "
        "speed: {mean: 1.34, spread: 0.2}, goal: [exit_west, exit_east, exit_south, exit_north]}",
        "output: {trajectory_every: 0, metrics_every: 0}",
    ]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
