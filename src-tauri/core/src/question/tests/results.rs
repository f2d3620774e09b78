//! Result texts and the error wire shape.

use std::time::Duration;

use super::*;
use crate::error::CodedError;

fn sample_batch() -> AnswerBatch {
    AnswerBatch { answers: vec![pick("db", &["SQLite"]), custom("name", "hark-demo"), Answer::skip("extras")] }
}

#[test]
fn answered_text_is_the_answers_json_with_ids() {
    let text = answered_result_text(&sample_batch());
    let back: AnswerBatch = serde_json::from_str(&text).unwrap();
    assert_eq!(back, sample_batch());
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["answers"][1], json!({"id": "name", "selected": [], "custom": "hark-demo"}));
    assert_eq!(v["answers"][2], json!({"id": "extras", "selected": []}));
}

#[test]
fn a_pending_result_says_what_happened_as_data_and_never_carries_answers() {
    let text = pending_result_text("call_42", PendingReason::TimedOut, Duration::from_millis(30_400));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (&v["status"], &v["reason"], &v["call_id"], &v["waited_secs"]),
        (&json!("pending"), &json!("timed_out"), &json!("call_42"), &json!(30))
    );
    assert!(v.get("answers").is_none(), "{text}");
    assert!(serde_json::from_str::<AnswerBatch>(&text).is_err(), "it must never read as an answered result");
    assert_eq!(result_answers(&text), None);
    let next = v["next"].as_str().unwrap().to_lowercase();
    for phrase in [
        "has not answered yet",
        "stays open",
        "does not depend on the answer",
        "consent",
        "skip",
        "answer_to_pending_question",
    ] {
        assert!(next.contains(phrase), "{phrase:?} missing from {next}");
    }
    let back = PendingResult::parse(&text).unwrap();
    assert_eq!((back.reason, back.call_id.as_str(), back.waited_secs), (PendingReason::TimedOut, "call_42", 30));
    // An outside agent is told to collect the answer instead.
    let client = client_pending_result("c", PendingReason::HarkQuit, Duration::ZERO).text();
    let v: Value = serde_json::from_str(&client).unwrap();
    assert_eq!(v["reason"], json!("hark_quit"));
    assert!(v["next"].as_str().unwrap().contains("get_answers"));
    // Results recorded before pending results were data still read as pending, with no timing.
    assert_eq!(PendingResult::parse("PENDING: the user has not answered yet."), None);
}

#[test]
fn a_pending_result_keeps_an_odd_call_id_inert() {
    let text = pending_result_text("a\"b\nc", PendingReason::TimedOut, Duration::from_secs(1));
    assert_eq!(PendingResult::parse(&text).unwrap().call_id, "a\"b\nc");
    assert!(!text.contains('\n'));
}

#[test]
fn a_late_answer_says_how_long_after_the_timeout_it_came() {
    let questions = vec![question("db", &["SQLite", "Postgres"], false)];
    let batch = AnswerBatch { answers: vec![pick("db", &["Postgres"])] };
    let since = chrono::Utc::now() - chrono::Duration::seconds(95);
    let v: Value =
        serde_json::from_str(&late_answer_text("c", &Intent::Question, &questions, &batch, Some(since))).unwrap();
    let after = v["answered_secs_after_timeout"].as_u64().unwrap();
    assert!((95..100).contains(&after), "{after}");
    let v: Value = serde_json::from_str(&late_answer_text("c", &Intent::Question, &questions, &batch, None)).unwrap();
    assert!(v.get("answered_secs_after_timeout").is_none());
}

#[test]
fn a_withdrawal_result_is_data_without_answers() {
    let text = WithdrawnResult { call_id: "c".into(), reason: "found it in the README".into() }.text();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"status": "withdrawn", "call_id": "c", "reason": "found it in the README"})
    );
    assert_eq!(result_answers(&text), None);
}

#[test]
fn late_answer_text_round_trips() {
    let questions = vec![question("db", &["SQLite", "Postgres"], false), question("name", &[], false)];
    let batch = AnswerBatch { answers: vec![pick("db", &["Postgres"]), custom("name", "x")] };
    let text = late_answer_text("call_7", &Intent::Question, &questions, &batch, None);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v[LATE_ANSWER_MARKER], json!(true));
    assert_eq!(v["call_id"], json!("call_7"));
    let recorded: Vec<Question> = serde_json::from_value(v["questions"].clone()).unwrap();
    assert_eq!(recorded, questions);
    assert_eq!(parse_late_answer_text(&text), Some(("call_7".to_string(), batch.clone())));
    // Surrounding whitespace from a transport does not matter.
    assert_eq!(parse_late_answer_text(&format!("\n {text} \n")), Some(("call_7".to_string(), batch)));
}

#[test]
fn ordinary_messages_are_not_late_answers() {
    for text in [
        "Postgres please",
        "",
        "{}",
        r#"{"answers": []}"#,
        r#"{"answer_to_pending_question": false, "call_id": "c", "answers": []}"#,
        r#"{"answer_to_pending_question": "true", "call_id": "c", "answers": []}"#,
        r#"{"answer_to_pending_question": true, "answers": []}"#,
        r#"{"answer_to_pending_question": true, "call_id": 3, "answers": []}"#,
        r#"{"answer_to_pending_question": true, "call_id": "c", "answers": [{"id": 1}]}"#,
        r#"[{"answer_to_pending_question": true}]"#,
    ] {
        assert_eq!(parse_late_answer_text(text), None, "{text}");
    }
}

#[test]
fn error_serializes_as_name_code_message() {
    let e = UserInteractionError::new(ErrorCode::BadAnswer, "answers[0]: nope");
    let v = serde_json::to_value(e.boundary()).unwrap();
    assert_eq!(v, json!({"name": "UserInteractionError", "code": "BAD_ANSWER", "message": "answers[0]: nope"}));
    assert_eq!(v.as_object().unwrap().len(), 3);
    assert_eq!(serde_json::to_value(e.boundary()).unwrap(), v);
    assert_eq!(serde_json::from_value::<UserInteractionError>(v).unwrap(), e);
    assert_eq!(e.to_string(), "BAD_ANSWER: answers[0]: nope");
}

#[test]
fn every_code_spells_the_same_everywhere() {
    for code in ErrorCode::ALL {
        let serde_form = serde_json::to_value(code).unwrap();
        assert_eq!(serde_form, json!(code.as_str()));
        assert_eq!(code.to_string(), code.as_str());
        assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        let e = UserInteractionError::new(code, "m");
        let back: UserInteractionError = serde_json::from_str(&serde_json::to_string(&e.boundary()).unwrap()).unwrap();
        assert_eq!(back, e);
    }
    assert_eq!(ErrorCode::parse("NOPE"), None);
    let names: Vec<&str> = ErrorCode::ALL.iter().map(ErrorCode::as_str).collect();
    assert_eq!(
        names,
        [
            "INVALID_REQUEST",
            "NO_PROVIDER",
            "DUPLICATE_PROVIDER",
            "ASK_CANCELLED",
            "ASK_DECLINED",
            "ASK_ABORTED",
            "ASK_TIMED_OUT",
            "CALLER_NOT_LIVE",
            "DELEGATED_CALLER",
            "BAD_ANSWER",
            "NOT_PENDING",
            "REPLY_QUEUED",
            "BAD_INTENT",
            "PLAN_NOT_APPROVED"
        ]
    );
}

#[test]
fn other_error_names_do_not_deserialize_as_ours() {
    let v = json!({"name": "StoreError", "code": "BAD_ANSWER", "message": "m"});
    assert!(serde_json::from_value::<UserInteractionError>(v).is_err());
    let v = json!({"name": "UserInteractionError", "code": "SOMETHING_ELSE", "message": "m"});
    assert!(serde_json::from_value::<UserInteractionError>(v).is_err());
}
