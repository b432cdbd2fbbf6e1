//! The compiler's BIR instruction IR (spec 002): model, JSON, dependencies, verifier.
