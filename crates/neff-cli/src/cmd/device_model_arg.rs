//! `--device-model NAME`, shared by every command that builds images (decisions D170, D175).

use neff_kelf::Target;
use neff_load::device_model::{DeviceModel, RegionModel, UnknownRegionModel};

/// The device model flag.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct DeviceModelArg {
    /// The device model images are built for: `runtime` (the Neuron runtime's PREAMBLE /
    /// POSTAMBLE, from hardware traces: device PCs match the hardware's) or `spec` (the
    /// specification's steps). Default: runtime for trn2 (cayman) NEFFs, spec for the others.
    #[arg(long = "device-model", value_name = "NAME", value_parser = parse_model)]
    pub(crate) device_model: Option<RegionModel>,
}

fn parse_model(s: &str) -> Result<RegionModel, String> {
    s.parse().map_err(|e: UnknownRegionModel| e.to_string())
}

impl DeviceModelArg {
    /// The model asked for, or the default for a NEFF of `target`.
    pub(crate) fn resolve(&self, target: Target) -> DeviceModel {
        match self.device_model {
            Some(m) => DeviceModel::with_regions(m),
            None => DeviceModel::default_for(target),
        }
    }
}
