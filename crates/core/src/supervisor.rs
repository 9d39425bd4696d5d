//! The subject supervisor: builds and starts a subject on free loopback ports, waits until its
//! health check answers, and stops it (TERM, then KILL). Services (a broker, a database) start the
//! same way, from a directory of their own in the run's with their generated files, and are ready
//! when a port accepts or a command succeeds. Subjects and services never outlive the runner:
//! each runs in its own process group with `PR_SET_PDEATHSIG`, so even a SIGKILL of the runner
//! ends it. (The kernel clears that signal when a process changes its user, so a service must not
//! switch users by itself: Mosquitto's generated config says `user root` when run as root.)

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::suite::{HarnessSpec, Placeholders, Ready, ServiceSpec, SubjectSpec};

/// How often readiness is polled while waiting (bounded by the subject's `ready_timeout_s`).
const READY_POLL: Duration = Duration::from_millis(25);
/// How long a subject gets to exit after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// Lines of the subject's stderr shown when it fails.
const TAIL_LINES: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum SupervisorError {
    #[error("subject `{subject}` listens on loopback only (its subject.toml names no `host` flag): workers on other machines cannot load it")]
    LoopbackOnly { subject: String },
    #[error("subject `{subject}`: port {port} ({name}) is taken: free it or remove it from fixed_ports")]
    PortTaken { subject: String, name: String, port: u16 },
    #[error("subject `{subject}`: cannot start `{program}`: {source}{hint}")]
    Spawn { subject: String, program: String, source: std::io::Error, hint: String },
    /// `who` names what needs the build ("subject `x` and 3 more").
    #[error("{who}: build `{command}` failed: {tail}")]
    Build { who: String, command: String, tail: String },
    #[error("subject `{subject}`: setup `{command}` failed: {tail}")]
    Setup { subject: String, command: String, tail: String },
    /// `who` is "subject `x`" or "service `x`".
    #[error("{who} exited with {status} before it was ready; last stderr: {tail}")]
    Exited { who: String, status: String, tail: String },
    #[error("{who} not ready after {timeout_s} s ({check}); last stderr: {tail}")]
    NotReady { who: String, timeout_s: f64, check: String, tail: String },
    #[error("service `{service}`: `{program}` is not installed{hint}")]
    Missing { service: String, program: String, hint: String },
    #[error("service `{service}`: {message}")]
    Service { service: String, message: String },
    #[error("harness `{id}` failed ({status}); last stderr: {tail}")]
    HarnessFailed { id: String, status: String, tail: String },
    #[error("cannot pick a free port: {0}")]
    NoPort(std::io::Error),
    #[error("cannot write {path}: {source}")]
    Log { path: String, source: std::io::Error },
}

impl SupervisorError {
    /// A subject that exited before it was ready because an address it was to listen on was
    /// in use: the words of Rust's, Go's, Java's and C's error (`EADDRINUSE`), and Node's code.
    fn lost_its_port(&self) -> bool {
        match self {
            SupervisorError::Exited { tail, .. } => {
                let tail = tail.to_ascii_lowercase();
                tail.contains("address already in use") || tail.contains("eaddrinuse")
            }
            _ => false,
        }
    }
}

/// How many times a subject is started in all when it exits because a drawn port was taken
/// before it could bind it (`free_port`).
const PORT_RACES: usize = 3;

/// A subject the runner can start; implemented by `Supervisor` and by mocks in tests.
pub trait Launcher {
    fn start(&self, name: &str, spec: &SubjectSpec) -> Result<Box<dyn RunningSubject>, SupervisorError>;

    /// Starts a service: writes its files into its own directory, runs its setup commands,
    /// starts it and waits until it is ready.
    fn start_service(&self, name: &str, spec: &ServiceSpec) -> Result<Box<dyn RunningSubject>, SupervisorError>;

    /// Runs an in-process harness with `args` appended, calling `line` with each line it prints
    /// on stdout as it prints it. Errors when it cannot start, exits non-zero or times out.
    fn harness(&self, h: &HarnessSpec, args: &[String], line: &mut dyn FnMut(&str)) -> Result<(), SupervisorError>;
}

/// A started, ready subject.
pub trait RunningSubject {
    /// Port number by name (`plain`, `tls`, ...).
    fn ports(&self) -> &BTreeMap<String, u16>;
    /// Process id for CPU and memory sampling; `None` for mocks.
    fn pid(&self) -> Option<u32>;
    /// Stops the subject; also done on drop.
    fn stop(&mut self);
    /// A service's directory (`{<service>.dir}`); `None` for subjects.
    fn dir(&self) -> Option<&Path> {
        None
    }
}

/// Starts real processes.
pub struct Supervisor {
    /// Project root: commands and working directories are relative to it.
    pub root: PathBuf,
    /// Where each subject's stderr goes (`subject-<name>.log`).
    pub log_dir: PathBuf,
    /// CPUs the subject is pinned to (empty: not pinned).
    pub cpus: Vec<usize>,
    /// An address subjects listen on instead of their loopback default (`0.0.0.0` when workers
    /// on other machines load them), passed by each subject's `host` flag.
    pub listen: Option<String>,
}

impl Supervisor {
    /// A supervisor whose subjects run on any CPU and listen on loopback, as builds and tests
    /// start them.
    pub fn unpinned(root: PathBuf, log_dir: PathBuf) -> Supervisor {
        Supervisor { root, log_dir, cpus: Vec::new(), listen: None }
    }

    /// Runs one build step (`argv`, in `workdir`) for `who` (what needs it, for the error).
    pub fn build(&self, who: &str, argv: &[String], workdir: Option<&str>) -> Result<(), SupervisorError> {
        let Some((program, args)) = argv.split_first() else { return Ok(()) };
        let command = argv.join(" ");
        let out =
            Command::new(program).args(args).current_dir(self.dir(workdir)).stdin(Stdio::null()).output().map_err(
                |e| SupervisorError::Build { who: who.into(), command: command.clone(), tail: e.to_string() },
            )?;
        if !out.status.success() {
            let text = String::from_utf8_lossy(&out.stderr);
            return Err(SupervisorError::Build { who: who.into(), command, tail: tail(&text) });
        }
        Ok(())
    }

    /// `<log_dir>/<file>` for a process's output: created, or for a later `start` of a subject
    /// appended to, below a line naming that start.
    fn log_file(&self, file: &str, start: Option<usize>) -> Result<(PathBuf, std::fs::File), SupervisorError> {
        use std::io::Write as _;
        let path = self.log_dir.join(file);
        let log_error = |source| SupervisorError::Log { path: path.display().to_string(), source };
        std::fs::create_dir_all(&self.log_dir).map_err(log_error)?;
        let log = match start {
            None => std::fs::File::create(&path).map_err(log_error)?,
            Some(start) => {
                let mut log = std::fs::OpenOptions::new().append(true).create(true).open(&path).map_err(log_error)?;
                writeln!(
                    log,
                    "wirebench: start {start} of {PORT_RACES}, on new ports: a port of the last start was taken"
                )
                .map_err(log_error)?;
                log
            }
        };
        Ok((path, log))
    }

    /// Draws the subject's ports (or checks its fixed ones), starts it and waits until it is
    /// ready.
    fn spawn_subject(
        &self,
        name: &str,
        spec: &SubjectSpec,
        workdir: &Path,
        listen: Option<&[String; 2]>,
        start: usize,
    ) -> Result<Box<dyn RunningSubject>, SupervisorError> {
        let mut ports = BTreeMap::new();
        for port_name in spec.ports.keys() {
            let port = match spec.fixed_ports.get(port_name) {
                Some(&port) => {
                    if TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_err() {
                        return Err(SupervisorError::PortTaken { subject: name.into(), name: port_name.clone(), port });
                    }
                    port
                }
                None => free_port()?,
            };
            ports.insert(port_name.clone(), port);
        }
        let program = resolve_program(&spec.command[0], workdir);
        let file = format!("subject-{name}.log");
        // A start after a lost port goes on in the same log, below the start that lost it.
        let (log_path, log) = self.log_file(&file, (start > 1).then_some(start))?;
        let log_from = log.metadata().map_or(0, |m| m.len());
        let mut cmd = Command::new(&program);
        cmd.args(&spec.command[1..]).current_dir(workdir).envs(&spec.env);
        for (port_name, flag) in &spec.ports {
            cmd.arg(flag).arg(ports[port_name].to_string());
        }
        if let Some(listen) = listen {
            cmd.args(listen);
        }
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
        tie_to_runner(&mut cmd, &self.cpus);
        let child = cmd.spawn().map_err(|source| SupervisorError::Spawn {
            subject: name.into(),
            program: program.display().to_string(),
            hint: if source.kind() == std::io::ErrorKind::NotFound && spec.build.is_some() {
                " (was its build skipped? run `wirebench build`)".into()
            } else {
                String::new()
            },
            source,
        })?;
        let mut subject =
            Process { who: format!("subject `{name}`"), child, ports, log_path, log_from, stopped: false, dir: None };
        let health = spec.health.as_ref().expect("a checked subject the runner starts has a health check");
        let port = subject.ports[&health.port];
        let check = format!("GET http://127.0.0.1:{port}{}", health.path);
        subject.wait_ready(spec.ready_timeout_s, check, || health_ok(port, &health.path))?;
        Ok(Box::new(subject))
    }

    fn workdir(&self, spec: &SubjectSpec) -> PathBuf {
        self.dir(spec.workdir.as_deref())
    }

    /// A directory relative to the project root (the root itself for `None`).
    pub fn dir(&self, workdir: Option<&str>) -> PathBuf {
        match workdir {
            Some(w) => self.root.join(w),
            None => self.root.clone(),
        }
    }
}

impl Launcher for Supervisor {
    fn start(&self, name: &str, spec: &SubjectSpec) -> Result<Box<dyn RunningSubject>, SupervisorError> {
        let listen = match (&self.listen, &spec.host) {
            (None, _) => None,
            (Some(address), Some(flag)) => Some([flag.clone(), address.clone()]),
            (Some(_), None) => return Err(SupervisorError::LoopbackOnly { subject: name.into() }),
        };
        let workdir = self.workdir(spec);
        for step in &spec.setup {
            let program = resolve_program(&step[0], &workdir);
            let mut cmd = Command::new(&program);
            cmd.args(&step[1..]).current_dir(&workdir).envs(&spec.env).stdin(Stdio::null());
            tie_to_runner(&mut cmd, &[]);
            let failed = |tail: String| SupervisorError::Setup { subject: name.into(), command: step.join(" "), tail };
            match run_step(cmd) {
                Err(StepFailure::Start(e)) => return Err(failed(format!("cannot start `{}`: {e}", program.display()))),
                Err(StepFailure::Exit(status, stderr)) => return Err(failed(format!("{status}: {stderr}"))),
                Ok(()) => {}
            }
        }
        // A drawn port can still be taken by another process between the draw and the subject's
        // bind (`free_port`); the subject then exits saying so, and starts again on new ports.
        let mut tries = 1;
        loop {
            match self.spawn_subject(name, spec, &workdir, listen.as_ref(), tries) {
                Err(e) if tries < PORT_RACES && spec.fixed_ports.is_empty() && e.lost_its_port() => tries += 1,
                started => return started,
            }
        }
    }

    fn start_service(&self, name: &str, spec: &ServiceSpec) -> Result<Box<dyn RunningSubject>, SupervisorError> {
        let failed = |message: String| SupervisorError::Service { service: name.into(), message };
        // A service started again in the same run (behind a network link, or in a sequential
        // round) gets a directory of its own: `service-<name>-2`, ...; a database's init refuses
        // a used one, and the first start's files and log stay for the report's reader.
        let stem = (1..)
            .map(|i| if i == 1 { format!("service-{name}") } else { format!("service-{name}-{i}") })
            .find(|stem| !self.log_dir.join(stem).exists())
            .expect("some directory name is free");
        let dir = self.log_dir.join(&stem);
        std::fs::create_dir_all(&dir).map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
        // Absolute, since the service runs in it and `{dir}` names it in its own arguments.
        let dir = dir.canonicalize().map_err(|e| failed(format!("cannot resolve {}: {e}", dir.display())))?;
        let mut ports = BTreeMap::new();
        for port_name in &spec.ports {
            ports.insert(port_name.clone(), free_port()?);
        }
        let own = Placeholders::own(&dir.display().to_string(), &ports);
        // A project script (`subjects/…/service.sh`) is named relative to the project root, as
        // subjects' programs are; the service itself runs in its own directory.
        let fill = |argv: &[String]| -> Result<Vec<String>, SupervisorError> {
            let mut argv = own.fill_all(argv).map_err(failed)?;
            if argv[0].contains('/') && Path::new(&argv[0]).is_relative() {
                argv[0] = self.root.join(&argv[0]).display().to_string();
            }
            Ok(argv)
        };
        let command = fill(&spec.command)?;
        let env = own.fill_map(&spec.env).map_err(failed)?;
        let program = find_program(&command[0]).ok_or_else(|| SupervisorError::Missing {
            service: name.into(),
            program: command[0].clone(),
            hint: spec.install.as_ref().map_or(String::new(), |i| format!(": {i}")),
        })?;
        for (file, text) in &spec.files {
            let path = dir.join(file);
            let text = text.text(&self.root).map_err(failed)?;
            std::fs::write(&path, own.fill(&text).map_err(failed)?)
                .map_err(|e| failed(format!("cannot write {}: {e}", path.display())))?;
        }
        for step in &spec.setup {
            let step = fill(step)?;
            match run_step(helper_command(&step, &dir, &env)) {
                Err(StepFailure::Start(e)) => return Err(failed(format!("setup `{}`: {e}", step.join(" ")))),
                Err(StepFailure::Exit(status, stderr)) => {
                    return Err(failed(format!("setup `{}` failed ({status}): {stderr}", step.join(" "))));
                }
                Ok(()) => {}
            }
        }
        let (log_path, log) = self.log_file(&format!("{stem}.log"), None)?;
        let stdout =
            log.try_clone().map_err(|source| SupervisorError::Log { path: log_path.display().to_string(), source })?;
        let mut cmd = Command::new(&program);
        cmd.args(&command[1..]).current_dir(&dir).envs(&env);
        cmd.stdin(Stdio::null()).stdout(stdout).stderr(log);
        tie_to_runner(&mut cmd, &self.cpus);
        let child = cmd.spawn().map_err(|e| failed(format!("cannot start `{}`: {e}", program.display())))?;
        let mut service = Process {
            who: format!("service `{name}`"),
            child,
            ports,
            log_path,
            log_from: 0,
            stopped: false,
            dir: Some(dir),
        };
        match &spec.ready {
            Ready::Port(p) => {
                let port = service.ports[p];
                let check = format!("nothing accepted on port {port} ({p})");
                service.wait_ready(spec.ready_timeout_s, check, || port_accepts(port))?;
            }
            Ready::Command(argv) => {
                let argv = fill(argv)?;
                let check = format!("`{}` kept failing", argv.join(" "));
                let dir = service.dir.clone().unwrap_or_default();
                service.wait_ready(spec.ready_timeout_s, check, || command_succeeds(&argv, &dir, &env))?;
            }
        }
        Ok(Box::new(service))
    }

    fn harness(&self, h: &HarnessSpec, args: &[String], line: &mut dyn FnMut(&str)) -> Result<(), SupervisorError> {
        let workdir = self.dir(h.workdir.as_deref());
        let program = resolve_program(&h.command[0], &workdir);
        let (log_path, log) = self.log_file(&format!("harness-{}.log", h.id), None)?;
        let mut cmd = Command::new(&program);
        cmd.args(&h.command[1..]).args(args).current_dir(&workdir);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(log);
        tie_to_runner(&mut cmd, &self.cpus);
        let mut child = cmd.spawn().map_err(|source| SupervisorError::Spawn {
            subject: h.id.clone(),
            program: program.display().to_string(),
            source,
            hint: String::new(),
        })?;
        let pgid = child.id() as libc::pid_t;
        let stdout = child.stdout.take().expect("stdout is piped");
        // A watchdog ends a harness that runs past its timeout; reading stdout then sees EOF.
        let finished = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let timed_out = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watchdog = {
            let (finished, timed_out) = (finished.clone(), timed_out.clone());
            let deadline = Instant::now() + Duration::from_secs_f64(h.timeout_s);
            std::thread::spawn(move || {
                while !finished.load(std::sync::atomic::Ordering::Relaxed) {
                    if Instant::now() >= deadline {
                        timed_out.store(true, std::sync::atomic::Ordering::Relaxed);
                        // SAFETY: signalling our own child's process group.
                        unsafe { libc::kill(-pgid, libc::SIGKILL) };
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
        };
        for l in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            match l {
                Ok(l) if !l.trim().is_empty() => line(&l),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let status = child.wait();
        finished.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = watchdog.join();
        let failed = |status: String| SupervisorError::HarnessFailed {
            id: h.id.clone(),
            status,
            tail: tail(&std::fs::read_to_string(&log_path).unwrap_or_default()),
        };
        if timed_out.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(failed(format!("killed after its timeout of {} s", h.timeout_s)));
        }
        match status {
            Ok(s) if s.success() => Ok(()),
            Ok(s) => Err(failed(s.to_string())),
            Err(e) => Err(failed(e.to_string())),
        }
    }
}

/// Makes the process `cmd` will start die with the runner (even on SIGKILL of the runner), puts
/// it in a process group of its own so it can be stopped with everything it starts, and pins it
/// to `cpus` (empty: not pinned).
pub fn tie_to_runner(cmd: &mut Command, cpus: &[usize]) {
    let cpus = cpus.to_vec();
    let parent = std::process::id() as libc::pid_t;
    cmd.process_group(0);
    // SAFETY: only async-signal-safe calls (prctl, getppid, sched_setaffinity, _exit) between
    // fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The runner may have died before prctl took effect.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            if !cpus.is_empty() {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                for &c in &cpus {
                    libc::CPU_SET(c, &mut set);
                }
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
            }
            Ok(())
        });
    }
}

/// A program path with a slash is relative to the working directory; a bare name is looked up
/// on PATH.
pub fn resolve_program(program: &str, workdir: &Path) -> PathBuf {
    if program.contains('/') {
        workdir.join(program)
    } else {
        PathBuf::from(program)
    }
}

/// A service's program: a path as given (`start_service` has made a relative one the project
/// root's), a bare name on PATH, else in the system directories Debian installs servers to
/// (`/usr/sbin`, PostgreSQL's versioned `bin`).
fn find_program(program: &str) -> Option<PathBuf> {
    let is_file = |p: &Path| p.is_file();
    if program.contains('/') {
        return Some(PathBuf::from(program)).filter(|p| is_file(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend(["/usr/local/sbin", "/usr/sbin", "/sbin"].map(PathBuf::from));
    let mut postgres: Vec<PathBuf> =
        glob::glob("/usr/lib/postgresql/*/bin").map(|g| g.flatten().collect()).unwrap_or_default();
    postgres.sort();
    dirs.extend(postgres.into_iter().rev());
    dirs.into_iter().map(|d| d.join(program)).find(|p| is_file(p))
}

/// Why a setup step (a subject's or a service's) failed.
enum StepFailure {
    Start(std::io::Error),
    /// Its exit status and the tail of its stderr.
    Exit(std::process::ExitStatus, String),
}

/// Runs a setup step to its end, its output captured.
fn run_step(mut cmd: Command) -> Result<(), StepFailure> {
    let out = cmd.output().map_err(StepFailure::Start)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(StepFailure::Exit(out.status, tail(&String::from_utf8_lossy(&out.stderr))))
    }
}

fn port_accepts(port: u16) -> bool {
    TcpStream::connect_timeout(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)), Duration::from_millis(500)).is_ok()
}

/// Runs a readiness command (tied to the runner, output discarded); true when it exits 0.
fn command_succeeds(argv: &[String], dir: &Path, env: &BTreeMap<String, String>) -> bool {
    helper_command(argv, dir, env).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// A service's setup or readiness command, in its directory with its environment, tied to the
/// runner and unpinned.
fn helper_command(argv: &[String], dir: &Path, env: &BTreeMap<String, String>) -> Command {
    let program = find_program(&argv[0]).unwrap_or_else(|| PathBuf::from(&argv[0]));
    let mut cmd = Command::new(program);
    cmd.args(&argv[1..]).current_dir(dir).envs(env).stdin(Stdio::null());
    tie_to_runner(&mut cmd, &[]);
    cmd
}

/// A loopback port free for TCP and for UDP alike, so a subject may serve either on it (HTTP/3
/// listens on UDP), drawn from below the kernel's ephemeral range where that leaves room.
///
/// A port is free when checked and taken when the subject binds it, moments later. Between the
/// two, any socket that connects out or binds port 0 anywhere on the machine may be given an
/// ephemeral port: our own load's connections, another run's, a test's. A port the kernel picked
/// (bind to 0) is such a port: in one of eight idle runs of tests/cli.rs a subject lost its port
/// that way ("Address already in use"; 2-core VM, 2026-11-29). The kernel never hands out a port
/// below its ephemeral range, so there only a process asking for that very number can take it:
/// another run drawing from the same range. A subject that loses its port anyway is started
/// again on new ones (`PORT_RACES`).
fn free_port() -> Result<u16, SupervisorError> {
    use rand::{Rng, SeedableRng};
    let mut last = None;
    let below = below_ephemeral();
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed ^ u64::from(std::process::id()));
    for _ in 0..64 {
        let (tcp, port) = match &below {
            Some(range) => {
                let port = rng.random_range(range.clone());
                match TcpListener::bind((Ipv4Addr::LOCALHOST, port)) {
                    Ok(l) => (l, port),
                    Err(e) => {
                        last = Some(e);
                        continue;
                    }
                }
            }
            None => {
                let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(SupervisorError::NoPort)?;
                let port = l.local_addr().map_err(SupervisorError::NoPort)?.port();
                (l, port)
            }
        };
        let udp = std::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, port));
        drop(tcp);
        match udp {
            Ok(_) => return Ok(port),
            Err(e) => last = Some(e),
        }
    }
    Err(SupervisorError::NoPort(last.expect("at least one try")))
}

/// The ports from `LOWEST_DRAWN` up to the kernel's ephemeral range
/// (`net.ipv4.ip_local_port_range`, 32768 on Linux by default); `None` where that is not a few
/// thousand ports (then the kernel picks).
fn below_ephemeral() -> Option<std::ops::Range<u16>> {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok()?;
    let low: u16 = text.split_whitespace().next()?.parse().ok()?;
    (low >= LOWEST_DRAWN + 2000).then_some(LOWEST_DRAWN..low)
}

/// Ports below are the well-known and the registered ones servers are usually configured on
/// (8080, 5432, 9090): left to the machine's own services.
const LOWEST_DRAWN: u16 = 20000;

struct Process {
    /// "subject `x`" or "service `x`", for errors.
    who: String,
    child: Child,
    ports: BTreeMap<String, u16>,
    log_path: PathBuf,
    /// Where this start's output begins in the log (a later start of a subject appends).
    log_from: u64,
    stopped: bool,
    dir: Option<PathBuf>,
}

impl Process {
    /// Polls `ready` until it holds, the process exits or `timeout_s` passes (then it is stopped).
    fn wait_ready(&mut self, timeout_s: f64, check: String, ready: impl Fn() -> bool) -> Result<(), SupervisorError> {
        let deadline = Instant::now() + Duration::from_secs_f64(timeout_s);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.stopped = true;
                // What it started may still hold its ports (a wrapper's server, say).
                // SAFETY: signalling our own child's process group.
                unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
                return Err(SupervisorError::Exited {
                    who: self.who.clone(),
                    status: status.to_string(),
                    tail: self.stderr_tail(),
                });
            }
            if ready() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                self.stop();
                return Err(SupervisorError::NotReady {
                    who: self.who.clone(),
                    timeout_s,
                    check,
                    tail: self.stderr_tail(),
                });
            }
            std::thread::sleep(READY_POLL);
        }
    }

    fn stderr_tail(&self) -> String {
        let text = std::fs::read(&self.log_path).unwrap_or_default();
        let text = String::from_utf8_lossy(text.get(self.log_from as usize..).unwrap_or_default());
        let t = tail(&text);
        if t.is_empty() {
            format!("(empty; see {})", self.log_path.display())
        } else {
            t
        }
    }
}

/// The last lines of a text, joined with ` | ` so an error stays on one line.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join(" | ")
}

/// One HTTP/1.1 GET; true on a 200 status line.
fn health_ok(port: u16, path: &str) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) else { return false };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    s.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.") && &head[9..12] == b"200"
}

impl RunningSubject for Process {
    fn ports(&self) -> &BTreeMap<String, u16> {
        &self.ports
    }

    fn pid(&self) -> Option<u32> {
        Some(self.child.id())
    }

    fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: signalling our own child's process group.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                // Reap anything the subject left in its group.
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::{FileSpec, Health, Ready, ServiceSpec};

    fn spec(command: &[&str]) -> SubjectSpec {
        SubjectSpec {
            lang: "sh".into(),
            command: command.iter().map(|s| s.to_string()).collect(),
            build: None,
            setup: vec![],
            needs: vec![],
            workdir: None,
            ports: [("plain".to_string(), "--port".to_string())].into(),
            host: None,
            fixed_ports: BTreeMap::new(),
            env: BTreeMap::new(),
            health: Some(Health { port: "plain".into(), path: "/health".into() }),
            ready_timeout_s: 1.0,
            services: vec![],
            url: None,
            connect_to: None,
            ca: None,
            insecure: false,
            pid: None,
            client_cert: None,
            client_key: None,
        }
    }

    fn supervisor() -> (tempfile::TempDir, Supervisor) {
        let dir = tempfile::tempdir().unwrap();
        let s = Supervisor::unpinned(dir.path().into(), dir.path().into());
        (dir, s)
    }

    #[test]
    fn setup_steps_run_before_the_subject_and_a_failing_one_is_named() {
        let (d, s) = supervisor();
        let mut sp = spec(&["sh", "-c", "test -f prepared && echo ready >&2; exit 3", "subject"]);
        sp.setup = vec![vec!["sh".into(), "-c".into(), "touch prepared".into()]];
        let err = s.start("db", &sp).err().unwrap().to_string();
        assert!(err.contains("ready"), "the setup ran first, in the working directory: {err}");
        assert!(d.path().join("prepared").exists());
        sp.setup = vec![vec!["sh".into(), "-c".into(), "echo no space left >&2; exit 1".into()]];
        let err = s.start("db", &sp).err().unwrap().to_string();
        assert!(err.starts_with("subject `db`: setup `sh -c echo no space left >&2; exit 1` failed"), "{err}");
        assert!(err.contains("no space left"), "{err}");
    }

    #[test]
    fn subjects_listen_beyond_loopback_only_by_their_host_flag() {
        let (_d, mut s) = supervisor();
        s.listen = Some("0.0.0.0".into());
        // The script echoes its arguments and exits, so the error shows what it was given.
        let mut sp = spec(&["sh", "-c", "echo \"args: $*\" >&2; exit 3", "subject"]);
        let err = s.start("x", &sp).err().unwrap().to_string();
        assert!(err.starts_with("subject `x` listens on loopback only"), "{err}");
        sp.host = Some("--host".into());
        let err = s.start("x", &sp).err().unwrap().to_string();
        assert!(err.contains("--host 0.0.0.0"), "{err}");
        s.listen = None;
        let err = s.start("x", &sp).err().unwrap().to_string();
        assert!(!err.contains("--host"), "loopback by default: {err}");
    }

    #[test]
    fn a_subject_that_exits_early_is_named_with_its_stderr() {
        let (_d, s) = supervisor();
        let sp = spec(&["sh", "-c", "echo cannot open database >&2; exit 3", "subject"]);
        let err = s.start("db", &sp).err().unwrap().to_string();
        assert!(err.starts_with("subject `db` exited with exit status: 3"), "{err}");
        assert!(err.contains("cannot open database"), "{err}");
    }

    /// A subject script that appends the arguments it was given to `tries` and fails with
    /// `first` on its first start and `later` on the others.
    fn racing(first: &str, later: &str) -> SubjectSpec {
        let script = format!(
            "n=$(cat tries 2>/dev/null | wc -l); echo \"$*\" >> tries; \
             if [ \"$n\" -eq 0 ]; then echo '{first}' >&2; else echo '{later}' >&2; fi; exit 1"
        );
        spec(&["sh", "-c", &script, "subject"])
    }

    fn tries(dir: &tempfile::TempDir) -> Vec<String> {
        std::fs::read_to_string(dir.path().join("tries")).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn a_subject_that_lost_a_drawn_port_starts_again_on_new_ports() {
        let (d, s) = supervisor();
        let sp = racing("Error: cannot bind 127.0.0.1: Address already in use (os error 98)", "no database");
        let err = s.start("db", &sp).err().unwrap().to_string();
        assert!(err.starts_with("subject `db` exited") && err.contains("no database"), "{err}");
        let tries = tries(&d);
        assert_eq!(tries.len(), 2, "{tries:?}");
        assert_ne!(tries[0], tries[1], "drawn again: {tries:?}");
        // The log keeps both starts, the second one named.
        let log = std::fs::read_to_string(d.path().join("subject-db.log")).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 3, "{log}");
        assert!(lines[0].contains("Address already in use") && lines[1].contains("start 2 of 3"), "{log}");
    }

    #[test]
    fn a_port_race_is_retried_a_few_times_and_other_failures_not_at_all() {
        // Go's words, then Node's code: the same race.
        let (d, s) = supervisor();
        let sp = racing("listen tcp 127.0.0.1:20001: bind: address already in use", "Error: listen EADDRINUSE");
        let err = s.start("api", &sp).err().unwrap().to_string();
        assert!(err.contains("EADDRINUSE"), "{err}");
        assert_eq!(tries(&d).len(), PORT_RACES);
        let (d, s) = supervisor();
        let err = s.start("api", &racing("cannot open database", "unreachable")).err().unwrap().to_string();
        assert!(err.contains("cannot open database"), "{err}");
        assert_eq!(tries(&d).len(), 1);
        // A fixed port is the user's: no other port may be drawn for it.
        let (d, s) = supervisor();
        let mut sp = racing("Address already in use", "unreachable");
        sp.fixed_ports = [("plain".to_string(), free_port().unwrap())].into();
        let err = s.start("api", &sp).err().unwrap().to_string();
        assert!(err.contains("Address already in use"), "{err}");
        assert_eq!(tries(&d).len(), 1);
    }

    #[test]
    fn a_subject_that_never_answers_times_out_and_is_killed() {
        let (_d, s) = supervisor();
        let sp = spec(&["sh", "-c", "sleep 30", "sleepy"]);
        let t = Instant::now();
        let err = s.start("sleepy", &sp).err().unwrap().to_string();
        assert!(err.starts_with("subject `sleepy` not ready after 1 s"), "{err}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn free_ports_are_free_for_tcp_and_udp() {
        for _ in 0..20 {
            let port = free_port().unwrap();
            std::net::UdpSocket::bind((Ipv4Addr::LOCALHOST, port)).unwrap();
            TcpListener::bind((Ipv4Addr::LOCALHOST, port)).unwrap();
        }
    }

    /// Drawn below the ephemeral range (where the kernel hands out ports to connecting sockets),
    /// and spread over it, not the same few.
    #[test]
    fn free_ports_lie_below_the_ephemeral_range() {
        let Some(range) = below_ephemeral() else {
            let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").unwrap_or_default();
            let low: u16 = text.split_whitespace().next().and_then(|l| l.parse().ok()).unwrap_or(0);
            assert!(low < LOWEST_DRAWN + 2000, "no room below {text:?}, yet below_ephemeral gave none");
            return;
        };
        let ports: std::collections::BTreeSet<u16> = (0..20).map(|_| free_port().unwrap()).collect();
        assert!(ports.iter().all(|p| range.contains(p)), "{ports:?} outside {range:?}");
        assert!(ports.len() >= 15, "20 draws from thousands of ports repeat few: {ports:?}");
    }

    #[test]
    fn a_taken_fixed_port_is_reported() {
        let (_d, s) = supervisor();
        let taken = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = taken.local_addr().unwrap().port();
        let mut sp = spec(&["sleep", "30"]);
        sp.fixed_ports.insert("plain".into(), port);
        let err = s.start("x", &sp).err().unwrap().to_string();
        assert_eq!(err, format!("subject `x`: port {port} (plain) is taken: free it or remove it from fixed_ports"));
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let (_d, s) = supervisor();
        let err = s.start("x", &spec(&["./no-such-binary"])).err().unwrap().to_string();
        assert!(err.starts_with("subject `x`: cannot start"), "{err}");
    }

    fn service(command: &[&str], ready: Ready) -> ServiceSpec {
        ServiceSpec {
            command: command.iter().map(|s| s.to_string()).collect(),
            ports: vec!["main".into()],
            files: [("conf.txt".to_string(), FileSpec::Text("port {main} in {dir}".into()))].into(),
            setup: vec![vec!["sh".into(), "-c".into(), "echo set up > {dir}/setup.txt".into()]],
            env: BTreeMap::new(),
            ready,
            ready_timeout_s: 1.0,
            install: Some("run `make setup`".into()),
        }
    }

    /// A service that listens on the port its generated file names, like a broker reading its
    /// config: the file, the setup step, readiness by port, and a stop that ends it.
    #[test]
    fn a_service_gets_its_files_setup_and_port_and_stops() {
        let (d, s) = supervisor();
        let listen = "import socket,sys,time; p=int(open('conf.txt').read().split()[1]); \
                      l=socket.socket(); l.bind(('127.0.0.1',p)); l.listen(); time.sleep(30)";
        let mut svc = s.start_service("db", &service(&["python3", "-c", listen], Ready::Port("main".into()))).unwrap();
        let dir = d.path().join("service-db");
        assert_eq!(svc.dir(), Some(dir.as_path()));
        let port = svc.ports()["main"];
        let conf = std::fs::read_to_string(dir.join("conf.txt")).unwrap();
        assert_eq!(conf, format!("port {port} in {}", dir.display()));
        assert_eq!(std::fs::read_to_string(dir.join("setup.txt")).unwrap(), "set up\n");
        assert!(port_accepts(port));
        let pid = svc.pid().unwrap();
        svc.stop();
        assert!(!Path::new(&format!("/proc/{pid}")).exists() || !port_accepts(port), "stopped");
        // Started again in the same run (behind a link, in a sequential round): a directory of
        // its own, since a database's init refuses a used one; the first start's files stay.
        let mut again =
            s.start_service("db", &service(&["python3", "-c", listen], Ready::Port("main".into()))).unwrap();
        let second = d.path().join("service-db-2");
        assert_eq!(again.dir(), Some(second.as_path()));
        assert!(second.join("setup.txt").exists() && dir.join("setup.txt").exists());
        assert!(d.path().join("service-db-2.log").exists() && d.path().join("service-db.log").exists());
        again.stop();
    }

    #[test]
    fn service_failures_are_one_line_each() {
        let (_d, s) = supervisor();
        let missing = s.start_service("mq", &service(&["no-such-broker"], Ready::Port("main".into())));
        assert_eq!(
            missing.err().unwrap().to_string(),
            "service `mq`: `no-such-broker` is not installed: run `make setup`"
        );
        let never = s.start_service("mq", &service(&["sleep", "30"], Ready::Command(vec!["false".into()])));
        let e = never.err().unwrap().to_string();
        assert!(e.starts_with("service `mq` not ready after 1 s (`false` kept failing)"), "{e}");
        let mut bad_setup = service(&["sleep", "30"], Ready::Port("main".into()));
        bad_setup.setup = vec![vec!["sh".into(), "-c".into(), "echo no space left >&2; exit 4".into()]];
        let e = s.start_service("mq", &bad_setup).err().unwrap().to_string();
        assert!(e.starts_with("service `mq`: setup `sh -c echo no space"), "{e}");
        assert!(e.ends_with("failed (exit status: 4): no space left"), "{e}");
    }

    #[test]
    fn tail_keeps_last_lines_on_one_line() {
        let text = (1..=20).map(|i| format!("l{i}")).collect::<Vec<_>>().join("\n");
        assert_eq!(tail(&text), "l13 | l14 | l15 | l16 | l17 | l18 | l19 | l20");
    }
}
