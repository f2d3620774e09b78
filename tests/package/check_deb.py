#!/usr/bin/env python3
"""Checks a Hark .deb as a person would get it: what it holds, and that its programs run from an
extracted copy (`dpkg-deb -x`), the `hark` CLI finding the `hark-desktop` installed beside it; its
shell completions and manual pages are read by the shells and groff (zsh, fish and groff when
installed; bash always).

usage: check_deb.py DEB [--version VERSION]

Run by `make test-package` (on a package of the debug build) and `make package` (on the release one),
under a display and a session D-Bus: the last check starts the extracted app through `hark hook`,
as Claude Code's hook would, and needs both. Python 3 standard library and dpkg-deb only.
"""

import argparse
import gzip
import json
import re
import shutil
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REQUIRED = [
    "usr/bin/hark-desktop",
    "usr/bin/hark",
    "usr/share/applications/Hark.desktop",
    "usr/share/icons/hicolor/32x32/apps/hark-desktop.png",
    "usr/share/icons/hicolor/128x128/apps/hark-desktop.png",
]
# Where each shell loads a command's completion from on Debian and Ubuntu, by the command's name.
COMPLETIONS = {
    "bash": "usr/share/bash-completion/completions/hark",
    "zsh": "usr/share/zsh/vendor-completions/_hark",
    "fish": "usr/share/fish/vendor_completions.d/hark.fish",
}
MAN_DIR = "usr/share/man/man1"
DEPENDS = ["libwebkit2gtk-4.1-0", "libgtk-3-0", "libayatana-appindicator3-1"]


class Failed(Exception):
    pass


def check(ok, what):
    if not ok:
        raise Failed(what)
    print(f"ok: {what}", flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 60), **kw)


def contents(deb):
    listed = run(["dpkg-deb", "-c", deb])
    check(listed.returncode == 0, f"dpkg-deb -c reads {deb}")
    # Lines end with the path, `./usr/...` or `usr/...` depending on the tool that packed it.
    paths = {line.split()[-1].removeprefix("./").rstrip("/") for line in listed.stdout.splitlines() if line.strip()}
    modes = {line.split()[-1].removeprefix("./"): line.split()[0] for line in listed.stdout.splitlines() if line}
    return paths, modes


def field(deb, name):
    return run(["dpkg-deb", "-f", deb, name]).stdout.strip()


def app_processes_under(root):
    """Pids of the processes whose executable lies under `root`: the app the hook started from there."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                exe = os.readlink(f"/proc/{entry}/exe")
            except OSError:
                continue
            if exe.startswith(str(root) + "/"):
                found.append(int(entry))
    return found


def hook_reaches_the_app(usr_bin, work):
    """`hark hook claude-code` from the extracted copy, with no other Hark on the PATH: it must start the
    extracted hark-desktop (the one beside it) and come back with a decision, not "could not start"."""
    data_dir = work / "data"
    event = {
        "session_id": "package-check", "transcript_path": "/dev/null", "cwd": str(work),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "AskUserQuestion",
        "tool_use_id": "toolu_package", "tool_input": {"questions": [{
            "question": "Does the installed app answer?", "header": "Package", "multiSelect": False,
            "options": [{"label": "yes", "description": ""}, {"label": "no", "description": ""}],
        }]},
    }
    env = {k: v for k, v in os.environ.items() if k not in ("HARK_DESKTOP", "HARK_DATA_DIR")}
    env.update(HARK_DATA_DIR=str(data_dir), PATH="/usr/sbin:/sbin", HOME=str(work / "home"))
    (work / "home").mkdir()
    try:
        hook = run([str(usr_bin / "hark"), "hook", "claude-code", "--timeout", "1"], input=json.dumps(event),
                   env=env, cwd=work, timeout=120)
        started = app_processes_under(usr_bin)
        check(hook.returncode == 0, f"hark hook exits 0 (stderr: {hook.stderr.strip()})")
        decision = json.loads(hook.stdout)["hookSpecificOutput"]
        # Nobody answers within the second: the agent is told so, which only the app can say.
        check(decision.get("permissionDecision") == "deny" and "not answered" in json.dumps(decision).lower(),
              f"the hook got the app's decision: {decision}")
        check(bool(started), f"the app that answered is the extracted {usr_bin / 'hark-desktop'}")
    finally:
        for pid in app_processes_under(usr_bin):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 15
        while app_processes_under(usr_bin) and time.monotonic() < deadline:
            time.sleep(0.1)


def completions(root, modes):
    """Each completion file is the one the packaged hark prints, readable by all, and its shell
    parses it; bash also registers it for the command `hark`."""
    hark = root / "usr/bin/hark"
    for shell, path in COMPLETIONS.items():
        check(modes.get(path, "").startswith("-rw-r--r--"), f"/{path} is a file readable by everyone")
        script = (root / path).read_text()
        printed = run([str(hark), "completions", shell])
        check(printed.returncode == 0 and printed.stdout == script, f"/{path} is what `hark completions {shell}` prints")
        if shutil.which(shell) is None:
            print(f"skipped: {shell} is not installed, so /{path} is not parsed", flush=True)
            continue
        parsed = run([shell, "-n", str(root / path)])
        check(parsed.returncode == 0, f"{shell} -n accepts /{path} ({parsed.stderr.strip()})")
    registered = run(["bash", "-c", f"source {root / COMPLETIONS['bash']} && complete -p hark"])
    check(registered.returncode == 0 and registered.stdout.strip().endswith(" hark"),
          f"the bash completion completes the command hark ({registered.stdout.strip()})")


def man_pages(root, paths):
    """hark.1.gz, gzip'd as Debian wants, names hark in its NAME section, and every page it refers to
    (hark-answer(1), ...) is in the package; groff reads each page without a warning."""
    pages = sorted(p for p in paths if p.startswith(MAN_DIR + "/") and p.endswith(".1.gz"))
    check(f"{MAN_DIR}/hark.1.gz" in pages, f"the package holds /{MAN_DIR}/hark.1.gz")
    texts = {Path(p).name.removesuffix(".1.gz"): gzip.decompress((root / p).read_bytes()).decode() for p in pages}
    check(re.search(r"^\.SH NAME\nhark \\- \S", texts["hark"], re.M) is not None,
          "hark.1's NAME section names hark and says what it is")
    referred = set(re.findall(r"^(hark\\-[a-z\\-]+)\(1\)$", texts["hark"], re.M))
    referred = {name.replace("\\-", "-") for name in referred}
    check("hark-answer" in referred and referred <= texts.keys(),
          f"every page hark.1 refers to is installed ({sorted(referred - texts.keys())} missing)")
    for name, text in texts.items():
        check(f".SH NAME\n{name.replace('-', chr(92) + '-')} \\- " in text, f"{name}.1 names {name}")
    if shutil.which("groff") is None:
        print("skipped: groff is not installed, so the pages are not rendered", flush=True)
        return
    for name, text in texts.items():
        rendered = run(["groff", "-man", "-Tutf8", "-ww"], input=text)
        check(rendered.returncode == 0 and not rendered.stderr, f"groff renders {name}.1 without a warning {rendered.stderr.strip()}")
    rendered = run(["groff", "-man", "-Tascii", "-P-cbou"], input=texts["hark"]).stdout
    check(re.search(r"^NAME\n\s+hark\s+- ", rendered, re.M) is not None, "the rendered hark(1) starts with NAME: hark - ...")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("deb")
    parser.add_argument("--version", help="the version the programs must report (default: the package's)")
    opts = parser.parse_args()
    deb = opts.deb

    paths, modes = contents(deb)
    for path in REQUIRED:
        check(path in paths, f"the package holds /{path}")
    for binary in ("usr/bin/hark", "usr/bin/hark-desktop"):
        check(modes.get(binary, "").startswith("-rwxr-xr-x"), f"/{binary} is executable by everyone")
    check(field(deb, "Package") == "hark", "the package is named hark")
    depends = field(deb, "Depends")
    for dep in DEPENDS:
        check(dep in depends, f"it depends on {dep} ({depends})")
    version = opts.version or field(deb, "Version")

    with tempfile.TemporaryDirectory(prefix="hark-deb-") as tmp:
        root = Path(tmp) / "root"
        extracted = run(["dpkg-deb", "-x", deb, str(root)])
        check(extracted.returncode == 0, f"dpkg-deb -x extracts it ({extracted.stderr.strip()})")
        usr_bin = root / "usr" / "bin"
        completions(root, modes)
        man_pages(root, paths)
        entry = (root / "usr/share/applications/Hark.desktop").read_text()
        check("Exec=hark-desktop" in entry.splitlines() and "Name=Hark" in entry.splitlines(),
              "the desktop entry starts hark-desktop from the PATH")
        cli = run([str(usr_bin / "hark"), "--version"])
        check(cli.returncode == 0 and cli.stdout.strip() == f"hark {version}", f"hark --version: {cli.stdout.strip()}")
        desktop = run([str(usr_bin / "hark-desktop"), "--version"])
        check(desktop.returncode == 0 and desktop.stdout.strip() == f"hark-desktop {version}",
              f"hark-desktop --version: {desktop.stdout.strip()}")
        if os.environ.get("DISPLAY") and os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            hook_reaches_the_app(usr_bin, Path(tmp))
        else:
            raise Failed("no display or session D-Bus: run under dbus-run-session and xvfb-run (the Makefile does)")
    size = os.path.getsize(deb)
    print(f"package ok: {deb} ({size / 1024 / 1024:.1f} MiB)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as e:
        print(f"check_deb: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
