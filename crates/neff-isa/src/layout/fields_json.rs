//! The typed payload fields of a slot as serde data: the one output shape of `neff disasm --json`
//! `fields` and of Python's `Instruction.fields` (decisions D130, D423). Integers are numbers, enums
//! their names (an unknown value stays a number), fp32 a number, tensors / DMA patterns / ADDR8 /
//! operands objects. Serialized straight to the writer: no tree is built (decision D424).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::{FieldKind, FieldValue, ImmForm, Layout};
use crate::dtype::DTYPE;
use crate::slot::Slot;

/// `{field name: value}` for every field of a layout on a slot, in the layout's order.
#[derive(Debug, Clone, Copy)]
pub struct SlotFields<'a> {
    slot: Slot<'a>,
    layout: &'a Layout,
}

impl<'a> SlotFields<'a> {
    /// The fields of `layout` read from `slot`.
    pub const fn new(slot: Slot<'a>, layout: &'a Layout) -> Self {
        Self { slot, layout }
    }
}

impl Serialize for SlotFields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.layout.fields.len()))?;
        for f in self.layout.fields {
            m.serialize_entry(f.name, &FieldJson::new(f.kind, f.read(&self.slot)))?;
        }
        m.end()
    }
}

/// One field's value in its output shape.
#[derive(Debug, Clone, Copy)]
pub struct FieldJson {
    kind: FieldKind,
    value: FieldValue,
}

impl FieldJson {
    /// The output shape of `value`, a field of `kind`.
    pub const fn new(kind: FieldKind, value: FieldValue) -> Self {
        Self { kind, value }
    }
}

/// A dtype code: its name, the number when unnamed, `null` when the field has none.
struct DtypeJson(Option<u8>);

impl Serialize for DtypeJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(c) => match DTYPE.name_of(c) {
                Some(n) => s.serialize_str(n),
                None => s.serialize_u8(c),
            },
        }
    }
}

/// The first `n` (at most 4) values of an array.
struct Prefix<'a, T>(&'a [T], u8);

impl<T: Serialize> Serialize for Prefix<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = &self.0[..usize::from(self.1).min(4).min(self.0.len())];
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for x in v {
            seq.serialize_element(x)?;
        }
        seq.end()
    }
}

/// An fp32 as the f64 it widens to (what a JSON number holds; non-finite values are `null`).
fn f32_json(bits: u32) -> f64 {
    f64::from(f32::from_bits(bits))
}

/// `{k: v, ...}` from (key, value) pairs of one type.
macro_rules! object {
    ($s:expr, $($k:literal => $v:expr),* $(,)?) => {{
        let mut m = $s.serialize_map(None)?;
        $(m.serialize_entry($k, &$v)?;)*
        m.end()
    }};
}

impl Serialize for FieldJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.value {
            FieldValue::Int(n) => match self.kind {
                FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t) => {
                    match u8::try_from(n).ok().and_then(|b| t.name_of(b)) {
                        Some(name) => s.serialize_str(name),
                        None => s.serialize_u64(n),
                    }
                }
                FieldKind::F32 => s.serialize_f64(f32_json(n as u32)),
                _ => s.serialize_u64(n),
            },
            FieldValue::Name(raw, width) => {
                let raw = &raw[..usize::from(width)];
                let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                s.serialize_str(&String::from_utf8_lossy(&raw[..end]))
            }
            FieldValue::Tensor(t) => object!(s,
                "dtype" => DtypeJson(t.dtype), "start_addr" => t.start_addr, "psum" => t.is_psum(),
                "partition" => t.partition(), "partition_offset" => t.partition_offset(),
                "step" => Prefix(&t.step, t.dims), "num" => Prefix(&t.num, t.dims),
            ),
            FieldValue::Pattern(p) => object!(s,
                "step" => Prefix(&p.step, p.dims), "num" => Prefix(&p.num, p.dims),
            ),
            FieldValue::Addr8(a) => object!(s,
                "immediate" => a.immediate, "entry" => a.entry, "shape_reg" => a.b6, "mode" => a.mode,
            ),
            FieldValue::Ptr(addr, d) => object!(s, "addr" => addr, "dtype" => DtypeJson(d)),
            FieldValue::Operand { bits, ptr, dtype } => {
                let imm_f32 = matches!(self.kind, FieldKind::Operand(op) if op.imm == ImmForm::F32);
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("ptr", &ptr)?;
                if !ptr && imm_f32 {
                    m.serialize_entry("value", &f32_json(bits))?;
                } else {
                    m.serialize_entry("value", &bits)?;
                }
                m.serialize_entry("dtype", &DtypeJson(dtype))?;
                m.end()
            }
            FieldValue::Ints(vals, n) => Prefix(&vals, n).serialize(s),
            FieldValue::EventsExt(e) => object!(s,
                "wait_mode" => e.wait_mode, "wait_idx" => e.wait_idx,
                "update_mode" => e.update_mode, "update_idx" => e.update_idx,
                "sem_wait_value" => e.sem_wait_value, "sem_update_value" => e.sem_update_value,
            ),
        }
    }
}
