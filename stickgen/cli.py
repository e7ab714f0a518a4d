"""The `stickgen` command line: thin wrappers that parse options and call the library.

Each command imports what it needs inside its body, so `stickgen --help` answers without importing
torch or sentence-transformers. Written paths go to stdout, progress and diagnostics to stderr.
A `StickgenError` (a problem with the user's input) becomes one sentence and exit code 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from stickgen import __version__
from stickgen.errors import StickgenError

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


@app.command()
def info(
    file: Annotated[
        Path | None, typer.Argument(help="A motion clip: .npz or .json.", show_default=False)
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option("--model", help="A model YAML config or a checkpoint folder.", show_default=False),
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


def main() -> None:
    """Entry point of the `stickgen` console script."""
    try:
        app()
    except StickgenError as e:
        print(f"stickgen: error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("stickgen: interrupted.", file=sys.stderr)
        sys.exit(130)
