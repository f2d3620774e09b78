//! The one way Hark takes a mutex.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Poisoning only records that another thread panicked while holding the lock; every critical
/// section in Hark leaves its data consistent, so the data is still good to use.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
