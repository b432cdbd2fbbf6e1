//! `neff pack`: a folder into a NEFF, deterministic and compiler-shaped (reference §2, §9b item 6).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use neff_container::{MemberOrder, Neff, NeffBuilder};

use super::input::{ReadFlags, parse_neff, read_file};

/// Pack a folder into a NEFF (ustar, mode 0664, uid/gid 1000 nobody, mtime 0, gzip, header
/// hash computed). Members are sorted by path, or follow --like's stored order. The output is
/// written atomically.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Folder whose files become the members (paths relative to it).
    dir: PathBuf,
    /// Output .neff file.
    #[arg(short, long)]
    output: PathBuf,
    /// Copy every header field (and the member order) from this NEFF; other flags override.
    #[arg(long, value_name = "OTHER.neff")]
    like: Option<PathBuf>,
    /// How --like's NEFF is read.
    #[command(flatten)]
    read: ReadFlags,
    /// Header name (default "file.neff").
    #[arg(long)]
    name: Option<String>,
    /// Header uuid (default: a random v4 uuid, or --like's).
    #[arg(long)]
    uuid: Option<uuid::Uuid>,
    /// Logical core size (default 1).
    #[arg(long)]
    lnc_size: Option<u32>,
    /// Feature bits, decimal or 0x-hex (default 0).
    #[arg(long, value_parser = parse_u64)]
    feature_bits: Option<u64>,
    /// TPBs required (default 1).
    #[arg(long)]
    num_tpb: Option<u32>,
    /// TPBs requested at compile time (default 1).
    #[arg(long)]
    requested_tpb_count: Option<u32>,
    /// NEFF format major version (default 1).
    #[arg(long)]
    neff_version_major: Option<u64>,
    /// NEFF format minor version (default 0).
    #[arg(long)]
    neff_version_minor: Option<u64>,
    /// Packager version: 2 = MD5 (default), 1 = SHA-256.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=2))]
    pkg_version: Option<u64>,
}

fn parse_u64(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("`{text}`: {e}"))
}

/// Runs `neff pack`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let files = collect_files(&args.dir)?;
    let like_bytes = args.like.as_deref().map(read_file).transpose()?;
    let like = match (&like_bytes, &args.like) {
        (Some(bytes), Some(path)) => Some(parse_neff(path, bytes, &args.read)?),
        _ => None,
    };
    let mut builder = NeffBuilder::new();
    if let Some(like) = &like {
        *builder.header_mut() = like.header().clone();
    }
    apply_flags(&args, &mut builder)?;
    let files = order_like(files, like.as_ref());
    builder.set_order(if like.is_some() {
        MemberOrder::Insertion
    } else {
        MemberOrder::Sorted
    });
    for (path, data) in files {
        builder.add(&path, data)?;
    }
    builder
        .write_to(&args.output)
        .with_context(|| format!("writing {}", args.output.display()))?;
    Ok(())
}

/// Header flags override the defaults or --like's values.
fn apply_flags(args: &Args, b: &mut NeffBuilder<'_>) -> anyhow::Result<()> {
    if let Some(name) = &args.name {
        b.set_name(name)?;
    }
    let h = b.header_mut();
    h.uuid = args.uuid.unwrap_or(h.uuid);
    h.lnc_size = args.lnc_size.unwrap_or(h.lnc_size);
    h.feature_bits.0 = args.feature_bits.unwrap_or(h.feature_bits.0);
    h.num_tpb = args.num_tpb.unwrap_or(h.num_tpb);
    h.requested_tpb_count = args.requested_tpb_count.unwrap_or(h.requested_tpb_count);
    h.neff_version_major = args.neff_version_major.unwrap_or(h.neff_version_major);
    h.neff_version_minor = args.neff_version_minor.unwrap_or(h.neff_version_minor);
    h.pkg_version = args.pkg_version.unwrap_or(h.pkg_version);
    Ok(())
}

/// Sorted by path; with --like, its stored order first for the paths it has, then the rest.
fn order_like(
    mut files: Vec<(String, Vec<u8>)>,
    like: Option<&Neff<'_>>,
) -> Vec<(String, Vec<u8>)> {
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let Some(like) = like else { return files };
    let rank: std::collections::HashMap<&str, usize> = like
        .members()
        .enumerate()
        .map(|(i, m)| (m.path, i))
        .collect();
    files.sort_by_key(|(path, _)| rank.get(path.as_str()).copied().unwrap_or(usize::MAX));
    files
}

/// Every regular file under `root` as (relative `/` path, bytes); symlinks and special files
/// are refused so a pack never reaches outside the folder.
fn collect_files(root: &Path) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading folder {}", dir.display()))?
        {
            let path = entry?.path();
            let kind = std::fs::symlink_metadata(&path)
                .with_context(|| format!("{}", path.display()))?
                .file_type();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let relative = relative_path(root, &path)?;
                let data =
                    std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
                out.push((relative, data));
            } else {
                bail!(
                    "{}: not a regular file or folder (symlinks are not packed)",
                    path.display()
                );
            }
        }
    }
    Ok(out)
}

fn relative_path(root: &Path, path: &Path) -> anyhow::Result<String> {
    let relative = path.strip_prefix(root)?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    match parts {
        Some(parts) => Ok(parts.join("/")),
        None => bail!("{}: path is not UTF-8", path.display()),
    }
}
