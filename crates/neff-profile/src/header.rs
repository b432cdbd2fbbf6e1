//! The profiled NEFF's header as the profiler copies it (`neff_header`): what ties a report to
//! one NEFF file.

use serde::Deserialize;

/// `neff_header` of a report: the fields neffkit compares with the NEFF's own header (reference
/// §1: the 1024-byte header's uuid and md5 hash), as the profiler prints them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct NeffHeaderInfo {
    /// The NEFF uuid, 32 hex digits without dashes (e.g. `debb20022cc8458dbdc64a792ed6fe4a`).
    #[serde(default)]
    pub uuid: String,
    /// The payload hash, 32 hex digits (the md5 the header carries).
    #[serde(default)]
    pub hash: String,
    /// The network name the header carries.
    #[serde(default)]
    pub network_name: String,
}

impl NeffHeaderInfo {
    /// The uuid as lower-case hex digits only (dashes dropped), for comparison.
    pub fn uuid_hex(&self) -> String {
        hex_digits(&self.uuid)
    }

    /// The hash as lower-case hex digits only.
    pub fn hash_hex(&self) -> String {
        hex_digits(&self.hash)
    }
}

/// `s` lower-cased with everything but hex digits dropped (`6ceac95e-a7a0-...` and
/// `6CEAC95EA7A0...` compare equal).
pub fn hex_digits(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_compares_without_dashes_or_case() {
        let h = NeffHeaderInfo {
            uuid: "6CEAC95E-a7a0-4369-ae23-80ea5f38f95d".into(),
            ..Default::default()
        };
        assert_eq!(h.uuid_hex(), "6ceac95ea7a04369ae2380ea5f38f95d");
    }
}
