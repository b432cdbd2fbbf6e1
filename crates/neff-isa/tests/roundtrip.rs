//! Property tests: every 64-byte slot survives text (spec 003; decision D4), every typed field
//! value survives bytes and text, and the validator never panics.

use neff_isa::layout::{FieldKind, FieldValue, Show, Tensor};
use neff_isa::text::{DisasmOptions, Line, TextBuf, assemble, disassemble, parse_line, print_slot};
use neff_isa::validate::{ValidateOptions, validate};
use neff_isa::{Dialect, OPCODES, Slot, SlotBuf};
use proptest::prelude::*;

fn slot_bytes() -> impl Strategy<Value = [u8; 64]> {
    // Bias toward table opcodes and len 16 so typed printers are exercised, not only `.slot`.
    (any::<[u8; 64]>(), 0..OPCODES.len(), any::<u8>()).prop_map(|(mut b, i, mode)| {
        if mode & 1 == 0 {
            b[0] = OPCODES[i].value;
        }
        if mode & 2 == 0 {
            b[1] = 16;
        }
        if mode & 4 == 0 {
            // Mostly-zero payloads look like real slots.
            b[12..]
                .iter_mut()
                .enumerate()
                .for_each(|(k, x)| *x &= if k % 5 == 0 { 0xff } else { 0 });
        }
        if mode & 8 == 0 {
            b[4] = [0, 1, 4, 5, 6, 0x85][(mode >> 4) as usize % 6];
            b[6] = [0, 3, 0x13, 5, 0x15, 9][(mode >> 5) as usize % 6];
        }
        b
    })
}

fn round_trip(b: &[u8; 64], dialect: Dialect) -> Result<(), TestCaseError> {
    let mut line = String::new();
    print_slot(&Slot::new(b), dialect, &mut line);
    // The byte buffer `neff disasm` prints into writes the same text.
    let mut buf = TextBuf::default();
    print_slot(&Slot::new(b), dialect, &mut buf);
    prop_assert_eq!(buf.as_bytes(), line.as_bytes());
    match parse_line(&line, dialect) {
        Ok(Line::Slot(SlotBuf(back))) => prop_assert_eq!(&back, b, "line: {}", line),
        other => prop_assert!(false, "line {line} parsed as {other:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_slot_round_trips_through_text(b in slot_bytes()) {
        round_trip(&b, Dialect::Semaphore8)?;
    }

    #[test]
    fn any_slot_round_trips_in_legacy_dialect(b in slot_bytes()) {
        round_trip(&b, Dialect::Legacy4)?;
    }

    #[test]
    fn any_stream_round_trips_with_prefixes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut text = String::new();
        disassemble(&bytes, DisasmOptions { index_prefix: true, ..Default::default() }, &mut text);
        prop_assert_eq!(assemble(&text, Dialect::Semaphore8).map_err(|e| e.to_string()), Ok(bytes));
        let _ = validate(&text.into_bytes(), &ValidateOptions::default());
    }
}

fn value_for(kind: FieldKind, seed: u64) -> FieldValue {
    let nib = seed & 0xF;
    let dtype_for = |at: Option<neff_isa::layout::DtypeAt>| {
        at.map(|at| match at.part {
            neff_isa::layout::Part::Byte => (seed >> 40) as u8,
            _ => (seed >> 40) as u8 & 0xF,
        })
    };
    match kind {
        FieldKind::U8 | FieldKind::Hex8 | FieldKind::Enum(_) => FieldValue::Int(seed & 0xFF),
        FieldKind::Lo(_) | FieldKind::Hi(_) => FieldValue::Int(nib),
        FieldKind::U16 => FieldValue::Int(seed & 0xFFFF),
        FieldKind::U32 | FieldKind::Hex32 | FieldKind::F32 => FieldValue::Int(seed & 0xFFFF_FFFF),
        FieldKind::U64 | FieldKind::Hex64 => FieldValue::Int(seed),
        FieldKind::Name(n) => {
            let mut b = [0u8; 32];
            let len = (seed % u64::from(n)) as usize;
            b.iter_mut()
                .take(len)
                .enumerate()
                .for_each(|(i, c)| *c = b"q_abcXYZ09-. \"\\\x01"[(seed as usize + i) % 16]);
            FieldValue::Name(b, n)
        }
        FieldKind::Tensor(d, at) => {
            let mut t = Tensor {
                start_addr: seed as u32,
                dims: d,
                dtype: dtype_for(at),
                ..Tensor::default()
            };
            (0..d as usize).for_each(|i| {
                t.step[i] = (seed >> (8 * i)) as i16;
                t.num[i] = (seed >> (4 * i)) as u16;
            });
            FieldValue::Tensor(t)
        }
        FieldKind::Pattern(d) => {
            let mut p = neff_isa::layout::Pattern {
                dims: d,
                ..Default::default()
            };
            (0..d as usize).for_each(|i| {
                p.step[i] = (seed >> (8 * i)) as u32;
                p.num[i] = (seed >> (4 * i)) as u16;
            });
            FieldValue::Pattern(p)
        }
        FieldKind::Addr8 => FieldValue::Addr8(neff_isa::layout::Addr8 {
            immediate: seed as u32,
            entry: (seed >> 32) as u16,
            b6: (seed >> 48) as u8,
            mode: [0x10, 0x20, 0x28, (seed >> 56) as u8][(seed >> 60) as usize % 4],
        }),
        FieldKind::Ptr(at) => FieldValue::Ptr(seed as u32, dtype_for(at)),
        FieldKind::Operand(op) => FieldValue::Operand {
            bits: seed as u32,
            ptr: false,
            dtype: dtype_for(op.dtype),
        },
        FieldKind::Shape => {
            FieldValue::Ints([seed as u8 as u32, (seed >> 8) as u8 as u32, 0, 0], 2)
        }
        FieldKind::U32s(n) => FieldValue::Ints([seed as u32, (seed >> 32) as u32, 0, 0], n),
        FieldKind::U16s(n) => {
            FieldValue::Ints([seed as u16 as u32, (seed >> 16) as u16 as u32, 0, 0], n)
        }
        FieldKind::EventsExt => {
            let b: [u8; 12] = std::array::from_fn(|i| (seed >> (i % 8 * 8)) as u8);
            FieldValue::EventsExt(neff_isa::EventsExtended::from_bytes(&b))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Random typed instructions: every field value written through the layout reads back as
    /// written, except where a later field shares its bytes (a joined dtype, an operand's
    /// source): then reading is idempotent (what is read writes back to the same bytes). The
    /// slot survives text.
    #[test]
    fn typed_fields_round_trip_through_bytes(i in 0..OPCODES.len(), seeds in any::<[u64; 16]>(), ev in any::<[u8; 8]>()) {
        let info = &OPCODES[i];
        let mut buf = SlotBuf::new(neff_isa::Opcode(info.value));
        buf.set_events(neff_isa::Events::from_bytes(ev));
        let fields = info.layout.fields;
        let values: Vec<_> = fields.iter().zip(seeds).map(|(f, s)| value_for(f.kind, s)).collect();
        for (f, v) in fields.iter().zip(&values) {
            prop_assert!(f.write(&mut buf, v).is_ok(), "{} {:?}", f.name, v);
        }
        let read: Vec<_> = fields.iter().map(|f| f.read(&buf.view())).collect();
        for (f, (v, r)) in fields.iter().zip(values.iter().zip(&read)) {
            let shared = !matches!(f.show, Show::Always | Show::NonZero | Show::Positional)
                || matches!(f.kind, FieldKind::Operand(_) | FieldKind::Tensor(_, Some(_)) | FieldKind::Ptr(Some(_)));
            if !shared {
                prop_assert_eq!(r, v, "field {}", f.name);
            }
        }
        let mut again = buf;
        for (f, r) in fields.iter().zip(&read) {
            prop_assert!(f.write(&mut again, r).is_ok(), "{} {:?}", f.name, r);
        }
        prop_assert_eq!(again.0, buf.0);
        round_trip(&buf.0, Dialect::Semaphore8)?;
    }
}

/// Regression (CI, 2026-11-30): an EVENT_SEMAPHORE whose `events_extended` block has mode None
/// but a non-zero `sem_update_value` (+0x2A) printed as an empty `es=` and did not parse back.
#[test]
fn events_ext_with_none_modes_and_a_value_round_trips() {
    let mut b = [0u8; 64];
    b[0] = 0xa0;
    b[4] = 4;
    b[6] = 3;
    b[42] = 1;
    for dialect in [Dialect::Semaphore8, Dialect::Legacy4] {
        round_trip(&b, dialect).unwrap();
    }
}

/// A real-shaped 0xD4 (moe_v6b Pool slot 9 with random operand bytes) and a continuation with
/// random bytes: decision D155's records.
fn dma_record() -> impl Strategy<Value = Vec<u8>> {
    (any::<[u8; 64]>(), any::<[u8; 64]>(), any::<u8>()).prop_map(|(mut head, mut ext, mode)| {
        head[..4].copy_from_slice(&[0xd4, 0x10, 0, 0]);
        head[4..12].fill(0);
        if mode & 1 == 0 {
            head[0x17] = 0x28;
        }
        ext[0] = 0xda;
        if mode & 2 == 0 {
            ext[1..]
                .iter_mut()
                .enumerate()
                .for_each(|(k, x)| *x &= if k % 7 == 0 { 0xff } else { 0 });
        }
        [head, ext].concat()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn dma_records_round_trip_as_one_line(
        pre in proptest::collection::vec(slot_bytes(), 0..3),
        rec in dma_record(),
        post in proptest::collection::vec(slot_bytes(), 0..3),
    ) {
        let mut bytes: Vec<u8> = pre.concat();
        bytes.extend_from_slice(&rec);
        bytes.extend(post.concat());
        let mut text = String::new();
        disassemble(&bytes, DisasmOptions { index_prefix: true, ..Default::default() }, &mut text);
        prop_assert!(text.contains(" | PSEUDO_EXTENSION"), "{}", text);
        prop_assert_eq!(assemble(&text, Dialect::Semaphore8).map_err(|e| e.to_string()), Ok(bytes));
    }
}
