//! One iteration of a thread group's virtual user: the branch and data row its ticket picks,
//! then each step in turn: variables filled in, the request sent over the user's channel, the
//! answer checked against the step's `expect`, variables captured from it, the time recorded
//! under the step's label. A wrong answer ends the iteration (later steps depend on earlier
//! ones, as "start next thread loop" on a sampler error in JMeter).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::driver::{Channel, RequestSpec};
use crate::error::LoadError;
use crate::request::mismatch;
use crate::tally::{Histograms, Tally};
use wirebench_core::suite::groups::Step;
use wirebench_core::suite::Script;

/// A virtual user's variables, one value per slot of the script.
pub(crate) struct User {
    slots: Vec<String>,
}

impl User {
    pub(crate) fn new(script: &Script) -> User {
        User { slots: vec![String::new(); script.slots.len()] }
    }
}

/// Runs iteration `ticket`: true when every step answered as expected, false when one did not
/// (counted under its label); an error when the connection failed. The first step's latency is
/// measured from `intended` (the open model's schedule; the actual send time otherwise), every
/// other step's from its own send time.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn iteration(
    channel: &mut dyn Channel,
    script: &Script,
    base: &RequestSpec,
    user: &mut User,
    ticket: u64,
    intended: Instant,
    open_model: bool,
    histograms: &Rc<RefCell<Histograms>>,
    tally: &Rc<RefCell<Tally>>,
) -> Result<bool, LoadError> {
    let b = script.order[(ticket % script.order.len() as u64) as usize];
    let branch = &script.branches[b];
    let first_label: usize = script.branches[..b].iter().map(|x| x.steps.len()).sum();
    if let Some(data) = &branch.data {
        let row = &data.rows[(ticket % data.rows.len() as u64) as usize];
        for (&slot, value) in branch.data_slots.iter().zip(row) {
            user.slots[slot].clone_from(value);
        }
    }
    let think = Duration::from_secs_f64(script.think_ms / 1000.0);
    for (i, step) in branch.steps.iter().enumerate() {
        if !think.is_zero() {
            tokio::time::sleep(think).await;
        }
        let request = request_of(step, base, &user.slots);
        let sent = Instant::now();
        let from = if i == 0 && open_model { intended } else { sent };
        let reply = channel.exchange_request(&request, !step.capture.is_empty()).await?;
        let done = Instant::now();
        let wrong = mismatch(&reply, &step.expect).or_else(|| capture(step, reply.body.as_deref(), user).err());
        let k = first_label + i;
        let mut t = tally.borrow_mut();
        match wrong {
            None => {
                t.requests += 1;
                t.steps[k].0 += 1;
                let us = ((done - from).as_micros() as u64).max(1);
                let mut h = histograms.borrow_mut();
                h.latency.saturating_record(us);
                h.steps[k].saturating_record(us);
                if open_model {
                    h.uncorrected.saturating_record(((done - sent).as_micros() as u64).max(1));
                }
            }
            Some(w) => {
                t.errors += 1;
                t.steps[k].1 += 1;
                t.first_error.get_or_insert_with(|| format!("step `{}`: {w}", step.label));
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The step's request with the user's variables filled in.
pub(crate) fn request_of(step: &Step, base: &RequestSpec, slots: &[String]) -> RequestSpec {
    let mut headers: Vec<(String, String)> = step.headers.iter().map(|(k, v)| (k.clone(), v.render(slots))).collect();
    let body = step.body.as_ref().map(|b| Bytes::from(b.render(slots))).unwrap_or_default();
    if !body.is_empty() && !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
        headers.push(("Content-Type".into(), "application/json".into()));
    }
    RequestSpec {
        method: step.method.clone(),
        path: step.path.render(slots),
        authority: base.authority.clone(),
        headers,
        body,
        params: Default::default(),
    }
}

/// Stores the step's captures from a JSON answer; the message says which one found nothing.
pub(crate) fn capture(step: &Step, body: Option<&[u8]>, user: &mut User) -> Result<(), String> {
    if step.capture.is_empty() {
        return Ok(());
    }
    let doc: serde_json::Value = serde_json::from_slice(body.unwrap_or_default())
        .map_err(|e| format!("answer is not JSON ({e}), nothing to capture"))?;
    for (slot, pointer) in &step.capture {
        user.slots[*slot] = match doc.pointer(pointer) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => v.to_string(),
            _ => return Err(format!("capture: {pointer} is not a string or number in the answer")),
        };
    }
    Ok(())
}
