//! A probe load's cap (`Plan::cap`, read by `wirebench_core::bottleneck`): in every other slice
//! each load thread may use `keep` of the slice's CPU time, as a CFS quota would allow it
//! (`bench/bottleneck`'s cgroup cap, without cgroups or root): in each of the slice's first two
//! `PERIOD`s, once it has used its quota, it leaves its CPU until the period ends. The third
//! period has no quota, so that what a pause held back is read in the slice that held it: a
//! pause that ended with the slice left the subject's answers in the socket for the next, free,
//! slice to read, and an HTTP/1.1+TLS row the subject paced read 0.90–0.93× in capped slices.
//! Each thread counts the bytes it moved per slice, so the runner can see whether a tenth less
//! of the instrument's CPU costs the row a tenth of its traffic.
//!
//! A quota and not a pause: a pause of a tenth of each period also stalls a client with CPU to
//! spare, and asks whether the row depends on the client's promptness, which bulk streams do
//! (SSE's 10 events of 1 MB moved 0.49–0.63× the bytes in paused slices, 2 × AMD EPYC VM).
//!
//! Bytes and not answers: a 1 MB row answers 20–30 times in a slice, too few to tell a tenth
//! from counting noise (SSE's 10 events of 1 MB: 6 times), while its bytes arrive a read at a
//! time. The throttle is checked at every read and write of the thread's connections (TCP's
//! `io::Counted`, QUIC's datagrams): checked at completions alone, a gRPC+TLS 1 MB client busy
//! 90–99 % of the time slept 0.4–2 % of its capped slices (a completion a millisecond, and the
//! CPU before a period's first one uncounted) and was cleared where a cgroup cap of 90 % cost it
//! 12 % of its req/s.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use wirebench_core::bottleneck::SLICE;
use wirebench_core::machine::thread_cpu;

/// The quota's period: `bench/bottleneck`'s CFS period. Three make a slice.
const PERIOD: Duration = Duration::from_millis(10);
/// Periods of a capped slice under the quota, the first ones.
const QUOTA_PERIODS: u32 = 2;
/// The thread's CPU clock is a system call (no vDSO path): read at most this often, so a probe's
/// client costs what the measured one did, and its quota is kept to within this much.
const CHECK: Duration = Duration::from_micros(250);

thread_local! {
    /// This load thread's throttle while it runs a probe load: every read and write of its
    /// connections (`io::Counted`, the http3 driver's datagrams) checks it.
    static CURRENT: RefCell<Option<Rc<Throttle>>> = const { RefCell::new(None) };
}

/// Makes `throttle` this thread's (`None` ends it).
pub(crate) fn install(throttle: Option<Rc<Throttle>>) {
    CURRENT.with(|c| *c.borrow_mut() = throttle);
}

/// A read or write moved bytes: the thread's counters now hold `moved` (sent and received).
pub(crate) fn on_io(moved: u64) {
    CURRENT.with(|c| {
        if let Some(t) = c.borrow().as_ref() {
            t.check(Instant::now(), moved);
        }
    });
}

/// One load thread's cap: its load's start, the period it is in and its CPU when that began, how
/// long it has paused in all, and the bytes its counters held at each slice's last check.
pub(crate) struct Throttle {
    keep: f64,
    start: Instant,
    last_cpu_read: Cell<Option<Instant>>,
    /// (index of the period since the start, the thread's CPU when it was first read in it).
    period: Cell<(u128, Duration)>,
    paused: Cell<Duration>,
    moved: RefCell<Vec<Option<u64>>>,
}

impl Throttle {
    /// The thread's throttle for a plan's cap (`None` for a load that is measured), its load
    /// started at `start`.
    pub(crate) fn new(cap: Option<f64>, start: Instant) -> Option<Rc<Throttle>> {
        cap.map(|keep| {
            Rc::new(Throttle {
                keep,
                start,
                last_cpu_read: Cell::new(None),
                period: Cell::new((u128::MAX, Duration::ZERO)),
                paused: Cell::new(Duration::ZERO),
                moved: RefCell::new(Vec::new()),
            })
        })
    }

    /// At `now` the thread's counters hold `moved` bytes: noted for the slice, and in the first
    /// periods of a capped (odd) slice, once the thread has used its quota of the period's time on
    /// its CPU, it is blocked, and with it every connection it drives, until the period ends. The
    /// CPU clock is read in free slices too, so that its cost falls on both alike.
    pub(crate) fn check(&self, now: Instant, moved: u64) {
        let since = now.saturating_duration_since(self.start).as_nanos();
        let slice = (since / SLICE.as_nanos()) as usize;
        {
            let mut m = self.moved.borrow_mut();
            if m.len() <= slice {
                m.resize(slice + 1, None);
            }
            m[slice] = Some(moved);
        }
        let index = since / PERIOD.as_nanos();
        let (current, at) = self.period.get();
        let fresh = index != current;
        if !fresh && self.last_cpu_read.get().is_some_and(|t| now.saturating_duration_since(t) < CHECK) {
            return;
        }
        self.last_cpu_read.set(Some(now));
        let cpu = thread_cpu();
        if fresh {
            // The first read in a period comes at most `CHECK` after it began on a busy thread
            // (an idle one used no CPU meanwhile).
            self.period.set((index, cpu));
            return;
        }
        let quota_period =
            index % u128::from(SLICE.as_nanos() as u64 / PERIOD.as_nanos() as u64) < QUOTA_PERIODS.into();
        if slice.is_multiple_of(2) || !quota_period || cpu.saturating_sub(at) < self.quota() {
            return;
        }
        let end = self.start + PERIOD * (index as u32 + 1);
        std::thread::sleep(end.saturating_duration_since(now));
        self.paused.set(self.paused.get() + now.elapsed());
        // Until the next period, which the next check finds.
        self.period.set((index, Duration::MAX / 2));
    }

    /// The CPU a quota period allows: the slice keeps `keep` of its time, all of it lost in the
    /// quota periods.
    fn quota(&self) -> Duration {
        let slice_periods = (SLICE.as_nanos() / PERIOD.as_nanos()) as f64;
        PERIOD.mul_f64((1.0 - (1.0 - self.keep) * slice_periods / f64::from(QUOTA_PERIODS)).max(0.0))
    }

    /// How long the thread paused, and the bytes it moved in each slice (a slice without a
    /// check moved none by this count; the next one's carries its bytes).
    pub(crate) fn finish(&self) -> (Duration, Vec<u64>) {
        let mut before = 0;
        let per_slice = (self.moved.borrow().iter())
            .map(|m| m.map_or(0, |total| total.saturating_sub(std::mem::replace(&mut before, total))))
            .collect();
        (self.paused.get(), per_slice)
    }
}

/// The time a load of `duration` spent in capped (odd) slices.
pub(crate) fn capped_time(duration: Duration) -> Duration {
    let whole = (duration.as_nanos() / SLICE.as_nanos()) as u32;
    let last = duration - SLICE * whole;
    SLICE * (whole / 2) + if whole % 2 == 1 { last } else { Duration::ZERO }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_slices_are_the_odd_ones() {
        assert_eq!(capped_time(SLICE * 5 / 2), SLICE);
        assert_eq!(capped_time(SLICE * 7 / 2), SLICE * 3 / 2);
        assert_eq!(capped_time(SLICE * 150), SLICE * 75);
    }

    /// Spins on this thread's CPU for `d`.
    fn spin(d: Duration) {
        let until = thread_cpu() + d;
        while thread_cpu() < until {}
    }

    #[test]
    fn a_thread_that_used_its_quota_in_a_capped_slice_waits_for_the_period_and_one_in_a_free_one_does_not() {
        // The checks' times are made up (the thread's CPU is not): each call below falls in the
        // period it names, however long the spinning took. The start is in the past, so that
        // each made-up time is too, and a pause's length from it positive.
        let start = Instant::now() - 10 * PERIOD;
        let throttle = Throttle::new(Some(0.9), start).unwrap();
        assert_eq!(throttle.quota(), PERIOD.mul_f64(0.85), "a tenth of the slice's time, in two of its periods");
        let at = |period: u32, us: u64| start + PERIOD * period + Duration::from_micros(us);
        // Free slice 0, period 0: the thread spins through the quota and goes on.
        throttle.check(at(0, 0), 0);
        spin(PERIOD);
        throttle.check(at(0, 5000), 100);
        assert_eq!(throttle.paused.get(), Duration::ZERO);
        // Capped slice 1 (periods 3 to 5), period 3: under the quota, no pause; through it, a
        // sleep to the period's end, 9 ms past the made-up time of the call.
        throttle.check(at(3, 0), 100);
        throttle.check(at(3, 1000), 100);
        assert_eq!(throttle.paused.get(), Duration::ZERO);
        spin(PERIOD);
        // Within `CHECK` of the last read of the CPU clock: not read again.
        throttle.check(at(3, 1100), 110);
        assert_eq!(throttle.paused.get(), Duration::ZERO);
        throttle.check(at(3, 1300), 130);
        let paused = throttle.paused.get();
        assert!(paused >= PERIOD / 2, "{paused:?}");
        // Once paused, not again in the same period.
        throttle.check(at(3, 2000), 130);
        assert_eq!(throttle.paused.get(), paused);
        // The slice's third period has no quota: what the pauses held back is read in it.
        throttle.check(at(5, 0), 130);
        spin(PERIOD);
        throttle.check(at(5, 1000), 130);
        assert_eq!(throttle.paused.get(), paused);
        assert_eq!(throttle.finish(), (paused, vec![100, 30]));
    }

    #[test]
    fn a_slice_without_a_check_moved_nothing_by_the_count_and_the_next_carries_its_bytes() {
        let start = Instant::now() - 4 * SLICE;
        let throttle = Throttle::new(Some(0.9), start).unwrap();
        throttle.check(start + SLICE / 4, 100);
        throttle.check(start + 3 * SLICE - PERIOD, 500);
        assert_eq!(throttle.finish().1, vec![100, 0, 400]);
    }

    #[test]
    fn reads_and_writes_check_the_installed_throttle_only() {
        on_io(7); // none installed: nothing to do
        let throttle = Throttle::new(Some(0.9), Instant::now()).unwrap();
        install(Some(throttle.clone()));
        on_io(40);
        install(None);
        on_io(90);
        assert_eq!(throttle.finish().1, vec![40]);
    }
}
