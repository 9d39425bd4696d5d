//! Contention: the CPU time that processes outside the run took on the run's CPUs while a repeat
//! was measured. Each CPU's busy time comes from `/proc/stat` (user, nice and system: interrupt
//! and softirq time belongs to no process, and loopback traffic puts the run's own there), the
//! run's from its process tree (the runner with the load engine, every subject, service and
//! harness below it); what is left on the subject's CPUs or the load's is foreign. A repeat whose
//! foreign share of either set, or whose steal (a hypervisor's other guests), passes
//! `CONTENDED_SHARE` is contended: measured again, and never part of a verdict
//! (docs/METHODOLOGY.md, "Contention").

use std::time::Instant;

use crate::schema::{CpuSets, Metrics};

/// A share of a CPU set's time above which foreign work or steal makes a repeat contended.
/// Measured on a 2-core VM (docs/METHODOLOGY.md, "Contention"; `bench/reproduce` on protocols
/// `brief`): 498 idle repeats took 0–10 % (the highest mostly the hypervisor's steal), 747
/// repeats beside one busy process on the subject's CPU 23–100 %; 15 % lies between with room.
pub const CONTENDED_SHARE: f64 = 0.15;

/// The shortest repeat whose contention is judged: the counters tick every 10 ms, so over a
/// shorter window one stray tick is a large share (a smoke profile's 3 ms repeat read 300 %).
/// Shorter repeats record their foreign time and are not judged.
pub const JUDGED_FROM_S: f64 = 0.2;

/// Cumulative ticks of each CPU (by its number): busy (user + nice + system) and stolen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CpuTicks {
    pub busy: Vec<u64>,
    pub steal: Vec<u64>,
}

/// Reads the per-CPU lines (`cpu0 user nice system idle iowait irq softirq steal …`) of
/// `/proc/stat`'s text; a CPU missing from the text has no ticks.
pub fn parse_proc_stat(text: &str) -> CpuTicks {
    let mut ticks = CpuTicks::default();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let Some(cpu) = fields.next().and_then(|f| f.strip_prefix("cpu")).and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        let n: Vec<u64> = fields.filter_map(|f| f.parse().ok()).collect();
        if n.len() < 3 {
            continue;
        }
        if ticks.busy.len() <= cpu {
            ticks.busy.resize(cpu + 1, 0);
            ticks.steal.resize(cpu + 1, 0);
        }
        ticks.busy[cpu] = n[0] + n[1] + n[2];
        ticks.steal[cpu] = n.get(7).copied().unwrap_or(0);
    }
    ticks
}

/// This machine's ticks now.
pub fn read() -> Option<CpuTicks> {
    std::fs::read_to_string("/proc/stat").ok().map(|t| parse_proc_stat(&t))
}

/// What foreign work took during one repeat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Foreign {
    /// CPU seconds of processes outside the run on the run's CPUs (subject's and load's).
    pub cpu_s: f64,
    /// Seconds the hypervisor gave the run's CPUs to others.
    pub steal_s: f64,
    /// The larger of the subject's and the load's CPUs' share taken by foreign work or steal.
    pub share: f64,
    /// The window's length.
    pub secs: f64,
}

impl Foreign {
    /// Whether foreign work took more than `CONTENDED_SHARE`; `None` for a window too short to
    /// judge (`JUDGED_FROM_S`).
    pub fn contended(&self) -> Option<bool> {
        (self.secs >= JUDGED_FROM_S).then_some(self.share > CONTENDED_SHARE)
    }

    /// Stamps what was sensed on a repeat's metrics.
    pub fn stamp(&self, m: &mut Metrics) {
        m.foreign_cpu_s = Some(self.cpu_s);
        m.steal_cpu_s = Some(self.steal_s);
        m.foreign_share = Some(self.share);
        m.contended = self.contended();
    }
}

/// The arithmetic: `busy` and `steal` are each CPU's ticks during the repeat, `tree_s` the CPU
/// seconds of the whole run's processes, `own_s` the runner's (the load engine's, on the load
/// CPUs), `secs` the repeat's length. With disjoint subject and load sets, the subject's CPUs'
/// foreign time is their busy time less the run's other processes' (subjects, services,
/// harnesses, pinned there), the load's less the runner's; otherwise the sets count as one.
pub fn foreign(
    cpus: &CpuSets,
    busy: &[u64],
    steal: &[u64],
    ticks_per_s: f64,
    tree_s: f64,
    own_s: f64,
    secs: f64,
) -> Foreign {
    let all: Vec<usize> = (0..busy.len()).collect();
    let sum = |of: &[u64], set: &[usize]| {
        set.iter().map(|&c| of.get(c).copied().unwrap_or(0)).sum::<u64>() as f64 / ticks_per_s
    };
    let disjoint =
        !cpus.subject.is_empty() && !cpus.load.is_empty() && cpus.subject.iter().all(|c| !cpus.load.contains(c));
    let sets: Vec<(Vec<usize>, f64)> = if disjoint {
        vec![(cpus.subject.clone(), tree_s - own_s), (cpus.load.clone(), own_s)]
    } else {
        let union = cpus.union();
        vec![(if union.is_empty() { all } else { union }, tree_s)]
    };
    let (mut cpu_s, mut steal_s, mut share) = (0.0, 0.0, 0.0f64);
    for (set, own) in &sets {
        // Both counts are whole ticks (10 ms): a tick or two of each CPU is rounding, not work.
        let rounding = 2.0 * set.len() as f64 / ticks_per_s;
        let foreign = (sum(busy, set) - own - rounding).max(0.0);
        let stolen = sum(steal, set);
        let capacity = secs * set.len() as f64;
        if capacity > 0.0 {
            share = share.max((foreign + stolen) / capacity);
        }
        cpu_s += foreign;
        steal_s += stolen;
    }
    Foreign { cpu_s, steal_s, share, secs }
}

/// How the runner senses contention during a repeat.
#[derive(Debug, Clone, Copy)]
pub enum Sensor {
    /// From `/proc/stat` and the run's processes (`Probe`).
    Proc,
    /// Not at all.
    Off,
    /// Whatever the function answers for each repeat, in order (tests).
    Fixed(fn() -> Option<Foreign>),
}

/// A repeat being watched by a `Sensor`.
pub enum Watch {
    Probe(Probe),
    Off,
    Fixed(Option<Foreign>),
}

impl Sensor {
    /// Starts watching a repeat; `also` are processes the run did not start whose work is still
    /// the run's (URL subjects on this machine whose suite gave their pid).
    pub fn watch(self, also: &[u32]) -> Watch {
        match self {
            Sensor::Proc => Probe::start(also).map_or(Watch::Off, Watch::Probe),
            Sensor::Off => Watch::Off,
            Sensor::Fixed(f) => Watch::Fixed(f()),
        }
    }
}

impl Watch {
    /// What foreign work took on `cpus` during the repeat, if sensed.
    pub fn finish(self, cpus: &CpuSets) -> Option<Foreign> {
        match self {
            Watch::Probe(p) => p.finish(cpus),
            Watch::Off => None,
            Watch::Fixed(f) => f,
        }
    }
}

/// A repeat being watched: the ticks and the run's CPU when it started.
pub struct Probe {
    also: Vec<u32>,
    ticks: CpuTicks,
    tree_s: f64,
    own_s: f64,
    started: Instant,
}

impl Probe {
    /// Starts watching, counting `also` (and the processes below them) as the run's; `None`
    /// where `/proc/stat` cannot be read.
    pub fn start(also: &[u32]) -> Option<Probe> {
        let ticks = read()?;
        let tree_s = run_cpu_s(also);
        Some(Probe { also: also.to_vec(), ticks, tree_s, own_s: crate::machine::own_cpu_s(), started: Instant::now() })
    }

    /// What foreign work took on `cpus` since the probe started.
    pub fn finish(self, cpus: &CpuSets) -> Option<Foreign> {
        let now = read()?;
        let secs = self.started.elapsed().as_secs_f64();
        let delta = |a: &[u64], b: &[u64]| {
            a.iter().enumerate().map(|(i, &x)| x.saturating_sub(b.get(i).copied().unwrap_or(0))).collect::<Vec<_>>()
        };
        let busy = delta(&now.busy, &self.ticks.busy);
        let steal = delta(&now.steal, &self.ticks.steal);
        let tree_s = run_cpu_s(&self.also) - self.tree_s;
        let own_s = crate::machine::own_cpu_s() - self.own_s;
        Some(foreign(cpus, &busy, &steal, crate::machine::clock_ticks(), tree_s, own_s, secs))
    }
}

/// CPU seconds of the run's processes: this one and every process below it, and `also` with
/// theirs, each with the children it has waited for, so a process that ran and exited inside a
/// window (a harness's compiler or launcher) stays the run's: idle formats runs flagged 23
/// harness lines each while only the live processes counted.
fn run_cpu_s(also: &[u32]) -> f64 {
    let mut tree = crate::machine::process_tree(std::process::id());
    for &root in also {
        tree.extend(crate::machine::process_tree(root));
    }
    tree.iter().filter_map(|&p| crate::machine::process_cpu_with_children_s(p)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two CPUs as /proc/stat prints them: `cpu` (the total, skipped), then one line each.
    fn stat(cpu0: [u64; 8], cpu1: [u64; 8]) -> String {
        let line = |n: &str, f: [u64; 8]| format!("{n} {}\n", f.map(|x| x.to_string()).join(" "));
        format!("{}{}{}intr 1 2 3\n", line("cpu", [9; 8]), line("cpu0", cpu0), line("cpu1", cpu1))
    }

    #[test]
    fn proc_stat_gives_busy_and_steal_ticks_per_cpu() {
        let t = parse_proc_stat(&stat([100, 5, 20, 900, 3, 1, 7, 2], [10, 0, 4, 50, 0, 0, 0, 0]));
        assert_eq!(t.busy, [125, 14], "user + nice + system; interrupts and idle are not busy");
        assert_eq!(t.steal, [2, 0]);
        assert_eq!(parse_proc_stat("cpu 1 2 3\n").busy, Vec::<u64>::new());
    }

    #[test]
    fn foreign_time_is_each_sets_busy_time_less_the_runs_own() {
        let pinned = CpuSets { subject: vec![0], load: vec![1] };
        // 1 s at 100 ticks/s: the subject's CPU busy 95 ticks, the run's subjects used 0.90 s;
        // the load's CPU busy 80, the runner 0.75 s: 5 and 5 ticks foreign, less 2 of rounding.
        let idle = foreign(&pinned, &[95, 80], &[0, 0], 100.0, 1.65, 0.75, 1.0);
        assert!((idle.cpu_s - 0.06).abs() < 1e-9 && (idle.share - 0.03).abs() < 1e-9, "{idle:?}");
        assert_eq!(idle.contended(), Some(false));
        // Two ticks per CPU are rounding: no foreign work.
        assert!(foreign(&pinned, &[95, 80], &[0, 0], 100.0, 0.94 + 0.79, 0.79, 1.0).cpu_s < 1e-9);
        // A busy process on the subject's CPU: it is busy all along, the subject got half.
        let hog = foreign(&pinned, &[100, 80], &[0, 0], 100.0, 0.5 + 0.78, 0.78, 1.0);
        assert!((hog.share - 0.48).abs() < 1e-9 && hog.contended() == Some(true), "{hog:?}");
        // Over 3 ms one tick is 300 %: too short a window to judge.
        let short = foreign(&pinned, &[3, 0], &[0, 0], 100.0, 0.0, 0.0, 0.003);
        assert_eq!(short.contended(), None, "{short:?}");
        // The same busy process on the load's CPU is the load's contention, not the subject's.
        let on_load = foreign(&pinned, &[50, 100], &[0, 0], 100.0, 0.5 + 0.5, 0.5, 1.0);
        assert!((on_load.share - 0.48).abs() < 1e-9, "{on_load:?}");
        // Steal counts as contention though no process of this machine took the time.
        let stolen = foreign(&pinned, &[90, 80], &[20, 0], 100.0, 0.9 + 0.8, 0.8, 1.0);
        assert_eq!((stolen.cpu_s, stolen.steal_s), (0.0, 0.2));
        assert_eq!(stolen.contended(), Some(true));
        // A harness watches the subject's CPUs alone, where it runs: a busy load CPU is not its.
        let subject_only = CpuSets { subject: vec![0], load: vec![] };
        assert!(foreign(&subject_only, &[80, 100], &[0, 0], 100.0, 0.78, 0.0, 1.0).cpu_s < 1e-9);
        // Unpinned, the machine is one set: 2 CPUs for 1 s, 0.3 s foreign less 4 ticks.
        let unpinned = foreign(&CpuSets::default(), &[100, 100], &[0, 0], 100.0, 1.7, 1.0, 1.0);
        assert!((unpinned.share - 0.13).abs() < 1e-9, "{unpinned:?}");
        // The run's own time beyond its CPUs' busy time (rounding to ticks) is not negative foreign time.
        assert_eq!(foreign(&pinned, &[10, 10], &[0, 0], 100.0, 0.5, 0.2, 1.0).cpu_s, 0.0);
    }

    #[test]
    fn a_process_counts_the_children_it_waited_for() {
        // pid (comm with spaces) state ppid ... utime=7 stime=3 cutime=20 cstime=5 ...
        let stat = "42 (my harness) S 1 42 42 0 -1 4194304 100 0 0 0 7 3 20 5 20 0 1 0 100 1000 10";
        assert_eq!(crate::machine::stat_ticks(stat, 11..15), Some(35));
        assert_eq!(crate::machine::stat_ticks(stat, 11..13), Some(10), "without the children");
        assert_eq!(crate::machine::stat_ticks("42 (x) S 1", 11..15), None);
    }

    #[test]
    fn a_probe_of_this_process_sees_little_foreign_work_on_an_idle_wait() {
        let Some(probe) = Probe::start(&[]) else { return };
        std::thread::sleep(std::time::Duration::from_millis(50));
        let f = probe.finish(&CpuSets::default()).unwrap();
        assert!(f.share >= 0.0 && f.cpu_s >= 0.0 && f.steal_s >= 0.0, "{f:?}");
    }
}
