//! `neff profile`'s summary path on a capture (issue 28 goal: peak RSS <= capture + 64 MB):
//! reads the capture whole and streams its rows into a [`SummaryBuilder`]. Measure RSS with
//! `/usr/bin/time -v`. Run: `cargo run --release -p neff-profile --example summary_rate -- CAPTURE`.

use std::time::Instant;

use neff_profile::{Capture, SummaryBuilder};

fn main() -> std::io::Result<()> {
    let input = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/tmp/neffkit-synthetic.ntff".into());
    let bytes = std::fs::read(&input)?;
    let cap = Capture::parse(&bytes).expect("a capture");
    let t = Instant::now();
    let mut b = SummaryBuilder::new(10, Some(&cap.facts));
    let (_, stats) = cap.rows(&mut b);
    let (summary, top) = b.finish();
    let s = t.elapsed().as_secs_f64();
    let sg = &summary[0];
    println!(
        "capture {:.1} MiB, {} records: rows + summary {s:.2} s = {:.1} M records/s; {} span {} ns, {} top rows, out of order {}",
        bytes.len() as f64 / (1 << 20) as f64,
        stats.records,
        stats.records as f64 / s / 1e6,
        sg.name,
        sg.span_ns(),
        top.len(),
        sg.out_of_order
    );
    Ok(())
}
