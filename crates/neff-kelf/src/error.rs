//! Errors of the kelf parse and the kbin lowering: each names the member and, where it comes from
//! a manifest, the JSON pointer (RFC 6901) of the offending value, as `member#/pointer`.

use std::fmt;

/// Where in a NEFF a problem sits: a member path plus a JSON pointer inside it (empty for the
/// whole member). Displays as `sg00/def.json#/var/x/var_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The member path inside the NEFF package (e.g. `sg00/def.json`).
    pub member: String,
    /// The JSON pointer (RFC 6901) inside the member; empty means the whole member.
    pub pointer: String,
}

impl Location {
    /// A location `member#pointer`.
    pub fn new(member: impl Into<String>, pointer: impl Into<String>) -> Self {
        Self {
            member: member.into(),
            pointer: pointer.into(),
        }
    }

    /// The location of a child key (escaped per RFC 6901: `~` -> `~0`, `/` -> `~1`).
    pub fn key(&self, key: &str) -> Self {
        let escaped = key.replace('~', "~0").replace('/', "~1");
        Self::new(self.member.clone(), format!("{}/{escaped}", self.pointer))
    }

    /// The location of an array element.
    pub fn index(&self, i: usize) -> Self {
        Self::new(self.member.clone(), format!("{}/{i}", self.pointer))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.member)
        } else {
            write!(f, "{}#{}", self.member, self.pointer)
        }
    }
}

/// Everything that can go wrong turning a NEFF's members into kbins (spec 004 §1-§2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KelfError {
    /// A manifest is not valid JSON.
    #[error("{member}: malformed JSON at line {line}, column {column}: {message}")]
    Json {
        /// The member path.
        member: String,
        /// 1-based line of the syntax error.
        line: usize,
        /// 1-based column of the syntax error.
        column: usize,
        /// serde_json's description.
        message: String,
    },
    /// A value has the wrong JSON type or range.
    #[error("{at}: expected {expected}, found {found}")]
    Type {
        /// Where the value is.
        at: Location,
        /// What the schema wants (e.g. "an unsigned integer").
        expected: &'static str,
        /// A short rendering of what was there.
        found: String,
    },
    /// A required key is absent.
    #[error("{at}: missing required key `{key}`")]
    MissingKey {
        /// The object that lacks the key.
        at: Location,
        /// The key.
        key: &'static str,
    },
    /// A manifest names a member the NEFF does not hold.
    #[error("member `{member}` not found in the NEFF (named at {named_at})")]
    MissingMember {
        /// The absent member path.
        member: String,
        /// The manifest value that names it.
        named_at: Location,
    },
    /// No kelf descriptor: neither neff.json's `__kelf` node nor `kelf-a.json` (spec 004 §1).
    #[error("no kelf descriptor: the NEFF has neither kelf-a.json nor a neff.json `__kelf` node")]
    NoDescriptor,
    /// The descriptor's target is zero or unknown (spec 004 §2 step 5, "Invalid target").
    #[error("{at}: Invalid target = {target} (expected sunda, cayman or mariana; decision D30)")]
    InvalidTarget {
        /// Where the target is.
        at: Location,
        /// The target as written.
        target: String,
    },
    /// An engine name is not one of pe, act, pool, dve, sp (spec 004 §2 `eng_name2type`).
    #[error("{at}: unknown engine `{name}` (eng_name2type: expected pe, act, pool, dve or sp)")]
    UnknownEngine {
        /// Where the name is.
        at: Location,
        /// The name.
        name: String,
    },
    /// A `var` entry has a type outside reference §3.3 (decision D34).
    #[error("{at}: unknown var type `{ty}`")]
    UnknownVarType {
        /// Where the type is.
        at: Location,
        /// The type as written.
        ty: String,
    },
    /// Two vars share a var_id (spec 004 §2 mem_ref fill, indexed by var_id).
    #[error("{member}: duplicate var_id {var_id}: vars `{first}` and `{second}`")]
    DuplicateVarId {
        /// The def.json member.
        member: String,
        /// The shared id.
        var_id: u64,
        /// The first var holding it.
        first: String,
        /// The second var holding it.
        second: String,
    },
    /// A var_id of 0..nvars is held by no var (spec 004 §2: `mem[vid]` of an array of nvars,
    /// `nmem == var_id_to_mem_refs.size()`; decision D35).
    #[error(
        "{member}: var_id {missing} is missing: {count} vars need ids 0..{count}, but var `{name}` has var_id {var_id}"
    )]
    MissingVarId {
        /// The def.json member.
        member: String,
        /// The id nobody holds.
        missing: u64,
        /// The number of vars.
        count: usize,
        /// A var whose id is out of the dense range.
        name: String,
        /// Its id.
        var_id: u64,
    },
    /// A DMA descriptor dtype is not in the string -> dtype table (spec 004 §4).
    #[error("{at}: unknown dtype `{dtype}` (not in the 19-entry str_to_dtype_map, spec 004 §4)")]
    UnknownDtype {
        /// Where the dtype is.
        at: Location,
        /// The dtype as written.
        dtype: String,
    },
    /// A queue's semaphore set exceeds the runtime limit (spec 004 §2 DMA fill).
    #[error(
        "{at}: Runtime supports maximum of {max} semaphores per queue set, found: {found} (queue `{queue}`)"
    )]
    TooManySemaphores {
        /// Where the set is.
        at: Location,
        /// The queue.
        queue: String,
        /// The limit, 32.
        max: usize,
        /// The number found.
        found: usize,
    },
    /// More than one act-load queue (spec 004 §2 platform gates; decision D37).
    #[error("{member}: more than one act-load DMA queue: `{first}` and `{second}`")]
    MultipleActLoadQueues {
        /// The def.json member.
        member: String,
        /// The first act-load queue.
        first: String,
        /// The second act-load queue.
        second: String,
    },
    /// An engine DMA block names a queue def.json does not declare.
    #[error("{at}: DMA block names queue `{queue}`, which def.json does not declare")]
    UnknownQueue {
        /// Where the queue name is.
        at: Location,
        /// The queue name.
        queue: String,
    },
    /// Two DMA blocks of the same queue share an id (the (queue, block id) lookup of the trigger).
    #[error("{at}: duplicate DMA block id {id} on queue `{queue}` (first at {first})")]
    DuplicateDmaBlock {
        /// The second block.
        at: Location,
        /// The queue.
        queue: String,
        /// The id.
        id: u64,
        /// The first block with that id.
        first: Box<Location>,
    },
    /// A DMA descriptor names a var def.json does not declare.
    #[error("{at}: DMA descriptor names var `{var}`, which def.json does not declare")]
    UnknownVar {
        /// Where the var name is.
        at: Location,
        /// The var name.
        var: String,
    },
    /// The kelf names no graph of that name (spec 004 §1 `graphs.count(name) == 1`).
    #[error("no subgraph named `{0}` in the kelf")]
    UnknownGraph(String),
    /// A selection (`neff kbin --subgraph`, `Neff.kbin(subgraph)`) names no subgraph.
    #[error("no subgraph `{name}` (the kelf has {})", known.join(", "))]
    NoSuchSubgraph {
        /// The name asked for.
        name: String,
        /// The kelf's subgraphs, in descriptor order.
        known: Vec<String>,
    },
    /// Two graphs share a name (spec 004 §1 `graphs.count(name) == 1`).
    #[error("{at}: duplicate subgraph name `{name}`")]
    DuplicateGraph {
        /// Where the second one is.
        at: Location,
        /// The name.
        name: String,
    },
    /// A blob is larger than the runtime's u32 size (spec 004 §2 `parse_instr` caps at uint32).
    #[error("member `{member}` is {size} bytes, over the 4 GiB - 1 instr_set limit")]
    BlobTooLarge {
        /// The member.
        member: String,
        /// Its size.
        size: usize,
    },
    /// The remote-variable rebind found no target (spec 004 §3 note; decision D38).
    #[error(
        "Failed to resolve remote variables for subgraphs {first} to {last}: `{name}` in {subgraph} ({reason})"
    )]
    UnresolvedRemoteVariable {
        /// First subgraph index of the range.
        first: usize,
        /// Last subgraph index of the range.
        last: usize,
        /// The subgraph holding the remote var.
        subgraph: String,
        /// The remote var.
        name: String,
        /// Why it did not resolve.
        reason: String,
    },
}

/// The crate's result type.
pub type Result<T, E = KelfError> = std::result::Result<T, E>;
