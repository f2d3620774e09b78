//! Service tests. Deadlines run on tokio's paused clock (`start_paused`), so waiting 120 s costs
//! nothing and every instant is exact: no real sleeps anywhere.

mod callers;
mod concurrency;
mod foreground;
mod late;
mod provider;
pub(crate) mod support;
mod timed;
