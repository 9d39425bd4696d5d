//! wirebench: parse the command line, run the subcommand, print any error once on one line.

mod build;
mod cli;
mod list;
mod load;
mod merge;
mod net;
mod progress;
mod run;
mod worker;

#[cfg(test)]
mod layers;

use clap::Parser;

// The load engine allocates per request (h2 frames, header maps); mimalloc's thread-local free
// lists cost about half of glibc malloc's CPU there, which is CPU the instrument does not steal
// from the subject.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit codes.
const EXIT_OK: i32 = 0;
const EXIT_ERROR: i32 = 1;
/// The run finished and its report was written, but some scenarios failed.
const EXIT_SCENARIOS_FAILED: i32 = 3;
/// `compare --fail-on-flip`: a claim went between confirmed (or differs in size) and refuted.
const EXIT_VERDICT_FLIPPED: i32 = 4;
/// `run --fail-on`: a claim got one of the verdicts the gate names.
const EXIT_CLAIMS_FAILED: i32 = 5;
/// `compare --fail-if slower`: a row of B is slower than A's beyond the tolerance.
const EXIT_SLOWER: i32 = 6;

/// `wirebench report`: write the report files and print the HTML's path, or print Markdown.
fn report(
    dir: &std::path::Path,
    markdown: bool,
    sections: &[String],
    claims: Option<&str>,
    suites_dir: &std::path::Path,
) -> anyhow::Result<i32> {
    let claims = claims.map(|name| run::claims_of(name, suites_dir)).transpose()?;
    if markdown {
        print!("{}", wirebench_report::markdown_with(dir, sections, claims.as_ref())?);
        return Ok(EXIT_OK);
    }
    let r = wirebench_report::render_with(dir, claims.as_ref())?;
    for w in &r.warnings {
        eprintln!("wirebench: {} {}", w.title, w.detail);
    }
    println!("{}", r.html.display());
    Ok(EXIT_OK)
}

/// `wirebench compare`: the comparison as text or JSON; with `fail_on_flip`, exit 4 on a hard
/// flip; with a `slower` gate, exit 6 on a row slower beyond its tolerance.
fn compare(
    a: &std::path::Path,
    b: &std::path::Path,
    json: bool,
    fail_on_flip: bool,
    slower: Option<f64>,
) -> anyhow::Result<i32> {
    let mut c = wirebench_report::comparison(a, b)?;
    if let Some(tolerance) = slower {
        c.gate = Some(wirebench_report::slower_gate(&c, tolerance));
    }
    if json {
        println!("{}", serde_json::to_string(&c)?);
    } else {
        print!("{}", wirebench_report::comparison_text(&c));
    }
    Ok(if c.gate.as_ref().is_some_and(|g| !g.slower.is_empty()) {
        EXIT_SLOWER
    } else if fail_on_flip && c.hard_flips > 0 {
        EXIT_VERDICT_FLIPPED
    } else {
        EXIT_OK
    })
}

fn main() {
    // Like other Unix tools, end quietly when the reader of our output goes away (`| head`).
    // SAFETY: setting a signal disposition before any thread starts.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    // A bug must still end in one line, not a panic trace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("wirebench: internal error: {msg}{at}");
    }));
    let cli = cli::Cli::parse();
    let outcome = match cli.command {
        cli::Command::List(args) => list::list(&args).map(|()| EXIT_OK),
        cli::Command::Build(args) => build::build(&args).map(|()| EXIT_OK),
        cli::Command::Run(args) => run::run(&args).map(|r| {
            if r.gated > 0 {
                EXIT_CLAIMS_FAILED
            } else if r.failed > 0 {
                EXIT_SCENARIOS_FAILED
            } else {
                EXIT_OK
            }
        }),
        cli::Command::Load(args) => load::load(&args).map(|()| EXIT_OK),
        cli::Command::Merge(args) => merge::merge(&args).map(|()| EXIT_OK),
        cli::Command::Worker(args) => worker::work(&args).map(|()| EXIT_OK),
        cli::Command::Report { dir, markdown, section, claims, suites_dir } => {
            report(&dir, markdown, &section, claims.as_deref(), &suites_dir)
        }
        cli::Command::Net(cli::NetCommand::Check(args)) => net::check(&args).map(|()| EXIT_OK),
        cli::Command::Compare { a, b, json, fail_on_flip, fail_if, tolerance } => cli::parse_share(&tolerance)
            .map_err(|e| anyhow::anyhow!("--tolerance: {e}"))
            .and_then(|t| compare(&a, &b, json, fail_on_flip, fail_if.map(|_| t))),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("wirebench: {e:#}");
            std::process::exit(EXIT_ERROR);
        }
    }
}
