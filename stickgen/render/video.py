"""Writing clips to files: GIF, MP4, PNG filmstrip, grids of clips, and the suffix dispatcher.

Animated outputs play at the canonical 25 fps: a clip at any other rate is resampled first
(`clip_ops.resample`), so a 50 fps clip becomes a GIF with half the frames and the same duration.

- `.gif`: loops forever, 40 ms per frame, one fixed palette (the theme's ramp of `LEVELS` colours),
  frames after the first stored as the rectangle that changed. Pillow merges a frame identical to
  the one before into one longer frame (a figure standing still): the timing stays exact.
- `.mp4`: H.264 through the optional `imageio-ffmpeg` package (`pip install "stickgen[mp4]"`).
- `.png`: a filmstrip, every k-th frame side by side (default: at most 8 frames), the caption once
  under the whole strip.
- `.bvh`, `.json`, `.npz`: `stickgen.bvh.write_bvh` and `stickgen.motion.save_motion`.

Every file goes through `files.atomic_path`: a failed write leaves nothing behind.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from stickgen.clip_ops import CANONICAL_FPS, resample
from stickgen.errors import StickgenError
from stickgen.files import atomic_path, check_writable
from stickgen.motion import Motion, save_motion
from stickgen.render.draw import (
    INK,
    Theme,
    caption_band,
    caption_font_size,
    check_size,
    get_theme,
    iter_frames,
    palette,
    to_rgb,
)

SUFFIXES = (".gif", ".mp4", ".png", ".bvh", ".json", ".npz")
GRID_SUFFIXES = (".gif", ".mp4", ".png")
FRAME_MS = round(1000 / CANONICAL_FPS)  # 40
FILMSTRIP_FRAMES = 8  # default number of frames in a filmstrip
MP4_HINT = 'pip install "stickgen[mp4]" (or pip install imageio-ffmpeg)'


def save(
    motion: Motion,
    path: str | Path,
    *,
    theme: str | Theme = "light",
    size: tuple[int, int] = (384, 384),
    caption: str | None = None,
    trail: bool = False,
    every: int | None = None,
) -> Path:
    """Write a clip to `path`; the suffix picks the format (see the module docstring).

    `size` is the image size (width, height) in pixels, of one frame for a filmstrip; `every` is
    the filmstrip's frame step (default: at most 8 frames). Rendering options are ignored by the
    data formats. Returns the path written.
    """
    path = Path(path)
    suffix = _suffix(path, SUFFIXES)
    if suffix in (".json", ".npz"):
        return save_motion(motion, path)
    if suffix == ".bvh":
        from stickgen.bvh import write_bvh

        return write_bvh(motion, path)
    options = {"theme": get_theme(theme), "size": check_size(size), "caption": caption, "trail": trail}
    if suffix == ".mp4":
        _require_ffmpeg()
    check_writable(path)
    motion = resample(motion, CANONICAL_FPS)
    if suffix == ".png":
        return _write_png(filmstrip(motion, every=every, **options), options["theme"], path)
    frames = list(iter_frames(motion, **options))
    if suffix == ".gif":
        return write_gif(frames, options["theme"], path)
    return write_mp4(frames, options["theme"], path)


def save_grid(
    motions: Sequence[Motion],
    path: str | Path,
    *,
    captions: Sequence[str | None] | None = None,
    columns: int | None = None,
    theme: str | Theme = "light",
    cell_size: tuple[int, int] = (256, 256),
    every: int | None = None,
) -> Path:
    """Several clips side by side, each with its caption, as `.gif`, `.mp4` or `.png`.

    `captions` default to each clip's first text. `columns` defaults to all clips in one row up to
    four, else a near-square grid. Clips play together from the start; a shorter clip holds its
    last frame until the longest one ends (looping would cut clips at different points). A `.png`
    is one filmstrip per clip, stacked, all with the same frame step so that columns line up in
    time. Returns the path written.
    """
    path = Path(path)
    suffix = _suffix(path, GRID_SUFFIXES)
    if not motions:
        raise StickgenError("A grid needs at least one clip.")
    if captions is None:
        captions = [m.texts[0] if m.texts else None for m in motions]
    if len(captions) != len(motions):
        raise StickgenError(f"Got {len(captions)} captions for {len(motions)} clips; give one per clip.")
    n = len(motions)
    if columns is None:
        columns = n if n <= 4 else math.ceil(math.sqrt(n))
    if columns < 1:
        raise StickgenError(f"A grid needs at least one column; got {columns}.")
    columns = min(columns, n)
    t = get_theme(theme)
    cell = check_size(cell_size)
    if suffix == ".mp4":
        _require_ffmpeg()
    check_writable(path)
    motions = [resample(m, CANONICAL_FPS) for m in motions]
    pairs = list(zip(motions, captions, strict=True))
    if suffix == ".png":
        longest = max(m.num_frames for m in motions)
        step = every if every is not None else _default_step(longest)
        strips = [filmstrip(m, every=step, theme=t, size=cell, caption=c) for m, c in pairs]
        width = max(s.width for s in strips)
        sheet = Image.new("L", (width, sum(s.height for s in strips)), 0)
        y = 0
        for s in strips:
            sheet.paste(s, (0, y))
            y += s.height
        return _write_png(sheet, t, path)

    font = caption_font_size(cell[1])
    band = max(caption_band(c or "", cell[0], font, t).shape[0] for c in captions)
    clips = [list(iter_frames(m, theme=t, size=cell, caption=c, caption_height=band)) for m, c in pairs]
    rows = math.ceil(n / columns)
    cw, ch = cell
    frames = []
    for k in range(max(len(c) for c in clips)):
        frame = Image.new("L", (columns * cw, rows * ch), 0)
        for idx, clip in enumerate(clips):
            frame.paste(clip[min(k, len(clip) - 1)], ((idx % columns) * cw, (idx // columns) * ch))
        frames.append(frame)
    _draw_grid_lines(frames, columns, rows, cell, t)
    if suffix == ".gif":
        return write_gif(frames, t, path)
    return write_mp4(frames, t, path)


def filmstrip(
    motion: Motion,
    *,
    every: int | None = None,
    theme: str | Theme = "light",
    size: tuple[int, int] = (384, 384),
    caption: str | None = None,
    trail: bool = False,
) -> Image.Image:
    """Every `every`-th frame of a clip side by side, with the caption under the whole strip.

    Returns a level image ("L" mode; `palette(theme)` colours it). Frames are taken from the clip
    as given, at its own rate.
    """
    step = every if every is not None else _default_step(motion.num_frames)
    if step < 1:
        raise StickgenError(f"The filmstrip frame step must be at least 1; got {step}.")
    t = get_theme(theme)
    width, height = check_size(size)
    picked = np.arange(0, motion.num_frames, step)
    cells = list(iter_frames(motion, theme=t, size=(width, height), trail=trail, frames=picked))
    band = caption_band(caption or "", width * len(cells), caption_font_size(height), t)
    strip = Image.new("L", (width * len(cells), height + band.shape[0]), 0)
    for k, cell in enumerate(cells):
        strip.paste(cell, (k * width, 0))
    _draw_grid_lines([strip], len(cells), 1, (width, height), t)
    strip.paste(Image.fromarray(band), (0, height))
    return strip


def write_gif(frames: Sequence[Image.Image], theme: str | Theme, path: str | Path) -> Path:
    """Write level frames ("L" mode, same size) as a looping GIF at 40 ms per frame. Returns the path."""
    pal = palette(theme).tobytes()
    images = []
    for frame in frames:
        image = frame.copy()
        image.putpalette(pal)  # "L" → "P" with the theme's colours: no quantisation needed
        images.append(image)
    with atomic_path(path) as tmp:
        images[0].save(
            tmp,
            format="GIF",
            save_all=True,
            append_images=images[1:],
            duration=FRAME_MS,
            loop=0,
            optimize=False,
            disposal=1,
        )
    return Path(path)


def write_mp4(frames: Sequence[Image.Image], theme: str | Theme, path: str | Path) -> Path:
    """Write level frames ("L" mode, same size) as an H.264 MP4 at 25 fps. Returns the path."""
    _require_ffmpeg()
    import imageio.v2 as imageio

    width, height = frames[0].size
    # yuv420p needs even sides: pad with the background (level 0).
    even = (height + height % 2, width + width % 2)
    with atomic_path(path) as tmp:
        writer = imageio.get_writer(
            tmp,
            format="FFMPEG",
            mode="I",
            fps=CANONICAL_FPS,
            codec="libx264",
            pixelformat="yuv420p",
            quality=8,
            macro_block_size=1,
            ffmpeg_log_level="error",
        )
        try:
            levels = np.zeros(even, dtype=np.uint8)
            for frame in frames:
                levels[:height, :width] = np.asarray(frame)
                writer.append_data(to_rgb(levels, theme))
        finally:
            writer.close()
    return Path(path)


def _write_png(image: Image.Image, theme: Theme, path: Path) -> Path:
    """Write a level image as a palette PNG (small, exact colours)."""
    image = image.copy()
    image.putpalette(palette(theme).tobytes())
    with atomic_path(path) as tmp:
        image.save(tmp, format="PNG", optimize=False)
    return path


def _draw_grid_lines(
    frames: list[Image.Image], columns: int, rows: int, cell: tuple[int, int], t: Theme
) -> None:
    """Faint one-pixel lines between the cells of a `columns` × `rows` layout, in every frame in place."""
    level = round(t.hatch * INK)
    cw, ch = cell
    for frame in frames:
        for c in range(1, columns):
            frame.paste(level, (c * cw, 0, c * cw + 1, rows * ch))
        for r in range(1, rows):
            frame.paste(level, (0, r * ch, columns * cw, r * ch + 1))


def _default_step(num_frames: int) -> int:
    return max(1, math.ceil(num_frames / FILMSTRIP_FRAMES))


def _suffix(path: Path, allowed: tuple[str, ...]) -> str:
    suffix = path.suffix.lower()
    if suffix not in allowed:
        shown = suffix or "(none)"
        choices = ", ".join(allowed)
        raise StickgenError(f"Cannot write {path.name}: unknown suffix {shown!r}; use one of {choices}.")
    return suffix


def _require_ffmpeg() -> None:
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        raise StickgenError(
            f"Writing .mp4 needs the optional package imageio-ffmpeg; install it with {MP4_HINT}."
        ) from None
