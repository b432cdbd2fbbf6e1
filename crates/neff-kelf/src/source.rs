//! Where the kelf reads members from: a small trait, so the parser runs over a decoded NEFF
//! (`neff_container::Neff`) or over in-memory members in tests and fuzzing.

use std::collections::{BTreeMap, HashMap};

/// A set of named members (path -> bytes), e.g. the files of a NEFF package (spec 004 §1,
/// `neff_t::files`).
pub trait MemberSource {
    /// The bytes of the member at `path`, if present.
    fn member(&self, path: &str) -> Option<&[u8]>;
    /// Every member path, in stored order.
    fn paths(&self) -> Vec<&str>;
}

impl MemberSource for BTreeMap<String, Vec<u8>> {
    fn member(&self, path: &str) -> Option<&[u8]> {
        self.get(path).map(Vec::as_slice)
    }
    fn paths(&self) -> Vec<&str> {
        self.keys().map(String::as_str).collect()
    }
}

impl MemberSource for HashMap<String, Vec<u8>> {
    fn member(&self, path: &str) -> Option<&[u8]> {
        self.get(path).map(Vec::as_slice)
    }
    fn paths(&self) -> Vec<&str> {
        let mut p: Vec<&str> = self.keys().map(String::as_str).collect();
        p.sort_unstable();
        p
    }
}

impl<T: MemberSource + ?Sized> MemberSource for &T {
    fn member(&self, path: &str) -> Option<&[u8]> {
        (**self).member(path)
    }
    fn paths(&self) -> Vec<&str> {
        (**self).paths()
    }
}

impl MemberSource for neff_container::Neff<'_> {
    fn member(&self, path: &str) -> Option<&[u8]> {
        neff_container::Neff::member(self, path)
    }
    fn paths(&self) -> Vec<&str> {
        self.members().map(|m| m.path).collect()
    }
}
