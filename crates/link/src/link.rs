//! The link: a client namespace and a server namespace, a TUN device in each, and a forwarder
//! thread per direction that moves IP packets from one device to the other through a
//! [`Shaper`]. TCP and QUIC on either side see real delay and real loss, and recover as their
//! stacks do.
//!
//! Addresses: the client's device is 198.18.0.1, the server's 198.18.0.2 (RFC 2544's range for
//! benchmarking). The server namespace runs its subject and services on its own loopback as
//! today; the client namespace leaves its loopback down and routes 127.0.0.0/8 over the link,
//! and the server side accepts loopback addresses arriving on the link (`route_localnet`), so a
//! load generator in the client namespace reaches `127.0.0.1:PORT` across the link with the same
//! URL it uses without one.
//!
//! [`Link::to_host`] is the same link with this host's own namespace as the server side, for
//! `wirebench load --net` against a server the user started: its device lives in the host's
//! namespace only as long as the link (a TUN device without `persist` goes with its last fd, so
//! a SIGKILL removes it too), with an address of its own from 198.19.0.0/16 per process, and
//! `route_localnet` set on that device alone.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::ns::{ip, sysctl, Ns};
use crate::shaper::{Counters, Fate, Shaper};
use crate::spec::NetSpec;

pub const CLIENT_ADDR: &str = "198.18.0.1";
pub const SERVER_ADDR: &str = "198.18.0.2";
const CLIENT_DEV: &str = "wbc";
const SERVER_DEV: &str = "wbs";
const MTU: u16 = 1500;

/// Why a link could not be made; one line.
#[derive(Debug, thiserror::Error)]
#[error("cannot make the network link: {0}")]
pub struct LinkError(String);

impl LinkError {
    fn at(what: &str, e: impl std::fmt::Display) -> Self {
        LinkError(format!("{what}: {e}"))
    }
}

/// One direction's numbers, live.
#[derive(Default)]
struct Live {
    packets: AtomicU64,
    bytes: AtomicU64,
    lost: AtomicU64,
    overflow: AtomicU64,
    /// Packets written more than 1 ms after they were due: the forwarder fell behind.
    late: AtomicU64,
    late_max_ns: AtomicU64,
    cpu_ns: AtomicU64,
}

/// One direction's numbers at a moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DirStats {
    pub counters: Counters,
    pub late: u64,
    pub late_max: Duration,
    /// CPU time of this direction's forwarder thread.
    pub cpu: Duration,
}

/// Both directions: `up` is client to server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub up: DirStats,
    pub down: DirStats,
}

impl LinkStats {
    pub fn cpu(&self) -> Duration {
        self.up.cpu + self.down.cpu
    }

    /// The change since `before` (a row's share of a link that outlives it).
    pub fn since(&self, before: &LinkStats) -> LinkStats {
        let d = |a: &DirStats, b: &DirStats| DirStats {
            counters: Counters {
                packets: a.counters.packets - b.counters.packets,
                bytes: a.counters.bytes - b.counters.bytes,
                lost: a.counters.lost - b.counters.lost,
                overflow: a.counters.overflow - b.counters.overflow,
            },
            late: a.late - b.late,
            late_max: a.late_max,
            cpu: a.cpu.saturating_sub(b.cpu),
        };
        LinkStats { up: d(&self.up, &before.up), down: d(&self.down, &before.down) }
    }
}

/// A link, up until dropped.
pub struct Link {
    spec: NetSpec,
    client: Ns,
    /// `None` when the server side is this host's own namespace.
    server: Option<Ns>,
    addrs: (String, String),
    stop: Arc<AtomicBool>,
    wake: RawFd,
    live: [Arc<Live>; 2],
    threads: Vec<JoinHandle<()>>,
    // The devices live as long as the link; their fds are the forwarder's.
    _devices: [tun::Device; 2],
}

impl Link {
    /// Creates both namespaces, their devices and routes, and starts the forwarders.
    pub fn up(spec: &NetSpec) -> Result<Link, LinkError> {
        spec.check().map_err(LinkError)?;
        let client = new_ns()?;
        let server = new_ns()?;
        let client_dev = client_side(&client, CLIENT_ADDR, SERVER_ADDR, &spec.cc)?;
        let server_dev = server
            .run(|| -> io::Result<tun::Device> {
                no_ipv6()?;
                congestion_control(&spec.cc)?;
                let dev = device(SERVER_DEV, SERVER_ADDR, CLIENT_ADDR)?;
                ip(&["link", "set", "lo", "up"])?;
                sysctl(&format!("net.ipv4.conf.{SERVER_DEV}.route_localnet"), "1")?;
                Ok(dev)
            })
            .and_then(|r| r)
            .map_err(|e| LinkError::at("server namespace", e))?;
        Self::start(spec, client, Some(server), (CLIENT_ADDR.into(), SERVER_ADDR.into()), client_dev, server_dev)
    }

    /// A client namespace linked to this host's own namespace, whose loopback the client then
    /// reaches across the link.
    pub fn to_host(spec: &NetSpec) -> Result<Link, LinkError> {
        spec.check().map_err(LinkError)?;
        let client = new_ns()?;
        // An address pair and a device name of this process's own, so two runs never meet.
        let n = std::process::id() % 16_384;
        let (c, s) = (format!("198.19.{}.{}", n / 64, n % 64 * 4 + 1), format!("198.19.{}.{}", n / 64, n % 64 * 4 + 2));
        let name = format!("wb{}", std::process::id());
        // `cc` on the client's side only: the host's own TCP (the server's, which sends the
        // answers) is the host's to choose.
        let client_dev = client_side(&client, &c, &s, &spec.cc)?;
        let host_dev = (|| -> io::Result<tun::Device> {
            let dev = device(&name, &s, &c)?;
            sysctl(&format!("net.ipv4.conf.{name}.route_localnet"), "1")?;
            sysctl_unless_absent(&format!("net.ipv6.conf.{name}.disable_ipv6"), "1")?;
            Ok(dev)
        })()
        .map_err(|e| LinkError::at("host side", e))?;
        Self::start(spec, client, None, (c, s), client_dev, host_dev)
    }

    fn start(
        spec: &NetSpec,
        client: Ns,
        server: Option<Ns>,
        addrs: (String, String),
        client_dev: tun::Device,
        server_dev: tun::Device,
    ) -> Result<Link, LinkError> {
        for d in [&client_dev, &server_dev] {
            d.set_nonblock().map_err(|e| LinkError::at("device", e))?;
        }
        // SAFETY: eventfd(2) with valid flags; the fd is closed in Drop.
        let wake = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if wake < 0 {
            return Err(LinkError::at("eventfd", io::Error::last_os_error()));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let live = [Arc::new(Live::default()), Arc::new(Live::default())];
        let (c, s) = (client_dev.as_raw_fd(), server_dev.as_raw_fd());
        let mut threads = Vec::new();
        for (i, (name, from, to)) in
            [("wirebench-link-up", c, s), ("wirebench-link-down", s, c)].into_iter().enumerate()
        {
            let shaper = Shaper::new(spec, 0x5eed + i as u64);
            let (stop, live) = (stop.clone(), live[i].clone());
            let t = std::thread::Builder::new()
                .name(name.into())
                .spawn(move || forward(from, to, wake, shaper, &stop, &live))
                .map_err(|e| LinkError::at("thread", e))?;
            threads.push(t);
        }
        Ok(Link {
            spec: spec.clone(),
            client,
            server,
            addrs,
            stop,
            wake,
            live,
            threads,
            _devices: [client_dev, server_dev],
        })
    }

    /// The client's and the server's addresses on the link.
    pub fn addrs(&self) -> (&str, &str) {
        (&self.addrs.0, &self.addrs.1)
    }

    pub fn spec(&self) -> &NetSpec {
        &self.spec
    }

    /// The load's side.
    pub fn client(&self) -> &Ns {
        &self.client
    }

    /// The subject's and its services' side; `None` when it is this host's own namespace.
    pub fn server(&self) -> Option<&Ns> {
        self.server.as_ref()
    }

    /// Runs `f` on the server side: in its namespace, or here for a link to this host.
    pub fn run_server<T: Send>(&self, f: impl FnOnce() -> T + Send) -> io::Result<T> {
        match &self.server {
            Some(ns) => ns.run(f),
            None => Ok(f()),
        }
    }

    pub fn stats(&self) -> LinkStats {
        let read = |l: &Live| DirStats {
            counters: Counters {
                packets: l.packets.load(Ordering::Relaxed),
                bytes: l.bytes.load(Ordering::Relaxed),
                lost: l.lost.load(Ordering::Relaxed),
                overflow: l.overflow.load(Ordering::Relaxed),
            },
            late: l.late.load(Ordering::Relaxed),
            late_max: Duration::from_nanos(l.late_max_ns.load(Ordering::Relaxed)),
            cpu: Duration::from_nanos(l.cpu_ns.load(Ordering::Relaxed)),
        };
        LinkStats { up: read(&self.live[0]), down: read(&self.live[1]) }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our eventfd.
        unsafe { libc::write(self.wake, (&one as *const u64).cast(), 8) };
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        // SAFETY: the fd is ours and every thread using it has ended.
        unsafe { libc::close(self.wake) };
    }
}

fn new_ns() -> Result<Ns, LinkError> {
    Ns::new().map_err(|e| match e.raw_os_error() {
        Some(libc::EPERM) => LinkError("network namespaces need root (unshare: permission denied)".into()),
        _ => LinkError::at("unshare", e),
    })
}

/// The client namespace's device, its route for 127.0.0.0/8 over the link (its own loopback
/// stays down), and TCP's congestion control `cc`.
fn client_side(client: &Ns, addr: &str, peer: &str, cc: &Option<String>) -> Result<tun::Device, LinkError> {
    client
        .run(|| -> io::Result<tun::Device> {
            no_ipv6()?;
            congestion_control(cc)?;
            let dev = device(CLIENT_DEV, addr, peer)?;
            sysctl(&format!("net.ipv4.conf.{CLIENT_DEV}.route_localnet"), "1")?;
            ip(&["route", "add", "127.0.0.0/8", "dev", CLIENT_DEV, "src", addr])?;
            Ok(dev)
        })
        .and_then(|r| r)
        .map_err(|e| LinkError::at("client namespace", e))
}

/// Sets TCP's congestion control in the current thread's namespace (none: the host's default
/// stays); one line naming the choices when the namespace may not have it.
fn congestion_control(cc: &Option<String>) -> io::Result<()> {
    let Some(cc) = cc else { return Ok(()) };
    sysctl("net.ipv4.tcp_congestion_control", cc).map_err(|e| {
        // Outside the host's namespace only the host's allowed list may be chosen.
        let allowed = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
            .map(|a| a.trim().to_string())
            .unwrap_or_default();
        io::Error::new(
            e.kind(),
            format!("TCP congestion control `{cc}` cannot be chosen in a namespace here (allowed: {allowed})"),
        )
    })
}

/// IPv4 only: IPv6's own chatter (router and multicast listener solicitations) would cross the
/// link too and take draws of the loss model that the measured traffic should have.
fn no_ipv6() -> io::Result<()> {
    for key in ["net.ipv6.conf.default.disable_ipv6", "net.ipv6.conf.all.disable_ipv6"] {
        sysctl_unless_absent(key, "1")?;
    }
    Ok(())
}

/// A sysctl that a kernel without IPv6 does not have: absent is fine.
fn sysctl_unless_absent(key: &str, value: &str) -> io::Result<()> {
    match sysctl(key, value) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// A point-to-point TUN device, up, in the current thread's namespace.
fn device(name: &str, addr: &str, peer: &str) -> io::Result<tun::Device> {
    let mut config = tun::Configuration::default();
    config.tun_name(name).address(addr).destination(peer).netmask("255.255.255.255").mtu(MTU).up();
    config.platform_config(|p| {
        p.ensure_root_privileges(true);
    });
    tun::create(&config).map_err(|e| io::Error::other(format!("TUN device {name}: {e}")))
}

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and a timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// One direction's loop: read every packet that is there, give each its fate, write those due,
/// and sleep until the next is due or a packet arrives. A thread with `ppoll` and no timer
/// slack rather than tokio: tokio's timer rounds up to whole milliseconds, which alone would put
/// the round trip up to 2 ms off its setting.
fn forward(from: RawFd, to: RawFd, wake: RawFd, mut shaper: Shaper, stop: &AtomicBool, live: &Live) {
    // SAFETY: PR_SET_TIMERSLACK with a plain value; 1 ns asks for the timer's own precision.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };
    // Ordered by due time, then arrival: jitter lets a later packet leave first.
    let mut queue: BinaryHeap<Reverse<(Instant, u64, Vec<u8>)>> = BinaryHeap::new();
    let mut arrivals = 0u64;
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut fds = [
        libc::pollfd { fd: from, events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: wake, events: libc::POLLIN, revents: 0 },
    ];
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        let timeout = queue.peek().map(|Reverse((due, _, _))| {
            let d = due.saturating_duration_since(now);
            // `as _`: the libc crate deprecates the name `time_t` on musl (it is to become 64-bit
            // there), and the static worker build lints with -D warnings in CI.
            libc::timespec { tv_sec: d.as_secs() as _, tv_nsec: d.subsec_nanos() as libc::c_long }
        });
        let tp = timeout.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: two valid pollfds, a timespec or null, no signal mask.
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, tp, std::ptr::null()) };
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
        if fds[0].revents & libc::POLLIN != 0 {
            loop {
                let mut buf = spare.pop().unwrap_or_else(|| vec![0u8; MTU as usize + 64]);
                buf.resize(MTU as usize + 64, 0);
                // SAFETY: reads at most buf.len() bytes into buf.
                let got = unsafe { libc::read(from, buf.as_mut_ptr().cast(), buf.len()) };
                if got <= 0 {
                    spare.push(buf);
                    break;
                }
                buf.truncate(got as usize);
                match shaper.admit(Instant::now(), buf.len()) {
                    Fate::Deliver(due) => {
                        arrivals += 1;
                        queue.push(Reverse((due, arrivals, buf)));
                    }
                    Fate::Lost | Fate::Overflow => spare.push(buf),
                }
            }
        }
        let now = Instant::now();
        while queue.peek().is_some_and(|Reverse((due, _, _))| *due <= now) {
            let Reverse((due, _, buf)) = queue.pop().expect("checked");
            // SAFETY: writes buf's bytes; a device that refuses a packet drops it, as a wire would.
            unsafe { libc::write(to, buf.as_ptr().cast(), buf.len()) };
            let late = now.saturating_duration_since(due);
            if late > Duration::from_millis(1) {
                live.late.fetch_add(1, Ordering::Relaxed);
            }
            live.late_max_ns.fetch_max(late.as_nanos() as u64, Ordering::Relaxed);
            spare.push(buf);
        }
        let c = shaper.counters;
        live.packets.store(c.packets, Ordering::Relaxed);
        live.bytes.store(c.bytes, Ordering::Relaxed);
        live.lost.store(c.lost, Ordering::Relaxed);
        live.overflow.store(c.overflow, Ordering::Relaxed);
        live.cpu_ns.store(thread_cpu().as_nanos() as u64, Ordering::Relaxed);
    }
}
