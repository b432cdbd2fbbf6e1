//! The typed payload fields of a slot as serde data: the one output shape of `neff disasm --json`
//! `fields` and of Python's `Instruction.fields` (decisions D130, D423). Integers are numbers, enums
//! their names (an unknown value stays a number), fp32 a number, tensors / DMA patterns / ADDR8 /
//! operands objects. Serialized straight to the writer: no tree is built (decision D424).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::{FieldKind, FieldValue, ImmForm, Layout};
use crate::dtype::DTYPE;
use crate::slot::Slot;
use crate::text::json;
use crate::text::{TextBuf, TextSink};

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

impl SlotFields<'_> {
    /// Appends the compact JSON of the fields: the bytes `serde_json::to_writer` writes for
    /// `self` (the [`Serialize`] impl below is the shape; `tests` compare the two on every slot
    /// of the fixtures and on random slots), written without a serializer (decision D660).
    pub fn write_json(&self, out: &mut TextBuf) {
        out.push('{');
        for (k, f) in self.layout.fields.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            json::key(out, f.name);
            FieldJson::new(f.kind, f.read(&self.slot)).write_json(out);
        }
        out.push('}');
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

impl DtypeJson {
    /// [`Serialize`]'s bytes, compact.
    fn write_json(&self, out: &mut TextBuf) {
        match self.0 {
            None => json::null(out),
            Some(c) => match DTYPE.name_of(c) {
                Some(n) => json::string(out, n),
                None => out.push_dec(c.into()),
            },
        }
    }
}

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

/// `[v0,v1,..]`, the first `n` (at most 4) of `vals` as [`Prefix`] serializes them.
fn write_prefix<T: Copy + Into<i64>>(out: &mut TextBuf, vals: &[T], n: u8) {
    out.push('[');
    for (k, &v) in vals[..usize::from(n).min(4).min(vals.len())]
        .iter()
        .enumerate()
    {
        if k > 0 {
            out.push(',');
        }
        json::int(out, v.into());
    }
    out.push(']');
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

impl FieldJson {
    /// Appends the compact JSON of the value: [`Serialize`]'s bytes (decision D660).
    pub fn write_json(&self, out: &mut TextBuf) {
        match self.value {
            FieldValue::Int(n) => match self.kind {
                FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t) => {
                    match u8::try_from(n).ok().and_then(|b| t.name_of(b)) {
                        Some(name) => json::string(out, name),
                        None => out.push_dec(n),
                    }
                }
                FieldKind::F32 => json::float(out, f32_json(n as u32)),
                _ => out.push_dec(n),
            },
            FieldValue::Name(raw, width) => {
                let raw = &raw[..usize::from(width)];
                let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                json::string(out, &String::from_utf8_lossy(&raw[..end]));
            }
            FieldValue::Tensor(t) => {
                json::key_first(out, "dtype");
                DtypeJson(t.dtype).write_json(out);
                json::key_next(out, "start_addr");
                out.push_dec(t.start_addr.into());
                json::key_next(out, "psum");
                json::boolean(out, t.is_psum());
                json::key_next(out, "partition");
                out.push_dec(t.partition().into());
                json::key_next(out, "partition_offset");
                out.push_dec(t.partition_offset().into());
                json::key_next(out, "step");
                write_prefix(out, &t.step, t.dims);
                json::key_next(out, "num");
                write_prefix(out, &t.num, t.dims);
                out.push('}');
            }
            FieldValue::Pattern(p) => {
                json::key_first(out, "step");
                write_prefix(out, &p.step, p.dims);
                json::key_next(out, "num");
                write_prefix(out, &p.num, p.dims);
                out.push('}');
            }
            FieldValue::Addr8(a) => {
                json::key_first(out, "immediate");
                out.push_dec(a.immediate.into());
                json::key_next(out, "entry");
                out.push_dec(a.entry.into());
                json::key_next(out, "shape_reg");
                out.push_dec(a.b6.into());
                json::key_next(out, "mode");
                out.push_dec(a.mode.into());
                out.push('}');
            }
            FieldValue::Ptr(addr, d) => {
                json::key_first(out, "addr");
                out.push_dec(addr.into());
                json::key_next(out, "dtype");
                DtypeJson(d).write_json(out);
                out.push('}');
            }
            FieldValue::Operand { bits, ptr, dtype } => {
                let imm_f32 = matches!(self.kind, FieldKind::Operand(op) if op.imm == ImmForm::F32);
                json::key_first(out, "ptr");
                json::boolean(out, ptr);
                json::key_next(out, "value");
                if !ptr && imm_f32 {
                    json::float(out, f32_json(bits));
                } else {
                    out.push_dec(bits.into());
                }
                json::key_next(out, "dtype");
                DtypeJson(dtype).write_json(out);
                out.push('}');
            }
            FieldValue::Ints(vals, n) => write_prefix(out, &vals, n),
            FieldValue::EventsExt(e) => {
                json::key_first(out, "wait_mode");
                out.push_dec(e.wait_mode.into());
                json::key_next(out, "wait_idx");
                out.push_dec(e.wait_idx.into());
                json::key_next(out, "update_mode");
                out.push_dec(e.update_mode.into());
                json::key_next(out, "update_idx");
                out.push_dec(e.update_idx.into());
                json::key_next(out, "sem_wait_value");
                out.push_dec(e.sem_wait_value.into());
                json::key_next(out, "sem_update_value");
                out.push_dec(e.sem_update_value.into());
                out.push('}');
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Dialect;
    use crate::opcode::Opcode;
    use crate::slot::SLOT_BYTES;
    use crate::text::layout_for_dialect;
    use proptest::prelude::*;

    /// Both writers of one slot's fields: serde_json's bytes and the compact writer's.
    fn both(bytes: &[u8; SLOT_BYTES], layout: &Layout) -> (Vec<u8>, Vec<u8>) {
        let slot = Slot::from_slice(bytes).unwrap();
        let fields = SlotFields::new(slot, layout);
        let mut out = TextBuf::with_capacity(1);
        fields.write_json(&mut out);
        (
            serde_json::to_vec(&fields).unwrap(),
            out.as_bytes().to_vec(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every layout of both dialects, on random payload bytes (unknown enum values, NaN and
        /// subnormal floats, names with controls and invalid UTF-8 included).
        #[test]
        fn the_compact_writer_writes_serde_jsons_bytes(
            payload in proptest::collection::vec(any::<u8>(), SLOT_BYTES),
            zeros in any::<u64>(),
        ) {
            let mut bytes = [0u8; SLOT_BYTES];
            for (k, (b, &p)) in bytes.iter_mut().zip(&payload).enumerate() {
                // Some bytes zero, as real slots have them (dims, enums, names end early).
                *b = if zeros >> k & 1 == 1 { 0 } else { p };
            }
            for dialect in [Dialect::Semaphore8, Dialect::Legacy4] {
                for op in 0..=u8::MAX {
                    let Some(layout) = layout_for_dialect(Opcode(op), dialect) else { continue };
                    bytes[0] = op;
                    let (want, got) = both(&bytes, layout);
                    prop_assert_eq!(
                        String::from_utf8_lossy(&got), String::from_utf8_lossy(&want),
                        "opcode {:#04x} {:?}", op, dialect
                    );
                }
            }
        }
    }

    /// The DMA extension layout (a continuation's fields) on the all-zero and all-ones slot.
    #[test]
    fn the_extension_layout_agrees_at_the_extremes() {
        for fill in [0u8, 0xFF] {
            let bytes = [fill; SLOT_BYTES];
            let (want, got) = both(&bytes, &crate::payload::DMA_EXTENSION);
            assert_eq!(got, want);
        }
    }
}
