//! Network conditions between the load and the subject: two network namespaces the run
//! creates, joined by TUN devices through a user-space forwarder of ours that delays, drops
//! (independently or in bursts) and rate-limits IP packets per direction, as Mahimahi's
//! mm-delay and mm-loss do, since this kernel has no `netem`. See docs/METHODOLOGY.md,
//! "Network conditions".

mod check;
mod link;
mod ns;
mod shaper;
mod spec;

#[cfg(test)]
mod layers;

pub use check::{check, wilson, CheckOptions, CheckReport, LossEstimate};
pub use link::{DirStats, Link, LinkError, LinkStats, CLIENT_ADDR, SERVER_ADDR};
pub use ns::{held_namespaces, Entered, Ns};
pub use shaper::{Counters, Fate, Loss, Shaper};
pub use spec::NetSpec;
