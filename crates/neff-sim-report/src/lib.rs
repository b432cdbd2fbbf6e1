//! What a simulation says, apart from the engine that computes it (decision D561): the readable
//! report of `neff sim` ([`text`]), the timeline as a Chrome trace ([`trace`]), the run against
//! a hardware profile of the same NEFF ([`compare`]) and the time per source line and BIR
//! instruction ([`by_source`]).
//!
//! Every function here reads a finished [`neff_sim::SimResult`] (and a profile or the NEFF's
//! debug info); none drives the simulator.
//!
//! # Example
//!
//! ```
//! # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff")).unwrap();
//! let neff = neff_container::Neff::parse(&bytes)?;
//! let kelf = neff_kelf::Kelf::from_neff(&neff)?;
//! let model = neff_load::model::load(&kelf, &Default::default())?;
//! let result = neff_sim::simulate(&model, &neff_sim::SimOptions::default())?;
//! let text = neff_sim_report::text::render(&result);
//! assert!(text.contains("span"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod by_source;
pub mod compare;
pub mod text;
pub mod trace;
