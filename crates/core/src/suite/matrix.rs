//! Suite matrices: `[[matrix]]` tables that state axes instead of rows, expanded into plain
//! `[[scenarios]]` when the suite loads, so the runner, the report, `--only` and claims never see
//! a matrix.
//!
//! ```toml
//! [[matrix]]
//! id = "rest-{transport}-{payload}"   # every axis once; the expanded ids must be unique
//! subject = "rest-rust"               # any other key: a scenario field every row shares
//! labels = { api = "rest" }
//!
//! [matrix.axes.payload]               # the first axis declared is the outermost loop
//! 1kb = { path = "/payload/1024", labels = { payload = "1KB" } }
//! 1mb = { path = "/payload/1048576", labels = { payload = "1MB" } }
//!
//! [matrix.axes.transport]
//! h1 = { driver = "http1", labels = { transport = "h1" } }
//! h2c = { driver = "http2", streams = 10, labels = { transport = "h2c" } }
//! ```
//!
//! A row is the shared fields, then each axis's value in the order the axes are declared: a
//! later axis overrides an earlier one's scalar (`streams = 1` on `h1` beats a payload's
//! `streams = 10`), and tables (`labels`, `expect`, `headers`, `params`) merge key by key.
//! Expanded rows come before the hand-written `[[scenarios]]`, in matrix order.
//!
//! `exclude = [{ transport = ["h2c", "h1-tls"], bodies = "-per-call" }]` leaves out the rows whose
//! value of every named axis is one listed (GitHub Actions' `matrix.exclude`); an entry that leaves
//! out nothing is an error, so a misspelt value cannot pass unseen.
//!
//! An axis several matrices share is written once at the top of the suite and named by each
//! matrix that uses it; shared axes come after the matrix's own, in the order listed:
//!
//! ```toml
//! [axes.transport]
//! h1 = { driver = "http1", labels = { transport = "h1" } }
//! h2c = { driver = "http2", labels = { transport = "h2c" } }
//!
//! [[matrix]]
//! id = "graphql-{transport}-{payload}"
//! shared_axes = ["transport"]
//! ```

use toml::{Table, Value};

/// Where each scenario came from, by index: `matrix[0] (rest-h1-1kb)` or `scenarios[3]`, so an
/// error in an expanded row names the matrix that made it.
pub type Origins = Vec<String>;

/// Replaces `matrix` in `table` by the scenarios it expands to, placed before the hand-written
/// ones. Errors are `(key, message)` for `SuiteError::Invalid`.
pub fn expand(table: &mut Table) -> Result<Origins, (String, String)> {
    let matrices = match table.remove("matrix") {
        None => Vec::new(),
        Some(Value::Array(m)) => m,
        Some(_) => return Err(("matrix".into(), "must be an array of tables: write [[matrix]]".into())),
    };
    let shared = match table.remove("axes") {
        None => Table::new(),
        Some(Value::Table(a)) => a,
        Some(_) => return Err(("axes".into(), "must be a table of shared axes, like [axes.transport]".into())),
    };
    let mut rows = Vec::new();
    let mut origins = Vec::new();
    for (m, matrix) in matrices.into_iter().enumerate() {
        let key = format!("matrix[{m}]");
        let Value::Table(matrix) = matrix else {
            return Err((key, "must be a table: write [[matrix]]".into()));
        };
        for (id, row) in expand_one(matrix, &shared, &key)? {
            origins.push(format!("{key} ({id})"));
            rows.push(Value::Table(row));
        }
    }
    let written = match table.remove("scenarios") {
        None => Vec::new(),
        Some(Value::Array(s)) => s,
        // Left for serde to reject with its own message.
        Some(other) => {
            table.insert("scenarios".into(), other);
            return Ok(origins);
        }
    };
    origins.extend((0..written.len()).map(|i| format!("scenarios[{i}]")));
    rows.extend(written);
    if !rows.is_empty() {
        table.insert("scenarios".into(), Value::Array(rows));
    }
    Ok(origins)
}

/// One matrix's rows as (id, scenario table); `shared` holds the suite's `[axes]`.
fn expand_one(mut matrix: Table, shared: &Table, key: &str) -> Result<Vec<(String, Table)>, (String, String)> {
    let bad = |k: &str, message: String| Err((format!("{key}.{k}"), message));
    let template = match matrix.remove("id") {
        Some(Value::String(t)) => t,
        _ => return bad("id", "must be an id template naming every axis, like \"rest-{transport}-{payload}\"".into()),
    };
    let mut axes = match matrix.remove("axes") {
        None => Table::new(),
        Some(Value::Table(a)) => a,
        Some(_) => return bad("axes", "must be a table of axes, like [matrix.axes.payload]".into()),
    };
    let exclude = match matrix.remove("exclude") {
        None => Vec::new(),
        Some(Value::Array(e)) => e,
        Some(_) => {
            return bad("exclude", "must be a list of tables of axis values, like [{ transport = \"h2c\" }]".into())
        }
    };
    let uses = match matrix.remove("shared_axes") {
        None => Vec::new(),
        Some(Value::Array(names)) => names,
        Some(_) => return bad("shared_axes", "must be a list of the suite's axes, like [\"transport\"]".into()),
    };
    for name in uses {
        let known = || shared.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
        let Some(name) = name.as_str() else {
            return bad("shared_axes", format!("`{name}` is not an axis name"));
        };
        let Some(values) = shared.get(name) else {
            return bad(
                "shared_axes",
                format!("the suite has no axis `{name}` (write [axes.{name}]); axes: {}", known()),
            );
        };
        if axes.insert(name.to_string(), values.clone()).is_some() {
            return bad("shared_axes", format!("`{name}` is also one of the matrix's own axes"));
        }
    }
    if axes.is_empty() {
        return bad("axes", "must be a table of axes, like [matrix.axes.payload]".into());
    }
    let placeholders = placeholders(&template).map_err(|m| (format!("{key}.id"), m))?;
    for name in &placeholders {
        if !axes.contains_key(name) {
            let known = axes.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
            return bad("id", format!("no axis named `{name}`; axes: {known}"));
        }
    }
    // (axis name, [(value name, fields)]) in declaration order.
    let mut axis_values: Vec<(String, Vec<(String, Table)>)> = Vec::new();
    for (name, values) in axes {
        let k = format!("axes.{name}");
        if !placeholders.contains(&name) {
            return bad(&k, format!("is not in the id template `{template}`, so its rows would share ids"));
        }
        let Value::Table(values) = values else {
            return bad(&k, "must be a table of values, each a table of scenario fields".into());
        };
        if values.is_empty() {
            return bad(&k, "has no values".into());
        }
        let mut list = Vec::new();
        for (value, fields) in values {
            let Value::Table(fields) = fields else {
                return bad(
                    &format!("{k}.{value}"),
                    "must be a table of scenario fields, like { driver = \"http1\" }".into(),
                );
            };
            if fields.contains_key("id") {
                return bad(&format!("{k}.{value}.id"), "ids come from the matrix's id template".into());
            }
            list.push((value, fields));
        }
        axis_values.push((name, list));
    }

    let exclude = excluded(&exclude, &axis_values).map_err(|(k, m)| (format!("{key}.exclude{k}"), m))?;
    let mut used = vec![false; exclude.len()];

    let mut rows = Vec::new();
    let mut choice = vec![0usize; axis_values.len()];
    'rows: loop {
        let mut row = matrix.clone();
        let mut id = template.clone();
        for (a, (axis, values)) in axis_values.iter().enumerate() {
            let (value, fields) = &values[choice[a]];
            merge(&mut row, fields);
            id = id.replace(&format!("{{{axis}}}"), value);
        }
        let dropped: Vec<usize> = (0..exclude.len())
            .filter(|&e| {
                exclude[e].iter().all(|(axis, values)| {
                    let a = axis_values.iter().position(|(n, _)| n == axis).expect("checked by `excluded`");
                    values.contains(&axis_values[a].1[choice[a]].0)
                })
            })
            .collect();
        // Only the first entry that leaves a row out counts, so a later one covered by it is
        // reported as leaving out nothing.
        if let Some(&e) = dropped.first() {
            used[e] = true;
        }
        if dropped.is_empty() {
            row.insert("id".into(), Value::String(id.clone()));
            rows.push((id, row));
        }
        // Odometer: the last axis turns fastest.
        for a in (0..choice.len()).rev() {
            choice[a] += 1;
            if choice[a] < axis_values[a].1.len() {
                continue 'rows;
            }
            choice[a] = 0;
        }
        break;
    }
    if let Some(e) = used.iter().position(|u| !u) {
        return bad(&format!("exclude[{e}]"), "leaves out no row: a misspelt value, or one already left out".into());
    }
    Ok(rows)
}

/// The rows `exclude` leaves out: each entry as (axis, the values it names), a row being left out
/// when its value of every named axis is one of them. Errors are (`[i].axis`, message).
#[allow(clippy::type_complexity)]
fn excluded(
    exclude: &[Value],
    axes: &[(String, Vec<(String, Table)>)],
) -> Result<Vec<Vec<(String, Vec<String>)>>, (String, String)> {
    let mut out = Vec::new();
    for (i, entry) in exclude.iter().enumerate() {
        let Value::Table(entry) = entry else {
            return Err((format!("[{i}]"), "must be a table of axis values, like { transport = \"h2c\" }".into()));
        };
        let mut conditions = Vec::new();
        for (axis, values) in entry {
            let k = format!("[{i}].{axis}");
            let Some((_, known)) = axes.iter().find(|(n, _)| n == axis) else {
                return Err((k, format!("the matrix has no axis `{axis}`")));
            };
            let values: Vec<String> = match values {
                Value::String(v) => vec![v.clone()],
                Value::Array(vs) => vs.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
                _ => return Err((k, "must be a value of the axis or a list of them".into())),
            };
            if let Some(v) = values.iter().find(|v| !known.iter().any(|(name, _)| name == *v)) {
                let names: Vec<&str> = known.iter().map(|(n, _)| n.as_str()).collect();
                return Err((k, format!("`{v}` is not a value of the axis; values: {}", names.join(", "))));
            }
            conditions.push((axis.clone(), values));
        }
        out.push(conditions);
    }
    Ok(out)
}

/// The `{name}` placeholders of an id template, each once.
fn placeholders(template: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open..].find('}') else {
            return Err(format!("unclosed `{{` in `{template}`"));
        };
        let name = &rest[open + 1..open + len];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(format!("`{{{name}}}` in `{template}` is not an axis name"));
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
        rest = &rest[open + len + 1..];
    }
    if rest.contains('}') || names.is_empty() {
        return Err(format!("`{template}` must name every axis once in braces, like \"rest-{{transport}}\""));
    }
    Ok(names)
}

/// Merges `over` into `base`: tables key by key (recursively), anything else replaced.
fn merge(base: &mut Table, over: &Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Table(b)), Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(text: &str) -> Result<(Vec<Table>, Origins), (String, String)> {
        let mut table: Table = text.parse().unwrap();
        let origins = expand(&mut table)?;
        let rows = match table.get("scenarios") {
            Some(Value::Array(a)) => a.iter().map(|v| v.as_table().unwrap().clone()).collect(),
            _ => Vec::new(),
        };
        Ok((rows, origins))
    }

    const MATRIX: &str = r#"
        [[scenarios]]
        id = "by-hand"

        [[matrix]]
        id = "rest-{transport}-{payload}"
        subject = "rest"
        streams = 7
        labels = { api = "rest" }

        [matrix.axes.payload]
        1kb = { path = "/p/1024", streams = 10, labels = { payload = "1KB" } }
        1mb = { path = "/p/1048576", labels = { payload = "1MB" } }

        [matrix.axes.transport]
        h1 = { driver = "http1", streams = 1, labels = { transport = "h1" } }
        h2c = { driver = "http2", labels = { transport = "h2c" } }
        h2-tls = { driver = "http2", tls = true, labels = { transport = "h2+tls" } }
    "#;

    #[test]
    fn exclude_leaves_out_the_rows_whose_axes_all_match() {
        let text = MATRIX.replace(
            "labels = { api = \"rest\" }\n",
            "labels = { api = \"rest\" }\nexclude = [{ payload = \"1mb\", transport = [\"h2c\", \"h2-tls\"] }, { transport = \"h1\", payload = \"1kb\" }]\n",
        );
        let (rows, _) = expanded(&text).unwrap();
        let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["rest-h2c-1kb", "rest-h2-tls-1kb", "rest-h1-1mb", "by-hand"]);
        let mistakes = [
            (
                "{ transport = \"h3\" }",
                "matrix[0].exclude[0].transport",
                "`h3` is not a value of the axis; values: h1, h2c, h2-tls",
            ),
            ("{ colour = \"red\" }", "matrix[0].exclude[0].colour", "the matrix has no axis `colour`"),
            (
                "{ transport = \"h1\" }, { transport = \"h1\", payload = \"1kb\" }",
                "matrix[0].exclude[1]",
                "leaves out no row",
            ),
        ];
        for (entry, key, want) in mistakes {
            let text = MATRIX.replace(
                "labels = { api = \"rest\" }\n",
                &format!("labels = {{ api = \"rest\" }}\nexclude = [{entry}]\n"),
            );
            let (k, message) = expanded(&text).unwrap_err();
            assert_eq!(k, key);
            assert!(message.starts_with(want), "{message}");
        }
    }

    #[test]
    fn axes_expand_outermost_first_before_hand_written_rows() {
        let (rows, origins) = expanded(MATRIX).unwrap();
        let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "rest-h1-1kb",
                "rest-h2c-1kb",
                "rest-h2-tls-1kb",
                "rest-h1-1mb",
                "rest-h2c-1mb",
                "rest-h2-tls-1mb",
                "by-hand"
            ]
        );
        assert_eq!(origins[1], "matrix[0] (rest-h2c-1kb)");
        assert_eq!(origins[6], "scenarios[0]");
    }

    #[test]
    fn later_axes_override_scalars_and_tables_merge() {
        let (rows, _) = expanded(MATRIX).unwrap();
        let streams: Vec<i64> = rows[..6].iter().map(|r| r["streams"].as_integer().unwrap()).collect();
        // h1 sets 1 over the payload's 10; h2 keeps the 1 KB payload's 10, else the shared 7.
        assert_eq!(streams, [1, 10, 10, 1, 7, 7]);
        let labels = rows[2]["labels"].as_table().unwrap();
        assert_eq!(labels.len(), 3);
        assert_eq!((labels["api"].as_str(), labels["payload"].as_str()), (Some("rest"), Some("1KB")));
        assert_eq!(labels["transport"].as_str(), Some("h2+tls"));
        assert_eq!(rows[2].get("tls").and_then(Value::as_bool), Some(true));
        assert_eq!(rows[1].get("tls"), None);
    }

    #[test]
    fn shared_axes_are_written_once_and_come_after_the_matrix_own() {
        let shared = MATRIX
            .replace("[matrix.axes.transport]", "[axes.transport]")
            .replace("labels = { api = \"rest\" }", "labels = { api = \"rest\" }\nshared_axes = [\"transport\"]");
        // The top-level table must come first in TOML, so move it above the matrix.
        let (head, transport) = shared.split_at(shared.find("[axes.transport]").unwrap());
        let text = format!("{transport}\n{head}");
        let (rows, _) = expanded(&text).unwrap();
        let (want, _) = expanded(MATRIX).unwrap();
        assert_eq!(rows, want);

        let twice = format!("{text}\n[[matrix]]\nid = \"other-{{transport}}\"\nshared_axes = [\"transport\"]\n");
        let (rows, _) = expanded(&twice).unwrap();
        let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(ids[6..], ["other-h1", "other-h2c", "other-h2-tls", "by-hand"]);

        for (bad, says) in [
            (text.replace("shared_axes = [\"transport\"]", "shared_axes = [\"tls\"]"), "no axis `tls`"),
            (text.replace("shared_axes = [\"transport\"]", "shared_axes = \"transport\""), "must be a list"),
            (text.replace("shared_axes = [\"transport\"]", "shared_axes = [1]"), "not an axis name"),
            (
                text.replace("[matrix.axes.payload]", "[matrix.axes.transport]\nx = {}\n[matrix.axes.payload]"),
                "also one of the matrix's own axes",
            ),
        ] {
            let (k, m) = expanded(&bad).unwrap_err();
            assert_eq!(k, "matrix[0].shared_axes", "{m}");
            assert!(m.contains(says), "{m}");
        }
        let (k, _) = expanded("axes = 3\n").unwrap_err();
        assert_eq!(k, "axes");
    }

    #[test]
    fn a_suite_without_matrices_is_left_alone() {
        let (rows, origins) = expanded("[[scenarios]]\nid = \"a\"\n").unwrap();
        assert_eq!((rows.len(), origins), (1, vec!["scenarios[0]".to_string()]));
    }

    #[test]
    fn bad_matrices_name_the_key() {
        let cases = [
            (MATRIX.replace("id = \"rest-{transport}-{payload}\"", ""), "matrix[0].id", "must be an id template"),
            (MATRIX.replace("{transport}-{payload}", "{transport}-{size}"), "matrix[0].id", "no axis named `size`"),
            (MATRIX.replace("-{payload}\"", "\""), "matrix[0].axes.payload", "is not in the id template"),
            (MATRIX.replace("{transport}-{payload}", "{transport-{payload}"), "matrix[0].id", "is not an axis name"),
            (MATRIX.replace("{payload}\"", "{payload\""), "matrix[0].id", "unclosed"),
            (
                MATRIX.replace("h1 = { driver", "h1 = { id = \"x\", driver"),
                "matrix[0].axes.transport.h1.id",
                "ids come from",
            ),
            (
                MATRIX.replace("h2c = { driver = \"http2\", labels = { transport = \"h2c\" } }", "h2c = 3"),
                "matrix[0].axes.transport.h2c",
                "must be a table",
            ),
            (
                MATRIX
                    .replace("[matrix.axes.transport]", "[matrix.axes.empty]\n[matrix.axes.transport]")
                    .replace("{payload}\"", "{payload}-{empty}\""),
                "matrix[0].axes.empty",
                "has no values",
            ),
            ("matrix = 1".to_string(), "matrix", "[[matrix]]"),
        ];
        for (text, key, message) in cases {
            let (k, m) = expanded(&text).unwrap_err();
            assert_eq!(k, key, "{m}");
            assert!(m.contains(message), "{k}: {m}");
        }
    }
}
