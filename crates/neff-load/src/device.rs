//! Staging (spec 000 §6.4, §8): the HBM device-memory model an image is allocated in
//! (`dmem_alloc_aligned`, a bump allocator over one HBM window), the 96-byte `inst_block` header
//! fields, the copy-in, and the device resolve into `ib_addrs_one_eng` (`ib_fill_debug_info`).

use neff_isa::EngineType;

use crate::device_model::DeviceModel;
use crate::error::LoadError;
use crate::image::{CodeRange, EngineImage};

/// `inst_block.name` of every image (spec 000 §6.4: `ib_allocate_block(.., "One block", ..)`).
pub(crate) const INST_BLOCK_NAME: &str = "One block";

/// Per-engine usage tag of an allocation (`dword_9DAB80[eng_type]`, spec 000 §8; the values are
/// not given, neffkit names them).
pub(crate) fn usage_tag(engine: EngineType) -> &'static str {
    match engine {
        EngineType::Pe => "instr_pe",
        EngineType::Act => "instr_act",
        EngineType::Pool => "instr_pool",
        EngineType::Dve => "instr_dve",
        EngineType::Sp => "instr_sp",
    }
}

/// One HBM allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    /// `dmem->_pa + align_offset`: the aligned device address.
    pub start_addr: u64,
    /// Bytes asked for.
    pub size: u64,
    /// Alignment used.
    pub align: u64,
    /// Usage tag.
    pub tag: &'static str,
}

/// The HBM (TONGA_DRAM) window of one core, allocated bottom-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceMemory {
    base: u64,
    size: u64,
    cursor: u64,
    allocations: Vec<Allocation>,
}

impl DeviceMemory {
    /// The empty HBM window of `device` (its `hbm_base`, `hbm_size`).
    pub fn for_model(device: &DeviceModel) -> Self {
        Self::new(device.hbm_base, device.hbm_size)
    }

    /// An empty window `[base, base + size)`.
    pub fn new(base: u64, size: u64) -> Self {
        Self {
            base,
            size,
            cursor: 0,
            allocations: Vec::new(),
        }
    }

    /// Every allocation so far.
    pub fn allocations(&self) -> &[Allocation] {
        &self.allocations
    }

    /// `dmem_alloc_aligned`: `size` bytes at the next `align`-aligned address, or
    /// [`LoadError::OutOfDeviceMemory`].
    pub fn alloc_aligned(
        &mut self,
        engine: EngineType,
        size: u64,
        align: u64,
    ) -> Result<u64, LoadError> {
        let oom = |cursor: u64| LoadError::OutOfDeviceMemory {
            engine,
            size,
            align,
            free: self.size.saturating_sub(cursor),
            capacity: self.size,
        };
        let start = (self.base + self.cursor)
            .checked_next_multiple_of(align)
            .ok_or_else(|| oom(self.cursor))?;
        let end = start.checked_add(size).ok_or_else(|| oom(self.cursor))?;
        if end > self.base + self.size {
            return Err(oom(self.cursor));
        }
        self.cursor = end - self.base;
        self.allocations.push(Allocation {
            start_addr: start,
            size,
            align,
            tag: usage_tag(engine),
        });
        Ok(start)
    }
}

/// The `inst_block` header fields neffkit keeps (spec 000 §3): name, `buf_len`, `inst_len`,
/// `start_addr`, the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstBlock {
    /// `name[32]`: "One block".
    pub name: &'static str,
    /// `buf_len`: the allocated buffer length.
    pub buf_len: u64,
    /// `inst_len`: the image's byte length.
    pub inst_len: u64,
    /// `start_addr = dmem->_pa + align_offset`: the device base.
    pub start_addr: u64,
    /// The engine.
    pub engine: EngineType,
}

/// `ib_addrs_one_eng` (.sunda, spec 000 §3, §8.2): the device-resolved ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IbAddrs {
    /// `base`: device address of the image.
    pub base: u64,
    /// `one_offset`: the whole "One block", `{0, inst_len}` (decision D73).
    pub one_offset: CodeRange,
    /// `model_switch_offset` = eib.model_switch.
    pub model_switch_offset: CodeRange,
    /// `core_offset` = eib.core.
    pub core_offset: CodeRange,
}

/// `ib_allocate_block` + `ib_transfer_block_to_tdram` + `ib_fill_debug_info`: allocates the image
/// in `mem` at the device model's instruction-block alignment (spec 000 §8 :15-24, the one
/// source: [`DeviceModel::instr_block_align`]), and resolves its device ranges. The copy-in is
/// the image bytes themselves (the model keeps them; no second buffer). `len` is the image's
/// byte length (`inst_len`), passed apart because a report-only load may have freed the bytes.
pub(crate) fn stage(
    mem: &mut DeviceMemory,
    image: &EngineImage,
    len: u64,
    device: &DeviceModel,
) -> Result<(InstBlock, IbAddrs), LoadError> {
    let align = device.instr_block_align(image.engine)?;
    let start_addr = mem.alloc_aligned(image.engine, len, align)?;
    let block = InstBlock {
        name: INST_BLOCK_NAME,
        buf_len: len,
        inst_len: len,
        start_addr,
        engine: image.engine,
    };
    let addrs = IbAddrs {
        base: start_addr,
        one_offset: CodeRange {
            offset: 0,
            size: len,
        },
        model_switch_offset: image.eib.model_switch,
        core_offset: image.eib.core,
    };
    Ok((block, addrs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_and_bounded() {
        let mut m = DeviceMemory::new(0x1000, 0x20000);
        let a = m.alloc_aligned(EngineType::Pe, 0x100, 0x8000).unwrap();
        assert_eq!(a, 0x8000);
        let b = m.alloc_aligned(EngineType::Act, 0x100, 0x8000).unwrap();
        assert_eq!(b, 0x10000);
        let err = m
            .alloc_aligned(EngineType::Sp, 0x10000, 0x8000)
            .unwrap_err();
        assert!(
            err.to_string().contains("does not fit device memory"),
            "{err}"
        );
    }
}
