//! Names of the pseudo band (reference §4.2, spec 003 §2) for errors and text, and which pseudo
//! opcodes survive lowering as image-assembly placeholders (decision D50).

/// The name of a pseudo opcode (0xC1..0xDF), or `None` for a real opcode.
pub fn pseudo_name(opcode: u8) -> Option<&'static str> {
    Some(match opcode {
        0xC1 => "PSEUDO_DMA_TRIGGER",
        0xC2 => "PSEUDO_DMA_REARM",
        0xC3 => "PSEUDO_DMA_BARRIER",
        0xC4 => "PSEUDO_DMA_MEMCPY_FULL_IND",
        0xC5 => "PSEUDO_SEMAPHORE_SET",
        0xC6 => "PSEUDO_LOAD_ACT_FUNC_SET",
        0xC7 => "PSEUDO_TRIGGER_ALL_REDUCE",
        0xC8 => "PSEUDO_TRIGGER_COLLECTIVE",
        0xC9 => "PSEUDO_READ_VAR_ADDR",
        0xCA => "PSEUDO_EMBEDDING_UPDATE",
        0xCB => "PSEUDO_SEND_RECV",
        0xCC => "PSEUDO_BRANCH_LABEL",
        0xCD => "PSEUDO_TENSOR_STORE",
        0xCE => "PSEUDO_TENSOR_LOAD",
        0xCF => "PSEUDO_DMA_SWAP_QUEUE_SET",
        0xD0 => "PSEUDO_SET_RNG_SEED",
        0xD1 => "PSEUDO_FUNCTION_BEGIN",
        0xD2 => "PSEUDO_FUNCTION_RETURN",
        0xD3 => "PSEUDO_FUNCTION_CALL",
        0xD4 => "PSEUDO_DMA_DIRECT2D",
        0xD5 => "PSEUDO_SYNC_BARRIER",
        0xD6 => "PSEUDO_RANGE_CHECK",
        0xD7 => "PSEUDO_JPEG_DECODE",
        0xD8 => "PSEUDO_CORE_BARRIER",
        0xD9 => "PSEUDO_TRIGGER_COLLECTIVE2",
        0xDA => "PSEUDO_EXTENSION",
        0xDB => "PSEUDO_CUR_PROCESSING_RANK_ID",
        0xDC => "PSEUDO_GID_LOAD",
        0xDD => "PSEUDO_BRANCH_PREFETCH_HINT",
        0xDE => "PSEUDO_TENSOR_COMPLETION",
        0xDF => "PSEUDO_INST",
        _ => return None,
    })
}

/// Whether `opcode` is one of the function markers lowering leaves 1->1 for image assembly:
/// 0xD1 begin, 0xD2 return, 0xD3 call, 0xDF exit (decision D50).
pub fn is_placeholder(opcode: u8) -> bool {
    matches!(opcode, 0xD1 | 0xD2 | 0xD3 | 0xDF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn band_is_c1_to_df() {
        assert_eq!(pseudo_name(0xC0), None);
        assert_eq!(pseudo_name(0xE0), None);
        assert_eq!(
            (0xC1..=0xDFu8)
                .filter(|&o| pseudo_name(o).is_some())
                .count(),
            31
        );
        assert_eq!(pseudo_name(0xC1), Some("PSEUDO_DMA_TRIGGER"));
        assert!(is_placeholder(0xD3) && !is_placeholder(0xCC));
    }
}
