//! Writes a large NEFF of instruction-like members for benchmarks (scripts/bench_container.sh,
//! benches/container_read.rs): 64-byte slots with a plausible opcode, the 0x10 byte, events and a
//! few varying payload bytes, split into per-subgraph engine `.bin` members plus small JSONs.
//!
//! `cargo run --release -p neff-container --example make_large -- OUT.neff [MB]` (default 200 MB).

use neff_container::NeffBuilder;

/// One engine stream of `len` bytes (a multiple of 64) of instruction-shaped slots.
pub fn instruction_stream(len: usize, seed: u64) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    let mut x = seed | 1;
    for (i, slot) in bytes.chunks_mut(64).enumerate() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        slot[0] = [0xC1, 0xA0, 0x41, 0x21, 0x61, 0xB1][(x % 6) as usize];
        slot[1] = 0x10;
        slot[4] = (x >> 8) as u8 & 7;
        slot[5] = (x >> 16) as u8 & 31;
        for k in 0..((x >> 24) % 24) as usize {
            slot[8 + k] = (x >> (k % 40)) as u8 ^ (i as u8);
        }
    }
    bytes
}

/// A NEFF of about `mb` MiB of members: subgraphs of five 8 MiB engine streams and a def.json.
pub fn large_neff(mb: usize) -> Vec<u8> {
    let mut b = NeffBuilder::new();
    b.set_uuid(uuid_of(0x1a7e));
    b.set_name("large.neff").expect("short name");
    let per_stream = 8 << 20;
    let streams = (mb << 20).div_ceil(per_stream);
    for s in 0..streams {
        let sg = s / 5;
        let engine = ["Activation", "DVE", "PE", "Pool", "SP"][s % 5];
        b.add(
            &format!("sg{sg:02}/{engine}.bin"),
            instruction_stream(per_stream, s as u64 + 1),
        )
        .expect("unique");
        if s % 5 == 0 {
            b.add(
                &format!("sg{sg:02}/def.json"),
                br#"{"name":"definition","version":"0.6"}"#.to_vec(),
            )
            .expect("unique");
        }
    }
    b.add(
        "kelf-0.json",
        br#"{"graphs":[],"target":"cayman","version":"0.5"}"#.to_vec(),
    )
    .expect("unique");
    b.build().expect("builds")
}

fn uuid_of(n: u128) -> uuid::Uuid {
    uuid::Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_0000 | n)
}

#[allow(dead_code)] // also compiled into the bench, which does not call main
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().ok_or("usage: make_large OUT.neff [MB]")?;
    let mb = args.next().map(|s| s.parse()).transpose()?.unwrap_or(200);
    let bytes = large_neff(mb);
    neff_container::write_atomic(std::path::Path::new(&out), &bytes)?;
    eprintln!("wrote {out}: {} bytes", bytes.len());
    Ok(())
}
