"""Type stubs of neffkit (the names are a contract: issue 18)."""

import os
from typing import Any, Dict, List, Optional, Tuple, Union

__version__: str

class NeffError(Exception):
    """Base of every error neffkit raises; the message is the ``neff`` CLI's."""

class NeffIOError(NeffError):
    """A file could not be read (the message names it)."""

class ContainerError(NeffError):
    """The NEFF file itself is malformed: header, hash, gzip, tar, members or limits."""

class KelfError(NeffError):
    """A manifest (kelf, def.json, engine JSON) is malformed or inconsistent."""

class SelectionError(NeffError):
    """A subgraph, engine or member the call names is not in the NEFF (or not a name at all)."""

class LoadError(NeffError):
    """Lowering, assembling or staging an engine image failed."""

class IpError(NeffError):
    """A device address or NEFF IP does not map (the runtime's message)."""

class BirError(NeffError):
    """A BIR JSON file does not read."""

def open(source: Union[str, "os.PathLike[str]", bytes, bytearray], verify: bool = True) -> "Neff":
    """Parse a NEFF from a path or from the file's bytes.

    ``verify=False`` does not check the header hash (``neff --no-verify``). Raises
    ``NeffIOError`` when the file does not read and ``ContainerError`` when it is not a valid NEFF,
    with the CLI's message (``"cut.neff: truncated header: ..."``).
    """

class Instruction:
    """One instruction of an engine stream: one line of ``neff disasm`` (a 64-byte slot, or a
    PSEUDO_DMA_DIRECT2D with its continuation slot)."""

    @property
    def slot(self) -> int:
        """Index of its (first) slot in the stream (the number ``neff disasm`` prints before the colon)."""
    @property
    def offset(self) -> int:
        """Byte offset of the slot in its stream."""
    @property
    def member(self) -> str:
        """The member the slot was read from (``sg00/pool.bin``)."""
    @property
    def subgraph(self) -> str:
        """The subgraph (``sg00``)."""
    @property
    def engine(self) -> str:
        """The engine: ``pe``, ``act``, ``pool``, ``dve`` or ``sp``."""
    @property
    def opcode(self) -> int:
        """The opcode byte."""
    @property
    def mnemonic(self) -> Optional[str]:
        """The opcode's mnemonic (``EVENT_SEMAPHORE``); None for an unknown opcode."""
    @property
    def pseudo(self) -> bool:
        """Whether the opcode is a pseudo-instruction the loader lowers."""
    @property
    def text(self) -> str:
        """Exactly the ``neff disasm`` line without its ``N: `` slot prefix."""
    @property
    def fields(self) -> Dict[str, Any]:
        """The payload fields of the opcode's layout, in text order (ints, enum names, str,
        dicts for tensors / ADDR8 / extended events, lists for arrays)."""
    @property
    def bytes(self) -> bytes:
        """Its 64-byte slot, or 128 bytes for a PSEUDO_DMA_DIRECT2D with its continuation."""

class Neff:
    """A parsed NEFF file (from ``neffkit.open``)."""

    @property
    def header(self) -> Dict[str, Any]:
        """The header, as ``neff info --json`` prints it (pkg_version, data_size, hash, uuid, ...)."""
    @property
    def members(self) -> List[Tuple[str, int]]:
        """Every member as ``(path, size)``, in stored order."""
    def member(self, path: str) -> bytes:
        """The bytes of one member (``sg00/def.json``); ``SelectionError`` when absent."""
    def kbin(self, subgraph: Optional[str] = None) -> Dict[str, Any]:
        """Each subgraph's kbin, the ``neff kbin --json`` document ``{"subgraphs": [...]}``."""
    def disasm(
        self,
        subgraph: Optional[str] = None,
        engine: Optional[str] = None,
        legacy_events: bool = False,
    ) -> List[Instruction]:
        """Every slot of the selected engine streams (all when None), in subgraph then engine
        order (PE, ACT, POOL, DVE, SP). The GIL is released while the text is printed."""
