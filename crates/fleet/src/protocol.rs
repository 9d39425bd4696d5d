//! The calls between a run's coordinator and its workers, and the job they hand over. A suite's
//! load from several workers: `wirebench run SUITE --workers N` runs the suite (subjects,
//! services, harness rows, claims, report) and hands each load of its rows to N
//! `wirebench worker --coordinator URL --worker i/N` processes, on this machine or on others.
//!
//! The coordinator serves these calls over HTTP/1.1 and JSON, each a long poll:
//! - `GET /v1/job?worker=i&count=N&after=K`: the next load after job K (its scenario, the suite's
//!   thread groups, the plan and the target), `{"done": true}` when the run ends, or 204 after
//!   25 s without one (ask again);
//! - `POST /v1/ready?worker=i&job=K`: a barrier. The worker has verified its route to the target;
//!   when every worker of the job has, all get one start instant, 250 ms ahead;
//! - `POST /v1/alive?worker=i&job=K`: every 5 s of a load, so a worker that died is noticed;
//! - `POST /v1/result?worker=i&job=K`: its record and histograms (as `wirebench load --out`
//!   writes them), or `{"error": ...}`.
//!
//! The job's workers are the first `min(N, connections, requests)`: a row of one connection is
//! loaded by worker 0 alone.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use wirebench_core::runner::{Plan, Target};
use wirebench_core::suite::{GroupSpec, Scenario};

/// How long one long poll waits before the worker asks again.
pub(crate) const POLL: Duration = Duration::from_secs(25);

/// One row's load as the coordinator hands it out: the whole plan, of which each worker takes
/// its share, and the target as the workers reach it.
#[derive(Serialize, Deserialize)]
pub(crate) struct Job {
    /// Its number in the run.
    pub job: u64,
    /// The workers taking part: 0..count.
    pub count: u32,
    pub scenario: Scenario,
    /// The suite's thread groups (a group's script may take others), rebuilt by each worker.
    pub groups: BTreeMap<String, GroupSpec>,
    pub plan: Plan,
    pub target: Target,
}
