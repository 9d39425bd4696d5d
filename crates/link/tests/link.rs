//! The link on this machine (root, namespaces, /dev/net/tun): built, measured, crossed by a
//! verified transfer, and gone when dropped.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

use wirebench_link::{check, held_namespaces, CheckOptions, Link, NetSpec};

#[test]
fn a_link_delays_drops_carries_verified_bytes_and_leaves_nothing_behind() {
    let spec: NetSpec = "rtt=20ms,loss=2%".parse().unwrap();
    let link = Link::up(&spec).unwrap_or_else(|e| panic!("{e}"));
    let inodes = [link.client().inode().unwrap(), link.server().unwrap().inode().unwrap()];
    assert!(inodes.iter().all(|i| held_namespaces(None).contains(i)));

    // A megabyte each way across the lossy link, every byte checked.
    let listener = link.run_server(|| TcpListener::bind("127.0.0.1:0")).unwrap().unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut c, _) = listener.accept().unwrap();
        let mut got = vec![0u8; 1 << 20];
        c.read_exact(&mut got).unwrap();
        c.write_all(&got).unwrap();
    });
    let sent: Vec<u8> = (0..1u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    let mut conn = link.client().run(|| TcpStream::connect(("127.0.0.1", port))).unwrap().unwrap();
    conn.write_all(&sent).unwrap();
    let mut back = vec![0u8; sent.len()];
    conn.read_exact(&mut back).unwrap();
    server.join().unwrap();
    assert!(back == sent, "the bytes that came back differ from those sent");

    let report = check(&link, &CheckOptions { probes: 100, loss_packets: 10_000, transfer_s: 1.0 }).unwrap();
    eprintln!("{}", report.render());
    assert!((report.rtt.median_ms - 20.0).abs() < 1.0, "median round trip {} ms", report.rtt.median_ms);
    assert!(report.rtt.min_ms >= 20.0, "a probe came back in {} ms, faster than the link", report.rtt.min_ms);
    // 4.4 standard errors: a check that is wrong once in 100,000 runs, not once in 20.
    for l in [&report.loss_up, &report.loss_down] {
        assert!(l.contains_at(0.02, 4.42), "observed loss {:?} far from 2 %", l);
    }
    let stats = link.stats();
    assert!(stats.up.counters.lost > 0 && stats.down.counters.lost > 0, "{stats:?}");
    assert!(stats.cpu() > std::time::Duration::ZERO);

    drop(link);
    let held = held_namespaces(None);
    assert!(inodes.iter().all(|i| !held.contains(i)), "a link namespace outlived its link");
}

#[test]
fn a_rate_limits_tcp_to_about_the_rate() {
    let link = Link::up(&"rate=20mbit".parse().unwrap()).unwrap();
    let report = check(&link, &CheckOptions { probes: 20, loss_packets: 1000, transfer_s: 2.0 }).unwrap();
    eprintln!("{}", report.render());
    let g = report.goodput.expect("a rate is set");
    assert!(g.mbit <= g.ceiling_mbit * 1.02, "{} Mbit/s above the link's {}", g.mbit, g.ceiling_mbit);
    assert!(g.mbit >= g.ceiling_mbit * 0.8, "{} Mbit/s, well below the link's {}", g.mbit, g.ceiling_mbit);
}
