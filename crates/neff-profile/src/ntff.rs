//! The raw capture reader (reference-ntff §1-§2): the fixed header, the metadata message walked
//! once, every offset and size checked against the bytes present before it is kept. The capture's
//! bytes are borrowed; the facts own only small things (names, versions, ranges into the file).
//! Trace records are decoded on demand by [`crate::decode`], in one pass.

use std::ops::Range;

use neff_isa::EngineType;

use crate::capture::{
    CaptureFacts, DmaQueueInfo, FormatVersion, SoftwareVersion, SubgraphFacts, UnknownField, Window,
};
use crate::decode::{DecodeStats, decode};
use crate::event::{CaptureEvents, EventSink};
use crate::ntff_error::NtffError;
use crate::stream::{LoadedStream, RuntimeSegment};
use crate::trace::{BufferKind, RECORD_BYTES, TraceBuffer};
use crate::wire::{WireField, WireFields, WireValue};

/// Bytes before the metadata (reference §1: version, length, 0x7B opaque bytes).
pub const HEADER_BYTES: usize = 0x80;
/// Where the metadata length sits (u32 LE).
const LENGTH_AT: usize = 1;

/// A capture: its bytes and what its metadata says about them.
#[derive(Debug, Clone)]
pub struct Capture<'a> {
    file: &'a [u8],
    /// The metadata, read.
    pub facts: CaptureFacts,
}

impl<'a> Capture<'a> {
    /// Reads the header and metadata of `file` (the whole capture, decompressed).
    pub fn parse(file: &'a [u8]) -> Result<Self, NtffError> {
        let Some(&version) = file.first() else {
            return Err(NtffError::Empty);
        };
        if looks_like_neff(file) {
            return Err(NtffError::NeffNotCapture);
        }
        if !FormatVersion::KNOWN.contains(&version) {
            return Err(NtffError::UnknownVersion { version });
        }
        if file.len() < HEADER_BYTES {
            return Err(NtffError::ShortHeader {
                len: file.len() as u64,
            });
        }
        let mut len = [0u8; 4];
        len.copy_from_slice(&file[LENGTH_AT..LENGTH_AT + 4]);
        let length = u64::from(u32::from_le_bytes(len));
        let available = (file.len() - HEADER_BYTES) as u64;
        if length > available {
            return Err(NtffError::MetadataPastEnd { length, available });
        }
        let data_start = HEADER_BYTES + length as usize;
        let mut r = Reader {
            data_start,
            data_len: (file.len() - data_start) as u64,
            facts: CaptureFacts {
                format: FormatVersion(version),
                neff_name: String::new(),
                neff_uuid_raw: Vec::new(),
                neff_uuid: None,
                subgraph_count: None,
                capture_time: None,
                runtime: None,
                driver: None,
                collectives: None,
                instance_type: None,
                window: None,
                subgraphs: Vec::new(),
                buffers: Vec::new(),
                unknown: Vec::new(),
            },
        };
        r.top(&file[HEADER_BYTES..data_start])?;
        let mut facts = r.facts;
        for b in &mut facts.buffers {
            b.subgraph = facts.subgraphs.iter().position(|s| s.core == b.core);
        }
        Ok(Self { file, facts })
    }

    /// The whole capture's bytes.
    pub fn file(&self) -> &'a [u8] {
        self.file
    }

    /// The bytes of a loaded stream.
    pub fn stream_bytes(&self, s: &LoadedStream) -> &'a [u8] {
        self.file.get(s.bytes.clone()).unwrap_or_default()
    }

    /// Decodes every trace record into `sink`, buffer by buffer, in one pass.
    pub fn decode(&self, sink: &mut impl EventSink) -> DecodeStats {
        decode(self.file, &self.facts, sink)
    }

    /// Every event, collected.
    pub fn events(&self) -> (CaptureEvents, DecodeStats) {
        let mut ev = CaptureEvents::default();
        let stats = self.decode(&mut ev);
        (ev, stats)
    }

    /// Trace records in the capture (all buffers).
    pub fn record_count(&self) -> u64 {
        self.facts
            .buffers
            .iter()
            .map(|b| b.record_count() as u64)
            .sum()
    }
}

/// Whether `file` is a NEFF: its 1024-byte header (bytes 8..16 = 1024, LE) followed by the gzip
/// package (reference-real-neff §1: no magic, identified by structure).
pub fn looks_like_neff(file: &[u8]) -> bool {
    const NEFF_HEADER: usize = 1024;
    file.len() > NEFF_HEADER + 2
        && file[8..16] == (NEFF_HEADER as u64).to_le_bytes()
        && file[NEFF_HEADER..NEFF_HEADER + 2] == [0x1f, 0x8b]
}

/// Whether `file` starts like a capture: a known version byte and a metadata length that fits.
pub fn looks_like_capture(file: &[u8]) -> bool {
    file.len() >= HEADER_BYTES
        && FormatVersion::KNOWN.contains(&file[0])
        && (u32::from_le_bytes([file[1], file[2], file[3], file[4]]) as usize)
            <= file.len() - HEADER_BYTES
}

/// The metadata walk's state.
struct Reader {
    data_start: usize,
    data_len: u64,
    facts: CaptureFacts,
}

fn fields<'a>(
    bytes: &'a [u8],
    base: u64,
    path: &str,
) -> impl Iterator<Item = Result<WireField<'a>, NtffError>> + use<'a> {
    let path = path.to_string();
    WireFields::new(bytes, base).map(move |r| {
        r.map_err(|source| NtffError::Wire {
            path: if path.is_empty() {
                "(top level)".into()
            } else {
                path.clone()
            },
            source,
        })
    })
}

fn sub(path: &str, n: u32) -> String {
    if path.is_empty() {
        n.to_string()
    } else {
        format!("{path}.{n}")
    }
}

fn varint(f: &WireField<'_>, path: &str) -> Result<u64, NtffError> {
    f.as_u64().ok_or_else(|| NtffError::Field {
        path: sub(path, f.number),
        offset: f.offset,
        what: "expected a number, found bytes".into(),
    })
}

fn bytes<'a>(f: &WireField<'a>, path: &str) -> Result<&'a [u8], NtffError> {
    f.as_bytes().ok_or_else(|| NtffError::Field {
        path: sub(path, f.number),
        offset: f.offset,
        what: "expected bytes or a message, found a number".into(),
    })
}

fn text(f: &WireField<'_>, path: &str) -> Result<String, NtffError> {
    Ok(String::from_utf8_lossy(bytes(f, path)?).into_owned())
}

fn message<'a>(
    f: &WireField<'a>,
    path: &str,
) -> Result<impl Iterator<Item = Result<WireField<'a>, NtffError>> + use<'a>, NtffError> {
    let b = bytes(f, path)?;
    Ok(fields(b, f.payload_offset, &sub(path, f.number)))
}

fn unknown(f: &WireField<'_>, path: &str) -> UnknownField {
    UnknownField {
        path: sub(path, f.number),
        offset: f.offset,
        raw: match f.value {
            WireValue::Bytes(b) => b.to_vec(),
            WireValue::Varint(v) | WireValue::Fixed64(v) => v.to_le_bytes().to_vec(),
            WireValue::Fixed32(v) => v.to_le_bytes().to_vec(),
        },
    }
}

impl Reader {
    fn top(&mut self, meta: &[u8]) -> Result<(), NtffError> {
        for f in fields(meta, HEADER_BYTES as u64, "") {
            let f = f?;
            match f.number {
                1 => self.facts.neff_name = text(&f, "")?,
                2 => self.facts.neff_uuid_raw = bytes(&f, "")?.to_vec(),
                4 => self.execution(&f)?,
                5 => self.facts.subgraph_count = Some(varint(&f, "")?),
                7 if !self.facts.format.has_window() => {
                    self.facts.capture_time = Some(varint(&f, "")?)
                }
                8 => self.facts.runtime = Some(version(&f, "")?),
                9 => self.facts.instance_type = Some(text(&f, "")?),
                11 => self.facts.driver = Some(version(&f, "")?),
                12 => self.facts.collectives = Some(version(&f, "")?),
                15 => self.facts.window = Some(window(&f)?),
                16 => {
                    let b = self.buffer(&f, "", None)?;
                    self.facts.buffers.push(b);
                }
                _ => self.facts.unknown.push(unknown(&f, "")),
            }
        }
        Ok(())
    }

    /// Field 4: {4: {1: subgraph, repeated}, 5: the clean uuid}.
    fn execution(&mut self, f: &WireField<'_>) -> Result<(), NtffError> {
        for g in message(f, "")? {
            let g = g?;
            match g.number {
                4 => {
                    for s in message(&g, "4")? {
                        let s = s?;
                        if s.number == 1 {
                            let i = self.facts.subgraphs.len();
                            let sg = self.subgraph(&s, &format!("4.4.1[{i}]"))?;
                            self.facts.subgraphs.push(sg);
                        } else {
                            self.facts.unknown.push(unknown(&s, "4.4"));
                        }
                    }
                }
                5 => {
                    let b = bytes(&g, "4")?;
                    self.facts.neff_uuid = b.try_into().ok();
                    if self.facts.neff_uuid.is_none() {
                        self.facts.unknown.push(unknown(&g, "4"));
                    }
                }
                _ => self.facts.unknown.push(unknown(&g, "4")),
            }
        }
        Ok(())
    }

    fn subgraph(&mut self, f: &WireField<'_>, path: &str) -> Result<SubgraphFacts, NtffError> {
        let mut sg = SubgraphFacts::default();
        let mut segments: Vec<(EngineType, Vec<RuntimeSegment>)> = Vec::new();
        let mut tables = Vec::new();
        let (mut ns, mut nseg, mut nq, mut nb) = (0, 0, 0, 0);
        let b = bytes(f, "")?;
        for g in fields(b, f.payload_offset, path) {
            let g = g?;
            match g.number {
                1 => sg.name = text(&g, path)?,
                3 => sg.core = varint(&g, path)?,
                4 => {
                    sg.streams
                        .push(self.stream(&g, &format!("{path}.4[{ns}]"))?);
                    ns += 1;
                }
                5 => {
                    segments.push(segment_list(&g, &format!("{path}.5[{nseg}]"))?);
                    nseg += 1;
                }
                6 if !self.facts.format.has_window() => {
                    tables.push((g, format!("{path}.6[{nb}]")));
                    nb += 1;
                }
                7 => {
                    sg.dma_queues
                        .push(dma_queue(&g, &format!("{path}.7[{nq}]"))?);
                    nq += 1;
                }
                14 => sg.span_ps = Some(varint(&g, path)?),
                _ => sg.unknown.push(unknown(&g, path)),
            }
        }
        for (engine, segs) in segments {
            if let Some(s) = sg.streams.iter_mut().find(|s| s.engine == engine) {
                s.segments.extend(segs);
            }
        }
        for (g, p) in tables {
            let b = self.buffer(&g, &p, Some(sg.core))?;
            self.facts.buffers.push(b);
        }
        Ok(sg)
    }

    /// A data-area range, checked against the bytes present.
    fn data_range(
        &self,
        offset: u64,
        size: u64,
        path: &str,
        at: u64,
    ) -> Result<Range<usize>, NtffError> {
        match offset.checked_add(size) {
            Some(end) if end <= self.data_len => {
                let s = self.data_start + offset as usize;
                Ok(s..s + size as usize)
            }
            _ => Err(NtffError::OutsideData {
                path: path.into(),
                offset: at,
                start: offset,
                end: offset.saturating_add(size),
                data_len: self.data_len,
            }),
        }
    }

    /// A stream {1 engine, 2 base, 3 inline bytes (v4, v5), 7 offset, 8 size (v6)}.
    fn stream(&self, f: &WireField<'_>, path: &str) -> Result<LoadedStream, NtffError> {
        let (mut engine, mut base, mut off, mut size) = (0, 0, 0, 0);
        let mut inline = None;
        for g in fields(bytes(f, "")?, f.payload_offset, path) {
            let g = g?;
            match g.number {
                1 => engine = varint(&g, path)?,
                2 => base = varint(&g, path)?,
                3 => {
                    let b = bytes(&g, path)?;
                    let s = g.payload_offset as usize;
                    inline = Some(s..s + b.len());
                }
                7 => off = varint(&g, path)?,
                8 => size = varint(&g, path)?,
                _ => {}
            }
        }
        let engine = engine_of(engine, path, f.offset)?;
        let bytes = match inline {
            Some(r) => r,
            None => self.data_range(off, size, path, f.offset)?,
        };
        Ok(LoadedStream {
            engine,
            device_base: base,
            bytes,
            segments: Vec::new(),
        })
    }

    /// A trace-buffer table entry {1 kind, 3 class, 4 index, 5 offset, 6 size, 7 core}.
    fn buffer(
        &self,
        f: &WireField<'_>,
        path: &str,
        core: Option<u64>,
    ) -> Result<TraceBuffer, NtffError> {
        let path = if path.is_empty() {
            format!("16[{}]", self.facts.buffers.len())
        } else {
            path.to_string()
        };
        let mut v = [0u64; 8];
        for g in fields(bytes(f, "")?, f.payload_offset, &path) {
            let g = g?;
            if let Some(slot) = v.get_mut(g.number as usize) {
                *slot = varint(&g, &path)?;
            }
        }
        let [_, kind, _, class, index, offset, size, field_core] = v;
        if size % RECORD_BYTES as u64 != 0 {
            return Err(NtffError::RecordSize {
                path,
                offset: f.offset,
                size,
            });
        }
        Ok(TraceBuffer {
            kind: BufferKind::from_code(kind),
            class,
            index,
            core: core.unwrap_or(field_core),
            subgraph: None,
            bytes: self.data_range(offset, size, &path, f.offset)?,
        })
    }
}

fn engine_of(code: u64, path: &str, offset: u64) -> Result<EngineType, NtffError> {
    usize::try_from(code)
        .ok()
        .and_then(EngineType::from_index)
        .ok_or_else(|| NtffError::Field {
            path: format!("{path}.1"),
            offset,
            what: format!("engine {code} is not 0..4"),
        })
}

/// Field 5 of a subgraph: {1 engine, 2 (repeated) {1 offset, 2 count, 3 flag}}.
fn segment_list(
    f: &WireField<'_>,
    path: &str,
) -> Result<(EngineType, Vec<RuntimeSegment>), NtffError> {
    let mut engine = 0;
    let mut segs = Vec::new();
    for g in fields(bytes(f, "")?, f.payload_offset, path) {
        let g = g?;
        match g.number {
            1 => engine = varint(&g, path)?,
            2 => {
                let p = format!("{path}.2[{}]", segs.len());
                let mut v = [0u64; 4];
                for h in fields(bytes(&g, path)?, g.payload_offset, &p) {
                    let h = h?;
                    if let Some(slot) = v.get_mut(h.number as usize) {
                        *slot = varint(&h, &p)?;
                    }
                }
                segs.push(RuntimeSegment {
                    offset: v[1],
                    count: v[2],
                    flag: v[3],
                });
            }
            _ => {}
        }
    }
    Ok((engine_of(engine, path, f.offset)?, segs))
}

/// A DMA queue {1 engine, 2 queue, 3 type, 4 name}.
fn dma_queue(f: &WireField<'_>, path: &str) -> Result<DmaQueueInfo, NtffError> {
    let mut q = DmaQueueInfo {
        dma_engine: 0,
        queue: 0,
        kind: 0,
        name: String::new(),
    };
    for g in fields(bytes(f, "")?, f.payload_offset, path) {
        let g = g?;
        match g.number {
            1 => q.dma_engine = varint(&g, path)?,
            2 => q.queue = varint(&g, path)?,
            3 => q.kind = varint(&g, path)?,
            4 => q.name = text(&g, path)?,
            _ => {}
        }
    }
    Ok(q)
}

/// A version {1 major, 2 minor, 3 patch, 5 git hash}.
fn version(f: &WireField<'_>, path: &str) -> Result<SoftwareVersion, NtffError> {
    let mut v = SoftwareVersion::default();
    let p = sub(path, f.number);
    for g in fields(bytes(f, path)?, f.payload_offset, &p) {
        let g = g?;
        match g.number {
            1 => v.major = varint(&g, &p)?,
            2 => v.minor = varint(&g, &p)?,
            3 => v.patch = varint(&g, &p)?,
            5 => v.git_hash = Some(text(&g, &p)?),
            _ => {}
        }
    }
    Ok(v)
}

/// The window {1 uuid, 2 T0, 3 T1}.
fn window(f: &WireField<'_>) -> Result<Window, NtffError> {
    let mut w = Window {
        uuid: Vec::new(),
        t0_ps: 0,
        t1_ps: 0,
    };
    for g in fields(bytes(f, "")?, f.payload_offset, "15") {
        let g = g?;
        match g.number {
            1 => w.uuid = bytes(&g, "15")?.to_vec(),
            2 => w.t0_ps = varint(&g, "15")?,
            3 => w.t1_ps = varint(&g, "15")?,
            _ => {}
        }
    }
    Ok(w)
}
