//! The engine stream members of a NEFF, `sgNN/<engine>.bin`, picked by subgraph and engine the
//! way `neff disasm`, `neff validate`, `neff dump` and the Python package pick them: both member
//! spellings (`pe.bin` of the spec sample, `PE.bin` / `Activation.bin` of real NEFFs; reference
//! §2.1, decision D3), in subgraph then engine order (PE, ACT, POOL, DVE, SP).

use neff_isa::EngineType;

/// One engine stream member of a NEFF package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamMember<'a> {
    /// The subgraph folder (`sg00`).
    pub subgraph: &'a str,
    /// The engine the member's stem names.
    pub engine: EngineType,
    /// The member path (`sg00/pool.bin`).
    pub path: &'a str,
}

impl<'a> StreamMember<'a> {
    /// `sgNN/<engine>.bin` -> the stream member, either spelling of the stem (reference §2.1;
    /// decision D3); `None` for any other path.
    pub fn parse(path: &'a str) -> Option<Self> {
        let (subgraph, file) = path.split_once('/')?;
        let stem = file.strip_suffix(".bin")?;
        if !subgraph.starts_with("sg") || file.contains('/') {
            return None;
        }
        Some(Self {
            subgraph,
            engine: EngineType::from_name(stem)?,
            path,
        })
    }
}

/// The refusal of [`select_streams`]: no member matched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no engine stream (sgNN/<engine>.bin) matches the selection")]
pub struct NoStreamSelected;

/// The engine stream members among `paths` that `subgraph` and `engine` select (each when
/// given), in subgraph then engine order; an empty selection is an error.
pub fn select_streams<'a>(
    paths: impl IntoIterator<Item = &'a str>,
    subgraph: Option<&str>,
    engine: Option<EngineType>,
) -> Result<Vec<StreamMember<'a>>, NoStreamSelected> {
    let mut found: Vec<StreamMember<'a>> = paths
        .into_iter()
        .filter_map(StreamMember::parse)
        .filter(|s| subgraph.is_none_or(|sg| sg == s.subgraph))
        .filter(|s| engine.is_none_or(|e| e == s.engine))
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(NoStreamSelected);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(path: &str) -> Option<(&str, EngineType)> {
        StreamMember::parse(path).map(|s| (s.subgraph, s.engine))
    }

    #[test]
    fn both_member_spellings_name_the_engine() {
        assert_eq!(parsed("sg00/pool.bin"), Some(("sg00", EngineType::Pool)));
        assert_eq!(
            parsed("sg01/Activation.bin"),
            Some(("sg01", EngineType::Act))
        );
        assert_eq!(parsed("sg00/PE.bin"), Some(("sg00", EngineType::Pe)));
        assert_eq!(parsed("sg00/def.json"), None);
        assert_eq!(parsed("sg00/x/pe.bin"), None);
        assert_eq!(parsed("kelf-0.json"), None);
    }

    #[test]
    fn selection_is_in_subgraph_then_engine_order() {
        let paths = [
            "sg01/pe.bin",
            "sg00/sp.bin",
            "sg00/pool.bin",
            "sg00/PE.bin",
            "x.bin",
        ];
        let all = select_streams(paths, None, None).unwrap();
        let order: Vec<&str> = all.iter().map(|s| s.path).collect();
        assert_eq!(
            order,
            ["sg00/PE.bin", "sg00/pool.bin", "sg00/sp.bin", "sg01/pe.bin"]
        );
        let pe = select_streams(paths, Some("sg01"), Some(EngineType::Pe)).unwrap();
        assert_eq!(pe[0].path, "sg01/pe.bin");
        assert_eq!(
            select_streams(paths, Some("sg02"), None),
            Err(NoStreamSelected)
        );
    }
}
