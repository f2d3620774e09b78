//! Pure views rebuilt from a session's events: nothing here reads or writes the store.

pub mod inbox;
pub mod questions;
pub mod transcript;
