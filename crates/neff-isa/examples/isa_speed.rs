//! Single-run throughput of decode, decode+validate and disassembly on a generated 1M-slot
//! stream, reporting wall time AND on-CPU time (from /proc/self/schedstat), so figures stay
//! meaningful on a loaded machine. Run: `cargo run --release -p neff-isa --example isa_speed`.

use std::hint::black_box;
use std::time::Instant;

use neff_isa::text::{DisasmOptions, disassemble};
use neff_isa::validate::{ValidateOptions, validate_into};
use neff_isa::{Opcode, SlotBuf, slots};

const SLOTS: usize = 1_000_000;
const ROUNDS: u32 = 10;

/// The same mix as benches/isa_throughput.rs (reference §4.3-shaped).
fn stream() -> Vec<u8> {
    let mut templates = Vec::new();
    let mut t = SlotBuf::new(Opcode::PSEUDO_DMA_TRIGGER);
    t.put_name(0x0C, 32, b"qSPIO0");
    t.put_u32(0x30, 3);
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::EVENT_SEMAPHORE);
    t.0[4..12].copy_from_slice(&[5, 24, 0, 0, 16, 0, 0, 0]);
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::TENSOR_TENSOR_ARITH_OP);
    t.0[4..16].copy_from_slice(&[5, 9, 0x13, 6, 16, 0, 0, 0, 0xaa, 0x0a, 4, 0x80]);
    for o in [16, 32, 48] {
        t.put_u32(o, 0x2c180 + o as u32);
        t.0[o + 4..o + 16].copy_from_slice(&[1, 0, 1, 0, 1, 0, 0xe8, 3, 1, 0, 1, 0]);
    }
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::MATMUL);
    t.0[4..8].copy_from_slice(&[0, 0, 0x13, 5]);
    t.put_u32(0x10, 0x37b00);
    templates.push(t);
    templates.push(SlotBuf::new(Opcode::NOP));
    let mut out = Vec::with_capacity(SLOTS * 64);
    for i in 0..SLOTS {
        out.extend_from_slice(&templates[(i * 7 + i / 3) % templates.len()].0);
    }
    out
}

/// Nanoseconds this thread has spent on a CPU (Linux schedstat), if available.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn measure(name: &str, mut f: impl FnMut()) {
    f();
    let (w0, c0) = (Instant::now(), cpu_ns());
    for _ in 0..ROUNDS {
        f();
    }
    let wall = w0.elapsed().as_secs_f64();
    let total = f64::from(ROUNDS) * SLOTS as f64;
    let mb = total * 64.0 / 1e6;
    print!(
        "{name:<16} wall {:>7.1} M slots/s {:>7.0} MB/s",
        total / wall / 1e6,
        mb / wall
    );
    if let (Some(c0), Some(c1)) = (c0, cpu_ns()) {
        let cpu = (c1 - c0) as f64 / 1e9;
        print!(
            "   on-CPU {:>7.1} M slots/s {:>7.0} MB/s",
            total / cpu / 1e6,
            mb / cpu
        );
    }
    println!();
}

fn main() {
    let bytes = stream();
    measure("decode", || {
        let mut acc = 0u64;
        for (_, s) in slots(black_box(&bytes)) {
            let pseudo = s.opcode().info().is_some_and(|i| i.is_pseudo());
            acc +=
                u64::from(pseudo) + u64::from(s.events().wait_idx) + u64::from(s.inst_word_len());
        }
        black_box(acc);
    });
    let mut diags = Vec::new();
    measure("decode+validate", || {
        diags.clear();
        validate_into(black_box(&bytes), &ValidateOptions::default(), &mut diags);
        black_box(diags.len());
    });
    let mut text = String::with_capacity(SLOTS * 200);
    measure("disassemble", || {
        text.clear();
        disassemble(black_box(&bytes), DisasmOptions::default(), &mut text);
        black_box(text.len());
    });
    println!("text: {} bytes for {SLOTS} slots", text.len());
}
