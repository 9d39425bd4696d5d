//! `wirebench net check`: measures the link it built, end to end through both namespaces'
//! stacks, and sets what it observed beside what was asked: round-trip time from UDP probes
//! (median and p99), each direction's loss over enough packets for a binomial interval, and,
//! when the link has a rate, TCP's goodput across it.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::link::{Link, LinkStats};

/// How much to measure.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Round-trip probes, one at a time.
    pub probes: usize,
    /// Packets each way for the loss estimate (fewer when a slow rate would take too long).
    pub loss_packets: usize,
    /// Seconds of TCP transfer for the goodput (only with a rate; 0: none).
    pub transfer_s: f64,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions { probes: 200, loss_packets: 20_000, transfer_s: 3.0 }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Rtt {
    pub probes: usize,
    pub answered: usize,
    pub median_ms: f64,
    pub p99_ms: f64,
    pub min_ms: f64,
}

/// One direction's observed loss with its 95 % Wilson interval.
#[derive(Debug, Clone, Serialize)]
pub struct LossEstimate {
    pub sent: u64,
    pub received: u64,
    pub observed: f64,
    pub low: f64,
    pub high: f64,
}

impl LossEstimate {
    fn of(sent: u64, received: u64) -> LossEstimate {
        let lost = sent.saturating_sub(received);
        let (low, high) = wilson(lost, sent, 1.959_964);
        LossEstimate { sent, received, observed: lost as f64 / sent.max(1) as f64, low, high }
    }

    /// Whether `p` lies in the interval at `z` standard errors (tests use a wide one).
    pub fn contains_at(&self, p: f64, z: f64) -> bool {
        let (low, high) = wilson(self.sent.saturating_sub(self.received), self.sent, z);
        (low..=high).contains(&p)
    }
}

/// Wilson's score interval for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[derive(Debug, Clone, Serialize)]
pub struct Goodput {
    pub seconds: f64,
    pub mbit: f64,
    /// TCP's payload over the link's IP rate at most (1448 of every 1500 bytes with timestamps).
    pub ceiling_mbit: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub link: String,
    /// The client's and the server's addresses on the link.
    pub addrs: (String, String),
    pub rtt_set_ms: f64,
    /// ± this much on each direction's delay (so up to twice it on a round trip).
    pub jitter_set_ms: f64,
    pub loss_set: f64,
    pub rate_set_mbit: Option<f64>,
    pub rtt: Rtt,
    pub loss_up: LossEstimate,
    pub loss_down: LossEstimate,
    pub goodput: Option<Goodput>,
    /// The forwarder's CPU over the whole check, and packets it wrote more than 1 ms late.
    pub forwarder_cpu_s: f64,
    pub late_packets: u64,
    pub late_max_ms: f64,
}

const RTT_PROBE: u8 = 1;
const LOSS_PROBE: u8 = 2;
const PROBE_BYTES: usize = 64;

/// Echoes every datagram back in the server namespace, counting loss probes.
struct Echo {
    port: u16,
    loss_probes: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Echo {
    fn start(link: &Link) -> io::Result<Echo> {
        let socket = link.run_server(|| UdpSocket::bind("127.0.0.1:0"))??;
        socket.set_read_timeout(Some(Duration::from_millis(50)))?;
        let port = socket.local_addr()?.port();
        let loss_probes = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, halt) = (loss_probes.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while !halt.load(Ordering::Relaxed) {
                let Ok((n, from)) = socket.recv_from(&mut buf) else { continue };
                if n > 0 && buf[0] == LOSS_PROBE {
                    count.fetch_add(1, Ordering::Relaxed);
                }
                let _ = socket.send_to(&buf[..n], from);
            }
        });
        Ok(Echo { port, loss_probes, stop, thread: Some(thread) })
    }
}

impl Drop for Echo {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// Measures `link`.
pub fn check(link: &Link, opts: &CheckOptions) -> io::Result<CheckReport> {
    let spec = link.spec().clone();
    let before = link.stats();
    let echo = Echo::start(link)?;
    let client = link.client().run(|| UdpSocket::bind("0.0.0.0:0"))??;
    client.connect(("127.0.0.1", echo.port))?;
    let wait = Duration::from_secs_f64((spec.rtt_ms * 3.0 / 1e3).max(0.2));

    // Round trips, one probe at a time: a lost probe (or its echo) is skipped.
    client.set_read_timeout(Some(wait))?;
    let mut rtts = Vec::with_capacity(opts.probes);
    let mut buf = [0u8; 2048];
    for seq in 0..opts.probes as u32 {
        let mut probe = [0u8; PROBE_BYTES];
        probe[0] = RTT_PROBE;
        probe[1..5].copy_from_slice(&seq.to_be_bytes());
        let sent = Instant::now();
        client.send(&probe)?;
        let deadline = sent + wait;
        loop {
            match client.recv(&mut buf) {
                Ok(n) if n >= 5 && buf[0] == RTT_PROBE && buf[1..5] == seq.to_be_bytes() => {
                    rtts.push(sent.elapsed().as_secs_f64() * 1e3);
                    break;
                }
                Ok(_) if Instant::now() < deadline => continue, // a late echo of an earlier probe
                Ok(_) => break,
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => break,
                Err(e) => return Err(e),
            }
        }
    }
    rtts.sort_by(f64::total_cmp);
    let rtt = Rtt {
        probes: opts.probes,
        answered: rtts.len(),
        median_ms: percentile(&rtts, 0.5),
        p99_ms: percentile(&rtts, 0.99),
        min_ms: rtts.first().copied().unwrap_or(f64::NAN),
    };

    // Loss: a stream of probes, paced to a quarter of the rate so no queue drops any; the echo
    // counts what arrived (client to server), the client counts the echoes (server to client).
    let wire_bits = ((PROBE_BYTES + 28) * 8) as f64;
    let per_second = spec.rate_mbit.map_or(20_000.0, |m| (m * 1e6 / wire_bits / 4.0).min(20_000.0));
    let n = (opts.loss_packets as f64).min(per_second * 10.0).max(100.0) as u64;
    let received = Arc::new(AtomicU64::new(0));
    let listener = {
        let (socket, received) = (client.try_clone()?, received.clone());
        socket.set_read_timeout(Some(wait + Duration::from_millis(300)))?;
        std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while let Ok(n) = socket.recv(&mut buf) {
                if n > 0 && buf[0] == LOSS_PROBE {
                    received.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    };
    let start = Instant::now();
    let mut probe = [0u8; PROBE_BYTES];
    probe[0] = LOSS_PROBE;
    for seq in 0..n {
        probe[1..9].copy_from_slice(&seq.to_be_bytes());
        client.send(&probe)?;
        let due = start + Duration::from_secs_f64((seq + 1) as f64 / per_second);
        if let Some(d) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(d);
        }
    }
    let _ = listener.join(); // ends after the echoes stop coming
    let arrived = echo.loss_probes.load(Ordering::Relaxed);
    let loss_up = LossEstimate::of(n, arrived);
    let loss_down = LossEstimate::of(arrived, received.load(Ordering::Relaxed));
    drop(echo);

    let goodput = match spec.rate_mbit {
        Some(rate) if opts.transfer_s > 0.0 => Some(transfer(link, opts.transfer_s, rate)?),
        _ => None,
    };
    let stats: LinkStats = link.stats().since(&before);
    let (c, s) = link.addrs();
    Ok(CheckReport {
        link: spec.to_string(),
        addrs: (c.to_string(), s.to_string()),
        rtt_set_ms: spec.rtt_ms,
        jitter_set_ms: spec.jitter_ms,
        loss_set: spec.loss,
        rate_set_mbit: spec.rate_mbit,
        rtt,
        loss_up,
        loss_down,
        goodput,
        forwarder_cpu_s: stats.cpu().as_secs_f64(),
        late_packets: stats.up.late + stats.down.late,
        late_max_ms: stats.up.late_max.max(stats.down.late_max).as_secs_f64() * 1e3,
    })
}

/// TCP from the client to the server for `seconds`; goodput measured at the receiver after the
/// first second (slow start).
fn transfer(link: &Link, seconds: f64, rate: f64) -> io::Result<Goodput> {
    let listener = link.run_server(|| TcpListener::bind("127.0.0.1:0"))??;
    let port = listener.local_addr()?.port();
    let total = Duration::from_secs_f64(seconds + 1.0);
    let sender = link.client().run(|| TcpStream::connect(("127.0.0.1", port)))??;
    let writer = std::thread::spawn(move || {
        let mut s = sender;
        let chunk = vec![0x5au8; 64 * 1024];
        let start = Instant::now();
        while start.elapsed() < total {
            if s.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let (mut conn, _) = listener.accept()?;
    conn.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut buf = vec![0u8; 256 * 1024];
    let start = Instant::now();
    let warm = start + Duration::from_secs(1);
    let (mut bytes, mut from) = (0u64, None);
    loop {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if Instant::now() >= warm {
                    from.get_or_insert_with(Instant::now);
                    bytes += n as u64;
                }
            }
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => break,
            Err(e) => return Err(e),
        }
    }
    let _ = writer.join();
    let secs = from.map_or(0.0, |f| f.elapsed().as_secs_f64());
    Ok(Goodput { seconds: secs, mbit: bytes as f64 * 8.0 / secs.max(1e-9) / 1e6, ceiling_mbit: rate * 1448.0 / 1500.0 })
}

impl CheckReport {
    /// The table `wirebench net check` prints: what was set beside what was observed.
    pub fn render(&self) -> String {
        let pct = |x: f64| format!("{:.2} %", x * 100.0);
        let mut out = format!("link {} (client {} ⇄ server {})\n", self.link, self.addrs.0, self.addrs.1);
        out += &format!("{:<24} {:>12}  {}\n", "", "set", "observed");
        out += &format!(
            "{:<24} {:>12}  {:.2} ms (p99 {:.2} ms, min {:.2} ms; {} of {} probes answered)\n",
            "round trip, median",
            if self.jitter_set_ms > 0.0 {
                format!("{:.2} ± {:.1} ms", self.rtt_set_ms, 2.0 * self.jitter_set_ms)
            } else {
                format!("{:.2} ms", self.rtt_set_ms)
            },
            self.rtt.median_ms,
            self.rtt.p99_ms,
            self.rtt.min_ms,
            self.rtt.answered,
            self.rtt.probes
        );
        for (name, l) in [("loss, client → server", &self.loss_up), ("loss, server → client", &self.loss_down)] {
            out += &format!(
                "{:<24} {:>12}  {} [{}, {}] 95 % ({} of {} packets lost)\n",
                name,
                pct(self.loss_set),
                pct(l.observed),
                pct(l.low),
                pct(l.high),
                l.sent - l.received,
                l.sent
            );
        }
        if let (Some(g), Some(rate)) = (&self.goodput, self.rate_set_mbit) {
            out += &format!(
                "{:<24} {:>12}  {:.1} Mbit/s over {:.1} s (TCP's payload can reach {:.1} of the link's IP rate)\n",
                "rate, TCP goodput",
                format!("{rate} Mbit/s"),
                g.mbit,
                g.seconds,
                g.ceiling_mbit
            );
        }
        out += &format!(
            "forwarder: {:.2} CPU-s, {} packets written more than 1 ms late (latest {:.2} ms)\n",
            self.forwarder_cpu_s, self.late_packets, self.late_max_ms
        );
        out
    }
}
