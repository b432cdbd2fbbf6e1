//! The `dma` section: per subgraph, every queue (def.json, spec 004 §2 kbin dma) with its owner,
//! semaphores, rings, descriptors and the bytes its descriptors write (decision D271).

use maud::{Markup, html};
use neff_kelf::{Kbin, KbinDmaQueue};
use neff_load::model::LoadedSubgraph;

use crate::ReportInput;
use crate::engines::pairs;
use crate::format::{Bytes, Count};

/// One queue's figures.
struct QueueRow<'k> {
    queue: &'k KbinDmaQueue,
    /// Descriptors of the engine JSON blocks on the queue.
    static_descs: usize,
    /// Bytes those descriptors write, each once.
    static_bytes: u64,
    /// Descriptors that DIRECT2D slots generated at load.
    generated: u64,
    /// Bytes those write, each once.
    generated_bytes: u64,
}

/// The rows of one subgraph; a generated descriptor's queue is an index into the kbin's queues
/// (`LowerResources::from_kbin` keeps their order).
fn queue_rows<'k>(kbin: &'k Kbin<'_>, sg: Option<&LoadedSubgraph>) -> Vec<QueueRow<'k>> {
    let mut rows: Vec<QueueRow<'k>> = kbin
        .dma_queues
        .iter()
        .map(|q| {
            let descs = q.rings.iter().flat_map(|r| &r.descs);
            QueueRow {
                queue: q,
                static_descs: q.ndesc(),
                static_bytes: descs.filter_map(|d| d.desc.bytes()).sum(),
                generated: 0,
                generated_bytes: 0,
            }
        })
        .collect();
    let generated = sg
        .into_iter()
        .flat_map(|sg| &sg.engines)
        .flat_map(|e| &e.descriptors);
    for d in generated {
        if let Some(r) = rows.get_mut(d.queue as usize) {
            r.generated += 1;
            r.generated_bytes += d.dst.bytes();
        }
    }
    rows
}

/// The section.
pub(crate) fn section(input: &ReportInput<'_>) -> Markup {
    html! {
        section #dma {
            h2 { "DMA queues" }
            p.note {
                "Bytes are those the descriptors write at their destination, each descriptor counted "
                "once: static descriptors from the engine JSON blocks, and the ones DIRECT2D "
                "instructions generate at load. A block triggered several times moves its bytes each time."
            }
            @for (kbin, sg) in pairs(input) {
                @let rows = queue_rows(kbin, sg);
                h3 { "Subgraph " (kbin.name) }
                @if sg.is_none() {
                    p.note { "Not loaded: DIRECT2D descriptors are generated at load, so they are not counted." }
                }
                @if rows.is_empty() {
                    p { "No DMA queues." }
                } @else {
                    table.data.dma {
                        thead { tr {
                            th { "queue" } th { "owner" } th { "type" } th { "semaphores" }
                            th.num { "rings" } th.num { "blocks" } th.num { "static descriptors" }
                            th.num { "DIRECT2D descriptors" } th.num { "bytes moved" }
                        } }
                        tbody {
                            @for r in &rows {
                                tr {
                                    td { code { (r.queue.name) } }
                                    td { @if let Some(o) = r.queue.owner { (o.key()) } @else { "—" } }
                                    td { (r.queue.ty) }
                                    td { (r.queue.semaphores.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")) }
                                    td.num { (r.queue.rings.len()) }
                                    td.num { (Count(r.queue.blocks.len() as u64)) }
                                    td.num { (Count(r.static_descs as u64)) }
                                    td.num { (Count(r.generated)) }
                                    td.num title={ (Count(r.static_bytes + r.generated_bytes)) " bytes" } {
                                        (Bytes(r.static_bytes + r.generated_bytes))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
