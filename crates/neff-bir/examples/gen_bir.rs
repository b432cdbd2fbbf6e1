//! Writes a generated BIR document: `cargo run --release -p neff-bir --example gen_bir -- OUT.json
//! [INSTRUCTIONS] [pretty|canonical] [SEED]`. Used by scripts/bench_bir.sh.

use neff_bir::generate::{GenConfig, program};
use neff_bir::json::{Style, to_writer};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out = args.get(1).map_or("bir.json", String::as_str);
    let n = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let style = if args.get(3).map(String::as_str) == Some("canonical") {
        Style::Canonical
    } else {
        Style::Pretty
    };
    let seed = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let p = program(&GenConfig {
        seed,
        instructions: n,
        functions: 2,
        blocks_per_function: 8,
        ..GenConfig::default()
    });
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    to_writer(file, &p, style)
}
