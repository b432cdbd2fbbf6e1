//! What a run warns about, as data: a [`SimWarning`] names its subgraph and carries the figures;
//! its text (`Display`, and the string `neff sim --json` prints under `"warnings"`) is the one
//! line the CLI has always printed.

use std::fmt;

use serde::{Serialize, Serializer};

/// One warning of a simulated subgraph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimWarning {
    /// DMA transfers that finished after every engine was done: nothing waited for them.
    PendingTransfers {
        /// The subgraph.
        subgraph: String,
        /// How many.
        count: usize,
    },
    /// Semaphores the program touched that did not return to their value at the start.
    SemaphoresNotRestored {
        /// The subgraph.
        subgraph: String,
        /// Each one: (index, value at the end, value at the start).
        semaphores: Vec<(usize, i64, i64)>,
    },
}

impl fmt::Display for SimWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PendingTransfers { subgraph, count } => write!(
                f,
                "{subgraph}: {count} DMA transfer(s) still pending when every engine had finished"
            ),
            Self::SemaphoresNotRestored {
                subgraph,
                semaphores,
            } => {
                write!(
                    f,
                    "{subgraph}: semaphores not back to their initial values at the end: "
                )?;
                for (k, (i, now, was)) in semaphores.iter().enumerate() {
                    let sep = if k == 0 { "" } else { ", " };
                    write!(f, "{sep}$S[{i}]={now} (was {was})")?;
                }
                Ok(())
            }
        }
    }
}

impl Serialize for SimWarning {
    /// As its text: the JSON report's `"warnings"` stay a list of strings.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_names_the_subgraph_and_every_semaphore() {
        let w = SimWarning::SemaphoresNotRestored {
            subgraph: "sg00".into(),
            semaphores: vec![(3, 1, 0), (22, -1, 0)],
        };
        assert_eq!(
            w.to_string(),
            "sg00: semaphores not back to their initial values at the end: $S[3]=1 (was 0), \
             $S[22]=-1 (was 0)"
        );
        assert_eq!(serde_json::to_value(&w).unwrap(), w.to_string());
    }
}
