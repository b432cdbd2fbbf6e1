//! What changed inside a changed slot, field by field: both slots explained by neff-isa's byte
//! explainer (the layout table behind `neff dump`: header, events, every payload field, reserved
//! bytes), rows of the same field compared by value.

use neff_isa::continuation::{Pairing, pairing_at};
use neff_isa::explain::{Row, explain, explain_continuation};
use neff_isa::{Dialect, SLOT_BYTES, Slot};
use serde::Serialize;

/// One field whose value differs between the two slots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    /// The field (`opcode`, `events.wait_idx`, `queue_name`, `src`, `reserved`, ...).
    pub field: String,
    /// Its byte offset in the slot.
    pub offset: usize,
    /// A's value, as `neff dump` shows it; `None` when A's slot has no such field.
    pub a: Option<String>,
    /// B's value.
    pub b: Option<String>,
}

/// The rows of slot `index` of `stream`: a continuation slot (the second of a 128-byte record,
/// decision D155) is explained as the extension it is.
fn rows(stream: &[u8], index: u32, dialect: Dialect) -> Vec<Row> {
    let at = index as usize * SLOT_BYTES;
    let Some(slot) = stream.get(at..).and_then(Slot::from_slice) else {
        return Vec::new();
    };
    match pairing_at(stream, index as usize) {
        Ok(Pairing::Continuation) => explain_continuation(&slot),
        _ => explain(&slot, dialect),
    }
}

/// The fields of slot `ia` of stream `a` and slot `ib` of `b` that differ. Rows are matched by
/// (offset, field name); a field only one layout has (the opcodes differ) is listed with the
/// other side `None`.
pub fn field_changes(a: &[u8], ia: u32, b: &[u8], ib: u32, dialect: Dialect) -> Vec<FieldChange> {
    let ra = rows(a, ia, dialect);
    let rb = rows(b, ib, dialect);
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < ra.len() || j < rb.len() {
        let ka = ra.get(i).map(|r| (r.offset, r.field.as_str()));
        let kb = rb.get(j).map(|r| (r.offset, r.field.as_str()));
        match (ka, kb) {
            (Some(x), Some(y)) if x == y => {
                if ra[i].value != rb[j].value {
                    out.push(change(&ra[i], Some(&ra[i].value), Some(&rb[j].value)));
                }
                i += 1;
                j += 1;
            }
            (Some(x), y) if y.is_none_or(|y| x < y) => {
                out.push(change(&ra[i], Some(&ra[i].value), None));
                i += 1;
            }
            _ => {
                out.push(change(&rb[j], None, Some(&rb[j].value)));
                j += 1;
            }
        }
    }
    out
}

fn change(row: &Row, a: Option<&String>, b: Option<&String>) -> FieldChange {
    FieldChange {
        field: row.field.clone(),
        offset: row.offset,
        a: a.cloned(),
        b: b.cloned(),
    }
}
