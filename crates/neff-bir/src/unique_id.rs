//! The per-instruction unique id of the NamedObject sub-object (spec 002 §1, +0x48), with the
//! constructor's "initialised once" check (spec 002 §3).

use crate::error::ModelError;

/// The sentinel the constructor stores before allocating (spec 002 §3: `*(int*)(this+0x48) = -1`).
const SENTINEL: i64 = -1;

/// A unique id slot: `-1` until initialised, then fixed. A second initialisation is the spec's
/// "Id has already been initialzed" error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UniqueId(i64);

impl UniqueId {
    /// An uninitialised slot.
    pub fn uninit() -> UniqueId {
        UniqueId(SENTINEL)
    }

    /// The id, once initialised.
    pub fn get(self) -> Option<u32> {
        u32::try_from(self.0).ok()
    }

    /// Initialises the slot; fails if it already holds an id (spec 002 §3).
    pub fn init(&mut self, id: u32, name: &str) -> Result<(), ModelError> {
        if let Some(old) = self.get() {
            return Err(ModelError::IdAlreadyInitialised {
                name: name.to_owned(),
                id: old,
            });
        }
        self.0 = i64::from(id);
        Ok(())
    }
}

impl Default for UniqueId {
    fn default() -> UniqueId {
        UniqueId::uninit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_initialisation_is_the_spec_error() {
        let mut id = UniqueId::uninit();
        assert_eq!(id.get(), None);
        id.init(7, "a").unwrap();
        assert_eq!(id.get(), Some(7));
        let err = id.init(8, "a").unwrap_err();
        assert!(err.to_string().contains("Id has already been initialzed"));
        assert_eq!(id.get(), Some(7));
    }
}
