//! The KLR-shaped document of reference §5.1 (function "sg0000", Block1, one TensorScalar with
//! physical_ap operands) reads, checks and writes back byte for byte.

use neff_bir::json::{Style, from_slice, to_vec};
use neff_bir::{ApDim, ArgKind, Engine, EngineKind, Item, Opcode, verify};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/klr_tensor_scalar.json"
);

fn fixture() -> Vec<u8> {
    std::fs::read(FIXTURE).expect("fixture written from reference §5.1")
}

#[test]
fn klr_tensor_scalar_reads_with_reference_shape() {
    let p = from_slice(&fixture()).unwrap();
    assert_eq!(p.functions.len(), 1);
    let f = &p.functions[0];
    assert_eq!(f.name, "sg0000");
    let block = p.block(f.blocks[0]).unwrap();
    assert_eq!(block.name, "Block1");
    let Item::Inst(id) = block.items[0] else {
        panic!("instruction expected")
    };
    let inst = p.inst(id).unwrap();
    assert_eq!(inst.name, "noop_test");
    assert_eq!(inst.opcode.opcode(), Some(Opcode::TensorScalar));
    assert_eq!(inst.engine, Engine::Known(EngineKind::Unassigned));
    let input = &inst.ins[0];
    assert_eq!(input.kind, ArgKind::PhysicalAp);
    // KLR's full 2-D AP: [[free_size, num_partitions], [1, free_size]].
    assert_eq!(
        input.ap.as_deref(),
        Some(
            &[
                ApDim {
                    step: 512,
                    num: 128
                },
                ApDim { step: 1, num: 512 }
            ][..]
        )
    );
    assert_eq!(input.memref.as_deref(), Some("in_tensor"));
    assert_eq!(input.memsetref.as_deref(), Some("in_tensor_set"));
    assert_eq!(inst.op_fields["op0"], "add");
    assert_eq!(p.arch, Some(serde_json::json!("gen3")));
    assert_eq!(p.version, Some(serde_json::json!(2)));
    assert!(verify(&p).is_empty());
}

#[test]
fn klr_tensor_scalar_writes_back_byte_for_byte() {
    let bytes = fixture();
    let p = from_slice(&bytes).unwrap();
    let out = to_vec(&p, Style::Pretty);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&bytes)
    );
}

#[test]
fn canonical_form_is_byte_stable() {
    let p = from_slice(&fixture()).unwrap();
    let once = to_vec(&p, Style::Canonical);
    let again = to_vec(&from_slice(&once).unwrap(), Style::Canonical);
    assert_eq!(once, again);
    assert_eq!(from_slice(&once).unwrap(), p);
    assert!(
        once.starts_with(br#"{"attributes":{"neuron_core_id":0},"functions":[{"name":"sg0000""#)
    );
}
