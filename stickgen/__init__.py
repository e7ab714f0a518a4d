"""stickgen: turn a sentence into an animated stick figure.

    import stickgen
    motion = stickgen.generate("a person jumps", seed=0)   # a stickgen.motion.Motion
    stickgen.render.save(motion, "jump.gif")

Importing this package is cheap: it pulls in neither torch nor sentence-transformers. Heavy modules
are imported by the functions that need them.
"""

__version__ = "0.1.0"


def generate(text: str, *, seed: int = 0, **options):
    """One motion for a prompt with the bundled model; see `stickgen.generation.generate`."""
    from stickgen.generation import generate as _generate

    return _generate(text, seed=seed, **options)
