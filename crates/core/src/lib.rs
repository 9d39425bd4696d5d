//! wirebench-core: suites, scenarios, the runner and subject supervisor, statistics, claims and
//! the results schema shared by every part of wirebench.

pub mod bottleneck;
pub mod build;
pub mod claims;
pub mod contention;
#[cfg(test)]
mod layers;
pub mod machine;
pub mod metrics;
pub mod results;
pub mod runner;
pub mod schema;
pub mod share;
pub mod speed;
pub mod stats;
pub mod suite;
pub mod supervisor;

/// Current UTC time as RFC 3339 with seconds.
pub fn now_utc() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into())
}

/// A UTC timestamp usable in a directory name: `20261123T063513Z`.
pub fn stamp_utc() -> String {
    let f = time::macros::format_description!("[year][month][day]T[hour][minute][second]Z");
    time::OffsetDateTime::now_utc().format(&f).unwrap_or_else(|_| "19700101T000000Z".into())
}
