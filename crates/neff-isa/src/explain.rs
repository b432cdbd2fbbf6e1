//! The byte explainer behind `neff dump` (like `wasm-tools dump`): every byte of one slot as
//! `offset | hex | field = value` rows, from the same layout table the text form uses.

use crate::events::{Dialect, UpdateMode, WaitMode};
use crate::layout::{FieldKind, Show};
use crate::slot::{SLOT_BYTES, Slot};
use crate::text::number::push_hex_bytes;

/// One explained byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Offset inside the slot.
    pub offset: usize,
    /// Number of bytes.
    pub len: usize,
    /// The field name (`opcode`, `events.wait_mode`, `queue_name`, `reserved`, ...).
    pub field: String,
    /// The decoded value.
    pub value: String,
}

/// Explains every byte of `slot`, in offset order; unnamed bytes are `reserved` rows.
pub fn explain(slot: &Slot<'_>, dialect: Dialect) -> Vec<Row> {
    let mut rows = header_rows(slot);
    rows.extend(match dialect {
        Dialect::Semaphore8 => event_rows(slot),
        Dialect::Legacy4 => legacy_rows(slot),
    });
    let mut covered = [false; SLOT_BYTES];
    rows.iter()
        .for_each(|r| covered[r.offset..r.offset + r.len].fill(true));
    if let Some(layout) = crate::text::layout_for_dialect(slot.opcode(), dialect) {
        layout_rows(slot, layout, &mut covered, &mut rows);
    }
    rows.extend(reserved_rows(slot, &covered));
    rows.sort_by_key(|r| r.offset);
    rows
}

/// Explains the continuation slot of a 128-byte PSEUDO_DMA_DIRECT2D record (decision D155): the
/// opcode, then `PSEUDO_DMA_EXT` fields ([`crate::payload::DMA_EXTENSION`]) — it has no header
/// word length and no events.
pub fn explain_continuation(slot: &Slot<'_>) -> Vec<Row> {
    let op = slot.opcode();
    let name = op.mnemonic().unwrap_or("unknown");
    let mut rows = vec![row(0, 1, "opcode", format!("{name} ({:#04x})", op.0))];
    let mut covered = [false; SLOT_BYTES];
    covered[0] = true;
    layout_rows(
        slot,
        &crate::payload::DMA_EXTENSION,
        &mut covered,
        &mut rows,
    );
    rows.extend(reserved_rows(slot, &covered));
    rows.sort_by_key(|r| r.offset);
    rows
}

/// One row per field of `layout`, marking the bytes it covers.
fn layout_rows(
    slot: &Slot<'_>,
    layout: &crate::layout::Layout,
    covered: &mut [bool; SLOT_BYTES],
    rows: &mut Vec<Row>,
) {
    for f in layout.fields {
        let (o, n) = (f.offset as usize, f.kind.size());
        covered[o..o + n].fill(true);
        let mut value = String::new();
        crate::text::push_field_value(f.kind, &f.read(slot), &mut value);
        if value.is_empty() {
            // A field whose text form is empty (an all-`None` events block) still gets a
            // value column.
            value.push_str("none");
        }
        let pos = match f.show {
            Show::Positional => " (positional)",
            Show::Joined => " (shown in its operand)",
            _ => "",
        };
        let name = match f.kind {
            FieldKind::Lo(_) => format!("{} (bits 0-3){pos}", f.name),
            FieldKind::Hi(_) => format!("{} (bits 4-7){pos}", f.name),
            _ => format!("{}{pos}", f.name),
        };
        rows.push(Row {
            offset: o,
            len: n,
            field: name,
            value,
        });
    }
}

fn row(offset: usize, len: usize, field: &str, value: String) -> Row {
    Row {
        offset,
        len,
        field: field.to_owned(),
        value,
    }
}

fn header_rows(s: &Slot<'_>) -> Vec<Row> {
    let op = s.opcode();
    let name = op.mnemonic().unwrap_or("unknown");
    vec![
        row(0, 1, "opcode", format!("{name} ({:#04x})", op.0)),
        row(
            1,
            1,
            "inst_word_len",
            format!(
                "{} words ({} bytes)",
                s.inst_word_len(),
                4 * s.inst_word_len() as usize
            ),
        ),
        row(
            2,
            1,
            "debug_cmd",
            format!("trace={:?} halt={}", s.trace_mode(), s.halt_enabled()),
        ),
        row(3, 1, "debug_hint", s.debug_hint().to_string()),
    ]
}

fn event_rows(s: &Slot<'_>) -> Vec<Row> {
    let e = s.events();
    let wait = WaitMode::from_u8(e.wait_mode).map_or("unknown".into(), |w| format!("{w:?}"));
    let upd = UpdateMode::from_u8(e.update_mode).map_or("unknown".into(), |u| format!("{u:?}"));
    vec![
        row(
            4,
            1,
            "events.wait_mode",
            format!("{wait} ({})", e.wait_mode),
        ),
        row(5, 1, "events.wait_idx", e.wait_idx.to_string()),
        row(
            6,
            1,
            "events.update_mode",
            format!("{upd} ({})", e.update_mode),
        ),
        row(7, 1, "events.update_idx", e.update_idx.to_string()),
        row(
            8,
            4,
            "events.semaphore_value",
            e.semaphore_value.to_string(),
        ),
    ]
}

fn legacy_rows(s: &Slot<'_>) -> Vec<Row> {
    let e = s.legacy_events();
    vec![
        row(
            4,
            1,
            "events.wait_event_mode",
            e.wait_event_mode.to_string(),
        ),
        row(5, 1, "events.wait_event_idx", e.wait_event_idx.to_string()),
        row(6, 1, "events.set_event_mode", e.set_event_mode.to_string()),
        row(7, 1, "events.set_event_idx", e.set_event_idx.to_string()),
    ]
}

fn reserved_rows(s: &Slot<'_>, covered: &[bool; SLOT_BYTES]) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut i = 0;
    while i < SLOT_BYTES {
        if covered[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < SLOT_BYTES && !covered[i] && i - start < 16 {
            i += 1;
        }
        let zero = s.bytes()[start..i].iter().all(|&b| b == 0);
        rows.push(row(
            start,
            i - start,
            "reserved",
            if zero {
                "0".into()
            } else {
                "NON-ZERO (undecoded)".into()
            },
        ));
    }
    rows
}

/// Writes the rows as `+0x0c | 71 5f 67 72 ... | queue_name = q_gradient_in` lines.
pub fn write_rows(slot: &Slot<'_>, rows: &[Row], out: &mut String) {
    for r in rows {
        let mut hex = String::new();
        for (k, b) in slot.bytes()[r.offset..r.offset + r.len].iter().enumerate() {
            if k > 0 {
                hex.push(' ');
            }
            push_hex_bytes(&mut hex, &[*b]);
        }
        out.push_str(&format!(
            "+0x{:02x} | {hex:<47} | {} = {}\n",
            r.offset, r.field, r.value
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows cover the 64 bytes exactly once.
    fn assert_each_byte_once(rows: &[Row]) {
        let mut seen = [0u8; 64];
        rows.iter().for_each(|r| {
            seen[r.offset..r.offset + r.len]
                .iter_mut()
                .for_each(|c| *c += 1)
        });
        assert!(seen.iter().all(|&c| c == 1), "{seen:?}");
    }

    #[test]
    fn every_byte_is_explained_once() {
        let s = Slot::new(&crate::text::tests::PE_BIN);
        let rows = explain(&s, Dialect::Semaphore8);
        assert_each_byte_once(&rows);
        let mut out = String::new();
        write_rows(&s, &rows, &mut out);
        assert!(out.contains("| ctype = ALL_REDUCE"), "{out}");
        assert!(out.starts_with("+0x00 | c8"), "{out}");
    }

    /// D155: moe_v6b's continuation is explained byte by byte as PSEUDO_DMA_EXT: no word
    /// length, no events, the source bound at +12.
    #[test]
    fn continuation_bytes_are_dma_ext_fields() {
        let s = Slot::new(&crate::continuation::tests::MOE_POOL_SLOT10);
        let rows = explain_continuation(&s);
        assert_each_byte_once(&rows);
        assert!(
            rows.iter()
                .all(|r| !r.field.starts_with("events") && r.field != "inst_word_len")
        );
        let r = rows.iter().find(|r| r.offset == 12).expect("a row at +12");
        assert_eq!(
            (r.field.as_str(), r.value.as_str()),
            ("src_bound_size_bytes", "268435456")
        );
    }
}
