//! The speed of the run's CPUs: the same fixed work timed on each of them when the run starts
//! and when it ends. A guest of a shared host can run slower with nothing the kernel counts: no
//! process, no steal (another guest on the core's hyperthread, or the host's clock). On the 2-core
//! Intel VM of 2026-11-29 a fixed Python loop, run ten times on each CPU minutes apart, took
//! 0.94–1.07 s of CPU on CPU 0 and 0.97–1.70 s on CPU 1, while `/proc/stat` counted 0–0.04 s of
//! steal per 3-s repeat; a quick protocols run there flagged 58 of 95 rows noisy (10 on a steady
//! day) and no repeat contended. Contention (`contention.rs`) cannot see such a slowdown; a
//! probe of the CPUs' speed can, and the report warns (docs/METHODOLOGY.md, "The CPUs' speed").

use std::time::Instant;

use crate::schema::CpuProbe;

/// Slices of work per CPU and probe; the median slice stands for the CPU, so one slice a timer
/// interrupt or a kernel thread took does not move it.
pub const SLICES: usize = 8;

/// Slices run first and not timed. Right after the last subject stopped, the first slices of a
/// probe took up to 3.3× the later ones on both CPUs at once (27, 15, 12, 11, 9.6, 8.7, 8.3 ms
/// on the Intel VM): the CPUs coming back from idle, and the subjects' exit. Two slices cover it.
const WARM_UP: usize = 2;

/// Iterations of one slice: 8.3–9.5 ms on the steady probes of the 2-core Intel VM, so a probe
/// is about 90 ms per CPU with its warm-up, run on every CPU at once, twice a run.
const WORK: u64 = 4_000_000;

/// The slowest CPU's median slice over the fastest's above which the report says the machine ran
/// unsteadily: the share of a repeat above which foreign work makes it contended
/// (`contention::CONTENDED_SHARE`), as a slowdown, 1 / (1 − 0.15).
pub const UNSTEADY: f64 = 1.0 / (1.0 - crate::contention::CONTENDED_SHARE);

/// One slice: xorshift steps, each depending on the one before, so neither the compiler nor the
/// CPU can skip or overlap them.
fn slice() -> u64 {
    let mut x = std::hint::black_box(0x9E37_79B9_7F4A_7C15_u64);
    for _ in 0..WORK {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    std::hint::black_box(x)
}

/// Times `SLICES` slices on each of `cpus` at once, each on a thread pinned to its CPU; a CPU
/// this process may not use is left out.
pub fn probe(at: &str, cpus: &[usize]) -> Vec<CpuProbe> {
    std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                s.spawn(move || {
                    crate::machine::pin_current_thread(&[cpu]).ok()?;
                    for _ in 0..WARM_UP {
                        slice();
                    }
                    let slices_us = (0..SLICES)
                        .map(|_| {
                            let t = Instant::now();
                            slice();
                            t.elapsed().as_micros() as u64
                        })
                        .collect();
                    Some(CpuProbe { at: at.to_string(), cpu, slices_us })
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok().flatten()).collect()
    })
}

/// How unevenly the CPUs ran: the slowest probe's median slice over the fastest's, and the CPU
/// of the slowest; `None` without two probes to compare.
pub fn spread(probes: &[CpuProbe]) -> Option<(f64, usize)> {
    let medians: Vec<(f64, usize)> = probes
        .iter()
        .filter_map(|p| {
            let slices: Vec<f64> = p.slices_us.iter().map(|&us| us as f64).collect();
            crate::stats::Summary::of(&slices).map(|s| (s.median, p.cpu))
        })
        .filter(|(m, _)| *m > 0.0)
        .collect();
    if medians.len() < 2 {
        return None;
    }
    let fastest = medians.iter().map(|(m, _)| *m).fold(f64::INFINITY, f64::min);
    let (slowest, cpu) = medians.iter().copied().fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
    Some((slowest / fastest, cpu))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(at: &str, cpu: usize, slices_us: &[u64]) -> CpuProbe {
        CpuProbe { at: at.into(), cpu, slices_us: slices_us.to_vec() }
    }

    #[test]
    fn a_steady_machine_spreads_little_and_one_slow_slice_does_not_count() {
        let steady = [
            p("start", 0, &[8000, 8010, 7990, 8005, 8000, 8020, 7995, 8000]),
            p("start", 1, &[8100, 8090, 8110, 8100, 8105, 8095, 8100, 30_000]),
            p("end", 0, &[8000, 8000, 8010, 7990, 8000, 8000, 8000, 8000]),
            p("end", 1, &[8050, 8060, 8040, 8050, 8050, 8050, 8050, 8050]),
        ];
        let (ratio, cpu) = spread(&steady).unwrap();
        assert!((ratio - 8100.0 / 8000.0).abs() < 1e-9, "{ratio}");
        assert_eq!(cpu, 1);
        assert!(ratio < UNSTEADY);
    }

    #[test]
    fn a_core_another_guest_shares_is_found() {
        // CPU 1 at the end of the run: every slice half as fast again.
        let probes = [
            p("start", 0, &[8000; 8]),
            p("start", 1, &[8000; 8]),
            p("end", 0, &[8000; 8]),
            p("end", 1, &[12_000, 12_100, 11_900, 12_000, 12_000, 12_050, 11_950, 12_000]),
        ];
        let (ratio, cpu) = spread(&probes).unwrap();
        assert_eq!((ratio, cpu), (1.5, 1));
        assert!(ratio > UNSTEADY);
    }

    #[test]
    fn too_few_probes_say_nothing() {
        assert_eq!(spread(&[]), None);
        assert_eq!(spread(&[p("start", 0, &[8000; 8])]), None);
        assert_eq!(spread(&[p("start", 0, &[8000; 8]), p("end", 0, &[])]), None);
    }

    #[test]
    fn the_probe_times_every_slice_on_the_cpu_it_names() {
        let cpu = crate::machine::online_cpus()[0];
        let probes = probe("start", &[cpu]);
        assert_eq!(probes.len(), 1);
        assert_eq!((probes[0].at.as_str(), probes[0].cpu, probes[0].slices_us.len()), ("start", cpu, SLICES));
        assert!(probes[0].slices_us.iter().all(|&us| us > 0), "{:?}", probes[0].slices_us);
    }
}
