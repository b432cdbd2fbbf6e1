"""neffkit: read, disassemble and load Neuron Executable File Format (NEFF) files.

Every answer comes from the neffkit Rust crates (the same code as the ``neff`` CLI): ``dict``
results have the shape of the matching ``neff ... --json`` output and error messages are the
CLI's. See ``neffkit/__init__.pyi`` for the typed API.
"""

from ._native import *  # noqa: F401,F403
from ._native import __version__  # noqa: F401
from . import bir  # noqa: F401
from .profile import Profile, open_profile  # noqa: F401
from ._native import run_npy as _run_npy


def run(neff, inputs=None, *, random_seed=None, verify=True):
    """Execute a NEFF on the CPU (neffkit's functional model; docs/run.md) and return its outputs.

    ``neff`` is a path or the file's bytes; ``inputs`` maps each input name to a numpy array of
    the tensor's shape and dtype (bf16 / fp8 tensors as float32, rounded to the tensor's type);
    with ``random_seed`` the inputs are random instead. Returns ``{name: numpy.ndarray}``, bf16 /
    fp8 outputs as float32. Raises ``neffkit.RunError`` naming the tensor (expected dtype and
    shape) or the instruction (subgraph, engine, slot) that stopped the run. Needs numpy.
    """
    import io

    import numpy as np

    npy = {}
    for name, array in (inputs or {}).items():
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
        npy[name] = buf.getvalue()
    out = _run_npy(neff, npy, verify=verify, random_seed=random_seed)
    return {name: np.load(io.BytesIO(b), allow_pickle=False) for name, b in out.items()}
