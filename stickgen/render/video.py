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

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import GifImagePlugin as gif_plugin
from PIL import Image

from stickgen.clip_ops import CANONICAL_FPS, resample
from stickgen.errors import StickgenError
from stickgen.files import atomic_path, check_not_folder, check_writable
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
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write a clip to `path`; the suffix picks the format (see the module docstring).

    `size` is the image size (width, height) in pixels, of one frame for a filmstrip; `every` is
    the filmstrip's frame step (default: at most 8 frames). Rendering options are ignored by the
    data formats. A `.gif` or `.mp4` is drawn and written frame by frame (memory stays flat for any
    length), calling `progress(done, total)` with frame counts when given. Returns the path written.
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
    frames = iter_frames(motion, **options)
    if progress is not None:
        frames = _reporting(frames, motion.num_frames, progress)
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
    clips = [iter_frames(m, theme=t, size=cell, caption=c, caption_height=band) for m, c in pairs]
    frames = _grid_frames(clips, [m.num_frames for m in motions], columns, cell, t)
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
    _draw_grid_lines(strip, len(cells), 1, (width, height), t)
    strip.paste(Image.fromarray(band), (0, height))
    return strip


def write_gif(frames: Iterable[Image.Image], theme: str | Theme, path: str | Path) -> Path:
    """Write level frames ("L" mode, same size) as a looping GIF at 40 ms per frame. Returns the path.

    Frames are written as they come, so memory stays flat for a clip of any length.
    """
    pal = palette(theme).tobytes()
    with atomic_path(path) as tmp, open(tmp, "wb") as fp:
        gif = GifStream(fp)
        for frame in frames:
            image = frame.copy()
            image.putpalette(pal)  # "L" → "P" with the theme's colours: no quantisation needed
            gif.add(image)
        gif.close()
    return Path(path)


class GifStream:
    """Pillow's animated GIF (`save_all` with stickgen's options), written one frame at a time.

    `Image.save(save_all=True)` keeps every frame until the last one arrives; this writes the same
    bytes holding two: the frame waiting for its duration (a next frame identical to it lengthens it,
    as Pillow merges it) and the one before, which the next frame is compared with. A clip whose
    frames are all the same is one still frame, as Pillow writes it. It reuses Pillow's own GIF
    encoding steps (`PIL.GifImagePlugin`); `tests/test_render.py` checks the bytes against
    `Image.save` so that a Pillow release that changes them is caught.
    """

    OPTIONS = {"duration": FRAME_MS, "loop": 0, "optimize": False, "disposal": 1}

    def __init__(self, fp: BinaryIO):
        self.fp = fp
        self.first: Image.Image | None = None
        self.previous: Image.Image | None = None
        self.pending: tuple[Image.Image, tuple[int, int, int, int] | None, dict] | None = None
        self.written = 0

    def add(self, image: Image.Image) -> None:
        """Append a "P" mode frame of the first frame's size and palette."""
        info = dict(self.OPTIONS)
        frame = gif_plugin._normalize_palette(gif_plugin._normalize_mode(image.copy()), None, info)
        bbox = None
        if self.previous is None:
            self.first = image
        else:
            bbox = gif_plugin._getbbox(self.previous, frame)[1]
            if not bbox:  # the same picture again: the pending frame lasts longer
                self.pending[2]["duration"] += info["duration"]
                return
            self._write_pending()
        self.previous = frame
        self.pending = (frame, bbox, info)

    def close(self) -> None:
        """Write the last frame and the trailer."""
        if self.pending is None:
            raise StickgenError("A GIF needs at least one frame.")
        if not self.written:  # one picture: Pillow writes a still GIF lasting the whole clip
            options = {**self.OPTIONS, "duration": self.pending[2]["duration"]}
            self.first.save(self.fp, format="GIF", save_all=True, **options)
            return
        self._write_pending()
        self.fp.write(b";")

    def _write_pending(self) -> None:
        frame, bbox, info = self.pending
        if bbox is None:  # the first frame: the header, then the whole picture
            for block in gif_plugin._get_global_header(frame, info):
                self.fp.write(block)
            offset = (0, 0)
        else:  # the rectangle that changed, with its own colour table, as Pillow writes it
            info["include_color_table"] = True
            if bbox != (0, 0, *frame.size):
                frame = frame.crop(bbox)
            offset = bbox[:2]
        gif_plugin._write_frame_data(self.fp, frame, offset, info)
        self.written += 1


def write_mp4(frames: Iterable[Image.Image], theme: str | Theme, path: str | Path) -> Path:
    """Write level frames ("L" mode, same size) as an H.264 MP4 at 25 fps, as they come. Returns the path."""
    _require_ffmpeg()
    import imageio.v2 as imageio

    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        raise StickgenError("A video needs at least one frame.")
    width, height = first.size
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
            for frame in itertools.chain([first], frames):
                levels[:height, :width] = np.asarray(frame)
                writer.append_data(to_rgb(levels, theme))
        finally:
            writer.close()
    return Path(path)


def _grid_frames(
    clips: list[Iterator[Image.Image]], lengths: list[int], columns: int, cell: tuple[int, int], t: Theme
) -> Iterator[Image.Image]:
    """The frames of a grid, drawn as they are needed: a clip that ends holds its last frame."""
    rows = math.ceil(len(clips) / columns)
    cw, ch = cell
    shown: list[Image.Image | None] = [None] * len(clips)
    for k in range(max(lengths)):
        frame = Image.new("L", (columns * cw, rows * ch), 0)
        for idx, clip in enumerate(clips):
            if k < lengths[idx]:
                shown[idx] = next(clip)
            frame.paste(shown[idx], ((idx % columns) * cw, (idx // columns) * ch))
        _draw_grid_lines(frame, columns, rows, cell, t)
        yield frame


def _reporting(
    frames: Iterator[Image.Image], total: int, progress: Callable[[int, int], None]
) -> Iterator[Image.Image]:
    """`frames`, calling `progress(done, total)` before the first and after each one."""
    progress(0, total)
    for done, frame in enumerate(frames, start=1):
        yield frame
        progress(done, total)


def _write_png(image: Image.Image, theme: Theme, path: Path) -> Path:
    """Write a level image as a palette PNG (small, exact colours)."""
    image = image.copy()
    image.putpalette(palette(theme).tobytes())
    with atomic_path(path) as tmp:
        image.save(tmp, format="PNG", optimize=False)
    return path


def _draw_grid_lines(frame: Image.Image, columns: int, rows: int, cell: tuple[int, int], t: Theme) -> None:
    """Faint one-pixel lines between the cells of a `columns` × `rows` layout, in `frame` in place."""
    level = round(t.hatch * INK)
    cw, ch = cell
    for c in range(1, columns):
        frame.paste(level, (c * cw, 0, c * cw + 1, rows * ch))
    for r in range(1, rows):
        frame.paste(level, (0, r * ch, columns * cw, r * ch + 1))


def _default_step(num_frames: int) -> int:
    return max(1, math.ceil(num_frames / FILMSTRIP_FRAMES))


def _suffix(path: Path, allowed: tuple[str, ...]) -> str:
    suffix = check_not_folder(path).suffix.lower()
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
