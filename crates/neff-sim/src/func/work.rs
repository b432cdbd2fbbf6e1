//! The arithmetic a run does, counted while it executes: what the benchmark's rates divide
//! (examples/run_rate.rs, scripts/bench-run.sh, docs/performance.md "neff run").

use neff_isa::Opcode;

/// The element-wise op classes timed apart ([`Work::classes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    /// COPY, CAST, RECIPROCAL.
    CopyCast,
    /// ACTIVATE.
    Activate,
    /// TENSOR_TENSOR_ARITH_OP.
    TensorTensor,
    /// TENSOR_SCALAR_ARITH_OP.
    TensorScalar,
    /// TENSOR_REDUCE_ARITH_OP.
    TensorReduce,
    /// MEMSET.
    Memset,
    /// TENSOR_SCALAR_AFFINE_SELECT.
    Select,
}

impl OpClass {
    /// Every class, in [`Work::classes`] order.
    pub const ALL: [OpClass; 7] = [
        OpClass::CopyCast,
        OpClass::Activate,
        OpClass::TensorTensor,
        OpClass::TensorScalar,
        OpClass::TensorReduce,
        OpClass::Memset,
        OpClass::Select,
    ];

    /// The class of `op`, or `None` for an opcode that is not element-wise.
    pub fn of(op: Opcode) -> Option<Self> {
        Some(match op {
            Opcode::COPY | Opcode::CAST | Opcode::RECIPROCAL => Self::CopyCast,
            Opcode::ACTIVATE => Self::Activate,
            Opcode::TENSOR_TENSOR_ARITH_OP => Self::TensorTensor,
            Opcode::TENSOR_SCALAR_ARITH_OP => Self::TensorScalar,
            Opcode::TENSOR_REDUCE_ARITH_OP => Self::TensorReduce,
            Opcode::MEMSET => Self::Memset,
            Opcode::TENSOR_SCALAR_AFFINE_SELECT => Self::Select,
            _ => return None,
        })
    }

    /// A short name (`copy/cast`, `activate`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::CopyCast => "copy/cast",
            Self::Activate => "activate",
            Self::TensorTensor => "tensor_tensor",
            Self::TensorScalar => "tensor_scalar",
            Self::TensorReduce => "tensor_reduce",
            Self::Memset => "memset",
            Self::Select => "affine_select",
        }
    }
}

/// One class's elements written and wall nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassWork {
    /// Elements written.
    pub elements: u64,
    /// Wall nanoseconds inside its slots.
    pub ns: u64,
}

/// Arithmetic counted while a run executes (scripts/bench-run.sh, docs/performance.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    /// Matmul floating-point operations: `2 * K * M * N` per MATMUL.
    pub matmul_flops: u64,
    /// Elements written by the element-wise, activation, copy and select ops.
    pub elementwise: u64,
    /// Bytes DMA descriptors moved.
    pub dma_bytes: u64,
    /// Wall nanoseconds spent executing the element-wise slots (the denominator of the
    /// element-wise rate alone; the race detector's checks after each slot are not in it).
    pub elementwise_ns: u64,
    /// The element-wise work per [`OpClass`] (in [`OpClass::ALL`] order).
    pub classes: [ClassWork; 7],
}

impl Work {
    /// Adds `o`'s counts.
    pub(crate) fn add(&mut self, o: &Work) {
        self.matmul_flops += o.matmul_flops;
        self.elementwise += o.elementwise;
        self.dma_bytes += o.dma_bytes;
        self.elementwise_ns += o.elementwise_ns;
        for (c, oc) in self.classes.iter_mut().zip(&o.classes) {
            c.elements += oc.elements;
            c.ns += oc.ns;
        }
    }

    /// Counts `elements` written in `ns` by a slot of `class`.
    pub(crate) fn count(&mut self, class: OpClass, elements: u64, ns: u64) {
        self.elementwise_ns += ns;
        let i = OpClass::ALL.iter().position(|&c| c == class).unwrap_or(0);
        self.classes[i].elements += elements;
        self.classes[i].ns += ns;
    }
}
