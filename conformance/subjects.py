"""The protocols suite's servers for the conformance tests: the release binaries `make build`
makes, started on free loopback ports and stopped when the tests end (a server that outlives
them is killed with the test process: PR_SET_PDEATHSIG)."""
import atexit
import ctypes
import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where the servers are: the release build, or another revision's (CONFORMANCE_BIN=DIR runs the
# same tests against the servers in DIR).
BIN = os.environ.get("CONFORMANCE_BIN", os.path.join(ROOT, "target/release"))
_started = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def start(binary, *args, ready_port, health=None):
    """Starts BIN/BINARY (or BINARY on the PATH when it is not built here) with ARGS; returns once
    ready_port accepts a connection and, with `health`, once that URL answers 200."""
    path = os.path.join(BIN, binary)
    if not os.path.exists(path):
        if shutil.which(binary) is None:
            raise SystemExit(f"{path} is missing: run `make build`")
        path = shutil.which(binary)
    p = subprocess.Popen([path, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=_die_with_parent)
    _started.append(p)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", ready_port), timeout=1).close()
            if health is None or urllib.request.urlopen(health, timeout=2).status == 200:
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


# Each server starts once, on its first use, and serves every test after.
@functools.cache
def rest():
    """protocols-rust: (cleartext port, TLS port, which is also the HTTP/3 UDP port)."""
    plain, tls = free_port(), free_port()
    start("protocols-rust", "--port", str(plain), "--tls-port", str(tls), "--h3-port", str(tls), ready_port=plain)
    return plain, tls


@functools.cache
def ws():
    """protocols-ws: (ws port, wss port)."""
    plain, tls = free_port(), free_port()
    start("protocols-ws", "--port", str(plain), "--tls-port", str(tls), ready_port=plain)
    return plain, tls


@functools.cache
def mqtt(broker):
    """The MQTT responder behind `broker` (`rumqttd`, in the same process as `protocols-rumqttd`, or
    `mosquitto`, Debian's, with the suite's own configuration): the broker's port, once the
    responder is subscribed."""
    http, mqtt_port = free_port(), free_port()
    health = f"http://127.0.0.1:{http}/health"
    if broker == "rumqttd":
        start("protocols-rumqttd", "--port", str(http), "--mqtt-port", str(mqtt_port), ready_port=http, health=health)
    else:
        conf = os.path.join(tempfile.mkdtemp(), "mosquitto.conf")
        with open(os.path.join(ROOT, "subjects/services/mosquitto.conf")) as f:
            text = f.read().replace("{mqtt}", str(mqtt_port))
        with open(conf, "w") as f:
            f.write(text)
        start("mosquitto", "-c", conf, ready_port=mqtt_port)
        start("protocols-mqtt", "--port", str(http), "--broker", f"127.0.0.1:{mqtt_port}", ready_port=http, health=health)
    return mqtt_port


@functools.cache
def grpc():
    """protocols-grpc: its h2c port, once /health answers."""
    plain, tls = free_port(), free_port()
    start("protocols-grpc", "--port", str(plain), "--tls-port", str(tls), ready_port=plain,
          health=f"http://127.0.0.1:{plain}/health")
    return plain
