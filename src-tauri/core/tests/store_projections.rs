//! Every question-projection rule, checked twice: on events built in memory and on the same events
//! written to a real store, read back by a fresh `Store`. The disk path also checks that the counters
//! `list_sessions` keeps during appends agree with the projection.

mod store_common;

use hark_core::question::{answered_result_text, AnswerBatch, ToolMode};
use hark_core::session::{project_questions, Event, QuestionRecord, QuestionState, StoredEvent, ToolOutcome};
use store_common::*;

type Load = fn(&[Event]) -> Vec<StoredEvent>;

fn only(load: Load, events: &[Event]) -> Option<QuestionRecord> {
    let records = project_questions(&load(events));
    assert!(records.len() <= 1, "expected at most one record, got {records:?}");
    records.into_iter().next()
}

fn opens_on_a_valid_call(load: Load) {
    let r = only(load, &[ask("c1", &["db", "name"])]).expect("an open question");
    assert_eq!(r.call_id, "c1");
    assert_eq!(r.state, QuestionState::Open);
    assert_eq!(r.questions, questions(&["db", "name"]));
    assert_eq!(r.answers, None);
    assert!(!r.answered_late && r.reply_queued.is_none());
}

fn ignores_invalid_and_other_calls(load: Load) {
    let empty = Event::ToolCall {
        call_id: "c1".into(),
        name: "ask_user_question".into(),
        arguments: serde_json::json!({"questions": []}),
    };
    let dup = ask("c2", &["same", "same"]);
    let not_json = Event::ToolCall {
        call_id: "c3".into(),
        name: "ask_user_question".into(),
        arguments: "{\"questions\": [".into(),
    };
    let other_tool = Event::ToolCall { call_id: "c4".into(), name: "read_file".into(), arguments: ask_args(&["db"]) };
    assert!(project_questions(&load(&[empty, dup, not_json, other_tool])).is_empty());
}

fn arguments_recorded_as_text_still_open(load: Load) {
    let text = ask_args(&["db"]).to_string();
    let call = Event::ToolCall { call_id: "c1".into(), name: "ask_user_question".into(), arguments: text.into() };
    assert_eq!(only(load, &[call]).unwrap().state, QuestionState::Open);
}

fn mode_comes_from_the_latest_header_before_the_call(load: Load) {
    let events = [
        ask("before-any-header", &["a"]),
        header(ToolMode::Timed),
        ask("timed", &["a"]),
        header(ToolMode::Legacy),
        ask("legacy", &["a"]),
        header(ToolMode::Timed),
    ];
    let records = project_questions(&load(&events));
    let timed: Vec<(&str, bool)> = records.iter().map(|r| (r.call_id.as_str(), r.timed)).collect();
    assert_eq!(timed, [("before-any-header", false), ("timed", true), ("legacy", false)]);
}

fn pending_result_continues(load: Load) {
    let r = only(load, &[header(ToolMode::Timed), ask("c1", &["db"]), pending("c1")]).unwrap();
    assert_eq!((r.state, r.timed, r.answers), (QuestionState::Continued, true, None));
}

fn unknown_result_continues(load: Load) {
    let r = only(load, &[ask("c1", &["db"]), result("c1", ToolOutcome::Unknown)]).unwrap();
    assert_eq!(r.state, QuestionState::Continued);
}

fn ok_result_settles_with_answers(load: Load) {
    let batch = answers(&["db", "name"], "B");
    let r = only(load, &[ask("c1", &["db", "name"]), answered("c1", &batch)]).unwrap();
    assert_eq!(r.state, QuestionState::Settled);
    assert_eq!(r.answers, Some(batch));
    assert!(!r.answered_late);
}

fn ok_result_settles_with_the_recorded_answers_not_its_text(load: Load) {
    let batch = answers(&["db"], "A");
    let other = answers(&["db"], "B");
    // The text says B; the answers recorded beside it say A, and they are what the person gave.
    let outcome = ToolOutcome::Ok { content: answered_result_text(&other), answers: Some(batch.clone()) };
    let r = only(load, &[ask("c1", &["db"]), result("c1", outcome)]).unwrap();
    assert_eq!((r.state, r.answers), (QuestionState::Settled, Some(batch)));
    let prose = ToolOutcome::Ok { content: "The person chose A.".into(), answers: Some(answers(&["db"], "A")) };
    let r = only(load, &[ask("c1", &["db"]), result("c1", prose)]).unwrap();
    assert_eq!(r.state, QuestionState::Settled);
}

fn a_pending_results_time_is_the_recorded_one_else_its_texts(load: Load) {
    let said = chrono::DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z").unwrap().with_timezone(&chrono::Utc);
    let outcome = ToolOutcome::Pending { content: "not JSON".into(), since: Some(said) };
    let r = only(load, &[ask("c1", &["db"]), result("c1", outcome)]).unwrap();
    assert_eq!((r.state, r.since), (QuestionState::Continued, Some(said)));
    // A log of an earlier build: the time is read from the pending result's text.
    let r = only(load, &[ask("c1", &["db"]), pending("c1")]).unwrap();
    assert!(r.since.is_some());
}

fn ok_result_of_an_earlier_build_settles_from_its_text(load: Load) {
    let batch = answers(&["db"], "B");
    let r = only(load, &[ask("c1", &["db"]), result("c1", ToolOutcome::ok(answered_result_text(&batch)))]).unwrap();
    assert_eq!((r.state, r.answers), (QuestionState::Settled, Some(batch)));
}

fn error_result_removes(load: Load) {
    let events = [ask("c1", &["db"]), failed("c1", "ASK_CANCELLED"), ask("c2", &["db"]), failed("c2", "ASK_ABORTED")];
    assert!(project_questions(&load(&events)).is_empty());
}

fn ok_result_with_unusable_answers_removes(load: Load) {
    let wrong_label = answers(&["db"], "Z");
    let events =
        [ask("c1", &["db"]), answered("c1", &wrong_label), ask("c2", &["db"]), result("c2", ToolOutcome::ok("done"))];
    assert!(project_questions(&load(&events)).is_empty());
}

fn later_results_do_not_change_a_decided_call(load: Load) {
    let batch = answers(&["db"], "A");
    let events = [ask("c1", &["db"]), answered("c1", &batch), pending("c1"), failed("c1", "ASK_ABORTED")];
    let r = only(load, &events).unwrap();
    assert_eq!((r.state, r.answers), (QuestionState::Settled, Some(batch)));
}

fn queued_reply_reserves(load: Load) {
    let text = late_text("c1", &["db"], &answers(&["db"], "A"));
    let r = only(load, &[ask("c1", &["db"]), pending("c1"), queued("m1", "c1", &text)]).unwrap();
    assert_eq!(r.state, QuestionState::Continued);
    assert_eq!(r.reply_queued.as_deref(), Some("m1"));
}

fn queued_reply_for_a_call_that_is_not_continued_reserves_nothing(load: Load) {
    let text = late_text("c1", &["db"], &answers(&["db"], "A"));
    let r = only(load, &[ask("c1", &["db"]), queued("m1", "c1", &text)]).unwrap();
    assert_eq!((r.state, r.reply_queued), (QuestionState::Open, None));
}

fn discarded_reply_releases(load: Load) {
    let text = late_text("c1", &["db"], &answers(&["db"], "A"));
    let events = [ask("c1", &["db"]), pending("c1"), queued("m1", "c1", &text), discarded("m1")];
    let r = only(load, &events).unwrap();
    assert_eq!((r.state, r.reply_queued), (QuestionState::Continued, None));
}

fn discarding_another_message_keeps_the_reservation(load: Load) {
    let text = late_text("c1", &["db"], &answers(&["db"], "A"));
    let events = [ask("c1", &["db"]), pending("c1"), queued("m1", "c1", &text), discarded("m-other")];
    assert_eq!(only(load, &events).unwrap().reply_queued.as_deref(), Some("m1"));
}

fn turn_end_without_admission_keeps_the_reservation(load: Load) {
    // However a turn ends (done, stopped, Quit, or closed by crash repair), a queued reply still
    // waits to be admitted: only its own discard frees the question for another answer.
    let text = late_text("c1", &["db"], &answers(&["db"], "A"));
    for reason in ["completed", "aborted", "interrupted"] {
        let events = [
            turn_started("t1"),
            ask("c1", &["db"]),
            pending("c1"),
            queued("m1", "c1", &text),
            turn_ended("t1", reason),
        ];
        let r = only(load, &events).unwrap();
        assert_eq!((r.state, r.reply_queued.as_deref()), (QuestionState::Continued, Some("m1")), "{reason}");
    }
}

fn admitted_reply_settles_late(load: Load) {
    let batch = answers(&["db", "name"], "A");
    let text = late_text("c1", &["db", "name"], &batch);
    let events = [
        header(ToolMode::Timed),
        turn_started("t1"),
        ask("c1", &["db", "name"]),
        pending("c1"),
        turn_ended("t1", "completed"),
        queued("m1", "c1", &text),
        turn_started("t2"),
        admitted("m1", "c1", &text),
    ];
    let r = only(load, &events).unwrap();
    assert_eq!(r.state, QuestionState::Settled);
    assert_eq!(r.answers, Some(batch));
    assert!(r.answered_late && r.timed);
    assert_eq!(r.reply_queued, None);
}

fn unusable_reply_text_settles_with_an_empty_batch(load: Load) {
    let wrong_call = late_text("c-other", &["db"], &answers(&["db"], "A"));
    let events = [
        ask("c1", &["db"]),
        pending("c1"),
        ask("c2", &["db"]),
        pending("c2"),
        admitted("m1", "c1", "not json at all"),
        admitted("m2", "c2", &wrong_call),
    ];
    let records = project_questions(&load(&events));
    assert_eq!(records.len(), 2);
    for r in records {
        assert_eq!(r.state, QuestionState::Settled, "{}", r.call_id);
        assert_eq!(r.answers, Some(AnswerBatch { answers: vec![] }));
        assert!(r.answered_late);
    }
}

fn first_admitted_reply_wins(load: Load) {
    let first = answers(&["db"], "A");
    let second = answers(&["db"], "B");
    let events = [
        ask("c1", &["db"]),
        pending("c1"),
        admitted("m1", "c1", &late_text("c1", &["db"], &first)),
        admitted("m2", "c1", &late_text("c1", &["db"], &second)),
    ];
    assert_eq!(only(load, &events).unwrap().answers, Some(first));
}

fn reply_to_a_call_that_is_not_continued_changes_nothing(load: Load) {
    let batch = answers(&["db"], "A");
    let text = late_text("c1", &["db"], &batch);
    let r = only(load, &[ask("c1", &["db"]), admitted("m1", "c1", &text)]).unwrap();
    assert_eq!((r.state, r.answers, r.answered_late), (QuestionState::Open, None, false));
}

fn pasted_reply_json_without_source_is_not_a_reply(load: Load) {
    let text = late_text("c1", &["db"], &answers(&["db"], "A"));
    let r = only(load, &[ask("c1", &["db"]), pending("c1"), user("m1", &text)]).unwrap();
    assert_eq!(r.state, QuestionState::Continued);
}

fn crash_repair_continues_a_live_question(load: Load) {
    // What repair appends is decided from the log alone; the disk variant exercises the store method
    // in tests/store_basics.rs, here the resulting log is projected.
    let live = [header(ToolMode::Timed), turn_started("t1"), ask("c1", &["db"])];
    let repairs = hark_core::session::repairs_needed(&live);
    assert_eq!(repairs, vec![result("c1", ToolOutcome::Unknown), turn_ended("t1", "interrupted")]);
    let all: Vec<Event> = live.iter().cloned().chain(repairs).collect();
    let r = only(load, &all).unwrap();
    assert_eq!((r.state, r.timed), (QuestionState::Continued, true));
}

macro_rules! both {
    ($($rule:ident),* $(,)?) => {
        mod in_memory {
            $( #[test] fn $rule() { super::$rule(super::in_memory) } )*
        }
        mod from_disk {
            $( #[test] fn $rule() { super::$rule(super::from_disk) } )*
        }
    };
}

both!(
    opens_on_a_valid_call,
    ignores_invalid_and_other_calls,
    arguments_recorded_as_text_still_open,
    mode_comes_from_the_latest_header_before_the_call,
    pending_result_continues,
    unknown_result_continues,
    ok_result_settles_with_answers,
    ok_result_settles_with_the_recorded_answers_not_its_text,
    ok_result_of_an_earlier_build_settles_from_its_text,
    a_pending_results_time_is_the_recorded_one_else_its_texts,
    error_result_removes,
    ok_result_with_unusable_answers_removes,
    later_results_do_not_change_a_decided_call,
    queued_reply_reserves,
    queued_reply_for_a_call_that_is_not_continued_reserves_nothing,
    discarded_reply_releases,
    discarding_another_message_keeps_the_reservation,
    turn_end_without_admission_keeps_the_reservation,
    admitted_reply_settles_late,
    unusable_reply_text_settles_with_an_empty_batch,
    first_admitted_reply_wins,
    reply_to_a_call_that_is_not_continued_changes_nothing,
    pasted_reply_json_without_source_is_not_a_reply,
    crash_repair_continues_a_live_question,
);
