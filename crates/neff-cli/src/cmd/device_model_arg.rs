//! `--device-model NAME`, shared by every command that builds images (decisions D170, D175).

use std::path::PathBuf;

use neff_kelf::Target;
use neff_load::device_model::{DeviceModel, RegionModel, UnknownRegionModel};
use neff_load::physical_core::PhysicalCore;

use super::input::ReadFlags;

/// The device model flag.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct DeviceModelArg {
    /// The device model images are built for: `runtime` (the Neuron runtime's PREAMBLE /
    /// POSTAMBLE, from hardware traces: device PCs match the hardware's) or `spec` (the
    /// specification's steps). Default: runtime for trn2 (cayman) NEFFs, spec for the others.
    #[arg(long = "device-model", value_name = "NAME", value_parser = parse_model)]
    pub(crate) device_model: Option<RegionModel>,
    /// Load as the runtime that made CAPTURE did (a raw `.ntff` capture, gzip or not): its
    /// PREAMBLE / MODEL_SWITCH / POSTAMBLE bytes, learned per engine and content from the
    /// capture and the NEFF it ran (decision D463). Implies the runtime model. Repeated: the
    /// captures of one runtime learned together, each content key from the first that shows it
    /// (decision D854).
    #[arg(long = "like", value_name = "CAPTURE", conflicts_with = "device_model")]
    pub(crate) like: Vec<PathBuf>,
    /// The NEFF the `--like` capture ran (default: NAME.neff beside NAME.ntff[.gz]); with one
    /// `--like` only.
    #[arg(long = "like-neff", value_name = "NEFF", requires = "like")]
    pub(crate) like_neff: Option<PathBuf>,
    /// Load even when the `--like` capture's own NEFF, loaded as learned, does not give its
    /// streams back (decision D843): the first difference is a warning, not an error, and the
    /// images may be wrong where the learner misread the capture.
    #[arg(long = "like-unchecked", requires = "like")]
    pub(crate) like_unchecked: bool,
    /// The physical NeuronCore (0-7) subgraph 0 runs on, subgraph K on the core K after it: the
    /// runtime model's images address that core's state buffer, registers and DMA engines
    /// (decision D816). Default 4, the core every shared capture ran sg00 on.
    #[arg(long = "core", value_name = "N", value_parser = parse_core)]
    pub(crate) core: Option<PhysicalCore>,
}

fn parse_core(s: &str) -> Result<PhysicalCore, String> {
    let n: u64 = s.parse().map_err(|e| format!("{e}"))?;
    PhysicalCore::new(n).ok_or_else(|| format!("a trn2 device has cores 0 to 7, not {n}"))
}

fn parse_model(s: &str) -> Result<RegionModel, String> {
    s.parse().map_err(|e: UnknownRegionModel| e.to_string())
}

impl DeviceModelArg {
    /// Whether a model was asked for (`--device-model` or `--like`).
    pub(crate) fn asked(&self) -> bool {
        !self.like.is_empty() || self.device_model.is_some()
    }

    /// The model asked for, or the default for a NEFF of `target`.
    pub(crate) fn resolve(&self, target: Target, read: &ReadFlags) -> anyhow::Result<DeviceModel> {
        if !self.like.is_empty() {
            if self.like_neff.is_some() && self.like.len() > 1 {
                anyhow::bail!(
                    "--like-neff names the NEFF of one --like capture; with {} captures, put each \
                     capture's NEFF beside it (NAME.ntff[.gz] -> NAME.neff)",
                    self.like.len()
                );
            }
            let model = super::capture_model::learn(
                &self.like,
                self.like_neff.as_deref(),
                read,
                self.like_unchecked,
            )?;
            return self.placed(model);
        }
        self.placed(match self.device_model {
            Some(m) => DeviceModel::with_regions(m),
            None => DeviceModel::default_for(target),
        })
    }

    /// `model` with `--core`'s placement (the runtime model's alone: the spec model's images
    /// name no core).
    fn placed(&self, mut model: DeviceModel) -> anyhow::Result<DeviceModel> {
        if let Some(core) = self.core {
            if model.regions != RegionModel::Runtime {
                anyhow::bail!(
                    "--core places the runtime model's images; the {} model's name no core",
                    model.name()
                );
            }
            model.cores = vec![core];
        }
        Ok(model)
    }
}
