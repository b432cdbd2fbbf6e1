//! The images a fit times (decision D620): each shared NEFF loaded as the runtime that ran it
//! loaded it — runtime 2.30.51's regions learned from a capture (D463) and its MAIN forms (the
//! 0xB8 DMA instruction with its bound MOVE, the static queues' broadcast WRITEs: D461,
//! D580-D582) — so every profiled pc is the instruction the hardware ran and its neighbours are
//! the ones it ran beside. One reference capture serves every run: learned from
//! `baseline_attention`, all seven shared streams have the runtime's lengths and opcodes (D582),
//! and a held-out run's own capture is then never read for its image.

use std::path::{Path, PathBuf};

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::device_model::DeviceModel;
use neff_load::model::{LoadOptions, LoadedModel, load};
use neff_load::runtime_model::learn_capture;
use neff_profile::{Capture, ReadLimits};

/// Why a run could not be loaded for the fit: the file and what failed.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ObserveError {
    /// The file.
    pub path: PathBuf,
    /// What failed.
    pub message: String,
}

fn fail(path: &Path, e: impl std::fmt::Display) -> ObserveError {
    ObserveError {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// The kelf of the NEFF at `path` (bytes read and parsed; `f` sees it).
fn with_kelf<T>(
    path: &Path,
    f: impl FnOnce(&Kelf<'_>) -> Result<T, ObserveError>,
) -> Result<T, ObserveError> {
    let bytes = std::fs::read(path).map_err(|e| fail(path, e))?;
    let neff = Neff::parse(&bytes).map_err(|e| fail(path, e))?;
    let kelf = Kelf::from_neff(&neff).map_err(|e| fail(path, e))?;
    f(&kelf)
}

/// The device model that loads like the runtime of `capture` (raw `.ntff`, gzip or not), which
/// ran the NEFF at `neff` (`neff load --like`'s model).
pub fn runtime_like(capture: &Path, neff: &Path) -> Result<DeviceModel, ObserveError> {
    let (_, bytes) =
        neff_profile::input::load(capture, &ReadLimits::default()).map_err(|e| fail(capture, e))?;
    let cap = Capture::parse(&bytes).map_err(|e| fail(capture, e))?;
    let learned = with_kelf(neff, |kelf| {
        let kbins = kelf.kbins().map_err(|e| fail(neff, e))?;
        learn_capture(&cap, &kbins).map_err(|e| fail(capture, e))
    })?;
    Ok(DeviceModel::like(learned))
}

/// The NEFF at `neff` loaded under `device`.
pub fn load_under(neff: &Path, device: &DeviceModel) -> Result<LoadedModel, ObserveError> {
    let opts = LoadOptions {
        device: device.clone(),
        ..LoadOptions::default()
    };
    with_kelf(neff, |kelf| load(kelf, &opts).map_err(|e| fail(neff, e)))
}
