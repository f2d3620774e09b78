//! Durability under SIGKILL, and snapshot consistency for readers while the writer appends.
//!
//! The kill test re-runs this test binary as a child (filtered to `child_writer`, told what to do
//! through environment variables). The child appends forever, mixing single events and batches; the
//! parent kills it at a random moment, reopens the store and checks the log is a clean prefix.

mod child_process;

use std::ffi::OsStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use child_process::spawn_until_ready;
use hark_core::session::{Event, Store, StoredEvent, DB_FILE};

const CHILD_DIR: &str = "HARK_STORE_TEST_CHILD_DIR";
const CHILD_SESSION: &str = "HARK_STORE_TEST_CHILD_SESSION";
const CHILD_SEED: &str = "HARK_STORE_TEST_CHILD_SEED";
const KILLS: usize = 24;
const READY: &str = "HARK_STORE_CHILD_READY";

/// xorshift64*: enough randomness for kill timing and batch sizes without another dependency.
struct Rng(u64);

impl Rng {
    fn seeded(seed: u64) -> Self {
        Rng(seed | 1)
    }
    fn from_clock() -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
        Rng::seeded(nanos ^ u64::from(std::process::id()).rotate_left(32))
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One event of batch `batch` (of `size` events), position `i`. The id carries the batch shape so a
/// reader can tell a whole batch from a torn one.
fn marked(batch: u64, i: u64, size: u64, padding: usize) -> Event {
    Event::UserMessage { message_id: format!("b{batch}-{i}-of-{size}"), text: "x".repeat(padding), source: None }
}

fn batch_shape(event: &StoredEvent) -> (u64, u64, u64) {
    let Event::UserMessage { message_id, .. } = &event.event else {
        panic!("unexpected event {:?}", event.event);
    };
    let parts: Vec<u64> = message_id
        .trim_start_matches('b')
        .split(['-', 'o', 'f'])
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap())
        .collect();
    (parts[0], parts[1], parts[2])
}

/// Checks seq 1..n gapless and every batch whole and in order. Returns the highest batch number.
fn assert_clean_prefix(events: &[StoredEvent]) -> u64 {
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "gapless sequence");
    }
    assert!(matches!(events[0].event, Event::SessionCreated { .. }));
    let mut last_batch = 0;
    let mut rest = &events[1..];
    while let Some(first) = rest.first() {
        let (batch, i, size) = batch_shape(first);
        assert_eq!(i, 0, "batch {batch} starts at its first event");
        assert!(batch > last_batch, "batches in order");
        assert!(rest.len() as u64 >= size, "batch {batch} is torn: {} of {size} stored", rest.len());
        for (j, e) in rest[..size as usize].iter().enumerate() {
            assert_eq!(batch_shape(e), (batch, j as u64, size), "batch {batch} whole");
        }
        last_batch = batch;
        rest = &rest[size as usize..];
    }
    last_batch
}

/// The child's body: appends until killed. A no-op in an ordinary test run.
#[test]
fn child_writer() {
    let (Some(dir), Ok(session), Ok(seed)) =
        (std::env::var_os(CHILD_DIR), std::env::var(CHILD_SESSION), std::env::var(CHILD_SEED))
    else {
        return;
    };
    let store = Store::open(dir.as_ref()).unwrap();
    let events = store.events(&session).unwrap();
    let mut batch = assert_clean_prefix(&events) + 1;
    let mut rng = Rng::seeded(seed.parse().unwrap());
    let mut ready = false;
    loop {
        // Half single appends, half batches of 2–8; bodies up to ~6 KiB so some rows span pages.
        let size = if rng.below(2) == 0 { 1 } else { 2 + rng.below(7) };
        let padding = rng.below(6000) as usize;
        let events: Vec<Event> = (0..size).map(|i| marked(batch, i, size, padding)).collect();
        if size == 1 {
            store.append(&session, events.into_iter().next().unwrap()).unwrap();
        } else {
            store.append_batch(&session, events).unwrap();
        }
        batch += 1;
        // Ready once one append has committed, so every round's kill lands among appends even on a
        // loaded machine, where a child may take longer than the kill delay to write its first row.
        // On its own line: with --nocapture the harness has already printed "test child_writer ... ".
        if !ready {
            println!("\n{READY}");
            ready = true;
        }
    }
}

#[test]
fn killed_writers_leave_a_clean_prefix_and_appending_continues() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let session = Store::open(dir.path()).unwrap().create_session("durability", None, None).unwrap();
    let mut rng = Rng::from_clock();
    let mut stored_before = 1;
    let mut grew = 0;
    for round in 0..KILLS {
        let seed = rng.next().to_string();
        let env = [
            (CHILD_DIR, dir.path().as_os_str()),
            (CHILD_SESSION, OsStr::new(&session)),
            (CHILD_SEED, OsStr::new(&seed)),
        ];
        let Some(mut child) = spawn_until_ready("child_writer", &env, READY, Duration::from_secs(10)) else {
            panic!("round {round}: the child never started appending");
        };
        std::thread::sleep(Duration::from_millis(5 + rng.below(120)));
        child.kill().unwrap(); // SIGKILL on Unix, TerminateProcess on Windows: no destructor, no rollback, no checkpoint.
        child.wait().unwrap();

        let store = Store::open(dir.path()).unwrap();
        let events = store.events(&session).unwrap();
        let last_batch = assert_clean_prefix(&events);
        assert!(events.len() >= stored_before, "round {round}: committed events were lost");
        grew += usize::from(events.len() > stored_before);
        let summary = store.list_sessions().unwrap().into_iter().find(|s| s.id == session).unwrap();
        assert_eq!(summary.event_count, events.len() as u64, "summary row committed with the events");
        // The parent appends one whole batch of its own: the log must keep going after a kill.
        let next = store.append_batch(&session, (0..3).map(|i| marked(last_batch + 1, i, 3, 10)).collect()).unwrap();
        assert_eq!(next[0].seq, events.len() as u64 + 1);
        stored_before = events.len() + 3;
    }
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
    let (rows, valid): (i64, i64) = conn
        .query_row("SELECT count(*), sum(json_valid(body)) FROM events", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(rows, valid, "every stored body is valid JSON");
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    eprintln!("{KILLS} kills; {rows} events stored; the children appended in {grew} rounds");
    assert!(grew >= KILLS / 2, "the children appended in only {grew} of {KILLS} rounds");
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
}

#[test]
fn readers_see_only_whole_batches_while_the_writer_appends() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let session = store.create_session("snapshots", None, None).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (store, session, done) = (Arc::clone(&store), session.clone(), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut reads = 0u32;
            let mut longest = 0;
            while !done.load(Ordering::Acquire) {
                let events = store.events(&session).unwrap();
                assert_clean_prefix(&events);
                assert!(events.len() >= longest, "a later read saw fewer events");
                longest = events.len();
                reads += 1;
            }
            reads
        })
    };
    let mut rng = Rng::from_clock();
    for batch in 1..=400 {
        let size = 1 + rng.below(10);
        store.append_batch(&session, (0..size).map(|i| marked(batch, i, size, 40)).collect()).unwrap();
    }
    done.store(true, Ordering::Release);
    let reads = reader.join().unwrap();
    assert!(reads > 1, "the reader ran only {reads} times");
    assert_eq!(assert_clean_prefix(&store.events(&session).unwrap()), 400);
}
