//! Random logs: the counters the store keeps while appending (in batches of any size, across
//! reopens) always equal what the question projection says about the stored log.

mod store_common;

use hark_core::question::ToolMode;
use hark_core::session::{project_questions, Event, QuestionState, Store, ToolOutcome};
use proptest::prelude::*;
use store_common::*;

const CALLS: [&str; 3] = ["c0", "c1", "c2"];
const MESSAGES: [&str; 3] = ["m0", "m1", "m2"];

fn event() -> impl Strategy<Value = Event> {
    let call = proptest::sample::select(&CALLS[..]);
    let message = proptest::sample::select(&MESSAGES[..]);
    prop_oneof![
        prop_oneof![Just(ToolMode::Legacy), Just(ToolMode::Timed)].prop_map(header),
        call.clone().prop_map(|c| ask(c, &["db"])),
        call.clone().prop_map(pending),
        call.clone().prop_map(|c| result(c, ToolOutcome::Unknown)),
        call.clone().prop_map(|c| answered(c, &answers(&["db"], "A"))),
        call.clone().prop_map(|c| failed(c, "ASK_CANCELLED")),
        (message.clone(), call.clone()).prop_map(|(m, c)| queued(m, c, &late_text(c, &["db"], &answers(&["db"], "B")))),
        message.clone().prop_map(discarded),
        Just(turn_ended("t", "completed")),
        (message, call).prop_map(|(m, c)| admitted(m, c, &late_text(c, &["db"], &answers(&["db"], "B")))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn kept_counters_match_the_projection(
        events in proptest::collection::vec(event(), 0..40),
        cuts in proptest::collection::vec(1usize..6, 1..40),
        reopen_at in 0usize..40,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let id = store.create_session("p", None, None).unwrap();
        let mut rest = &events[..];
        for (batches, cut) in cuts.iter().cycle().enumerate() {
            if rest.is_empty() {
                break;
            }
            if batches == reopen_at {
                // A new writer must rebuild its fold from disk and carry on with the same counts.
                drop(store);
                store = Store::open(dir.path()).unwrap();
            }
            let (batch, tail) = rest.split_at((*cut).min(rest.len()));
            store.append_batch(&id, batch.to_vec()).unwrap();
            rest = tail;
        }
        let stored = store.events(&id).unwrap();
        // When each question was asked is each log's own clock; everything else must agree.
        let timeless = |records: Vec<hark_core::session::QuestionRecord>| {
            records.into_iter().map(|r| hark_core::session::QuestionRecord { asked_at: None, ..r }).collect::<Vec<_>>()
        };
        let records = timeless(project_questions(&stored));
        prop_assert_eq!(&records, &timeless(project_questions(&in_memory(&events))));
        let count = |state| records.iter().filter(|r| r.state == state).count() as u32;
        let summary = &store.list_sessions().unwrap()[0];
        prop_assert_eq!(summary.open_questions, count(QuestionState::Open));
        prop_assert_eq!(summary.continued_questions, count(QuestionState::Continued));
        prop_assert_eq!(summary.event_count, events.len() as u64 + 1);
    }
}
