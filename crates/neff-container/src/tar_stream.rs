//! The tar index built from inflated bytes as they stream by (the streaming scan, decision
//! D27): headers may straddle two windows, so the state between windows is explicit. Every
//! header goes through the same [`TarWalker`] as the buffered index, so limits and path rules
//! are those of [`crate::Neff::parse`], applied as soon as a header is complete.

use std::collections::HashMap;

use crate::error::ContainerError;
use crate::kept_bytes::{KeptBytes, reserve};
use crate::limits::{LimitKind, Limits};
use crate::tar_read::{BLOCK, EntryData, EntryHeader, TarIndex, TarWalker, check_tail, tar_err};

/// Where the data of the current entry goes.
enum Sink {
    /// Not wanted.
    Skip,
    /// A regular member the caller keeps (its index, its bytes so far).
    Keep(usize, KeptBytes),
    /// A GNU long name or pax header (typeflag, bytes so far), at most 64 KiB.
    Meta(u8, Vec<u8>),
}

/// What the next stream bytes are.
enum State {
    /// A header block, this much of it received.
    Header(Vec<u8>),
    /// Data of the entry `header`: `left` bytes to come, then `pad` bytes of block padding.
    Data {
        header: EntryHeader,
        left: u64,
        pad: u64,
        sink: Sink,
    },
    /// Block padding after an entry's data.
    Pad(u64),
    /// After the end-of-archive block at this offset.
    End(u64),
}

/// The streaming tar reader: feed it inflated bytes in order, then [`finish`](Self::finish).
pub(crate) struct TarStream<'l, K> {
    walker: TarWalker<'l>,
    keep: K,
    /// Stream offset of the next byte fed.
    pos: u64,
    state: State,
    kept: HashMap<usize, KeptBytes>,
    /// Large kept members may live in anonymous mappings (`ReadOptions::map_memory`, D780).
    map_memory: bool,
}

impl<'l, K: FnMut(&str, u64) -> bool> TarStream<'l, K> {
    /// A reader under `limits`, the inflated stream capped at `cap`; `keep(path, size)` chooses
    /// the regular members whose bytes are kept; `map_memory` lets a large one live in a mapping.
    pub(crate) fn new(
        limits: &'l Limits,
        cap: (u64, LimitKind),
        map_memory: bool,
        keep: K,
    ) -> Self {
        Self {
            walker: TarWalker::new(limits, cap),
            keep,
            pos: 0,
            state: State::Header(Vec::with_capacity(BLOCK)),
            kept: HashMap::new(),
            map_memory,
        }
    }

    /// Consumes the next inflated bytes.
    pub(crate) fn feed(&mut self, mut buf: &[u8]) -> Result<(), ContainerError> {
        while !buf.is_empty() {
            let took = match &mut self.state {
                State::Header(block) => {
                    let take = (BLOCK - block.len()).min(buf.len());
                    block.extend_from_slice(&buf[..take]);
                    take
                }
                State::Data { left, sink, .. } => {
                    let take = usize::try_from(*left).map_or(buf.len(), |l| l.min(buf.len()));
                    match sink {
                        Sink::Skip => {}
                        Sink::Keep(_, bytes) => bytes.extend_from_slice(&buf[..take]),
                        Sink::Meta(_, bytes) => bytes.extend_from_slice(&buf[..take]),
                    }
                    *left -= take as u64;
                    take
                }
                State::Pad(left) => {
                    let take = usize::try_from(*left).map_or(buf.len(), |l| l.min(buf.len()));
                    *left -= take as u64;
                    take
                }
                State::End(at) => {
                    let at = *at;
                    self.pos += buf.len() as u64;
                    return check_tail(self.pos - at, at);
                }
            };
            self.pos += took as u64;
            buf = &buf[took..];
            self.advance()?;
        }
        Ok(())
    }

    /// Moves to the next state once the current one is complete.
    fn advance(&mut self) -> Result<(), ContainerError> {
        match &mut self.state {
            State::Header(block) if block.len() == BLOCK => {
                let block = std::mem::take(block);
                self.on_header(&block, self.pos - BLOCK as u64)
            }
            State::Data { left: 0, .. } => {
                let done = std::mem::replace(&mut self.state, State::Pad(0));
                let State::Data {
                    header, pad, sink, ..
                } = done
                else {
                    return Ok(());
                };
                match sink {
                    Sink::Skip => {}
                    Sink::Keep(i, bytes) => {
                        self.kept.insert(i, bytes);
                    }
                    Sink::Meta(typeflag, bytes) => {
                        self.walker.meta(typeflag, &bytes, header.pos)?
                    }
                }
                self.state = State::Pad(pad);
                self.advance()
            }
            State::Pad(0) => {
                self.state = State::Header(Vec::with_capacity(BLOCK));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A complete header block at `pos`: the walker's checks and limits, then where its data
    /// goes.
    fn on_header(&mut self, block: &[u8], pos: u64) -> Result<(), ContainerError> {
        let Some(header) = self.walker.header(block, pos)? else {
            self.state = State::End(pos);
            return check_tail(BLOCK as u64, pos);
        };
        let size = header.size;
        let sink = match self.walker.enter(&header)? {
            EntryData::Member(i) if (self.keep)(&self.walker.index.entries[i].path, size) => {
                Sink::Keep(i, KeptBytes::with_size(size, self.map_memory)?)
            }
            EntryData::Meta(typeflag) => Sink::Meta(typeflag, reserve(size)?),
            EntryData::Member(_) | EntryData::Skip => Sink::Skip,
        };
        // enter() checked pos + BLOCK + size against the inflated cap, so this cannot overflow.
        let pad = size.next_multiple_of(BLOCK as u64) - size;
        self.state = State::Data {
            header,
            left: size,
            pad,
            sink,
        };
        self.advance()
    }

    /// The end of the inflated stream: a header or member cut short is an error (a member's
    /// block padding may be cut, as in the buffered index). Returns the index and kept bytes.
    pub(crate) fn finish(
        mut self,
    ) -> Result<(TarIndex, HashMap<usize, KeptBytes>), ContainerError> {
        self.advance()?;
        match &self.state {
            State::Header(block) if !block.is_empty() => Err(tar_err(
                self.pos - block.len() as u64,
                format!("truncated header block ({} bytes left)", block.len()),
            )),
            State::Data { header, left, .. } => Err(ContainerError::MemberTruncated {
                path: String::from_utf8_lossy(&header.raw_path).into_owned(),
                offset: header.pos,
                declared: header.size,
                available: header.size - left,
            }),
            _ => Ok((self.walker.index, self.kept)),
        }
    }
}
