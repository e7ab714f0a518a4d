"""Gestures: arm movements over a standing body (wave); the feet stay planted."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from stickgen.synth.actions.locomotion import idle
from stickgen.synth.context import ActionContext, ActionOutput, speed_word
from stickgen.synth.keyframes import keyframes

SIDE_NAMES = ("left", "right")


def wave(ctx: ActionContext) -> ActionOutput:
    """Raise one hand above the shoulder and swing the forearm side to side a few times, then lower it."""
    rng = ctx.rng
    side = int(rng.integers(2))
    rate = float(rng.uniform(1.5, 3.0)) * ctx.tempo  # waves per second
    reps = int(rng.integers(2, 6))
    raise_time, lower_time = ctx.dur(0.45), ctx.dur(0.45)
    wave_time = reps / rate
    body = idle(replace(ctx, seconds=raise_time + wave_time + lower_time + 0.5))
    track = body.track
    n = track.num_frames
    t = ctx.times(n)
    amp = 0.4 * ctx.style.amplitude
    if ctx.view == "front":
        # The raised arm's upper arm points out and up; the forearm stands up and swings across.
        sign = 1.0 if side == 0 else -1.0
        upper, fore = 2.0 * sign, np.pi * sign
    else:
        upper, fore = 2.3, 3.0
        sign = 1.0
    start = track.arms[0, side]
    key_t = [0.0, raise_time, raise_time + wave_time, raise_time + wave_time + lower_time]
    raised = np.array([upper, fore - upper])
    arm = keyframes(t, key_t, np.array([start, raised, raised, start]))
    waving = (t > raise_time) & (t < raise_time + wave_time)
    envelope = np.sin(np.pi * np.clip((t - raise_time) / wave_time, 0.0, 1.0))
    arm[:, 1] += sign * amp * envelope * np.sin(2.0 * np.pi * rate * (t - raise_time)) * waving
    arms = track.arms.copy()
    arms[:, side] = arm
    params = {"side": SIDE_NAMES[side], "limb": "arm", "reps": reps, "speed": speed_word(rate, 1.8, 2.6)}
    return ActionOutput(track.with_(arms=arms), params)
