//! The resource limits (issue 9 "Limits and resources"): caps on what an untrusted NEFF may
//! declare, the same for every command that reads one. Set by `--max-*` flags or `NEFFKIT_MAX_*`
//! environment variables; the flag wins. Defaults are neff-container's [`Limits::default`]
//! (decision D21), documented in each such command's `--help` and docs/robustness.md. The
//! flags belong to the commands that read a NEFF only (D342): `neff asm --help` does not list
//! them.

use anyhow::Context;
use neff_container::Limits;

/// The limit flags of a command that reads a NEFF (flattened into [`super::input::ReadFlags`]).
#[derive(clap::Args, Debug)]
pub(crate) struct LimitArgs {
    /// Most members a NEFF package may hold [env: NEFFKIT_MAX_MEMBERS] [default: 1000000].
    #[arg(long, help_heading = "Limits on what a NEFF may declare", value_name = "N", value_parser = parse_size)]
    max_members: Option<u64>,
    /// Largest member, in bytes; K/M/G suffixes are powers of 1024 [env: NEFFKIT_MAX_MEMBER_SIZE]
    /// [default: 16G].
    #[arg(long, help_heading = "Limits on what a NEFF may declare", value_name = "BYTES", value_parser = parse_size)]
    max_member_size: Option<u64>,
    /// Largest inflated package, in bytes [env: NEFFKIT_MAX_TOTAL_SIZE] [default: 4G, or half
    /// the machine's memory if less].
    #[arg(long, help_heading = "Limits on what a NEFF may declare", value_name = "BYTES", value_parser = parse_size)]
    max_total_size: Option<u64>,
    /// Largest inflated size per compressed byte [env: NEFFKIT_MAX_RATIO] [default: 1100].
    #[arg(long, help_heading = "Limits on what a NEFF may declare", value_name = "N", value_parser = parse_size)]
    max_ratio: Option<u64>,
}

impl LimitArgs {
    /// The limits: flags, then environment, then defaults.
    pub(crate) fn resolve(&self) -> anyhow::Result<Limits> {
        let d = Limits::default();
        let members = pick(
            self.max_members,
            "NEFFKIT_MAX_MEMBERS",
            d.max_members as u64,
        )?;
        Ok(Limits {
            max_members: usize::try_from(members).unwrap_or(usize::MAX),
            max_member_size: pick(
                self.max_member_size,
                "NEFFKIT_MAX_MEMBER_SIZE",
                d.max_member_size,
            )?,
            max_total_size: pick(
                self.max_total_size,
                "NEFFKIT_MAX_TOTAL_SIZE",
                default_total_size(d.max_total_size),
            )?,
            max_ratio: pick(self.max_ratio, "NEFFKIT_MAX_RATIO", d.max_ratio)?,
        })
    }
}

/// The CLI's default inflated-size cap: the reader holds the whole inflated package in memory,
/// so a cap above the machine's memory is no cap (a 100 MB gzip bomb would grow until the
/// process is killed). 4 GiB, or half of `MemTotal` (Linux `/proc/meminfo`) when that is less;
/// never above the library default (decision D121).
fn default_total_size(library_default: u64) -> u64 {
    let mem_total_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
    match mem_total_kib {
        Some(kib) => (kib.saturating_mul(1024) / 2).min(CLI_TOTAL_SIZE),
        None => CLI_TOTAL_SIZE,
    }
    .min(library_default)
}

/// The CLI's inflated-size cap on a machine with 8 GiB or more (decision D121).
const CLI_TOTAL_SIZE: u64 = 4 << 30;

/// The flag's value, else the environment variable's, else the default.
fn pick(flag: Option<u64>, var: &str, default: u64) -> anyhow::Result<u64> {
    if let Some(v) = flag {
        return Ok(v);
    }
    match std::env::var(var) {
        Ok(text) => parse_size(&text)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("environment variable {var}")),
        Err(_) => Ok(default),
    }
}

/// A count or byte size: decimal digits with an optional K, M, G or T suffix (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 10),
        Some((i, 'M' | 'm')) => (&t[..i], 20),
        Some((i, 'G' | 'g')) => (&t[..i], 30),
        Some((i, 'T' | 't')) => (&t[..i], 40),
        _ => (t, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size (digits with an optional K/M/G/T suffix)"))?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{text}` overflows 64 bits"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("16G"), Ok(16 << 30));
        assert_eq!(parse_size("2k"), Ok(2048));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
