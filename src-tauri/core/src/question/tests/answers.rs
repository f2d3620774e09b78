//! validate_answers: what makes a batch acceptable.

use super::*;

fn qs() -> Vec<Question> {
    vec![
        question("db", &["SQLite", "Postgres"], false),
        question("name", &[], false),
        question("extras", &["Docker", "CI", "Docs"], true),
    ]
}

fn batch(answers: Vec<Answer>) -> AnswerBatch {
    AnswerBatch { answers }
}

fn bad(questions: &[Question], answers: Vec<Answer>) -> String {
    match validate_answers(questions, &batch(answers)) {
        Ok(()) => panic!("expected BAD_ANSWER"),
        Err(e) => {
            assert_eq!(e.code, ErrorCode::BadAnswer, "{e}");
            e.message
        }
    }
}

#[test]
fn batched_answers_in_any_order_are_accepted() {
    let answers = vec![pick("extras", &["Docker"]), custom("name", "hark-demo"), pick("db", &["SQLite"])];
    validate_answers(&qs(), &batch(answers)).unwrap();
}

#[test]
fn multi_select_takes_several_labels_single_select_one() {
    let ok = vec![pick("db", &["Postgres"]), Answer::skip("name"), pick("extras", &["Docs", "Docker", "CI"])];
    validate_answers(&qs(), &batch(ok)).unwrap();
    let msg = bad(&qs(), vec![pick("db", &["SQLite", "Postgres"]), Answer::skip("name"), Answer::skip("extras")]);
    assert!(msg.contains("answers[0] (\"db\"): 2 options selected, this question allows one"), "{msg}");
}

#[test]
fn custom_answers_replace_selection() {
    let ok = vec![custom("db", "MariaDB"), custom("name", "x"), custom("extras", "Nix flake")];
    validate_answers(&qs(), &batch(ok)).unwrap();
    let both = Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: Some("MariaDB".into()) };
    let msg = bad(&qs(), vec![both, Answer::skip("name"), Answer::skip("extras")]);
    assert!(msg.contains("answers[0] (\"db\"): custom text and selected options together"), "{msg}");
}

#[test]
fn blank_or_oversized_custom_is_refused() {
    let msg = bad(&qs(), vec![custom("db", "  "), Answer::skip("name"), Answer::skip("extras")]);
    assert!(msg.contains("answers[0] (\"db\"): custom text is empty"), "{msg}");
    let ok = "c".repeat(limits::MAX_CUSTOM_CHARS);
    validate_answers(&qs(), &batch(vec![Answer::skip("db"), custom("name", &ok), Answer::skip("extras")])).unwrap();
    let long = "c".repeat(limits::MAX_CUSTOM_CHARS + 1);
    let msg = bad(&qs(), vec![Answer::skip("db"), custom("name", &long), Answer::skip("extras")]);
    assert!(msg.contains("answers[1] (\"name\"): custom text has 10001 characters, at most 10000"), "{msg}");
}

#[test]
fn explicit_skip_of_every_kind_is_accepted() {
    let answers: Vec<Answer> = qs().iter().map(|q| Answer::skip(&q.id)).collect();
    assert!(answers.iter().all(Answer::is_skip));
    validate_answers(&qs(), &batch(answers)).unwrap();
    // The wire form `{"id": ...}` without `selected` is the same skip.
    let wire: AnswerBatch =
        serde_json::from_value(json!({"answers": [{"id": "db"}, {"id": "name"}, {"id": "extras"}]})).unwrap();
    assert!(wire.answers.iter().all(Answer::is_skip));
    validate_answers(&qs(), &wire).unwrap();
}

#[test]
fn invalid_choices_are_refused() {
    let msg = bad(&qs(), vec![pick("db", &["MySQL"]), Answer::skip("name"), Answer::skip("extras")]);
    assert!(msg.contains("answers[0] (\"db\"): \"MySQL\" is not an option of this question"), "{msg}");
    // Labels match exactly: the label is the value.
    let msg = bad(&qs(), vec![pick("db", &["sqlite"]), Answer::skip("name"), Answer::skip("extras")]);
    assert!(msg.contains("\"sqlite\" is not an option"), "{msg}");
}

#[test]
fn duplicate_multi_select_selections_are_refused() {
    let msg = bad(&qs(), vec![Answer::skip("db"), Answer::skip("name"), pick("extras", &["CI", "Docs", "CI"])]);
    assert!(msg.contains("answers[2] (\"extras\"): \"CI\" selected twice"), "{msg}");
}

#[test]
fn free_form_questions_take_only_custom_or_skip() {
    let msg = bad(&qs(), vec![Answer::skip("db"), pick("name", &["hark"]), Answer::skip("extras")]);
    assert!(msg.contains("answers[1] (\"name\"): this question has no options"), "{msg}");
}

#[test]
fn every_question_exactly_once() {
    let msg = bad(&qs(), vec![pick("db", &["SQLite"]), Answer::skip("extras")]);
    assert!(msg.contains("question \"name\" has no answer"), "{msg}");
    let msg = bad(&qs(), vec![]);
    for id in ["db", "name", "extras"] {
        assert!(msg.contains(&format!("question \"{id}\" has no answer")), "{msg}");
    }
    let msg =
        bad(&qs(), vec![Answer::skip("db"), Answer::skip("name"), Answer::skip("extras"), pick("db", &["SQLite"])]);
    assert!(msg.contains("answers[3] (\"db\"): question answered twice (also answers[0])"), "{msg}");
    let msg =
        bad(&qs(), vec![Answer::skip("db"), Answer::skip("name"), Answer::skip("extras"), Answer::skip("colour")]);
    assert!(msg.contains("answers[3]: id \"colour\" matches no question of this call"), "{msg}");
}

#[test]
fn answers_with_unknown_fields_do_not_deserialize() {
    // A misspelt `custom` must not turn into a silent skip.
    let r: Result<AnswerBatch, _> = serde_json::from_value(json!({"answers": [{"id": "a", "text": "x"}]}));
    assert!(r.is_err());
}
