"""The ranges of the numbers a user gives: one sentence for a value outside its range.

The command line, the configuration dataclasses and the library functions share these checks, so a
number given as an option, as a `--set` override or in a Python call is refused the same way, before
any work starts:

- `check_range(name, value, low, high)`: a finite number between `low` and `high` (either end may be
  open, or absent);
- `check_fields(config, low, high)`: `check_range` for every field of a dataclass of numbers (loss
  weights, dropout rates);
- `check_seed(name, value)`: a whole number from 0 to 2**63 − 1, the seeds every random number
  generator stickgen uses (NumPy's and PyTorch's) accepts;
- `check_sampling(steps, guidance)`: the sampler's ODE steps (1–200) and classifier-free guidance
  scale (0–20), the same for `generate` and `eval run`; their defaults `DEFAULT_STEPS` and
  `DEFAULT_GUIDANCE`, and `GUIDANCE_UNTIL`, the point of the path after which the sampler no longer
  guides.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from stickgen.errors import StickgenError

MAX_SEED = 2**63 - 1
MAX_STEPS = 200
MAX_GUIDANCE = 20.0
# The sampler's defaults, shared by `generate`, `story`, `edit`, the studio and `eval run`
# (docs/prompt-suite.md has how they were chosen).
DEFAULT_STEPS = 16
DEFAULT_GUIDANCE = 3.5
# The sampler guides while t < GUIDANCE_UNTIL and takes the rest of the path unguided (one network
# pass per step instead of two): the last 6 of 16 steps, where the motion is settled and only its
# detail is left to draw. Guided over less of the path, the motion follows the text best with a
# stronger scale (3.5 here, 2.5 when every step was guided). 0.625 follows prompts as 0.75 did and
# costs 27 network evaluations instead of 29 (docs/prompt-suite.md).
GUIDANCE_UNTIL = 0.625


def check_range(
    name: str,
    value: float,
    low: float | None = None,
    high: float | None = None,
    *,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """Return `value` if it is finite and within the range, else raise one `StickgenError` sentence.

    `name` is what the user wrote (`--guidance`, `optim.lr`); `open_low` / `open_high` leave an end out
    of the range (`lr` > 0, `ema_decay` < 1).
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise StickgenError(f"{name} must be a finite number, not {_show(value)}.")
    below = low is not None and (value <= low if open_low else value < low)
    above = high is not None and (value >= high if open_high else value > high)
    if below or above:
        allowed = _describe(low, high, open_low, open_high)
        raise StickgenError(f"{name} must be {allowed}, not {_show(value)}.")
    return value


def check_fields(config: Any, low: float | None = None, high: float | None = None) -> None:
    """`check_range` for every field of the dataclass instance `config`, named by the field."""
    for field in dataclasses.fields(config):
        check_range(field.name, getattr(config, field.name), low, high)


def check_seed(name: str, value: int) -> int:
    """Return `value` if it is a seed (a whole number from 0 to 2**63 − 1), else raise one sentence."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise StickgenError(f"{name} must be a whole number from 0 to 2**63 − 1 ({MAX_SEED}), not {value}.")
    return value


def check_sampling(steps: int, guidance: float) -> None:
    """One sentence unless 1 ≤ steps ≤ MAX_STEPS and 0 ≤ guidance ≤ MAX_GUIDANCE (finite)."""
    check_range("--steps", steps, 1, MAX_STEPS)
    check_range("--guidance", guidance, 0.0, MAX_GUIDANCE)


def _describe(low: float | None, high: float | None, open_low: bool, open_high: bool) -> str:
    if low is not None and high is not None:
        if not (open_low or open_high):
            return f"between {_show(low)} and {_show(high)}"
        return f"in {'(' if open_low else '['}{_show(low)}, {_show(high)}{')' if open_high else ']'}"
    if low is not None:
        return f"greater than {_show(low)}" if open_low else f"at least {_show(low)}"
    return f"less than {_show(high)}" if open_high else f"at most {_show(high)}"


def _show(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
