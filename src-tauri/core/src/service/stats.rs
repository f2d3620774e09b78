//! Live resource counts. Tests assert they return to zero after every path, which is how "nothing
//! leaked" is checked rather than assumed.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

/// A snapshot of what the service currently holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ServiceStats {
    /// Foreground questions waiting in the pending table.
    pub pending_waits: usize,
    /// Host deadlines that are armed or paused (one per unsettled timed wait).
    pub timers: usize,
    /// Client take-overs currently held.
    pub takeovers: usize,
    /// Sessions whose live root listens for late replies (the service keeps no other late state:
    /// continued questions and queued replies are the session log's).
    pub steer_channels: usize,
    /// Registered interaction providers (0 or 1).
    pub providers: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) pending_waits: Gauge,
    pub(crate) timers: Gauge,
    pub(crate) takeovers: Gauge,
}

#[derive(Debug, Default)]
pub(crate) struct Gauge(AtomicUsize);

impl Gauge {
    pub(crate) fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn sub(&self, n: usize) {
        self.0.fetch_sub(n, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}
