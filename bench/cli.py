#!/usr/bin/env python3
"""One `hark chat` turn, process start to exit, on a short and on a long session.

Seeds a 100-event and a 100 000-event session (examples/seed_session), each in a data directory of
its own, then times `hark chat --session ID --provider demo --script hello hi` on each, the two
alternating run by run so both see the same machine. Prints one `name value unit` line per figure:

  cli_turn_100_ms        median ms of a turn on the 100-event session
  cli_turn_100k_ms       median ms of a turn on the 100 000-event session
  cli_turn_100k_vs_100   the ratio of the two medians (how much a long session costs a turn)

Each run adds one turn to its session, a dozen events: the sessions stay the size they are named for.
The binaries come from --bin-dir (default target/release): hark, examples/seed_session.
Python 3 standard library only.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def seed(seeder: Path, data_dir: Path, events: int) -> str:
    out = subprocess.run([str(seeder), str(data_dir), str(events)], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def turn(hark: Path, data_dir: Path, session: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["HARK_DATA_DIR"] = str(data_dir)
    started = time.perf_counter()
    done = subprocess.run(
        [str(hark), "chat", "--session", session, "--provider", "demo", "--script", "hello", "hi"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=120,
    )
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0 or "You said" not in done.stdout:
        raise SystemExit(f"hark chat failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", default=str(REPO / "target" / "release"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1)
    opts = parser.parse_args()
    bin_dir = Path(opts.bin_dir).resolve()
    hark, seeder = bin_dir / "hark", bin_dir / "examples" / "seed_session"
    for path in (hark, seeder):
        if not os.access(path, os.X_OK):
            raise SystemExit(f"{path} is missing: `make bench` builds it")
    with tempfile.TemporaryDirectory(prefix="hark-bench-cli-") as tmp:
        sizes = {"100": 100, "100k": 100_000}
        sessions = {}
        for name, events in sizes.items():
            data_dir = Path(tmp) / name
            sessions[name] = (data_dir, seed(seeder, data_dir, events))
        times = {name: [] for name in sizes}
        for run in range(opts.warmup + opts.runs):
            for name, (data_dir, session) in sessions.items():
                ms = turn(hark, data_dir, session)
                if run >= opts.warmup:
                    times[name].append(ms)
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"cli_turn_{name}_ms {value:.0f} ms")
    print(f"cli_turn_100k_vs_100 {medians['100k'] / medians['100']:.2f} ratio")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
