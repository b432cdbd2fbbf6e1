"""neffkit: read, disassemble and load Neuron Executable File Format (NEFF) files.

Every answer comes from the neffkit Rust crates (the same code as the ``neff`` CLI): ``dict``
results have the shape of the matching ``neff ... --json`` output and error messages are the
CLI's. See ``neffkit/__init__.pyi`` for the typed API.
"""

from ._native import *  # noqa: F401,F403
from ._native import __version__  # noqa: F401
from . import bir  # noqa: F401
