//! Device DRAM: one buffer per def.json var that is not the state buffer. Inputs and outputs
//! are shared by every subgraph (the runtime binds one tensor to every logical core; matmul_small's
//! two subgraphs write the two column halves of `output0`); `file`, `tmp-buf`, `virtual` and the
//! other vars are each subgraph's own (decision D485).

/// One DRAM buffer.
#[derive(Debug, Clone)]
pub(crate) struct Buffer {
    /// The var name.
    pub(crate) name: String,
    /// The subgraph that owns it, `None` for inputs and outputs.
    pub(crate) owner: Option<usize>,
    /// The bytes.
    pub(crate) bytes: Vec<u8>,
}

/// Every DRAM buffer of a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hbm {
    /// The buffers.
    pub(crate) buffers: Vec<Buffer>,
}

impl Hbm {
    /// Adds a buffer unless the same one exists; returns its index. `bytes` is called only for a
    /// new buffer (an input shared by every subgraph is allocated once).
    pub(crate) fn add(
        &mut self,
        owner: Option<usize>,
        name: &str,
        bytes: impl FnOnce() -> Vec<u8>,
    ) -> usize {
        if let Some(i) = self
            .buffers
            .iter()
            .position(|b| b.name == name && b.owner == owner)
        {
            return i;
        }
        self.buffers.push(Buffer {
            name: name.to_string(),
            owner,
            bytes: bytes(),
        });
        self.buffers.len() - 1
    }
}
