//! `neff info`: what a NEFF is at a glance — header, integrity, members, kelf graphs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use neff_container::{HashStatus, Scan, hash};
use neff_isa::SLOT_SHIFT;
use neff_kelf::MemberSource;
use serde_json::{Value, json};

use super::input::NeffInput;
use super::ls::member_json;

/// Show the header (reference §1.1), integrity, member count and size, and the kelf graphs.
///
/// `--json` prints {"header": {pkg_version, header_size, data_size, neff_version_major,
/// neff_version_minor, build_version, num_tpb, hash (hex of 32 bytes), uuid, name,
/// requested_tpb_count, tpb_per_node (64 numbers), feature_bits, lnc_size}, "hash_ok": bool,
/// "hash_status": "verified"|"verified_legacy_order"|"mismatch", "members": [{path, size,
/// offset}] (as `neff ls --json`), "kelf": {"file", "target", "graphs": [{name, definition,
/// engines: {pe, act, pool, dve, sp: ninstr} or null}]} or null, "kelf_errors": [every problem
/// of the kelf, also warned on stderr]} (docs/json.md). With --no-verify a bad hash is reported
/// (hash_ok false) instead of failing.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// Print JSON (format above) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `neff info`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    // Streaming (decision D27): only the JSON members are kept; streams count by their size.
    let neff = args.input.scan(&bytes, |path, _| path.ends_with(".json"))?;
    let status = match neff.hash_status() {
        HashStatus::NotChecked => hash::check(neff.header(), neff.payload()),
        checked => checked,
    };
    let lowered = Lowered::check(&neff);
    let kelf = kelf_summary(&neff, &lowered);
    let kelf_errors = lowered.errors;
    for e in &kelf_errors {
        eprintln!("warning: {}: kelf: {e}", args.input.file.display());
    }
    if args.json {
        let mut doc = info_json(&neff, status, kelf);
        doc["kelf_errors"] = json!(kelf_errors);
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", info_text(&neff, status, kelf.as_ref()));
    }
    Ok(())
}

/// The kelf of a scan, read once (issue 34): every problem, and per subgraph whether it lowers,
/// from [`neff_kelf::Kelf::check_kbins`], which builds no DMA descriptor (`neff info` shows none).
struct Lowered {
    /// Every problem of the kelf (issue 15 item 6: a broken kelf is said, not shown as `null`),
    /// each with its member and JSON pointer; empty when it parses and every subgraph lowers.
    /// The scan sees streams as empty, so their size limit is checked apart ([`too_large`]).
    errors: Vec<String>,
    /// Per subgraph name, each engine's instruction count, for the subgraphs that lower.
    counts: BTreeMap<String, Value>,
}

impl Lowered {
    fn check(neff: &Scan<'_>) -> Self {
        let source = ScanMembers(neff);
        let kelf = match neff_kelf::Kelf::from_members_all(&source) {
            (Some(kelf), _) => kelf,
            (None, problems) => {
                return Self {
                    errors: problems.iter().map(ToString::to_string).collect(),
                    counts: BTreeMap::new(),
                };
            }
        };
        let check = kelf.check_kbins();
        let mut errors: Vec<String> = too_large(neff, &kelf).collect();
        let counts = if errors.is_empty() {
            engine_counts(neff, &kelf, &check.lowers)
        } else {
            BTreeMap::new()
        };
        errors.extend(check.problems.iter().map(ToString::to_string));
        Self { errors, counts }
    }
}

/// The kelf's streams past `u32::MAX` bytes, which no kbin slot can hold (`BlobTooLarge`).
fn too_large<'s>(
    neff: &'s Scan<'_>,
    kelf: &'s neff_kelf::Kelf<'_>,
) -> impl Iterator<Item = String> + 's {
    kelf.graphs()
        .iter()
        .flat_map(|g| &g.engines)
        .filter_map(|p| {
            let size = neff.member_size(&p.instr_member).unwrap_or(0);
            u32::try_from(size).is_err().then(|| {
                neff_kelf::KelfError::BlobTooLarge {
                    member: p.instr_member.clone(),
                    size: usize::try_from(size).unwrap_or(usize::MAX),
                }
                .to_string()
            })
        })
}

/// The kelf descriptor (spec 004 §1: `kelf-a.json`; real files: `kelf-0.json`) and its graphs,
/// when a top-level `kelf-*.json` member parses. Per-subgraph instruction counts come from the
/// kelf crate.
fn kelf_summary(neff: &Scan<'_>, lowered: &Lowered) -> Option<Value> {
    let member = neff.members().find(|m| {
        m.path.starts_with("kelf-") && m.path.ends_with(".json") && !m.path.contains('/')
    })?;
    let doc: Value = serde_json::from_slice(member.data?).ok()?;
    let graphs: Vec<Value> = doc
        .get("graphs")?
        .as_array()?
        .iter()
        .map(|g| {
            let engines = g
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| lowered.counts.get(n));
            json!({ "name": g.get("name"), "definition": g.get("definition"), "engines": engines })
        })
        .collect();
    Some(json!({ "file": member.path, "target": doc.get("target"), "graphs": graphs }))
}

/// Per subgraph that lowers (`lowers`, [`neff_kelf::KbinCheck::lowers`]: gen_kbin succeeds),
/// each engine's instruction count (`ninstr = size >> 6`, spec 004 §2) keyed by engine name in
/// `EngineType` order (the kbin's `engines_by_type`, D340). The kelf reads the scan's kept
/// JSON members and sees each stream as empty; the count is the stream member's real size >> 6.
/// A stream past `u32::MAX` bytes fails the kelf as a whole, as `Kelf::from_neff` does (its
/// `BlobTooLarge`): the caller gives no counts then.
fn engine_counts(
    neff: &Scan<'_>,
    kelf: &neff_kelf::Kelf<'_>,
    lowers: &[bool],
) -> BTreeMap<String, Value> {
    let size = |member: &str| neff.member_size(member).unwrap_or(0);
    kelf.graphs()
        .iter()
        .zip(lowers)
        .filter(|(_, ok)| **ok)
        .map(|(g, _)| {
            let mut engines: Vec<_> = g.engines.iter().collect();
            engines.sort_by_key(|p| p.eng_type.index());
            let counts = engines
                .into_iter()
                .map(|p| (p.name.clone(), json!(size(&p.instr_member) >> SLOT_SHIFT)))
                .collect();
            (g.name.clone(), Value::Object(counts))
        })
        .collect()
}

/// A scan as the kelf's member source: kept members with their bytes, every other member as
/// present but empty (only its size, read from the scan, matters to `neff info`).
struct ScanMembers<'s, 'a>(&'s Scan<'a>);

impl MemberSource for ScanMembers<'_, '_> {
    fn member(&self, path: &str) -> Option<&[u8]> {
        self.0
            .member(path)
            .or_else(|| self.0.member_size(path).map(|_| &[][..]))
    }
    fn paths(&self) -> Vec<&str> {
        self.0.members().map(|m| m.path).collect()
    }
}

fn info_json(neff: &Scan<'_>, status: HashStatus, kelf: Option<Value>) -> Value {
    let members: Vec<Value> = neff.members().map(|m| member_json(&m)).collect();
    json!({
        "header": neff.header().to_json(),
        "hash_ok": status.is_ok(),
        "hash_status": status.name(),
        "members": members,
        "kelf": kelf,
    })
}

fn info_text(neff: &Scan<'_>, status: HashStatus, kelf: Option<&Value>) -> String {
    let h = neff.header();
    let mut rows = h.text_rows();
    rows.extend([
        ("integrity", status.name().replace('_', " ")),
        (
            "members",
            format!(
                "{} ({} bytes)",
                neff.member_count(),
                neff.total_member_size()
            ),
        ),
    ]);
    let mut out = String::new();
    for (key, value) in rows {
        let _ = writeln!(out, "{key:<20} {value}");
    }
    if let Some(kelf) = kelf {
        let target = kelf["target"].as_str().unwrap_or("?");
        let _ = writeln!(
            out,
            "kelf                 {} (target {target})",
            kelf["file"].as_str().unwrap_or("?")
        );
        for g in kelf["graphs"].as_array().into_iter().flatten() {
            let engines: Vec<String> = g["engines"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(e, n)| format!("{e}={n}"))
                .collect();
            let _ = writeln!(
                out,
                "  graph {:<12} {}  instructions {}",
                g["name"].as_str().unwrap_or("?"),
                g["definition"].as_str().unwrap_or("?"),
                if engines.is_empty() {
                    "?".to_owned()
                } else {
                    engines.join(" ")
                }
            );
        }
    }
    out
}
