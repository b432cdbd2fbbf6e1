"""neffkit.bir: BIR JSON, the compiler's instruction IR (see ``neffkit/bir.pyi``)."""

from ._native import bir as _bir

read = _bir.read
Program = _bir.Program

__all__ = ["read", "Program"]
