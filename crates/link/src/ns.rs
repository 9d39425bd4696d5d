//! Network namespaces the run creates and holds by file descriptor only (never named under
//! /run/netns): a namespace lives while an fd or a process holds it, so when the run ends — or
//! is killed, even by SIGKILL — the kernel removes it with the last process inside, and nothing
//! is left for a next start to clean.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use nix::sched::{setns, unshare, CloneFlags};

/// A network namespace, held open.
#[derive(Debug)]
pub struct Ns(OwnedFd);

impl Ns {
    /// A new, empty namespace (only `lo`, down). Made on a thread of its own that ends after,
    /// since `unshare` moves the calling thread; the caller's namespace is untouched.
    pub fn new() -> io::Result<Ns> {
        std::thread::scope(|s| {
            s.spawn(|| {
                unshare(CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
                Ok(Ns(File::open("/proc/thread-self/ns/net")?.into()))
            })
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("namespace thread panicked")))
        })
    }

    /// Runs `f` on a thread inside this namespace and returns what it returns. Sockets and
    /// devices `f` creates stay in the namespace wherever they are used later; processes it
    /// spawns start there.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> io::Result<T> {
        std::thread::scope(|s| {
            s.spawn(|| {
                setns(self.0.as_fd(), CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
                Ok(f())
            })
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("thread in a link namespace panicked")))
        })
    }

    /// Moves the calling thread into this namespace until the guard drops, then back. Threads
    /// and processes it starts meanwhile start here; sockets it opens stay here. For code that
    /// cannot hand its work to another thread (a subject's supervisor, a load engine's run).
    pub fn enter(&self) -> io::Result<Entered> {
        let home = File::open("/proc/thread-self/ns/net")?;
        setns(self.0.as_fd(), CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
        Ok(Entered(home.into()))
    }

    /// Makes `cmd` start its process in this namespace.
    pub fn enter_on_spawn(&self, cmd: &mut Command) {
        let fd = self.0.as_raw_fd();
        // SAFETY: setns(2) is async-signal-safe and touches only the child, between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    /// The namespace's inode number, as `lsns` and /proc/PID/ns/net show it.
    pub fn inode(&self) -> io::Result<u64> {
        use std::os::unix::fs::MetadataExt;
        Ok(File::from(self.0.try_clone()?).metadata()?.ino())
    }
}

/// Runs `argv` (iproute2's `ip`, a sysctl write) in the current thread's namespace; one-line error.
pub(crate) fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip").args(args).output().map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            io::Error::new(e.kind(), "`ip` (iproute2) is not installed")
        } else {
            e
        }
    })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(io::Error::other(format!("ip {}: {}", args.join(" "), err.trim())));
    }
    Ok(())
}

/// Sets a sysctl of the current thread's namespace (`net.ipv4.conf.all.route_localnet`).
pub(crate) fn sysctl(key: &str, value: &str) -> io::Result<()> {
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    std::fs::write(&path, value).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))
}

/// A thread inside a link's namespace; back in its own when dropped.
#[must_use = "the thread leaves the namespace when this drops"]
pub struct Entered(OwnedFd);

impl Drop for Entered {
    fn drop(&mut self) {
        // Returning to a namespace the thread was in cannot fail short of the kernel refusing
        // setns on a live fd; a thread left in the link's namespace would send later rows'
        // load across it, so stop rather than go on.
        if let Err(e) = setns(self.0.as_fd(), CloneFlags::CLONE_NEWNET) {
            panic!("cannot leave the link's network namespace: {e}");
        }
    }
}

/// The network namespaces `pid` holds (its threads' and its open fds'), or every process when
/// `None`, by inode: what a test or a user checks to see that no link's namespace outlived it.
pub fn held_namespaces(pid: Option<u32>) -> std::collections::BTreeSet<u64> {
    let mut out = std::collections::BTreeSet::new();
    let procs: Vec<std::path::PathBuf> = match pid {
        Some(p) => vec![format!("/proc/{p}").into()],
        None => std::fs::read_dir("/proc").map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default(),
    };
    for base in procs {
        let mut links = vec![base.join("ns/net")];
        if let Ok(tasks) = std::fs::read_dir(base.join("task")) {
            links.extend(tasks.flatten().map(|t| t.path().join("ns/net")));
        }
        if let Ok(fds) = std::fs::read_dir(base.join("fd")) {
            links.extend(fds.flatten().map(|f| f.path()));
        }
        for l in links {
            let target = std::fs::read_link(&l).map(|t| t.to_string_lossy().into_owned()).unwrap_or_default();
            if let Some(inode) =
                target.strip_prefix("net:[").and_then(|r| r.strip_suffix(']')).and_then(|n| n.parse().ok())
            {
                out.insert(inode);
            }
        }
    }
    out
}
