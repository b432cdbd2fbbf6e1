//! The debug-info members of a real-shaped synthetic NEFF (reference §2.1;
//! [`crate::Shape::debug_info`]): per engine `sgNN/debug_info_asm_<Engine>.dbg`, one record per
//! slot in slot order pointing up to a BIR instruction, and `sgNN/debug_info_backend_<Engine>.dbg`,
//! the BIR instructions by name. The fields are neff-debug's schema (decision D230): file
//! 1 description, 2 parent file, 3 records, 4 engine code; record 1 id, 2 name, 3 parents.
//!
//! Encoded here with the few protobuf wire rules they use (varints and length-delimited fields);
//! neff-debug reads them back (the crate's tests).

use neff_isa::EngineType as Engine;

/// Slots per BIR instruction in the asm layer (a BIR instruction lowers to its slot plus waits
/// and increments; the ratio only sets the backend layer's size).
const SLOTS_PER_BIR: u64 = 4;

/// D230's engine code of a per-engine file: PE 1, Activation 2, Pool 3, DMA 4, DVE 5, SP 6.
fn engine_code(e: Engine) -> u64 {
    match e {
        Engine::Pe => 1,
        Engine::Act => 2,
        Engine::Pool => 3,
        Engine::Dve => 5,
        Engine::Sp => 6,
    }
}

/// The asm member's name of engine `e` (without the subgraph folder).
pub(crate) fn asm_member(e: Engine) -> String {
    format!("debug_info_asm_{}.dbg", e.real_file_stem())
}

/// The backend (BIR) member's name of engine `e`.
pub(crate) fn backend_member(e: Engine) -> String {
    format!("debug_info_backend_{}.dbg", e.real_file_stem())
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Field `field` of wire type 0 (varint).
fn put_varint(out: &mut Vec<u8>, field: u64, v: u64) {
    varint(out, field << 3);
    varint(out, v);
}

/// Field `field` of wire type 2 (bytes, string, message, packed list).
fn put_bytes(out: &mut Vec<u8>, field: u64, bytes: &[u8]) {
    varint(out, (field << 3) | 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// The DMA backend member def.json's `dma_dbg` names (D230 engine code 4).
pub(crate) const DMA_BACKEND_MEMBER: &str = "debug_info_backend_DMA.dbg";

/// The head of a per-engine file: description, parent file, engine code.
fn head(description: &str, parent: &str, code: u64) -> Vec<u8> {
    let mut out = Vec::new();
    put_bytes(&mut out, 1, description.as_bytes());
    put_bytes(&mut out, 2, parent.as_bytes());
    put_varint(&mut out, 4, code);
    out
}

/// `debug_info_backend_DMA.dbg`: the head of the DMA engine's BIR layer, no records (the
/// synthetic streams' DMA triggers are attributed to their engines' BIR instructions).
pub(crate) fn dma_backend() -> Vec<u8> {
    head(
        "Debug info for BIR instructions",
        "debug_info_penguin.dbg",
        4,
    )
}

/// `debug_info_asm_<Engine>.dbg` of a stream of `slots` slots: record `i` (id `i + 1`) has the
/// parent BIR instruction `i / 4 + 1`.
pub(crate) fn asm(e: Engine, slots: u64) -> Vec<u8> {
    let mut out = head(
        "Debug info for one engine's assembly instructions, in binary order",
        &backend_member(e),
        engine_code(e),
    );
    let mut record = Vec::new();
    let mut parents = Vec::new();
    for i in 0..slots {
        record.clear();
        parents.clear();
        put_varint(&mut record, 1, i + 1);
        varint(&mut parents, i / SLOTS_PER_BIR + 1);
        put_bytes(&mut record, 3, &parents);
        put_bytes(&mut out, 3, &record);
    }
    out
}

/// `debug_info_backend_<Engine>.dbg`: the BIR instructions `I-<id>-0` the asm records name.
pub(crate) fn backend(e: Engine, slots: u64) -> Vec<u8> {
    let mut out = head(
        "Debug info for BIR instructions",
        "debug_info_penguin.dbg",
        engine_code(e),
    );
    let mut record = Vec::new();
    for id in 1..=slots.div_ceil(SLOTS_PER_BIR) {
        record.clear();
        put_varint(&mut record, 1, id);
        put_bytes(&mut record, 2, format!("I-{id}-0").as_bytes());
        put_bytes(&mut out, 3, &record);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_fields_follow_the_wire_format() {
        let mut v = Vec::new();
        varint(&mut v, 300);
        assert_eq!(v, [0xAC, 0x02]);
        let a = asm(Engine::Pe, 2);
        // Record 2: field 3 (0x1A), length 5: id 2 (08 02), parents packed (1A 01 01).
        assert!(
            a.ends_with(&[0x1A, 0x05, 0x08, 0x02, 0x1A, 0x01, 0x01]),
            "{a:02x?}"
        );
    }
}
