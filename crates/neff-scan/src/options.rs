//! What a scan of one file does.

use neff_container::ReadOptions;
use neff_load::device_model::DeviceModel;
use neff_load::model::LoadOptions;
use neff_lower::LowerOptions;

/// Options of [`crate::scan_bytes`] / [`crate::scan_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOptions {
    /// How the container is read: hash check and the limits on what a file may declare
    /// (a file larger than the limits allow is an `io` error before it is read, decision D262).
    pub read: ReadOptions,
    /// Run the runtime's load (neff-load) and report `load_ok`; without it `load_ok` stays
    /// false and the row costs a fraction (docs/scale.md).
    pub load: bool,
    /// Simulate the loaded program (neff-sim) and report `sim_span_ns`; needs `load`.
    pub sim: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        Self {
            read: ReadOptions::default(),
            load: true,
            sim: false,
        }
    }
}

impl ScanOptions {
    /// The load a scan runs, under the device model `neff load` picks for `target` (decision
    /// D175): report-only like `neff load` without `--out` (image bytes freed once measured,
    /// DIRECT2D descriptors checked but not kept), unless the simulator needs them (`neff sim`'s
    /// load).
    pub(crate) fn load_options(&self, target: neff_kelf::Target) -> LoadOptions {
        LoadOptions {
            device: DeviceModel::default_for(target),
            drop_image_bytes: !self.sim,
            lower: LowerOptions {
                skip_descriptors: !self.sim,
                ..LowerOptions::default()
            },
            ..LoadOptions::default()
        }
    }

    /// The largest file that can be a NEFF within the limits: the header, then a payload that
    /// inflates to at most `max_total_size` (deflate never grows data by more than 5 bytes
    /// per 16 KiB stored block, RFC 1951 §3.2.4; one gzip member header and trailer; we allow
    /// 1/1024 plus 1 MiB of slack for several members and padding).
    pub fn max_file_size(&self) -> u64 {
        let total = self.read.limits.max_total_size;
        total
            .saturating_add(total / 1024)
            .saturating_add(1 << 20)
            .saturating_add(neff_container::HEADER_SIZE as u64)
    }
}
