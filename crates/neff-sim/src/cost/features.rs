//! The features the cost model reads from one instruction: its class, how many elements each
//! partition streams, how many partitions, the dtype, and the passes an fp32 matmul makes.
//!
//! THE one place instruction bytes are read for cost, all through neff-isa's typed payload views
//! (decision D190; the views are issue 12's, decisions D130-D136).

use neff_isa::layout::Tensor;
use neff_isa::payload::{
    Activate, CopyCast, LdWeights, Matmul, Memset, TensorReduce, TensorScalar, TensorTensor,
};
use neff_isa::{Dtype, Fp32Mode, Opcode, Slot};

use super::CostClass;

/// What the cost model knows about one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// The class.
    pub class: CostClass,
    /// Elements each partition streams: the product of the source access pattern's counts
    /// (MATMUL: the moving columns; LDWEIGHTS: the weight rows).
    pub elements: u64,
    /// Active partitions (0 when the instruction does not say).
    pub partitions: u32,
    /// The source dtype byte (0 when the instruction has none).
    pub dtype: u8,
    /// Passes through the PE array: 2 for an fp32 MATMUL in LOW_HIGH mode (the moving data split
    /// into a low and a high half; decision D191), else 1.
    pub passes: u8,
    /// Bytes moved, for DMA triggers and collectives.
    pub bytes: u64,
    /// MATMUL: the free size of the weights in the PE array, i.e. the elements per partition of
    /// the LDWEIGHTS before it in its engine's program order (0: none seen). A MATMUL holds the
    /// array at least `min(this, CostTable::matmul_floor_columns)` PE cycles per pass (D812);
    /// set by the pricer, which sees an engine's slots in order.
    pub stationary: u64,
}

impl Features {
    /// Features of an instruction that only has a class.
    pub fn of_class(class: CostClass) -> Self {
        Self {
            class,
            elements: 0,
            partitions: 0,
            dtype: 0,
            passes: 1,
            bytes: 0,
            stationary: 0,
        }
    }

    /// The unit of work the table's `per_unit_ns` multiplies: elements times passes.
    pub fn work(&self) -> u64 {
        self.elements.saturating_mul(u64::from(self.passes.max(1)))
    }

    /// The source element size in bytes, when the dtype is known.
    pub fn elem_bytes(&self) -> Option<u32> {
        Some(match Dtype::from_u8(self.dtype)? {
            Dtype::Int8 | Dtype::Uint8 | Dtype::Fp8E3 | Dtype::Fp8E4 | Dtype::Fp8E5 => 1,
            Dtype::Int16 | Dtype::Uint16 | Dtype::Bfloat16 | Dtype::Float16 => 2,
            Dtype::Int32 | Dtype::Uint32 | Dtype::Float32 | Dtype::Float32R => 4,
            Dtype::Uint64 | Dtype::Int64 => 8,
            Dtype::Invalid => return None,
        })
    }
}

/// The class of a compute or control opcode (DMA triggers and collectives are classed by the
/// register their WRITE targets, in `decode`).
pub fn class_of(op: Opcode) -> CostClass {
    use neff_isa::OpClass;
    match op {
        Opcode::MATMUL | Opcode::MATMUL_SPARSE | Opcode::MATMUL_MX => CostClass::Matmul,
        Opcode::LDWEIGHTS | Opcode::LDWEIGHTS_MX => CostClass::LoadWeights,
        Opcode::ACTIVATE
        | Opcode::ACTIVATE2
        | Opcode::ACTIVATE_QUANTIZE
        | Opcode::ACTIVATE_MULTIPASS
        | Opcode::EXPONENTIAL => CostClass::Activate,
        Opcode::ACTIVATION_TABLE_LOAD => CostClass::ActTableLoad,
        Opcode::TENSOR_REDUCE_ARITH_OP | Opcode::TENSOR_REDUCE_BITVEC_OP => CostClass::TensorReduce,
        Opcode::TENSOR_SCALAR_ARITH_OP
        | Opcode::TENSOR_SCALAR_PTR_ARITH_OP
        | Opcode::TENSOR_SCALAR_BITVEC_OP
        | Opcode::TENSOR_SCALAR_PTR_BITVEC_OP => CostClass::TensorScalar,
        Opcode::TENSOR_TENSOR_ARITH_OP | Opcode::TENSOR_TENSOR_BITVEC_OP => CostClass::TensorTensor,
        Opcode::COPY => CostClass::Copy,
        Opcode::CAST => CostClass::Cast,
        Opcode::RECIPROCAL => CostClass::Reciprocal,
        Opcode::MEMSET => CostClass::Memset,
        Opcode::TENSOR_LOAD | Opcode::TENSOR_STORE => CostClass::RegisterIo,
        Opcode::SET_ORDERING_MODE => CostClass::Ordering,
        Opcode::NOTIFY => CostClass::Notify,
        Opcode::DRAIN => CostClass::Drain,
        Opcode::EVENT_SEMAPHORE | Opcode::NOP | Opcode::BRANCH_PREFETCH_HINT => CostClass::Sync,
        op => match op.info().map(|i| i.class) {
            Some(OpClass::Pe | OpClass::Act | OpClass::Datapath | OpClass::High) => {
                CostClass::OtherCompute
            }
            _ => CostClass::Control,
        },
    }
}

/// The features of the instruction in `slot`, read through neff-isa's payload views (decisions
/// D130-D136 name every field).
pub fn features(slot: &Slot<'_>) -> Features {
    let op = slot.opcode();
    let mut f = Features::of_class(class_of(op));
    if let Some(t) = source(slot, &mut f) {
        f.elements = elements(&t);
    }
    if f.class == CostClass::LoadWeights && f.elem_bytes() == Some(4) {
        // D814: fp32 weights load 4.5 times slower a row than 2-byte ones.
        f.class = CostClass::LoadWeightsFp32;
    }
    f
}

/// The raw dtype byte of a view's dtype getter.
fn raw(d: Result<Dtype, u8>) -> u8 {
    d.map_or_else(|raw| raw, u8::from)
}

/// Fills dtype, partitions and passes from the slot's view; returns the access pattern whose
/// counts are the work (the source; MEMSET's destination).
fn source(slot: &Slot<'_>, f: &mut Features) -> Option<Tensor> {
    let s = *slot;
    if let Some(c) = CopyCast::new(s) {
        (f.dtype, f.partitions) = (raw(c.in_dtype()), c.channels().into());
        Some(c.src())
    } else if let Some(t) = TensorTensor::new(s) {
        (f.dtype, f.partitions) = (raw(t.in0_dtype()), t.channels().into());
        Some(t.src0())
    } else if let Some(m) = Matmul::new(s) {
        (f.dtype, f.partitions) = (raw(m.in_dtype()), m.pe_shape()[0].into());
        if m.fp32_mode() == Ok(Fp32Mode::LowHigh) {
            f.passes = 2;
        }
        Some(m.src())
    } else if let Some(l) = LdWeights::new(s) {
        (f.dtype, f.partitions) = (raw(l.in_dtype()), l.pe_shape()[0].into());
        Some(l.src())
    } else if let Some(a) = Activate::new(s) {
        (f.dtype, f.partitions) = (raw(a.in_dtype()), a.channels().into());
        Some(a.src())
    } else if let Some(t) = TensorScalar::new(s) {
        (f.dtype, f.partitions) = (raw(t.in_dtype()), t.channels().into());
        Some(t.src())
    } else if let Some(r) = TensorReduce::new(s) {
        (f.dtype, f.partitions) = (raw(r.in_dtype()), r.channels().into());
        Some(r.src())
    } else if let Some(m) = Memset::new(s) {
        (f.dtype, f.partitions) = (raw(m.dtype()), m.channels().into());
        Some(m.dst())
    } else {
        None
    }
}

/// The elements an access pattern covers per partition: the product of its counts.
fn elements(t: &Tensor) -> u64 {
    let dims = usize::from(t.dims.clamp(1, 4));
    t.num[..dims]
        .iter()
        .fold(1u64, |acc, &n| acc.saturating_mul(u64::from(n.max(1))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(hex: &str) -> [u8; 64] {
        let hex: String = hex.split_whitespace().collect();
        let b: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        b.try_into().unwrap()
    }

    /// fused_attention sg00 PE.bin slot 13, verbatim; the profiler prints `acc_flags=1
    /// fp32_mode=LOW_HIGH src=fp32@0x36ff8[1,0,0][512,1,1] ... 128*128`.
    #[test]
    fn real_matmul_512_fp32_low_high() {
        let b = slot(
            "0210 0000 0000 0000 0000 0000 0000 0000 f86f 0300 0100 0000 0000 0002 0100 0100
             0a03 0000 0000 8080 0000 0001 0f0f 0000 0020 0002 0100 0000 0000 0002 0100 0100",
        );
        let f = features(&Slot::new(&b));
        assert_eq!(f.class, CostClass::Matmul);
        assert_eq!((f.elements, f.passes, f.work()), (512, 2, 1024));
        assert_eq!((f.dtype, f.partitions), (0x0a, 128));
        assert_eq!(f.elem_bytes(), Some(4));
    }

    /// fused_attention sg00 DVE.bin slot 2: `op=MAX dim=X src=fp32@0x2002000[1,1,1,1]
    /// [512,1,1,1] ... channels=128`.
    #[test]
    fn real_tensor_reduce() {
        let b = slot(
            "4210 0000 0505 1306 0500 0000 0020 0002 0100 0100 0100 0100 0002 0100 0100 0100
             0a0a 8000 0802 0000 0000 0000 0048 0000 0100 0100 0100 0100 0100 0100 0100 0100",
        );
        let f = features(&Slot::new(&b));
        assert_eq!(f.class, CostClass::TensorReduce);
        assert_eq!((f.elements, f.partitions, f.passes), (512, 128, 1));
    }

    /// fused_attention sg00 Activation.bin slot 3 (a COPY, read through neff-isa's view).
    #[test]
    fn real_act_copy_uses_the_view() {
        let b = slot(
            "4610 0000 0505 1304 0400 0000 0000 0002 0100 0100 0100 0100 0002 0100 0100 0100
             0a0a 8000 0000 0000 0000 0000 0040 0000 0100 0100 0100 0100 0002 0100 0100 0100",
        );
        let f = features(&Slot::new(&b));
        assert_eq!(f.class, CostClass::Copy);
        assert_eq!((f.elements, f.partitions, f.dtype), (512, 128, 0x0a));
    }

    /// fused_fp32_s512 sg00 PE.bin slot 3: `LDWEIGHTS $S[8]>=16 fp32_mode=LOW
    /// transpose_mode=ENABLED src=fp32@0x369f4[-1,0,0][128,1,1] 128*128` (D814).
    #[test]
    fn real_fp32_ldweights_is_its_own_class() {
        let b = slot(
            "0110 0000 0508 0000 1000 0000 0000 0000 f469 0300 ffff 0000 0000 8000 0100 0100
             0a01 0100 0000 8080 0000 0000 0f0f 0000 0000 0000 0000 0000 0000 0000 0000 0000",
        );
        let f = features(&Slot::new(&b));
        assert_eq!((f.class, f.elements), (CostClass::LoadWeightsFp32, 128));
        assert!(f.class.loads_weights());
        assert!(!CostClass::Matmul.loads_weights());
    }

    #[test]
    fn control_opcodes_have_no_work() {
        let mut b = [0u8; 64];
        b[..2].copy_from_slice(&[0xa0, 0x10]);
        let f = features(&Slot::new(&b));
        assert_eq!((f.class, f.work()), (CostClass::Sync, 0));
        b[0] = 0xa8;
        assert_eq!(features(&Slot::new(&b)).class, CostClass::Control);
    }
}
