//! A worker's share of a load split over N workers (`--worker i/N`): connections, requests and an
//! open-model rate divided so that shares differ by at most one and add up to the whole.

use std::fmt;
use std::str::FromStr;

use crate::runner::{Plan, Stop};
use crate::suite::{Dialect, Knob};

/// Worker `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerShare {
    pub index: u32,
    pub count: u32,
}

impl WorkerShare {
    /// This worker's part of `total` whole things: `total / count`, one more for the first
    /// `total % count` workers.
    pub fn of(&self, total: u64) -> u64 {
        let (count, index) = (u64::from(self.count), u64::from(self.index));
        total / count + u64::from(index < total % count)
    }

    /// This worker's part of a rate: an equal one.
    pub fn of_rate(&self, rate: f64) -> f64 {
        rate / f64::from(self.count)
    }

    /// This worker's part of a load: its share of the connections, of the requests (a duration
    /// is every worker's), and of the rate; streams per connection are each connection's.
    pub fn of_plan(&self, whole: &Plan) -> Plan {
        Plan {
            connections: self.of(u64::from(whole.connections)) as u32,
            streams: whole.streams,
            stop: match whole.stop {
                Stop::Requests(n) => Stop::Requests(self.of(n)),
                duration => duration,
            },
            rate: whole.rate.map(|r| self.of_rate(r)),
            cap: whole.cap,
        }
    }
}

impl WorkerShare {
    /// `of_plan` for `wirebench load --worker`, which must get some of the load: an error
    /// naming the flag when this worker's share has no connection or no request.
    pub fn plan_of(&self, whole: &Plan) -> Result<Plan, String> {
        let plan = self.of_plan(whole);
        let flag = |k: Knob| k.name(Dialect::Flags);
        if plan.connections == 0 {
            let c = flag(Knob::CONNECTIONS);
            return Err(format!(
                "--worker {self}: {c} {} gives this worker no connection (use {c} {} or more)",
                whole.connections, self.count
            ));
        }
        if let (Stop::Requests(0), Stop::Requests(n)) = (plan.stop, whole.stop) {
            return Err(format!("--worker {self}: {} {n} gives this worker no request", flag(Knob::REQUESTS)));
        }
        Ok(plan)
    }
}

impl FromStr for WorkerShare {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("`{s}`: expected I/N with 0 <= I < N, e.g. 0/2");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(WorkerShare { index, count })
    }
}

impl fmt::Display for WorkerShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_differ_by_at_most_one_and_add_up() {
        for count in 1..=17u32 {
            for total in [0u64, 1, 5, 16, 17, 100, 1_000_003] {
                let shares: Vec<u64> = (0..count).map(|index| WorkerShare { index, count }.of(total)).collect();
                assert_eq!(shares.iter().sum::<u64>(), total, "{total} over {count}");
                let (lo, hi) = (shares.iter().min().unwrap(), shares.iter().max().unwrap());
                assert!(hi - lo <= 1, "{total} over {count}: {shares:?}");
            }
        }
        assert_eq!(WorkerShare { index: 1, count: 4 }.of_rate(1000.0), 250.0);
    }

    #[test]
    fn a_plan_is_shared_by_connections_requests_and_rate_but_not_duration() {
        let whole = Plan { connections: 5, streams: 4, stop: Stop::Requests(6001), rate: Some(900.0), cap: None };
        let shares: Vec<Plan> = (0..2).map(|index| WorkerShare { index, count: 2 }.of_plan(&whole)).collect();
        assert_eq!(shares.iter().map(|p| p.connections).collect::<Vec<_>>(), [3, 2]);
        assert_eq!(shares.iter().map(|p| p.stop).collect::<Vec<_>>(), [Stop::Requests(3001), Stop::Requests(3000)]);
        assert!(shares.iter().all(|p| p.streams == 4 && p.rate == Some(450.0)));
        let timed = Plan { stop: Stop::Duration(std::time::Duration::from_secs(30)), ..whole };
        assert_eq!(
            WorkerShare { index: 1, count: 3 }.of_plan(&timed).stop,
            timed.stop,
            "each worker runs the whole time"
        );
    }

    #[test]
    fn a_share_is_read_as_i_of_n() {
        assert_eq!("1/4".parse::<WorkerShare>(), Ok(WorkerShare { index: 1, count: 4 }));
        assert_eq!("1/4".parse::<WorkerShare>().unwrap().to_string(), "1/4");
        for bad in ["4/4", "0/0", "1", "a/2", "-1/2", "1/2/3"] {
            assert!(bad.parse::<WorkerShare>().is_err(), "{bad}");
        }
    }
}
