//! Scan rows through Parquet and back: every column, nulls and empty lists included, for the
//! spec sample and for rows that failed at each stage.

use neff_scan::parquet::{ParquetRowWriter, ROWS_PER_BATCH, read_rows};
use neff_scan::{DmaQueueRow, ScanOptions, ScanRow, Stage, scan_bytes};

const SAMPLE: &[u8] = include_bytes!("../../../examples/sample.neff");

/// Rows of every shape: the sample (all columns), a cut header, a payload that is no gzip, a
/// row with a null owner, warnings and an internal error.
fn rows() -> Vec<ScanRow> {
    let options = ScanOptions::default();
    let mut not_gzip = SAMPLE.to_vec();
    not_gzip[0x400] = b'P';
    let mut odd = scan_bytes("odd.neff", SAMPLE, &options);
    odd.dma.push(DmaQueueRow {
        subgraph: "sg01".into(),
        queue: "qDyn".into(),
        owner: None,
        ty: "dynamic".into(),
        descriptors: 0,
        bytes: u64::MAX,
    });
    odd.warnings = vec!["sg00: first".into(), "second".into()];
    odd.fail(Stage::Internal, "internal error: test");
    vec![
        scan_bytes("examples/sample.neff", SAMPLE, &options),
        scan_bytes("cut.neff", &SAMPLE[..600], &options),
        scan_bytes("not_gzip.neff", &not_gzip, &options),
        odd,
        ScanRow::new("empty", 0),
    ]
}

#[test]
fn rows_read_back_equal_to_what_was_written() {
    let rows = rows();
    assert_eq!(rows[0].error, None, "the sample scans cleanly");
    assert_eq!(rows[1].error_stage, Some(Stage::Header));
    assert_eq!(rows[2].error_stage, Some(Stage::Package));
    let file = tempfile::NamedTempFile::new().unwrap();
    let mut w = ParquetRowWriter::new(file.reopen().unwrap()).unwrap();
    for r in rows.iter().cloned() {
        w.write(r).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(read_rows(file.reopen().unwrap()).unwrap(), rows);
}

#[test]
fn many_rows_span_several_row_groups_in_order() {
    let row = scan_bytes("s.neff", SAMPLE, &ScanOptions::default());
    let file = tempfile::NamedTempFile::new().unwrap();
    let mut w = ParquetRowWriter::new(file.reopen().unwrap()).unwrap();
    let n = ROWS_PER_BATCH + 3;
    for i in 0..n {
        let mut r = row.clone();
        r.path = format!("{i}.neff");
        w.write(r).unwrap();
    }
    w.finish().unwrap();
    let back = read_rows(file.reopen().unwrap()).unwrap();
    assert_eq!(back.len(), n);
    assert!(
        back.iter()
            .enumerate()
            .all(|(i, r)| r.path == format!("{i}.neff"))
    );
    assert_eq!(back[n - 1].opcodes, row.opcodes);
}
