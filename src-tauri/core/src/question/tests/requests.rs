//! parse_request / validate_questions: the shapes and limits a model's arguments must respect.

use super::*;

fn with_question(q: Value) -> Value {
    json!({ "questions": [q] })
}

fn n_questions(n: usize) -> Value {
    let qs: Vec<Value> = (0..n).map(|i| json!({"id": format!("q{i}"), "question": "Ok?"})).collect();
    json!({ "questions": qs })
}

fn with_options(labels: &[&str]) -> Value {
    let opts: Vec<Value> = labels.iter().map(|l| json!({ "label": l })).collect();
    with_question(json!({"id": "a", "question": "Pick?", "options": opts}))
}

#[test]
fn documented_example_parses() {
    let req = legacy(&db_and_name()).unwrap();
    assert_eq!(req.wait, WaitLimit::Indefinite);
    assert_eq!(req.questions.len(), 2);
    let db = &req.questions[0];
    assert_eq!(db.id, "db");
    assert_eq!(db.header.as_deref(), Some("Database"));
    assert_eq!(db.options[0].description.as_deref(), Some("embedded, zero setup"));
    assert_eq!(db.options[1], QuestionOption { label: "Postgres".into(), description: None });
    assert!(!db.multi_select);
    assert!(req.questions[1].is_free_form());
    validate_questions(&req.questions).unwrap();
}

#[test]
fn empty_questions_are_rejected() {
    let msg = rejection(legacy(&json!({ "questions": [] })));
    assert!(msg.starts_with("questions: empty; give 1–8 questions"), "{msg}");
    let err = validate_questions(&[]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
}

#[test]
fn missing_or_mistyped_questions_are_rejected() {
    assert!(rejection(legacy(&json!({}))).contains("questions: missing"));
    assert!(rejection(legacy(&json!({ "questions": null }))).contains("questions: missing"));
    let msg = rejection(legacy(&json!({ "questions": {"id": "a"} })));
    assert!(msg.contains("questions: must be an array of question objects, got an object"), "{msg}");
    let msg = rejection(legacy(&json!({ "questions": ["Which db?"] })));
    assert!(msg.contains("questions[0]: must be an object with id and question, got a string"), "{msg}");
}

#[test]
fn question_count_limit() {
    assert_eq!(legacy(&n_questions(8)).unwrap().questions.len(), 8);
    assert_eq!(legacy(&n_questions(1)).unwrap().questions.len(), 1);
    let msg = rejection(legacy(&n_questions(9)));
    assert!(msg.contains("questions: 9 questions given, at most 8 per call"), "{msg}");
}

#[test]
fn id_limits() {
    for blank in ["", "   "] {
        let msg = rejection(legacy(&with_question(json!({"id": blank, "question": "Q?"}))));
        assert!(msg.starts_with("questions[0].id: empty"), "{msg}");
    }
    let ok = "i".repeat(limits::MAX_ID_CHARS);
    assert_eq!(legacy(&with_question(json!({"id": ok, "question": "Q?"}))).unwrap().questions[0].id, ok);
    let long = "i".repeat(limits::MAX_ID_CHARS + 1);
    let msg = rejection(legacy(&with_question(json!({"id": long, "question": "Q?"}))));
    assert!(msg.contains("questions[0].id: 65 characters, at most 64"), "{msg}");
}

#[test]
fn duplicate_ids_are_rejected_with_both_positions() {
    let args = json!({"questions": [
        {"id": "db", "question": "A?"}, {"id": "x", "question": "B?"}, {"id": "db", "question": "C?"}
    ]});
    let msg = rejection(legacy(&args));
    assert!(msg.contains("questions[2].id: \"db\" is already used by questions[0]"), "{msg}");
}

#[test]
fn question_text_limits_count_characters_not_bytes() {
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": " \n"}))));
    assert!(msg.contains("questions[0].question: empty"), "{msg}");
    // 1000 two-byte characters are 2000 bytes but within the limit.
    let ok = "é".repeat(limits::MAX_QUESTION_CHARS);
    assert!(legacy(&with_question(json!({"id": "a", "question": ok}))).is_ok());
    let long = "é".repeat(limits::MAX_QUESTION_CHARS + 1);
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": long}))));
    assert!(msg.contains("questions[0].question: 1001 characters, at most 1000"), "{msg}");
}

#[test]
fn header_limit() {
    let ok = "h".repeat(limits::MAX_HEADER_CHARS);
    assert!(legacy(&with_question(json!({"id": "a", "question": "Q?", "header": ok}))).is_ok());
    let long = "h".repeat(limits::MAX_HEADER_CHARS + 1);
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": "Q?", "header": long}))));
    assert!(msg.contains("questions[0].header: 61 characters, at most 60"), "{msg}");
}

#[test]
fn option_count_limits() {
    let args = json!({"questions": [
        {"id": "a", "question": "A?"},
        {"id": "b", "question": "B?", "options": [{"label": "only"}]}
    ]});
    let msg = rejection(legacy(&args));
    assert!(msg.starts_with("questions[1].options: 1 option given, give 2–10 or none"), "{msg}");

    let ten: Vec<String> = (0..10).map(|i| format!("o{i}")).collect();
    let ten: Vec<&str> = ten.iter().map(String::as_str).collect();
    assert_eq!(legacy(&with_options(&ten)).unwrap().questions[0].options.len(), 10);
    assert_eq!(legacy(&with_options(&ten[..2])).unwrap().questions[0].options.len(), 2);
    let eleven: Vec<String> = (0..11).map(|i| format!("o{i}")).collect();
    let eleven: Vec<&str> = eleven.iter().map(String::as_str).collect();
    let msg = rejection(legacy(&with_options(&eleven)));
    assert!(msg.contains("questions[0].options: 11 options given, give 2–10 or none"), "{msg}");
}

#[test]
fn empty_or_null_options_mean_free_form() {
    for options in [json!([]), Value::Null] {
        let args = with_question(json!({"id": "a", "question": "Name?", "options": options}));
        let req = legacy(&args).unwrap();
        assert!(req.questions[0].is_free_form());
    }
}

#[test]
fn multi_select_without_options_is_rejected() {
    let args = with_question(json!({"id": "a", "question": "Name?", "multi_select": true}));
    assert!(rejection(legacy(&args)).contains("questions[0].multi_select: true needs options"));
}

#[test]
fn label_limits_and_uniqueness() {
    let msg = rejection(legacy(&with_options(&["ok", ""])));
    assert!(msg.contains("questions[0].options[1].label: empty"), "{msg}");
    let ok = "l".repeat(limits::MAX_LABEL_CHARS);
    assert!(legacy(&with_options(&[&ok, "other"])).is_ok());
    let long = "l".repeat(limits::MAX_LABEL_CHARS + 1);
    let msg = rejection(legacy(&with_options(&[&long, "other"])));
    assert!(msg.contains("questions[0].options[0].label: 121 characters, at most 120"), "{msg}");
    let msg = rejection(legacy(&with_options(&["Yes", "No", "Yes"])));
    assert!(msg.contains("questions[0].options[2].label: \"Yes\" repeats options[0]"), "{msg}");
    // Labels differing only by surrounding space look the same to the user.
    let msg = rejection(legacy(&with_options(&["Yes", "Yes "])));
    assert!(msg.contains("options[1].label: \"Yes \" repeats options[0]"), "{msg}");
    // Case differs = different labels.
    assert!(legacy(&with_options(&["yes", "Yes"])).is_ok());
}

#[test]
fn description_limit() {
    let opts = |d: String| {
        with_question(
            json!({"id": "a", "question": "Q?", "options": [{"label": "x", "description": d}, {"label": "y"}]}),
        )
    };
    assert!(legacy(&opts("d".repeat(limits::MAX_DESCRIPTION_CHARS))).is_ok());
    let msg = rejection(legacy(&opts("d".repeat(limits::MAX_DESCRIPTION_CHARS + 1))));
    assert!(msg.contains("questions[0].options[0].description: 501 characters, at most 500"), "{msg}");
}

#[test]
fn removed_fields_are_rejected_with_an_explanation() {
    let option_level = [
        ("value", "label is also the value"),
        ("recommended", "say so in its description"),
        ("desc", "use \"description\""),
    ];
    for (field, why) in option_level {
        let mut opt = json!({"label": "SQLite"});
        opt[field] = json!(true);
        let args = with_question(json!({"id": "a", "question": "Q?", "options": [opt, {"label": "Postgres"}]}));
        let msg = rejection(legacy(&args));
        assert!(msg.contains(&format!("questions[0].options[0].{field}: does not exist")), "{msg}");
        assert!(msg.contains(why), "{msg}");
    }
    for field in ["allow_custom", "allowCustom"] {
        let mut q = json!({"id": "a", "question": "Q?"});
        q[field] = json!(false);
        let msg = rejection(legacy(&with_question(q)));
        assert!(msg.contains(&format!("questions[0].{field}: does not exist")), "{msg}");
        assert!(msg.contains("free-form"), "{msg}");
    }
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": "Q?", "multiSelect": true}))));
    assert!(msg.contains("questions[0].multiSelect: does not exist: use \"multi_select\""), "{msg}");
}

#[test]
fn unknown_fields_list_what_is_allowed() {
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": "Q?", "colour": "red"}))));
    assert!(
        msg.contains("questions[0].colour: is not a field here; allowed: id, question, header, options, multi_select"),
        "{msg}"
    );
    let msg = rejection(legacy(&json!({"questions": [{"id": "a", "question": "Q?"}], "extra": 1})));
    assert!(msg.contains("extra: is not a field here; allowed: questions"), "{msg}");
    // An odd key is quoted, so it cannot smuggle a newline into the message.
    let msg = rejection(legacy(&json!({"questions": [{"id": "a", "question": "Q?"}], "a\nb": 1})));
    assert!(msg.contains("\"a\\nb\": is not a field here"), "{msg}");
    assert!(!msg.contains('\n'));
}

#[test]
fn single_question_shape_at_top_level_points_to_questions() {
    let msg = rejection(legacy(&json!({"question": "Which db?", "options": [{"label": "a"}, {"label": "b"}]})));
    assert!(msg.contains("question: belongs inside a question"), "{msg}");
    assert!(msg.contains("questions: missing"), "{msg}");
}

#[test]
fn legacy_rejects_timeout_as_unknown() {
    let mut args = db_and_name();
    args["timeout"] = json!(60);
    let msg = rejection(legacy(&args));
    assert!(msg.contains("timeout: is not available: this tool waits until the user answers"), "{msg}");
}

#[test]
fn timed_timeout_values() {
    let with = |t: Value| {
        let mut args = db_and_name();
        args["timeout"] = t;
        timed(&args)
    };
    assert_eq!(timed(&db_and_name()).unwrap().wait, WaitLimit::Seconds(120));
    assert_eq!(parse_request(&db_and_name(), ToolMode::Timed, 45).unwrap().wait, WaitLimit::Seconds(45));
    assert_eq!(with(Value::Null).unwrap().wait, WaitLimit::Seconds(120));
    assert_eq!(with(json!(30)).unwrap().wait, WaitLimit::Seconds(30));
    assert_eq!(with(json!(1)).unwrap().wait, WaitLimit::Seconds(1));
    assert_eq!(with(json!(-1)).unwrap().wait, WaitLimit::Indefinite);
    assert_eq!(with(json!(90.0)).unwrap().wait, WaitLimit::Seconds(90));
    assert_eq!(with(json!(limits::MAX_TIMEOUT_SECS)).unwrap().wait, WaitLimit::Seconds(limits::MAX_TIMEOUT_SECS));
    let cases = [
        (json!(0), "timeout: 0 is not allowed"),
        (json!(-2), "timeout: -2 is not allowed"),
        (json!(limits::MAX_TIMEOUT_SECS + 1), "timeout: 604801 is more than 604800"),
        (json!(u64::MAX), "is more than 604800"),
        (json!(1e20), "100000000000000000000 is more than 604800"),
        (json!(1.5), "timeout: must be an integer, got a fractional number"),
        (json!("120"), "timeout: must be an integer, got a string"),
        (json!(true), "timeout: must be an integer, got a boolean"),
    ];
    for (t, expected) in cases {
        let msg = rejection(with(t.clone()));
        assert!(msg.contains(expected), "{t}: {msg}");
        assert!(msg.contains("or -1 to wait until the user answers"), "{msg}");
    }
}

#[test]
fn an_out_of_range_default_timeout_is_clamped_into_range() {
    let wait = |default| parse_request(&db_and_name(), ToolMode::Timed, default).unwrap().wait;
    assert_eq!(wait(u64::MAX), WaitLimit::Seconds(limits::MAX_TIMEOUT_SECS));
    assert_eq!(wait(limits::MAX_TIMEOUT_SECS + 1), WaitLimit::Seconds(limits::MAX_TIMEOUT_SECS));
    assert_eq!(wait(0), WaitLimit::Seconds(1));
    assert_eq!(wait(45), WaitLimit::Seconds(45));
}

#[test]
fn the_timeout_option_takes_seconds_from_1_to_the_limit() {
    assert_eq!(limits::parse_timeout_secs("1"), Ok(1));
    assert_eq!(limits::parse_timeout_secs("604800"), Ok(limits::MAX_TIMEOUT_SECS));
    for bad in ["0", "604801", "10000000000000000000", "99999999999999999999", "-1", "1.5", "", "ten"] {
        assert_eq!(
            limits::parse_timeout_secs(bad),
            Err(format!("--timeout {bad:?}: seconds from 1 to 604800")),
            "{bad}"
        );
    }
}

#[test]
fn arguments_must_be_an_object() {
    for args in [json!([1]), json!(3), Value::Null, json!(true), json!("not json")] {
        let msg = rejection(legacy(&args));
        assert!(msg.starts_with("arguments must be a JSON object"), "{msg}");
    }
    let msg = rejection(legacy(&json!("[1, 2]")));
    assert!(msg.contains("got a string that is not a JSON object"), "{msg}");
}

#[test]
fn double_encoded_arguments_are_decoded() {
    let encoded = Value::String(db_and_name().to_string());
    assert_eq!(legacy(&encoded).unwrap(), legacy(&db_and_name()).unwrap());
    let inner = Value::String(db_and_name()["questions"].to_string());
    assert_eq!(legacy(&json!({ "questions": inner })).unwrap(), legacy(&db_and_name()).unwrap());
}

#[test]
fn wrong_field_types_are_named() {
    let msg = rejection(legacy(&with_question(json!({"id": 7, "question": "Q?"}))));
    assert!(msg.contains("questions[0].id: must be a string, got a number"), "{msg}");
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": "Q?", "options": "a, b"}))));
    assert!(msg.contains("questions[0].options: must be an array of {label, description} objects, got a string"));
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": "Q?", "multi_select": "yes"}))));
    assert!(msg.contains("questions[0].multi_select: must be true or false, got a string"), "{msg}");
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": "Q?", "options": ["a", "b"]}))));
    assert!(msg.contains("questions[0].options[0]: must be an object like {\"label\": \"SQLite\"}"), "{msg}");
    let msg = rejection(legacy(&with_question(json!({"id": "a", "question": "Q?", "header": 3}))));
    assert!(msg.contains("questions[0].header: must be a string, got a number"), "{msg}");
    let msg = rejection(legacy(&with_question(json!({"question": "Q?"}))));
    assert!(msg.contains("questions[0].id: missing"), "{msg}");
}

#[test]
fn every_problem_is_reported_at_once() {
    let args = json!({"questions": [
        {"id": "", "question": "A?"},
        {"id": "b", "question": "", "options": [{"label": "x"}]},
        {"id": "c", "question": "C?", "recommended": "x"}
    ]});
    let msg = rejection(legacy(&args));
    for part in [
        "questions[0].id: empty",
        "questions[1].question: empty",
        "questions[1].options: 1 option given",
        "questions[2].recommended: does not exist",
    ] {
        assert!(msg.contains(part), "{part} missing from {msg}");
    }
    assert!(msg.ends_with("Fix the arguments and call ask_user_question again"), "{msg}");
}

#[test]
fn long_problem_lists_are_capped() {
    let qs: Vec<Value> = (0..8).map(|_| json!({"id": "", "question": ""})).collect();
    let msg = rejection(legacy(&json!({ "questions": qs })));
    assert!(msg.contains("; and 8 more"), "{msg}");
    assert_eq!(msg.matches(": empty").count(), 8, "{msg}");
}

#[test]
fn validate_questions_rechecks_recorded_calls() {
    validate_questions(&[question("a", &["x", "y"], true), question("b", &[], false)]).unwrap();
    let err = validate_questions(&[question("a", &["x"], false), question("a", &[], false)]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("questions[0].options: 1 option given"), "{}", err.message);
    assert!(err.message.contains("questions[1].id: \"a\" is already used by questions[0]"), "{}", err.message);
}
