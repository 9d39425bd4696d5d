//! A section of the report and the `Lab` trait that makes one. A lab takes its rows and returns
//! its section: a title and blocks (paragraphs, tables, charts, failures) in reading order, and
//! its CSV files. The outputs render sections without knowing the lab (criterion's
//! `Report`/`Reports` fan-out is the model: one interface, many implementations, one loop).

use wirebench_core::results::ScenarioSummary;
use wirebench_core::suite::PublishedTable;

use crate::charts::{Figure, Spec};
use crate::table::{Badge, Csv, Table, Text};

/// A lab of the project: lab `X` is `suites/X.toml`, `subjects/X/`, `docs/labs/X.md`, this
/// module `labs/X.rs` and every row whose `lab` is `X`.
pub trait Lab: Sync {
    /// The lab's id.
    fn id(&self) -> &'static str;
    /// The lab's section from its rows (never empty), in the order they ran; `None` when none of
    /// them is one the section shows (a lab's load rows are in the scenarios table already).
    fn section(&self, rows: &[&ScenarioSummary], run: &Run<'_>) -> Option<Section>;
}

/// The rows a harness wrote among a lab's `rows` (the load engine's rows of the lab are in the
/// scenarios table already), or `None` when there are none.
pub fn harness_rows<'a>(rows: &[&'a ScenarioSummary]) -> Option<Vec<&'a ScenarioSummary>> {
    let harness: Vec<&ScenarioSummary> = rows.iter().copied().filter(|s| s.transport.is_none()).collect();
    (!harness.is_empty()).then_some(harness)
}

/// What a lab may need to know about the run beside its rows.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// Repeats per scenario, for "2 of 3 repeats completed".
    pub repeats: u32,
    /// The study's tables (`[[published]]`) of the suite the report reads: the run's, or
    /// `--claims`'s. A lab finds the study's numbers here, tied to its rows by scenario id.
    pub published: &'a [PublishedTable],
}

/// A part of the report under one heading.
#[derive(Debug, Clone, Default)]
pub struct Section {
    /// The element id in HTML (`formats`, `wasm`).
    pub id: String,
    pub title: String,
    pub blocks: Vec<Block>,
    pub csv: Vec<Csv>,
}

/// One thing a section shows, in reading order.
#[derive(Debug, Clone)]
pub enum Block {
    /// A paragraph.
    Para(Para, Text),
    /// A caution about the numbers (`Note:`), with an element id.
    Caution(&'static str, Text),
    Table(Table),
    /// A chart to draw: the report draws every spec into a `Figure` before rendering.
    Chart(Spec),
    /// A chart drawn.
    Figure(Figure),
    /// The headline's cards: the fastest of each group.
    Cards(Vec<Card>),
    /// Scenarios with a failed repeat, under an element id.
    Failures(&'static str, Vec<Failure>),
    /// Scenarios carrying a badge, and what it means.
    Flagged(Badge, Vec<String>),
    /// What each badge means.
    Legend(Vec<Badge>),
    /// A collapsible table (a thread group's steps) under a one-line summary.
    Details(Text, Table),
}

/// How a paragraph reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Para {
    Plain,
    /// Context before the numbers (muted).
    Lede,
    /// The fine print under a table (muted, small).
    Small,
}

/// The fastest of one group of comparable scenarios.
#[derive(Debug, Clone)]
pub struct Card {
    /// `Payload 1KB`.
    pub group: String,
    pub scenario: String,
    /// How it ran: `h2c · http2 · rest (rust)`.
    pub stack: String,
    pub value: String,
    pub unit: &'static str,
    /// `95 % CI 61,000–64,000`, if there is one.
    pub ci: Option<String>,
    /// How it compares with the runner-up.
    pub versus: Text,
}

/// A scenario with a failed repeat.
#[derive(Debug, Clone)]
pub struct Failure {
    pub scenario: String,
    pub error: String,
    pub ok_repeats: usize,
    pub repeats: u32,
}

impl Failure {
    /// The failures among `rows`.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a ScenarioSummary>, repeats: u32) -> Vec<Failure> {
        rows.into_iter()
            .filter_map(|s| {
                Some(Failure {
                    scenario: s.scenario.clone(),
                    error: s.error.clone()?,
                    ok_repeats: s.ok_repeats,
                    repeats,
                })
            })
            .collect()
    }
}

impl Section {
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Section {
        Section { id: id.into(), title: title.into(), ..Section::default() }
    }

    pub fn push(&mut self, block: Block) {
        self.blocks.push(block);
    }

    /// A paragraph of `text` in `style`.
    pub fn para(&mut self, style: Para, text: impl Into<Text>) {
        self.blocks.push(Block::Para(style, text.into()));
    }

    /// The failures among `rows`, as a block, when there are any.
    pub fn failures<'a>(&mut self, id: &'static str, rows: impl IntoIterator<Item = &'a ScenarioSummary>, run: &Run) {
        let failed = Failure::of(rows, run.repeats);
        if !failed.is_empty() {
            self.blocks.push(Block::Failures(id, failed));
        }
    }
}
