//! restcache-contract: checks a running RESTCache implementation against
//! subjects/restcache/openapi.yaml and prints each check; exits 1 when one fails.

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(about = "Check a RESTCache implementation against its contract over HTTP")]
struct Cli {
    /// The service's base URL.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let service = match restcache_contract::Service::new(&cli.url) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("restcache-contract: {e:#}");
            return ExitCode::from(2);
        }
    };
    let mut failed = 0;
    for (name, check) in restcache_contract::CHECKS {
        match check(&service) {
            Ok(()) => println!("ok    {name}"),
            Err(e) => {
                failed += 1;
                println!("FAIL  {name}: {e:#}");
            }
        }
    }
    println!("{} of {} checks passed", restcache_contract::CHECKS.len() - failed, restcache_contract::CHECKS.len());
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
