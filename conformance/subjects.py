"""The protocols suite's servers for the conformance tests: the release binaries `make build`
makes, started on free loopback ports and stopped when the tests end (a server that outlives
them is killed with the test process: PR_SET_PDEATHSIG)."""
import atexit
import ctypes
import os
import signal
import socket
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_started = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def start(binary, *args, ready_port):
    """Starts target/release/BINARY with ARGS; returns once ready_port accepts a connection."""
    path = os.path.join(ROOT, "target/release", binary)
    if not os.path.exists(path):
        raise SystemExit(f"{path} is missing: run `make build`")
    p = subprocess.Popen([path, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=_die_with_parent)
    _started.append(p)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", ready_port), timeout=1).close()
            return p
        except OSError:
            if p.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{binary} did not listen on {ready_port}")
            time.sleep(0.05)  # polling the port: nothing to wait on in the meantime


@atexit.register
def _stop():
    for p in _started:
        p.terminate()
        p.wait(timeout=10)


_rest = None


def rest():
    """protocols-rust: (cleartext port, TLS port, HTTP/3 UDP port, the TLS port's number)."""
    global _rest
    if _rest is None:
        plain, tls = free_port(), free_port()
        start("protocols-rust", "--port", str(plain), "--tls-port", str(tls), "--h3-port", str(tls), ready_port=plain)
        _rest = (plain, tls)
    return _rest


_ws = None


def ws():
    """protocols-ws: (ws port, wss port)."""
    global _ws
    if _ws is None:
        plain, tls = free_port(), free_port()
        start("protocols-ws", "--port", str(plain), "--tls-port", str(tls), ready_port=plain)
        _ws = (plain, tls)
    return _ws
