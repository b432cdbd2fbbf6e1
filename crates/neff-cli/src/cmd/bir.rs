//! `neff bir`: read, check, format, count and draw BIR JSON, the compiler's instruction IR
//! (spec 002; the document form of reference §5.1). A thin shell over neff-bir.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use neff_bir::json::Style;
use neff_bir::{DotOptions, Program, Stats};

/// The container's atomic writer (a temporary file beside the target, then a rename).
fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(neff_container::write_atomic(path, bytes)?)
}

/// Read, check, format, count and draw BIR JSON (the compiler's instruction IR, spec 002).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: BirCommand,
}

#[derive(clap::Subcommand, Debug)]
enum BirCommand {
    /// Read and verify a BIR JSON file; print every problem with its instruction and JSON pointer.
    ///
    /// Exit 1 when the file does not read or the verifier finds anything. With --json, prints
    /// {"file", "functions", "instructions", "edges", "problems": [{"kind", "inst", "pointer",
    /// "message"}]}.
    Check(CheckArgs),
    /// Write a BIR JSON file back in neffkit's form: header keys in the fixed order, unknown keys kept.
    Fmt(FmtArgs),
    /// Instructions per opcode and engine, edges per kind, critical path, scheduled span.
    ///
    /// With --json, prints the statistics object: functions, blocks, loops, instructions,
    /// per_opcode, per_engine, dependencies, loop_carried_dependencies (per kind),
    /// unresolved_edges, critical_path, scheduled_start, scheduled_end, scheduled_span.
    Stats(StatsArgs),
    /// Draw the dependency graph: DOT always; SVG when Graphviz `dot` is on PATH.
    Graph(GraphArgs),
    /// Rebuild one subgraph's BIR from a NEFF's backend debug info: instruction names, engines,
    /// dependency edges with their kinds, and under "debug" each one's debug-info id, source line
    /// and HLO op.
    ///
    /// What the debug info does not give (the opcode, operands, loop nests, schedule) is left empty
    /// and listed on stderr with the edges that could not be added. With --json the report
    /// ({"subgraph", "instructions", "dependency_edges", "sync_edges", "edges_to_missing_ids",
    /// "edges_without_kind", "edges_with_bad_kind", "self_edges", "repeated_ids", "not_given"})
    /// goes to stdout.
    FromNeff(FromNeffArgs),
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// The BIR JSON file (`-`: standard input).
    file: PathBuf,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct FmtArgs {
    /// The BIR JSON file (`-`: standard input).
    file: PathBuf,
    /// Canonical form: compact, one line; byte-stable (fmt of its own output is identical).
    #[arg(long)]
    canonical: bool,
    /// Write here (atomically) instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct StatsArgs {
    /// The BIR JSON file (`-`: standard input).
    file: PathBuf,
    /// Print the statistics as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct GraphArgs {
    /// The BIR JSON file (`-`: standard input).
    file: PathBuf,
    /// Output file: `.dot` (Graphviz text) or `.svg` (rendered by Graphviz `dot`).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Leave loop-carried edges out.
    #[arg(long)]
    no_loop_carried: bool,
}

#[derive(clap::Args, Debug)]
struct FromNeffArgs {
    #[command(flatten)]
    input: super::input::NeffInput,
    /// The subgraph (default: the first).
    #[arg(long)]
    subgraph: Option<String>,
    /// Write the BIR JSON here (atomically).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `neff bir`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        BirCommand::Check(a) => check(a),
        BirCommand::Fmt(a) => fmt(a),
        BirCommand::Stats(a) => stats(a),
        BirCommand::Graph(a) => graph(a),
        BirCommand::FromNeff(a) => from_neff(a),
    }
}

fn read(file: &Path) -> anyhow::Result<Program> {
    let bytes = super::input::read_file(file)?;
    Ok(neff_bir::json::read_bytes(file, &bytes)?)
}

fn check(a: CheckArgs) -> anyhow::Result<()> {
    // Never dropped: the process ends right after the check, and freeing the program's small
    // allocations one by one was 21% of `neff bir check`'s CPU (perf, 100 k instructions; issue
    // 20). The OS takes the pages back at exit in one go.
    let p = std::mem::ManuallyDrop::new(read(&a.file)?);
    let problems = neff_bir::verify(&p);
    let mut out = std::io::stdout().lock();
    if a.json {
        let list: Vec<serde_json::Value> = problems.iter().map(|x| x.to_json()).collect();
        let doc = serde_json::json!({
            "file": a.file.display().to_string(),
            "functions": p.functions.len(),
            "instructions": p.len(),
            "edges": p.edge_count(),
            "problems": list,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        for x in &problems {
            writeln!(out, "{x}")?;
        }
    }
    if !problems.is_empty() {
        bail!("{}: {} problem(s) found", a.file.display(), problems.len());
    }
    if !a.json {
        writeln!(
            out,
            "ok: {}: {} functions, {} instructions, {} edges",
            a.file.display(),
            p.functions.len(),
            p.len(),
            p.edge_count()
        )?;
    }
    Ok(())
}

fn fmt(a: FmtArgs) -> anyhow::Result<()> {
    let p = read(&a.file)?;
    let style = if a.canonical {
        Style::Canonical
    } else {
        Style::Pretty
    };
    let bytes = neff_bir::json::to_vec(&p, style);
    match &a.output {
        Some(path) => write_atomic(path, &bytes),
        None => Ok(std::io::stdout().lock().write_all(&bytes)?),
    }
}

fn stats(a: StatsArgs) -> anyhow::Result<()> {
    let p = read(&a.file)?;
    let s = Stats::of(&p);
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&s)?)?;
    } else {
        write!(out, "{s}")?;
    }
    Ok(())
}

fn graph(a: GraphArgs) -> anyhow::Result<()> {
    let p = read(&a.file)?;
    let dot = neff_bir::to_dot(
        &p,
        DotOptions {
            loop_carried: !a.no_loop_carried,
        },
    );
    let ext = a.output.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "dot" | "gv" => write_atomic(&a.output, dot.as_bytes()),
        "svg" => write_atomic(&a.output, &render_svg(&dot)?),
        other => bail!(
            "{}: unknown graph format {other:?} (use .dot or .svg)",
            a.output.display()
        ),
    }
}

fn from_neff(a: FromNeffArgs) -> anyhow::Result<()> {
    let bytes = a.input.read()?;
    let neff = a.input.parse(&bytes)?;
    let file = a.input.file.display();
    let info = super::debug_info::load(&a.input.file, &neff, true);
    let graph = match &a.subgraph {
        Some(g) => g.as_str(),
        None => info.graphs.first().map_or("", |g| g.name.as_str()),
    };
    let Some(rebuilt) = info.rebuild_bir(graph) else {
        bail!("{file}: no BIR debug info for subgraph {graph:?}");
    };
    let r = &rebuilt.report;
    if r.instructions == 0 {
        bail!("{file}: subgraph {graph} has no BIR debug info");
    }
    write_atomic(
        &a.output,
        &neff_bir::json::to_vec(&rebuilt.program, Style::Pretty),
    )?;
    if a.json {
        let mut v = serde_json::to_value(r)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("not_given".into(), neff_debug::NOT_GIVEN.into());
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!(
            "{}: {graph}: {} instructions, {} edges ({} dependencies, {} from the sync list)",
            a.output.display(),
            r.instructions,
            r.dependency_edges + r.sync_edges,
            r.dependency_edges,
            r.sync_edges
        );
    }
    let skipped = [
        (r.edges_to_missing_ids, "name an id no BIR record has"),
        (r.edges_without_kind, "have no kind"),
        (r.edges_with_bad_kind, "have a kind outside the 3-bit field"),
        (r.self_edges, "point to their own instruction"),
    ];
    for (n, why) in skipped.into_iter().filter(|(n, _)| *n > 0) {
        eprintln!("note: {n} edges not added: they {why}");
    }
    if r.repeated_ids > 0 {
        eprintln!("note: {} records repeat an id", r.repeated_ids);
    }
    eprintln!(
        "note: not in the debug info, left empty: {}",
        neff_debug::NOT_GIVEN
    );
    Ok(())
}

/// Renders DOT to SVG with Graphviz `dot` from PATH (no Rust SVG renderer is bundled).
fn render_svg(dot: &str) -> anyhow::Result<Vec<u8>> {
    let Some(exe) = find_on_path("dot") else {
        bail!(
            "SVG needs Graphviz, and `dot` is not on PATH: install graphviz, or write DOT with \
             `-o out.dot` and render it elsewhere (`dot -Tsvg out.dot > out.svg`)"
        );
    };
    let mut child = std::process::Command::new(&exe)
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .with_context(|| format!("running {}", exe.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(dot.as_bytes())?;
    }
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!("dot -Tsvg failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(out.stdout)
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
