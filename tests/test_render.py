"""The renderer and its writers: GIFs that decode back right, a camera that never loses the figure,
filmstrips, grids, MP4, and one-sentence errors that leave nothing behind."""

import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from stickgen.errors import StickgenError
from stickgen.figure import JOINTS, J
from stickgen.motion import Motion, load_motion, save_motion
from stickgen.render import (
    THEMES,
    auto_camera,
    filmstrip,
    palette,
    parse_size,
    render_frames,
    render_levels,
    save,
    save_grid,
    world_to_pixels,
)
from stickgen.render.camera import MARGIN, gaussian_smooth, pixels_per_metre
from stickgen.render.draw import INK, STROKE, caption_band, head_radius


def _down(angle: np.ndarray) -> np.ndarray:
    return np.stack([np.sin(angle), -np.cos(angle)], axis=-1)


def side_walk(frames: int = 50, distance: float = 2.0, fps: float = 25.0, facing: float = 1.0) -> Motion:
    """A side-view stick figure that walks `distance` m along x·facing with swinging legs and arms."""
    t = np.arange(frames) / fps
    phase = 2 * np.pi * 0.9 * t
    x = facing * distance * t / max(t[-1], 1e-9)
    pelvis = np.stack([x, np.full(frames, 0.93)], axis=1)
    pts = {"pelvis": pelvis, "chest": pelvis + (0.03 * facing, 0.3), "neck": pelvis + (0.05 * facing, 0.52)}
    pts["head"] = pts["neck"] + (0.02 * facing, 0.17)
    for side, sign in (("l", 1.0), ("r", -1.0)):
        swing = 0.45 * sign * np.sin(phase)
        bend = 0.6 * np.clip(-sign * np.cos(phase), 0.0, None)
        pts[f"{side}_hip"] = pelvis
        pts[f"{side}_knee"] = pelvis + 0.45 * _down(facing * swing)
        pts[f"{side}_ankle"] = pts[f"{side}_knee"] + 0.43 * _down(facing * (swing - bend))
        arm = -0.4 * sign * np.sin(phase)
        pts[f"{side}_shoulder"] = pts["neck"] + (0.0, -0.04)
        pts[f"{side}_elbow"] = pts[f"{side}_shoulder"] + 0.29 * _down(facing * arm)
        pts[f"{side}_wrist"] = pts[f"{side}_elbow"] + 0.26 * _down(facing * (arm + 0.4))
    joints = np.stack([pts[name] for name in JOINTS], axis=1)
    joints[..., 1] -= joints[:, [J["l_ankle"], J["r_ankle"]], 1].min()
    return Motion(joints, fps=fps, texts=["a person walks"])


def jump(frames: int = 50, height: float = 2.0) -> Motion:
    """A figure that leaves the floor and flies `height` m up (its feet) and back down."""
    base = side_walk(frames, distance=0.0).joints
    s = np.linspace(0.0, 1.0, frames)
    lift = 4 * height * s * (1 - s)
    return Motion(base + np.stack([np.zeros(frames), lift], axis=1)[:, None, :], texts=["a person jumps"])


def ink_pixels(rgb: np.ndarray, theme: str = "light") -> np.ndarray:
    """Mask of pixels drawn in (nearly) full ink: the figure's torso, head and right limbs."""
    ink = np.array(THEMES[theme].ink, dtype=np.int16)
    return np.abs(rgb.astype(np.int16) - ink).max(axis=-1) <= 12


def decode_gif(path) -> tuple[list[np.ndarray], list[int], Image.Image]:
    im = Image.open(path)
    frames, durations = [], []
    for k in range(im.n_frames):
        im.seek(k)
        frames.append(np.asarray(im.convert("RGB")))
        durations.append(im.info["duration"])
    return frames, durations, im


# ---------------------------------------------------------------------------------------------
# GIF


def test_gif_decodes_with_its_frames_40ms_each_looping_forever_with_the_figure_in_every_frame(tmp_path):
    motion = side_walk(60, distance=3.0)
    path = save(motion, tmp_path / "walk.gif", caption="a person walks")
    frames, durations, im = decode_gif(path)
    assert len(frames) == 60
    assert durations == [40] * 60
    assert im.info["loop"] == 0
    assert frames[0].shape == (384, 384, 3)
    for rgb in frames:
        assert ink_pixels(rgb).sum() > 300


def test_a_50_fps_clip_becomes_a_25_fps_gif_with_half_the_frames(tmp_path):
    motion = side_walk(100, distance=2.0, fps=50.0)
    frames, durations, _ = decode_gif(save(motion, tmp_path / "fast.gif"))
    assert len(frames) == 50
    assert set(durations) == {40}


def test_a_figure_standing_still_keeps_its_total_duration(tmp_path):
    still = Motion(np.repeat(side_walk(1, distance=0.0).joints, 10, axis=0))
    _, durations, im = decode_gif(save(still, tmp_path / "still.gif"))
    assert sum(durations) == 10 * 40  # Pillow merges identical frames into one longer frame
    assert im.info["loop"] == 0


def test_gifs_are_small(tmp_path):
    path = save(side_walk(250, distance=20.0), tmp_path / "walk.gif")
    assert path.stat().st_size < 800_000  # 10 s at 384×384; a matplotlib GIF of it is larger


def test_frames_are_antialiased_and_use_only_the_theme_colours():
    motion = side_walk(5, distance=0.5)
    levels = render_levels(motion, theme="dark")
    values = np.unique(levels)
    assert values.min() == 0 and values.max() == INK
    assert len(values) > 10  # edges blend: supersampling, not two-colour drawing
    rgb = render_frames(motion, theme="dark")
    assert np.array_equal(rgb, palette("dark")[levels])
    assert tuple(rgb[0, 0, 0]) == THEMES["dark"].background


def test_left_limbs_are_drawn_in_a_lighter_shade_than_the_right_ones():
    # Standing with legs apart: the left shin stands free on one side, the right on the other.
    joints = side_walk(1, distance=0.0).joints.copy()
    joints[0, J["l_knee"]] = joints[0, J["pelvis"]] + (0.3, -0.4)
    joints[0, J["l_ankle"]] = joints[0, J["pelvis"]] + (0.5, -0.85)
    joints[0, J["r_knee"]] = joints[0, J["pelvis"]] + (-0.3, -0.4)
    joints[0, J["r_ankle"]] = joints[0, J["pelvis"]] + (-0.5, -0.85)
    motion = Motion(joints)
    levels = render_levels(motion)[0]
    camera = auto_camera(motion.joints, motion.fps)
    px = world_to_pixels(motion.joints, camera, (384, 384))[0]
    mid_left = np.round(0.5 * (px[J["l_knee"]] + px[J["l_ankle"]])).astype(int)
    mid_right = np.round(0.5 * (px[J["r_knee"]] + px[J["r_ankle"]])).astype(int)
    assert levels[mid_left[1], mid_left[0]] == round(THEMES["light"].left_limbs * INK)
    assert levels[mid_right[1], mid_right[0]] == INK


def test_every_theme_renders_and_an_unknown_one_is_one_sentence():
    motion = side_walk(2, distance=0.2)
    for name, theme in THEMES.items():
        rgb = render_frames(motion, theme=name, size=(96, 96))
        assert rgb.shape == (2, 96, 96, 3)
        assert tuple(rgb[0, 0, 0]) == theme.background
        assert ink_pixels(rgb[0], name).any()
    assert len(THEMES) >= 3
    with pytest.raises(StickgenError, match=r"^Unknown theme 'neon'; choose one of: light, .*\.$"):
        render_frames(motion, theme="neon")


def test_size_and_caption():
    motion = side_walk(3, distance=0.3)
    plain = render_levels(motion, size=(320, 200))
    captioned = render_levels(motion, size=(320, 200), caption="a person walks")
    assert plain.shape == captioned.shape == (3, 200, 320)
    # The caption's band at the bottom holds text; without one the bottom rows are floor or empty.
    assert (captioned[:, -12:] > 0).sum() > (plain[:, -12:] > 0).sum() + 50
    assert parse_size("640x360") == (640, 360) and parse_size("200") == (200, 200)
    for bad in ("big", "10x10", "5000x100"):
        with pytest.raises(StickgenError):
            parse_size(bad)


def test_a_long_caption_wraps_to_at_most_two_lines_that_fit_the_width():
    text = "a person walks forward slowly, stops, turns around, waves with both hands and then sits down"
    one = caption_band("a person walks", 256, 11, "light")
    two = caption_band(text, 256, 11, "light")
    longer = caption_band(" ".join([text] * 4), 256, 11, "light")
    assert one.shape[1] == two.shape[1] == 256
    assert one.shape[0] < two.shape[0] == longer.shape[0]  # two lines, the rest cut with an ellipsis
    for band in (two, longer):
        assert not band[:, :2].any() and not band[:, -2:].any()  # nothing runs off the sides
    assert caption_band("", 256, 11, "light").shape == (0, 256)


@pytest.mark.parametrize("first, second", [("café", "cafè"), ("он бег", "он жим"), ("άλμα", "βήμα")])
def test_a_caption_outside_ascii_shows_its_letters_not_boxes(first, second):
    # Pillow's own font draws every letter outside ASCII as the same box, so two such captions of one
    # length came out identical; each letter must show.
    a, b = caption_band(first, 256, 14, "light"), caption_band(second, 256, 14, "light")
    assert a.any() and (a.shape != b.shape or not np.array_equal(a, b))
    assert not np.array_equal(caption_band("cafe", 256, 14, "light"), a)


def test_trail_draws_the_pelvis_path_behind_a_walking_figure():
    motion = side_walk(30, distance=3.0)
    with_trail = render_levels(motion, trail=True)[-1]
    without = render_levels(motion)[-1]
    camera = auto_camera(motion.joints, motion.fps)
    px = world_to_pixels(motion.joints[-15:, J["pelvis"]][None], camera[-1], (384, 384))[0]
    x, y = np.round(px[0]).astype(int)  # where the pelvis was 0.6 s ago
    assert with_trail[y - 2 : y + 3, x].max() > 0 and without[y - 2 : y + 3, x].max() == 0


# ---------------------------------------------------------------------------------------------
# Camera


def _assert_in_view(motion: Motion, size=(384, 384)) -> None:
    camera = auto_camera(motion.joints, motion.fps, aspect=size[0] / size[1])
    px = world_to_pixels(motion.joints, camera, size)  # (T, 16, 2)
    room = (0.2 * pixels_per_metre(camera, size[1]))[:, None]  # head circle and stroke
    assert (px[..., 0] >= room).all() and (px[..., 0] <= size[0] - room).all()
    assert (px[..., 1] >= room).all() and (px[..., 1] <= size[1] - room).all()


@pytest.mark.parametrize("size", [(384, 384), (640, 360), (240, 400)])
def test_the_figure_stays_in_view_for_a_20_m_walk_and_a_2_m_jump(size):
    _assert_in_view(side_walk(250, distance=20.0), size)
    _assert_in_view(side_walk(250, distance=20.0, facing=-1.0), size)
    _assert_in_view(jump(50, height=2.0), size)


def test_every_frame_of_a_20_m_walk_and_a_2_m_jump_shows_the_whole_figure():
    for motion in (side_walk(250, distance=20.0), jump(50, height=2.0)):
        ink = render_levels(motion) == INK
        counts = ink.sum(axis=(1, 2))
        assert counts.min() > 0.6 * np.median(counts)  # never cut off
        assert not (ink[:, 0].any() or ink[:, -1].any() or ink[:, :, 0].any() or ink[:, :, -1].any())


def test_the_automatic_camera_is_smooth_and_follows_a_walk():
    motion = side_walk(250, distance=20.0)
    camera = auto_camera(motion.joints, motion.fps)
    acceleration = np.diff(camera[:, 0], 2) * motion.fps**2
    assert np.abs(acceleration).max() < 0.5  # m/s²: no jitter from swinging legs
    assert np.abs(camera[:, 0] - motion.joints[:, J["pelvis"], 0]).max() < 0.3
    assert np.ptp(camera[:, 1:], axis=0).max() < 1e-9  # the floor stays put, the zoom too


def test_a_clip_that_fits_in_one_view_gets_a_still_camera_and_a_jump_zooms_out():
    camera = auto_camera(side_walk(50, distance=0.4).joints, 25.0)
    assert np.ptp(camera, axis=0).max() < 1e-9
    assert camera[0, 2] == pytest.approx(1.0)
    high = auto_camera(jump(50, height=2.0).joints, 25.0)
    assert np.ptp(high, axis=0).max() < 1e-9 and high[0, 2] < 0.8


def test_a_clip_high_above_the_floor_is_followed_vertically():
    joints = side_walk(100, distance=0.0).joints.copy()
    joints[..., 1] += np.linspace(0.0, 20.0, 100)[:, None]  # a 20 m climb
    motion = Motion(joints)
    camera = auto_camera(joints, 25.0)
    assert camera[-1, 1] > 15.0 and camera[0, 2] > 0.3
    _assert_in_view(motion)


def test_smoothing_keeps_a_constant_speed_track_exact_at_its_ends():
    track = 0.7 * np.arange(40) - 3.0
    assert np.allclose(gaussian_smooth(track, 12.5), track)
    assert np.allclose(gaussian_smooth(track[:3], 12.5), track[:3])
    assert np.array_equal(gaussian_smooth(np.array([2.0]), 5.0), [2.0])


def test_the_clip_camera_track_is_followed_when_there_is_one():
    motion = side_walk(5, distance=0.0)
    pelvis_x = motion.joints[0, J["pelvis"], 0]
    camera = np.tile([pelvis_x + 1.0, 1.0, 1.0], (5, 1))  # look 1 m to the right of the figure
    levels = render_levels(motion.replace(camera=camera))[0]
    cols = np.flatnonzero((levels[:300] == INK).any(axis=0))
    assert cols.mean() == pytest.approx(192 - 128, abs=25)  # 1 m at 128 px/m left of the centre


def test_margin_covers_the_head_and_the_stroke():
    assert MARGIN >= head_radius(side_walk(2).joints) + STROKE


# ---------------------------------------------------------------------------------------------
# Filmstrip, grid, data formats, MP4


def test_png_filmstrip_shows_every_kth_frame_in_a_row(tmp_path):
    motion = side_walk(50, distance=2.0)
    path = save(motion, tmp_path / "strip.png", size=(128, 160), every=10, caption="a person walks")
    im = Image.open(path)
    assert im.width == 5 * 128 and im.height > 160
    rgb = np.asarray(im.convert("RGB"))
    for k in range(5):
        assert ink_pixels(rgb[:160, k * 128 : (k + 1) * 128]).sum() > 30
    default = filmstrip(motion, size=(64, 64))
    assert default.width == 8 * 64  # at most 8 frames: every 7th of 50


def test_grid_of_clips_of_different_lengths(tmp_path):
    motions = [side_walk(30), jump(45, height=1.0), side_walk(10, facing=-1.0)]
    path = save_grid(motions, tmp_path / "grid.gif", captions=["walks", "jumps", None], cell_size=(128, 128))
    frames, durations, _ = decode_gif(path)
    assert len(frames) == 45 and set(durations) == {40}
    assert frames[0].shape == (128, 3 * 128, 3)
    last = frames[-1]
    for k in range(3):  # the shorter clips hold their last frame
        assert ink_pixels(last[:, k * 128 : (k + 1) * 128]).sum() > 20
    grid = Image.open(save_grid(motions, tmp_path / "grid.png", cell_size=(64, 64)))
    assert grid.width == 8 * 64  # time-aligned filmstrips, the longest has 8 frames
    with pytest.raises(StickgenError, match="captions"):
        save_grid(motions, tmp_path / "bad.gif", captions=["one"])
    with pytest.raises(StickgenError, match=r"use one of \.gif, \.mp4, \.png\.$"):
        save_grid(motions, tmp_path / "grid.bvh")


def test_a_grid_wraps_into_rows(tmp_path):
    motions = [side_walk(8, distance=0.5)] * 6
    frames, _, _ = decode_gif(save_grid(motions, tmp_path / "six.gif", cell_size=(64, 80)))
    assert frames[0].shape == (2 * 80, 3 * 64, 3)


def test_json_and_npz_go_through_the_motion_format(tmp_path):
    motion = side_walk(20)
    for suffix in (".json", ".npz"):
        back = load_motion(save(motion, tmp_path / f"clip{suffix}"))
        assert np.allclose(back.joints, motion.joints, atol=1e-6)
        assert back.texts == motion.texts


def test_mp4_without_imageio_ffmpeg_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # import fails
    with pytest.raises(StickgenError, match=r'pip install "stickgen\[mp4\]"') as err:
        save(side_walk(5), tmp_path / "walk.mp4")
    assert str(err.value).endswith(".") and "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_mp4_writes_25_fps_video(tmp_path):
    pytest.importorskip("imageio_ffmpeg")
    import imageio.v2 as imageio

    path = save(side_walk(25, distance=1.0), tmp_path / "walk.mp4", size=(161, 120))  # odd width
    reader = imageio.get_reader(path)
    meta = reader.get_meta_data()
    frames = [f for f in reader]
    reader.close()
    assert meta["fps"] == 25 and len(frames) == 25
    assert frames[0].shape[:2] == (120, 162)
    assert [p.name for p in tmp_path.iterdir()] == ["walk.mp4"]


def test_unknown_suffix_is_one_sentence_listing_the_formats(tmp_path):
    with pytest.raises(StickgenError) as err:
        save(side_walk(5), tmp_path / "walk.avi")
    assert str(err.value) == (
        "Cannot write walk.avi: unknown suffix '.avi'; use one of .gif, .mp4, .png, .bvh, .json, .npz."
    )
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# The command line


def run_cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stickgen", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_cli_render_writes_a_gif_and_prints_its_path(tmp_path):
    save_motion(side_walk(20), tmp_path / "clip.npz")
    result = run_cli("render", "clip.npz", "-o", "out/walk.gif", "--theme", "dark", "--size", "200x150",
                     "--caption", "a person walks", "--trail", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "out/walk.gif"
    frames, durations, _ = decode_gif(tmp_path / "out" / "walk.gif")
    assert len(frames) == 20 and frames[0].shape == (150, 200, 3)


@pytest.mark.parametrize(
    ("make_input", "output", "message"),
    [
        ("walk", "walk.webm", "unknown suffix '.webm'"),
        ("walk", "blocker/walk.gif", "Cannot create the output folder"),
        ("empty", "empty.gif", "no frames"),
    ],
)
def test_cli_bad_input_is_one_sentence_and_leaves_no_file(tmp_path, make_input, output, message):
    if make_input == "walk":
        save_motion(side_walk(10), tmp_path / "clip.npz")
    else:
        np.savez(tmp_path / "clip.npz", joints=np.zeros((0, 16, 2)), fps=np.float64(25.0))
    (tmp_path / "blocker").write_text("a file where a folder should be")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = run_cli("render", "clip.npz", "-o", output, cwd=tmp_path)
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("stickgen: error: ") and lines[0].endswith(".")
    assert message in lines[0] and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_long_render_streams_its_frames_to_the_writer(monkeypatch, tmp_path):
    """At most a few drawn frames are alive at any time, so memory stays flat for any length."""
    import importlib.util
    import weakref

    from stickgen.render import video

    alive: list[weakref.ref] = []
    most = 0

    def tracked(*args, **kwargs):
        nonlocal most
        for frame in draw_frames(*args, **kwargs):
            alive.append(weakref.ref(frame))
            most = max(most, sum(r() is not None for r in alive))
            yield frame

    draw_frames = video.iter_frames
    monkeypatch.setattr(video, "iter_frames", tracked)
    clip = side_walk(300, distance=20.0)
    mp4 = importlib.util.find_spec("imageio_ffmpeg") is not None
    for suffix in (".gif", ".mp4") if mp4 else (".gif",):
        alive.clear()
        save(clip, tmp_path / f"walk{suffix}", size=(48, 48))
        assert len(alive) == 300 and most <= 3, (suffix, most)
    alive.clear()
    most = 0
    save_grid([clip, side_walk(120)], tmp_path / "grid.gif", captions=[None, None], cell_size=(48, 48))
    assert len(alive) == 420 and most <= 3


@pytest.mark.parametrize("case", ["walk", "still", "pause", "one frame"])
def test_gif_bytes_are_pillows_own(tmp_path, case):
    """The streaming writer writes what Pillow's `save_all` writes (merged identical frames included)."""
    from stickgen.render.draw import iter_frames
    from stickgen.render.video import FRAME_MS, write_gif

    walk = side_walk(40)
    joints = {
        "walk": walk.joints,
        "still": np.repeat(walk.joints[:1], 30, axis=0),
        "pause": np.concatenate([np.repeat(walk.joints[:1], 8, axis=0), walk.joints, walk.joints[-1:]]),
        "one frame": walk.joints[:1],
    }[case]
    frames = list(iter_frames(Motion(joints, fps=25.0), size=(96, 64), caption="a person walks"))
    write_gif(iter(frames), "dark", tmp_path / "ours.gif")
    images = [frame.copy() for frame in frames]
    for image in images:
        image.putpalette(palette("dark").tobytes())
    images[0].save(tmp_path / "pillow.gif", format="GIF", save_all=True, append_images=images[1:],
                   duration=FRAME_MS, loop=0, optimize=False, disposal=1)  # fmt: skip
    assert (tmp_path / "ours.gif").read_bytes() == (tmp_path / "pillow.gif").read_bytes()


def test_cli_render_shows_progress_on_a_clip_longer_than_a_minute(tmp_path):
    save_motion(side_walk(1525, distance=100.0), tmp_path / "long.npz")
    save_motion(side_walk(50), tmp_path / "short.npz")
    long = run_cli("render", "long.npz", "-o", "long.gif", "--size", "32x32", cwd=tmp_path)
    assert long.returncode == 0, long.stderr
    assert "render" in long.stderr and "1525/1525" in long.stderr
    short = run_cli("render", "short.npz", "-o", "short.gif", cwd=tmp_path)
    assert short.returncode == 0 and short.stderr == ""


def test_cli_render_to_a_folder_says_it_is_a_folder(tmp_path):
    save_motion(side_walk(10), tmp_path / "clip.npz")
    (tmp_path / "adir").mkdir()
    result = run_cli("render", "clip.npz", "-o", "adir", cwd=tmp_path)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1 and len(lines) == 1 and "is a folder" in lines[0], result.stderr
    assert list((tmp_path / "adir").iterdir()) == []


def test_cli_render_converts_to_bvh_and_json(tmp_path):
    save_motion(side_walk(10), tmp_path / "clip.npz")
    for out in ("walk.bvh", "walk.json"):
        result = run_cli("render", "clip.npz", "-o", out, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    assert (tmp_path / "walk.bvh").read_text().startswith("HIERARCHY\nROOT pelvis\n")
    assert json.loads((tmp_path / "walk.json").read_text())["frames"] == 10
