//! The JSON form of the header: the `"header"` object of `neff info --json` and the
//! `Neff.header` dict of the Python package, defined once here.

use serde_json::{Value, json};

use crate::hash;
use crate::header::Header;

impl Header {
    /// Every field of reference §1.1 as JSON: `{pkg_version, header_size, data_size,
    /// neff_version_major, neff_version_minor, build_version (`neff_build_version`, text up to
    /// the first NUL, as `neff info` prints it), num_tpb, hash (hex of 32 bytes), uuid, name,
    /// requested_tpb_count, tpb_per_node (64 numbers), feature_bits, lnc_size}`.
    pub fn to_json(&self) -> Value {
        json!({
            "pkg_version": self.pkg_version,
            "header_size": self.header_size,
            "data_size": self.data_size,
            "neff_version_major": self.neff_version_major,
            "neff_version_minor": self.neff_version_minor,
            "build_version": self.neff_build_version.text(),
            "num_tpb": self.num_tpb,
            "hash": hash::hex(&self.hash),
            "uuid": self.uuid.to_string(),
            "name": self.name_text(),
            "requested_tpb_count": self.requested_tpb_count,
            "tpb_per_node": self.tpb_per_node.to_vec(),
            "feature_bits": self.feature_bits.0,
            "lnc_size": self.lnc_size,
        })
    }
}
