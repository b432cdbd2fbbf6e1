//! The NEFF's debug info for the commands that show it (`disasm --source` / `--json`, `ip`,
//! `lower`): loaded once per NEFF by neff-debug, its problems printed as warnings on stderr, never
//! an error (issue 21).

use std::path::Path;

use neff_debug::DebugInfo;
use neff_kelf::MemberSource;

/// Reads the debug info of `src` (the NEFF `file`), printing each problem as a warning. With
/// `required` (the user asked for it, e.g. `--source`), no debug info at all is a warning too.
pub(crate) fn load(file: &Path, src: &impl MemberSource, required: bool) -> DebugInfo {
    let info = DebugInfo::load(src);
    for w in &info.warnings {
        eprintln!("warning: {}: debug info: {w}", file.display());
    }
    if required && info.is_empty() {
        eprintln!("warning: {}: no debug info", file.display());
    }
    info
}
