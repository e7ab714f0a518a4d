"""Benchmark: one 250-frame clip to a 384×384 GIF, stickgen's renderer against matplotlib.

The baseline is the usual way to animate a stick figure in Python: a matplotlib figure, a
`FuncAnimation` that moves 14 lines and a head circle, and `PillowWriter` at 25 fps. It draws the
same clip through the same camera at the same size. Both run in this process, one after the other.

    python benchmarks/render.py

prints frames per second of each, our seconds for the whole GIF, and `ratio: N` (ours / baseline)
as the last line. Ours is the median of five runs after a first run (which also loads Pillow's
plugins, reported too); the baseline runs once.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from stickgen.figure import JOINTS, J
from stickgen.motion import Motion
from stickgen.render import auto_camera, save

FRAMES = 250
SIZE = 384
FPS = 25.0


def _down(angle: np.ndarray) -> np.ndarray:
    """Unit vectors (T, 2) at `angle` radians from straight down, positive toward +x."""
    return np.stack([np.sin(angle), -np.cos(angle)], axis=1)


def walking_clip(frames: int = FRAMES, speed: float = 1.4) -> Motion:
    """A side-view figure walking along +x: swinging legs and arms, bobbing pelvis."""
    t = np.arange(frames) / FPS
    phase = 2 * np.pi * 0.9 * t
    pelvis = np.stack([speed * t, 0.93 + 0.02 * np.cos(2 * phase)], axis=1)
    pts = {"pelvis": pelvis, "chest": pelvis + (0.03, 0.3), "neck": pelvis + (0.05, 0.52)}
    pts["head"] = pts["neck"] + (0.02, 0.17)
    for side, sign in (("l", 1.0), ("r", -1.0)):
        swing = 0.45 * sign * np.sin(phase)
        bend = 0.6 * np.clip(-sign * np.cos(phase), 0.0, None)
        pts[f"{side}_hip"] = pelvis
        pts[f"{side}_knee"] = pelvis + 0.45 * _down(swing)
        pts[f"{side}_ankle"] = pts[f"{side}_knee"] + 0.43 * _down(swing - bend)
        arm = -0.4 * sign * np.sin(phase)
        pts[f"{side}_shoulder"] = pts["neck"] + (0.0, -0.04)
        pts[f"{side}_elbow"] = pts[f"{side}_shoulder"] + 0.29 * _down(arm)
        pts[f"{side}_wrist"] = pts[f"{side}_elbow"] + 0.26 * _down(arm + 0.4)
    joints = np.stack([pts[name] for name in JOINTS], axis=1)
    joints[..., 1] -= joints[:, [J["l_ankle"], J["r_ankle"]], 1].min()
    return Motion(joints, fps=FPS, texts=["a person walks"])


def run_ours(motion: Motion, path: Path) -> float:
    start = time.perf_counter()
    save(motion, path, size=(SIZE, SIZE))
    return time.perf_counter() - start


def run_matplotlib(motion: Motion, path: Path) -> float:
    """The same clip and camera with matplotlib's FuncAnimation and PillowWriter."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    bones = [("neck", "head"), ("neck", "chest"), ("chest", "pelvis"), ("l_hip", "r_hip")]
    bones += [("neck", "l_shoulder"), ("l_shoulder", "l_elbow"), ("l_elbow", "l_wrist")]
    bones += [("neck", "r_shoulder"), ("r_shoulder", "r_elbow"), ("r_elbow", "r_wrist")]
    bones += [("l_hip", "l_knee"), ("l_knee", "l_ankle"), ("r_hip", "r_knee"), ("r_knee", "r_ankle")]
    camera = auto_camera(motion.joints, motion.fps)
    start = time.perf_counter()
    fig = plt.figure(figsize=(SIZE / 100, SIZE / 100), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_aspect("equal")
    ax.axhline(0.0, color="0.6", lw=1)
    lines = [ax.plot([], [], color="0.1", lw=4, solid_capstyle="round")[0] for _ in bones]
    head = plt.Circle((0, 0), 0.1, color="0.1")
    ax.add_patch(head)

    def update(i: int):
        j = motion.joints[i]
        for line, (a, b) in zip(lines, bones, strict=True):
            line.set_data([j[J[a], 0], j[J[b], 0]], [j[J[a], 1], j[J[b], 1]])
        head.center = tuple(j[J["head"]])
        x, y, zoom = camera[i]
        half = 1.5 / zoom
        ax.set_xlim(x - half, x + half)
        ax.set_ylim(y - half, y + half)
        return [*lines, head]

    anim = FuncAnimation(fig, update, frames=motion.num_frames, blit=False)
    anim.save(path, writer=PillowWriter(fps=FPS))
    plt.close(fig)
    return time.perf_counter() - start


def main() -> None:
    motion = walking_clip()
    with tempfile.TemporaryDirectory() as tmp:
        ours_path, base_path = Path(tmp) / "ours.gif", Path(tmp) / "matplotlib.gif"
        cold = run_ours(motion, ours_path)
        ours = statistics.median(run_ours(motion, ours_path) for _ in range(5))
        base = run_matplotlib(motion, base_path)
        ours_kb, base_kb = ours_path.stat().st_size / 1e3, base_path.stat().st_size / 1e3
    print(f"clip: {FRAMES} frames, {SIZE}x{SIZE} GIF at {FPS:g} fps")
    print(f"stickgen:   {FRAMES / ours:8.0f} frames/s  {ours:.3f} s per GIF  {ours_kb:.0f} kB")
    print(f"            (the first run in the process, which also loads Pillow's plugins: {cold:.3f} s)")
    print(f"matplotlib: {FRAMES / base:8.0f} frames/s  {base:.3f} s per GIF  {base_kb:.0f} kB")
    print(f"ratio: {base / ours:.1f}")


if __name__ == "__main__":
    main()
