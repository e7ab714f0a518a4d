"""The procedural motion synthesizer behind `stickgen data synth` (DESIGN §6).

Modules, one concept each:

- `body`: sampled proportions; `kinematics`: the angle-driven figure, forward kinematics and IK;
- `keyframes`: easing; `gait`: walking and running cycles; `physics` and `flight`: the environment's
  gravity, drag and wind, and ballistic jumps; `style`: energetic, tired, happy, sad;
- `actions`: one generator per action (read its docstring to add one); `context`: what they get;
- `transitions`: chaining actions; `camera`: camera tracks; `text`: the description grammar;
- `sampler`: (seed, index) → a labelled `Motion`; `checks`: the physical checks;
- `build`: writing a whole dataset in parallel, resumably.
"""
