//! The operand shapes a payload field can have beyond plain integers: access patterns
//! (`TENSOR{N}D`, the DMA `[step][num]` pattern), the DMA `ADDR8`, and the references a field
//! keeps to the bytes that qualify it (its dtype, its operand source).

use crate::SLOT_BYTES;

/// Which part of a byte a dtype lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The whole byte.
    Byte,
    /// The low nibble (`DTYPE_PAIR.dtype_lo`, reference §4.6).
    Lo,
    /// The high nibble (`DTYPE_PAIR.dtype_hi`).
    Hi,
}

/// Where the dtype of an operand is: a byte (or nibble) of the slot outside the operand's own
/// bytes. The text form prints it as the operand's `fp32@` prefix, as neuron-profile does
/// (decision D130); the dtype byte is also a field of its own ([`super::Show::Joined`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DtypeAt {
    /// Offset of the byte in the slot.
    pub offset: u8,
    /// The part of the byte.
    pub part: Part,
}

impl DtypeAt {
    /// Reads the dtype code from `b`.
    #[inline]
    pub fn read(self, b: &[u8; SLOT_BYTES]) -> u8 {
        let x = b[self.offset as usize];
        match self.part {
            Part::Byte => x,
            Part::Lo => x & 0xF,
            Part::Hi => x >> 4,
        }
    }

    /// Writes dtype code `v` into `b`; `None` when it does not fit the part.
    pub fn write(self, b: &mut [u8; SLOT_BYTES], v: u8) -> Option<()> {
        let x = &mut b[self.offset as usize];
        match self.part {
            Part::Byte => *x = v,
            Part::Lo if v < 16 => *x = (*x & 0xF0) | v,
            Part::Hi if v < 16 => *x = (*x & 0x0F) | (v << 4),
            _ => return None,
        }
        Some(())
    }
}

/// A tensor access pattern `TENSOR{N}D` (reference §4.6): `{ADDR4 start; i16 step[N]; u16
/// num[N]}`, steps in elements, innermost first. Printed `fp32@0x36ff8[1,0,0][512,1,1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tensor {
    /// `start_addr` (ADDR4: bit 25 = PSUM; below it an SBUF partition `addr >> 18` and byte
    /// offset `addr & 0x3FFFF`, decision D130).
    pub start_addr: u32,
    /// Number of dimensions (2..=4).
    pub dims: u8,
    /// `step_elem[N]`.
    pub step: [i16; 4],
    /// `num_elem[N]`.
    pub num: [u16; 4],
    /// The element dtype code, when the layout names a dtype byte for the tensor.
    pub dtype: Option<u8>,
}

/// SBUF bytes per partition in the ADDR4 address space: partition `p` starts at `p << 18` (the
/// DMA partition stride 0x40000 of reference §3.3; decision D130).
pub const PARTITION_SHIFT: u32 = 18;

/// Bit 25 of an ADDR4 selects PSUM (reference §4.6).
pub const PSUM_BIT: u32 = 1 << 25;

impl Tensor {
    /// Whether the start address is in PSUM (bit 25).
    #[inline]
    pub const fn is_psum(&self) -> bool {
        self.start_addr & PSUM_BIT != 0
    }

    /// The first SBUF partition the pattern touches (`start_addr >> 18`, for SBUF addresses).
    #[inline]
    pub const fn partition(&self) -> u32 {
        (self.start_addr & !PSUM_BIT) >> PARTITION_SHIFT
    }

    /// The byte offset inside the partition.
    #[inline]
    pub const fn partition_offset(&self) -> u32 {
        self.start_addr & ((1 << PARTITION_SHIFT) - 1)
    }
}

/// A DMA access pattern without an address, `{u32 step[N]; u16 num[N]}` (PSEUDO_DMA_DIRECT2D
/// +0x18 / +0x30, reference §4.5): steps in bytes. Printed `[512,1][128,1]` like neuron-profile's
/// `src_pattern=` (decision D132).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pattern {
    /// Number of dimensions (1..=4).
    pub dims: u8,
    /// `step[N]`.
    pub step: [u32; 4],
    /// `num[N]`.
    pub num: [u16; 4],
}

/// `ADDR8` of the DMA family (reference §4.5): `{u32 immediate; u16 entry; u8 shape_reg; u8
/// mode}`. Printed by mode the way neuron-profile's `compiler_operands` print it (decision D132).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Addr8 {
    /// Bytes 0-3: the immediate (offset in the var, or into the DGE table entry).
    pub immediate: u32,
    /// Bytes 4-5: DGE table entry / physical var id.
    pub entry: u16,
    /// Byte 6: the shape register (`src_shape_reg=`).
    pub b6: u8,
    /// Byte 7: mode (0x10 physical var-id, 0x20 DGE table entry, 0x28 with an offset register).
    pub mode: u8,
}

impl Addr8 {
    /// The 8 bytes of a u64 device address in an ADDR8's place, little-endian: the runtime's DMA
    /// instruction (0xB8) carries a resolved physical-var operand that way (decision D461).
    pub const fn from_device_addr(addr: u64) -> Self {
        let b = addr.to_le_bytes();
        Addr8 {
            immediate: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            entry: u16::from_le_bytes([b[4], b[5]]),
            b6: b[6],
            mode: b[7],
        }
    }
}

/// ADDR8 mode byte flags that are not part of the mode: 0x04 and 0x40 (reference §4.5's ADDR8:
/// "|0x04 and |0x40 are flags"); a reader masks them off before matching the mode.
pub const ADDR8_FLAGS: u8 = 0x44;
/// ADDR8 mode 0x10: `entry` is a var id, `immediate` the offset in it.
pub const ADDR8_VAR: u8 = 0x10;
/// ADDR8 mode 0x20: `entry` is a DGE table index, `immediate` the offset.
pub const ADDR8_TABLE: u8 = 0x20;
/// ADDR8 mode bit 0x08 (with 0x10 or 0x20): the immediate is a register holding the offset
/// (S5's OFFSET_REG marker, decision D155).
pub const ADDR8_OFFSET_REG: u8 = 0x08;

/// When an operand field holds an address rather than an immediate, judged by its source byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtrWhen {
    /// A pointer when the source byte is 0 (ACTIVATE's bias, decision D133).
    Zero,
    /// A pointer when the source byte is not 0 (`IMM_SRC` PTR / REG_PTR, reference §4.6).
    NonZero,
}

/// How an operand's immediate form prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImmForm {
    /// fp32, `%.6f` as neuron-profile prints `scale=1.000000` (exact values only).
    F32,
    /// A 32-bit integer in decimal.
    U32,
}

/// A 4-byte operand that is either an immediate or an address, as a source byte elsewhere in
/// the slot says (`IMM_VAL_INST_FIELD` + `IMM_SRC`, reference §4.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    /// Offset of the source byte.
    pub src_at: u8,
    /// Which source values mean "address".
    pub ptr_when: PtrWhen,
    /// How the immediate prints.
    pub imm: ImmForm,
    /// The address form's key gets `_ptr` appended (`bias_ptr=`), as the profiler spells it.
    pub ptr_suffix: bool,
    /// The dtype printed before an address (`bias_ptr=fp32@0x4810`).
    pub dtype: Option<DtypeAt>,
}

impl Operand {
    /// Whether the operand of slot `b` is an address.
    #[inline]
    pub fn is_ptr(&self, b: &[u8; SLOT_BYTES]) -> bool {
        let s = b[self.src_at as usize];
        match self.ptr_when {
            PtrWhen::Zero => s == 0,
            PtrWhen::NonZero => s != 0,
        }
    }
}
