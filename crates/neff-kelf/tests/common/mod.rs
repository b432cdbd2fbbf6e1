//! The spec's sg00 sample (spec 000 §9, spec 003 §7) as in-memory members.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;

/// pe.bin of spec 003 §7.1: one PSEUDO_TRIGGER_COLLECTIVE slot.
pub const PE_BIN: [u8; 64] = {
    let mut b = [0u8; 64];
    let head = [
        0xc8, 0x10, 0, 0, 0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0, 0x04, 0x0a, 0, 0, 0x03, 0, 0, 0,
        0x04, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0x01,
    ];
    let mut i = 0;
    while i < head.len() {
        b[i] = head[i];
        i += 1;
    }
    b
};

/// pool.bin of spec 003 §7.2: two PSEUDO_DMA_TRIGGERs and an EVENT_SEMAPHORE.
pub fn pool_bin() -> Vec<u8> {
    let mut b = vec![0u8; 192];
    b[0] = 0xc1;
    b[1] = 0x10;
    b[12..25].copy_from_slice(b"q_gradient_in");
    b[64] = 0xc1;
    b[65] = 0x10;
    b[68] = 0x04;
    b[69] = 0x16;
    b[76..90].copy_from_slice(b"q_gradient_out");
    b[128] = 0xa0;
    b[129] = 0x10;
    b[132] = 0x04;
    b[133] = 0x0b;
    b
}

pub const KELF_A: &str =
    r#"{"version":"0.5","target":"sunda","graphs":[{"name":"sg00","definition":"sg00/def.json"}]}"#;

pub const DEF: &str = r#"{"name":"definition","version":"0.6-","pe":"pe.json","act":"act.json","pool":"pool.json","dve":"dve.json","sp":"sp.json","dma_queue":{"q_gradient_in":{"owner":"pool","semaphore":10,"type":"in"},"q_gradient_out":{"owner":"pool","semaphore":11,"type":"out"}},"var":{"input":{"type":"input","var_id":0,"size":128},"SB":{"type":"state-buffer","var_id":1},"output":{"type":"output","var_id":2,"size":128},"gradient_in":{"type":"tmp-buf","var_id":3,"size":128},"gradient_out":{"type":"tmp-buf","var_id":4,"size":128}},"replica_groups":[[]]}"#;

pub const POOL_JSON: &str = r##"{"dma":[{"id":0,"queue":"q_gradient_in","semaphore":10,"#comment":"input load","desc":[{"op":"copy","from":"input","from_off":0,"from_dtype":"float32","from_sizes":[128],"from_steps":[1],"to":"gradient_in","to_off":0,"to_dtype":"float32","to_sizes":[128],"to_steps":[1],"num_tiling_dimensions":1}]},{"id":0,"queue":"q_gradient_out","semaphore":11,"desc":[{"op":"copy","from":"gradient_out","from_dtype":"float32","to":"output","to_dtype":"float32"}]}],"instr":"pool.bin","name":"pool_json"}"##;

/// The sample's members.
pub fn sample() -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    let mut put = |k: &str, v: Vec<u8>| {
        m.insert(k.to_owned(), v);
    };
    put("kelf-a.json", KELF_A.into());
    put("sg00/def.json", DEF.into());
    put(
        "sg00/pe.json",
        br#"{"dma":[],"instr":"pe.bin","name":"pe_array_json"}"#.to_vec(),
    );
    put("sg00/pool.json", POOL_JSON.into());
    for e in ["act", "dve", "sp"] {
        let j = format!(r#"{{"dma":[],"instr":"{e}.bin","name":"{e}_json"}}"#);
        put(&format!("sg00/{e}.json"), j.into_bytes());
        put(&format!("sg00/{e}.bin"), Vec::new());
    }
    put("sg00/pe.bin", PE_BIN.to_vec());
    put("sg00/pool.bin", pool_bin());
    m
}

/// Replaces a member's text with `f(text)`.
pub fn edit(m: &mut BTreeMap<String, Vec<u8>>, member: &str, f: impl FnOnce(String) -> String) {
    let text = String::from_utf8(m[member].clone()).unwrap();
    m.insert(member.to_owned(), f(text).into_bytes());
}

/// A queue as tests compare it: (name, owner, type, semaphores, descriptor count).
pub type QueueRow<'k> = (
    &'k str,
    Option<neff_kelf::EngineType>,
    &'k str,
    Vec<u32>,
    usize,
);

/// Every DMA queue of a kbin as a [`QueueRow`], in kbin order.
pub fn queue_rows<'k>(kbin: &'k neff_kelf::Kbin<'_>) -> Vec<QueueRow<'k>> {
    kbin.dma_queues
        .iter()
        .map(|q| {
            (
                q.name.as_str(),
                q.owner,
                q.ty.as_str(),
                q.semaphores.clone(),
                q.ndesc(),
            )
        })
        .collect()
}
