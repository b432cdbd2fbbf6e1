//! PSEUDO_FUNCTION_BEGIN / RETURN / CALL 0xD1-0xD3: the function name, 32 bytes at +12 (the
//! issue's layout; spec 000 §6.3 resolves 0xD3 to the called function's block, decision D10).

use crate::layout::view;

view! {
    /// A PSEUDO_FUNCTION_{BEGIN,RETURN,CALL} slot.
    FunctionName / FunctionNameMut = FUNCTION_NAME "PSEUDO_FUNCTION" {
        /// +0x0C the function name (NUL-padded, 32 bytes).
        name: name(32) @ 0x0C, Positional;
    }
}
