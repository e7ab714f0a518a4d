"""Drawing stick-figure frames straight into arrays with Pillow (DESIGN §7).

Every frame is a greyscale *level* image: 0 is the theme's background, `LEVELS − 1` its ink, and
the levels between are the colours on the straight line between the two. Because that mapping is
affine, averaging levels is averaging colours: the figure is drawn in "L" mode at `SUPERSAMPLE`×
size and reduced with `Image.reduce`, which antialiases exactly, and one fixed palette of `LEVELS`
colours turns any frame into RGB or a GIF frame without per-frame quantisation.

What is drawn, back to front:
- a soft contact shadow on the floor under the pelvis, smaller and fainter as the figure leaves it;
- the floor at y = 0, and around the figure's feet hatch marks that are anchored to the world and
  fade out sideways, so a camera that follows a walk still shows the ground passing by;
- an optional pelvis trail over the last second;
- the figure's *left* limbs (arm with its clavicle, leg) in a lighter shade of the ink, so a side
  view tells the two sides apart; then the torso, hips and head (a filled circle around the `head`
  joint); then the right limbs in full ink. Every bone is a thick line with round caps and joints.
- An optional caption (the prompt) in a band under the view.

Speed: only the rectangle around the figure and a thin strip along the floor are drawn at 2×;
the rest of the frame is background. Where they overlap the rectangle covers whole hatch marks
and the strip's full height, so the two agree pixel for pixel.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from stickgen.errors import StickgenError
from stickgen.figure import J
from stickgen.motion import Motion
from stickgen.render.camera import auto_camera, pixels_per_metre, world_to_pixels

LEVELS = 64  # palette entries: level 0 is the background, LEVELS - 1 the ink
INK = LEVELS - 1
SUPERSAMPLE = 2

STROKE = 0.045  # m: width of a bone
TRAIL_STROKE = 0.4  # trail width as a fraction of STROKE
TRAIL_SECONDS = 1.0
FLOOR_STROKE = 0.012  # m
HATCH_SPACING = 0.25  # m between floor hatch marks
HATCH_LENGTH = 0.08  # m: each mark runs down and to the left at 45°
HATCH_REACH = 0.6  # m: marks fade out this far to either side of the pelvis
SHADOW_RADII = (0.32, 0.045)  # m: half-width and half-height of the contact shadow on the floor
SHADOW_FADE_HEIGHT = 1.2  # m above the floor at which the shadow has shrunk to its smallest
HEAD_RADIUS = (0.8, 0.07, 0.14)  # fraction of the neck → head distance, clamped to [min, max] m


@dataclass(frozen=True)
class Theme:
    """Colours of a theme. Shades are fractions of the way from the background to the ink."""

    name: str
    background: tuple[int, int, int]
    ink: tuple[int, int, int]
    left_limbs: float = 0.62
    floor: float = 0.42
    hatch: float = 0.3
    shadow: float = 0.3
    trail: float = 0.4
    caption: float = 0.85


THEMES: dict[str, Theme] = {
    t.name: t
    for t in (
        Theme("light", background=(250, 250, 247), ink=(28, 30, 36)),
        Theme("dark", background=(22, 24, 29), ink=(236, 238, 242), left_limbs=0.58),
        Theme("paper", background=(244, 236, 216), ink=(62, 44, 34)),
        Theme("blueprint", background=(24, 58, 112), ink=(232, 242, 255), left_limbs=0.6),
    )
}


def _part(bones: tuple[tuple[str, str], ...], discs: tuple[str, ...]) -> tuple[tuple, tuple]:
    return tuple((J[a], J[b]) for a, b in bones), tuple(J[n] for n in discs)


# The figure in three parts drawn back to front: bones (thick lines) and discs that round their
# caps and joints. A joint where a part meets one drawn later gets its disc from the later part
# (neck, hips), so no joint is drawn twice. The clavicles (neck → shoulders) start the arms.
_LEFT = _part(
    (("neck", "l_shoulder"), ("l_shoulder", "l_elbow"), ("l_elbow", "l_wrist"), ("l_hip", "l_knee"),
     ("l_knee", "l_ankle")),
    ("l_shoulder", "l_elbow", "l_wrist", "l_knee", "l_ankle"),
)  # fmt: skip
_TORSO = _part(
    (("neck", "chest"), ("chest", "pelvis"), ("l_hip", "r_hip"), ("neck", "head")),
    ("neck", "chest", "pelvis", "l_hip", "r_hip"),
)
_RIGHT = _part(
    (("r_hip", "r_knee"), ("r_knee", "r_ankle"), ("neck", "r_shoulder"), ("r_shoulder", "r_elbow"),
     ("r_elbow", "r_wrist")),
    ("r_knee", "r_ankle", "r_shoulder", "r_elbow", "r_wrist"),
)  # fmt: skip


def get_theme(theme: str | Theme) -> Theme:
    """A theme by name (or the theme itself); an unknown name is a one-sentence `StickgenError`."""
    if isinstance(theme, Theme):
        return theme
    if theme not in THEMES:
        raise StickgenError(f"Unknown theme {theme!r}; choose one of: {', '.join(THEMES)}.")
    return THEMES[theme]


def palette(theme: str | Theme) -> np.ndarray:
    """The theme's (LEVELS, 3) uint8 RGB palette: level i is i / INK of the way to the ink."""
    t = get_theme(theme)
    w = np.linspace(0.0, 1.0, LEVELS)[:, None]
    rgb = (1.0 - w) * np.array(t.background) + w * np.array(t.ink)
    return np.round(rgb).astype(np.uint8)


def check_size(size: tuple[int, int]) -> tuple[int, int]:
    """Validate an image size (width, height) in pixels; each side must be in 32..4096."""
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise StickgenError(f"The image size must be (width, height) in pixels; got {size!r}.") from None
    if not (32 <= width <= 4096 and 32 <= height <= 4096):
        raise StickgenError(f"The image size must be 32..4096 pixels per side; got {width}x{height}.")
    return width, height


def parse_size(text: str) -> tuple[int, int]:
    """Read an image size written as "WxH" (or "N" for a square) → (width, height), validated."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:[xX×]\s*(\d+))?\s*", text)
    if not m:
        raise StickgenError(f"Cannot read the size {text!r}; write it as WxH, for example 384x384.")
    return check_size((int(m.group(1)), int(m.group(2) or m.group(1))))


def caption_font_size(height: int) -> int:
    """The caption's font size in pixels for a frame `height` pixels tall."""
    return max(10, round(0.042 * height))


def caption_band(text: str, width: int, font_size: int, theme: str | Theme) -> np.ndarray:
    """The caption under a view as levels (rows, width) uint8: up to two centred lines.

    Longer texts are wrapped at words and the second line ends in an ellipsis; an empty text
    takes no rows.
    """
    if not text.strip():
        return np.zeros((0, width), dtype=np.uint8)
    t = get_theme(theme)
    font = caption_font(text, font_size)
    pad = max(2, font_size // 2)
    lines = _wrap(" ".join(text.split()), font, width - 2 * pad)
    line_height = round(1.3 * font_size)
    band = Image.new("L", (width, 2 * pad + line_height * len(lines)), 0)
    draw = ImageDraw.Draw(band)
    level = round(t.caption * 255)
    for i, line in enumerate(lines):
        draw.text((width / 2, pad + (i + 0.5) * line_height), line, fill=level, font=font, anchor="mm")
    # FreeType antialiases in 0..255; bring that onto the palette's levels.
    return np.rint(np.asarray(band, dtype=np.float32) * (INK / 255.0)).astype(np.uint8)


def caption_font(text: str, size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """The font a caption is drawn in: Pillow's own for plain ASCII; DejaVu Sans (shipped inside
    matplotlib) for any other text, since Pillow's draws every letter outside ASCII ("é", "б", "α") as
    the same box. DejaVu covers Latin, Greek, Cyrillic and more, but not Chinese, Japanese or Korean."""
    if not text.isascii():
        import matplotlib  # a dependency already; only its data folder is needed

        wide = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        if wide.is_file():
            return ImageFont.truetype(str(wide), size)
    return ImageFont.load_default(size=size)


def _wrap(text: str, font: ImageFont.ImageFont | ImageFont.FreeTypeFont, width: float) -> list[str]:
    """Greedy word wrap of `text` into at most two lines of `width` pixels; "…" marks a cut."""
    lines: list[str] = []
    for word in text.split():
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and (font.getlength(candidate) <= width or len(lines) == 2):
            lines[-1] = candidate
        else:
            lines.append(word)
    out = []
    for line in lines or [""]:
        if font.getlength(line) > width:
            while line and font.getlength(line + "…") > width:
                line = line[:-1]
            line = line.rstrip() + "…"
        out.append(line)
    return out


@dataclass(frozen=True)
class _Scene:
    """Everything per frame that is fixed for one rendering, in 1× view pixels where not stated."""

    theme: Theme
    view: tuple[int, int]  # (width, height) of the view above the caption
    head_radius: float  # m
    trail_frames: int  # 0: no trail


def head_radius(joints: np.ndarray) -> float:
    """Radius (m) of the head circle: a fraction of the clip's median neck → head distance."""
    d = np.linalg.norm(joints[:, J["head"]] - joints[:, J["neck"]], axis=-1)
    frac, lo, hi = HEAD_RADIUS
    return float(np.clip(frac * np.median(d), lo, hi))


def iter_frames(
    motion: Motion,
    *,
    theme: str | Theme = "light",
    size: tuple[int, int] = (384, 384),
    caption: str | None = None,
    trail: bool = False,
    frames: np.ndarray | None = None,
    caption_height: int | None = None,
) -> Iterator[Image.Image]:
    """Draw a clip frame by frame as level images ("L" mode, `size`), at the clip's own rate.

    `frames` picks frame indices to draw (default: all); the camera is the clip's camera track, or
    `auto_camera` of the whole clip, so a picked frame looks as it does in the full animation.
    `caption_height` reserves at least that many rows for the caption (so the cells of a grid line
    up whether their captions take one line, two or none).
    """
    t = get_theme(theme)
    width, height = check_size(size)
    band = caption_band(caption or "", width, caption_font_size(height), t)
    if caption_height is not None and caption_height > band.shape[0]:
        band = np.pad(band, ((0, caption_height - band.shape[0]), (0, 0)))
    view_h = height - band.shape[0]
    if view_h < 16:
        raise StickgenError(f"The caption leaves no room for the figure in a {width}x{height} image.")
    camera = motion.camera
    if camera is None:
        camera = auto_camera(motion.joints, motion.fps, aspect=width / view_h)
    pixels = world_to_pixels(motion.joints, camera, (width, view_h))  # (T, 16, 2)
    trail_frames = round(TRAIL_SECONDS * motion.fps) if trail else 0
    scene = _Scene(t, (width, view_h), head_radius(motion.joints), trail_frames)
    ppm = pixels_per_metre(camera, view_h)  # (T,)

    template = Image.new("L", (width, height), 0)
    template.paste(Image.fromarray(band), (0, view_h))
    indices = range(motion.num_frames) if frames is None else (int(i) for i in frames)
    for i in indices:
        frame = template.copy()
        _draw_frame(frame, scene, motion.joints, pixels, camera, ppm, i)
        yield frame


def render_levels(
    motion: Motion,
    *,
    theme: str | Theme = "light",
    size: tuple[int, int] = (384, 384),
    caption: str | None = None,
    trail: bool = False,
) -> np.ndarray:
    """Draw every frame as levels (T, H, W) uint8, the fast form: `to_rgb(levels, theme)` is RGB."""
    frames = iter_frames(motion, theme=theme, size=size, caption=caption, trail=trail)
    return np.stack([np.asarray(f) for f in frames])


def render_frames(
    motion: Motion,
    *,
    theme: str | Theme = "light",
    size: tuple[int, int] = (384, 384),
    caption: str | None = None,
    trail: bool = False,
) -> np.ndarray:
    """Draw every frame of a clip as RGB: (T, H, W, 3) uint8, at the clip's own frame rate."""
    return to_rgb(render_levels(motion, theme=theme, size=size, caption=caption, trail=trail), theme)


def to_rgb(levels: np.ndarray, theme: str | Theme) -> np.ndarray:
    """Colour level images (..., H, W) uint8 with the theme's palette → (..., H, W, 3) uint8."""
    pal = palette(theme)
    rgb = np.empty((*levels.shape, 3), dtype=np.uint8)
    for c in range(3):  # three byte lookups beat one lookup of 3-byte rows several times over
        rgb[..., c] = pal[:, c][levels]
    return rgb


@dataclass(frozen=True)
class _Floor:
    """The floor in one frame, in 1× view pixels."""

    y: float  # row of y = 0
    half: float  # half the line's width
    hatch: float  # length of a hatch mark along x and along y
    marks: np.ndarray  # x of each hatch mark's top, on the floor line
    levels: np.ndarray  # level of each mark, fading with the distance from the pelvis


def _draw_frame(
    frame: Image.Image,
    scene: _Scene,
    joints: np.ndarray,
    pixels: np.ndarray,
    camera: np.ndarray,
    ppm: np.ndarray,
    i: int,
) -> None:
    """Draw frame `i` into `frame`, whose view is background: the floor strip, then the figure's box."""
    s = SUPERSAMPLE
    width, view_h = scene.view
    scale = float(ppm[i])
    stroke = max(1.5, STROKE * scale)
    head_r = scene.head_radius * scale
    pts = pixels[i]  # (16, 2) in 1× view pixels
    floor = _floor(scene, camera[i], scale, float(joints[i, J["pelvis"], 0]))
    shadow = None if floor is None else _shadow(joints[i], pts, floor, scale)
    trail = None
    if scene.trail_frames:
        start = max(0, i - scene.trail_frames)
        trail = world_to_pixels(joints[start : i + 1, J["pelvis"]], camera[i], scene.view)  # (n, 2)

    r0 = r1 = 0  # rows of the floor strip
    if floor is not None:
        r0 = max(0, int(np.floor(floor.y - floor.half - 1.0)))
        r1 = min(view_h, int(np.ceil(floor.y + floor.hatch + floor.half + 1.0)))
        if r1 > r0:
            strip = Image.new("L", (width * s, (r1 - r0) * s), 0)
            _draw_floor(ImageDraw.Draw(strip), scene, floor, (0, r0))
            frame.paste(strip.reduce(s), (0, r0))

    # The figure's box: joints with the stroke, the head, the shadow and the trail.
    pad = 0.5 * stroke + 2.0
    lo = np.minimum(pts.min(axis=0) - pad, pts[J["head"]] - head_r - 2.0)
    hi = np.maximum(pts.max(axis=0) + pad, pts[J["head"]] + head_r + 2.0)
    if shadow is not None:
        cx, rx, ry, _ = shadow
        lo = np.minimum(lo, (cx - rx - 1.0, floor.y - ry - 1.0))
        hi = np.maximum(hi, (cx + rx + 1.0, floor.y + ry + 1.0))
    if trail is not None:
        lo = np.minimum(lo, trail.min(axis=0) - pad)
        hi = np.maximum(hi, trail.max(axis=0) + pad)
    if floor is not None and lo[1] < r1 and hi[1] > r0:
        # Where the box meets the floor strip it takes in all of the strip's rows and every hatch
        # mark it touches: the strip's content ends at the box's edge only along straight lines
        # that both rasterise alike, so the two meet without a seam.
        lo[1], hi[1] = min(lo[1], r0), max(hi[1], r1)
        touched = (floor.marks + 1.0 >= lo[0]) & (floor.marks - floor.hatch - 1.0 <= hi[0])
        if touched.any():
            lo[0] = min(lo[0], float(floor.marks[touched].min() - floor.hatch - 2.0))
            hi[0] = max(hi[0], float(floor.marks[touched].max() + 2.0))
    x0, y0 = max(0, int(np.floor(lo[0]))), max(0, int(np.floor(lo[1])))
    x1, y1 = min(width, int(np.ceil(hi[0]))), min(view_h, int(np.ceil(hi[1])))
    if x1 <= x0 or y1 <= y0:
        return

    box = Image.new("L", ((x1 - x0) * s, (y1 - y0) * s), 0)
    draw = ImageDraw.Draw(box)
    origin = np.array([x0, y0], dtype=np.float64)
    t = scene.theme
    if shadow is not None:
        cx, rx, ry, strength = shadow
        ex, ey = (cx - x0) * s, (floor.y - y0) * s
        # Nested ellipses, darker inwards: a soft edge once reduced.
        for k, frac in enumerate((1.0, 0.78, 0.56, 0.34)):
            level = round((k + 1) / 4 * strength * t.shadow * INK)
            ax, ay = frac * rx * s, frac * ry * s
            draw.ellipse((ex - ax, ey - ay, ex + ax, ey + ay), fill=level)
    if floor is not None:
        _draw_floor(draw, scene, floor, (x0, y0))
    if trail is not None and len(trail) > 1:
        tp = ((trail - origin) * s).tolist()
        w = max(1, round(TRAIL_STROKE * stroke * s))
        n = len(tp) - 1
        for k in range(n):
            draw.line((tuple(tp[k]), tuple(tp[k + 1])), fill=round((k + 1) / n * t.trail * INK), width=w)
    p = ((pts - origin) * s).tolist()
    w = stroke * s
    _draw_part(draw, p, _LEFT, round(t.left_limbs * INK), w)
    _draw_part(draw, p, _TORSO, INK, w)
    hx, hy = p[J["head"]]
    r = head_r * s
    draw.ellipse((hx - r, hy - r, hx + r, hy + r), fill=INK)
    _draw_part(draw, p, _RIGHT, INK, w)
    frame.paste(box.reduce(s), (x0, y0))


def _draw_part(draw: ImageDraw.ImageDraw, p: list, part: tuple, level: int, width: float) -> None:
    """Thick lines for a part's bones and a disc at each of its joints: round caps and joints."""
    bones, discs = part
    iw = max(1, round(width))
    r = 0.5 * iw
    for a, b in bones:
        draw.line((tuple(p[a]), tuple(p[b])), fill=level, width=iw)
    for j in discs:
        x, y = p[j]
        draw.ellipse((x - r, y - r, x + r, y + r), fill=level)


def _floor(scene: _Scene, camera: np.ndarray, scale: float, pelvis_x: float) -> _Floor | None:
    """Where the floor and its hatch marks fall in one frame; None when it is out of view.

    Marks sit every HATCH_SPACING m of the world within HATCH_REACH of the pelvis, fading with the
    distance. Keeping them near the figure also keeps what changes from frame to frame small,
    which keeps GIFs small and fast to encode.
    """
    width, view_h = scene.view
    y = 0.5 * view_h + float(camera[1]) * scale
    half = 0.5 * max(1.0, FLOOR_STROKE * scale)
    hatch = HATCH_LENGTH * scale
    if y + hatch + half < 0 or y - half > view_h:
        return None
    first = np.ceil((pelvis_x - HATCH_REACH) / HATCH_SPACING)
    marks = np.arange(first, (pelvis_x + HATCH_REACH) / HATCH_SPACING) * HATCH_SPACING  # world x
    fade = 1.0 - ((marks - pelvis_x) / HATCH_REACH) ** 2
    levels = np.rint(fade * scene.theme.hatch * INK).astype(int)
    keep = levels > 0
    return _Floor(y, half, hatch, 0.5 * width + (marks[keep] - float(camera[0])) * scale, levels[keep])


def _draw_floor(draw: ImageDraw.ImageDraw, scene: _Scene, floor: _Floor, origin: tuple[int, int]) -> None:
    """Draw the floor line and its hatch marks at 2× into an image whose corner is `origin` (1× px)."""
    s = SUPERSAMPLE
    ox, oy = origin
    y = (floor.y - oy) * s
    line_w = max(1, round(2 * floor.half * s))
    draw.line(((-ox) * s, y, (scene.view[0] - ox) * s, y), fill=round(scene.theme.floor * INK), width=line_w)
    hatch_w = max(1, round(0.7 * line_w))
    for x, level in zip(floor.marks.tolist(), floor.levels.tolist(), strict=True):
        top = ((x - ox) * s, y)
        draw.line((top, (top[0] - floor.hatch * s, y + floor.hatch * s)), fill=level, width=hatch_w)


def _shadow(
    joints: np.ndarray, pts: np.ndarray, floor: _Floor, scale: float
) -> tuple[float, float, float, float]:
    """The contact shadow as (centre x, radius x, radius y) in 1× pixels and a strength in 0..1.

    It lies on the floor under the pelvis and shrinks and fades as the figure's lowest joint rises.
    """
    lift = max(0.0, float(joints[:, 1].min()))
    strength = float(np.clip(1.0 - lift / SHADOW_FADE_HEIGHT, 0.3, 1.0))
    rx, ry = SHADOW_RADII
    return float(pts[J["pelvis"], 0]), rx * scale * strength, ry * scale * strength, strength
