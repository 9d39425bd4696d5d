//! `wirebench load`: one load at one URL, like h2load or wrk, for side-by-side comparisons.

use std::collections::BTreeMap;

use anyhow::{bail, Context};

use crate::cli::LoadArgs;
use wirebench_core::bottleneck::{self, Bottleneck};
use wirebench_core::machine;
use wirebench_core::runner::{Executor, Stop, Target, Verify};
use wirebench_core::share::WorkerShare;
use wirebench_core::suite::{self, Dialect, Expect, Knob, Scenario, Script, Suite};
use wirebench_load::{DriverInfo, LoadEngine};

/// Requests a load sends when given neither -n nor --duration.
const DEFAULT_REQUESTS: u64 = 10_000;

pub fn load(args: &LoadArgs) -> anyhow::Result<()> {
    let driver = wirebench_load::driver_info(&args.driver)?;
    let (mut target, path) = parse_url(&args.url, driver)?;
    target.connect_to = connect_to(args.resolve.as_deref(), args.connect_to.as_deref(), &target)?;
    target.verify = Verify::chosen(args.cacert.clone(), args.insecure);
    target.client_cert =
        args.cert.clone().zip(args.key.clone()).map(|(cert, key)| wirebench_core::runner::ClientCert { cert, key });
    if !target.is_loopback() && !args.allow_remote {
        let (address, _) = target.address();
        bail!("`{address}` is not a loopback address: wirebench loads this machine unless --allow-remote");
    }
    let mut scenario = scenario_of(args, driver, &target, path)?;
    // A worker takes its share of the connections, requests and rate (`--worker i/N`).
    let share = args.worker.unwrap_or(WorkerShare { index: 0, count: 1 });
    let whole = scenario.plan(false).expect("a checked scenario has a plan");
    let plan = share.plan_of(&whole).map_err(anyhow::Error::msg)?;
    (scenario.connections, scenario.rate) = (plan.connections, plan.rate);
    if let Stop::Requests(n) = plan.stop {
        scenario.requests = Some(n);
    }
    let start_at = args.start_at.as_deref().map(start_instant).transpose()?;
    if let (Some(group), Some(suite)) = (&args.group, &args.suite) {
        scenario.script = Some(group_script(suite, group, &args.suites_dir)?);
    }
    if args.bottleneck {
        // The probe's question is a closed loop's on this machine (METHODOLOGY, "The probe").
        let why = match () {
            () if args.rate.is_some() => Some("--rate: at a fixed rate the client is paced by its schedule"),
            () if args.net.is_some() => Some("--net: across a link both sides wait on the network"),
            () if args.worker.is_some() => Some("--worker: a worker's pace is the whole load's"),
            () => None,
        };
        if let Some(why) = why {
            bail!("--bottleneck asks a closed loop on this machine, not with {why}");
        }
    }
    let engine = LoadEngine { threads: args.threads.unwrap_or_else(|| machine::online_cpus().len()) };
    let link = match &args.net {
        Some(spec) => {
            if !target.host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback()) {
                bail!(
                    "with --net the URL's host must be an IPv4 loopback address such as 127.0.0.1, not `{}`",
                    target.host
                );
            }
            Some(wirebench_link::Link::to_host(spec)?)
        }
        None => None,
    };
    let link_before = link.as_ref().map(|l| l.stats());
    let measured = || -> anyhow::Result<(wirebench_core::runner::LoadResult, f64)> {
        engine.verify(&scenario, &target).map_err(|e| anyhow::anyhow!("verification failed: {e}"))?;
        if let Some(at) = start_at {
            wait_until(at)?;
        }
        let cpu_before = machine::own_cpu_s();
        let live = crate::progress::LiveLine::start();
        let r = engine.measure(&scenario, &plan, &target, live.counter()).map_err(|e| anyhow::anyhow!(e))?;
        drop(live);
        Ok((r, machine::own_cpu_s() - cpu_before))
    };
    // Threads the load starts inside the client namespace stay there: the whole load crosses the link.
    let (r, mut cpu_s) = match &link {
        Some(l) => l.client().run(measured).context("entering the link's client namespace")??,
        None => measured()?,
    };
    // The forwarder's threads are in this process too; their CPU is the link's, not the instrument's.
    let net = link.as_ref().zip(link_before).map(|(l, before)| {
        let s = l.stats().since(&before);
        cpu_s -= s.cpu().as_secs_f64();
        (l.spec().to_string(), s)
    });
    if let Some(dir) = &args.out {
        wirebench_fleet::write_worker(
            dir,
            &wirebench_fleet::WorkerMeta { share, url: &args.url, driver: &args.driver, cpus: engine.threads },
            &r,
            cpu_s,
        )?;
    }
    let probe = args.bottleneck.then(|| {
        let live = crate::progress::LiveLine::start();
        wirebench_core::runner::ask_bottleneck(&engine, &scenario, &plan, r.duration, &target, live.counter())
    });
    print(&r, cpu_s, net.as_ref(), args.json, None, probe.as_ref());
    Ok(())
}

/// The scenario the flags describe, checked by the rules a suite's rows follow
/// (`Scenario::check`, the driver's streams and parameters), each named by its flag.
fn scenario_of(args: &LoadArgs, driver: &DriverInfo, target: &Target, path: String) -> anyhow::Result<Scenario> {
    let params = parse_params(&args.params)?;
    let scenario = Scenario {
        id: "load".into(),
        subject: "url".into(),
        driver: args.driver.clone(),
        tls: target.tls,
        port: None,
        method: args.method.clone(),
        // With --group the URL is the service's base, and the group's steps give the paths.
        path: if args.group.is_some() && path == "/" { String::new() } else { path },
        group: args.group.clone(),
        ramp_up_s: args.ramp_up,
        script: None,
        body_bytes: args.body_bytes,
        body: args.body.clone(),
        body_file: args.body_file.clone(),
        params,
        payload_bytes: None,
        headers: parse_headers(&args.headers)?,
        connections: args.connections,
        streams: args.streams,
        requests: match (args.requests, args.duration) {
            (None, None) => Some(DEFAULT_REQUESTS),
            (n, _) => n,
        },
        duration_s: args.duration,
        rate: args.rate,
        warmup_requests: None,
        warmup_s: None,
        warmup_until_steady: None,
        expect: Expect {
            status: args.expect_status.unwrap_or(driver.ok_status),
            body_bytes: args.expect_bytes,
            ..Expect::default()
        },
        labels: BTreeMap::new(),
        lab: None,
        // The link is this command's own (`--net`, below), not the runner's.
        net: None,
        reconnect: args.reconnect,
    };
    let flag = |k: Knob| k.name(Dialect::Flags);
    scenario.check(Dialect::Flags).map_err(|e| anyhow::anyhow!("{}: {}", e.key, e.message))?;
    driver.check_streams(scenario.streams).map_err(|e| anyhow::anyhow!("{}: {e}", flag(Knob::STREAMS)))?;
    (driver.params)(&scenario.params).with_context(|| format!("--param for the {} driver", driver.id))?;
    Ok(scenario)
}

/// What `wirebench merge` adds to a load's JSON (`LoadOutput`'s last fields).
#[derive(Debug, Default)]
pub struct Merged {
    pub workers: Option<Vec<serde_json::Value>>,
    pub skew_ms: Option<f64>,
    pub overlap_s: Option<f64>,
    pub skewed: Option<bool>,
}

/// Prints what a load measured: one JSON object (`schemas/load.schema.json`), or text.
pub fn print(
    r: &wirebench_core::runner::LoadResult,
    cpu_s: f64,
    net: Option<&(String, wirebench_link::LinkStats)>,
    json: bool,
    merged: Option<Merged>,
    probe: Option<&Result<Bottleneck, String>>,
) {
    use wirebench_core::schema::{
        BottleneckOutput, DirOutput, FirstMessageOutput, LoadOutput, NetOutput, StepLatencyOutput, StepOutput,
    };
    let secs = r.duration.as_secs_f64();
    let per_s = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let rps = per_s(r.requests);
    let l = &r.latency;
    if json {
        let dir = |d: &wirebench_link::DirStats| DirOutput {
            packets: d.counters.packets,
            lost: d.counters.lost,
            overflow: d.counters.overflow,
            late: d.late,
        };
        let merged = merged.unwrap_or_default();
        let out = LoadOutput {
            requests: r.requests,
            errors: r.errors,
            duration_s: secs,
            rps,
            messages: r.messages,
            messages_per_s: per_s(r.messages),
            bytes_sent: r.bytes_sent,
            bytes_received: r.bytes_received,
            cpu_s,
            latency_us: l.into(),
            first_message_us: r.first_message.as_ref().map(|f| FirstMessageOutput {
                p50: f.p50,
                p99: f.p99,
                max: f.max,
            }),
            latency_uncorrected_us: r.latency_uncorrected.as_ref().map(Into::into),
            first_error: r.first_error.clone(),
            iterations: r.iterations,
            iterations_per_s: r.iterations.map(per_s),
            steps: r
                .steps
                .iter()
                .map(|s| StepOutput {
                    label: s.label.clone(),
                    requests: s.requests,
                    errors: s.errors,
                    latency_us: StepLatencyOutput {
                        p50: s.latency_us.p50,
                        p99: s.latency_us.p99,
                        max: s.latency_us.max,
                        mean: s.latency_us.mean,
                    },
                })
                .collect(),
            net: net.map(|(spec, s)| NetOutput {
                link: spec.clone(),
                forwarder_cpu_s: s.cpu().as_secs_f64(),
                up: dir(&s.up),
                down: dir(&s.down),
            }),
            workers: merged.workers,
            skew_ms: merged.skew_ms,
            overlap_s: merged.overlap_s,
            skewed: merged.skewed,
            bottleneck: probe.map(|p| {
                let ok = p.as_ref().ok();
                BottleneckOutput {
                    cap: bottleneck::CAP,
                    ratio: ok.map(|p| p.ratio),
                    lo: ok.map(|p| p.lo),
                    hi: ok.map(|p| p.hi),
                    pairs: ok.map(|p| p.pairs),
                    paused: ok.map(|p| p.paused),
                    instrument_bound: !ok.is_some_and(Bottleneck::cleared),
                    error: p.as_ref().err().cloned(),
                }
            }),
        };
        println!("{}", serde_json::to_string(&out).expect("a load's output serializes"));
    } else {
        println!("requests {}  errors {}  duration {secs:.3} s  {rps:.0} req/s", r.requests, r.errors);
        match &r.latency_uncorrected {
            // The open model: response time from the schedule, service time from the actual send.
            Some(u) => {
                println!(
                    "latency µs from intended send (corrected): min {} p50 {} p90 {} p99 {} p99.9 {} max {}",
                    l.min, l.p50, l.p90, l.p99, l.p999, l.max
                );
                println!(
                    "latency µs from actual send (uncorrected): min {} p50 {} p90 {} p99 {} p99.9 {} max {}",
                    u.min, u.p50, u.p90, u.p99, u.p999, u.max
                );
            }
            None => println!(
                "latency µs: min {} p50 {} p90 {} p99 {} p99.9 {} max {}",
                l.min, l.p50, l.p90, l.p99, l.p999, l.max
            ),
        }
        if let Some(i) = r.iterations {
            println!("iterations {i}  {:.0} iterations/s", per_s(i));
            for s in &r.steps {
                let l = &s.latency_us;
                println!(
                    "  step {:<12} requests {}  errors {}  latency µs p50 {} p99 {} max {}",
                    s.label, s.requests, s.errors, l.p50, l.p99, l.max
                );
            }
        }
        if let Some(f) = &r.first_message {
            println!("first message µs: p50 {} p99 {} max {}", f.p50, f.p99, f.max);
        }
        println!("bytes sent {}  received {}  instrument CPU {cpu_s:.3} s", r.bytes_sent, r.bytes_received);
        if let Some(e) = &r.first_error {
            println!("first error: {e}");
        }
        match probe {
            Some(Ok(p)) => println!(
                "bottleneck: with {:.0} % of its CPU time in every other 30-ms slice the client moved {:.3}× [{:.3}, {:.3}] the bytes of the slices beside ({} slices): {}",
                100.0 * bottleneck::CAP,
                p.ratio,
                p.lo,
                p.hi,
                p.pairs,
                if p.cleared() { "the server set the pace" } else { "the client may have set the pace" }
            ),
            Some(Err(e)) => println!("bottleneck: cannot tell whether the client set the pace: {e}"),
            None => {}
        }
        if let Some((spec, s)) = net {
            let dir = |d: &wirebench_link::DirStats| {
                format!(
                    "{} packets, {} lost, {} over the queue",
                    d.counters.packets, d.counters.lost, d.counters.overflow
                )
            };
            println!(
                "link {spec}: client → server {}; server → client {}; forwarder CPU {:.3} s, {} packets more than 1 ms late",
                dir(&s.up),
                dir(&s.down),
                s.cpu().as_secs_f64(),
                s.up.late + s.down.late
            );
        }
    }
}

/// The script of thread group `group` of a suite, its data generated or read as the suite's rows are.
fn group_script(suite: &str, group: &str, suites_dir: &std::path::Path) -> anyhow::Result<std::sync::Arc<Script>> {
    let path = suite::resolve(suite, suites_dir);
    let root = suite::project_root(suites_dir)?;
    let suite = Suite::load(&path, &root, &wirebench_load::Registry).map_err(|e| anyhow::anyhow!(e))?;
    if !suite.groups.contains_key(group) {
        let known: Vec<&str> = suite.groups.keys().map(String::as_str).collect();
        bail!(
            "{} has no thread group `{group}` (it has: {})",
            path.display(),
            if known.is_empty() { "none".into() } else { known.join(", ") }
        );
    }
    let mut scripts = suite::groups::scripts(&suite.groups, &root)
        .map_err(|(key, message)| anyhow::anyhow!("{}: {key}: {message}", path.display()))?;
    Ok(scripts.remove(group).expect("every group has a script"))
}

/// The wall-clock instant of `--start-at`: seconds since the epoch (`1796000000.5`), or `+5s` /
/// `+500ms` from now, so workers started apart measure together.
fn start_instant(text: &str) -> anyhow::Result<std::time::SystemTime> {
    let bad = || anyhow::anyhow!("--start-at `{text}`: expected seconds since the epoch or +<n>s / +<n>ms from now");
    let now = std::time::SystemTime::now();
    if let Some(rel) = text.strip_prefix('+') {
        let (n, unit) = match rel.strip_suffix("ms") {
            Some(n) => (n, 1e-3),
            None => (rel.strip_suffix('s').ok_or_else(bad)?, 1.0),
        };
        let secs = n.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(bad)? * unit;
        return Ok(now + std::time::Duration::from_secs_f64(secs));
    }
    let secs = text.parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0).ok_or_else(bad)?;
    Ok(std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(secs))
}

/// Sleeps until `at`; an instant more than a second past is an error (this worker would start
/// late against the others).
fn wait_until(at: std::time::SystemTime) -> anyhow::Result<()> {
    match at.duration_since(std::time::SystemTime::now()) {
        Ok(wait) => {
            std::thread::sleep(wait);
            Ok(())
        }
        Err(e) if e.duration() <= std::time::Duration::from_secs(1) => Ok(()),
        Err(e) => {
            bail!("--start-at passed {:.1} s before this worker was ready to measure", e.duration().as_secs_f64())
        }
    }
}

/// `key=value` pairs: the value as JSON (`10`, `true`, `"x"`), else as a plain string.
fn parse_params(pairs: &[String]) -> anyhow::Result<BTreeMap<String, serde_json::Value>> {
    pairs
        .iter()
        .map(|pair| {
            let (k, v) = pair.split_once('=').with_context(|| format!("--param `{pair}`: expected key=value"))?;
            if k.is_empty() {
                bail!("--param `{pair}`: the key is empty");
            }
            let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
            Ok((k.to_string(), value))
        })
        .collect()
}

/// `-H 'Name: value'` headers, as curl takes them.
fn parse_headers(headers: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    headers
        .iter()
        .map(|h| {
            let (name, value) = h.split_once(':').with_context(|| format!("-H `{h}`: expected `Name: value`"))?;
            let name = name.trim();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
                bail!("-H `{h}`: `{name}` is not a header name");
            }
            Ok((name.to_string(), value.trim().to_string()))
        })
        .collect()
}

/// Where `--resolve` or `--connect-to` send the URL's `host:port`, as `ADDR:PORT`; an option
/// that names another host or port is an error (curl would ignore it silently).
fn connect_to(resolve: Option<&str>, connect_to: Option<&str>, target: &Target) -> anyhow::Result<Option<String>> {
    let (flag, text) = match (resolve, connect_to) {
        (Some(r), _) => ("--resolve", r),
        (None, Some(c)) => ("--connect-to", c),
        (None, None) => return Ok(None),
    };
    // An IPv6 address in brackets may hold colons: split on the colons outside brackets.
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ':' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    let (host, port, to) = match (flag, parts.as_slice()) {
        ("--resolve", [host, port, addr]) => (*host, *port, format!("{addr}:{port}")),
        ("--connect-to", [host, port, host2, port2]) => (*host, *port, format!("{host2}:{port2}")),
        _ if flag == "--resolve" => bail!("--resolve `{text}`: expected HOST:PORT:ADDR"),
        _ => bail!("--connect-to `{text}`: expected HOST:PORT:HOST2:PORT2"),
    };
    if host != target.host || port.parse::<u16>().ok() != Some(target.port) {
        bail!("{flag} `{text}` names {host}:{port}, not the URL's {}:{}", target.host, target.port);
    }
    Ok(Some(to))
}

/// Splits `<scheme>://host:port/path`, the scheme one the driver accepts (`http`/`https`,
/// `ws`/`wss`, `mqtt`: the registry's).
fn parse_url(url: &str, driver: &DriverInfo) -> anyhow::Result<(Target, String)> {
    let Some((scheme, rest)) = url.split_once("://") else {
        bail!(
            "`{url}`: expected <scheme>://host:port[/path] with one of {}",
            scheme_names(&wirebench_load::registry::schemes())
        );
    };
    let Some(&(_, tls)) = driver.schemes.iter().find(|(s, _)| *s == scheme) else {
        bail!("`{url}`: the {} driver takes {} URLs", driver.id, scheme_names(driver.schemes));
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (host, port) = authority.rsplit_once(':').with_context(|| format!("`{url}`: the URL needs a port"))?;
    let port: u16 = port.parse().with_context(|| format!("`{url}`: bad port `{port}`"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let path = if path.is_empty() { "/".to_string() } else { path.to_string() };
    Ok((Target { host: host.to_string(), port, tls, ..Target::default() }, path))
}

/// `http://`, `https://` ... for a message.
fn scheme_names(schemes: &[(&str, bool)]) -> String {
    schemes.iter().map(|(s, _)| format!("{s}://")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::{connect_to, parse_headers, parse_params, parse_url as parse, Target};
    use wirebench_load::driver_info;

    #[test]
    fn params_are_json_values_or_strings() {
        let p = parse_params(&["messages=10".into(), "call=bidi".into(), "x=\"q\"".into()]).unwrap();
        assert_eq!(p["messages"], serde_json::json!(10));
        assert_eq!((p["call"].as_str(), p["x"].as_str()), (Some("bidi"), Some("q")));
        assert!(parse_params(&["novalue".into()]).unwrap_err().to_string().contains("expected key=value"));
        assert!(parse_params(&["=1".into()]).is_err());
    }

    #[test]
    fn urls_parse_by_the_drivers_schemes() {
        let remote = parse("http://wirebench-subject:8080/payload/1024", driver_info("http1").unwrap()).unwrap();
        assert_eq!((remote.0.host.as_str(), remote.0.port), ("wirebench-subject", 8080));
        let http1 = driver_info("http1").unwrap();
        let (t, p) = parse("https://127.0.0.1:8443/payload/1024", http1).unwrap();
        assert_eq!((t.host.as_str(), t.port, t.tls, p.as_str()), ("127.0.0.1", 8443, true, "/payload/1024"));
        assert_eq!(parse("http://localhost:80", http1).unwrap().1, "/");
        let ws = driver_info("websocket").unwrap();
        assert!(parse("wss://127.0.0.1:1/ws", ws).unwrap().0.tls && !parse("ws://[::1]:1/ws", ws).unwrap().0.tls);
        assert!(!parse("mqtt://127.0.0.1:1883", driver_info("mqtt").unwrap()).unwrap().0.tls);
        let err = parse("ws://127.0.0.1:1/ws", http1).unwrap_err().to_string();
        assert_eq!(err, "`ws://127.0.0.1:1/ws`: the http1 driver takes http://, https:// URLs");
        let err = parse("http://127.0.0.1:1/", driver_info("http3").unwrap()).unwrap_err().to_string();
        assert!(err.contains("the http3 driver takes https:// URLs"), "{err}");
        for bad in ["ftp://x", "x", "http://127.0.0.1/x", "http://127.0.0.1:x/"] {
            assert!(parse(bad, http1).is_err(), "{bad}");
        }
    }

    #[test]
    fn headers_are_curls_and_resolve_keeps_the_name_while_it_moves_the_address() {
        let h = parse_headers(&["X-Token: t".into(), "Accept:application/json".into()]).unwrap();
        assert_eq!((h["X-Token"].as_str(), h["Accept"].as_str()), ("t", "application/json"));
        for bad in ["no colon", ": empty", "Bad Name: x"] {
            assert!(parse_headers(&[bad.into()]).is_err(), "{bad}");
        }
        let (t, _) = parse("https://site-a.test:8443/", driver_info("http1").unwrap()).unwrap();
        let to = connect_to(Some("site-a.test:8443:127.0.0.1"), None, &t).unwrap();
        let moved = Target { connect_to: to, ..t.clone() };
        assert_eq!((moved.address(), moved.host.as_str()), (("127.0.0.1".to_string(), 8443), "site-a.test"));
        let to = connect_to(None, Some("site-a.test:8443:[::1]:9443"), &t).unwrap();
        assert_eq!(Target { connect_to: to, ..t.clone() }.address(), ("::1".to_string(), 9443));
        let err = connect_to(Some("other.test:8443:127.0.0.1"), None, &t).unwrap_err().to_string();
        assert_eq!(err, "--resolve `other.test:8443:127.0.0.1` names other.test:8443, not the URL's site-a.test:8443");
        assert!(connect_to(Some("site-a.test:127.0.0.1"), None, &t).is_err());
    }
}
