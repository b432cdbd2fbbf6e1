//! The typed payload fields of a slot as JSON (`neff disasm --json` `fields`), read from neff-isa's
//! one layout table: integers as numbers, enums by name (an unknown value stays a number), fp32
//! as a number, tensors / DMA patterns / ADDR8 / operands as objects (decision D130).

use neff_isa::layout::{FieldKind, FieldValue, ImmForm, Layout};
use neff_isa::{DTYPE, Slot};
use serde_json::{Map, Value, json};

/// `{field name: value}` for every field of `layout` on `slot`, in the layout's order.
pub(crate) fn fields_json(slot: &Slot<'_>, layout: &Layout) -> Value {
    let mut m = Map::new();
    for f in layout.fields {
        m.insert(f.name.to_owned(), value(f.kind, &f.read(slot)));
    }
    Value::Object(m)
}

/// A dtype code by name, or the number when unnamed.
fn dtype(code: Option<u8>) -> Value {
    code.map_or(Value::Null, |c| {
        DTYPE.name_of(c).map_or_else(|| json!(c), |n| json!(n))
    })
}

fn value(kind: FieldKind, v: &FieldValue) -> Value {
    match *v {
        FieldValue::Int(n) => match kind {
            FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t) => u8::try_from(n)
                .ok()
                .and_then(|b| t.name_of(b))
                .map_or_else(|| json!(n), |name| json!(name)),
            FieldKind::F32 => json!(f32::from_bits(n as u32)),
            _ => json!(n),
        },
        FieldValue::Name(raw, width) => {
            let raw = &raw[..usize::from(width)];
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            json!(String::from_utf8_lossy(&raw[..end]))
        }
        FieldValue::Tensor(t) => {
            let d = usize::from(t.dims).min(4);
            json!({
                "dtype": dtype(t.dtype), "start_addr": t.start_addr, "psum": t.is_psum(),
                "partition": t.partition(), "partition_offset": t.partition_offset(),
                "step": &t.step[..d], "num": &t.num[..d],
            })
        }
        FieldValue::Pattern(p) => {
            let d = usize::from(p.dims).min(4);
            json!({"step": &p.step[..d], "num": &p.num[..d]})
        }
        FieldValue::Addr8(a) => json!({
            "immediate": a.immediate, "entry": a.entry, "shape_reg": a.b6, "mode": a.mode,
        }),
        FieldValue::Ptr(addr, d) => json!({"addr": addr, "dtype": dtype(d)}),
        FieldValue::Operand {
            bits,
            ptr,
            dtype: d,
        } => {
            let imm_f32 = matches!(kind, FieldKind::Operand(op) if op.imm == ImmForm::F32);
            let value = if !ptr && imm_f32 {
                json!(f32::from_bits(bits))
            } else {
                json!(bits)
            };
            json!({"ptr": ptr, "value": value, "dtype": dtype(d)})
        }
        FieldValue::Ints(vals, n) => json!(&vals[..usize::from(n).min(4)]),
        FieldValue::EventsExt(e) => json!({
            "wait_mode": e.wait_mode, "wait_idx": e.wait_idx, "update_mode": e.update_mode,
            "update_idx": e.update_idx, "sem_wait_value": e.sem_wait_value,
            "sem_update_value": e.sem_update_value,
        }),
    }
}
