# Hark: `make run` sets up and starts the desktop app; `make test` sets up and runs every check.
# Both install what is missing on Debian/Ubuntu (apt via sudo when not root, npm packages, tauri-driver).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

BUILD_PKGS := build-essential file pkg-config libwebkit2gtk-4.1-dev libayatana-appindicator3-dev \
              librsvg2-dev libxdo-dev libssl-dev
TEST_PKGS  := xvfb webkit2gtk-driver dbus xauth python3 python3-venv gnome-keyring imagemagick tmux openssh-server \
              notification-daemon xdotool
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CARGO_BIN  := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin
XVFB       := xvfb-run -a -s "-screen 0 1280x800x24"

.PHONY: help run test bench bench-desktop check-tools core-has-no-tauri system-deps test-system-deps ui-deps ui mcp-test-servers real-agents \
        tauri-driver fmt clippy test-build test-rust test-ui test-e2e bindings test-windows bench-cli package test-package

help:
	@echo "make run    set up and start the Hark desktop app"
	@echo "make test   set up and run every check (fmt, cargo tests built with clippy's lints, UI tests, end-to-end)"
	@echo "make bench  run the benchmarks (one 'name value unit' line per figure)"
	@echo "make bench-cli  only the hark chat turn ones (short vs long session)"
	@echo "make bench-desktop  only the desktop ones: start-up, memory, binary size vs an empty Tauri window"
	@echo "make package  build the .deb (release): hark-desktop, the hark CLI with its completions and man pages, desktop entry, icons; checked"
	@echo "make bindings  regenerate ui/src/lib/bindings.ts from the Rust types (make test fails while it is stale)"
	@echo "make test-windows  hark-core's and hark-cli's tests built for Windows (mingw-w64) and run under Wine"

# --- setup -------------------------------------------------------------------------------------

check-tools:
	@command -v cargo >/dev/null || { echo "Rust is missing: install it from rustup.rs, then re-run." >&2; exit 1; }
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "Node.js (>= 20.19) and npm are missing: install them, then re-run." >&2; exit 1; }
	@node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("Node.js "+process.versions.node+" is too old: Hark'"'"'s UI build needs >= 20.19"); process.exit(1) }'

# Installs only the packages that are not installed yet, so repeated runs stay quiet and fast.
define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing system packages: $$missing"; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

system-deps:
	$(call apt_install,$(BUILD_PKGS))

test-system-deps: system-deps
	$(call apt_install,$(TEST_PKGS))

ui/node_modules/.package-lock.json: ui/package-lock.json | check-tools
	cd ui && npm ci --no-audit --no-fund
	@touch $@

ui-deps: ui/node_modules/.package-lock.json

# The real MCP servers the integration tests start (the official filesystem server, the SDK).
tests/mcp/node_modules/.package-lock.json: tests/mcp/package-lock.json | check-tools
	cd tests/mcp && npm ci --no-audit --no-fund
	@touch $@

# A server on the official Python `mcp` SDK that asks the person through forms (elicitation).
tests/mcp/.venv/.installed: tests/mcp/requirements.txt
	@command -v python3 >/dev/null || { echo "python3 is missing: the MCP form tests need it (make test-system-deps)" >&2; exit 1; }
	python3 -m venv tests/mcp/.venv
	tests/mcp/.venv/bin/pip install --quiet --disable-pip-version-check -r tests/mcp/requirements.txt
	@touch $@

mcp-test-servers: tests/mcp/node_modules/.package-lock.json tests/mcp/.venv/.installed

# The real coding agents the integration tests drive offline against scripted model servers on
# 127.0.0.1: Claude Code and the Codex CLI, at the versions tests/agents pins. Claude Code's native
# binary is put in place by its postinstall script, which npm may not run (its install-script
# policy, --ignore-scripts); bin/claude.exe is then a stub that fails, so the script is run here.
tests/agents/node_modules/.package-lock.json: tests/agents/package-lock.json | check-tools
	cd tests/agents && npm ci --no-audit --no-fund
	cd tests/agents && { node_modules/.bin/claude --version >/dev/null 2>&1 || \
	  node node_modules/@anthropic-ai/claude-code/install.cjs; }
	tests/agents/node_modules/.bin/claude --version
	tests/agents/node_modules/.bin/codex --version
	@touch $@

real-agents: tests/agents/node_modules/.package-lock.json

ui: ui-deps
	cd ui && npm run build

tauri-driver:
	@[ -x "$(CARGO_BIN)/tauri-driver" ] || command -v tauri-driver >/dev/null || cargo install tauri-driver --locked

# --- the two promises --------------------------------------------------------------------------

run: check-tools system-deps ui
	cargo run -p hark --bin hark-desktop

test: check-tools test-system-deps ui tauri-driver fmt core-has-no-tauri test-build test-rust test-ui test-package test-e2e
	@echo "make test: all green"

fmt:
	cargo fmt --all -- --check

clippy:
	cargo clippy --workspace --all-targets -- -D warnings

# hark-core must never depend on Tauri, not even through a dev-dependency.
core-has-no-tauri:
	@if cargo tree -p hark-core -e normal,build,dev --prefix none | grep -qi '^tauri'; then \
	  echo "hark-core depends on tauri:" >&2; cargo tree -p hark-core -i tauri >&2; exit 1; fi
	@echo "hark-core: no tauri crate in its dependency tree"

# The window's IPC types, generated from the Rust types. The same test, run by test-rust without the
# variable, fails while the committed file is stale.
bindings:
	HARK_WRITE_BINDINGS=1 cargo test -p hark --lib bindings::

# `make test` compiles the workspace once, linted as it is compiled: clippy-driver is the
# workspace crates' compiler (RUSTC_WORKSPACE_WRAPPER, with the lint arguments in the form
# `cargo clippy` hands them over), so the lints of `make clippy` (every target, warnings denied) fail
# the build, and no second pass checks every dependency again (`cargo clippy` took ~6 of a fresh
# run's minutes). Every stage of `make test` that builds shares these variables, so none rebuilds.
CLIPPY_DRIVER := $(shell rustc --print sysroot 2>/dev/null)/bin/clippy-driver
test test-build test-rust test-e2e test-package: export RUSTC_WORKSPACE_WRAPPER = $(CLIPPY_DRIVER)
test test-build test-rust test-e2e test-package: export CLIPPY_ARGS = -D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__

# Tests, examples and (built as tests) the benchmarks: what `cargo clippy --all-targets` covers.
test-build:
	@[ -x "$(CLIPPY_DRIVER)" ] || { echo "clippy is missing: rustup component add clippy" >&2; exit 1; }
	cargo test --workspace --no-run
	cargo test --workspace --benches --no-run

test-rust: mcp-test-servers real-agents
	cargo test --workspace

test-ui: ui-deps
	cd ui && npm run check && npm test

# As root, the e2e stage runs in a PID namespace of its own, so no signal a test sends can reach a
# process outside the run (not the shell that ran make, not CI); elsewhere it runs as it is.
ISOLATE := $(shell [ "$$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true >/dev/null 2>&1 && \
             echo unshare --pid --fork --mount-proc --kill-child)

# The real window under Xvfb and a private session D-Bus, one app at a time. It runs the e2e binary
# (and `hark`, `hark-desktop`) exactly as `cargo test --workspace` built them: asking Cargo for
# `-p hark --test e2e` or `build -p hark-cli` would resolve other features and rebuild ~300 crates.
E2E_BIN = cargo test --workspace --no-run --message-format=json | python3 -c 'import json, sys; \
  print(next(m["executable"] for m in map(json.loads, sys.stdin) \
  if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "e2e" and m.get("executable")))'
test-e2e: ui tauri-driver mcp-test-servers
	@command -v python3 >/dev/null || { echo "python3 is missing: make test-system-deps" >&2; exit 1; }
	# Built first: the query below stops reading Cargo at the first e2e artifact, which must not cut
	# a build short.
	cargo test --workspace --no-run -q
	bin="$$($(E2E_BIN))"; \
	HARK_E2E=1 TAURI_DRIVER="$$(command -v tauri-driver || echo $(CARGO_BIN)/tauri-driver)" \
	  $(ISOLATE) dbus-run-session -- $(XVFB) "$$bin" --test-threads=1 --nocapture
	@echo "screenshots: $$(ls target/e2e/*.png | wc -l) files in target/e2e/"

bench: check-tools system-deps ui mcp-test-servers real-agents
	cargo bench -p hark-core --bench store --bench service --bench agent --bench phone
	# A question from another machine through a real SSH tunnel (root and openssh-server: it says so otherwise).
	cargo test -q -p hark-cli --test cli_remote -- --ignored --nocapture bench_ 2>&1 | grep -E '^(remote_|skipped)'
	# An answer reaching the real Claude Code (make real-agents), through its hook and through an MCP task.
	cargo test -q -p hark-cli --test real_claude_code -- --ignored --nocapture --test-threads=1 bench_ 2>&1 | grep -oE '(hook|task)_[a-z_]+ [0-9.]+ ms'
	@$(MAKE) --no-print-directory bench-cli
	@$(MAKE) --no-print-directory bench-desktop

# One `hark chat` turn (release, demo model, process start to exit) on a 100-event and on a
# 100 000-event session, alternating (bench/cli.py).
bench-cli: check-tools system-deps ui
	@command -v python3 >/dev/null || { echo "python3 is missing: bench/cli.py needs it" >&2; exit 1; }
	cargo build --release -p hark-cli -p hark --bin hark --example seed_session
	python3 bench/cli.py --bin-dir "$(BENCH_BIN_DIR)"

# Hark's window next to an empty Tauri window (examples/baseline.rs), same Xvfb, one run: start-up to
# the first element, PSS of the app + its WebKit processes with a 100 000-event session open, release
# binary size (bench/desktop.py). Honours CARGO_TARGET_DIR for where the release binaries are.
BENCH_BIN_DIR = $(or $(CARGO_TARGET_DIR),target)/release
# What ships: one invocation for both, so they share one feature resolution (and one build of the crates).
RELEASE_BINARIES = cargo build --release -p hark-cli -p hark --bin hark --bin hark-desktop
bench-desktop: check-tools test-system-deps ui tauri-driver
	@command -v python3 >/dev/null || { echo "python3 is missing: bench/desktop.py needs it" >&2; exit 1; }
	# The binaries as `make package` ships them; the examples on their own, since building them in
	# the same invocation would give hark-desktop their dev-dependencies' features too.
	$(RELEASE_BINARIES)
	cargo build --release -p hark --example baseline --example seed_session
	TAURI_DRIVER="$$(command -v tauri-driver || echo $(CARGO_BIN)/tauri-driver)" \
	  dbus-run-session -- $(XVFB) python3 bench/desktop.py --bin-dir "$(BENCH_BIN_DIR)"

# --- the package ---------------------------------------------------------------------------------

# The .deb: `tauri bundle` packs the binaries Cargo built (hark-desktop; the hark CLI, its shell
# completions and manual pages go in through `bundle.linux.deb.files` of tauri.conf.json), the
# desktop entry and the icons; no download needed
# (an AppImage would fetch its tools, so it is not made here). tests/package/check_deb.py then checks
# its contents and runs its programs from an extracted copy, `hark hook` starting the app beside it.
TAURI    := ui/node_modules/.bin/tauri
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_NAME  = Hark_$(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)_$(DEB_ARCH).deb
CHECK_DEB = dbus-run-session -- $(XVFB) python3 tests/package/check_deb.py
# The shell completions and manual pages the package installs, written by the built hark
# (target/$(1)/hark, $(1) the profile) into target/$(1)/share/, where bundle.linux.deb.files takes them.
define CLI_SHARE
	rm -rf target/$(1)/share && mkdir -p target/$(1)/share/man1
	target/$(1)/hark completions bash > target/$(1)/share/hark.bash
	target/$(1)/hark completions zsh > target/$(1)/share/_hark
	target/$(1)/hark completions fish > target/$(1)/share/hark.fish
	target/$(1)/hark man target/$(1)/share/man1
	gzip -9n target/$(1)/share/man1/*.1
endef
# bundle.linux.deb.files with the debug build's files in place of the release ones.
DEBUG_DEB_FILES = $(shell python3 -c 'import json; f = json.load(open("tauri.conf.json"))["bundle"]["linux"]["deb"]["files"]; \
  print(json.dumps({"bundle": {"linux": {"deb": {"files": {k: v.replace("target/release/", "target/debug/") for k, v in f.items()}}}}}))' 2>/dev/null)
package: check-tools test-system-deps ui
	@command -v dpkg-deb >/dev/null || { echo "dpkg-deb is missing: make package builds a Debian package" >&2; exit 1; }
	$(RELEASE_BINARIES)
	$(call CLI_SHARE,release)
	$(TAURI) bundle --bundles deb --ci
	$(CHECK_DEB) target/release/bundle/deb/$(DEB_NAME)
	dpkg-deb -c target/release/bundle/deb/$(DEB_NAME)
	@echo "package: target/release/bundle/deb/$(DEB_NAME) ($$(du -h target/release/bundle/deb/$(DEB_NAME) | cut -f1))"

# The same package made from the debug build `cargo test --workspace` made (a release build takes
# ~14 min here), and checked the same way: what the package holds and how its programs find each
# other does not depend on the profile. Part of `make test`.
test-package: ui
	@command -v dpkg-deb >/dev/null || { echo "dpkg-deb is missing: make test-system-deps" >&2; exit 1; }
	cargo test --workspace --no-run -q
	$(call CLI_SHARE,debug)
	$(TAURI) bundle --debug --bundles deb --ci --config '$(DEBUG_DEB_FILES)'
	$(ISOLATE) $(CHECK_DEB) target/debug/bundle/deb/$(DEB_NAME)

# --- Windows, as far as this machine can go ------------------------------------------------------

# hark-core's and hark-cli's tests cross-built with mingw-w64 (Clippy's lints denied, as in `make
# test`) and run under Wine; tests that cannot mean anything on Windows say why they are ignored. Run
# by .ci/run after `make test`: it installs a cross compiler and Wine and builds the crates a second
# time. Wine 8 has no bcryptprimitives.dll (Rust's std needs its ProcessPrng), so a shim of one
# function is built beside; WINEPATH also finds mingw's runtime DLLs. The Wine prefix is made by the
# first test binary that runs (its "could not open rundll32.exe" line is harmless).
WIN_TARGET := x86_64-pc-windows-gnu
WINE_DIR   := $(CURDIR)/target/wine
WIN_ENV     = WINEDEBUG=-all WINEPREFIX=$(WINE_DIR)/prefix \
  WINEPATH="Z:$$(echo $(WINE_DIR) | tr / '\\');Z:$$(ls -d /usr/lib/gcc/x86_64-w64-mingw32/*-win32 | head -1 | tr / '\\')" \
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=/usr/lib/wine/wine64
# No debug info and no incremental state for this second build: it is a third of the size on disk
# and builds faster; a failing test's message and backtrace's function names are what is read here.
test-windows: export CARGO_PROFILE_DEV_DEBUG = 0
test-windows: export CARGO_INCREMENTAL = 0
test-windows: export RUSTC_WORKSPACE_WRAPPER = $(CLIPPY_DRIVER)
test-windows: export CLIPPY_ARGS = -D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
test-windows: check-tools ui
	$(call apt_install,gcc-mingw-w64-x86-64 wine64)
	rustup target add $(WIN_TARGET)
	mkdir -p $(WINE_DIR)
	x86_64-w64-mingw32-gcc -shared -O2 -o $(WINE_DIR)/bcryptprimitives.dll \
	  src-tauri/core/tests/wine/bcryptprimitives.c -ladvapi32
	cargo test --target $(WIN_TARGET) -p hark-core -p hark-cli --no-run
	# One test at a time: under load, Wine once ended a test binary running tests side by side with
	# no output at all (exit 1), which a serial run has not shown.
	$(WIN_ENV) cargo test --target $(WIN_TARGET) -p hark-core -p hark-cli --no-fail-fast -- --test-threads=1
	# The desktop app for Windows, built with the same lints (its Windows-only code included) but not
	# run: its WebView2 does not run under Wine. About 8 minutes more here. Its NSIS installer is not
	# made: Tauri's bundler downloads its NSIS plugin, and this machine reaches no download site.
	cargo build --target $(WIN_TARGET) -p hark --bin hark-desktop
	@echo "test-windows: $$(ls -sh target/$(WIN_TARGET)/debug/hark-desktop.exe)"
