//! The readable report of `neff sim`: per subgraph the span, each engine's busy / waiting /
//! idle time and instruction count, the queues, the critical path; then the deadlock, if any.

use std::fmt::Write;

use neff_sim::{CriticalStep, Deadlock, SimResult, SubgraphResult};

/// Microseconds with three decimals (`23.639 us`).
fn us(ns: u64) -> String {
    format!("{:.3} us", ns as f64 / 1000.0)
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.0}%", 100.0 * part as f64 / whole as f64)
}

/// The whole report.
pub fn render(r: &SimResult) -> String {
    let mut s = String::new();
    for sg in &r.subgraphs {
        subgraph(&mut s, sg);
    }
    if let Some(d) = &r.deadlock {
        deadlock(&mut s, d);
    }
    s
}

fn subgraph(s: &mut String, sg: &SubgraphResult) {
    let _ = writeln!(
        s,
        "{}: span {} (MAIN, first NEFF instruction to the end of the last); whole run {}{}",
        sg.name,
        us(sg.span_ns),
        us(sg.total_ns),
        if sg.deadlocked { "; DEADLOCK" } else { "" }
    );
    let _ = writeln!(
        s,
        "  engine  instructions       busy            wait            idle"
    );
    for e in &sg.engines {
        let _ = writeln!(
            s,
            "  {:<6} {:>13}  {:>11} {:>4}  {:>11} {:>4}  {:>11} {:>4}",
            e.engine.key(),
            e.instructions,
            us(e.busy_ns),
            pct(e.busy_ns, sg.span_ns),
            us(e.wait_ns),
            pct(e.wait_ns, sg.span_ns),
            us(e.idle_ns),
            pct(e.idle_ns, sg.span_ns),
        );
    }
    for q in &sg.queues {
        let _ = writeln!(
            s,
            "  queue {}: {} transfer(s), {} bytes, busy {}",
            q.name,
            q.transfers,
            q.bytes,
            us(q.busy_ns)
        );
    }
    if !sg.critical_path.is_empty() {
        let _ = writeln!(s, "  critical path:");
        for c in &sg.critical_path {
            critical(s, c);
        }
    }
}

fn critical(s: &mut String, c: &CriticalStep) {
    let slots = match (c.first_slot, c.last_slot) {
        (Some(a), Some(b)) if a != b => format!(" slots {a}..{b}"),
        (Some(a), _) => format!(" slot {a}"),
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "    {:>10} .. {:>10}  {:<28} {} x{}{slots}",
        us(c.start_ns),
        us(c.end_ns),
        c.on,
        c.what,
        c.instructions
    );
}

fn deadlock(s: &mut String, d: &Deadlock) {
    let _ = writeln!(s, "{}", d.message);
    for b in &d.blocked {
        let at = match b.slot {
            Some(n) => format!("slot {n}"),
            None => format!("{:?} +{:#x}", b.region, b.offset),
        };
        let _ = writeln!(s, "  {} blocked at {at}: {}", b.engine, b.text);
        for w in &b.waits {
            let by = if w.writers.is_empty() {
                "nothing left can change it".to_string()
            } else {
                format!("could be changed by {}", w.writers.join(", "))
            };
            let _ = writeln!(s, "    waits for {} (now {}); {by}", w.condition, w.value);
        }
    }
    if !d.cycle.is_empty() {
        let _ = writeln!(s, "  wait cycle: {}", neff_sim::cycle_text(&d.cycle));
    }
}
