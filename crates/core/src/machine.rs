//! The machine: what it is (for run.json), how its CPUs are split between subject and load
//! engine, and what a process costs (CPU time and resident memory read from `/proc`).

use crate::schema::{CpuSets, Machine};

#[derive(Debug, thiserror::Error)]
pub enum CpuError {
    #[error("--cpus `{0}`: expected e.g. `subject=0,load=1` or `subject=0-1,load=2-3` or `none`")]
    Syntax(String),
    #[error("--cpus: CPU {0} is not available to this process (available: {1:?})")]
    Unavailable(usize, Vec<usize>),
    #[error("cannot pin to CPUs {0:?}: {1}")]
    Pin(Vec<usize>, std::io::Error),
}

/// Describes this machine from `/proc` and `uname`.
pub fn describe() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string()))
        .unwrap_or_else(|| "unknown".into());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory_kb = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    let os = std::fs::read_to_string("/etc/os-release")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME=").map(|v| v.trim_matches('"').to_string()))
        .unwrap_or_else(|| std::env::consts::OS.into());
    Machine { cpu_model, cores: machine_cores(), kernel: kernel(), os, memory_kb }
}

/// CPUs the machine has online, whatever this process is pinned to (the runner pins itself to
/// the load CPUs before it describes the machine).
fn machine_cores() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        online_cpus().len()
    }
}

fn kernel() -> String {
    // SAFETY: uname fills a zeroed struct of C strings.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return "unknown".into();
        }
        let s = |f: &[libc::c_char]| std::ffi::CStr::from_ptr(f.as_ptr()).to_string_lossy().into_owned();
        format!("{} {} {}", s(&u.sysname), s(&u.release), s(&u.machine))
    }
}

/// CPUs this process may run on.
pub fn online_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity writes into a zeroed cpu_set_t of the size we pass.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

/// The CPU split: `spec` as given to `--cpus`, or by default the first half of the available
/// CPUs for the subject and the rest for the load engine (on 2 cores: one each). One CPU: none.
pub fn cpu_sets(spec: Option<&str>) -> Result<CpuSets, CpuError> {
    let online = online_cpus();
    let Some(spec) = spec else {
        if online.len() < 2 {
            return Ok(CpuSets::default());
        }
        let half = online.len() / 2;
        return Ok(CpuSets { subject: online[..half].to_vec(), load: online[half..].to_vec() });
    };
    if spec == "none" {
        return Ok(CpuSets::default());
    }
    let syntax = || CpuError::Syntax(spec.to_string());
    let mut sets = CpuSets::default();
    let mut current: Option<&mut Vec<usize>> = None;
    for token in spec.split(',') {
        let list = match token.split_once('=') {
            Some(("subject", rest)) => {
                current = Some(&mut sets.subject);
                rest
            }
            Some(("load", rest)) => {
                current = Some(&mut sets.load);
                rest
            }
            Some(_) => return Err(syntax()),
            None => token,
        };
        let target = current.as_deref_mut().ok_or_else(syntax)?;
        let (a, b) = list.split_once('-').unwrap_or((list, list));
        let (a, b): (usize, usize) = (a.trim().parse().map_err(|_| syntax())?, b.trim().parse().map_err(|_| syntax())?);
        if a > b {
            return Err(syntax());
        }
        target.extend(a..=b);
    }
    if sets.subject.is_empty() || sets.load.is_empty() {
        return Err(syntax());
    }
    for &c in sets.subject.iter().chain(&sets.load) {
        if !online.contains(&c) {
            return Err(CpuError::Unavailable(c, online));
        }
    }
    Ok(sets)
}

/// Pins the calling thread (and threads and processes it creates later) to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> Result<(), CpuError> {
    if cpus.is_empty() {
        return Ok(());
    }
    // SAFETY: cpu_set_t is plain data; sched_setaffinity reads it.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        return Err(CpuError::Pin(cpus.to_vec(), std::io::Error::last_os_error()));
    }
    Ok(())
}

/// User + system CPU seconds of process `pid` (all its threads), from `/proc/<pid>/stat`.
pub fn process_cpu_s(pid: u32) -> Option<f64> {
    stat_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?, 11..13).map(|t| t as f64 / clock_ticks())
}

/// User + system CPU seconds of process `pid` and of the children it has waited for (utime,
/// stime, cutime and cstime).
pub fn process_cpu_with_children_s(pid: u32) -> Option<f64> {
    stat_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?, 11..15).map(|t| t as f64 / clock_ticks())
}

/// The sum of the tick fields `fields` of a `/proc/<pid>/stat` line, counted after the command
/// name (which may contain spaces; the fields after it are fixed): 11..13 is utime and stime.
pub(crate) fn stat_ticks(stat: &str, fields: std::ops::Range<usize>) -> Option<u64> {
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    fields.map(|i| f.get(i)?.parse::<u64>().ok()).sum()
}

/// Resident set of process `pid` in KiB, from `/proc/<pid>/status`.
pub fn process_rss_kb(pid: u32) -> Option<u64> {
    proc_kb(pid, "status", "VmRSS:")
}

/// Proportional set size of process `pid` in KiB, from `/proc/<pid>/smaps_rollup`: its resident
/// pages, each shared page divided by the number of processes that map it.
pub fn process_pss_kb(pid: u32) -> Option<u64> {
    proc_kb(pid, "smaps_rollup", "Pss:")
}

/// The `<key> <n> kB` line of `/proc/<pid>/<file>`, in KiB.
fn proc_kb(pid: u32, file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
    text.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Resident memory of a group of processes in KiB: a lone process's RSS; for several (PostgreSQL's
/// backends), the sum of their PSS, so the pages they share (the shared buffers, the server's
/// code) count once rather than once per process, as summed RSS would.
pub fn processes_memory_kb(pids: &[u32]) -> u64 {
    match pids {
        [] => 0,
        [pid] => process_rss_kb(*pid).unwrap_or(0),
        _ => pids.iter().map(|&p| process_pss_kb(p).or_else(|| process_rss_kb(p)).unwrap_or(0)).sum(),
    }
}

/// `pid` and every process below it, from `/proc/<pid>/task/*/children` (a server's workers:
/// PostgreSQL's backends, a forking broker). Empty when `pid` is gone.
pub fn process_tree(pid: u32) -> Vec<u32> {
    let mut tree = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else { continue };
        tree.push(p);
        for task in tasks.flatten() {
            let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            todo.extend(children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()));
        }
    }
    tree
}

/// CPU seconds used by this process so far (all threads).
pub fn own_cpu_s() -> f64 {
    // SAFETY: getrusage fills a zeroed struct.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        tv(u.ru_utime) + tv(u.ru_stime)
    }
}

/// CPU time the calling thread has used so far (a system call: `CLOCK_THREAD_CPUTIME_ID` has
/// no vDSO path).
pub fn thread_cpu() -> std::time::Duration {
    // SAFETY: clock_gettime fills a zeroed struct.
    unsafe {
        let mut t: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t);
        std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }
}

pub(crate) fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_spec_parses_lists_and_ranges() {
        let online = online_cpus();
        if online.len() >= 2 {
            let (a, b) = (online[0], online[1]);
            let s = cpu_sets(Some(&format!("subject={a},load={b}"))).unwrap();
            assert_eq!((s.subject, s.load), (vec![a], vec![b]));
            let d = cpu_sets(None).unwrap();
            assert!(!d.subject.is_empty() && !d.load.is_empty());
            assert!(d.subject.iter().all(|c| !d.load.contains(c)));
        }
        assert_eq!(cpu_sets(Some("none")).unwrap(), CpuSets::default());
        for bad in ["subject=", "load=1", "cpu=1,load=2", "subject=3-1,load=0", "subject=x,load=1"] {
            assert!(matches!(cpu_sets(Some(bad)), Err(CpuError::Syntax(_))), "{bad}");
        }
        assert!(matches!(cpu_sets(Some("subject=0,load=4000")), Err(CpuError::Unavailable(4000, _))));
    }

    #[test]
    fn proc_readings_of_this_process_are_plausible() {
        let pid = std::process::id();
        // Burn 50 ms of CPU (not wall time: the machine may be busy), bounded by a wall deadline.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while own_cpu_s() < 0.05 && std::time::Instant::now() < deadline {
            std::hint::black_box(0u64);
        }
        assert!(process_cpu_s(pid).unwrap() > 0.0);
        assert!(process_rss_kb(pid).unwrap() > 100);
        assert!(process_pss_kb(pid).unwrap() > 0);
        assert!(own_cpu_s() > 0.0);
        assert!(process_cpu_s(u32::MAX).is_none());
        let m = describe();
        assert!(m.cores >= online_cpus().len() && m.memory_kb > 0 && !m.kernel.is_empty());
    }

    #[test]
    fn pages_several_processes_share_count_once() {
        // Two copies of one program share its code and libc's: summed RSS counts those pages
        // twice, the processes' memory once.
        let mut children: Vec<_> =
            (0..2).map(|_| std::process::Command::new("sleep").arg("60").spawn().expect("sleep runs")).collect();
        let pids: Vec<u32> = children.iter().map(|c| c.id()).collect();
        // Read both figures only once each child sleeps in nanosleep: while it is still loading
        // libc its memory grows between the two reads.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while pids
            .iter()
            .any(|p| !std::fs::read_to_string(format!("/proc/{p}/wchan")).is_ok_and(|w| w.contains("nanosleep")))
        {
            assert!(std::time::Instant::now() < deadline, "sleep did not start within 20 s");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let summed_rss: u64 = pids.iter().map(|&p| process_rss_kb(p).unwrap()).sum();
        let together = processes_memory_kb(&pids);
        for c in &mut children {
            c.kill().ok();
            c.wait().ok();
        }
        assert!(together > 0 && together < summed_rss, "PSS sum {together} KiB, RSS sum {summed_rss} KiB");
        assert_eq!(processes_memory_kb(&[]), 0);
    }
}
