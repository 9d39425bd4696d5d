//! Thread groups (JMeter's scripted users): a scenario that names a `group` runs virtual users
//! (its `connections`), each looping over the group's steps, instead of one request.
//!
//! ```toml
//! [groups.crud]
//! data = { rows = 100000, seed = 2016, columns = { key = 16, value = 32 } }  # or { file = "x.csv" }
//! think_ms = 0
//! steps = [
//!   { label = "new key", path = "/api/", capture = { api = "/apiKey" } },
//!   { label = "create", method = "POST", path = "/api/{api}/{key}", body = '{"value":"{value}"}', expect = { status = 201 } },
//! ]
//!
//! [groups.mixed]                      # each iteration runs one of these, by weight
//! mix = { crud = 2, validation = 1 }
//!
//! [[scenarios]]
//! id = "g3"
//! group = "crud"
//! connections = 100                   # users
//! ramp_up_s = 10                      # users start evenly over 10 s
//! duration_s = 60                     # or requests = N: N iterations in all
//! ```
//!
//! In a step's path, body and headers, `{name}` is a variable: a column of the data set (each
//! iteration takes the next row, shared by all users and recycled at the end, as JMeter's CSV
//! Data Set does) or a value captured from an earlier answer by a JSON pointer (kept per user).
//! Values are inserted as they are: data sets hold URL-safe text.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::expect::Expect;

/// A group as written in the suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    /// The steps every iteration runs, in order ...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepSpec>,
    /// ... or other groups, one of which each iteration runs, by weight.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mix: BTreeMap<String, u32>,
    /// Rows of variables, one per iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataSpec>,
    /// A pause before each step (JMeter's constant timer), in milliseconds.
    #[serde(default)]
    pub think_ms: f64,
}

/// One request of a group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// The name the report gives its row (JMeter's sampler label).
    pub label: String,
    #[serde(default = "get")]
    pub method: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The status a right answer has (an error status, for groups that test validation).
    #[serde(default)]
    pub expect: Expect,
    /// Variables taken from the JSON answer, by JSON pointer (`{ api = "/apiKey" }`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capture: BTreeMap<String, String>,
}

fn get() -> String {
    "GET".into()
}

/// Where a group's rows come from: a CSV file with a header row, or generated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum DataSpec {
    /// A CSV file relative to the project root; its first line names the columns.
    File { file: String },
    /// `rows` rows of random lower-case hex, `columns` maps a name to its length; the same seed
    /// gives the same rows on every machine.
    Generated { rows: usize, seed: u64, columns: BTreeMap<String, usize> },
}

/// A group ready to run: its branches (one, or the mix's), with variables resolved into parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub branches: Vec<Branch>,
    /// Every variable's name, by slot: the data columns, then the captures. A user keeps one
    /// value per slot.
    pub slots: Vec<String>,
    /// Which branch iteration `n` runs: `order[n % order.len()]` (weights spread evenly).
    pub order: Vec<usize>,
    pub think_ms: f64,
}

/// One group's steps inside a script.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    pub group: String,
    pub steps: Vec<Step>,
    pub data: Option<Arc<DataSet>>,
    /// The slot of each of the data set's columns.
    pub data_slots: Vec<usize>,
}

/// A step with its templates parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The label the report shows: the step's, prefixed by its group's name in a mix.
    pub label: String,
    pub method: String,
    pub path: Template,
    pub body: Option<Template>,
    pub headers: Vec<(String, Template)>,
    pub expect: Expect,
    pub capture: Vec<(usize, String)>,
}

/// Text with `{variable}` holes; a variable is an index into the user's slots.
#[derive(Debug, Clone, PartialEq)]
pub struct Template(pub Vec<Part>);

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Var(usize),
}

/// Rows of values by column.
#[derive(Debug, Clone, PartialEq)]
pub struct DataSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Template {
    /// The text with each variable's value from `slots`.
    pub fn render(&self, slots: &[String]) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Var(i) => out.push_str(&slots[*i]),
            }
        }
        out
    }
}

impl Script {
    /// Step labels in report order (branch by branch).
    pub fn labels(&self) -> Vec<String> {
        self.branches.iter().flat_map(|b| b.steps.iter().map(|s| s.label.clone())).collect()
    }
}

/// Builds the scripts of every group, checking names, variables and data. `root` is where data
/// files are read from. Errors: (key, message).
pub fn scripts(
    groups: &BTreeMap<String, GroupSpec>,
    root: &std::path::Path,
) -> Result<BTreeMap<String, Arc<Script>>, (String, String)> {
    let mut data: BTreeMap<String, Arc<DataSet>> = BTreeMap::new();
    // Groups that name the same data set share one copy (the REST study's G2 and G3 both take
    // its 100,000 rows), read or generated once.
    let mut loaded: Vec<(&DataSpec, Arc<DataSet>)> = vec![];
    for (name, g) in groups {
        if let Some(spec) = &g.data {
            let set = match loaded.iter().find(|(s, _)| *s == spec) {
                Some((_, set)) => set.clone(),
                None => {
                    let set = Arc::new(load_data(spec, root).map_err(|m| (format!("groups.{name}.data"), m))?);
                    loaded.push((spec, set.clone()));
                    set
                }
            };
            data.insert(name.clone(), set);
        }
    }
    groups.keys().map(|name| Ok((name.clone(), Arc::new(script(name, groups, &data)?)))).collect()
}

fn script(
    name: &str,
    groups: &BTreeMap<String, GroupSpec>,
    data: &BTreeMap<String, Arc<DataSet>>,
) -> Result<Script, (String, String)> {
    let g = &groups[name];
    let key = |k: &str| format!("groups.{name}.{k}");
    if g.think_ms < 0.0 || !g.think_ms.is_finite() {
        return Err((key("think_ms"), "must be 0 or more".into()));
    }
    let members: Vec<(&str, u32)> = match (g.steps.is_empty(), g.mix.is_empty()) {
        (false, true) => vec![(name, 1)],
        (true, false) => {
            let mut m = vec![];
            for (member, &w) in &g.mix {
                let Some(spec) = groups.get(member) else {
                    return Err((key("mix"), format!("no group named `{member}`")));
                };
                if !spec.mix.is_empty() || spec.steps.is_empty() {
                    return Err((key("mix"), format!("`{member}` must be a group of steps, not a mix")));
                }
                if w == 0 {
                    return Err((key("mix"), format!("`{member}`: a weight must be at least 1")));
                }
                m.push((member.as_str(), w));
            }
            m
        }
        _ => return Err((format!("groups.{name}"), "needs either `steps` or `mix`".into())),
    };
    // Every variable any member uses gets one slot: data columns first, then captures.
    let mut slots: Vec<String> = vec![];
    for (member, _) in &members {
        for c in data.get(*member).iter().flat_map(|d| d.columns.iter()) {
            if !slots.contains(c) {
                slots.push(c.clone());
            }
        }
    }
    let mixed = members.len() > 1 || !g.mix.is_empty();
    let mut branches = vec![];
    for (member, _) in &members {
        let spec = &groups[*member];
        let columns: BTreeSet<&String> = data.get(*member).iter().flat_map(|d| d.columns.iter()).collect();
        let mut known: BTreeSet<String> = columns.iter().map(|c| c.to_string()).collect();
        let mut steps = vec![];
        for (i, s) in spec.steps.iter().enumerate() {
            let at = |k: &str| format!("groups.{member}.steps[{i}].{k}");
            let parse =
                |k: &str, text: &str, slots: &[String]| parse_template(text, &known, slots).map_err(|m| (at(k), m));
            let path = parse("path", &s.path, &slots)?;
            if !s.path.starts_with('/') {
                return Err((at("path"), "must start with /".into()));
            }
            let body = s.body.as_deref().map(|b| parse("body", b, &slots)).transpose()?;
            let mut headers = vec![];
            for (h, v) in &s.headers {
                headers.push((h.clone(), parse("headers", v, &slots)?));
            }
            let mut capture = vec![];
            for (var, pointer) in &s.capture {
                if !pointer.starts_with('/') {
                    return Err((at("capture"), format!("`{var}`: a JSON pointer starts with / (`/apiKey`)")));
                }
                let slot = slots.iter().position(|n| n == var).unwrap_or_else(|| {
                    slots.push(var.clone());
                    slots.len() - 1
                });
                capture.push((slot, pointer.clone()));
                known.insert(var.clone());
            }
            let label = if mixed { format!("{member}: {}", s.label) } else { s.label.clone() };
            steps.push(Step {
                label,
                method: s.method.clone(),
                path,
                body,
                headers,
                expect: s.expect.clone(),
                capture,
            });
        }
        let labels: BTreeSet<&str> = spec.steps.iter().map(|s| s.label.as_str()).collect();
        if labels.len() != spec.steps.len() {
            return Err((format!("groups.{member}.steps"), "labels must differ".into()));
        }
        let data = data.get(*member).cloned();
        let data_slots = data
            .iter()
            .flat_map(|d| d.columns.iter())
            .map(|c| slots.iter().position(|n| n == c).expect("columns have slots"))
            .collect();
        branches.push(Branch { group: member.to_string(), steps, data, data_slots });
    }
    // Weighted order, spread evenly: weights 2:1 give [a, b, a] rather than [a, a, b].
    let total: u32 = members.iter().map(|(_, w)| w).sum();
    let mut order = vec![];
    let mut credit: Vec<f64> = vec![0.0; members.len()];
    for _ in 0..total {
        for (c, (_, w)) in credit.iter_mut().zip(&members) {
            *c += f64::from(*w) / f64::from(total);
        }
        let best = (0..credit.len()).fold(0, |b, i| if credit[i] > credit[b] { i } else { b });
        credit[best] -= 1.0;
        order.push(best);
    }
    Ok(Script { branches, slots, order, think_ms: g.think_ms })
}

/// Splits `text` at `{name}` holes; a name must be a data column or an earlier capture.
fn parse_template(text: &str, known: &BTreeSet<String>, slots: &[String]) -> Result<Template, String> {
    let mut parts = vec![];
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}');
        let name = close.map(|c| &after[..c]).unwrap_or("");
        // Only names of our shape are variables, so JSON bodies keep their braces.
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            parts.push(Part::Text(rest[..=open].to_string()));
            rest = after;
            continue;
        }
        if !known.contains(name) {
            let known: Vec<String> = known.iter().map(|k| format!("{{{k}}}")).collect();
            return Err(format!(
                "unknown variable `{{{name}}}`: not a data column or an earlier step's capture (known: {})",
                if known.is_empty() { "none".into() } else { known.join(", ") }
            ));
        }
        if open > 0 {
            parts.push(Part::Text(rest[..open].to_string()));
        }
        let slot = slots.iter().position(|n| n == name).expect("known names have slots");
        parts.push(Part::Var(slot));
        rest = &after[name.len() + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest.to_string()));
    }
    // Adjacent text parts (from braces that were not variables) are joined.
    let mut joined: Vec<Part> = vec![];
    for p in parts {
        match (joined.last_mut(), p) {
            (Some(Part::Text(a)), Part::Text(b)) => a.push_str(&b),
            (_, p) => joined.push(p),
        }
    }
    Ok(Template(joined))
}

/// Reads or generates a data set.
pub fn load_data(spec: &DataSpec, root: &std::path::Path) -> Result<DataSet, String> {
    match spec {
        DataSpec::File { file } => {
            let text = std::fs::read_to_string(root.join(file)).map_err(|e| format!("cannot read {file}: {e}"))?;
            let mut lines = text.lines().filter(|l| !l.is_empty());
            let columns: Vec<String> = lines
                .next()
                .ok_or_else(|| format!("{file} is empty"))?
                .split(',')
                .map(|c| c.trim().to_string())
                .collect();
            let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(str::to_string).collect()).collect();
            if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != columns.len()) {
                return Err(format!("{file}: line {} has {} fields, the header {}", i + 2, r.len(), columns.len()));
            }
            if rows.is_empty() {
                return Err(format!("{file} has no rows"));
            }
            Ok(DataSet { columns, rows })
        }
        DataSpec::Generated { rows, seed, columns } => {
            if *rows == 0 || columns.is_empty() || columns.values().any(|&n| n == 0) {
                return Err("needs rows, and columns of length 1 or more".into());
            }
            let mut state = *seed;
            let names: Vec<String> = columns.keys().cloned().collect();
            let rows = (0..*rows)
                .map(|_| columns.values().map(|&len| (0..len).map(|_| hex_digit(&mut state)).collect()).collect())
                .collect();
            Ok(DataSet { columns: names, rows })
        }
    }
}

/// The next lower-case hex digit of a SplitMix64 stream.
fn hex_digit(state: &mut u64) -> char {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    char::from_digit((z & 15) as u32, 16).expect("a hex digit")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(text: &str) -> BTreeMap<String, GroupSpec> {
        toml::from_str(text).unwrap()
    }

    fn error(text: &str) -> (String, String) {
        scripts(&groups(text), std::path::Path::new(".")).unwrap_err()
    }

    #[test]
    fn variables_must_be_columns_or_earlier_captures() {
        let (key, message) = error(
            r#"[g]
steps = [{ label = "a", path = "/x/{api}" }, { label = "b", path = "/", capture = { api = "/apiKey" } }]"#,
        );
        assert_eq!(key, "groups.g.steps[0].path");
        assert!(message.starts_with("unknown variable `{api}`"), "{message}");
        // JSON braces are text, not variables.
        let s = scripts(
            &groups(
                r#"[g]
data = { rows = 2, seed = 1, columns = { k = 4 } }
steps = [{ label = "a", path = "/{k}", body = '{"value": "{k}"}', capture = { api = "/apiKey" } },
         { label = "b", path = "/{api}/{k}" }]"#,
            ),
            std::path::Path::new("."),
        )
        .unwrap();
        let g = &s["g"];
        assert_eq!(g.slots, ["k", "api"]);
        let slots = vec!["abcd".to_string(), "K".to_string()];
        let steps = &g.branches[0].steps;
        assert_eq!(steps[0].body.as_ref().unwrap().render(&slots), r#"{"value": "abcd"}"#);
        assert_eq!(steps[1].path.render(&slots), "/K/abcd");
    }

    #[test]
    fn mixes_name_groups_of_steps_and_spread_their_weights() {
        let base = r#"
[a]
steps = [{ label = "x", path = "/a" }]
[b]
steps = [{ label = "x", path = "/b" }]
"#;
        let s = scripts(&groups(&format!("{base}[m]\nmix = {{ a = 2, b = 1 }}\n")), std::path::Path::new(".")).unwrap();
        assert_eq!(s["m"].order, [0, 1, 0]);
        assert_eq!(s["m"].labels(), ["a: x", "b: x"]);
        assert_eq!(error(&format!("{base}[m]\nmix = {{ c = 1 }}\n")).1, "no group named `c`");
        assert_eq!(error(&format!("{base}[m]\nmix = {{ a = 0 }}\n")).1, "`a`: a weight must be at least 1");
        assert_eq!(error("[e]\n").1, "needs either `steps` or `mix`");
        let twice = "[d]\nsteps = [{ label = \"x\", path = \"/\" }, { label = \"x\", path = \"/\" }]\n";
        assert_eq!(error(twice).1, "labels must differ");
    }

    #[test]
    fn generated_data_is_the_same_for_a_seed_and_files_are_checked() {
        let spec = DataSpec::Generated { rows: 3, seed: 2016, columns: BTreeMap::from([("key".into(), 16)]) };
        let a = load_data(&spec, std::path::Path::new(".")).unwrap();
        assert_eq!(a, load_data(&spec, std::path::Path::new(".")).unwrap());
        assert_eq!(a.rows.len(), 3);
        assert!(a.rows.iter().all(|r| r[0].len() == 16 && r[0].chars().all(|c| c.is_ascii_hexdigit())));
        assert_ne!(a.rows[0], a.rows[1]);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ok.csv"), "key,value\nk1,v1\nk2,v2\n").unwrap();
        std::fs::write(dir.path().join("bad.csv"), "key,value\nk1\n").unwrap();
        let ok = load_data(&DataSpec::File { file: "ok.csv".into() }, dir.path()).unwrap();
        assert_eq!((ok.columns.clone(), ok.rows.len()), (vec!["key".to_string(), "value".to_string()], 2));
        let bad = load_data(&DataSpec::File { file: "bad.csv".into() }, dir.path()).unwrap_err();
        assert_eq!(bad, "bad.csv: line 2 has 1 fields, the header 2");
    }
}
