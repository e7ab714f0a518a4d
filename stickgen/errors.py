"""The one exception type a user can cause.

Library code raises `StickgenError` with one complete sentence for problems in the user's input
(a missing file, a bad shape, an unknown name). The CLI prints that sentence and exits non-zero;
anything else is a bug and keeps its traceback.
"""


class StickgenError(Exception):
    """A problem with the user's input, described in one sentence."""
