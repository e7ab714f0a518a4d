"""The action table: one generator per action, with the views, postures and words it declares.

How to add an action
====================

1. Write a generator `def my_action(ctx: ActionContext) -> ActionOutput` in the family module where
   it belongs (`locomotion.py`, `jumps.py`, `postures.py`, `gestures.py`, `stepping.py`, `floor.py`,
   `expressive.py`, `sports.py`). It must be a pure function of `ctx`: draw every random choice
   from `ctx.rng`, never from global state.

2. What `ctx` (`stickgen.synth.context.ActionContext`) gives you:
   - `ctx.body`: segment lengths (`thigh`, `shin`, `upper_arm`, ..., `leg`, `stand_height`);
   - `ctx.world`: gravity (m/s²), drag (1/s), wind (m/s along the canonical +x), `time_scale`,
     `floats` (zero gravity), `lean` (the torso lean that braces against the wind);
   - `ctx.style`: `tempo`, `amplitude`, `lean`, `head`, `bounce` dials;
   - `ctx.view` ("side" or "front"), `ctx.start_state` (the posture you start in: "stand", or the
     previous action's `end_state` such as "sit_chair" / "sit_floor", or just "sit" when the clip
     starts seated and the choice is yours), `ctx.seconds` (the length the sampler would like),
     `ctx.max_frames` (a hard limit: never return more frames);
   - helpers: `ctx.dur(s)` scales a voluntary duration by style and environment (always use it for
     timings of voluntary movement, never for flight: gravity sets that), `ctx.tempo` does the same for
     speeds, `ctx.frames(s)`, `ctx.times(n)`, and `ctx.standing(n)`, the standing pose with the
     world's wind lean and the style's posture already applied: start from it.

3. Build a `Track` (`stickgen.synth.kinematics`): root (T, 2), spine (T, 3), arms (T, 2, 2), legs
   (T, 2, 2), in the canonical frame where a side-view figure faces +x (the sampler turns it round to
   face left; never mirror yourself). Angle conventions are in `kinematics`'s docstring. Tools:
   - `keyframes.keyframes(t, key_times, key_values)`: eased key poses for any channel, with
     `smoothstep`, `smootherstep`, `ease_in`, `ease_out`, and `pulses` for repeated bumps;
   - `gait.Gait` + `gait.gait_track`: a whole walk or run with planted feet (see `locomotion.py`);
   - `kinematics.leg_ik(track, body, ankles)`: legs that put the ankles exactly at targets (T, 2, 2):
     plant feet by passing the same target in every frame of a stance; `kinematics.arm_ik` reaches
     hand targets; `standing_ankles` gives the standing foot positions;
   - `flight.jump_sequence(ctx, base, [flight.Jump(...)], rest, recover)` for anything that leaves
     the floor (see `jumps.py`): key poses (`flight.Pose`) for the crouch, take-off, mid-flight and
     landing; it plans the centre of mass (crouch, push, the closed-form ballistic of
     `physics.ballistic` under `ctx.world`'s gravity, drag and wind, braking), plants the support
     feet, holds the legs for `flight.HOLD` s after take-off and before touch-down, lands with the
     centre of mass at its take-off height, and lifts free feet off the floor without sweeping it.
     Take-off speeds come from `physics.takeoff_speed(earth_height)`: the same push everywhere, so
     gravity alone sets flight time and height. If your action's flights should be checked against
     2·v/g, add its name to `checks.JUMP_ACTIONS`.
   Rules the physical checks enforce: constant bone lengths come for free from the Track; no joint
   below the floor; a foot within 5 cm of the floor must not move horizontally faster than 0.3 m/s
   (lift it above 5 cm before it moves, set it down after it stops, plant it with IK); flights of
   jumping actions last 2·v/g of the environment.
   Start in the standing pose of `ctx.standing` at x = 0 (or, when `starts` lists another posture,
   in that posture as the action that ends in it leaves it), and end at rest in the posture you
   report as `end_state`: the sampler blends actions over ~0.3 s, which hides small differences but
   not a figure that ends mid-stride.

4. Return `ActionOutput(track, params, end_state)`. `params` is recorded in the clip's source and
   read by the text grammar: use "speed" ("slow"/"fast"), "reps", "side" ("left"/"right"), "travel"
   (+1 forward, −1 backward), "height" ("low"/"high") and "seat" where they apply, so descriptions get
   the right adverbs ("quickly", "twice", "with the left arm", "to the right", "high").

5. Add an `ActionSpec` (`stickgen.synth.actions.spec`) to the table of your module: `CORE_SPECS`
   below for the first families, `SPECS` in `stepping.py`, `floor.py`, `expressive.py` and
   `sports.py`. Give the action's name (from `stickgen.labels.ACTIONS`),
   the generator, `views` (which of "side" / "front" it reads well in; the sampler picks the clip's
   view from the first action's views and chains only actions that support it), `starts` (postures
   it can begin in) and `ends` (the posture it ends in, when not standing).
   Then give the action its words in `stickgen/vocabulary.py`: `words`, verb phrases in the base form
   that name it ("walk", "take a walk", "stroll"), most common first, and `descriptions`, phrases in
   the third person that describe the movement without naming it ("puts one foot in front of the
   other"). The grammar conjugates `words` ("walks", "walking"); irregular doubling is listed in
   `stickgen.vocabulary.DOUBLED`. Be generous with synonyms: prompts people write in their own words
   must land on the action.

6. Render a few clips (`stickgen data synth`, then `stickgen data preview`) and look at them, and run
   `tests/test_synth.py`: it checks every action in the table for the physical rules and the words.
"""

from __future__ import annotations

from stickgen.synth.actions import expressive, floor, gestures, jumps, locomotion, postures, sports, stepping
from stickgen.synth.actions.spec import SEATED, STAND, ActionSpec

CORE_SPECS: tuple[ActionSpec, ...] = (
    ActionSpec("idle", locomotion.idle, ("side", "front"), STAND),
    ActionSpec("walk", locomotion.walk, ("side",), STAND),
    ActionSpec("jog", locomotion.jog, ("side",), STAND),
    ActionSpec("run", locomotion.run, ("side",), STAND),
    ActionSpec("sprint", locomotion.sprint, ("side",), STAND),
    ActionSpec("walk_backward", locomotion.walk_backward, ("side",), STAND),
    ActionSpec("jump", jumps.jump, ("side", "front"), STAND),
    ActionSpec("jump_forward", jumps.jump_forward, ("side",), STAND),
    ActionSpec("hop", jumps.hop, ("side", "front"), STAND),
    ActionSpec("leap", jumps.leap, ("side",), STAND),
    ActionSpec("sit_down", postures.sit_down, ("side",), STAND, "sit"),
    ActionSpec("stand_up", postures.stand_up, ("side",), SEATED),
    ActionSpec("wave", gestures.wave, ("front", "side"), STAND),
)  # fmt: skip

# Families in their own modules declare their specs there (`SPECS`), beside their generators.
ACTION_SPECS: tuple[ActionSpec, ...] = (
    CORE_SPECS + stepping.SPECS + floor.SPECS + expressive.SPECS + sports.SPECS
)
ACTION_BY_NAME = {spec.name: spec for spec in ACTION_SPECS}
