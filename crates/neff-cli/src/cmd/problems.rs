//! Several problems found in one run, reported as one error (issue 15 item 6): the kelf's
//! (`neff_kelf::kelf_problems`) like `neff validate`'s diagnostics, one per line, at most
//! [`SHOWN`] and then "and N more".

use std::fmt;

/// Problems listed before "and N more".
pub(crate) const SHOWN: usize = 20;

/// Every problem found, each with its causes, in the order found.
#[derive(Debug)]
pub(crate) struct Problems(Vec<String>);

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} problems:", self.0.len())?;
        for p in self.0.iter().take(SHOWN) {
            write!(f, "\n  {p}")?;
        }
        if self.0.len() > SHOWN {
            write!(f, "\n  and {} more", self.0.len() - SHOWN)?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

/// `first` alone when it is the only problem (its cause chain kept), else every problem of
/// `all` listed, each with its causes (`member#/pointer: reason`).
pub(crate) fn first_or_all<E>(first: E, all: Vec<E>) -> anyhow::Error
where
    E: std::error::Error + Send + Sync + 'static,
{
    if all.len() <= 1 {
        return first.into();
    }
    let list = all
        .into_iter()
        .map(|e| format!("{:#}", anyhow::Error::from(e)))
        .collect();
    Problems(list).into()
}
