"""`python -m stickgen` (and `torchrun -m stickgen`) run the command-line interface."""

from stickgen.cli import main

main()
