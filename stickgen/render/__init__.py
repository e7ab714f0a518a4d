"""Rendering clips to pictures and files: drawing, the camera, and the writers by suffix.

`save(motion, path)` writes .gif .mp4 .png .bvh .json .npz by suffix; `save_grid` puts several clips
side by side; `render_frames` draws RGB arrays. See docs/rendering.md.
"""

from stickgen.render.camera import auto_camera, world_to_pixels
from stickgen.render.draw import THEMES, Theme, palette, parse_size, render_frames, render_levels, to_rgb
from stickgen.render.video import SUFFIXES, filmstrip, save, save_grid, write_gif, write_mp4

__all__ = [
    "SUFFIXES",
    "THEMES",
    "Theme",
    "auto_camera",
    "filmstrip",
    "palette",
    "parse_size",
    "render_frames",
    "render_levels",
    "save",
    "save_grid",
    "to_rgb",
    "world_to_pixels",
    "write_gif",
    "write_mp4",
]
