//! `hark`: the terminal front door over hark-core.

fn main() {
    println!("hark {}", env!("CARGO_PKG_VERSION"));
}
