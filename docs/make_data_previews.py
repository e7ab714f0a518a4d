"""Remake the synthesizer previews of docs/data.md (docs/data/*.gif), one grid per group of actions.

    python docs/make_data_previews.py [--out docs/data] [--seed 0]

Each cell is one clip of the procedural synthesizer (`stickgen.synth.sampler.synthesize`) with one
action, random parameters, body and style, on earth unless the cell names a place, seen from the side
(or from the front where the action reads only that way), with the follow camera, its first 4 s.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from stickgen.clip_ops import trim
from stickgen.synth.actions import ACTION_BY_NAME
from stickgen.synth.sampler import plan_clip, synthesize

MAX_FRAMES = 100  # 4 s at 25 fps: the GIFs stay small

GROUPS: dict[str, list[str]] = {
    "locomotion": ["idle", "walk", "jog", "run", "sprint", "walk_backward"],
    "jumps": ["jump", "jump/front", "jump_forward", "hop", "hop/front", "leap"],
    "postures_gestures": ["sit_down", "sit_down", "stand_up", "wave/front", "wave", "idle/front"],
    "environments": ["jump", "jump@moon", "jump@underwater", "jump@zero_g", "walk@ice", "walk@wind"],
    "stepping": ["sidestep", "tiptoe", "march", "limp", "skip", "crawl", "climb", "swim", "jumping_jacks",
                 "spin", "stumble", "fall_down", "balance"],
    "floor": ["kneel", "lie_down", "get_up", "crouch", "squat", "push_up", "sit_up", "stretch", "bend_over",
              "lunge"],
    "expressive": ["clap", "point", "salute", "shrug", "bow", "cheer", "beckon", "look_around", "celebrate",
                   "dance"],
    "sports": ["punch", "kick", "block", "dodge", "throw", "catch", "swing_bat", "golf_swing",
               "shoot_basketball", "dribble", "kick_ball", "push", "pull", "lift"],
}  # fmt: skip


def cell(entry: str, seed: int, index: int):
    """One clip for "action[/view][@environment]" and its caption."""
    entry, _, place = entry.partition("@")
    name, _, view = entry.partition("/")
    spec = ACTION_BY_NAME[name]
    view = view or ("side" if "side" in spec.views else spec.views[0])
    plan = dataclasses.replace(
        plan_clip(seed, index), environment=place or "earth", view=view, actions=(name,), seconds=(4.0,),
        start_state=spec.starts[0], camera="follow", facing=1,
    )  # fmt: skip
    caption = name.replace("_", " ") + (f" ({view})" if view != "side" else "")
    caption += f", {place}" if place else ""
    return trim(synthesize(plan), 0, MAX_FRAMES), caption


def main() -> None:
    from stickgen.render import save_grid

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(Path(__file__).with_name("data")))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for group, entries in GROUPS.items():
        cells = [cell(e, args.seed, k) for k, e in enumerate(entries)]
        path = Path(args.out) / f"{group}.gif"
        save_grid([m for m, _ in cells], path, captions=[c for _, c in cells], columns=min(len(cells), 5),
                  cell_size=(140, 140))  # fmt: skip
        print(path)


if __name__ == "__main__":
    main()
