"""Type stubs of neffkit.bir."""

import os
from typing import Any, Dict, List, Union

class Program:
    """A BIR program read from a file, with the verifier's findings."""

    @property
    def problems(self) -> List[Dict[str, Any]]:
        """The verifier's problems, ``[{"kind", "inst", "pointer", "message"}]`` (``neff bir check --json``)."""
    @property
    def functions(self) -> int: ...
    @property
    def instructions(self) -> int: ...
    @property
    def edges(self) -> int: ...
    def stats(self) -> Dict[str, Any]:
        """The statistics ``neff bir stats --json`` prints."""

def read(path: Union[str, "os.PathLike[str]"]) -> Program:
    """Read and verify a BIR JSON file; ``BirError`` / ``NeffIOError`` with the CLI's message."""
