//! Builds the spec's own sample NEFF (spec 000 §9, spec 003 §7, spec 004 §1-§2): the C08220
//! sg00 program — pe.bin (one PSEUDO_TRIGGER_COLLECTIVE), pool.bin (two PSEUDO_DMA_TRIGGER and an
//! EVENT_SEMAPHORE), empty act/dve/sp programs, their JSONs, sg00/def.json and kelf-a.json.
//! JSON details the spec leaves open follow the real-file conventions (decision D25).
//!
//! `cargo run -p neff-container --example make_sample -- examples/sample.neff`
//! (the path is relative to the workspace root; the output is byte-for-byte deterministic).

use neff_container::NeffBuilder;

/// The fixed uuid of the sample (decision D25).
const SAMPLE_UUID: &str = "c0822000-5a3e-4e11-8f00-000000000001";

/// spec 003 §7.1: pe.bin, 64 bytes, PSEUDO_TRIGGER_COLLECTIVE
/// `$S[10]>0 $S[22]++@complete ctype=ALL_REDUCE input_tensor_id=3 output_tensor_id=4 num_elements=32 dtype=fp32 op=ADD group_id=0`.
fn pe_bin() -> Vec<u8> {
    let mut slot = vec![0u8; 64];
    slot[..0x24].copy_from_slice(&[
        0xc8, 0x10, 0x00, 0x00, 0x04, 0x0a, 0x13, 0x16, 0x00, 0x00, 0x00, 0x00, 0x04, 0x0a, 0x00,
        0x00, //
        0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, //
        0x01, 0x00, 0x00, 0x00,
    ]);
    slot
}

/// spec 003 §7.2: pool.bin, 192 bytes: `PSEUDO_DMA_TRIGGER q_gradient_in block_id=0;`,
/// `PSEUDO_DMA_TRIGGER $S[22]>0 q_gradient_out block_id=0;`, `EVENT_SEMAPHORE $S[11]>0;`.
fn pool_bin() -> Vec<u8> {
    let mut bin = vec![0u8; 192];
    bin[0x00..0x04].copy_from_slice(&[0xc1, 0x10, 0x00, 0x00]);
    bin[0x0c..0x0c + 13].copy_from_slice(b"q_gradient_in");
    bin[0x40..0x46].copy_from_slice(&[0xc1, 0x10, 0x00, 0x00, 0x04, 0x16]);
    bin[0x4c..0x4c + 14].copy_from_slice(b"q_gradient_out");
    bin[0x80..0x86].copy_from_slice(&[0xa0, 0x10, 0x00, 0x00, 0x04, 0x0b]);
    bin
}

/// kelf-a.json (spec 004 §1: `{version, target, graphs[]}`; values as in reference §3.1).
const KELF_A_JSON: &str =
    r#"{"graphs":[{"definition":"sg00/def.json","name":"sg00"}],"target":"sunda","version":"0.5"}"#;

/// sg00/def.json (spec 000 §9): version "0.6-", engine JSONs, the two pool-owned DMA queues
/// (semaphores 10 and 11), the five vars, replica_groups [[]].
const DEF_JSON: &str = concat!(
    r#"{"act":"act.json","act_instr":"act.bin","#,
    r#""dma_queue":{"q_gradient_in":{"num_queues":1,"owner":"pool","semaphore":10,"type":"in"},"#,
    r#""q_gradient_out":{"num_queues":1,"owner":"pool","semaphore":11,"type":"out"}},"#,
    r#""dve":"dve.json","dve_instr":"dve.bin","name":"definition","neff_features":[],"#,
    r#""pe":"pe.json","pe_instr":"pe.bin","pool":"pool.json","pool_instr":"pool.bin","#,
    r#""replica_groups":[[]],"sp":"sp.json","sp_instr":"sp.bin","#,
    r#""var":{"SB":{"type":"state-buffer","var_id":1},"#,
    r#""gradient_in":{"ops":[],"size":128,"type":"tmp-buf","var_id":3},"#,
    r#""gradient_out":{"ops":[],"size":128,"type":"tmp-buf","var_id":4},"#,
    r#""input":{"ops":[],"size":128,"type":"input","var_id":0},"#,
    r#""output":{"ops":[],"size":128,"type":"output","var_id":2}},"#,
    r#""version":"0.6-"}"#
);

/// sg00/pe.json, verbatim from spec 000 §9.
const PE_JSON: &str = r#"{"dma":[],"instr":"pe.bin","name":"pe_array_json"}"#;

/// sg00/pool.json: one DMA block (id 0, the trigger's block_id) per queue, 32 x fp32 each.
const POOL_JSON: &str = concat!(
    r#"{"dma":[{"desc":[{"from":"input","from_dtype":"float32","from_off":0,"from_sizes":[128],"from_steps":[1],"#,
    r#""op":"copy","to":"gradient_in","to_dtype":"float32","to_off":0,"to_sizes":[128],"to_steps":[1]}],"#,
    r#""id":0,"queue":"q_gradient_in"},"#,
    r#"{"desc":[{"from":"gradient_out","from_dtype":"float32","from_off":0,"from_sizes":[128],"from_steps":[1],"#,
    r#""op":"copy","to":"output","to_dtype":"float32","to_off":0,"to_sizes":[128],"to_steps":[1]}],"#,
    r#""id":0,"queue":"q_gradient_out"}],"instr":"pool.bin","name":"pool.json"}"#
);

/// The sample NEFF's bytes.
#[allow(unreachable_pub)] // `pub` for tests/sample.rs, which compiles this file as a module
pub fn sample_neff() -> Vec<u8> {
    let mut b = NeffBuilder::new();
    b.set_name("sample").expect("short name");
    b.set_uuid(SAMPLE_UUID.parse().expect("valid uuid"));
    let members: [(&str, Vec<u8>); 12] = [
        ("kelf-a.json", KELF_A_JSON.into()),
        ("sg00/def.json", DEF_JSON.into()),
        ("sg00/pe.json", PE_JSON.into()),
        ("sg00/pe.bin", pe_bin()),
        ("sg00/pool.json", POOL_JSON.into()),
        ("sg00/pool.bin", pool_bin()),
        (
            "sg00/act.json",
            r#"{"dma":[],"instr":"act.bin","name":"act.json"}"#.into(),
        ),
        ("sg00/act.bin", Vec::new()),
        (
            "sg00/dve.json",
            r#"{"dma":[],"instr":"dve.bin","name":"dve.json"}"#.into(),
        ),
        ("sg00/dve.bin", Vec::new()),
        (
            "sg00/sp.json",
            r#"{"dma":[],"instr":"sp.bin","name":"sp.json"}"#.into(),
        ),
        ("sg00/sp.bin", Vec::new()),
    ];
    for (path, data) in members {
        b.add(path, data).expect("distinct valid paths");
    }
    b.build().expect("the sample builds")
}

#[allow(dead_code)] // also compiled into tests/sample.rs, which does not call main
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "examples/sample.neff".into());
    neff_container::write_atomic(std::path::Path::new(&out), &sample_neff())?;
    eprintln!("wrote {out}");
    Ok(())
}
