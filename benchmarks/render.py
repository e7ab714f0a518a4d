"""Benchmark: one 250-frame clip to a 384×384 GIF, stickgen's renderer against matplotlib; and the
peak memory of rendering long clips.

Speed. The baseline is the usual way to animate a stick figure in Python: a matplotlib figure, a
`FuncAnimation` that moves 14 lines and a head circle, and `PillowWriter` at 25 fps. It draws the
same clip through the same camera at the same size. Both run in this process, one after the other.

    python benchmarks/render.py

prints frames per second of each, our seconds for the whole GIF, and `ratio: N` (ours / baseline)
as the last line. Ours is the median of five runs after a first run (which also loads Pillow's
plugins, reported too); the baseline runs once.

Memory. `save` streams frames to the GIF writer; the baseline is the list-based path it replaced
(every frame drawn into a list, then Pillow's `save_all`, which keeps its own copy of each).

    python benchmarks/render.py memory [FRAMES ...]

renders a 384×384 walking clip of each length (default 1,000, 5,000, 10,000, 20,000 and 100,000 frames)
to a GIF, each in a fresh process, and prints the peak resident memory of that process (before and
after rendering) and the seconds taken; the list-based path runs up to 10,000 frames (it holds about
0.3 MB per frame: 100,000 frames would take some 30 GB).
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


def render_listed(motion: Motion, path: Path) -> None:
    """The list-based path `save` used before it streamed: every frame in memory before writing."""
    from stickgen.render import palette
    from stickgen.render.draw import iter_frames
    from stickgen.render.video import FRAME_MS

    images = []
    for frame in list(iter_frames(motion, size=(SIZE, SIZE))):
        image = frame.copy()
        image.putpalette(palette("light").tobytes())
        images.append(image)
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=FRAME_MS, loop=0,
                   optimize=False, disposal=1)  # fmt: skip


def peak_mb() -> float:
    """This process's peak resident memory so far, MB (Linux reports kB, macOS bytes)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1e6 if sys.platform == "darwin" else peak / 1e3


def measure_one(path_kind: str, frames: int) -> None:
    """In a child process: render `frames` frames one way and print `peak_before peak_after seconds`."""
    motion = walking_clip(frames)
    before = peak_mb()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        if path_kind == "stream":
            save(motion, Path(tmp) / "long.gif", size=(SIZE, SIZE))
        else:
            render_listed(motion, Path(tmp) / "long.gif")
        seconds = time.perf_counter() - start
    print(f"{before:.0f} {peak_mb():.0f} {seconds:.1f}")


def memory(lengths: list[int]) -> None:
    import subprocess
    import sys

    print(f"peak resident memory rendering a walking clip to a {SIZE}x{SIZE} GIF (fresh process each)")
    print(f"{'frames':>8}  {'path':<8} {'before MB':>9} {'peak MB':>8} {'growth MB':>9} {'seconds':>8}")
    for frames in lengths:
        for kind in ("stream", "list"):
            if kind == "list" and frames > LIST_LIMIT:
                print(f"{frames:>8}  {kind:<8} skipped (about {frames * LIST_MB_PER_FRAME / 1e3:.0f} GB)")
                continue
            command = [sys.executable, __file__, "_one", kind, str(frames)]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
            before, peak, seconds = float(out[0]), float(out[1]), float(out[2])
            print(f"{frames:>8}  {kind:<8} {before:>9.0f} {peak:>8.0f} {peak - before:>9.0f} {seconds:>8.1f}")


LIST_LIMIT = 10_000  # frames: the list-based path is not run on longer clips
LIST_MB_PER_FRAME = 0.3  # what it holds per 384x384 frame (measured here up to LIST_LIMIT)


def main() -> None:
    import sys

    if sys.argv[1:2] == ["_one"]:
        measure_one(sys.argv[2], int(sys.argv[3]))
        return
    if sys.argv[1:2] == ["memory"]:
        memory([int(n) for n in sys.argv[2:]] or [1_000, 5_000, 10_000, 20_000, 100_000])
        return
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
