"""``neffkit.open_profile``: a device profile (raw capture ``.ntff``/``.ntff.gz`` or a
neuron-profile JSON report, told by content) with its events as numpy structured arrays.

The Rust reader (neff-profile, the code of ``neff profile``) hands each kind of event over as
one buffer of packed little-endian records; numpy views it in place, so no Python object is
built per row (decision D641). Fields carry ``neff profile --jsonl``'s names. Text fields
(``subgraph``, ``engine``, ``label``, ``opcode``) are codes into ``Profile.names[field]``; a
number the row lacks (``neff_slot`` of the runtime's own code, a report without crcs) is -1.
"""

from ._native import open_profile_native as _open_profile_native

#: The event kinds, as attributes of :class:`Profile` and keys of ``Profile.tables``.
KINDS = ("instructions", "dma", "semaphores", "throttle")

#: Fields that are codes into ``Profile.names``.
CODED = ("subgraph", "engine", "label", "opcode")

#: Fields where -1 means "none".
NULLABLE = ("engine", "neff_slot", "evt_wait_time", "crc_in", "crc_out", "crc")


class Profile:
    """One profile read: ``kind`` (``"capture"`` or ``"report"``), ``facts`` (a capture's
    ``neff profile --json`` ``capture`` object; a report's NEFF header), ``summary`` (its
    ``subgraphs`` list), ``names`` and one structured array per kind (``instructions``,
    ``dma``, ``semaphores``, ``throttle``)."""

    def __init__(self, raw):
        import numpy as np

        self.kind = raw["kind"]
        self.facts = raw["facts"]
        self.summary = raw["summary"]
        self.names = raw["names"]
        self.tables = {}
        for kind in KINDS:
            buf, rows, fields = raw["tables"][kind]
            dtype = np.dtype([(name, np.dtype(ty)) for name, ty in fields])
            self.tables[kind] = np.frombuffer(buf, dtype=dtype, count=rows)

    @property
    def instructions(self):
        return self.tables["instructions"]

    @property
    def dma(self):
        return self.tables["dma"]

    @property
    def semaphores(self):
        return self.tables["semaphores"]

    @property
    def throttle(self):
        return self.tables["throttle"]

    def text(self, field, codes):
        """The texts of ``codes`` (a code field's values) as a numpy array of str."""
        import numpy as np

        names = np.asarray(self.names[field] + [None], dtype=object)
        return names[np.asarray(codes)]

    def to_arrow(self, kind="instructions"):
        """The events of ``kind`` as a ``pyarrow.Table``: code fields dictionary-encoded
        strings (pandas: categoricals), -1 fields null. Needs pyarrow."""
        import numpy as np
        import pyarrow as pa

        table = self.tables[kind]
        columns, names = [], []
        for name in table.dtype.names:
            values = table[name]
            mask = values < 0 if name in NULLABLE else None
            if name in CODED:
                indices = pa.array(values.astype(np.int32), mask=mask)
                dictionary = pa.array(self.names[name], type=pa.string())
                columns.append(pa.DictionaryArray.from_arrays(indices, dictionary))
            else:
                columns.append(pa.array(values, mask=mask))
            names.append(name)
        return pa.Table.from_arrays(columns, names=names)

    def __repr__(self):
        counts = ", ".join(f"{k}={len(self.tables[k])}" for k in KINDS)
        return f"<neffkit.Profile {self.kind} {counts}>"


def open_profile(source):
    """Read a device profile: a path (str or os.PathLike) or the file's bytes, a raw capture
    (``.ntff``, plain or gzip) or a neuron-profile JSON report, told by content. Raises
    ``neffkit.ProfileError`` naming the byte offset, metadata field or JSON pointer. Needs
    numpy."""
    return Profile(_open_profile_native(source))
