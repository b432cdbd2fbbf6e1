//! The NEFF's debug info for the commands that show it (`disasm --source` / `--json`, `ip`,
//! `lower`): loaded once per NEFF by neff-debug, its problems printed as warnings on stderr, never
//! an error (issue 21).

use std::path::Path;

use neff_debug::DebugInfo;
use neff_kelf::MemberSource;

/// Reads the debug info of `src` (the NEFF `file`), printing each problem as a warning. With
/// `required` (the user asked for it, e.g. `--source`), no debug info at all is a warning too.
pub(crate) fn load(file: &Path, src: &impl MemberSource, required: bool) -> DebugInfo {
    report(file, DebugInfo::load(src), required)
}

/// Prints the problems of `info`, read earlier from the NEFF `file` (see [`load`]), and returns
/// it: `neff sim` reads the debug info before it frees the package and reports it after the run,
/// where [`load`] would have.
pub(crate) fn report(file: &Path, info: DebugInfo, required: bool) -> DebugInfo {
    for w in &info.warnings {
        eprintln!("warning: {}: debug info: {w}", file.display());
    }
    if required && info.is_empty() {
        eprintln!("warning: {}: no debug info", file.display());
    }
    info
}
