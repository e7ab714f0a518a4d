"""The `stickgen` command line: thin wrappers that parse options and call the library.

Each command imports what it needs inside its body, so `stickgen --help` answers without importing
torch or sentence-transformers. Written paths go to stdout, progress and diagnostics to stderr.
A `StickgenError` (a problem with the user's input) becomes one sentence and exit code 1.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from stickgen import __version__
from stickgen.errors import StickgenError
from stickgen.ranges import DEFAULT_GUIDANCE, DEFAULT_STEPS

app = typer.Typer(
    name="stickgen",
    help="Turn a sentence into an animated stick figure; train, render and inspect motion.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"stickgen {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Turn a sentence into an animated stick figure; train, render and inspect motion."""


# generate's and story's --candidates (stickgen.generation.candidates_for)
Candidates = Annotated[
    int | None,
    typer.Option(
        help="Motions drawn for each one kept, 1–16: the one whose planned actions the network recognises "
        "best is kept (default: as many as fit in the frames of one 10 s clip: 3 for a 3 s clip, 2 for "
        "5 s, 1 from 5.1 s; a story counts each window).",
        show_default=False,
    ),
]


@app.command()
def info(
    file: Annotated[
        Path | None,
        typer.Argument(help="A motion clip: .npz, .json or a .bvh stickgen wrote.", show_default=False),
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            help="A model config (configs/model/*.yaml), a training config or a checkpoint folder.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Describe a motion clip: frames, duration, fps, texts, action spans, environment, bounding box.

    With --model, print the parameters per part and in total of a model config or checkpoint instead.
    """
    if (file is None) == (model is None):
        raise StickgenError("Give either a motion clip FILE or --model CONFIG, not both and not neither.")
    if model is not None:
        from stickgen.checkpoint import describe_model

        typer.echo(describe_model(model))
        return
    from stickgen.motion import describe, load_motion

    typer.echo(describe(load_motion(file)))


@app.command()
def render(
    clip: Annotated[Path, typer.Argument(help="A motion clip: .npz or .json.", show_default=False)],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", help="Output file; its suffix picks the format.", show_default=False),
    ],
    theme: Annotated[str, typer.Option(help="Colour theme: light, dark, paper or blueprint.")] = "light",
    size: Annotated[str, typer.Option(help="Image size WxH in pixels (per frame).")] = "384x384",
    caption: Annotated[
        str | None, typer.Option(help="Text under the figure, e.g. the prompt.", show_default=False)
    ] = None,
    trail: Annotated[bool, typer.Option("--trail", help="Draw the pelvis path of the last second.")] = False,
    every: Annotated[
        int | None, typer.Option(help="Filmstrip (.png): draw every K-th frame (default: 8 frames).", min=1)
    ] = None,
) -> None:
    """Render a clip to .gif, .mp4 or a .png filmstrip, or convert it to .bvh, .json or .npz.

    Frames stream to the file, so a clip of any length renders in little memory; a clip longer than a
    minute shows a progress bar.
    """
    from stickgen.motion import load_motion
    from stickgen.render import parse_size, save

    motion = load_motion(clip)
    options = {"theme": theme, "size": parse_size(size), "caption": caption, "trail": trail, "every": every}
    with _done_of_total_bar("render", "frame") as progress:
        long = motion.num_frames / motion.fps > LONG_RENDER_SECONDS
        typer.echo(save(motion, output, progress=progress if long else None, **options))


LONG_RENDER_SECONDS = 60.0  # `render` shows a progress bar for clips longer than this


@app.command()
def generate(
    text: Annotated[
        str, typer.Argument(help='What the figure does, e.g. "a person jumps".', show_default=False)
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Output file; its suffix picks the format (default: PROMPT.gif).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option(help="Noise seed, 0 to 2**63 − 1: the same seed gives the same motion.")
    ] = 0,
    seconds: Annotated[
        float | None,
        typer.Option(help="Duration, 0.5–20 s (default: suited to the prompt, 3–10 s).", show_default=False),
    ] = None,
    n: Annotated[
        int,
        typer.Option(
            "-n",
            help="Samples, 1–64: a captioned grid (.gif/.mp4/.png) or numbered files; sample k (from 0) "
            "is what --seed + k gives alone.",
        ),
    ] = 1,
    guidance: Annotated[
        float, typer.Option(help="Classifier-free guidance scale, 0–20 (1 = none).")
    ] = DEFAULT_GUIDANCE,
    steps: Annotated[
        int, typer.Option(help="ODE steps, 1–200; two network evaluations each with guidance.")
    ] = DEFAULT_STEPS,
    actions: Annotated[
        str | None,
        typer.Option(
            help='Per-frame action timeline in seconds, e.g. "walk:0-2,jump:2-3". Spans must not overlap '
            "or end after --seconds; gaps are free motion. Without --seconds the clip ends with the "
            "last span (at most 20 s). Or actions in order by name, e.g. \"walk, jump\", each a share "
            "of the clip in proportion to its typical length. A prompt whose words name no action is "
            "read by meaning, a guess that stickgen prints in this form, to be corrected here. With "
            "--after, --start or --end: the new motion's actions.",
            show_default=False,
        ),
    ] = None,
    camera: Annotated[
        str | None,
        typer.Option(
            help="Camera track: static, follow, pan, zoom_in or zoom_out (default: automatic).",
            show_default=False,
        ),
    ] = None,
    environment: Annotated[
        str | None,
        typer.Option(
            help="earth, moon, mars, underwater, ice, snow, wind or zero_g (default: from the text; a "
            "prompt that names another place is refused).",
            show_default=False,
        ),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="A checkpoint folder (default: the bundled model).", show_default=False),
    ] = None,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    theme: Annotated[str, typer.Option(help="Colour theme: light, dark, paper or blueprint.")] = "light",
    plan: Annotated[
        str,
        typer.Option(
            help="Where the action timeline comes from when --actions is not given: words (the actions the "
            "prompt names), model (the network's own action head reads the text), auto (the words, "
            "else the actions the prompt means, else model) or none (the text alone, each part of the prompt "
            "over an equal share of the clip).",
        ),
    ] = "auto",
    candidates: Candidates = None,
    then: Annotated[
        list[str] | None,
        typer.Option(
            help="What the figure does next (repeatable): one continuous clip, each part for --seconds "
            "(default: suited to its text, up to 120 s each). See docs/editing.md.",
            show_default=False,
        ),
    ] = None,
    after: Annotated[
        Path | None,
        typer.Option(
            help="Continue this clip (.npz, .json or a .bvh stickgen wrote): the result is the clip, kept "
            "unchanged, followed by the new motion.",
            show_default=False,
        ),
    ] = None,
    start: Annotated[
        Path | None,
        typer.Option(help="Begin at the last pose of this clip.", show_default=False),
    ] = None,
    end: Annotated[
        Path | None,
        typer.Option(help="End at the first pose of this clip.", show_default=False),
    ] = None,
) -> None:
    """Turn a sentence into an animated stick figure (a looping GIF by default).

    The prompt needs at least one letter. The text encoder reads English: a prompt in which fewer than
    half the letters are a-z still runs, with a warning.
    """
    from stickgen.generation import output_paths

    paths = output_paths(text, output, n)  # checked before any work, so a bad path fails at once
    if then or after is not None or start is not None or end is not None:
        if n != 1:
            raise StickgenError("-n cannot be combined with --then, --after, --start or --end.")
        _camera_mode(camera)
        from stickgen.editing import compose
        from stickgen.motion import load_motion

        clips = {
            k: None if v is None else load_motion(v)
            for k, v in (("after", after), ("start", start), ("end", end))
        }
        motion = compose(
            text, then=then or (), seconds=seconds, environment=environment, seed=seed, steps=steps,
            guidance=guidance, plan=plan, checkpoint=checkpoint, device=device, candidates=candidates,
            actions=actions, **clips,
        )  # fmt: skip
        remedy = "other words change it" if then else "give --actions to change it"
        _say_how_segments_were_read(motion, plan, remedy)
        typer.echo(_save_edited(motion, paths[0], theme=theme, camera=camera))
        return
    from stickgen.generation import generate_batch, sample_captions
    from stickgen.render import save, save_grid

    _warn_about_language(text)

    motions = generate_batch(
        text, n, seed=seed, seconds=seconds, checkpoint=checkpoint, guidance=guidance, steps=steps,
        actions=actions, camera=camera, environment=environment, device=device, plan=plan,
        candidates=candidates,
    )  # fmt: skip
    _say_how_it_was_read(motions, plan)
    if len(paths) == 1 and n > 1:
        captions = sample_captions(motions[0].texts[0], n, seed)
        typer.echo(save_grid(motions, paths[0], captions=captions, theme=theme))
        return
    for motion, path in zip(motions, paths, strict=True):
        typer.echo(save(motion, path, theme=theme, caption=motion.texts[0]))


def _camera_mode(camera: str | None) -> str | None:
    """The camera mode of a --camera value (None: automatic); one sentence for an unknown one."""
    from stickgen.generation import CAMERA_CHOICES

    if camera is None:
        return None
    if camera.replace("-", "_") not in CAMERA_CHOICES:
        raise StickgenError(f"Unknown camera {camera!r}; use one of {', '.join(CAMERA_CHOICES)}.")
    return camera.replace("-", "_")


def _save_edited(motion, path: Path, *, theme: str, camera: str | None = None) -> Path:
    """Save an edited, continued or told clip, with the camera track asked for; a short caption."""
    from stickgen.render import save

    mode = _camera_mode(camera)
    if mode is not None:
        from stickgen.synth.camera import camera_track

        motion = motion.replace(camera=camera_track(motion.joints, mode, motion.fps)[0])
    caption = motion.texts[-1] if motion.texts and len(motion.texts[-1]) <= 100 else None
    return save(motion, path, theme=theme, caption=caption)


@app.command()
def edit(
    clip: Annotated[
        Path, typer.Argument(help="A motion clip: .npz, .json or a .bvh stickgen wrote.", show_default=False)
    ],
    text: Annotated[
        str, typer.Argument(help='What the part does, e.g. "a person waves".', show_default=False)
    ],
    part: Annotated[
        str, typer.Option(help="upper, lower, arms, legs, left_arm or right_arm.", show_default=False)
    ],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", help="Output file; its suffix picks the format.", show_default=False),
    ],
    start: Annotated[
        float | None,
        typer.Option(
            "--from",
            help="Start of the edited span, s (default: the clip's start); each edge may move up to "
            "0.2 s inward, to where the part moves slowest.",
            show_default=False,
        ),
    ] = None,
    stop: Annotated[
        float | None,
        typer.Option("--to", help="End of the edited span, s (default: the clip's end).", show_default=False),
    ] = None,
    actions: Annotated[
        str | None,
        typer.Option(
            help='The span\'s actions instead of how TEXT reads: names ("wave") or spans in seconds from '
            'the span\'s start ("wave:0-2,clap:2-3").',
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Noise seed, 0 to 2**63 − 1.")] = 0,
    guidance: Annotated[float, typer.Option(help="Classifier-free guidance scale, 0–20.")] = DEFAULT_GUIDANCE,
    steps: Annotated[int, typer.Option(help="ODE steps, 1–200.")] = DEFAULT_STEPS,
    plan: Annotated[str, typer.Option(help="auto, words, model or none (as for generate).")] = "auto",
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="A checkpoint folder (default: the bundled model).", show_default=False),
    ] = None,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    theme: Annotated[str, typer.Option(help="Colour theme: light, dark, paper or blueprint.")] = "light",
) -> None:
    """Regenerate one body part of a clip so that it follows TEXT, within --from/--to if given.

    Every other joint and frame is kept exactly; the edited joints keep the clip's bone lengths and join
    the kept ones without a jump (docs/editing.md).
    """
    from stickgen.generation import output_paths

    path = output_paths(text, output, 1)[0]
    from stickgen.editing import edit_motion, guessed_edit_reading, part_joints
    from stickgen.generation import close_note
    from stickgen.motion import load_motion

    part_joints(part)  # an unknown part is named before the clip is read
    _warn_about_language(text)
    motion = edit_motion(
        load_motion(clip), text, part=part, start=start, stop=stop, actions=actions, seed=seed,
        guidance=guidance, steps=steps, plan=plan, checkpoint=checkpoint, device=device,
    )  # fmt: skip
    read = guessed_edit_reading(motion, plan)
    if read is not None:  # as `generate` says a guessed reading; seconds from the span's start
        close = close_note(motion.source["edited"].get("close"), read)
        typer.echo(f'stickgen: read as --actions "{read}" (seconds from the span\'s start){close}; give '
                   "--actions to change it.", err=True)  # fmt: skip
    typer.echo(_save_edited(motion, path, theme=theme))


@app.command()
def story(
    file: Annotated[
        Path,
        typer.Argument(
            help="A text file, one segment a line: SECONDS TEXT, or TEXT, either maybe followed by "
            "| ACTIONS; # comments.",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", help="Output file; its suffix picks the format.", show_default=False),
    ],
    seed: Annotated[int, typer.Option(help="Noise seed, 0 to 2**63 − 1.")] = 0,
    guidance: Annotated[float, typer.Option(help="Classifier-free guidance scale, 0–20.")] = DEFAULT_GUIDANCE,
    steps: Annotated[int, typer.Option(help="ODE steps, 1–200.")] = DEFAULT_STEPS,
    plan: Annotated[str, typer.Option(help="auto, words, model or none (as for generate).")] = "auto",
    candidates: Candidates = None,
    camera: Annotated[
        str | None,
        typer.Option(help="Camera track: static, follow, pan, zoom_in or zoom_out.", show_default=False),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="A checkpoint folder (default: the bundled model).", show_default=False),
    ] = None,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    theme: Annotated[str, typer.Option(help="Colour theme: light, dark, paper or blueprint.")] = "light",
) -> None:
    """Tell a story: one continuous clip in which each line of FILE happens in turn (up to 10 minutes).

    A line without SECONDS lasts as long as generate would make it. A line may end with | and its
    actions, which its text then need not name: "| sit_down", "| walk, sit_down" (in order) or
    "| walk:0-2,sit_down:2-4" (seconds from the line's start) (docs/editing.md).
    """
    from stickgen.generation import output_paths

    path = output_paths(file.stem, output, 1)[0]
    _camera_mode(camera)
    from stickgen.editing import read_story, tell_story

    segments = read_story(file)
    motion = tell_story(
        segments, seed=seed, guidance=guidance, steps=steps, plan=plan, checkpoint=checkpoint, device=device,
        candidates=candidates,
    )  # fmt: skip
    _say_how_segments_were_read(motion, plan, 'end its line with "| ACTIONS" to change it')
    typer.echo(_save_edited(motion, path, theme=theme, camera=camera))


eval_app = typer.Typer(
    help="Measure a model the way the text-to-motion field does (docs/evaluation.md).", no_args_is_help=True
)
app.add_typer(eval_app, name="eval")


@eval_app.command("train-evaluator")
def eval_train_evaluator(
    data: Annotated[Path, typer.Option(help="A dataset folder.", show_default=False)],
    out: Annotated[Path, typer.Option(help="The evaluator folder to write.", show_default=False)],
    encoder: Annotated[
        str | None,
        typer.Option(help="Sentence encoder name or folder (default: all-MiniLM-L6-v2).", show_default=False),
    ] = None,
    max_steps: Annotated[
        int, typer.Option(help="Training steps at most; early stopping on val ends sooner.", min=1)
    ] = 1200,
    seed: Annotated[
        int, typer.Option(help="Seed of initialisation, data order and captions (0 to 2**63 − 1).")
    ] = 0,
) -> None:
    """Train the text–motion evaluator and action classifier on the train split (stopping on val)."""
    from stickgen.evaluator import EvaluatorConfig, train_evaluator_on_dataset

    config = EvaluatorConfig(max_steps=max_steps, seed=seed)
    typer.echo(train_evaluator_on_dataset(data, out, encoder=encoder, config=config))


@eval_app.command("run")
def eval_run(
    data: Annotated[Path, typer.Option(help="A dataset folder; its test split is used.", show_default=False)],
    out: Annotated[Path, typer.Option(help="The report folder to write.", show_default=False)],
    evaluator: Annotated[
        Path | None,
        typer.Option(
            help="An evaluator folder (eval train-evaluator) (default: the bundled one, trained on the "
            "default dataset with all-MiniLM-L6-v2).",
            show_default=False,
        ),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="A checkpoint folder (default: the bundled model).", show_default=False),
    ] = None,
    seeds: Annotated[int, typer.Option(help="Repetitions for the 95 % intervals, 1–100.", min=1)] = 3,
    steps: Annotated[int, typer.Option(help="ODE steps of the sampler, 1–200.", min=1)] = DEFAULT_STEPS,
    guidance: Annotated[float, typer.Option(help="Classifier-free guidance scale, 0–20.")] = DEFAULT_GUIDANCE,
    max_clips: Annotated[
        int, typer.Option(help="Use a fixed random subset of this many test clips (0 = all).", min=0)
    ] = 0,
    mm_texts: Annotated[int, typer.Option(help="Captions used for MultiModality.", min=1)] = 100,
    mm_repeats: Annotated[
        int, typer.Option(help="Generations per MultiModality caption, 2–1000.", min=2)
    ] = 10,
    plan: Annotated[
        str,
        typer.Option(
            help="Action timeline of the main generated row: none (the caption alone), words, model or "
            "auto, as in generate --plan.",
        ),
    ] = "none",
    as_generate: Annotated[
        bool,
        typer.Option(
            help="Also measure clips made as `stickgen generate` makes them (its default plan), as a "
            "second row.",
        ),
    ] = True,
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
) -> None:
    """Evaluate a model on the test split: FID, R-precision, physics, sanity checks; write a report."""
    from stickgen.evaluate import EvalOptions, run_evaluation

    options = EvalOptions(
        seeds=seeds, steps=steps, guidance=guidance, max_clips=max_clips, mm_texts=mm_texts,
        mm_repeats=mm_repeats, device=device, plan=plan, as_generate=as_generate,
    )  # fmt: skip
    paths = run_evaluation(
        checkpoint, data, evaluator, out, options=options, progress=lambda m: typer.echo(m, err=True)
    )
    for path in paths:
        typer.echo(path)


data_app = typer.Typer(help="Make and inspect motion datasets (docs/data.md).", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("synth")
def data_synth(
    out: Annotated[
        Path, typer.Option(help="The dataset folder to write (or to finish).", show_default=False)
    ],
    clips: Annotated[int, typer.Option(help="Number of clips, 1 to 10,000,000.", min=1)] = 20000,
    seed: Annotated[int, typer.Option(help="Seed, 0 to 2**63 − 1: the same seed gives the same bytes.")] = 0,
    workers: Annotated[
        int | None, typer.Option(help="Processes (default: all CPU cores).", min=1, show_default=False)
    ] = None,
) -> None:
    """Write a synthetic dataset; rerunning the same command resumes an interrupted run."""
    from tqdm import tqdm

    from stickgen.synth.build import synthesize_dataset

    # The bar waits half a second, so that a refused argument is the only line on stderr.
    with _resumable(), tqdm(total=clips, unit="clip", desc="synth", file=sys.stderr, delay=0.5) as bar:
        path = synthesize_dataset(out, clips=clips, seed=seed, workers=workers, progress=bar.update)
    typer.echo(path)


def _say_how_it_was_read(motions: list, plan: str) -> None:
    """One line on stderr per reading when the action timeline the motions followed is a guess
    (`generation.guessed_readings`), in the form --actions takes, so that a misread prompt can be put
    right by hand; samples read differently are named."""
    from stickgen.generation import close_note, guessed_readings

    read = guessed_readings(motions, plan)
    for spec, samples in read.items():
        named = ", ".join(map(str, samples))
        which = "" if len(read) == 1 else f" (sample{'s' * (len(samples) > 1)} {named})"
        close = close_note(motions[samples[0]].source.get("close"), spec)
        typer.echo(f'stickgen: read as --actions "{spec}"{which}{close}; give --actions to change it.',
                   err=True)  # fmt: skip


def _say_how_segments_were_read(motion, plan: str, remedy: str) -> None:
    """One line on stderr for each segment of a story or of --then, --after, --start or --end whose
    action timeline is a guess (`editing.guessed_segment_readings`), with how to put it right: in a
    story, the line's own "| ACTIONS"; with --then, other words; else --actions."""
    from stickgen.editing import guessed_segment_readings
    from stickgen.generation import close_note

    for number, text, spec, close in guessed_segment_readings(motion, plan):
        note = close_note(close, spec)
        typer.echo(f'stickgen: read segment {number} ("{text}") as "{spec}"{note}; {remedy}.', err=True)


def _warn_about_language(text: str) -> None:
    """One line on stderr when a prompt is mostly outside a–z (the text encoder reads English)."""
    from stickgen.text import language_warning

    warning = language_warning(text)
    if warning is not None:
        typer.echo(f"stickgen: warning: {warning}", err=True)


@contextlib.contextmanager
def _done_of_total_bar(desc: str, unit: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr, driven by a `progress(done, total)` callback.

    The bar appears at the first call, when the total is known, and not at all without one.
    """
    from tqdm import tqdm

    bars = []

    def progress(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit=unit, desc=desc, file=sys.stderr))
        bars[0].total = total
        bars[0].update(done - bars[0].n)  # redrawn at tqdm's own pace, not at every call

    try:
        yield progress
    finally:
        for bar in bars:
            bar.close()


@contextlib.contextmanager
def _resumable() -> Iterator[None]:
    """Ctrl-C in a command that resumes: say so in one line, and exit 130 as an interrupt does."""
    try:
        yield
    except KeyboardInterrupt:
        typer.echo("stickgen: interrupted; rerun the same command to resume.", err=True)
        raise typer.Exit(130) from None


@data_app.command("import")
def data_import(
    fmt: Annotated[
        str, typer.Argument(metavar="FORMAT", help="bvh, humanml3d, kit or ntu.", show_default=False)
    ],
    src: Annotated[
        Path,
        typer.Argument(
            help="A .bvh file or folder; a HumanML3D / KIT-ML root folder; a .skeleton file or folder.",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path, typer.Option(help="The dataset folder to write (or to finish).", show_default=False)
    ],
    view: Annotated[
        str,
        typer.Option(
            help="Projection: auto (side view of travel, else the plane of most limb "
            "motion), side or front (docs/importing.md)."
        ),
    ] = "auto",
    up: Annotated[
        str | None,
        typer.Option(help="The source's up axis: y, z, -y, -z, x or -x (default: y).", show_default=False),
    ] = None,
    scale: Annotated[
        float | None,
        typer.Option(
            help="Metres per source unit (default: guessed for BVH, the dataset's own unit otherwise).",
            show_default=False,
        ),
    ] = None,
    fps: Annotated[
        float | None,
        typer.Option(
            help="The source frame rate, for formats whose files do not say it.", show_default=False
        ),
    ] = None,
    text: Annotated[
        str | None,
        typer.Option(help="BVH: the description of files without a sidecar .txt.", show_default=False),
    ] = None,
    joint_map: Annotated[
        Path | None,
        typer.Option(help="BVH: a YAML joint map for a skeleton the names do not match.", show_default=False),
    ] = None,
    min_seconds: Annotated[
        float, typer.Option(help="Skip clips shorter than this, 0.04–10 s.", min=0.04)
    ] = 1.0,
    seed: Annotated[int, typer.Option(help="Seed of the train / val / test split (0 to 2**63 − 1).")] = 0,
    workers: Annotated[
        int | None, typer.Option(help="Processes (default: all CPU cores).", min=1, show_default=False)
    ] = None,
) -> None:
    """Import real motion data into a dataset; rerunning the same command resumes an interrupted run.

    Files that cannot be imported are skipped; the reasons are in DATASET/import_report.md.
    """
    from stickgen.importers import make_source
    from stickgen.importers.build import import_dataset, summary_lines
    from stickgen.importers.clips import ClipOptions
    from stickgen.importers.geometry import VIEWS

    if view not in VIEWS:
        raise StickgenError(f"Unknown view {view!r}; choose one of: {', '.join(VIEWS)}.")
    source = make_source(fmt, up=up, scale=scale, fps=fps, text=text, joint_map=joint_map)
    with _resumable(), _done_of_total_bar(f"import {fmt}", "file") as progress:
        result = import_dataset(
            source,
            src,
            out,
            options=ClipOptions(view=view, min_seconds=min_seconds),
            seed=seed,
            workers=workers,
            progress=progress,
        )
    for line in summary_lines(result.report):
        typer.echo(line, err=True)
    typer.echo(result.path)


@data_app.command("merge")
def data_merge(
    datasets: Annotated[list[Path], typer.Argument(help="Two or more dataset folders.", show_default=False)],
    out: Annotated[Path, typer.Option(help="The new dataset folder.", show_default=False)],
    weights: Annotated[
        str | None,
        typer.Option(
            help="One weight per dataset, 0–100, e.g. 2,1: how often its training clips appear "
            "(default all 1).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the draws for fractional weights (0 to 2**63 − 1).")] = 0,
) -> None:
    """Merge datasets into one; every clip keeps its split and statistics are recomputed (docs/data.md)."""
    from stickgen.merge import merge_datasets

    parsed = None if weights is None else [w.strip() for w in weights.split(",")]
    with _done_of_total_bar("merge", "clip") as progress:
        path = merge_datasets(datasets, out, weights=parsed, seed=seed, progress=progress)
    typer.echo(path)


@data_app.command("stats")
def data_stats(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder.", show_default=False)],
    check: Annotated[
        int | None,
        typer.Option(
            help="Run the physical checks on the first N clips (default: all).", min=1, show_default=False
        ),
    ] = None,
) -> None:
    """Counts per action and environment, clip lengths, and the physical checks with pass/fail."""
    from stickgen.dataset_report import stats_lines

    typer.echo("\n".join(stats_lines(dataset, check_clips=check)))


@data_app.command("preview")
def data_preview(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder.", show_default=False)],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="The grid to write: .gif, .mp4 or .png.")
    ] = Path("preview.gif"),
    n: Annotated[int, typer.Option("-n", "--n", help="Number of random clips, 1–100.", min=1)] = 12,
    seed: Annotated[int, typer.Option(help="Which random clips (0 to 2**63 − 1).")] = 0,
) -> None:
    """A grid of random clips with their descriptions."""
    from stickgen.dataset_report import preview

    typer.echo(preview(dataset, output, n=n, seed=seed))


@data_app.command("embed")
def data_embed(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder.", show_default=False)],
    encoder: Annotated[
        str, typer.Option(help="Sentence-transformers name or folder (docs/text.md).")
    ] = "all-MiniLM-L6-v2",
    device: Annotated[
        str, typer.Option(help="auto, cpu or cuda; auto runs the encoder on a GPU where there is one.")
    ] = "auto",
    parts: Annotated[
        bool,
        typer.Option(
            "--parts",
            help="Also embed each part of a description of several (\"walks, then sits\"), for training "
            "with text_parts.",
        ),
    ] = False,
) -> None:
    """Embed every description of a dataset once, into the persistent embedding cache."""
    from stickgen.batches import with_part_sentences
    from stickgen.dataset import Dataset
    from stickgen.generation import pick_device
    from stickgen.text import embed_texts

    where = pick_device(device)
    unique = sorted({t for clip in Dataset(dataset).all_texts() for t in clip})
    if parts:
        unique, _ = with_part_sentences(unique)
    vectors = embed_texts(unique, encoder, progress=True, device=where)
    typer.echo(f"{len(unique)} descriptions embedded by {encoder} ({vectors.shape[1]}-dim).", err=True)
    typer.echo(dataset)


@app.command()
def train(
    config: Annotated[
        Path, typer.Option(help="A training config, e.g. configs/train/small.yaml.", show_default=False)
    ],
    data: Annotated[
        Path, typer.Option(help="A dataset folder (stickgen data synth or import).", show_default=False)
    ],
    out: Annotated[
        Path, typer.Option(help="The run folder; rerunning with the same folder resumes.", show_default=False)
    ],
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set", help="Override a config key, e.g. --set steps=500 (repeatable).", show_default=False
        ),
    ] = None,
    minutes: Annotated[
        float | None,
        typer.Option(
            help="Stop after this many minutes with a checkpoint; rerun the same command to resume.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Train a model (docs/training.md); under torchrun, on several processes with DDP."""
    from stickgen.batches import load_training_data
    from stickgen.config import apply_overrides, load_yaml_config
    from stickgen.ranges import check_range
    from stickgen.trainer import TrainConfig, check_run_folder
    from stickgen.trainer import train as run_training

    train_config = apply_overrides(load_yaml_config(TrainConfig, config), set_ or [])
    if minutes is not None:
        check_range("--minutes", minutes, 0.0)
    check_run_folder(out)  # before the data, whose texts may take minutes to embed
    data_in = load_training_data(data, train_config.encoder, parts=train_config.text_parts > 0)
    result = run_training(train_config, data_in, out, minutes=minutes)
    if result.checkpoint is not None:
        typer.echo(result.checkpoint)


@app.command()
def average(
    checkpoints: Annotated[
        list[Path], typer.Argument(help="Two or more checkpoint folders of one model.", show_default=False)
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="The checkpoint folder to write.", show_default=False)
    ],
    dtype: Annotated[str, typer.Option(help="How the weights are stored: bfloat16 or float32.")] = "bfloat16",
) -> None:
    """Average the weights of checkpoints of one model (a checkpoint soup), e.g. the last checkpoints of
    two training stages that continue one another (docs/training.md)."""
    from stickgen.checkpoint import average_checkpoints

    typer.echo(average_checkpoints(list(checkpoints), output, dtype=dtype))


@app.command()
def serve(
    host: Annotated[
        str,
        typer.Option(help="Address to listen on; any other than 127.0.0.1 lets other machines use this one."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port, 0–65535 (0: a free one).")] = 8000,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="A checkpoint folder (default: the bundled model).", show_default=False),
    ] = None,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    queue: Annotated[
        int, typer.Option(help="Requests that may wait while one generates, 0–10000; more get 503.")
    ] = 8,
    batch: Annotated[
        int,
        typer.Option(
            help="Samples that waiting requests may share in one sampler call, 1–64 "
            "(1: one request at a time)."
        ),
    ] = 8,
    cors: Annotated[
        list[str] | None,
        typer.Option(
            help="A web origin allowed to call the API from its pages, e.g. http://localhost:3000 "
            "(repeatable; default: none).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the web studio and its JSON API (docs/serve.md) until Ctrl-C; prints the address.

    Needs the serve extra: pip install "stickgen\\[serve]".
    """
    from stickgen.serve.server import serve as run_server

    run_server(
        host=host,
        port=port,
        checkpoint=checkpoint,
        device=device,
        queue=queue,
        cors_origins=cors or (),
        batch=batch,
    )


_TERMINATED: list[int] = []


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM (`kill`, `timeout`, a container stopping) unwinds like Ctrl-C: temporary files go."""
    _TERMINATED.append(signum)
    raise KeyboardInterrupt


def _die_by(signum: int) -> None:
    """End the process by `signum` itself, once cleaned up, as a process that took no notice would: the
    caller (a shell, `timeout`, a supervisor) sees what stopped it."""
    signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)


def _os_error_sentence(error: OSError) -> str:
    """One sentence for an operating-system error on a user's path ("File name too long: …")."""
    name = str(error.filename) if error.filename is not None else ""
    if len(name) > 60:
        name = f"{name[:40]}…{name[-15:]}"
    reason = error.strerror or str(error)
    return f"{reason}: {name}." if name else f"{reason}."


def main() -> None:
    """Entry point of the `stickgen` console script.

    A command that fails or is interrupted leaves no output folder it made and left empty.
    """
    from stickgen.files import remove_made_folders

    signal.signal(signal.SIGTERM, _terminate)
    usage_errors, aborts = _parser_errors()
    try:
        # not standalone: the parser's own errors (a missing argument, an unknown option, a value of the
        # wrong type) come here to be said in one sentence, not in a box under a usage line
        code = app(standalone_mode=False)  # a command's return value (None), or the code of a typer.Exit
        # ended by SystemExit as in typer's standalone mode, with an interrupt's 130 or a typer.Exit's code
        raise SystemExit(code if isinstance(code, int) else 0)
    except usage_errors as e:
        if type(e).__name__ == "NoArgsIsHelpError":  # `stickgen`, `stickgen eval`: typer drew the help
            sys.exit(e.exit_code)
        _fail(f"stickgen: error: {_usage_sentence(e)}", e.exit_code)
    except aborts:  # end of input where the parser read it
        _fail("stickgen: interrupted.", 1)
    except SystemExit as e:  # how a command ends early, an interrupt's 130 included
        if e.code not in (0, None):
            remove_made_folders()
        if _TERMINATED:
            _die_by(_TERMINATED[0])
        raise
    except StickgenError as e:
        _fail(f"stickgen: error: {e}", 1)
    except KeyboardInterrupt:
        _fail("stickgen: interrupted.", 130)
    except OSError as e:
        _fail(f"stickgen: error: {_os_error_sentence(e)}", 1)


def _parser_errors() -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """The command-line parser's error and abort classes: typer's own, which carries click inside it, and
    click's, which typer used before (pyproject allows either)."""
    errors: list[type[Exception]] = [typer.TyperException] if hasattr(typer, "TyperException") else []
    aborts: list[type[Exception]] = [typer.Abort]
    try:
        import click
    except ImportError:
        pass
    else:
        errors.append(click.ClickException)
        aborts.append(click.exceptions.Abort)
    return tuple(errors), tuple(aborts)


def _usage_sentence(error: Exception) -> str:
    """The parser's message for a command line it cannot take, as one sentence that names the help to
    read, e.g. "No such option: --bogus (see stickgen generate -h)."."""
    message = " ".join(error.format_message().split()).rstrip(".")
    context = getattr(error, "ctx", None)
    where = f" (see {context.command_path} -h)" if context is not None else ""
    return f"{message}{where}."


def _fail(message: str, code: int) -> None:
    """Remove the folders the command made, say why it stopped, and exit with `code`; after a SIGTERM,
    whatever the interrupt it raised became on its way out (an error from code it stopped half-way),
    end by the signal instead, saying so."""
    from stickgen.files import remove_made_folders

    remove_made_folders()
    print("stickgen: interrupted." if _TERMINATED else message, file=sys.stderr)
    if _TERMINATED:
        _die_by(_TERMINATED[0])
    sys.exit(code)
