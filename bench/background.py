"""Hark in the background, for bench/desktop.py: what it costs to wait in the tray with no window, and
how fast the tray's Open brings a window back compared with a cold start.

  app_resident_pss_mb         PSS of the app and every process under it after its window (showing the
                              100 000-event session) was closed with the close button, then `idle` s
  app_resident_hidden_pss_mb  the same, started as the login entry starts it (`--hidden`): never a window
  app_reopen_ms               the tray's "Open Hark" clicked (over the icon's D-Bus menu, as a panel does)
                              to the new window's first element, the window closed `idle` s before each
  reopen_vs_start             app_reopen_ms / app_start_to_shell_ms

The tray is clicked with `gdbus` (GLib's tool, installed with the WebKit stack) on the menu the app's
icon exports; the close button is an X client message (tests/support/x11_windows.py).
"""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
X11 = REPO / "tests" / "support" / "x11_windows.py"
TITLE = "Hark"
WEB_PROCESS = "WebKitWebProcess"


class BackgroundError(Exception):
    """The measurement could not be made."""


def x11(what):
    out = subprocess.run([sys.executable, str(X11), what, TITLE], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise BackgroundError(f"x11_windows.py {what}: {out.stderr.strip()}")
    return out.stdout.split()


def windows():
    return x11("list")


def close_window():
    closed = int(x11("close")[0])
    if closed != 1:
        raise BackgroundError(f"expected one window titled {TITLE!r} to close, found {closed}")


def wait(what, within, check, step=0.02):
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise BackgroundError(f"timed out after {within:.0f} s waiting for {what}")
        time.sleep(step)


def cpu_ticks(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, ValueError, IndexError):
            pass
    return total


def wait_settled(tree, within, window=1.0, busy=0.03):
    """Until the processes of `tree()` use under `busy` of a CPU over `window` s (the window rendered,
    the session read)."""
    hz = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        before = cpu_ticks(tree())
        time.sleep(window)
        if (cpu_ticks(tree()) - before) / hz / window < busy:
            return
    raise BackgroundError(f"the app stayed busy for {within:.0f} s")


class Direct:
    """hark-desktop started as a person's desktop starts it (no WebDriver), in a process group of its
    own, which is what is signalled at the end."""

    def __init__(self, binary, data_dir, args):
        env = dict(os.environ, HARK_DATA_DIR=str(data_dir))
        self.proc = subprocess.Popen([str(binary), *args], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=15)
                break
            except subprocess.TimeoutExpired:
                continue


def resident_pss(binary, data_dir, args, close_first, idle, timeout, descendants, process_table, pss_kib):
    """{name: KiB} of the app and everything under it, `idle` s into waiting in the tray. With
    `close_first`, a window opens first (showing what `args` say) and is closed by its close button."""
    with Direct(binary, data_dir, args) as app:
        pid = app.proc.pid

        def tree():
            return [pid] + descendants(pid)

        def named(name):
            table = process_table()
            return [p for p in descendants(pid, table) if table[p][1] == name]

        if close_first:
            wait("the window", timeout, lambda: len(windows()) == 1, step=0.1)
            wait_settled(tree, timeout)
            close_window()
            wait("the window to go", timeout, lambda: not windows())
            wait("its web process to exit", timeout, lambda: not named(WEB_PROCESS))
        else:
            time.sleep(1.0)
            wait_settled(tree, timeout)
            if windows():
                raise BackgroundError("--hidden opened a window")
        time.sleep(idle)
        if app.proc.poll() is not None:
            raise BackgroundError(f"the app quit instead of waiting in the tray ({app.proc.returncode})")
        table = process_table()
        by_name = {}
        for p in tree():
            kib = pss_kib(p)
            if kib is not None:
                name = "app" if p == pid else table.get(p, (0, "?"))[1]
                by_name[name] = by_name.get(name, 0) + kib
        return by_name


# --- the tray's menu over D-Bus ------------------------------------------------------------------------


def gdbus(*args, timeout=10):
    # A connection that serves no objects (one of the app's own clients) may never answer: the call
    # gives up after `timeout` seconds, and so does the process.
    try:
        out = subprocess.run(["gdbus", "call", "--session", "--timeout", str(timeout), *args], capture_output=True,
                             text=True, timeout=timeout + 5)
    except subprocess.TimeoutExpired as e:
        raise BackgroundError(f"gdbus call {' '.join(args)}: no answer in {timeout} s") from e
    if out.returncode != 0:
        raise BackgroundError(f"gdbus call {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def bus(method, *args):
    return gdbus("--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                 "--method", f"org.freedesktop.DBus.{method}", *args)


def tray_menu(app_pid):
    """(bus name, menu object path) of the app's tray icon: the connection of `app_pid` that exports an
    `org.ayatana/NotificationItem` (libayatana-appindicator's StatusNotifierItem)."""
    for name in re.findall(r"'(:[0-9.]+)'", bus("ListNames")):
        try:
            owner = re.search(r"uint32 (\d+)", bus("GetConnectionUnixProcessID", name))
        except BackgroundError:
            continue
        if not owner or int(owner.group(1)) != app_pid:
            continue
        try:
            nodes = gdbus("--dest", name, "--object-path", "/org/ayatana/NotificationItem",
                          "--method", "org.freedesktop.DBus.Introspectable.Introspect", timeout=2)
        except BackgroundError:
            continue
        for item in re.findall(r'node name=\\?"([^"\\]+)\\?"', nodes):
            path = f"/org/ayatana/NotificationItem/{item}"
            menu = gdbus("--dest", name, "--object-path", path, "--method", "org.freedesktop.DBus.Properties.Get",
                         "org.kde.StatusNotifierItem", "Menu")
            found = re.search(r"objectpath '([^']+)'", menu)
            if found:
                return name, found.group(1)
    raise BackgroundError(f"no tray icon of process {app_pid} on the session bus")


def click(menu, label):
    name, path = menu
    # `--` ends gdbus's options: -1 (the whole tree) is an argument.
    layout = gdbus("--dest", name, "--object-path", path, "--method", "com.canonical.dbusmenu.GetLayout",
                   "--", "0", "-1", "[]")
    entry = re.search(r"\((\d+), \{[^}]*'label': <'" + re.escape(label) + "'>", layout)
    if not entry:
        raise BackgroundError(f"no {label!r} in the tray menu: {layout.strip()}")
    gdbus("--dest", name, "--object-path", path, "--method", "com.canonical.dbusmenu.Event",
          entry.group(1), "clicked", "<0>", "0")


def reopen_times(launch, shell_css, cycles, timeout, descendants, process_table, settle):
    """ms from the tray's Open to the new window's `shell_css`, `cycles` times, on a launch whose
    window shows `shell_css` already. Each cycle closes the window first, waits for its web process
    to exit and then `settle` s (the app lets go of the pages its window used after a few), so every
    Open builds a window from nothing on an app that settled in the tray. Under WebDriver WebKit's
    network process stays (WebKit would end the session with it), so a new one is not started here."""
    pid = launch.app_pid()
    menu = tray_menu(pid)
    seen = set(launch.handles())
    times = []
    for _ in range(cycles):
        close_window()
        wait("the window to go", timeout, lambda: not windows())
        wait("its web process to exit", timeout, lambda: not [
            p for p in descendants(pid, process_table()) if process_table().get(p, (0, ""))[1] == WEB_PROCESS])
        time.sleep(settle)
        t0 = time.monotonic()
        click(menu, "Open Hark")
        deadline = t0 + timeout
        while True:
            fresh = [h for h in launch.handles() if h not in seen]
            if fresh:
                break
            if time.monotonic() > deadline:
                raise BackgroundError("WebDriver never saw the reopened window")
            time.sleep(0.005)
        seen.update(fresh)
        launch.switch_to(fresh[0])
        t1, _ = launch.find(shell_css, timeout)
        times.append((t1 - t0) * 1e3)
    return times
