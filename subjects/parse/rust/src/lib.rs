//! parse-rust: the Rust server of the parse lab (study "JSON vs binary encoded objects"), and the
//! library of its driver. The API is `subjects/parse/README.md`: a provider of the formats lab's
//! `numeric` and `dummy` objects as JSON or BSON, and a consumer that fetches them from any
//! provider and times their decoding apart from the I/O around it.
//!
//! [`objects`] encodes and decodes (the formats lab's datasets and codecs), [`consume`] fetches,
//! times and verifies, [`server`] is the actix-web app, [`drive`] the harness that calls the
//! servers and prints measurement lines.

pub mod consume;
pub mod drive;
pub mod objects;
pub mod server;

/// Parses the command line; on `--help` or `--version` prints and exits 0, on a mistake prints
/// one line (`<name>: <what is wrong>`) and exits 2.
pub fn cli_or_exit<T: clap::Parser>(name: &str) -> T {
    match T::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            std::process::exit(0);
        }
        Err(e) => {
            // clap's first line may end in ':' with what it means on the next ("the following
            // required arguments were not provided:" / "  --server <SERVERS>").
            let text = e.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut line = lines.next().unwrap_or_default().trim_start_matches("error: ").to_string();
            if line.ends_with(':') {
                line = format!("{line} {}", lines.next().unwrap_or_default());
            }
            eprintln!("{name}: {line}");
            std::process::exit(2);
        }
    }
}
