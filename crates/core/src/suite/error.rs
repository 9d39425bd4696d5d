//! A suite that can't be used, as one line: the file, the key and what is wrong. Every noun's
//! `check` says what is wrong with it as an `Invalid` (its own key and a message); the suite
//! puts the noun's place in front of the key (`matrix[0] (rest-h1-1kb).connections`) and the
//! file in front of that.

/// A suite file that can't be used; `Display` is the one line a user sees.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("{file}: cannot read: {err}")]
    // Not `source`: the message already says it, and a chain would say it twice.
    Read { file: String, err: std::io::Error },
    #[error("{file}: {key}: {message}")]
    Invalid { file: String, key: String, message: String },
}

/// What a noun's own check finds wrong: the key inside the noun (`connections`,
/// `until_decided`, `skip[1]`) and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub key: String,
    pub message: String,
}

impl Invalid {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid { key: key.into(), message: message.into() }
    }

    /// The same mistake with `prefix.` in front of its key (`profiles.brief` + `skip[0]`).
    /// An empty key is the noun itself: `prefix` alone.
    pub fn under(self, prefix: &str) -> Invalid {
        let key = if self.key.is_empty() { prefix.to_string() } else { format!("{prefix}.{}", self.key) };
        Invalid { key, message: self.message }
    }
}

/// Where a subject id is looked up, for the error that finds none.
pub const WHERE_SUBJECTS: &str = "(in the suite or a subjects/**/subject.toml)";

/// What `lab` must be when set.
pub const NO_LAB: &str = "must name a lab (`protocols`, `formats`, ...), not be empty";

/// A parser's message on one line (TOML's span several, with a caret drawing).
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `line N` of the text where a TOML parse error starts.
pub fn location(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(span) => format!("line {}", text[..span.start.min(text.len())].lines().count().max(1)),
        None => "(syntax)".into(),
    }
}
