//! The host-side result of assembling one engine: `ib_code_one_eng_t` (spec 000 §3, the eib) —
//! `{code, preamble, model_switch, core}` — plus the FUNCTION range `ib_functions[eng]`.

/// `ib_code_range_t` (spec 000 §3): `{offset, size}` in image bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CodeRange {
    /// First byte, relative to the image start.
    pub offset: u64,
    /// Length in bytes.
    pub size: u64,
}

impl CodeRange {
    /// A range from `offset` to `end`.
    pub fn span(offset: usize, end: usize) -> Self {
        Self {
            offset: offset as u64,
            size: end.saturating_sub(offset) as u64,
        }
    }

    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.offset + self.size
    }
}

/// `ib_code_one_eng_t` without the `code` pointer (the image bytes live beside it in
/// [`super::EngineImage`]); filled as spec 000 §6.4 lines :1358-1363 do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Eib {
    /// The PREAMBLE region `{0, preamble end}`.
    pub preamble: CodeRange,
    /// `model_switch = {model_switch_block.offset, program_start_offset - offset}`.
    pub model_switch: CodeRange,
    /// `core = {preamble end, postamble start - preamble end}`: the MAIN body.
    pub core: CodeRange,
}
