//! The session event log in SQLite and the projections rebuilt from it.
