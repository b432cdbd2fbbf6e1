//! The 64-byte TPB instruction word and the 8-byte SP word (spec 003): decode, encode, text, validation.
