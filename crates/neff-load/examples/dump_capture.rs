//! scratch: dump a capture's streams (uncommitted)
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let raw = std::fs::read(&args[1]).unwrap();
    let bytes = if raw.starts_with(&[0x1f, 0x8b]) {
        let out = std::process::Command::new("gzip")
            .arg("-dc")
            .arg(&args[1])
            .output()
            .unwrap();
        out.stdout
    } else {
        raw
    };
    let cap = neff_profile::Capture::parse(&bytes).unwrap();
    let dir = &args[2];
    std::fs::create_dir_all(dir).unwrap();
    println!("runtime {:?}", cap.facts.runtime);
    for sg in &cap.facts.subgraphs {
        println!("{} core {}", sg.name, sg.core);
        for q in &sg.dma_queues {
            println!(
                "  q eng={} q={} kind={} {}",
                q.dma_engine, q.queue, q.kind, q.name
            );
        }
        for s in &sg.streams {
            let b = cap.stream_bytes(s);
            let name = format!("{}/{}_{:?}.bin", dir, sg.name, s.engine).to_lowercase();
            std::fs::write(&name, b).unwrap();
            println!(
                "  {:?} base {:#x} slots {} segs {:?}",
                s.engine,
                s.device_base,
                b.len() / 64,
                s.segments
                    .iter()
                    .map(|g| (g.offset / 64, g.count, g.flag))
                    .collect::<Vec<_>>()
            );
        }
        for u in &sg.unknown {
            println!("  unk {} {:02x?}", u.path, &u.raw[..u.raw.len().min(64)]);
        }
    }
}
