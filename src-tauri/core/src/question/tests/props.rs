//! Property tests: the parser and the answer validator are total, and valid data survives them.

use proptest::prelude::*;
use std::collections::BTreeSet;

use super::*;

/// Arbitrary JSON trees, biased towards the vocabulary's own keys so objects often look like requests.
pub(crate) fn arb_json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        3 => prop::sample::select(vec![
            "questions", "timeout", "id", "question", "header", "options", "multi_select", "label",
            "description", "value", "recommended", "allow_custom", "desc",
        ])
        .prop_map(String::from),
        1 => ".{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        prop::sample::select(vec![-1i64, 0, 1, 120, 604_800, 604_801]).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 10, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..10).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|kvs| Value::Object(kvs.into_iter().collect())),
        ]
    })
}

fn text(max: usize) -> impl Strategy<Value = String> {
    // Starts with a visible character so it is never blank; includes multi-byte characters.
    proptest::string::string_regex(&format!("[a-zA-Z0-9é中?][a-zA-Z0-9 é中?,.]{{0,{max}}}")).unwrap()
}

fn arb_question(index: usize) -> impl Strategy<Value = Question> {
    let labels = prop_oneof![
        1 => Just(BTreeSet::new()),
        3 => prop::collection::btree_set("[A-Za-z][A-Za-z0-9_-]{0,20}", limits::MIN_OPTIONS..=limits::MAX_OPTIONS),
    ];
    (
        "[a-z][a-z0-9_]{0,10}",
        text(80),
        prop::option::of(text(30)),
        labels,
        prop::collection::vec(prop::option::of(text(60)), limits::MAX_OPTIONS),
        any::<bool>(),
    )
        .prop_map(move |(id, question, header, labels, descriptions, multi)| {
            let options: Vec<QuestionOption> = labels
                .into_iter()
                .zip(descriptions)
                .map(|(label, description)| QuestionOption { label, description })
                .collect();
            Question {
                // The index suffix keeps ids unique within the batch.
                id: format!("{id}_{index}"),
                question,
                header,
                multi_select: multi && !options.is_empty(),
                options,
            }
        })
}

fn arb_questions() -> impl Strategy<Value = Vec<Question>> {
    (limits::MIN_QUESTIONS..=limits::MAX_QUESTIONS).prop_flat_map(|n| (0..n).map(arb_question).collect::<Vec<_>>())
}

pub(crate) fn arb_request(mode: ToolMode) -> impl Strategy<Value = AskRequest> {
    let wait = match mode {
        ToolMode::Legacy => Just(WaitLimit::Indefinite).boxed(),
        ToolMode::Timed => {
            prop_oneof![Just(WaitLimit::Indefinite), (1..=limits::MAX_TIMEOUT_SECS).prop_map(WaitLimit::Seconds),]
                .boxed()
        }
    };
    (arb_questions(), wait).prop_map(|(questions, wait)| AskRequest { questions, wait })
}

pub(crate) fn arb_mode() -> impl Strategy<Value = ToolMode> {
    prop_oneof![Just(ToolMode::Legacy), Just(ToolMode::Timed)]
}

/// A valid request's arguments with one targeted mutation: a field replaced by arbitrary JSON, removed,
/// an unknown field added, or a question duplicated.
pub(crate) fn near_valid() -> impl Strategy<Value = (ToolMode, Value)> {
    (arb_mode(), any::<prop::sample::Index>(), arb_json(), 0u8..6, any::<prop::sample::Index>()).prop_flat_map(
        |(mode, qi, junk, kind, field)| {
            arb_request(mode).prop_map(move |req| {
                let mut args = req.to_arguments(mode);
                let Some(qs) = args["questions"].as_array_mut() else {
                    return (mode, args);
                };
                let i = qi.index(qs.len());
                let fields = ["id", "question", "header", "options", "multi_select"];
                let f = fields[field.index(fields.len())];
                match kind {
                    0 => qs[i][f] = junk.clone(),
                    1 => {
                        if let Some(o) = qs[i].as_object_mut() {
                            o.remove(f);
                        }
                    }
                    2 => qs[i]["value"] = junk.clone(),
                    3 => {
                        let dup = qs[i].clone();
                        qs.push(dup);
                    }
                    4 => {
                        if let Some(opts) = qs[i]["options"].as_array_mut() {
                            let k = field.index(opts.len().max(1)).min(opts.len().saturating_sub(1));
                            if let Some(o) = opts.get_mut(k) {
                                o["label"] = junk.clone();
                            }
                        }
                    }
                    _ => args["timeout"] = junk.clone(),
                }
                (mode, args)
            })
        },
    )
}

/// A valid batch for `questions`: per question a skip, custom text, or a selection that respects
/// single/multi-select, in a shuffled order.
fn arb_valid_batch(questions: Vec<Question>) -> impl Strategy<Value = (Vec<Question>, AnswerBatch)> {
    let per_question: Vec<_> = questions
        .iter()
        .map(|q| {
            let n = q.options.len();
            (0u8..3, prop::collection::btree_set(0..n.max(1), 0..=n.max(1)), text(40))
        })
        .collect();
    (per_question, Just(questions)).prop_flat_map(|(choices, questions)| {
        let answers: Vec<Answer> = questions
            .iter()
            .zip(choices)
            .map(|(q, (kind, picks, text))| match kind {
                0 => Answer::skip(&q.id),
                1 => Answer { id: q.id.clone(), selected: vec![], custom: Some(text) },
                _ if q.is_free_form() => Answer { id: q.id.clone(), selected: vec![], custom: Some(text) },
                _ => {
                    let take = if q.multi_select { picks.len() } else { picks.len().min(1) };
                    let selected = picks
                        .into_iter()
                        .filter(|k| *k < q.options.len())
                        .take(take)
                        .map(|k| q.options[k].label.clone())
                        .collect();
                    Answer { id: q.id.clone(), selected, custom: None }
                }
            })
            .collect();
        (Just(questions), Just(answers).prop_shuffle())
            .prop_map(|(questions, answers)| (questions, AnswerBatch { answers }))
    })
}

/// Questions and answers over a tiny alphabet, so ids and labels collide and every branch is reached.
fn arb_messy_batch() -> impl Strategy<Value = (Vec<Question>, AnswerBatch)> {
    let small = || prop::sample::select(vec!["a", "b", "c", "", " ", "a "]).prop_map(String::from);
    let q = (small(), prop::collection::vec(small(), 0..4), any::<bool>()).prop_map(|(id, labels, multi)| Question {
        id,
        question: "q".into(),
        header: None,
        options: labels.into_iter().map(|label| QuestionOption { label, description: None }).collect(),
        multi_select: multi,
    });
    let a = (small(), prop::collection::vec(small(), 0..4), prop::option::of(small()))
        .prop_map(|(id, selected, custom)| Answer { id, selected, custom });
    (prop::collection::vec(q, 0..5), prop::collection::vec(a, 0..6))
        .prop_map(|(questions, answers)| (questions, AnswerBatch { answers }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parse_request_is_total_on_arbitrary_json(v in arb_json(), mode in arb_mode()) {
        match parse_request(&v, mode, 120) {
            // Whatever gets through must satisfy the limits on its own.
            Ok(req) => prop_assert!(validate_questions(&req.questions).is_ok()),
            Err(e) => {
                prop_assert_eq!(e.code, ErrorCode::InvalidRequest);
                prop_assert!(!e.message.is_empty());
            }
        }
        // The double-encoded form must behave exactly like the object it encodes.
        if v.is_object() {
            let encoded = Value::String(v.to_string());
            prop_assert_eq!(parse_request(&encoded, mode, 120), parse_request(&v, mode, 120));
        }
    }

    #[test]
    fn parse_request_is_total_on_near_valid_requests((mode, args) in near_valid()) {
        match parse_request(&args, mode, 120) {
            Ok(req) => {
                prop_assert!(validate_questions(&req.questions).is_ok());
                // Projections read recorded calls with serde; they must see what the parser accepted.
                let via_serde: Vec<Question> = serde_json::from_value(args["questions"].clone()).unwrap();
                prop_assert_eq!(via_serde, req.questions);
            }
            Err(e) => {
                prop_assert_eq!(e.code, ErrorCode::InvalidRequest);
                prop_assert!(e.message.contains("questions") || e.message.contains("timeout"), "{}", e.message);
            }
        }
    }

    #[test]
    fn generated_requests_parse_serialize_and_reparse(req in arb_request(ToolMode::Timed)) {
        for mode in [ToolMode::Legacy, ToolMode::Timed] {
            let req = AskRequest { wait: if mode == ToolMode::Legacy { WaitLimit::Indefinite } else { req.wait }, ..req.clone() };
            let args = req.to_arguments(mode);
            let parsed = parse_request(&args, mode, 120).unwrap();
            prop_assert_eq!(&parsed, &req);
            // Through text, as arguments travel from a model.
            let reparsed = parse_request(&serde_json::from_str(&args.to_string()).unwrap(), mode, 120).unwrap();
            prop_assert_eq!(&reparsed, &req);
            // The request's own serde form (stored by the service) round-trips too.
            let stored: AskRequest = serde_json::from_str(&serde_json::to_string(&parsed).unwrap()).unwrap();
            prop_assert_eq!(&stored, &req);
            prop_assert!(validate_questions(&parsed.questions).is_ok());
        }
    }

    #[test]
    fn validate_answers_is_total((questions, batch) in arb_messy_batch()) {
        if let Err(e) = validate_answers(&questions, &batch) {
            prop_assert_eq!(e.code, ErrorCode::BadAnswer);
            prop_assert!(!e.message.is_empty());
        }
    }

    #[test]
    fn generated_valid_batches_are_accepted((questions, batch) in arb_questions().prop_flat_map(arb_valid_batch)) {
        prop_assert_eq!(validate_answers(&questions, &batch), Ok(()));
        // And the answered text carries the same batch back.
        let back: AnswerBatch = serde_json::from_str(&answered_result_text(&batch)).unwrap();
        prop_assert_eq!(&back, &batch);
        let late = late_answer_text("call", &Intent::Question, &questions, &batch, None);
        prop_assert_eq!(parse_late_answer_text(&late), Some(("call".to_string(), batch.clone())));
    }

    #[test]
    fn dropping_any_answer_is_refused((questions, batch) in arb_questions().prop_flat_map(arb_valid_batch), i in any::<prop::sample::Index>()) {
        let mut short = batch.clone();
        let removed = short.answers.remove(i.index(short.answers.len()));
        let err = validate_answers(&questions, &short).unwrap_err();
        prop_assert_eq!(err.code, ErrorCode::BadAnswer);
        prop_assert!(err.message.contains(&format!("{:?} has no answer", removed.id)), "{}", err.message);
    }
}
