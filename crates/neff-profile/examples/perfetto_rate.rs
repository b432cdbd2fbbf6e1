//! `neff profile --perfetto`'s path on a synthetic capture (issue 28 goal: a 1 GiB capture in
//! seconds): reads the capture whole, streams its rows into [`PerfettoWriter`] on a buffered
//! file, and prints the figures. Make the capture with the `decode_rate` example first; measure
//! RSS with `/usr/bin/time -v`. Run:
//! `cargo run --release -p neff-profile --example perfetto_rate -- CAPTURE OUT`.

use std::time::Instant;

use neff_profile::Capture;
use neff_profile::perfetto::PerfettoWriter;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let input = args
        .next()
        .unwrap_or_else(|| "/tmp/neffkit-synthetic.ntff".into());
    let output = args
        .next()
        .unwrap_or_else(|| "/tmp/neffkit-synthetic.perfetto".into());
    let t = Instant::now();
    let bytes = std::fs::read(&input)?;
    let read_s = t.elapsed().as_secs_f64();
    let cap = Capture::parse(&bytes).expect("a capture");
    let t = Instant::now();
    let f = std::fs::File::create(&output)?;
    let mut w = PerfettoWriter::new(std::io::BufWriter::with_capacity(1 << 20, f));
    let (_, decode) = cap.rows(&mut w);
    let (_, stats) = w.finish()?;
    let write_s = t.elapsed().as_secs_f64();
    let out_len = std::fs::metadata(&output)?.len();
    println!(
        "capture {:.1} MiB, {} records -> {} slices, {} packets, {:.1} MiB: read {read_s:.2} s, rows + perfetto {write_s:.2} s",
        bytes.len() as f64 / (1 << 20) as f64,
        decode.records,
        stats.slices,
        stats.packets,
        out_len as f64 / (1 << 20) as f64,
    );
    Ok(())
}
