//! The progress display of `wirebench run`: a bar over scenarios with the repeat and live req/s
//! on a terminal; one plain line per measurement when stdout is not a terminal.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use wirebench_core::runner::Progress;
use wirebench_core::schema::{Measurement, Status};

pub struct Bar {
    bar: ProgressBar,
    live: Arc<AtomicU64>,
    state: Arc<Mutex<State>>,
    done: Arc<AtomicBool>,
    interactive: bool,
}

#[derive(Default)]
struct State {
    scenario: String,
    phase: String,
}

impl Bar {
    pub fn new() -> Bar {
        let interactive = std::io::stdout().is_terminal();
        let bar = ProgressBar::with_draw_target(
            Some(0),
            if interactive { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() },
        );
        bar.set_style(
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} {msg} [{elapsed_precise}]")
                .expect("valid template"),
        );
        let b = Bar {
            bar,
            live: Arc::new(AtomicU64::new(0)),
            state: Arc::new(Mutex::new(State::default())),
            done: Arc::new(AtomicBool::new(false)),
            interactive,
        };
        if interactive {
            b.tick_live_rate();
        }
        b
    }

    /// Refreshes the live req/s five times a second from the engine's completion counter.
    fn tick_live_rate(&self) {
        let (bar, live, state, done) = (self.bar.clone(), self.live.clone(), self.state.clone(), self.done.clone());
        std::thread::spawn(move || {
            each_rate(&live, &done, |_, rate| {
                let s = state.lock().expect("progress state");
                bar.set_message(format!("{} · {} · {} req/s", s.scenario, s.phase, thousands(rate)));
            })
        });
    }
}

/// Every 200 ms until `done`, shows `counter`'s count and its rate since the last time.
fn each_rate(counter: &AtomicU64, done: &AtomicBool, mut show: impl FnMut(u64, f64)) {
    let mut last = (Instant::now(), 0u64);
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        let now = (Instant::now(), counter.load(Ordering::Relaxed));
        let rate = now.1.saturating_sub(last.1) as f64 / (now.0 - last.0).as_secs_f64();
        last = now;
        show(now.1, rate);
    }
}

impl Progress for Bar {
    fn scenario(&self, index: usize, total: usize, id: &str, _repeats: u32) {
        self.bar.set_length(total as u64);
        self.bar.set_position(index.saturating_sub(1) as u64);
        self.state.lock().expect("progress state").scenario = id.to_string();
    }

    fn phase(&self, repeat: Option<u32>) {
        self.state.lock().expect("progress state").phase = match repeat {
            Some(r) => format!("repeat {r}"),
            None => "warm-up".into(),
        };
    }

    fn live(&self) -> &AtomicU64 {
        &self.live
    }

    fn measured(&self, m: &Measurement) {
        let line = match m.status {
            Status::Ok if m.format.is_some() => format!(
                "  {:<28} repeat {:>2}  serialize {:>10} ns  deserialize {:>10} ns  {:>9} bytes",
                m.scenario,
                m.repeat,
                thousands(m.metrics.serialize_ns.unwrap_or(0.0)),
                thousands(m.metrics.deserialize_ns.unwrap_or(0.0)),
                thousands(m.metrics.size_bytes.unwrap_or(0) as f64)
            ),
            Status::Ok if m.metrics.extra.contains_key("parse_us") => {
                let us = |k: &str| thousands(m.metrics.extra.get(k).copied().unwrap_or(0.0));
                format!(
                    "  {:<28} repeat {:>2}  decode {:>10} µs  with I/O {:>12} µs",
                    m.scenario,
                    m.repeat,
                    us("parse_us"),
                    us("total_us")
                )
            }
            Status::Ok if m.metrics.rps.is_none() && m.metrics.messages_per_s.is_some() => format!(
                "  {:<28} repeat {:>2}  {:>12} messages/s  {:>10} ms",
                m.scenario,
                m.repeat,
                thousands(m.metrics.messages_per_s.unwrap_or(0.0)),
                format!("{:.2}", m.metrics.duration_s.unwrap_or(0.0) * 1000.0)
            ),
            // A harness that times one piece of work (the wasm lab's kernels).
            Status::Ok if m.metrics.rps.is_none() && m.metrics.duration_s.is_some() => format!(
                "  {:<28} repeat {:>2}  {:>12} ms",
                m.scenario,
                m.repeat,
                format!("{:.3}", m.metrics.duration_s.unwrap_or(0.0) * 1000.0)
            ),
            Status::Ok => {
                let p99 = m.metrics.latency_us.as_ref().map_or(0, |l| l.p99);
                format!(
                    "  {:<28} repeat {:>2}  {:>12} req/s  p99 {:>9} µs  errors {}",
                    m.scenario,
                    m.repeat,
                    thousands(m.metrics.rps.unwrap_or(0.0)),
                    thousands(p99 as f64),
                    m.metrics.errors.unwrap_or(0)
                )
            }
            Status::Failed => format!("  {:<28} FAILED: {}", m.scenario, m.error.as_deref().unwrap_or("")),
        };
        if self.interactive {
            self.bar.println(line);
        } else {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        self.done.store(true, Ordering::Relaxed);
        self.bar.finish_and_clear();
    }
}

/// 1234567.8 → "1,234,568".
pub fn thousands(v: f64) -> String {
    let s = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `wirebench load`'s live line on a terminal: answers so far and the rate of the last 200 ms;
/// nothing when stdout is not a terminal (a pipe or a file reads only the result).
pub struct LiveLine {
    counter: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LiveLine {
    pub fn start() -> LiveLine {
        let (counter, done) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
        let thread = std::io::stdout().is_terminal().then(|| {
            let (counter, done) = (counter.clone(), done.clone());
            std::thread::spawn(move || {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]").expect("valid template"),
                );
                each_rate(&counter, &done, |answers, rate| {
                    bar.set_message(format!("{answers} answers  {rate:.0} req/s"));
                    bar.tick();
                });
                bar.finish_and_clear();
            })
        });
        LiveLine { counter, done, thread }
    }

    /// The counter the load engine adds each right answer to.
    pub fn counter(&self) -> &AtomicU64 {
        &self.counter
    }
}

impl Drop for LiveLine {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(1234567.8), "1,234,568");
        assert_eq!(super::thousands(999.0), "999");
        assert_eq!(super::thousands(0.0), "0");
    }
}
