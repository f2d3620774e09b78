//! Whatever `ask_user_question` accepts is recorded so that the question projection, which reads
//! recorded calls strictly, sees exactly the questions that were asked.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::Value;

use super::registry;
use crate::question::tests::props::{arb_json, arb_mode, arb_request, near_valid};
use crate::question::{parse_request, ToolMode, TOOL_NAME};
use crate::service::{MemoryLog, UserQuestionService};
use crate::session::{fold_events, Event};

/// How a timed call spells its `timeout`.
#[derive(Debug, Clone, Copy)]
enum TimeoutForm {
    AsIs,
    Float,
    Null,
    Omitted,
}

/// The lenient spellings `parse_request` documents, each applied or not.
#[derive(Debug, Clone, Copy)]
struct Loosening {
    nulls: bool,
    timeout: TimeoutForm,
    questions_as_string: bool,
    double_encoded: bool,
}

fn arb_loosening() -> impl Strategy<Value = Loosening> {
    let timeout = prop_oneof![
        Just(TimeoutForm::AsIs),
        Just(TimeoutForm::Float),
        Just(TimeoutForm::Null),
        Just(TimeoutForm::Omitted)
    ];
    (any::<bool>(), timeout, any::<bool>(), any::<bool>()).prop_map(
        |(nulls, timeout, questions_as_string, double_encoded)| Loosening {
            nulls,
            timeout,
            questions_as_string,
            double_encoded,
        },
    )
}

/// Optional fields that are absent (or `false`) become `null`.
fn spell_omitted_as_null(question: &mut Value) {
    let Some(q) = question.as_object_mut() else { return };
    for key in ["header", "options"] {
        q.entry(key).or_insert(Value::Null);
    }
    if q.get("multi_select") == Some(&Value::Bool(false)) {
        q.insert("multi_select".into(), Value::Null);
    }
    for option in q.get_mut("options").and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(o) = option.as_object_mut() {
            o.entry("description").or_insert(Value::Null);
        }
    }
}

fn loosen(mut args: Value, l: Loosening) -> Value {
    if l.nulls {
        for q in args["questions"].as_array_mut().into_iter().flatten() {
            spell_omitted_as_null(q);
        }
    }
    if let Some(obj) = args.as_object_mut() {
        match (l.timeout, obj.get("timeout").and_then(Value::as_i64)) {
            (TimeoutForm::Float, Some(secs)) => {
                obj.insert("timeout".into(), Value::from(secs as f64));
            }
            (TimeoutForm::Null, Some(_)) => {
                obj.insert("timeout".into(), Value::Null);
            }
            (TimeoutForm::Omitted, _) => {
                obj.remove("timeout");
            }
            _ => {}
        }
    }
    if l.questions_as_string {
        args["questions"] = Value::String(args["questions"].to_string());
    }
    if l.double_encoded {
        args = Value::String(args.to_string());
    }
    args
}

/// Valid requests in lenient spellings, near-valid ones, and arbitrary JSON.
fn arb_arguments() -> impl Strategy<Value = (ToolMode, Value)> {
    let lenient = arb_mode().prop_flat_map(|mode| {
        (arb_request(mode), arb_loosening()).prop_map(move |(req, l)| (mode, loosen(req.to_arguments(mode), l)))
    });
    prop_oneof![
        3 => lenient,
        1 => near_valid(),
        1 => (arb_mode(), arb_json()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn accepted_arguments_are_recorded_as_the_questions_that_were_asked((mode, args) in arb_arguments()) {
        let service = UserQuestionService::new(Arc::new(MemoryLog::new()));
        let recorded = registry(&service, mode).prepare(TOOL_NAME, args.clone()).arguments;
        let header = Event::RequestHeader { tools: vec![TOOL_NAME.into()], question_mode: mode, default_timeout_secs: 120 ,stop_turn: false};
        let call = Event::ToolCall { call_id: "c".into(), name: TOOL_NAME.into(), arguments: recorded.clone() };
        let fold = fold_events([&header, &call]);
        match parse_request(&args, mode, 120) {
            Ok(asked) => {
                let record = fold.get("c");
                prop_assert!(record.is_some(), "no record for {}", recorded);
                let record = record.unwrap();
                prop_assert_eq!(&record.questions, &asked.questions);
                prop_assert_eq!(record.timed, mode == ToolMode::Timed);
                // The strict form the schema describes, still meaning the same request.
                prop_assert!(recorded["questions"].is_array(), "{}", recorded);
                prop_assert_eq!(recorded.get("timeout").is_some(), mode == ToolMode::Timed, "{}", recorded);
                prop_assert_eq!(parse_request(&recorded, mode, 120), Ok(asked));
            }
            // A refused call keeps what the model sent, for the model to read back and correct.
            Err(_) => prop_assert_eq!(recorded, args),
        }
    }
}
