//! `neff report FILE -o report.html`: one self-contained HTML page of a NEFF (neff-report):
//! header, members, per-engine region maps, patch rows and instruction mix, DMA queues, and the
//! timeline section.

use std::path::PathBuf;

use anyhow::Context;
use neff_load::lower::LowerOptions;
use neff_load::model::{LoadOptions, load};
use neff_report::ReportInput;

use super::input::NeffInput;

/// Write one HTML file that opens offline (style, script and graphics inline) with the sections
/// `header`, `members`, `engines` (per subgraph and engine: the loaded image's regions to scale,
/// patch rows, instruction mix by kind), `dma` (queues, descriptors, bytes moved) and `timeline`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    /// The HTML file to write (atomically).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

/// Runs `neff report`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let kelf = args.input.kelf(&neff)?;
    let kbins = args.input.kbins(&kelf, None)?;
    // The page reads regions, rows and descriptors, never the image bytes.
    let options = LoadOptions {
        drop_image_bytes: true,
        lower: LowerOptions::default(),
        ..LoadOptions::default()
    };
    // A NEFF that does not load still gets its page: everything but the images (decision D273).
    let loaded = load(&kelf, &options);
    let load_error = loaded.as_ref().err().map(|e| format!("{e:#}"));
    if let Some(e) = &load_error {
        eprintln!(
            "warning: {}: not loaded ({e}); the page shows what does not need the load",
            args.input.file.display()
        );
    }
    let name = args.input.file.file_name().map_or_else(
        || args.input.file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let model = loaded
        .as_ref()
        .map_err(|_| load_error.as_deref().unwrap_or_default());
    let input = ReportInput::new(&name, &neff, &kelf, &kbins, model);
    let html = neff_report::render(&input);
    neff_container::write_atomic(&args.output, html.as_bytes())
        .with_context(|| format!("writing {}", args.output.display()))?;
    println!("{}: {} bytes", args.output.display(), html.len());
    Ok(())
}
