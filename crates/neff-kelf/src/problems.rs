//! Every problem of a NEFF's kelf in one run (issue 15 item 6), as `neff validate` and the BIR
//! verifier report theirs: the parse's ([`Kelf::from_members_all`]), then, when it parsed, each
//! subgraph's lowering ([`Kelf::kbins_all`]). Each problem is a [`KelfError`] naming its member
//! and JSON pointer.

use crate::error::KelfError;
use crate::kelf::Kelf;
use crate::source::MemberSource;

/// Every problem [`Kelf::from_members`] and [`Kelf::kbins`] would stop at, in that order; empty
/// when the kelf parses and every subgraph lowers.
pub fn kelf_problems<S: MemberSource>(src: &S) -> Vec<KelfError> {
    match Kelf::from_members_all(src) {
        (Some(kelf), _) => kelf.kbins_all().1,
        (None, problems) => problems,
    }
}
