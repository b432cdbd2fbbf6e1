"""Type stubs of neffkit (the names are a contract: issue 18)."""

import os
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy

from . import bir as bir

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

def diff(
    a: Union[str, "os.PathLike[str]", bytes, bytearray],
    b: Union[str, "os.PathLike[str]", bytes, bytearray],
    time: bool = True,
    max_fields: int = 1000,
) -> Dict[str, Any]:
    """What changed between two NEFFs: the dict of ``neff diff --json`` (docs/json.md), with
    ``same``, ``header``, ``members``, ``manifests``, ``engines`` and ``time`` (None when
    ``time=False``). Raises ContainerError / KelfError naming the side (A or B) and where."""
    ...

class RunError(NeffError):
    """``run`` stopped: a missing, extra or mis-shaped input (named with the expected dtype and
    shape), an operation without semantics (subgraph, engine, slot), a DMA outside a tensor."""

def run(
    neff: Union[str, "os.PathLike[str]", bytes, bytearray],
    inputs: Optional[Dict[str, Any]] = None,
    *,
    random_seed: Optional[int] = None,
    verify: bool = True,
) -> Dict[str, Any]:
    """Execute the NEFF on the CPU (the functional model, docs/run.md): ``{output name:
    numpy.ndarray}``; bf16 / fp8 tensors cross as float32. Needs numpy."""

def open(source: Union[str, "os.PathLike[str]", bytes, bytearray], verify: bool = True) -> "Neff":
    """Parse a NEFF from a path or from the file's bytes.

    ``verify=False`` does not check the header hash (``neff --no-verify``). Raises
    ``NeffIOError`` when the file does not read and ``ContainerError`` when it is not a valid NEFF,
    with the CLI's message (``"cut.neff: truncated header: ..."``).
    """

def scan_one(
    source: Union[str, "os.PathLike[str]", bytes, bytearray],
    path: Optional[str] = None,
    verify: bool = True,
    load: bool = True,
    sim: bool = False,
) -> Dict[str, Any]:
    """One row of ``neff scan`` for one file (docs/json.md "neff scan rows"): path, size, sha256,
    header fields, compiler build, target, per-engine instruction counts, opcode histogram, DMA
    queues and bytes, ``load_ok``, with ``sim=True`` the simulated span.

    Never raises for a broken or hostile file: the row carries ``error_stage`` and ``error``.
    ``path`` labels the row (default: the path given, or ``"<bytes>"``); ``verify=False`` skips
    the hash check, ``load=False`` the runtime load. The dict equals the JSON line ``neff scan``
    writes for the same file.
    """

def scan_schema() -> bytes:
    """A Parquet file of no rows with the schema of ``neff scan --parquet`` (docs/json.md):
    ``pyarrow.parquet.read_schema(pyarrow.BufferReader(neffkit.scan_schema()))`` gives the column
    types rows from ``scan_one`` are written with elsewhere (examples/ray_scan.py)."""

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
    def slots(self, subgraph: str, engine: str) -> "numpy.ndarray":
        """The whole slots of one engine stream as an (n, 64) uint8 numpy array that views the
        NEFF's buffer without copying (read-only; keeps the Neff alive). Needs numpy."""
    def load(self, device_model: Optional[str] = None) -> "LoadedModel":
        """Load like the runtime: every engine lowered, assembled and staged (``neff load``).
        ``device_model``: ``"spec"`` or ``"runtime"`` (default: runtime for trn2 NEFFs, spec for
        the others). The GIL is released while it runs. ``LoadError`` with the CLI's message."""
    def sim(
        self,
        device_model: Optional[str] = None,
        subgraph: Optional[str] = None,
        max_steps: int = ...,
    ) -> Dict[str, Any]:
        """Simulate the loaded program (``neff sim --json``): spans, per-engine time, queues,
        classes, critical path; ``deadlock`` is None or the wait cycle. Releases the GIL."""

class Engine:
    """One engine of a loaded subgraph."""

    @property
    def engine(self) -> str:
        """``pe``, ``act``, ``pool``, ``dve`` or ``sp``."""
    @property
    def eng_type(self) -> int:
        """The runtime's engine number (PE=0, ACT=1, POOL=2, DVE=3, SP=4)."""
    @property
    def source_slots(self) -> int:
        """Source slots in the NEFF's stream."""
    @property
    def image(self) -> bytes:
        """The staged image (PREAMBLE, MAIN, POSTAMBLE, FUNCTION): what ``neff load --out`` writes."""
    @property
    def base(self) -> int:
        """The device address the image is staged at."""
    @property
    def regions(self) -> Dict[str, Dict[str, int]]:
        """``{"preamble", "model_switch", "main", "postamble", "function"}``, each ``{"offset", "size", "slots"}``."""
    @property
    def patches(self) -> List[Dict[str, Any]]:
        """The patch rows ``[{"offset", "count", "type", "section"}]``."""
    def report(self) -> Dict[str, Any]:
        """The engine's whole ``neff load --json`` entry."""

class Subgraph:
    """One loaded subgraph."""

    @property
    def name(self) -> str: ...
    @property
    def engines(self) -> List[Engine]:
        """Its engines, in EngineType order (PE, ACT, POOL, DVE, SP), as every report shows them."""

class LoadedModel:
    """A NEFF loaded the way the runtime loads it (from ``Neff.load``)."""

    @property
    def device_model(self) -> str:
        """``spec`` or ``runtime``."""
    @property
    def subgraphs(self) -> List[Subgraph]: ...
    def report(self) -> Dict[str, Any]:
        """The whole ``neff load --json`` document."""
    def ip(self, engine: str, device_addr: int, subgraph: Optional[str] = None) -> Dict[str, Any]:
        """Device address -> NEFF instruction: ``{"device_ip", "neff_ip", "section", "text"}``, plus
        ``"runtime_error"`` when the runtime would refuse it (``neff ip``). ``IpError`` with the runtime's message when it maps to none."""
    def ip_reverse(self, engine: str, neff_ip: int, subgraph: Optional[str] = None) -> Dict[str, Any]:
        """NEFF IP (1-based) -> ``{"neff_ip", "section", "device_start", "device_end", "text"}``,
        or ``{"neff_ip", "deleted": True, "text"}`` (``neff ip --reverse``)."""

class ProfileError(NeffError):
    """A device profile (raw capture or JSON report) does not read: the message names the byte
    offset, metadata field or JSON pointer."""

class Profile:
    """A device profile read by ``open_profile``: facts, summary and the events as numpy
    structured arrays (``neff profile --jsonl``'s field names; text fields are codes into
    ``names``; -1 where a row has no value)."""

    kind: str
    """``"capture"`` or ``"report"``."""
    facts: Optional[Dict[str, Any]]
    """A capture's ``neff profile --json`` ``capture`` object (format, runtime, driver,
    collectives, instance_type, neff_name, neff_uuid, time_origin, dma_aligned); a report's
    NEFF header (neff_uuid, neff_hash, neff_name)."""
    summary: List[Dict[str, Any]]
    """``neff profile --json``'s ``subgraphs``: span, per engine busy / waiting / idle, DMA queues."""
    names: Dict[str, List[str]]
    """The texts of the code fields ``subgraph``, ``engine``, ``label``, ``opcode``."""
    tables: Dict[str, numpy.ndarray]
    """The four structured arrays by kind."""
    @property
    def instructions(self) -> numpy.ndarray:
        """subgraph, engine, label, opcode, pc, neff_slot, timestamp, duration, evt_wait_time,
        crc_in, crc_out (ns)."""
    @property
    def dma(self) -> numpy.ndarray:
        """subgraph, dma_engine, dma_queue, size, timestamp, duration, crc."""
    @property
    def semaphores(self) -> numpy.ndarray:
        """subgraph, index, value, timestamp."""
    @property
    def throttle(self) -> numpy.ndarray:
        """subgraph, k, type, n, timestamp, duration."""
    def text(self, field: str, codes: Any) -> numpy.ndarray:
        """The texts of a code field's values (None for -1)."""
    def to_arrow(self, kind: str = "instructions") -> Any:
        """The events of ``kind`` as a ``pyarrow.Table`` (code fields dictionary-encoded, -1 as
        null). Needs pyarrow."""

def open_profile(source: Union[str, "os.PathLike[str]", bytes, bytearray]) -> Profile:
    """Read a raw capture (``.ntff``, plain or gzip) or a neuron-profile JSON report, told by
    content. Raises ProfileError naming where. Needs numpy."""
