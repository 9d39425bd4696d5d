//! One direction of the link as a model, apart from any device: given a packet's arrival time
//! and size, when it leaves (delay, then the rate's serialisation) or why it is dropped (loss,
//! or a full queue). Pure, so the tests can drive it with a clock of their own.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::spec::NetSpec;

/// What happens to one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Leaves the link at this instant.
    Deliver(Instant),
    /// Dropped by the loss model.
    Lost,
    /// Dropped because `queue` packets were already waiting for the rate (drop-tail).
    Overflow,
}

/// Loss: independent (Bernoulli) when `burst` is 1, else the two-state Gilbert model (the
/// simple Gilbert–Elliott case: every packet in the bad state is lost, none in the good one),
/// with the bad state left with probability 1/burst, so runs of losses last `burst` packets on
/// average, and entered with p = loss·r/(1 − loss), so the long-run loss is `loss`.
#[derive(Debug, Clone)]
pub struct Loss {
    loss: f64,
    enter_bad: f64,
    leave_bad: f64,
    bad: bool,
    rng: SmallRng,
}

impl Loss {
    pub fn new(loss: f64, burst: f64, seed: u64) -> Self {
        let leave_bad = 1.0 / burst;
        let enter_bad = if loss > 0.0 { (loss * leave_bad / (1.0 - loss)).min(1.0) } else { 0.0 };
        Loss { loss, enter_bad, leave_bad, bad: false, rng: SmallRng::seed_from_u64(seed) }
    }

    /// Whether the next packet is lost.
    pub fn next_lost(&mut self) -> bool {
        if self.loss == 0.0 {
            return false;
        }
        if self.leave_bad >= 1.0 {
            return self.rng.random::<f64>() < self.loss;
        }
        let u = self.rng.random::<f64>();
        self.bad = if self.bad { u >= self.leave_bad } else { u < self.enter_bad };
        self.bad
    }
}

/// Counters of one direction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub packets: u64,
    pub bytes: u64,
    pub lost: u64,
    pub overflow: u64,
}

/// One direction: loss at its entrance, then a drop-tail queue in front of a wire of `rate`,
/// then the propagation delay.
pub struct Shaper {
    one_way: Duration,
    /// ± this much on each packet's delay, from a stream of its own (so jitter never changes
    /// which packets the loss model drops).
    jitter: Option<(Duration, SmallRng)>,
    /// Nanoseconds of wire time per byte (`None`: no rate).
    ns_per_byte: Option<f64>,
    queue: usize,
    loss: Loss,
    /// When the wire finishes sending each packet still queued or on it.
    on_wire: VecDeque<Instant>,
    pub counters: Counters,
}

impl Shaper {
    pub fn new(spec: &NetSpec, seed: u64) -> Self {
        Shaper {
            one_way: spec.one_way(),
            jitter: (spec.jitter_ms > 0.0)
                .then(|| (Duration::from_secs_f64(spec.jitter_ms / 1e3), SmallRng::seed_from_u64(seed ^ 0x6a17))),
            ns_per_byte: spec.rate_mbit.map(|m| 8e3 / m),
            queue: spec.queue,
            loss: Loss::new(spec.loss, spec.burst, seed),
            on_wire: VecDeque::new(),
            counters: Counters::default(),
        }
    }

    /// The fate of a packet of `len` bytes arriving at `now` (arrivals in time order).
    pub fn admit(&mut self, now: Instant, len: usize) -> Fate {
        self.counters.packets += 1;
        if self.loss.next_lost() {
            self.counters.lost += 1;
            return Fate::Lost;
        }
        let Some(ns_per_byte) = self.ns_per_byte else {
            self.counters.bytes += len as u64;
            return Fate::Deliver(now + self.delay());
        };
        while self.on_wire.front().is_some_and(|&done| done <= now) {
            self.on_wire.pop_front();
        }
        if self.on_wire.len() >= self.queue {
            self.counters.overflow += 1;
            return Fate::Overflow;
        }
        let start = self.on_wire.back().copied().map_or(now, |busy| busy.max(now));
        let done = start + Duration::from_nanos((len as f64 * ns_per_byte).round() as u64);
        self.on_wire.push_back(done);
        self.counters.bytes += len as u64;
        Fate::Deliver(done + self.delay())
    }

    /// This packet's propagation delay: half the round trip, ± the jitter (uniform), so a later
    /// packet can leave before an earlier one, as on a path whose queues vary.
    fn delay(&mut self) -> Duration {
        match &mut self.jitter {
            None => self.one_way,
            Some((j, rng)) => {
                let offset = (rng.random::<f64>() * 2.0 - 1.0) * j.as_secs_f64();
                Duration::from_secs_f64((self.one_way.as_secs_f64() + offset).max(0.0))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> NetSpec {
        s.parse().unwrap()
    }

    #[test]
    fn a_packet_waits_half_the_round_trip() {
        let mut s = Shaper::new(&spec("rtt=50ms"), 1);
        let t = Instant::now();
        assert_eq!(s.admit(t, 1500), Fate::Deliver(t + Duration::from_millis(25)));
        assert_eq!(s.counters, Counters { packets: 1, bytes: 1500, lost: 0, overflow: 0 });
    }

    #[test]
    fn the_rate_serialises_packets_and_a_full_queue_drops_the_newest() {
        // 12 Mbit/s: a 1500-byte packet takes 1 ms on the wire.
        let mut s = Shaper::new(&spec("rtt=10ms,rate=12mbit,queue=2"), 1);
        let t = Instant::now();
        let ms = Duration::from_millis;
        assert_eq!(s.admit(t, 1500), Fate::Deliver(t + ms(1) + ms(5)));
        assert_eq!(s.admit(t, 1500), Fate::Deliver(t + ms(2) + ms(5)));
        assert_eq!(s.admit(t, 1500), Fate::Overflow);
        // Once the first has left the wire there is room again, behind the second.
        assert_eq!(s.admit(t + ms(1), 1500), Fate::Deliver(t + ms(3) + ms(5)));
        // An idle wire starts at once.
        assert_eq!(s.admit(t + ms(10), 750), Fate::Deliver(t + ms(10) + Duration::from_micros(500) + ms(5)));
        assert_eq!(s.counters.overflow, 1);
    }

    #[test]
    fn jitter_spreads_delays_around_half_the_round_trip_and_reorders() {
        let mut s = Shaper::new(&spec("rtt=20ms,jitter=5ms"), 7);
        let t = Instant::now();
        let dues: Vec<Duration> = (0..10_000)
            .map(|i| {
                let at = t + Duration::from_micros(i * 100);
                match s.admit(at, 100) {
                    Fate::Deliver(due) => due - at,
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        let ms = |d: &Duration| d.as_secs_f64() * 1e3;
        assert!(dues.iter().all(|d| (5.0..=15.0).contains(&ms(d))), "every delay within 10 ± 5 ms");
        let mean = dues.iter().map(ms).sum::<f64>() / dues.len() as f64;
        assert!((mean - 10.0).abs() < 0.2, "mean delay {mean} ms");
        // 0.1 ms apart with up to 10 ms of spread: many packets overtake their predecessor.
        let overtaken = (1..dues.len()).filter(|&i| ms(&dues[i]) + 0.1 < ms(&dues[i - 1])).count();
        assert!(overtaken > 1000, "{overtaken} reorderings");
    }

    /// Runs of consecutive losses: (lost, total, mean run length).
    fn runs(loss: f64, burst: f64, n: usize) -> (usize, usize, f64) {
        let mut l = Loss::new(loss, burst, 42);
        let (mut lost, mut runs, mut prev) = (0, 0, false);
        for _ in 0..n {
            let now = l.next_lost();
            lost += now as usize;
            runs += (now && !prev) as usize;
            prev = now;
        }
        (lost, n, lost as f64 / runs.max(1) as f64)
    }

    #[test]
    fn loss_is_the_setting_in_the_long_run_independent_or_in_bursts() {
        for burst in [1.0, 4.0] {
            let (lost, n, mean_run) = runs(0.01, burst, 2_000_000);
            let p = lost as f64 / n as f64;
            // The standard error at burst 4 is about twice the independent case's (runs
            // cluster): 5 independent standard errors stay clear of it either way.
            let se = (0.01 * 0.99 / n as f64).sqrt() * burst.sqrt();
            assert!((p - 0.01).abs() < 5.0 * se, "burst {burst}: observed loss {p}");
            let wanted = if burst == 1.0 { 1.0 / 0.99 } else { burst };
            assert!((mean_run - wanted).abs() < 0.1 * wanted, "burst {burst}: mean run {mean_run}");
        }
        assert_eq!(runs(0.0, 1.0, 10_000).0, 0);
    }
}
