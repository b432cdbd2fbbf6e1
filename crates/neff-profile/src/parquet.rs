//! A profile's rows as Parquet (`neff profile --parquet`, feature `parquet`; arrow-rs as
//! neff-scan's rows, D263): one schema for every kind, the `--jsonl` rows' fields as columns
//! (null where a kind has no such field), written in row groups of [`ROWS_PER_BATCH`] rows as
//! they stream in, so memory stays bounded.
//!
//! The columns are declared once, in [`COLUMNS`].

use std::io::{self, Write};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::row_stream::{DmaView, InstructionView, RowSink, SemaphoreView, ThrottleView};

/// Rows per record batch and row group.
pub const ROWS_PER_BATCH: usize = 65_536;

/// One row of any kind, flat: the `--jsonl` fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlatRow {
    /// instruction | dma | semaphore | throttle.
    pub kind: &'static str,
    /// The subgraph.
    pub subgraph: String,
    /// Instruction: the engine key (`pe`).
    pub engine: Option<&'static str>,
    /// Instruction: the vendor's label.
    pub label: Option<String>,
    /// Instruction: the vendor's mnemonic.
    pub opcode: Option<String>,
    /// Instruction: slot in the loaded stream.
    pub pc: Option<u64>,
    /// Instruction: slot in the NEFF's stream.
    pub neff_slot: Option<u64>,
    /// Every kind: start (or when), ns.
    pub timestamp: u64,
    /// Instruction, DMA, throttle: ns.
    pub duration: Option<u64>,
    /// Instruction: ns waited on events.
    pub evt_wait_time: Option<u64>,
    /// Instruction: crc in.
    pub crc_in: Option<u64>,
    /// Instruction: crc out.
    pub crc_out: Option<u64>,
    /// DMA: engine id.
    pub dma_engine: Option<u64>,
    /// DMA: queue.
    pub dma_queue: Option<u64>,
    /// DMA: bytes.
    pub size: Option<u64>,
    /// DMA: crc.
    pub crc: Option<u64>,
    /// Semaphore: index.
    pub index: Option<u64>,
    /// Semaphore: new value.
    pub value: Option<i64>,
    /// Throttle: `k`.
    pub k: Option<u64>,
    /// Throttle: `type`.
    pub r#type: Option<u64>,
    /// Throttle: `n`.
    pub n: Option<u64>,
}

/// How one column is taken from a row.
enum Column {
    Str(fn(&FlatRow) -> Option<&str>),
    U64(fn(&FlatRow) -> Option<u64>),
    I64(fn(&FlatRow) -> Option<i64>),
}

macro_rules! col {
    (str $f:ident) => {
        (stringify!($f), Column::Str(|r| r.$f.as_deref()))
    };
    (u64 $f:ident) => {
        (stringify!($f), Column::U64(|r| r.$f))
    };
}

/// Every column, in `--jsonl` field order (kind, subgraph first).
const COLUMNS: &[(&str, Column)] = &[
    ("kind", Column::Str(|r| Some(r.kind))),
    ("subgraph", Column::Str(|r| Some(&r.subgraph))),
    ("engine", Column::Str(|r| r.engine)),
    col!(str label),
    col!(str opcode),
    col!(u64 pc),
    col!(u64 neff_slot),
    ("timestamp", Column::U64(|r| Some(r.timestamp))),
    col!(u64 duration),
    col!(u64 evt_wait_time),
    col!(u64 crc_in),
    col!(u64 crc_out),
    col!(u64 dma_engine),
    col!(u64 dma_queue),
    col!(u64 size),
    col!(u64 crc),
    col!(u64 index),
    ("value", Column::I64(|r| r.value)),
    col!(u64 k),
    ("type", Column::U64(|r| r.r#type)),
    col!(u64 n),
];

/// The schema of every profile Parquet file.
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS
        .iter()
        .map(|(name, c)| {
            let (ty, nullable) = match c {
                Column::Str(_) => (DataType::Utf8, !matches!(*name, "kind" | "subgraph")),
                Column::U64(_) => (DataType::UInt64, *name != "timestamp"),
                Column::I64(_) => (DataType::Int64, true),
            };
            Field::new(*name, ty, nullable)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

fn batch(rows: &[FlatRow]) -> Result<RecordBatch, parquet::errors::ParquetError> {
    let arrays: Vec<ArrayRef> = COLUMNS
        .iter()
        .map(|(_, c)| -> ArrayRef {
            match c {
                Column::Str(f) => Arc::new(rows.iter().map(f).collect::<StringArray>()),
                Column::U64(f) => Arc::new(rows.iter().map(f).collect::<UInt64Array>()),
                Column::I64(f) => Arc::new(rows.iter().map(f).collect::<Int64Array>()),
            }
        })
        .collect();
    Ok(RecordBatch::try_new(schema(), arrays)?)
}

/// Streams rows into a Parquet file on `out`.
pub struct ParquetRows<W: Write + Send> {
    writer: Option<ArrowWriter<W>>,
    rows: Vec<FlatRow>,
    error: Option<parquet::errors::ParquetError>,
}

impl<W: Write + Send> ParquetRows<W> {
    /// A writer on `out` (Snappy, as neff-scan).
    pub fn new(out: W) -> io::Result<Self> {
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let writer = ArrowWriter::try_new(out, schema(), Some(props)).map_err(io::Error::other)?;
        Ok(Self {
            writer: Some(writer),
            rows: Vec::with_capacity(ROWS_PER_BATCH),
            error: None,
        })
    }

    fn push(&mut self, r: FlatRow) {
        self.rows.push(r);
        if self.rows.len() >= ROWS_PER_BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.error.is_none()
            && !self.rows.is_empty()
            && let Some(w) = &mut self.writer
            && let Err(e) = batch(&self.rows).and_then(|b| w.write(&b))
        {
            self.error = Some(e);
        }
        self.rows.clear();
    }

    /// Writes the last rows and the footer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush();
        if let Some(e) = self.error.take() {
            return Err(io::Error::other(e));
        }
        let w = self
            .writer
            .take()
            .ok_or_else(|| io::Error::other("finished"))?;
        w.into_inner().map_err(io::Error::other)
    }
}

impl<W: Write + Send> RowSink for ParquetRows<W> {
    fn instruction(&mut self, i: &InstructionView<'_>) {
        self.push(FlatRow {
            kind: "instruction",
            subgraph: i.subgraph.to_string(),
            engine: i.engine.map(neff_isa::EngineType::key),
            label: Some(i.label.to_string()),
            opcode: Some(i.opcode.to_string()),
            pc: Some(i.pc),
            neff_slot: i.neff_slot,
            timestamp: i.timestamp,
            duration: Some(i.duration),
            evt_wait_time: i.evt_wait_time,
            crc_in: i.crc_in,
            crc_out: i.crc_out,
            ..FlatRow::default()
        });
    }
    fn dma(&mut self, d: &DmaView<'_>) {
        self.push(FlatRow {
            kind: "dma",
            subgraph: d.subgraph.to_string(),
            timestamp: d.timestamp,
            duration: Some(d.duration),
            dma_engine: Some(d.dma_engine),
            dma_queue: Some(d.dma_queue),
            size: Some(d.size),
            crc: d.crc,
            ..FlatRow::default()
        });
    }
    fn semaphore(&mut self, s: &SemaphoreView<'_>) {
        self.push(FlatRow {
            kind: "semaphore",
            subgraph: s.subgraph.to_string(),
            timestamp: s.timestamp,
            index: Some(s.index),
            value: Some(s.value),
            ..FlatRow::default()
        });
    }
    fn throttle(&mut self, h: &ThrottleView<'_>) {
        self.push(FlatRow {
            kind: "throttle",
            subgraph: h.subgraph.to_string(),
            timestamp: h.timestamp,
            duration: Some(h.duration),
            k: Some(h.k),
            r#type: Some(h.kind),
            n: Some(h.n),
            ..FlatRow::default()
        });
    }
}
