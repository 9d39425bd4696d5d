//! The study's published serialization numbers, shown beside ours: Table 5.2 of "Ways to optimize
//! web applications" (Rust, 1000 users), and the two places where the study's prose disagrees with
//! its own table.

// Why a constant table: the study publishes neither its data set nor its harness, so its printed
// table is the only thing a run can be compared with. The values are copied as printed (ms with
// three decimals, bytes); a test checks that each total is the sum of its two phases, as printed.

/// The dataset (`params.dataset`) the table measured.
pub const DATASET: &str = "users";
/// The language (`lang`) the table measured.
pub const LANG: &str = "rust";
/// Where the numbers come from, for captions and notes.
pub const SOURCE: &str = "Table 5.2 of the study “Ways to optimize web applications” (Rust, 1,000 users)";

/// One row of the published table: one encode and one decode of the whole dataset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Published {
    /// Format id, as in our measurements (`msgpack`).
    pub format: &'static str,
    pub serialize_ms: f64,
    pub deserialize_ms: f64,
    pub total_ms: f64,
    pub size_bytes: u64,
}

/// Table 5.2, in the study's row order.
pub const TABLE_5_2: &[Published] = &[
    Published { format: "avro", serialize_ms: 7.396, deserialize_ms: 5.988, total_ms: 13.384, size_bytes: 521_727 },
    Published { format: "bson", serialize_ms: 2.073, deserialize_ms: 4.842, total_ms: 6.915, size_bytes: 1_426_779 },
    Published { format: "json", serialize_ms: 1.294, deserialize_ms: 3.565, total_ms: 4.859, size_bytes: 1_181_768 },
    Published { format: "msgpack", serialize_ms: 0.748, deserialize_ms: 2.247, total_ms: 2.995, size_bytes: 527_431 },
    Published { format: "protobuf", serialize_ms: 1.648, deserialize_ms: 4.724, total_ms: 6.372, size_bytes: 587_684 },
    Published { format: "xml", serialize_ms: 5.273, deserialize_ms: 18.078, total_ms: 23.351, size_bytes: 1_761_825 },
];

/// The published row of a format measured on `dataset` in `lang`, if the study has one.
pub fn lookup(dataset: &str, lang: &str, format: &str) -> Option<&'static Published> {
    if dataset != DATASET || lang != LANG {
        return None;
    }
    TABLE_5_2.iter().find(|p| p.format == format)
}

/// Which half of the round trip a number times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Serialize,
    Deserialize,
}

impl Published {
    /// The published time of one phase, in ms.
    pub fn ms(&self, phase: Phase) -> f64 {
        match phase {
            Phase::Serialize => self.serialize_ms,
            Phase::Deserialize => self.deserialize_ms,
        }
    }
}

/// A ratio the study's prose states that its own table does not give.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slip {
    /// The study's sentence, paraphrased as a claim.
    pub says: &'static str,
    pub phase: Phase,
    /// The format the sentence calls slower, and the faster one: the ratio is slower ÷ faster.
    pub slower: &'static str,
    pub faster: &'static str,
}

/// The two slips of the study's text about Table 5.2.
pub const SLIPS: &[Slip] = &[
    Slip {
        says: "MessagePack serializes 6.0× faster than XML",
        phase: Phase::Serialize,
        slower: "xml",
        faster: "msgpack",
    },
    Slip {
        says: "XML deserialization is more than 8× slower than Avro",
        phase: Phase::Deserialize,
        slower: "xml",
        faster: "avro",
    },
];

impl Slip {
    /// The two published times (slower, faster) in ms, from `TABLE_5_2`.
    pub fn table_ms(&self) -> (f64, f64) {
        let ms =
            |f: &str| TABLE_5_2.iter().find(|p| p.format == f).expect("slips name formats of the table").ms(self.phase);
        (ms(self.slower), ms(self.faster))
    }

    /// The ratio the table gives.
    pub fn table_ratio(&self) -> f64 {
        let (slow, fast) = self.table_ms();
        slow / fast
    }
}

/// What the published columns are and how to read them beside ours.
pub fn caveat() -> String {
    format!(
        "Published columns: {SOURCE}. The study's data set is not available; ours has the same shape \
         but another size, so compare ratios between formats rather than absolute values: a size ÷ \
         published that is the same for every format means the formats compare as in the study."
    )
}

/// One sentence on the study's slips, with the ratios its table gives.
pub fn slips_note() -> String {
    let parts: Vec<String> = SLIPS
        .iter()
        .map(|s| {
            let (slow, fast) = s.table_ms();
            format!(
                "“{}”, but the table gives {slow:.3} / {fast:.3} = {}",
                s.says,
                crate::format::ratio(s.table_ratio())
            )
        })
        .collect();
    format!("the study's text disagrees with its own table: it says {}.", parts.join("; and "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_are_the_sum_of_the_phases_as_printed() {
        for p in TABLE_5_2 {
            assert!((p.serialize_ms + p.deserialize_ms - p.total_ms).abs() < 1e-9, "{}", p.format);
        }
    }

    #[test]
    fn slips_are_what_the_table_gives() {
        let ratios: Vec<f64> = SLIPS.iter().map(|s| (s.table_ratio() * 100.0).round() / 100.0).collect();
        assert_eq!(ratios, [7.05, 3.02]);
    }

    #[test]
    fn the_note_states_both_slips_with_the_table_arithmetic() {
        let note = slips_note();
        assert!(
            note.contains("“MessagePack serializes 6.0× faster than XML”, but the table gives 5.273 / 0.748 = 7.05×")
        );
        assert!(note.contains("but the table gives 18.078 / 5.988 = 3.02×"), "{note}");
    }

    #[test]
    fn lookup_only_matches_the_studied_dataset_and_language() {
        assert_eq!(lookup("users", "rust", "msgpack").map(|p| p.size_bytes), Some(527_431));
        assert!(lookup("users", "go", "msgpack").is_none());
        assert!(lookup("numeric", "rust", "msgpack").is_none());
        assert!(lookup("users", "rust", "cbor").is_none());
    }
}
