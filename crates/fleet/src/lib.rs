//! wirebench-fleet: one load from several workers. A run's coordinator hands each row's load to
//! `wirebench worker` processes and adds up what they measured (`Coordinator`, the runner's
//! executor; `work`, a worker's loop; the calls between them in `protocol`); loads measured
//! apart by `wirebench load --worker i/N --out DIR` leave a record each (`record`), which
//! `merge` adds up exactly.

mod coordinator;
mod merge;
mod protocol;
mod record;
mod worker;

#[cfg(test)]
mod layers;

pub use coordinator::Coordinator;
pub use merge::{combine, merge, Merged, Windows};
pub use record::{read_worker, record, write_worker, Worker, WorkerMeta};
pub use worker::{work, WorkerOptions};
