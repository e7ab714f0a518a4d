"""stickgen: turn a sentence into an animated stick figure.

Importing this package is cheap: it pulls in neither torch nor sentence-transformers.
Heavy modules are imported by the functions that need them.
"""

__version__ = "0.1.0"
