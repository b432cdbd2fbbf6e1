//! The diff as text, like diff(1) -u: `---`/`+++` headings, then per part what changed; per
//! engine stream `@@ -A,n +B,m @@` hunks of instructions (slot indices, 0-based as `neff disasm`
//! prints them) with `context` unchanged slots around each edit, `-` for A's slots, `+` for B's,
//! and under a changed pair its fields, `~ field: a -> b`. [`write_stat`] prints the counts only.

use std::io::{self, Write};

use neff_isa::text::print_stream_slot;
use neff_isa::{Dialect, SLOT_BYTES};

use crate::NeffDiff;
use crate::align::Op;
use crate::engines::EngineDiff;
use crate::members::MemberStatus;
use crate::operands::field_changes;
use crate::time::{TimeDiff, TimeRow};

/// How the text is printed.
#[derive(Debug, Clone, Copy)]
pub struct TextOptions {
    /// Unchanged slots shown around each edit (diff -U).
    pub context: u32,
    /// Source lines listed under the time, largest change first.
    pub top_lines: usize,
}

impl Default for TextOptions {
    fn default() -> Self {
        Self {
            context: 3,
            top_lines: 10,
        }
    }
}

/// Prints the whole diff. Nothing but the two headings when the NEFFs are the same.
pub fn write_text(d: &NeffDiff<'_>, opts: &TextOptions, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "--- A {}", d.a)?;
    writeln!(out, "+++ B {}", d.b)?;
    if d.same {
        return Ok(());
    }
    write_header(d, out)?;
    write_members(d, out)?;
    write_manifests(d, out)?;
    for e in d.engines.iter().filter(|e| !e.is_same()) {
        writeln!(out, "{}", engine_summary(e))?;
        write_hunks(e, d.dialect, opts.context, out)?;
    }
    if let Some(t) = &d.time {
        write_time(t, opts.top_lines, out)?;
    }
    Ok(())
}

/// Prints the per-engine counts (diff --stat), the member and manifest counts, and the time.
pub fn write_stat(d: &NeffDiff<'_>, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "--- A {}", d.a)?;
    writeln!(out, "+++ B {}", d.b)?;
    writeln!(out, "header: {} fields differ", d.header.changed.len())?;
    writeln!(
        out,
        "members: {} unchanged, {} differ; manifests: {} values differ",
        d.members.unchanged,
        d.members.changes.len(),
        d.manifests.len()
    )?;
    for e in &d.engines {
        writeln!(out, "{}", engine_summary(e))?;
    }
    if let Some(t) = &d.time {
        write_time(t, 0, out)?;
    }
    Ok(())
}

fn write_header(d: &NeffDiff<'_>, out: &mut impl Write) -> io::Result<()> {
    let h = &d.header;
    if h.changed.is_empty() {
        return Ok(());
    }
    writeln!(out, "header:")?;
    for c in &h.changed {
        writeln!(out, "  ~ {}: {} -> {}", c.field, c.a, c.b)?;
    }
    for (sign, bits) in [("+", &h.feature_bits_added), ("-", &h.feature_bits_removed)] {
        for f in bits {
            let name = f.name.unwrap_or("(unnamed)");
            writeln!(out, "  {sign} feature bit {:#x} {name}", f.bit)?;
        }
    }
    Ok(())
}

fn write_members(d: &NeffDiff<'_>, out: &mut impl Write) -> io::Result<()> {
    let m = &d.members;
    if m.changes.is_empty() {
        return Ok(());
    }
    writeln!(out, "members ({} unchanged):", m.unchanged)?;
    let short = |h: &Option<String>| h.as_deref().map_or(String::new(), |h| h[..12].to_owned());
    for c in &m.changes {
        let size = |s: Option<u64>| s.map_or_else(|| "-".to_owned(), |s| s.to_string());
        match c.status {
            MemberStatus::Added => writeln!(
                out,
                "  + {} ({} bytes, sha256 {})",
                c.path,
                size(c.size_b),
                short(&c.sha256_b)
            )?,
            MemberStatus::Removed => writeln!(
                out,
                "  - {} ({} bytes, sha256 {})",
                c.path,
                size(c.size_a),
                short(&c.sha256_a)
            )?,
            MemberStatus::Changed => writeln!(
                out,
                "  ~ {} ({} -> {} bytes, sha256 {} -> {})",
                c.path,
                size(c.size_a),
                size(c.size_b),
                short(&c.sha256_a),
                short(&c.sha256_b)
            )?,
        }
    }
    Ok(())
}

fn write_manifests(d: &NeffDiff<'_>, out: &mut impl Write) -> io::Result<()> {
    if d.manifests.is_empty() {
        return Ok(());
    }
    writeln!(out, "manifests:")?;
    for c in &d.manifests {
        let at = format!("{}#{}", c.member, c.pointer);
        match (&c.a, &c.b) {
            (Some(a), Some(b)) => writeln!(out, "  ~ {at}: {a} -> {b}")?,
            (Some(a), None) => writeln!(out, "  - {at}: {a}")?,
            (None, Some(b)) => writeln!(out, "  + {at}: {b}")?,
            (None, None) => {}
        }
    }
    Ok(())
}

/// `sg00 pe: 120 -> 121 slots: 118 unchanged, 1 changed, 1 added, 0 removed (aligned by opcode)`.
fn engine_summary(e: &EngineDiff<'_>) -> String {
    let a = &e.alignment;
    let by = match e.aligned_by {
        crate::AlignedBy::DebugInfo => "BIR instruction and source line",
        crate::AlignedBy::Opcode => "opcode",
    };
    let mut s = format!(
        "{} {}: {} -> {} slots: {} unchanged, {} changed, {} added, {} removed (aligned by {by})",
        e.subgraph,
        e.engine.key(),
        a.slots_a,
        a.slots_b,
        a.unchanged,
        a.changed,
        a.added,
        a.removed
    );
    if e.trailing_differs {
        s.push_str(&format!(
            "; trailing bytes differ ({} -> {})",
            e.trailing_a, e.trailing_b
        ));
    }
    s
}

/// One edit run placed in both streams: where it starts on each side, how many slots of each it
/// covers, and the unchanged slots before it.
#[derive(Clone, Copy)]
struct Placed {
    op: Op,
    a: u32,
    na: u32,
    b: u32,
    nb: u32,
}

/// Places every run: an added run's A position (and a removed run's B position) follows from
/// the unchanged slots before it, which are the same count on both sides.
fn placed(ops: &[Op]) -> Vec<Placed> {
    let (mut ca, mut cb) = (0u32, 0u32);
    ops.iter()
        .map(|&op| {
            let p = match op {
                Op::Removed { a, len } => Placed {
                    op,
                    a,
                    na: len,
                    b: cb + (a - ca),
                    nb: 0,
                },
                Op::Added { b, len } => Placed {
                    op,
                    a: ca + (b - cb),
                    na: 0,
                    b,
                    nb: len,
                },
                Op::Changed { a, b, len } | Op::Same { a, b, len } => Placed {
                    op,
                    a,
                    na: len,
                    b,
                    nb: len,
                },
            };
            (ca, cb) = (p.a + p.na, p.b + p.nb);
            p
        })
        .collect()
}

/// Prints the hunks of one stream: runs closer than two contexts share a hunk.
fn write_hunks(
    e: &EngineDiff<'_>,
    dialect: Dialect,
    context: u32,
    out: &mut impl Write,
) -> io::Result<()> {
    let runs = placed(&e.alignment.ops);
    let slots_a = e.alignment.slots_a as u32;
    let mut start = 0;
    while start < runs.len() {
        let mut end = start + 1;
        while end < runs.len() && runs[end].a - (runs[end - 1].a + runs[end - 1].na) <= 2 * context
        {
            end += 1;
        }
        let (first, last) = (runs[start], runs[end - 1]);
        let pre = first.a.min(context);
        let post = (slots_a - (last.a + last.na)).min(context);
        let (a0, b0) = (first.a - pre, first.b - pre);
        let a1 = last.a + last.na + post;
        let b1 = last.b + last.nb + post;
        writeln!(
            out,
            "@@ -{a0},{} +{b0},{} @@ {} {}",
            a1 - a0,
            b1 - b0,
            e.subgraph,
            e.engine.key()
        )?;
        let mut at = a0;
        for r in &runs[start..end] {
            for i in at..r.a {
                line(out, ' ', e.stream_a, i, dialect)?;
            }
            write_run(e, r, dialect, out)?;
            at = r.a + r.na;
        }
        for i in at..a1 {
            line(out, ' ', e.stream_a, i, dialect)?;
        }
        start = end;
    }
    Ok(())
}

fn write_run(
    e: &EngineDiff<'_>,
    r: &Placed,
    dialect: Dialect,
    out: &mut impl Write,
) -> io::Result<()> {
    match r.op {
        Op::Removed { a, len } => {
            (a..a + len).try_for_each(|i| line(out, '-', e.stream_a, i, dialect))
        }
        Op::Added { b, len } => {
            (b..b + len).try_for_each(|i| line(out, '+', e.stream_b, i, dialect))
        }
        Op::Same { a, len, .. } => {
            (a..a + len).try_for_each(|i| line(out, ' ', e.stream_a, i, dialect))
        }
        Op::Changed { a, b, len } => (0..len).try_for_each(|k| {
            line(out, '-', e.stream_a, a + k, dialect)?;
            line(out, '+', e.stream_b, b + k, dialect)?;
            for f in field_changes(e.stream_a, a + k, e.stream_b, b + k, dialect) {
                let v = |x: &Option<String>| x.clone().unwrap_or_else(|| "(none)".into());
                writeln!(out, " ~        {}: {} -> {}", f.field, v(&f.a), v(&f.b))?;
            }
            Ok(())
        }),
    }
}

/// One instruction line: the sign, the slot index, the text (`neff disasm`'s).
fn line(
    out: &mut impl Write,
    sign: char,
    stream: &[u8],
    i: u32,
    dialect: Dialect,
) -> io::Result<()> {
    let mut text = String::new();
    if (i as usize + 1) * SLOT_BYTES <= stream.len() {
        print_stream_slot(stream, i as usize, dialect, &mut text);
    }
    writeln!(out, "{sign}{i:>8}: {text}")
}

fn write_time(t: &TimeDiff, top_lines: usize, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "time (simulated, ns)            A            B        delta"
    )?;
    for (side, err) in [("A", &t.a_error), ("B", &t.b_error)] {
        if let Some(e) = err {
            writeln!(out, "  {side}: not simulated: {e}")?;
        }
    }
    for r in &t.subgraphs {
        time_row(out, &format!("{} span", r.key), r)?;
    }
    for r in &t.engines {
        let what = format!("{} {} busy", r.key, r.detail.as_deref().unwrap_or(""));
        time_row(out, &what, r)?;
    }
    for r in t
        .lines
        .iter()
        .filter(|r| r.delta_ns != Some(0))
        .take(top_lines)
    {
        let what = format!("{}:{}", r.key, r.detail.as_deref().unwrap_or(""));
        time_row(out, &what, r)?;
    }
    Ok(())
}

fn time_row(out: &mut impl Write, what: &str, r: &TimeRow) -> io::Result<()> {
    let n = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    let delta = match (r.delta_ns, r.a_ns) {
        (Some(d), Some(a)) if a > 0 => format!("{d:+} ({:+.1}%)", d as f64 * 100.0 / a as f64),
        (Some(d), _) => format!("{d:+}"),
        _ => "-".to_owned(),
    };
    writeln!(
        out,
        "  {what:<24} {:>12} {:>12}  {delta}",
        n(r.a_ns),
        n(r.b_ns)
    )
}
