//! The `run_code` worker alone, for programs whose own `main` cannot serve it (hark-core's tests).

fn main() -> std::process::ExitCode {
    hark_core::ptc::worker::serve()
}
