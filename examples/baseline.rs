//! The desktop benchmarks' baseline: an empty Tauri 2 window (one static element, no plugins, no IPC
//! commands) built from the same `tauri` version and features as `hark-desktop`, so `bench/desktop.py`
//! can put Hark's start-up time and memory next to what the framework alone costs on this machine.
//!
//! Its context comes from `bench/baseline/tauri.conf.json` (same window size and CSP as the app, the
//! page in `bench/baseline/dist`). Build: `cargo build --release --example baseline`.

fn main() {
    tauri::Builder::default().run(tauri::generate_context!("bench/baseline/tauri.conf.json")).unwrap_or_else(|error| {
        eprintln!("baseline: {error}");
        std::process::exit(1);
    });
}
