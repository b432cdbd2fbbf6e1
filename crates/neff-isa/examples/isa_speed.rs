//! Single-run throughput of decode, decode+validate and disassembly on a generated 1M-slot
//! stream, reporting wall time AND on-CPU time (from /proc/self/schedstat), so figures stay
//! meaningful on a loaded machine. Run: `cargo run --release -p neff-isa --example isa_speed`;
//! with a file argument the stream is that file's whole slots instead (e.g. real engine streams).

use std::hint::black_box;
use std::time::Instant;

use neff_isa::slots;
use neff_isa::text::{DisasmOptions, TextBuf, disassemble};
use neff_isa::validate::{ValidateOptions, validate_into};

const ROUNDS: u32 = 10;

#[path = "../benches/workload/mod.rs"]
mod workload;
use workload::stream;

/// Nanoseconds this thread has spent on a CPU (Linux schedstat), if available.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn measure(name: &str, slots_n: usize, mut f: impl FnMut()) {
    f();
    let (w0, c0) = (Instant::now(), cpu_ns());
    for _ in 0..ROUNDS {
        f();
    }
    let wall = w0.elapsed().as_secs_f64();
    let total = f64::from(ROUNDS) * slots_n as f64;
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
    let bytes = match std::env::args_os().nth(1) {
        Some(path) => {
            let mut b = std::fs::read(&path).expect("the stream file");
            b.truncate(b.len() / 64 * 64);
            b
        }
        None => stream(),
    };
    let n = bytes.len() / 64;
    measure("decode", n, || {
        let mut acc = 0u64;
        for (_, s) in slots(black_box(&bytes)) {
            let pseudo = s.opcode().info().is_some_and(|i| i.is_pseudo());
            acc +=
                u64::from(pseudo) + u64::from(s.events().wait_idx) + u64::from(s.inst_word_len());
        }
        black_box(acc);
    });
    let mut diags = Vec::new();
    measure("decode+validate", n, || {
        diags.clear();
        validate_into(black_box(&bytes), &ValidateOptions::default(), &mut diags);
        black_box(diags.len());
    });
    let mut text = String::with_capacity(n * 200);
    measure("disassemble", n, || {
        text.clear();
        disassemble(black_box(&bytes), DisasmOptions::default(), &mut text);
        black_box(text.len());
    });
    let mut buf = TextBuf::with_capacity(n * 200);
    measure("disasm TextBuf", n, || {
        buf.clear();
        disassemble(black_box(&bytes), DisasmOptions::default(), &mut buf);
        black_box(buf.len());
    });
    println!("text: {} bytes for {n} slots", text.len());
}
