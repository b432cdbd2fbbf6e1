//! The device model: the addresses lowering writes into records (DMA ring tail pointers,
//! semaphore registers, the collective doorbell, the rank-id buffer) and the per-engine
//! instruction-block alignment of staging (spec 000 §8). Documented in docs/device-model.md.
//!
//! The runtime reads these from the silicon's HAL and its allocator; neffkit has no device, so the
//! model is a plain value with a deterministic default (every address fixed, so the lowered bytes
//! of a NEFF are reproducible) that a caller may replace field by field.
//!
//! Two models exist as values (decision D170): [`DeviceModel::spec`], whose PREAMBLE and
//! POSTAMBLE are built from the spec's steps (decision D74), and [`DeviceModel::runtime`], whose
//! regions are the real runtime's as hardware traces show them ([`crate::runtime_model`]), so
//! that device PCs match the hardware. They share every address.

use neff_isa::EngineType;
use neff_kelf::Target;
use neff_lower::device::LowerDevice;

use crate::physical_core::PhysicalCore;
pub use neff_lower::device::{DeviceModelError, Direct2dForm, StaticTriggerForm};

/// The minimum sequencer instruction-block alignment (spec 000 §8: `max(0x8000, ...)`).
pub const MIN_INSTR_BLOCK_ALIGN: u64 = 0x8000;

/// Addresses and sizes of the modelled NeuronCore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceModel {
    /// Base of the HBM (TONGA_DRAM) window where images and tensors are staged.
    pub hbm_base: u64,
    /// Size of that window in bytes.
    pub hbm_size: u64,
    /// Register address of ring 0 of queue 0's tail pointer.
    pub dma_tail_base: u64,
    /// Distance between two queues' register banks.
    pub dma_queue_stride: u64,
    /// Distance between two rings of one queue.
    pub dma_ring_stride: u64,
    /// Offset of the re-arm register from a ring's tail-pointer register.
    pub dma_rearm_offset: u64,
    /// Register address of semaphore 0 of engine 0.
    pub semaphore_base: u64,
    /// Distance between two engines' semaphore banks.
    pub semaphore_engine_stride: u64,
    /// The collective (ENC) trigger doorbell; the k-th op list of a model rings `+ 8 * k`.
    pub cc_doorbell_base: u64,
    /// The current-rank-id buffer read by PSEUDO_CUR_PROCESSING_RANK_ID (spec 001 §3 pcprid).
    pub rank_id_addr: u64,
    /// The global device id stored by PSEUDO_GID_LOAD (spec 001 §3 pseudo_gid_load).
    pub global_device_id: u32,
    /// The state buffer (`state-buffer` var, `SB`) in the Neuron address space: a var-addressed
    /// load of SB offset `o` reads `state_buffer_base + o` (decision D157).
    pub state_buffer_base: u64,
    /// Where the model's HBM vars (inputs, outputs, files, scratch) are placed, one after the
    /// other in var_id order (decision D157).
    pub tensor_base: u64,
    /// `seq_instr_block_size[5]` (spec 000 §8, `nrt_global_config_t` +120), per engine type.
    pub seq_instr_block_size: [u64; EngineType::COUNT],
    /// Whose PREAMBLE / MODEL_SWITCH / POSTAMBLE the images get.
    pub regions: RegionModel,
    /// The silicon generation (`al_hal_tpb_get_arch_type()`, spec 001's arch gate); `None` is the
    /// NEFF's own target. A sunda NEFF on a cayman or mariana device is lowered by the v3 demux
    /// after the down-translation step (decision D288).
    pub arch: Option<Target>,
    /// How a PSEUDO_DMA_DIRECT2D (0xD4) is lowered (decision D461).
    pub direct2d: Direct2dForm,
    /// How a PSEUDO_DMA_TRIGGER (0xC1) on a static queue is lowered (decision D580).
    pub static_trigger: StaticTriggerForm,
    /// The shared scratchpad `virtual` vars are windows into: runtime 2.30.51 resolves every
    /// virtual var of the seven shared captures to `0x8000_0100_0000` (decision D462).
    pub scratch_base: u64,
    /// Templates learned from a capture (`--like CAPTURE`, decision D463): the PREAMBLE and
    /// POSTAMBLE bytes of that runtime version, used for the engines whose content they cover.
    pub learned: Option<std::sync::Arc<crate::runtime_model::LearnedRuntime>>,
    /// The physical core each subgraph runs on, by subgraph index (decision D816): the runtime
    /// model's records, written in [`PhysicalCore::FRAME`]'s address windows, are moved there.
    /// Empty: subgraph `i` on the core `i` after the frame (the shared captures' sg00 on core 4,
    /// sg01 on core 5); a subgraph past a shorter list on the cores after its last. The spec
    /// model's images are never moved.
    pub cores: Vec<PhysicalCore>,
}

/// Who builds the regions around MAIN (decision D170).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RegionModel {
    /// The spec's steps, from the neff-isa builders (decision D74; docs/device-model.md).
    #[default]
    Spec,
    /// The real runtime's regions (runtime 2.30.51 on trn2), slot by slot as the hardware
    /// traces show them ([`crate::runtime_model`]; decisions D171-D174).
    Runtime,
}

impl RegionModel {
    /// Every model, in the order `--device-model` lists them.
    pub const ALL: [RegionModel; 2] = [Self::Spec, Self::Runtime];

    /// The model's name (`--device-model NAME`, the `device_model` of JSON reports).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Spec => "spec",
            Self::Runtime => "runtime",
        }
    }

    /// One line saying what the model is.
    pub const fn description(self) -> &'static str {
        match self {
            Self::Spec => "the specification's PREAMBLE / POSTAMBLE steps (neffkit's own layout)",
            Self::Runtime => {
                "the Neuron runtime's regions (runtime 2.30.51 on trn2, from hardware traces)"
            }
        }
    }
}

/// The error of `RegionModel`'s [`std::str::FromStr`]: not a model's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown device model `{0}` (expected {names})", names = RegionModel::ALL.map(RegionModel::name).join(" or "))]
pub struct UnknownRegionModel(pub String);

impl std::str::FromStr for RegionModel {
    type Err = UnknownRegionModel;

    /// The model called `name` (`spec`, `runtime`): `--device-model` and the Python package's
    /// `device_model=`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| UnknownRegionModel(name.to_owned()))
    }
}

impl Default for DeviceModel {
    /// The deterministic default (docs/device-model.md): HBM at 0x40_0000_0000 (16 GiB), DMA
    /// registers at 0x0010_0000_0000, semaphores at 0x0010_1000_0000, doorbell at
    /// 0x0010_2000_0000, rank-id buffer at 0x0010_3000_0000, global device id 0, the state buffer
    /// at 0x8020_0000_0000 and HBM vars from 0x8000_0000_0000 (D157), and every engine's
    /// instruction blocks aligned to 0x8000.
    fn default() -> Self {
        Self {
            hbm_base: 0x40_0000_0000,
            hbm_size: 16 << 30,
            dma_tail_base: 0x0010_0000_0000,
            dma_queue_stride: 0x1000,
            dma_ring_stride: 0x40,
            dma_rearm_offset: 0x8,
            semaphore_base: 0x0010_1000_0000,
            semaphore_engine_stride: 0x1000,
            cc_doorbell_base: 0x0010_2000_0000,
            rank_id_addr: 0x0010_3000_0000,
            global_device_id: 0,
            // D157, the frame core's TPB (D816).
            state_buffer_base: PhysicalCore::FRAME.tpb_base(),
            tensor_base: 0x8000_0000_0000,
            seq_instr_block_size: [MIN_INSTR_BLOCK_ALIGN; EngineType::COUNT],
            regions: RegionModel::Spec,
            arch: None,
            direct2d: Direct2dForm::TailWrite,
            static_trigger: StaticTriggerForm::TailWrite,
            scratch_base: 0x8000_0100_0000,
            learned: None,
            cores: Vec::new(),
        }
    }
}

impl DeviceModel {
    /// The spec-built model (the [`Default`]).
    pub fn spec() -> Self {
        Self::default()
    }

    /// The runtime's model: the spec model's addresses, runtime 2.30.51's regions as the shared
    /// captures show them (decision D850: [`crate::runtime_model::builtin`]), the rules'
    /// (D171-D174) for an engine whose content no capture covers.
    pub fn runtime() -> Self {
        Self::like_shared(crate::runtime_model::builtin::runtime_2_30_51())
    }

    /// The runtime model from its rules alone (D171-D174): the regions' lengths and traced
    /// slots, every other runtime slot a placeholder, 0xD4 kept as D54's tail WRITE. What a
    /// learned runtime falls back to; no command loads with it.
    pub fn runtime_rules() -> Self {
        Self {
            regions: RegionModel::Runtime,
            ..Self::default()
        }
    }

    /// The model called `name` (`spec` or `runtime`).
    pub fn by_name(name: &str) -> Option<Self> {
        RegionModel::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .map(Self::with_regions)
    }

    /// The model with `regions`: [`Self::spec`] or [`Self::runtime`].
    pub fn with_regions(regions: RegionModel) -> Self {
        match regions {
            RegionModel::Spec => Self::spec(),
            RegionModel::Runtime => Self::runtime(),
        }
    }

    /// The runtime model with the templates `learned` from a capture (decision D463): its
    /// regions where they cover an engine's content, the rules' elsewhere when the capture is
    /// of the rules' runtime version (an error otherwise, D842), and 0xD4 and the
    /// static queues' 0xC1 lowered as that runtime does (D461, D580, D581; the plain `runtime`
    /// model keeps D54's tail WRITEs, which the simulator reads as the DMA start).
    pub fn like(learned: crate::runtime_model::LearnedRuntime) -> Self {
        Self::like_shared(std::sync::Arc::new(learned))
    }

    /// [`Self::like`] of a runtime shared with other models.
    pub fn like_shared(learned: std::sync::Arc<crate::runtime_model::LearnedRuntime>) -> Self {
        Self {
            learned: Some(learned),
            direct2d: Direct2dForm::DmaInstruction,
            static_trigger: StaticTriggerForm::Broadcast,
            ..Self::runtime_rules()
        }
    }

    /// The model a NEFF for `target` is loaded under unless one is asked for (decision D175):
    /// the runtime's for trn2 (cayman), where the traces come from and users' PCs do; the spec's
    /// for the generations no trace shows.
    pub fn default_for(target: Target) -> Self {
        match target {
            Target::Cayman => Self::runtime(),
            _ => Self::spec(),
        }
    }

    /// The physical core subgraph `subgraph` runs on, whose address windows its runtime-model
    /// images are moved to (decision D816); `None` under the spec model, or past the device's
    /// last core (the images stay in the frame core's windows).
    pub fn core_of(&self, subgraph: usize) -> Option<PhysicalCore> {
        if self.regions != RegionModel::Runtime {
            return None;
        }
        match (self.cores.get(subgraph), self.cores.last()) {
            (Some(&c), _) => Some(c),
            (None, Some(last)) => last.plus(subgraph + 1 - self.cores.len()),
            (None, None) => PhysicalCore::FRAME.plus(subgraph),
        }
    }

    /// The model's name.
    pub fn name(&self) -> &'static str {
        self.regions.name()
    }

    /// Checks what staging asserts (spec 000 §8): every block size a power of two.
    pub fn validate(&self) -> Result<(), DeviceModelError> {
        for engine in EngineType::ALL {
            let size = self.seq_instr_block_size[engine.index()];
            if !size.is_power_of_two() {
                return Err(DeviceModelError::BlockSizeNotPowerOfTwo { engine, size });
            }
        }
        Ok(())
    }

    /// The staging alignment of an engine's image: `max(0x8000, seq_instr_block_size[eng])`
    /// (spec 000 §8 `ib_transfer_block_to_tdram`). The spec asserts it is a power of two and a
    /// multiple of the block size; both hold exactly when the block size is a power of two, the
    /// one check made here. Staging (`crate::device::stage`) reads only this.
    pub fn instr_block_align(&self, engine: EngineType) -> Result<u64, DeviceModelError> {
        let size = self.seq_instr_block_size[engine.index()];
        if !size.is_power_of_two() {
            return Err(DeviceModelError::BlockSizeNotPowerOfTwo { engine, size });
        }
        Ok(size.max(MIN_INSTR_BLOCK_ALIGN))
    }

    /// The tail-pointer register of ring `ring` of the `queue`-th DMA queue (in kbin order); the
    /// target of the WRITE a PSEUDO_DMA_TRIGGER becomes (spec 003 §4).
    pub fn ring_tail_addr(&self, queue: usize, ring: usize) -> Result<u64, DeviceModelError> {
        let q = (queue as u64).checked_mul(self.dma_queue_stride);
        let r = (ring as u64).checked_mul(self.dma_ring_stride);
        q.zip(r)
            .and_then(|(q, r)| self.dma_tail_base.checked_add(q)?.checked_add(r))
            .ok_or(DeviceModelError::AddressOverflow {
                what: "DMA tail pointer",
            })
    }

    /// The re-arm register of a ring (add_dma_bundle_rearm, spec 000 §8.1).
    pub fn ring_rearm_addr(&self, queue: usize, ring: usize) -> Result<u64, DeviceModelError> {
        self.ring_tail_addr(queue, ring)?
            .checked_add(self.dma_rearm_offset)
            .ok_or(DeviceModelError::AddressOverflow { what: "DMA re-arm" })
    }

    /// The register of semaphore `idx` of `engine` (4 bytes each).
    pub fn semaphore_addr(&self, engine: EngineType, idx: u8) -> u64 {
        self.semaphore_base
            + engine.index() as u64 * self.semaphore_engine_stride
            + u64::from(idx) * 4
    }

    /// The doorbell the `k`-th collective op list of a model rings (spec 001 §3 `trigger_addr`).
    pub fn cc_trigger_addr(&self, k: usize) -> Result<u64, DeviceModelError> {
        (k as u64)
            .checked_mul(8)
            .and_then(|o| self.cc_doorbell_base.checked_add(o))
            .ok_or(DeviceModelError::AddressOverflow {
                what: "collective doorbell",
            })
    }
}

/// Lowering reads the model through [`LowerDevice`] (decision D560): the same addresses.
impl LowerDevice for DeviceModel {
    fn ring_tail_addr(&self, queue: usize, ring: usize) -> Result<u64, DeviceModelError> {
        DeviceModel::ring_tail_addr(self, queue, ring)
    }

    fn ring_rearm_addr(&self, queue: usize, ring: usize) -> Result<u64, DeviceModelError> {
        DeviceModel::ring_rearm_addr(self, queue, ring)
    }

    fn cc_trigger_addr(&self, k: usize) -> Result<u64, DeviceModelError> {
        DeviceModel::cc_trigger_addr(self, k)
    }

    fn rank_id_addr(&self) -> u64 {
        self.rank_id_addr
    }

    fn global_device_id(&self) -> u32 {
        self.global_device_id
    }

    fn state_buffer_base(&self) -> u64 {
        self.state_buffer_base
    }

    fn tensor_base(&self) -> u64 {
        self.tensor_base
    }

    /// Runtime 2.30.51 resolves every virtual var to one scratchpad (decision D462).
    fn virtual_base(&self) -> Option<u64> {
        (self.regions == RegionModel::Runtime).then_some(self.scratch_base)
    }

    fn arch(&self) -> Option<Target> {
        self.arch
    }

    fn direct2d(&self) -> Direct2dForm {
        self.direct2d
    }

    fn static_trigger(&self) -> StaticTriggerForm {
        self.static_trigger
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_aligned_to_0x8000() {
        let m = DeviceModel::default();
        assert_eq!(m.validate(), Ok(()));
        for e in EngineType::ALL {
            assert_eq!(m.instr_block_align(e), Ok(0x8000));
        }
    }

    #[test]
    fn alignment_is_at_least_0x8000_and_must_be_power_of_two() {
        let mut m = DeviceModel::default();
        m.seq_instr_block_size[EngineType::Pool.index()] = 0x1000;
        assert_eq!(m.instr_block_align(EngineType::Pool), Ok(0x8000));
        m.seq_instr_block_size[EngineType::Pe.index()] = 0x20000;
        assert_eq!(m.instr_block_align(EngineType::Pe), Ok(0x20000));
        m.seq_instr_block_size[EngineType::Sp.index()] = 0x9000;
        assert!(m.validate().is_err());
        assert!(m.instr_block_align(EngineType::Sp).is_err());
    }

    #[test]
    fn models_by_name_and_target() {
        assert_eq!(DeviceModel::by_name("spec"), Some(DeviceModel::default()));
        assert_eq!(
            DeviceModel::by_name("runtime"),
            Some(DeviceModel::runtime())
        );
        assert_eq!(DeviceModel::by_name("hardware"), None);
        assert_eq!(DeviceModel::default_for(Target::Cayman).name(), "runtime");
        assert_eq!(DeviceModel::default_for(Target::Sunda).name(), "spec");
    }

    #[test]
    fn register_addresses_are_deterministic() {
        let m = DeviceModel::default();
        assert_eq!(m.ring_tail_addr(0, 0), Ok(0x0010_0000_0000));
        assert_eq!(m.ring_tail_addr(1, 2), Ok(0x0010_0000_1080));
        assert_eq!(m.ring_rearm_addr(1, 2), Ok(0x0010_0000_1088));
        assert_eq!(m.semaphore_addr(EngineType::Pool, 3), 0x0010_1000_200c);
        assert_eq!(m.cc_trigger_addr(2), Ok(0x0010_2000_0010));
        assert!(m.ring_tail_addr(usize::MAX, 0).is_err());
    }
}
