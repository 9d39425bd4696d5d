//! wirebench-load: the load engine. Drivers (one per protocol, registered in `registry`) open
//! connections; one worker loop (`worker`) drives them under a stop condition and an optional
//! rate; `LoadEngine` plugs the engine into the runner, verifying answers before timing them.

mod cap;
pub mod driver;
pub mod drivers;
pub mod error;
mod fresh;
pub mod hlog;
pub mod io;
pub mod registry;
pub mod request;
mod script;
mod tally;
pub mod tls;
pub mod worker;

use std::sync::atomic::AtomicU64;
use std::time::Duration;

pub use driver::Constructor;
use driver::RequestSpec;
pub use error::LoadError;
pub use registry::{driver, driver_ids, driver_info, DriverInfo, Registry, DRIVERS};
pub use request::{filler, mismatch, request_of};
use wirebench_core::runner::{Executor, LoadResult, Plan, Target};
use wirebench_core::suite::Scenario;

/// The load engine as the runner's executor.
pub struct LoadEngine {
    /// Load threads (one single-threaded runtime each); default: the CPUs this process may use.
    pub threads: usize,
}

impl Executor for LoadEngine {
    fn verify(&self, s: &Scenario, target: &Target) -> Result<(), String> {
        verify(driver(&s.driver).map_err(|e| e.to_string())?, s, target).map_err(|e| e.to_string())
    }

    /// From the registry: the driver's `transport` or `transport_tls`.
    fn transport(&self, s: &Scenario) -> String {
        match driver_info(&s.driver) {
            Ok(d) => d.transport_label(s.tls).to_string(),
            Err(_) if s.tls => format!("{}+tls", s.driver),
            Err(_) => s.driver.clone(),
        }
    }

    fn measure(&self, s: &Scenario, plan: &Plan, target: &Target, live: &AtomicU64) -> Result<LoadResult, String> {
        driver_info(&s.driver).map_err(|e| e.to_string())?.check_streams(plan.streams)?;
        let job = worker::Job {
            new_driver: driver(&s.driver).map_err(|e| e.to_string())?,
            target: target.clone(),
            request: request_of(s, target).map_err(|e| e.to_string())?,
            plan: *plan,
            expect: s.expect.clone(),
            threads: self.threads,
            live,
            script: s.script.clone(),
            ramp_up: Duration::from_secs_f64(s.ramp_up_s.unwrap_or(0.0)),
            reconnect: s.reconnect,
        };
        worker::run(&job).map_err(|e| e.to_string())
    }
}

/// Sends the scenario's request twice over one connection (so keep-alive works too) and checks
/// status, body size and SHA-256 against `s.expect`.
pub fn verify(new_driver: Constructor, s: &Scenario, target: &Target) -> Result<(), LoadError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(LoadError::Io)?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let counters = std::rc::Rc::new(io::Counters::default());
        let request = std::rc::Rc::new(request_of(s, target)?);
        let mut channels = (new_driver)().connect(target, &request, 1, &counters).await?;
        if let Some(script) = &s.script {
            return verify_script(channels[0].as_mut(), script, &request).await;
        }
        for _ in 0..2 {
            let reply = tokio::time::timeout(Duration::from_secs(30), channels[0].exchange(true))
                .await
                .map_err(|_| LoadError::Protocol("no answer within 30 s".into()))??;
            if let Some(wrong) = mismatch(&reply, &s.expect) {
                return Err(LoadError::Protocol(wrong));
            }
        }
        let _ = tokio::time::timeout(worker::CLOSE_TIMEOUT, channels[0].close()).await;
        Ok(())
    })
}

/// Runs every branch of a thread group's script once, as one user: each step must answer as
/// its `expect` says and yield its captures.
async fn verify_script(
    channel: &mut dyn driver::Channel,
    script: &wirebench_core::suite::Script,
    request: &RequestSpec,
) -> Result<(), LoadError> {
    let steps = script.labels().len();
    let histograms = std::rc::Rc::new(std::cell::RefCell::new(tally::Histograms::new(steps)));
    let tally = std::rc::Rc::new(std::cell::RefCell::new(tally::Tally::for_steps(steps)));
    let mut user = script::User::new(script);
    let now = std::time::Instant::now();
    for ticket in 0..script.order.len() as u64 {
        let iteration = script::iteration(channel, script, request, &mut user, ticket, now, false, &histograms, &tally);
        let completed = tokio::time::timeout(Duration::from_secs(30), iteration)
            .await
            .map_err(|_| LoadError::Protocol("an iteration took over 30 s".into()))??;
        if !completed {
            let why = tally.borrow().first_error.clone().unwrap_or_default();
            return Err(LoadError::Protocol(why));
        }
    }
    Ok(())
}

#[cfg(test)]
mod layers;
#[cfg(test)]
mod tests;
