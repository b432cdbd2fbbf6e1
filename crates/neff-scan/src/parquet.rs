//! Scan rows as Parquet (arrow-rs; decision D263): one column per [`ScanRow`] field, in field
//! order and with the JSON names (docs/json.md "neff scan rows"), written in row groups of
//! [`ROWS_PER_BATCH`] rows so memory stays bounded; and read back, the writer's mirror.
//!
//! The columns are declared once, in [`COLUMNS`]: each with its Arrow type, how to take it from
//! a row and how to put it back.

use std::io::Write;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BooleanArray, ListArray, RecordBatch, StringArray, StructArray, UInt8Array,
    UInt32Array, UInt64Array,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::row::{DmaQueueRow, OpcodeCount, RowKind, ScanRow, Stage};

/// Rows per record batch and row group: a few MB of rows, flushed as they come.
pub const ROWS_PER_BATCH: usize = 4096;

/// An error writing or reading scan rows as Parquet.
#[derive(Debug, thiserror::Error)]
pub enum ParquetError {
    /// From the Parquet writer or reader.
    #[error("parquet")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// From building or reading an Arrow batch.
    #[error("arrow")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// A file whose columns are not the scan's.
    #[error("not a neff scan file: {0}")]
    Schema(String),
}

/// How one column is typed, taken from a row and put back.
enum Column {
    Str(fn(&ScanRow) -> Option<&str>, fn(&mut ScanRow, Option<&str>)),
    U64(fn(&ScanRow) -> Option<u64>, fn(&mut ScanRow, Option<u64>)),
    U32(fn(&ScanRow) -> Option<u32>, fn(&mut ScanRow, Option<u32>)),
    /// `load_ok`, never null.
    LoadOk,
    /// `size`, never null.
    Size,
    /// `path`, never null.
    Path,
    Opcodes,
    Dma,
    Warnings,
}

/// A nullable scalar column named for its [`ScanRow`] field: text (`str`), or a number
/// (`u64`, `u32`).
macro_rules! column {
    (str $field:ident) => {
        (
            stringify!($field),
            Column::Str(|r| r.$field.as_deref(), |r, v| r.$field = v.map(Into::into)),
        )
    };
    (u64 $field:ident) => {
        (
            stringify!($field),
            Column::U64(|r| r.$field, |r, v| r.$field = v),
        )
    };
    (u32 $field:ident) => {
        (
            stringify!($field),
            Column::U32(|r| r.$field, |r, v| r.$field = v),
        )
    };
}

/// Every column, in [`ScanRow`] field order (a test checks it against the JSON form).
const COLUMNS: &[(&str, Column)] = &[
    ("path", Column::Path),
    ("size", Column::Size),
    column!(str sha256),
    (
        "kind",
        Column::Str(
            |r| r.kind.map(RowKind::name),
            |r, v| r.kind = v.and_then(RowKind::from_name),
        ),
    ),
    ("load_ok", Column::LoadOk),
    (
        "error_stage",
        Column::Str(
            |r| r.error_stage.map(Stage::name),
            |r, v| r.error_stage = v.and_then(Stage::from_name),
        ),
    ),
    column!(str error),
    column!(u64 pkg_version),
    column!(u64 neff_version_major),
    column!(u64 neff_version_minor),
    column!(str build_version),
    column!(str uuid),
    column!(str name),
    column!(u32 num_tpb),
    column!(u32 lnc_size),
    column!(u64 feature_bits),
    column!(str hash_status),
    column!(u64 members),
    column!(u64 inflated_size),
    column!(str compiler_version),
    column!(str target),
    column!(u32 subgraphs),
    column!(u64 instr_pe),
    column!(u64 instr_act),
    column!(u64 instr_pool),
    column!(u64 instr_dve),
    column!(u64 instr_sp),
    ("opcodes", Column::Opcodes),
    column!(u64 dma_queues),
    column!(u64 dma_descriptors),
    column!(u64 dma_bytes),
    ("dma", Column::Dma),
    column!(u64 sim_span_ns),
    column!(u32 capture_format),
    column!(str runtime_version),
    column!(str instance_type),
    column!(u64 capture_span_ns),
    column!(u64 capture_neff_span_ns),
    column!(u64 executed_instructions),
    column!(u64 busy_pe_ns),
    column!(u64 busy_act_ns),
    column!(u64 busy_pool_ns),
    column!(u64 busy_dve_ns),
    column!(u64 busy_sp_ns),
    column!(u64 dma_transfers),
    column!(u64 dma_transfer_bytes),
    ("warnings", Column::Warnings),
];

/// The struct fields of one `opcodes` entry.
fn opcode_fields() -> Fields {
    Fields::from(vec![
        Field::new("opcode", DataType::UInt8, false),
        Field::new("mnemonic", DataType::Utf8, false),
        Field::new("count", DataType::UInt64, false),
    ])
}

/// The struct fields of one `dma` entry.
fn dma_fields() -> Fields {
    Fields::from(vec![
        Field::new("subgraph", DataType::Utf8, false),
        Field::new("queue", DataType::Utf8, false),
        Field::new("owner", DataType::Utf8, true),
        Field::new("type", DataType::Utf8, false),
        Field::new("descriptors", DataType::UInt64, false),
        Field::new("bytes", DataType::UInt64, false),
    ])
}

/// The list item field of a list column holding `ty`.
fn item(ty: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", ty, false))
}

impl Column {
    fn data_type(&self) -> DataType {
        match self {
            Self::Str(..) | Self::Path => DataType::Utf8,
            Self::U64(..) | Self::Size => DataType::UInt64,
            Self::U32(..) => DataType::UInt32,
            Self::LoadOk => DataType::Boolean,
            Self::Opcodes => DataType::List(item(DataType::Struct(opcode_fields()))),
            Self::Dma => DataType::List(item(DataType::Struct(dma_fields()))),
            Self::Warnings => DataType::List(item(DataType::Utf8)),
        }
    }

    fn nullable(&self) -> bool {
        matches!(self, Self::Str(..) | Self::U64(..) | Self::U32(..))
    }

    /// The column of `rows`.
    fn build(&self, rows: &[ScanRow]) -> ArrayRef {
        match self {
            Self::Str(get, _) => Arc::new(StringArray::from_iter(rows.iter().map(get))),
            Self::U64(get, _) => Arc::new(UInt64Array::from_iter(rows.iter().map(get))),
            Self::U32(get, _) => Arc::new(UInt32Array::from_iter(rows.iter().map(get))),
            Self::Path => Arc::new(StringArray::from_iter_values(
                rows.iter().map(|r| r.path.as_str()),
            )),
            Self::Size => Arc::new(UInt64Array::from_iter_values(rows.iter().map(|r| r.size))),
            Self::LoadOk => Arc::new(BooleanArray::from_iter(
                rows.iter().map(|r| Some(r.load_ok)),
            )),
            Self::Opcodes => {
                let all: Vec<&OpcodeCount> = rows.iter().flat_map(|r| &r.opcodes).collect();
                let values = StructArray::new(
                    opcode_fields(),
                    vec![
                        Arc::new(UInt8Array::from_iter_values(all.iter().map(|o| o.opcode))),
                        Arc::new(StringArray::from_iter_values(
                            all.iter().map(|o| o.mnemonic.as_str()),
                        )),
                        Arc::new(UInt64Array::from_iter_values(all.iter().map(|o| o.count))),
                    ],
                    None,
                );
                list(rows.iter().map(|r| r.opcodes.len()), Arc::new(values))
            }
            Self::Dma => {
                let all: Vec<&DmaQueueRow> = rows.iter().flat_map(|r| &r.dma).collect();
                let text = |f: fn(&DmaQueueRow) -> &str| -> ArrayRef {
                    Arc::new(StringArray::from_iter_values(all.iter().map(|q| f(q))))
                };
                let values = StructArray::new(
                    dma_fields(),
                    vec![
                        text(|q| &q.subgraph),
                        text(|q| &q.queue),
                        Arc::new(StringArray::from_iter(
                            all.iter().map(|q| q.owner.as_deref()),
                        )),
                        text(|q| &q.ty),
                        Arc::new(UInt64Array::from_iter_values(
                            all.iter().map(|q| q.descriptors),
                        )),
                        Arc::new(UInt64Array::from_iter_values(all.iter().map(|q| q.bytes))),
                    ],
                    None,
                );
                list(rows.iter().map(|r| r.dma.len()), Arc::new(values))
            }
            Self::Warnings => {
                let values = StringArray::from_iter_values(
                    rows.iter()
                        .flat_map(|r| r.warnings.iter().map(String::as_str)),
                );
                list(rows.iter().map(|r| r.warnings.len()), Arc::new(values))
            }
        }
    }

    /// Puts row `i` of `array` (this column, read back) into `row`.
    fn put(&self, array: &dyn Array, i: usize, row: &mut ScanRow) -> Result<(), ParquetError> {
        match self {
            Self::Str(_, set) => set(row, string_at(array, i)?),
            Self::U64(_, set) => set(row, u64_at(array, i)?),
            Self::U32(_, set) => {
                let a = downcast::<UInt32Array>(array)?;
                set(row, a.is_valid(i).then(|| a.value(i)));
            }
            Self::Path => row.path = string_at(array, i)?.unwrap_or_default().to_owned(),
            Self::Size => row.size = u64_at(array, i)?.unwrap_or_default(),
            Self::LoadOk => {
                let a = downcast::<BooleanArray>(array)?;
                row.load_ok = a.is_valid(i) && a.value(i);
            }
            Self::Opcodes => {
                let s = list_at(array, i)?;
                let s = downcast::<StructArray>(s.as_ref())?;
                let (op, name, count) = (s.column(0), s.column(1), s.column(2));
                let op = downcast::<UInt8Array>(op.as_ref())?;
                row.opcodes = (0..s.len())
                    .map(|k| {
                        Ok(OpcodeCount {
                            opcode: op.value(k),
                            mnemonic: string_at(name.as_ref(), k)?.unwrap_or_default().into(),
                            count: u64_at(count.as_ref(), k)?.unwrap_or_default(),
                        })
                    })
                    .collect::<Result<_, ParquetError>>()?;
            }
            Self::Dma => {
                let s = list_at(array, i)?;
                let s = downcast::<StructArray>(s.as_ref())?;
                let text = |c: usize, k: usize| -> Result<Option<String>, ParquetError> {
                    Ok(string_at(s.column(c).as_ref(), k)?.map(Into::into))
                };
                let num = |c: usize, k: usize| u64_at(s.column(c).as_ref(), k);
                row.dma = (0..s.len())
                    .map(|k| {
                        Ok(DmaQueueRow {
                            subgraph: text(0, k)?.unwrap_or_default(),
                            queue: text(1, k)?.unwrap_or_default(),
                            owner: text(2, k)?,
                            ty: text(3, k)?.unwrap_or_default(),
                            descriptors: num(4, k)?.unwrap_or_default(),
                            bytes: num(5, k)?.unwrap_or_default(),
                        })
                    })
                    .collect::<Result<_, ParquetError>>()?;
            }
            Self::Warnings => {
                let s = list_at(array, i)?;
                row.warnings = (0..s.len())
                    .map(|k| Ok(string_at(s.as_ref(), k)?.unwrap_or_default().to_owned()))
                    .collect::<Result<_, ParquetError>>()?;
            }
        }
        Ok(())
    }
}

/// A list column: entry `i` holds the next `lengths[i]` values.
fn list(lengths: impl Iterator<Item = usize>, values: ArrayRef) -> ArrayRef {
    let item = Arc::new(Field::new("item", values.data_type().clone(), false));
    Arc::new(ListArray::new(
        item,
        OffsetBuffer::from_lengths(lengths),
        values,
        None,
    ))
}

fn downcast<T: 'static>(a: &dyn Array) -> Result<&T, ParquetError> {
    a.as_any()
        .downcast_ref::<T>()
        .ok_or_else(|| ParquetError::Schema(format!("unexpected column type {}", a.data_type())))
}

fn string_at(a: &dyn Array, i: usize) -> Result<Option<&str>, ParquetError> {
    let a = downcast::<StringArray>(a)?;
    Ok(a.is_valid(i).then(|| a.value(i)))
}

fn u64_at(a: &dyn Array, i: usize) -> Result<Option<u64>, ParquetError> {
    let a = downcast::<UInt64Array>(a)?;
    Ok(a.is_valid(i).then(|| a.value(i)))
}

fn list_at(a: &dyn Array, i: usize) -> Result<ArrayRef, ParquetError> {
    Ok(downcast::<ListArray>(a)?.value(i))
}

/// The Arrow schema of scan rows (docs/json.md "neff scan rows").
pub fn schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS
        .iter()
        .map(|(name, c)| Field::new(*name, c.data_type(), c.nullable()))
        .collect();
    Arc::new(Schema::new(fields))
}

/// `rows` as one record batch of [`schema`].
pub fn record_batch(rows: &[ScanRow]) -> Result<RecordBatch, ParquetError> {
    let columns = COLUMNS.iter().map(|(_, c)| c.build(rows)).collect();
    Ok(RecordBatch::try_new(schema(), columns)?)
}

/// Writes rows to a Parquet file (Snappy-compressed), one row group per [`ROWS_PER_BATCH`]
/// rows.
pub struct ParquetRowWriter<W: Write + Send> {
    writer: ArrowWriter<W>,
    pending: Vec<ScanRow>,
}

impl<W: Write + Send> ParquetRowWriter<W> {
    /// Starts a file on `out`.
    pub fn new(out: W) -> Result<Self, ParquetError> {
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROWS_PER_BATCH))
            .build();
        Ok(Self {
            writer: ArrowWriter::try_new(out, schema(), Some(props))?,
            pending: Vec::with_capacity(ROWS_PER_BATCH),
        })
    }

    /// Adds one row; a full batch is written out.
    pub fn write(&mut self, row: ScanRow) -> Result<(), ParquetError> {
        self.pending.push(row);
        if self.pending.len() >= ROWS_PER_BATCH {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<(), ParquetError> {
        if !self.pending.is_empty() {
            self.writer.write(&record_batch(&self.pending)?)?;
            self.pending.clear();
        }
        Ok(())
    }

    /// Writes the last rows and the footer; returns the output.
    pub fn finish(mut self) -> Result<W, ParquetError> {
        self.flush_batch()?;
        Ok(self.writer.into_inner()?)
    }
}

/// Reads every row of a scan's Parquet file.
pub fn read_rows(file: std::fs::File) -> Result<Vec<ScanRow>, ParquetError> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)?.build()?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch?;
        let columns: Vec<(&Column, &ArrayRef)> = COLUMNS
            .iter()
            .map(|(name, c)| {
                batch
                    .column_by_name(name)
                    .map(|a| (c, a))
                    .ok_or_else(|| ParquetError::Schema(format!("no column `{name}`")))
            })
            .collect::<Result<_, _>>()?;
        for i in 0..batch.num_rows() {
            let mut row = ScanRow::default();
            for (c, a) in &columns {
                c.put(a.as_ref(), i, &mut row)?;
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_json_fields_in_order() {
        let json = serde_json::to_value(ScanRow::default()).unwrap();
        let fields: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let columns: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
        assert_eq!(columns, fields);
    }
}
