// Keep a console window from opening next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    // A `run_code` script runs in a process of this program, started with the worker argument.
    if let Some(code) = hark_core::ptc::worker::main_if_worker() {
        return code;
    }
    hark_app::run();
    std::process::ExitCode::SUCCESS
}
