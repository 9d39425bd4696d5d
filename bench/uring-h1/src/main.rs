//! Spike (issue 45): how little CPU can an HTTP/1.1 client spend per request on loopback with
//! io_uring? N connections, one GET in flight each, its send and the answer's recv linked, the
//! completions reaped in batches (`BATCH` of them or 1 ms, whichever first). It checks each
//! answer's status and length only, and times nothing per request: a lower bound on what an
//! io_uring driver would spend. Not part of the workspace; `ab.sh` pairs it with wirebench.
//!
//! Usage: uring-spike PORT CONNECTIONS SECONDS [BATCH]
use io_uring::{opcode, squeue, types, IoUring};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

struct Conn {
    sock: TcpStream,
    buf: Vec<u8>,
    len: usize,
}

fn cpu_s() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// Length of a complete response at the start of `b`, if there is one.
fn complete(b: &[u8]) -> Option<usize> {
    let head = b.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let text = std::str::from_utf8(&b[..head]).ok()?;
    let cl = text
        .lines()
        .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.trim().parse::<usize>().unwrap()))?;
    (b.len() >= head + cl).then_some(head + cl)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let port: u16 = a[1].parse().unwrap();
    let n: usize = a[2].parse().unwrap();
    let secs: f64 = a[3].parse().unwrap();
    let batch: usize = a.get(4).map_or(1, |b| b.parse().unwrap());
    let path = "/payload/1024";
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").into_bytes();
    let mut ring = IoUring::new(1024).unwrap();
    let mut cs: Vec<Conn> = (0..n)
        .map(|_| {
            let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.set_nodelay(true).unwrap();
            Conn { sock: s, buf: vec![0; 1 << 16], len: 0 }
        })
        .collect();
    let push = |ring: &mut IoUring, i: usize, c: &mut Conn, send: bool| {
        let fd = types::Fd(c.sock.as_raw_fd());
        let recv = opcode::Recv::new(fd, unsafe { c.buf.as_mut_ptr().add(c.len) }, (c.buf.len() - c.len) as u32)
            .build()
            .user_data((i * 2 + 1) as u64);
        unsafe {
            if send {
                let s = opcode::Send::new(fd, req.as_ptr(), req.len() as u32).build().user_data((i * 2) as u64).flags(squeue::Flags::IO_LINK);
                ring.submission().push(&s).unwrap();
            }
            ring.submission().push(&recv).unwrap();
        }
    };
    for i in 0..n {
        let c: *mut Conn = &mut cs[i];
        push(&mut ring, i, unsafe { &mut *c }, true);
    }
    let start = Instant::now();
    let cpu0 = cpu_s();
    let deadline = start + Duration::from_secs_f64(secs);
    let (mut done, mut bytes, mut enters) = (0u64, 0u64, 0u64);
    let mut todo: Vec<(usize, bool)> = Vec::with_capacity(n);
    while Instant::now() < deadline {
        // Wait for `batch` completions (or 1 ms), so one enter reaps several answers.
        let ts = types::Timespec::new().nsec(1_000_000);
        let args = types::SubmitArgs::new().timespec(&ts);
        match ring.submitter().submit_with_args(batch, &args) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ETIME) => {}
            Err(e) => panic!("{e}"),
        }
        enters += 1;
        for cqe in ring.completion() {
            let ud = cqe.user_data() as usize;
            let (i, is_recv) = (ud / 2, ud % 2 == 1);
            let r = cqe.result();
            if !is_recv {
                assert!(r == req.len() as i32, "send: {r}");
                continue;
            }
            assert!(r > 0, "recv: {r}");
            let c = &mut cs[i];
            c.len += r as usize;
            match complete(&c.buf[..c.len]) {
                Some(m) => {
                    assert_eq!(m, c.len, "no pipelining");
                    assert!(c.buf.starts_with(b"HTTP/1.1 200"));
                    done += 1;
                    bytes += m as u64;
                    c.len = 0;
                    todo.push((i, true));
                }
                None => todo.push((i, false)),
            }
        }
        for (i, send) in todo.drain(..) {
            let c: *mut Conn = &mut cs[i];
            push(&mut ring, i, unsafe { &mut *c }, send);
        }
    }
    let el = start.elapsed().as_secs_f64();
    // In-flight receives still point into the buffers: keep them alive past the ring.
    std::mem::forget(cs);
    let cpu = cpu_s() - cpu0;
    println!(
        "requests {done} bytes {bytes} rps {:.0} cpu {cpu:.2} s  cpu/req {:.2} us  enters/req {:.3}",
        done as f64 / el,
        cpu / done as f64 * 1e6,
        enters as f64 / done as f64
    );
}
