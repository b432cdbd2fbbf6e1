//! Writing the tar exactly as neuronx-cc does (reference §2, §9b item 6): POSIX ustar, mode
//! 0664, uid/gid 1000 `nobody`, mtime 0, typeflag `0` only, no directory entries, two zero
//! blocks at the end and no padding to a 10240-byte record. Number fields use the compiler's
//! `%06o \0` / `%011o ` spelling, read from matmul_small.neff (decision D23).

use crate::error::ContainerError;
use crate::tar_read::BLOCK;

/// Bytes of the `name` field.
const NAME_LEN: usize = 100;
/// Bytes of the `prefix` field.
const PREFIX_LEN: usize = 155;
/// Largest size the 11 octal digits of the size field hold; bigger sizes use GNU base-256.
const MAX_OCTAL_SIZE: u64 = 0o777_7777_7777;

/// Exact tar size of the given member sizes (headers, padded data, end blocks), used to reserve
/// the output once.
pub(crate) fn tar_len(sizes: impl Iterator<Item = usize>) -> usize {
    sizes
        .map(|s| BLOCK + s.div_ceil(BLOCK) * BLOCK)
        .sum::<usize>()
        + 2 * BLOCK
}

/// Appends one member (header, data, zero padding) to `out`.
pub(crate) fn append_member(
    out: &mut Vec<u8>,
    path: &str,
    data: &[u8],
) -> Result<(), ContainerError> {
    out.extend_from_slice(&member_header(path, data.len() as u64)?);
    out.extend_from_slice(data);
    out.resize(
        out.len() + data.len().next_multiple_of(BLOCK) - data.len(),
        0,
    );
    Ok(())
}

/// Appends the end-of-archive marker: two zero blocks.
pub(crate) fn finish(out: &mut Vec<u8>) {
    out.resize(out.len() + 2 * BLOCK, 0);
}

/// The 512-byte ustar header of a regular file.
fn member_header(path: &str, size: u64) -> Result<[u8; BLOCK], ContainerError> {
    let (prefix, name) = split_path(path)?;
    let mut h = [0u8; BLOCK];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..108].copy_from_slice(b"000664 \0");
    h[108..116].copy_from_slice(b"001750 \0");
    h[116..124].copy_from_slice(b"001750 \0");
    write_size(&mut h[124..136], size);
    h[136..148].copy_from_slice(b"00000000000 ");
    h[156] = b'0';
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[265..271].copy_from_slice(b"nobody");
    h[297..303].copy_from_slice(b"nobody");
    h[329..337].copy_from_slice(b"000000 \0");
    h[337..345].copy_from_slice(b"000000 \0");
    h[345..345 + prefix.len()].copy_from_slice(prefix.as_bytes());
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum::<u32>() + 8 * u32::from(b' ');
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    Ok(h)
}

/// The size field: `%011o ` like the compiler, GNU base-256 past 8 GiB.
fn write_size(field: &mut [u8], size: u64) {
    if size <= MAX_OCTAL_SIZE {
        field.copy_from_slice(format!("{size:011o} ").as_bytes());
    } else {
        field.fill(0);
        field[0] = 0x80;
        field[4..12].copy_from_slice(&size.to_be_bytes());
    }
}

/// Splits a path into ustar `prefix` and `name` (name <= 100 bytes, prefix <= 155, split at a
/// `/`); the path must already be a normalized relative path.
fn split_path(path: &str) -> Result<(&str, &str), ContainerError> {
    let refuse = |reason| ContainerError::UnwritablePath {
        path: path.to_owned(),
        reason,
    };
    if crate::tar_read::normalize_path(path.as_bytes(), 0)
        .ok()
        .as_deref()
        != Some(path)
    {
        return Err(refuse(
            "not a normalized relative path (no `..`, no leading `/` or `./`)",
        ));
    }
    if path.len() <= NAME_LEN {
        return Ok(("", path));
    }
    path.match_indices('/')
        .map(|(i, _)| (&path[..i], &path[i + 1..]))
        .find(|(prefix, name)| prefix.len() <= PREFIX_LEN && name.len() <= NAME_LEN)
        .ok_or_else(|| refuse("longer than a ustar prefix/name split allows"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use crate::tar_read::index_tar;

    #[test]
    fn header_matches_compiler_bytes() {
        // matmul_small.neff's first member: size 400 = 0o620, checksum 020520 (reference §2).
        let h = member_header("debug_info/debug_info_hlo.dbg_sg000000", 400).unwrap();
        assert_eq!(&h[124..136], b"00000000620 ");
        assert_eq!(&h[148..156], b"020520\0 ");
    }

    #[test]
    fn long_paths_split_and_read_back() {
        let long = format!("{}/{}", "d".repeat(120), "f".repeat(90));
        let mut tar = Vec::new();
        append_member(&mut tar, &long, b"xyz").unwrap();
        finish(&mut tar);
        let index = index_tar(&tar, &Limits::default()).unwrap();
        assert_eq!(&*index.entries[0].path, long);
        assert!(append_member(&mut tar, &"x".repeat(101), b"").is_err());
    }

    #[test]
    fn huge_size_uses_base256() {
        let mut f = [0u8; 12];
        write_size(&mut f, 64 << 30);
        assert_eq!(crate::tar_read::parse_number(&f), Some(64 << 30));
    }
}
