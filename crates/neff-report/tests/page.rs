//! The page's structure, read back with an HTML parser: sections and their ids, the header
//! fields, member rows, every engine's region map, mix and rows, the DMA queues — on the spec
//! sample (spec 000 §9) and on generated NEFFs large enough to be summarised.

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::model::{LoadOptions, load};
use neff_report::{ReportInput, render};
use scraper::{ElementRef, Html, Selector};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");

/// The page of a NEFF's bytes, parsed.
fn page_of(bytes: &[u8], name: &str) -> Html {
    let neff = Neff::parse(bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let kbins = kelf.kbins().unwrap();
    let model = load(&kelf, &LoadOptions::default()).unwrap();
    let html = render(&ReportInput::new(name, &neff, &kelf, &kbins, Ok(&model)));
    Html::parse_document(&html)
}

fn sample_page() -> Html {
    page_of(&std::fs::read(SAMPLE).unwrap(), "sample.neff")
}

fn sel(s: &str) -> Selector {
    Selector::parse(s).unwrap()
}

/// Every element matching `css`.
fn all<'a>(doc: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
    doc.select(&sel(css)).collect()
}

/// The one element matching `css`.
fn one<'a>(doc: &'a Html, css: &str) -> ElementRef<'a> {
    let found = all(doc, css);
    assert_eq!(found.len(), 1, "{css}: {} matches", found.len());
    found[0]
}

fn text(e: ElementRef<'_>) -> String {
    e.text().collect::<String>().trim().to_string()
}

/// The page as an outline: each section, its headings, and how many rows, cards and shapes it
/// holds — the structure a snapshot pins without the noise of every attribute.
fn outline(doc: &Html) -> String {
    let mut out = String::new();
    for s in all(doc, "main > section") {
        out += &format!("section#{}\n", s.value().id().unwrap_or("?"));
        for e in s.select(&sel("h2, h3, h4, tbody, svg, p.missing")) {
            let name = e.value().name();
            let line = match name {
                "tbody" => format!("rows {}", e.select(&sel("tr")).count()),
                "svg" => format!(
                    "svg.{} rects {} titles {}",
                    e.value().classes().next().unwrap_or(""),
                    e.select(&sel("rect")).count(),
                    e.select(&sel("title")).count()
                ),
                _ => format!("{name} {}", text(e)),
            };
            out += &format!("  {line}\n");
        }
    }
    out
}

#[test]
fn sample_page_outline() {
    insta::assert_snapshot!(outline(&sample_page()));
}

#[test]
fn sections_come_in_order_with_their_ids() {
    let doc = sample_page();
    let ids: Vec<&str> = all(&doc, "main > section")
        .iter()
        .map(|s| s.value().id().unwrap())
        .collect();
    assert_eq!(ids, ["header", "members", "engines", "dma", "timeline"]);
    let nav: Vec<String> = all(&doc, "nav a")
        .iter()
        .map(|a| a.value().attr("href").unwrap().to_string())
        .collect();
    assert_eq!(
        nav,
        ["#header", "#members", "#engines", "#dma", "#timeline"]
    );
}

#[test]
fn nothing_is_fetched() {
    // Offline: no external script, style sheet, image or font; the style and script are inline.
    let doc = sample_page();
    assert!(all(&doc, "script[src], link, img, iframe, object").is_empty());
    assert_eq!(all(&doc, "head > style").len(), 1);
    assert_eq!(all(&doc, "body > script").len(), 1);
}

#[test]
fn header_rows_carry_the_sample_header() {
    let doc = sample_page();
    let row = |k: &str| {
        all(&doc, "#header tr")
            .into_iter()
            .find(|r| text(r.select(&sel("th")).next().unwrap()) == k)
            .map(|r| text(r.select(&sel("td")).next().unwrap()))
            .unwrap_or_else(|| panic!("no header row {k}"))
    };
    assert_eq!(row("pkg_version"), "2");
    assert_eq!(row("header_size"), "0x400");
    assert_eq!(row("integrity"), "verified");
    assert_eq!(row("kelf"), "kelf-a.json");
    assert_eq!(row("target"), "sunda (arch 2)");
    assert_eq!(row("subgraphs"), "sg00");
}

#[test]
fn members_table_lists_every_member_with_size_and_offset() {
    let doc = sample_page();
    let rows = all(&doc, "#members tbody tr");
    assert_eq!(rows.len(), 12);
    let pool_bin = rows
        .iter()
        .find(|r| text(**r).starts_with("sg00/pool.bin"))
        .unwrap();
    let cells: Vec<String> = pool_bin.select(&sel("td")).map(text).collect();
    // 3 slots of 64 bytes (spec 003 §7.2); 512-byte tar header before each member's data.
    assert_eq!(cells[1], "192");
    assert!(cells[2].starts_with("0x"), "{cells:?}");
}

#[test]
fn pe_region_map_is_to_scale_with_device_addresses() {
    let doc = sample_page();
    let card = one(&doc, "#engine-sg00-pe");
    // spec 000 §9: PE's image is 960 bytes at 0x4000010000; MAIN is 0x40 bytes at 0x200.
    let main = card
        .select(&sel("svg.regionmap rect.rg-main"))
        .next()
        .unwrap();
    let title = text(main.select(&sel("title")).next().unwrap());
    assert_eq!(
        title,
        "MAIN: image 0x200..0x240 (64 B, 1 slots), device 0x4000010200..0x400001023f"
    );
    let width: f64 = main.value().attr("width").unwrap().parse().unwrap();
    let x: f64 = main.value().attr("x").unwrap().parse().unwrap();
    // 720 user units for 960 bytes: 64 bytes are 48 units, 0x200 is 384.
    assert_eq!((x, width), (384.0, 48.0));
    // Empty regions (FUNCTION) are not drawn but keep their table row.
    assert_eq!(card.select(&sel("rect.rg-function")).count(), 0);
    assert_eq!(card.select(&sel("table.regions tbody tr")).count(), 5);
}

#[test]
fn pool_mix_counts_its_pseudo_and_sync_slots() {
    let doc = sample_page();
    let card = one(&doc, "#engine-sg00-pool");
    let titles: Vec<String> = card.select(&sel("svg.mix rect title")).map(text).collect();
    // spec 003 §7.2: two PSEUDO_DMA_TRIGGERs and one EVENT_SEMAPHORE.
    assert!(titles.contains(&"pseudo: 2 instructions (66.7%)".to_string()));
    assert!(titles.contains(&"sync: 1 instructions (33.3%)".to_string()));
    assert!(titles.contains(&"compute: 0 instructions (0.0%)".to_string()));
}

#[test]
fn patch_rows_summarise_by_type_and_section() {
    let doc = sample_page();
    let card = one(&doc, "#engine-sg00-pool");
    let summary: Vec<String> = card
        .select(&sel("table.patch-summary tbody tr"))
        .map(text)
        .collect();
    assert_eq!(summary.len(), 2, "{summary:?}");
    assert!(summary[0].starts_with("INSERTPREAMBLE1"), "{summary:?}");
    assert!(summary[1].starts_with("INSERTPOSTAMBLE1"), "{summary:?}");
}

#[test]
fn dma_queues_with_owner_semaphores_and_bytes() {
    let doc = sample_page();
    let rows: Vec<Vec<String>> = all(&doc, "#dma tbody tr")
        .iter()
        .map(|r| r.select(&sel("td")).map(text).collect())
        .collect();
    // spec 000 §9: two pool-owned queues with semaphores 10 and 11, each copying a 128-byte var.
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0],
        [
            "q_gradient_in",
            "pool",
            "in",
            "10",
            "1",
            "1",
            "1",
            "0",
            "128 B"
        ]
    );
    assert_eq!(rows[1][0], "q_gradient_out");
    assert_eq!(rows[1][3], "11");
}

#[test]
fn timeline_says_no_simulation_is_available() {
    let doc = sample_page();
    let missing = one(&doc, "#timeline p.missing");
    assert!(text(missing).starts_with("No simulation is available"));
    assert!(all(&doc, "#timeline svg").is_empty());
}

#[test]
fn every_engine_of_a_generated_neff_has_a_card_whose_mix_counts_every_slot() {
    let options = neff_synth::SynthOptions {
        subgraphs: 2,
        slots_per_engine: 4000,
        functions: 2,
        seed: 7,
        target: neff_synth::SynthTarget::Cayman,
    };
    let doc = page_of(&neff_synth::generate(&options).unwrap(), "synth.neff");
    let cards = all(&doc, "#engines .engine");
    assert_eq!(cards.len(), 10);
    for card in cards {
        let counted: u64 = card
            .select(&sel("svg.mix text.mix-count"))
            .map(|t| text(t).replace(',', "").parse::<u64>().unwrap())
            .sum();
        assert_eq!(counted, options.slots_per_engine, "{:?}", card.value().id());
    }
}

/// The sample's page with its simulated run (neff-sim, timeline recorded).
fn simulated_sample_page() -> Html {
    let bytes = std::fs::read(SAMPLE).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let kbins = kelf.kbins().unwrap();
    let model = load(&kelf, &LoadOptions::default()).unwrap();
    let options = neff_sim::SimOptions {
        record: true,
        ..neff_sim::SimOptions::default()
    };
    let run = neff_sim::simulate(&model, &options).unwrap();
    let mut input = ReportInput::new("sample.neff", &neff, &kelf, &kbins, Ok(&model));
    input.timeline = neff_report::TimelineInput::Simulated(&run);
    Html::parse_document(&render(&input))
}

#[test]
fn simulated_timeline_has_a_lane_per_engine_and_queue() {
    let doc = simulated_sample_page();
    let names: Vec<String> = all(&doc, "#timeline svg.timeline text.lane-name")
        .into_iter()
        .map(text)
        .collect();
    // Every engine runs its PREAMBLE and POSTAMBLE; pool's two triggers start one transfer on
    // each queue (spec 000 §9).
    for want in [
        "pe",
        "act",
        "pool",
        "dve",
        "sp",
        "queue q_gradient_in",
        "queue q_gradient_out",
    ] {
        assert!(names.iter().any(|n| n == want), "no lane {want}: {names:?}");
    }
    let span = text(one(&doc, "#timeline p.span"));
    assert!(span.starts_with("Span "), "{span}");
    assert!(span.contains("Busiest engine: "), "{span}");
    assert_eq!(all(&doc, "#timeline table.sim-engines tbody tr").len(), 5);
}

#[test]
fn simulated_boxes_carry_slot_disassembly_and_kind() {
    let doc = simulated_sample_page();
    let titles: Vec<(String, String)> = all(&doc, "#timeline svg.timeline rect.box")
        .into_iter()
        .map(|r| {
            let class = r.value().attr("class").unwrap().to_string();
            let title = text(r.select(&sel("title")).next().unwrap());
            (class, title)
        })
        .collect();
    // pool.bin slot 0 is PSEUDO_DMA_TRIGGER q_gradient_in (spec 003 §7.2): lowered to a WRITE of
    // the queue's tail pointer, drawn in the pseudo colour of its NEFF slot.
    let slot0 = titles
        .iter()
        .find(|(_, t)| t.contains("slot 0 · MAIN") && t.starts_with("WRITE"))
        .unwrap_or_else(|| panic!("no WRITE of slot 0: {titles:?}"));
    assert!(slot0.0.contains("k-pseudo"), "{slot0:?}");
    // The runtime's own instructions have no slot and are grey.
    assert!(
        titles
            .iter()
            .any(|(c, t)| c.contains("k-runtime") && t.contains("runtime · PREAMBLE"))
    );
    // Transfers are DMA boxes, with their queue and bytes.
    assert!(
        titles
            .iter()
            .any(|(c, t)| c.contains("k-dma") && t.starts_with("q_gradient_in ring 0: 128 B"))
    );
}

#[test]
fn a_page_without_a_profile_has_no_profile_section() {
    let doc = simulated_sample_page();
    assert!(all(&doc, "#profile-compare").is_empty());
    assert!(all(&doc, "#answer").is_empty());
    assert!(all(&doc, "nav a[href='#profile-compare']").is_empty());
}
