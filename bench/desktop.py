#!/usr/bin/env python3
"""Desktop benchmarks: Hark's window next to an empty Tauri 2 window, side by side in one run.

Prints `name value unit` lines on stdout, like the other benches (progress goes to stderr):

  app_start_to_shell_ms / baseline_start_ms  median time from the WebDriver new-session request (which
                                             launches the process) to the first successful find-element
                                             of the shell's first element (`nav[aria-label='Sessions']`,
                                             the baseline's `#ready`), fresh data dir per launch
  app_pss_mb / baseline_pss_mb               sum of PSS (/proc/PID/smaps_rollup) of the app process and
                                             every process under it (WebKitWebProcess, WebKitNetworkProcess,
                                             ...), after 5 s idle; the app with a 100 000-event session open
  release_binary_mb                          size of the release (stripped) hark-desktop as `make package` ships it
  app_resident_pss_mb / reopen_vs_start      Hark waiting in the tray with no window, and the tray's Open
                                             against a cold start (bench/background.py)
  *_same_rendering                           the baseline again, drawing as Hark does on this machine
                                             (no compositing without a GPU render node), so the ratio says
                                             what Hark costs apart from that choice
and the ratios against the goals (start and PSS <= 1.25x the baseline, binary < 25 MB, resident
<= 60 MB, reopen <= 1.2x a cold start). A missed goal
is reported, never an error: the exit status is non-zero only when the benchmark itself could not run.

MB here is 2^20 bytes. Needs a display and a session D-Bus: `make bench-desktop` runs it under
`dbus-run-session -- xvfb-run`. The binaries come from --bin-dir (or $HARK_BENCH_BIN_DIR, default
target/release): hark-desktop, examples/baseline, examples/seed_session.

Python 3 standard library only: WebDriver JSON over urllib to tauri-driver, processes from /proc.
"""

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import background  # noqa: E402  (beside this file)

REPO = Path(__file__).resolve().parent.parent
APP_SHELL = "nav[aria-label='Sessions']"
BASELINE_SHELL = "#ready"
# A rendered turn of the transcript: present only once the session's events reached the window.
TRANSCRIPT_TURN = "section[aria-label='Transcript'] .turns details.turn > summary"
GOAL_RATIO = 1.25
GOAL_BINARY_MB = 25.0
GOAL_RESIDENT_MB = 60.0
GOAL_REOPEN = 1.2
MIB = 1024 * 1024


class BenchError(Exception):
    """The benchmark could not run (not a missed goal)."""


def log(msg):
    print(f"bench-desktop: {msg}", file=sys.stderr, flush=True)


def report(name, value, unit, note=""):
    line = f"{name} {value:.1f} {unit}" if unit != "x" else f"{name} {value:.2f} {unit}"
    print(f"{line}  {note}".rstrip(), flush=True)


# --- processes --------------------------------------------------------------------------------------


def process_table():
    """pid -> (ppid, name) for every process we can see; name is argv[0]'s basename (comm is cut at 15)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            # comm may contain spaces and parentheses: the fields after it start at the last ')'.
            ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
            name = os.path.basename(argv0) or stat[stat.index("(") + 1 : stat.rindex(")")]
        except (OSError, ValueError):
            continue  # gone meanwhile
        table[pid] = (ppid, name)
    return table


def descendants(root, table=None):
    """Every process under `root` (not `root` itself), parents before children."""
    table = table if table is not None else process_table()
    children = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop(0)
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def pss_kib(pid):
    """Proportional set size of one process in KiB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tauri_driver_path():
    if os.environ.get("TAURI_DRIVER"):
        return os.environ["TAURI_DRIVER"]
    cargo_home = os.environ.get("CARGO_HOME") or os.path.join(os.environ.get("HOME", "/"), ".cargo")
    candidate = os.path.join(cargo_home, "bin", "tauri-driver")
    if os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which("tauri-driver")
    if not found:
        raise BenchError("tauri-driver not found: `cargo install tauri-driver --locked` (make bench-desktop does)")
    return found


# --- one launch through tauri-driver --------------------------------------------------------------


class Launch:
    """tauri-driver (own process group) + one WebDriver session whose creation starts `binary`.

    Same invocation as tests/support/mod.rs: `--port`, `--native-port`, HARK_DATA_DIR in the driver's
    environment (WebKitWebDriver starts the app with it) and `tauri:options: {application, args}`.
    """

    def __init__(self, binary, data_dir, args=(), timeout=60.0):
        self.binary = str(binary)
        self.timeout = timeout
        self.port = free_port()
        self.native_port = free_port()
        self.session = None
        self.started = None
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ, HARK_DATA_DIR=str(data_dir))
        cmd = [tauri_driver_path(), "--port", str(self.port), "--native-port", str(self.native_port)]
        try:
            self.driver = subprocess.Popen(
                cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
                start_new_session=True,
            )
        except OSError as e:
            raise BenchError(f"cannot start {cmd[0]}: {e}") from e
        self.args = list(args)
        try:
            # tauri-driver listens at once but forwards to WebKitWebDriver, which it starts alongside:
            # a session request sent before that one listens is dropped without an answer.
            self._wait_for_port(self.port, 20.0)
            self._wait_for_port(self.native_port, 20.0)
        except BaseException:
            self.close()
            raise

    def _wait_for_port(self, port, within):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.driver.poll() is not None:
                raise BenchError(f"tauri-driver exited with {self.driver.returncode}: {self.driver_log()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise BenchError(f"tauri-driver (or its WebKitWebDriver) did not listen on port {port} within {within:.0f} s")

    def driver_log(self, limit=2000):
        try:
            self.stderr.seek(0)
            text = self.stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            return "(no driver log)"
        return ("..." + text[-limit:]) if len(text) > limit else (text or "(driver printed nothing)")

    def _call(self, method, path, body=None, timeout=None):
        """One WebDriver request; returns (http_status, decoded JSON `value`)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        except (urllib.error.URLError, OSError) as e:
            raise BenchError(f"WebDriver {method} {path} failed: {e}; driver log: {self.driver_log()}") from e
        try:
            value = json.loads(raw or b"{}").get("value")
        except ValueError:
            value = raw.decode(errors="replace")
        return status, value

    def start(self):
        """Sends the new-session request (which launches the binary); returns the monotonic send time."""
        opts = {"application": self.binary, "args": self.args}
        caps = {"tauri:options": opts}
        body = {"capabilities": {"alwaysMatch": caps}, "desiredCapabilities": caps}
        for attempt in range(3):
            self.started = time.monotonic()
            try:
                status, value = self._call("POST", "/session", body)
                break
            except BenchError as e:
                if attempt == 2 or "closed connection without response" not in str(e):
                    raise
                log(f"new-session request dropped ({e}); retrying")
                time.sleep(0.5)
        if status != 200 or not isinstance(value, dict) or "sessionId" not in value:
            raise BenchError(
                f"could not open a WebDriver session on {self.binary} (HTTP {status}): {value}; "
                f"driver log: {self.driver_log()}"
            )
        self.session = value["sessionId"]
        return self.started

    def find(self, css, within):
        """Polls for `css` until it exists; returns (monotonic time found, element id)."""
        deadline = time.monotonic() + within
        last = None
        while True:
            status, value = self._call(
                "POST", f"/session/{self.session}/element", {"using": "css selector", "value": css},
                timeout=max(within, 5.0),
            )
            now = time.monotonic()
            if status == 200 and isinstance(value, dict):
                element = next(iter(value.values()), None)
                return now, element
            last = value
            if isinstance(value, dict) and value.get("error") not in (None, "no such element"):
                raise BenchError(f"find `{css}` failed (HTTP {status}): {value}")
            if now > deadline:
                raise BenchError(f"no `{css}` in the window within {within:.0f} s (last answer: {last})")
            if self.driver.poll() is not None:
                raise BenchError(f"tauri-driver died while waiting for `{css}`: {self.driver_log()}")
            time.sleep(0.01)

    def text(self, element):
        status, value = self._call("GET", f"/session/{self.session}/element/{element}/text")
        if status != 200:
            raise BenchError(f"reading an element's text failed (HTTP {status}): {value}")
        return value or ""

    def execute(self, script):
        status, value = self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": []})
        if status != 200:
            raise BenchError(f"executing a script failed (HTTP {status}): {value}")
        return value

    def handles(self):
        """The window handles WebDriver knows (a window built anew gets a new one)."""
        status, value = self._call("GET", f"/session/{self.session}/window/handles")
        if status != 200 or not isinstance(value, list):
            raise BenchError(f"listing the windows failed (HTTP {status}): {value}")
        return value

    def switch_to(self, handle):
        status, value = self._call("POST", f"/session/{self.session}/window", {"handle": handle})
        if status != 200:
            raise BenchError(f"switching to window {handle} failed (HTTP {status}): {value}")

    def app_pid(self):
        """The launched binary: the process under the driver whose argv[0] is the binary."""
        table = process_table()
        name = os.path.basename(self.binary)
        for pid in descendants(self.driver.pid, table):
            if table[pid][1] == name:
                return pid
        tree = ", ".join(f"{p}:{table[p][1]}" for p in descendants(self.driver.pid, table))
        raise BenchError(f"no `{name}` process under tauri-driver (pid {self.driver.pid}); saw: {tree or 'nothing'}")

    def pss(self):
        """{process name: KiB} summed per name, over the app process and everything under it."""
        table = process_table()
        app = self.app_pid()
        by_name = {}
        for pid in [app] + descendants(app, table):
            kib = pss_kib(pid)
            if kib is not None:
                name = "app" if pid == app else table[pid][1]
                by_name[name] = by_name.get(name, 0) + kib
        return by_name

    def close(self):
        """Ends the WebDriver session (closes the window), then the driver's whole process group and
        anything under it that left the group. Safe to call twice."""
        if self.stderr.closed:
            return
        table = process_table()
        leftovers = {p: table[p][1] for p in descendants(self.driver.pid, table)} if self.driver.poll() is None else {}
        if self.session and self.driver.poll() is None:
            try:
                self._call("DELETE", f"/session/{self.session}", timeout=10)
            except BenchError:
                pass
        self.session = None
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.driver.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.driver.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        if leftovers:  # started by this launch, but possibly in another process group
            time.sleep(0.2)
            table = process_table()
            for pid, name in leftovers.items():
                if pid in table and table[pid][1] == name:  # the same process, not a reused pid
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
            # Gone before the next launch: one app runs per data directory, and a launch that finds
            # the last one still quitting hands its options over and exits.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                table = process_table()
                if not any(pid in table and table[pid][1] == name for pid, name in leftovers.items()):
                    break
                time.sleep(0.05)
        self.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --- the measurements --------------------------------------------------------------------------------


def start_time(binary, shell_css, workdir, timeout):
    """ms from the new-session request to the shell's first element, in a fresh data dir."""
    data_dir = tempfile.mkdtemp(prefix="data-", dir=workdir)
    with Launch(binary, data_dir, timeout=timeout) as launch:
        t0 = launch.start()
        t1, _ = launch.find(shell_css, timeout)
    shutil.rmtree(data_dir, ignore_errors=True)
    return (t1 - t0) * 1e3


def idle_pss(binary, ready_css, data_dir, args, idle, timeout, check_text=False):
    """Launches, waits for `ready_css` (and, with check_text, for it to have text), idles, sums PSS.
    Returns (ms to ready, {name: KiB}, elements in the document)."""
    with Launch(binary, data_dir, args, timeout=timeout) as launch:
        launched_at = time.time()
        t0 = launch.start()
        t1, element = launch.find(ready_css, timeout)
        if check_text:
            # Asked by selector each time rather than through the element found: the window may
            # re-render it meanwhile (a session's agent can start a turn as it opens), and WebKit's
            # driver drops the connection on a node that went away.
            probe = f"const e = document.querySelector({json.dumps(ready_css)}); return e ? e.textContent : '';"
            deadline = time.monotonic() + timeout
            while not (launch.execute(probe) or "").strip():
                if time.monotonic() > deadline:
                    raise BenchError(f"`{ready_css}` stayed empty for {timeout:.0f} s")
                time.sleep(0.05)
            t1 = time.monotonic()
        if check_text:
            log(f"  timeline: {timeline(launch, launched_at)}")
        time.sleep(idle)
        pss = launch.pss()
        try:  # for the report only, after the measurement; a busy window may drop it
            elements = launch.execute("return document.getElementsByTagName('*').length")
        except BenchError as e:
            log(f"could not count the document's elements: {e}")
            elements = "?"
        return (t1 - t0) * 1e3, pss, elements


def reopen_ms(binary, data_dir, cycles, timeout, settle):
    """ms from the tray's Open to the shell of a window built anew, once per cycle, each `settle` s
    after the window before it closed."""
    with Launch(binary, data_dir, timeout=timeout) as launch:
        launch.start()
        launch.find(APP_SHELL, timeout)
        return background.reopen_times(launch, APP_SHELL, cycles, timeout, descendants, process_table, settle)


def timeline(launch, launched_at):
    """Where a launch spent its time, from the window's own User Timing marks (`hark:*`): when the page
    began loading after the launch request, then each mark after that. For the log only."""
    try:
        got = launch.execute(
            "return [performance.timeOrigin, performance.getEntriesByType('mark')"
            ".filter(m => m.name.startsWith('hark:')).map(m => [m.name, m.startTime])]"
        )
        origin, marks = got
    except (BenchError, TypeError, ValueError) as e:
        return f"(no marks: {e})"
    page = origin / 1000 - launched_at
    steps = ", ".join(f"{name[5:]} +{at:.0f}" for name, at in marks)
    return f"page loading {page * 1000:.0f} ms after launch; then {steps} ms"


def retried(measure, attempts=3, before_retry=None):
    """`measure()`, tried again when WebKitWebDriver dropped the connection (it sometimes does, with or
    without compositing, while the window renders), and said so. Other failures end the run."""
    for attempt in range(attempts):
        try:
            return measure()
        except BenchError as e:
            if attempt == attempts - 1 or "closed connection without response" not in str(e):
                raise
            log(f"  the driver dropped the connection ({e}); trying again")
            if before_retry:
                before_retry()
            time.sleep(1.0)


def opened_ms(app, data_dir, session, timeout):
    """ms from launch with --session to its rendered transcript."""
    return retried(lambda: idle_pss(app, TRANSCRIPT_TURN, data_dir, ["--session", session], 0, timeout,
                                    check_text=True)[0])


@contextlib.contextmanager
def same_rendering():
    """Launches in this block draw as Hark chooses to on this machine (src-tauri/app/rendering.rs):
    without a GPU render node, WebKit's compositing, its DMA-BUF renderer and GTK's OpenGL are off. Comparing the app
    with a baseline that draws the same way says what Hark itself costs, apart from that choice."""
    gpu = any(name.startswith("renderD") for name in (os.listdir("/dev/dri") if os.path.isdir("/dev/dri") else []))
    chosen = {"WEBKIT_DISABLE_COMPOSITING_MODE": "1", "GDK_GL": "disable", "WEBKIT_DISABLE_DMABUF_RENDERER": "1",
              "WEBKIT_WEB_RENDER_DEVICE_FILE": "/dev/dri/no-render-node"}
    added = [k for k in chosen if not gpu and k not in os.environ]
    for k in added:
        os.environ[k] = chosen[k]
    try:
        yield
    finally:
        for k in added:
            os.environ.pop(k, None)


def mib(kib):
    return kib / 1024


def breakdown(prefix, by_name):
    for name, kib in sorted(by_name.items(), key=lambda kv: -kv[1]):
        report(f"{prefix}.{name}", mib(kib), "MB")


def has_symtab(path):
    """True when an ELF64 little-endian file still has a .symtab section (i.e. is not stripped)."""
    import struct

    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            return False
        shoff, = struct.unpack_from("<Q", head, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3A)
        f.seek(shoff)
        sections = [struct.unpack_from("<IIQQQQ", f.read(shentsize)) for _ in range(shnum)]
        _, _, _, _, str_off, str_size = sections[shstrndx]
        f.seek(str_off)
        names = f.read(str_size)
        return any(names[s[0] : names.index(b"\0", s[0])] == b".symtab" for s in sections)


def goal(ratio_or_value, limit, strict=False):
    met = ratio_or_value < limit if strict else ratio_or_value <= limit
    return "met" if met else "MISSED"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=os.environ.get("HARK_BENCH_BIN_DIR", str(REPO / "target" / "release")),
                        help="directory holding hark-desktop and examples/{baseline,seed_session} "
                             "(default $HARK_BENCH_BIN_DIR or target/release)")
    parser.add_argument("--runs", type=int, default=5, help="timed launches of each window (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed launches of each first (default 1)")
    parser.add_argument("--events", type=int, default=100_000, help="events in the seeded session")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds to idle before reading PSS")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for a window")
    parser.add_argument("--session-timeout", type=float, default=600.0,
                        help="seconds to wait for the big session's transcript")
    opts = parser.parse_args()

    bin_dir = Path(opts.bin_dir).resolve()
    app = bin_dir / "hark-desktop"
    baseline = bin_dir / "examples" / "baseline"
    seeder = bin_dir / "examples" / "seed_session"
    for path in (app, baseline, seeder):
        if not os.access(path, os.X_OK):
            raise BenchError(
                f"{path} is missing: `make bench-desktop` builds hark-desktop as `make package` ships it "
                f"and the examples baseline and seed_session"
            )
    if not os.environ.get("DISPLAY"):
        raise BenchError("DISPLAY is unset: run under xvfb-run (make bench-desktop does)")
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        log("warning: no session D-Bus (DBUS_SESSION_BUS_ADDRESS); make bench-desktop uses dbus-run-session")

    workdir = tempfile.mkdtemp(prefix="hark-bench-desktop-")
    try:
        # 1. Start-up, alternating so both see the same machine state.
        log(f"start-up: {opts.warmup} warm-up + {opts.runs} timed launches of each window, alternating")
        app_ms, base_ms, same_ms = [], [], []
        for i in range(opts.warmup + opts.runs):
            a = retried(lambda: start_time(app, APP_SHELL, workdir, opts.timeout))
            b = retried(lambda: start_time(baseline, BASELINE_SHELL, workdir, opts.timeout))
            with same_rendering():
                c = retried(lambda: start_time(baseline, BASELINE_SHELL, workdir, opts.timeout))
            tag = "warm-up" if i < opts.warmup else f"run {i - opts.warmup + 1}"
            log(f"  {tag}: app {a:.0f} ms, baseline {b:.0f} ms, baseline drawing as Hark does {c:.0f} ms")
            if i >= opts.warmup:
                app_ms.append(a)
                base_ms.append(b)
                same_ms.append(c)

        # 2. Memory: the baseline idle, the app idle on an empty data dir (for reference), and the app
        #    with the big session open.
        log(f"memory: baseline idle {opts.idle:.0f} s")
        _, base_pss, _ = retried(lambda: idle_pss(baseline, BASELINE_SHELL, Path(workdir) / "baseline-data", [],
                                                  opts.idle, opts.timeout))
        log(f"memory: baseline drawing as Hark does (compositing off without a GPU), idle {opts.idle:.0f} s")
        with same_rendering():
            _, same_pss, _ = retried(lambda: idle_pss(baseline, BASELINE_SHELL, Path(workdir) / "baseline-same-data",
                                                      [], opts.idle, opts.timeout))
        log(f"memory: app idle on an empty data dir {opts.idle:.0f} s")
        _, empty_pss, empty_dom = retried(lambda: idle_pss(app, APP_SHELL, Path(workdir) / "empty-data", [], opts.idle,
                                                           opts.timeout))

        small_dir = Path(workdir) / "small-data"
        seeded = subprocess.run([str(seeder), str(small_dir), "100"], capture_output=True, text=True, timeout=600)
        if seeded.returncode != 0:
            raise BenchError(f"seed_session failed ({seeded.returncode}): {seeded.stderr.strip()}")
        small_session = seeded.stdout.strip()
        log(f"open: a 100-event session (--session {small_session}), {opts.runs} launches")
        small_ms = statistics.median(
            opened_ms(app, small_dir, small_session, opts.session_timeout) for _ in range(opts.runs)
        )
        log(f"memory: app with the 100-event session open, then {opts.idle:.0f} s idle")
        _, small_pss, small_dom = retried(
            lambda: idle_pss(app, TRANSCRIPT_TURN, small_dir, ["--session", small_session], opts.idle,
                             opts.session_timeout, check_text=True))

        data_dir = Path(workdir) / "big-data"
        log(f"seeding a {opts.events}-event session")
        seeded = subprocess.run([str(seeder), str(data_dir), str(opts.events)], capture_output=True, text=True,
                                timeout=600)
        if seeded.returncode != 0:
            raise BenchError(f"seed_session failed ({seeded.returncode}): {seeded.stderr.strip()}")
        session = seeded.stdout.strip()
        db_mb = sum(p.stat().st_size for p in data_dir.iterdir() if p.is_file()) / MIB
        log(f"  {seeded.stderr.strip()} ({db_mb:.1f} MB on disk)")
        log(f"open: the first launch on it (no snapshot yet: the whole log is read once)")
        # A retry starts without the snapshot a dropped launch may have left, or it would not be a first.
        first_ms, _, _ = retried(
            lambda: idle_pss(app, TRANSCRIPT_TURN, data_dir, ["--session", session], 0, opts.session_timeout,
                             check_text=True),
            before_retry=lambda: shutil.rmtree(data_dir / "snapshots", ignore_errors=True))
        log(f"memory: app with the session open (--session {session}), then {opts.idle:.0f} s idle")
        open_ms, big_pss, big_dom = retried(
            lambda: idle_pss(app, TRANSCRIPT_TURN, data_dir, ["--session", session], opts.idle,
                             opts.session_timeout, check_text=True))

        # 4. In the background: no window, the big session in the store.
        log(f"background: the window on the big session closed, then {opts.idle:.0f} s idle")
        resident = background.resident_pss(app, data_dir, ["--session", session], True, opts.idle,
                                           opts.session_timeout, descendants, process_table, pss_kib)
        log(f"background: started hidden (--hidden) on it, {opts.idle:.0f} s idle")
        resident_hidden = background.resident_pss(app, data_dir, ["--hidden"], False, opts.idle,
                                                  opts.session_timeout, descendants, process_table, pss_kib)
        log(f"reopen: {opts.warmup} + {opts.runs} times the tray's Open, {opts.idle:.0f} s after closing the window")
        reopened = retried(lambda: reopen_ms(app, small_dir, opts.warmup + opts.runs, opts.timeout,
                                             opts.idle))[opts.warmup:]
        log("  reopen ms: " + ", ".join(f"{t:.0f}" for t in reopened))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    # 3. The figures.
    size = app.stat().st_size
    if has_symtab(app):
        log(f"warning: {app} still has a symbol table (not stripped)")

    app_start, base_start = statistics.median(app_ms), statistics.median(base_ms)
    app_total, base_total = mib(sum(big_pss.values())), mib(sum(base_pss.values()))
    start_ratio, pss_ratio, size_mb = app_start / base_start, app_total / base_total, size / MIB

    report("app_start_to_shell_ms", app_start, "ms")
    report("app_start_to_shell_min_ms", min(app_ms), "ms")
    report("app_start_to_shell_max_ms", max(app_ms), "ms")
    report("baseline_start_ms", base_start, "ms")
    report("baseline_start_min_ms", min(base_ms), "ms")
    report("baseline_start_max_ms", max(base_ms), "ms")
    report("start_vs_baseline", start_ratio, "x", f"goal <= {GOAL_RATIO}x: {goal(start_ratio, GOAL_RATIO)}")
    report("baseline_same_rendering_start_ms", statistics.median(same_ms), "ms",
           "(the empty window drawing as Hark does on this machine)")
    report("start_vs_baseline_same_rendering", app_start / statistics.median(same_ms), "x")
    report("app_open_100_session_ms", small_ms, "ms", "(launch with --session to a rendered transcript)")
    report("app_open_100k_first_ms", first_ms, "ms", "(the first launch on a 100 000-event log: no snapshot yet)")
    report("app_open_100k_session_ms", open_ms, "ms", "(every launch after it)")
    report("app_open_100k_vs_100", open_ms / small_ms, "x", f"goal <= 2x: {goal(open_ms / small_ms, 2.0)}")
    report("app_pss_mb", app_total, "MB", f"({opts.events} events open, {opts.idle:.0f} s idle)")
    breakdown("app_pss_mb", big_pss)
    print(f"app_dom_elements_100k {big_dom} elements  (empty shell: {empty_dom})", flush=True)
    report("app_pss_100_session_mb", mib(sum(small_pss.values())), "MB", f"(100 events open; {small_dom} elements)")
    breakdown("app_pss_100_session_mb", small_pss)
    report("app_empty_pss_mb", mib(sum(empty_pss.values())), "MB", "(no session, for reference)")
    breakdown("app_empty_pss_mb", empty_pss)
    report("baseline_pss_mb", base_total, "MB")
    breakdown("baseline_pss_mb", base_pss)
    report("pss_vs_baseline", pss_ratio, "x", f"goal <= {GOAL_RATIO}x: {goal(pss_ratio, GOAL_RATIO)}")
    same_total = mib(sum(same_pss.values()))
    report("baseline_same_rendering_pss_mb", same_total, "MB", "(the empty window drawing as Hark does)")
    breakdown("baseline_same_rendering_pss_mb", same_pss)
    report("pss_vs_baseline_same_rendering", app_total / same_total, "x")
    resident_total = mib(sum(resident.values()))
    report("app_resident_pss_mb", resident_total, "MB",
           f"(no window, {opts.events} events in the store, {opts.idle:.0f} s idle) "
           f"goal <= {GOAL_RESIDENT_MB:.0f} MB: {goal(resident_total, GOAL_RESIDENT_MB)}")
    breakdown("app_resident_pss_mb", resident)
    report("app_resident_hidden_pss_mb", mib(sum(resident_hidden.values())), "MB", "(started --hidden: never a window)")
    breakdown("app_resident_hidden_pss_mb", resident_hidden)
    reopen = statistics.median(reopened)
    report("app_reopen_ms", reopen, "ms", "(the tray's Open to the new window's first element)")
    report("reopen_vs_start", reopen / app_start, "x", f"goal <= {GOAL_REOPEN}x: {goal(reopen / app_start, GOAL_REOPEN)}")
    report("release_binary_mb", size_mb, "MB",
           f"({size} bytes) goal < {GOAL_BINARY_MB:.0f} MB: {goal(size_mb, GOAL_BINARY_MB, strict=True)}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BenchError, background.BackgroundError) as e:
        print(f"bench-desktop: error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("bench-desktop: interrupted", file=sys.stderr)
        sys.exit(130)
