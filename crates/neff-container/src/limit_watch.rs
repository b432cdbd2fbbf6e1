//! The tar limits checked while the package inflates (issue 15 item 6, decision D345): the
//! buffered read ([`crate::Neff::parse_with`], every command but `neff info` and `neff ls`)
//! inflated the whole payload before its tar index counted members, so a package of a million
//! tiny members (or one declaring a huge member) was refused only after all of it sat in
//! memory. The watch feeds the inflated bytes, as they come, through the streaming tar reader
//! of the scan (D27, one [`TarWalker`](crate::tar_read::TarWalker) for both), keeping nothing.

use crate::error::ContainerError;
use crate::limits::{LimitKind, Limits};
use crate::tar_stream::TarStream;

/// Keeps no member: the watch only walks the headers.
fn keep_none(_: &str, _: u64) -> bool {
    false
}

/// The streaming reader with [`keep_none`].
type HeaderWalk<'l> = TarStream<'l, fn(&str, u64) -> bool>;

/// Walks the tar headers of the inflated bytes fed so far.
pub(crate) struct LimitWatch<'l> {
    /// `None` once the headers stop making sense: the index built after the inflate reports
    /// that, in its usual order (gzip errors first).
    stream: Option<HeaderWalk<'l>>,
}

impl<'l> LimitWatch<'l> {
    /// A watch under `limits`. The total size is the inflater's to check (its cap), as the
    /// buffered index leaves it; the watch checks the member count and each member's size.
    pub(crate) fn new(limits: &'l Limits) -> Self {
        let cap = (u64::MAX, LimitKind::TotalSize);
        Self {
            stream: Some(TarStream::new(
                limits,
                cap,
                false, // keeps nothing, so maps nothing
                keep_none as fn(&str, u64) -> bool,
            )),
        }
    }

    /// The next inflated bytes, in order. An error is a member-count or member-size limit the
    /// headers so far exceed — the error the index would give after the whole inflate.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<(), ContainerError> {
        let Some(stream) = self.stream.as_mut() else {
            return Ok(());
        };
        match stream.feed(bytes) {
            Ok(()) => Ok(()),
            Err(e @ ContainerError::Limit { .. }) => Err(e),
            Err(_) => {
                self.stream = None;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::inflate::gz;

    use crate::error::ContainerError;
    use crate::header::Header;
    use crate::limits::{LimitKind, Limits};
    use crate::{Neff, NeffBuilder};

    /// A tar of 50 one-byte members, gzipped, then a second gzip member whose CRC-32 is wrong:
    /// inflating everything ends in a gzip error, so a member-count error proves the limit was
    /// applied before the inflate got there.
    fn fifty_members_then_a_bad_crc() -> Vec<u8> {
        let mut b = NeffBuilder::new();
        for i in 0..50 {
            b.add(&format!("m/{i:03}"), &b"x"[..]).unwrap();
        }
        let bytes = b.build().unwrap();
        let tar = Neff::parse(&bytes).unwrap().tar_bytes().to_vec();
        let mut tail = gz(&[0u8; 4096]);
        let n = tail.len();
        tail[n - 8] ^= 1;
        [gz(&tar), tail].concat()
    }

    fn ten_members() -> Limits {
        Limits {
            max_members: 10,
            ..Limits::default()
        }
    }

    fn is_member_count(r: &Result<Vec<u8>, ContainerError>) -> bool {
        matches!(
            r,
            Err(ContainerError::Limit {
                kind: LimitKind::MemberCount,
                found: 11,
                ..
            })
        )
    }

    #[test]
    fn the_payload_is_a_gzip_error_without_the_limit() {
        let p = fifty_members_then_a_bad_crc();
        let r = crate::inflate::inflate_gzip(&p, &Limits::default());
        assert!(matches!(r, Err(ContainerError::Gzip { .. })), "{r:?}");
    }

    #[test]
    fn the_serial_inflate_stops_at_the_member_count() {
        let p = fifty_members_then_a_bad_crc();
        let r = crate::inflate::inflate_gzip(&p, &ten_members());
        assert!(is_member_count(&r), "{r:?}");
    }

    #[test]
    fn the_two_thread_read_stops_at_the_member_count() {
        let p = fifty_members_then_a_bad_crc();
        let header = Header::parse(&NeffBuilder::new().build().unwrap()).unwrap();
        let (_, r) = crate::read_pipeline::verify_and_inflate(
            &header,
            &p,
            &crate::ReadOptions {
                verify: false,
                limits: ten_members(),
                ..crate::ReadOptions::default()
            },
        );
        assert!(is_member_count(&r), "{r:?}");
    }
}
