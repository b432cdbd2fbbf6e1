//! JSON lines: one [`ScanRow`] object per line (docs/json.md "neff scan rows").

use std::io::Write;

use crate::row::ScanRow;

/// Writes `row` as one line.
pub fn write_row(out: &mut impl Write, row: &ScanRow) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, row)?;
    out.write_all(b"\n")
}
