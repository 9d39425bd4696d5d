//! A `Csv` as text: RFC 4180 quoting (a field is quoted when it holds a comma, quote or line
//! break), lines ending in `\n`. Numbers are raw, in the units their column names say, for
//! spreadsheets and scripts; column names are the metric ids of the results schema.

use crate::table::Csv;

/// The file's text.
pub fn text(csv: &Csv) -> String {
    let mut out = csv.header.join(",") + "\n";
    for line in &csv.lines {
        let quoted: Vec<String> = line.iter().map(|f| field(f)).collect();
        out.push_str(&quoted.join(","));
        out.push('\n');
    }
    out
}

/// A field, quoted when it must be.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        let cases = [
            ("plain", "plain"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "\"two\nlines\""),
        ];
        for (input, want) in cases {
            assert_eq!(field(input), want);
        }
    }
}
