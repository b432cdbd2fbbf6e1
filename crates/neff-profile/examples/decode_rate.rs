//! Decode rate of the capture reader on a synthetic capture (issue 28 goal: >= 20 M trace
//! records per second on one core). Writes the capture to a file (`PATH`, default
//! /tmp/neffkit-synthetic.ntff) unless it exists, reads it whole, parses the metadata and
//! decodes every record into a counting sink, and prints the figures. Measure RSS with
//! `/usr/bin/time -v`. Run: `cargo run --release -p neff-profile --example decode_rate -- [MiB] [PATH]`.

use std::time::Instant;

use neff_profile::writer::SyntheticCapture;
use neff_profile::{Capture, DmaEvent, EventSink, InstructionEvent, SemaphoreEvent, ThrottleEvent};

/// Counts events and sums a field so the decode cannot be optimised away.
#[derive(Default)]
struct Count {
    events: u64,
    sum: u64,
}

impl EventSink for Count {
    fn instruction(&mut self, e: InstructionEvent) {
        self.events += 1;
        self.sum = self
            .sum
            .wrapping_add(e.end_ps - e.start_ps + u64::from(e.pc));
    }
    fn dma(&mut self, e: DmaEvent) {
        self.events += 1;
        self.sum = self.sum.wrapping_add(u64::from(e.size));
    }
    fn semaphore(&mut self, e: SemaphoreEvent) {
        self.events += 1;
        self.sum = self.sum.wrapping_add(u64::from(e.value));
    }
    fn throttle(&mut self, _: ThrottleEvent) {
        self.events += 1;
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mib: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1024);
    let path = args
        .next()
        .unwrap_or_else(|| "/tmp/neffkit-synthetic.ntff".into());
    let records = mib * (1 << 20) / 16;
    let spec = SyntheticCapture {
        uuid: [0x5A; 16],
        instructions_per_engine: records * 9 / 10 / 10,
        dma_transfers: records / 10 / 2,
        stream_slots: 4096,
    };
    if !std::path::Path::new(&path).exists() {
        let t = Instant::now();
        let f = std::fs::File::create(&path)?;
        spec.write(&mut std::io::BufWriter::with_capacity(1 << 20, f))?;
        eprintln!("wrote {path} in {:.2} s", t.elapsed().as_secs_f64());
    }
    let t = Instant::now();
    let bytes = std::fs::read(&path)?;
    let read_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let cap = Capture::parse(&bytes).expect("synthetic capture");
    let parse_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut sink = Count::default();
    let stats = cap.decode(&mut sink);
    let decode_s = t.elapsed().as_secs_f64();
    println!(
        "capture {:.1} MiB, {} records: read {read_s:.3} s, metadata {parse_s:.6} s, decode {decode_s:.3} s = {:.1} M records/s ({} events, check {})",
        bytes.len() as f64 / (1 << 20) as f64,
        stats.records,
        stats.records as f64 / decode_s / 1e6,
        sink.events,
        sink.sum % 1000
    );
    Ok(())
}
