//! The model-facing tool definition.

use super::*;

fn keys_recursively(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                out.push(k.clone());
                keys_recursively(child, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|c| keys_recursively(c, out)),
        _ => {}
    }
}

fn params(mode: ToolMode) -> Value {
    tool_definition(mode, 120)["parameters"].clone()
}

fn property_names(schema: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
    names.sort_unstable();
    names
}

#[test]
fn removed_fields_appear_nowhere() {
    for mode in [ToolMode::Legacy, ToolMode::Timed] {
        let def = tool_definition(mode, 120);
        let mut keys = Vec::new();
        keys_recursively(&def, &mut keys);
        let text = def.to_string();
        for removed in ["value", "recommended", "allow_custom", "allowCustom", "desc"] {
            assert!(!keys.iter().any(|k| k == removed), "{mode:?} schema has key {removed}");
            assert!(!text.contains(&format!("\"{removed}\"")), "{mode:?} schema mentions \"{removed}\"");
        }
        // A recommendation is a mark at the end of a label, never a field: the word appears only as it.
        let without_mark = text.replace(&format!("\\\"{RECOMMENDED_MARK}\\\""), "");
        assert_ne!(without_mark, text, "{mode:?}: the description asks for the mark");
        assert!(!without_mark.to_lowercase().contains("recommended"), "{mode:?}: {without_mark}");
        assert!(!text.contains("allow_custom"));
    }
}

#[test]
fn timeout_only_in_timed_mode() {
    assert_eq!(property_names(&params(ToolMode::Legacy)), ["questions"]);
    assert_eq!(property_names(&params(ToolMode::Timed)), ["questions", "timeout"]);
    let t = &tool_definition(ToolMode::Timed, 300)["parameters"]["properties"]["timeout"];
    assert_eq!(t["type"], "integer");
    assert_eq!(t["default"], 300);
    assert_eq!(t["minimum"], -1);
    assert_eq!(t["maximum"], limits::MAX_TIMEOUT_SECS);
    let mut keys = Vec::new();
    keys_recursively(&tool_definition(ToolMode::Legacy, 120), &mut keys);
    assert!(!keys.iter().any(|k| k == "timeout"));
}

#[test]
fn shape_and_bounds_match_the_limits() {
    for mode in [ToolMode::Legacy, ToolMode::Timed] {
        let def = tool_definition(mode, 120);
        assert_eq!(def["name"], TOOL_NAME);
        assert_eq!(def.as_object().unwrap().len(), 3);
        let p = &def["parameters"];
        assert_eq!(p["type"], "object");
        assert_eq!(p["required"], json!(["questions"]));
        assert_eq!(p["additionalProperties"], false);
        let qs = &p["properties"]["questions"];
        assert_eq!(qs["type"], "array");
        assert_eq!(qs["minItems"], limits::MIN_QUESTIONS);
        assert_eq!(qs["maxItems"], limits::MAX_QUESTIONS);
        let item = &qs["items"];
        assert_eq!(property_names(item), ["header", "id", "multi_select", "options", "question"]);
        assert_eq!(item["required"], json!(["id", "question"]));
        assert_eq!(item["additionalProperties"], false);
        assert_eq!(item["properties"]["id"]["maxLength"], limits::MAX_ID_CHARS);
        assert_eq!(item["properties"]["question"]["maxLength"], limits::MAX_QUESTION_CHARS);
        assert_eq!(item["properties"]["header"]["maxLength"], limits::MAX_HEADER_CHARS);
        assert_eq!(item["properties"]["multi_select"]["type"], "boolean");
        let opts = &item["properties"]["options"];
        assert_eq!(opts["maxItems"], limits::MAX_OPTIONS);
        let opt = &opts["items"];
        assert_eq!(property_names(opt), ["description", "label"]);
        assert_eq!(opt["required"], json!(["label"]));
        assert_eq!(opt["additionalProperties"], false);
        assert_eq!(opt["properties"]["label"]["maxLength"], limits::MAX_LABEL_CHARS);
        assert_eq!(opt["properties"]["description"]["maxLength"], limits::MAX_DESCRIPTION_CHARS);
    }
}

#[test]
fn every_schema_property_is_accepted_by_the_parser() {
    // Builds arguments using exactly the property names the schema advertises, so a field added to one
    // side but not the other fails here.
    let item_props = property_names(&params(ToolMode::Timed)["properties"]["questions"]["items"])
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    let mut q = serde_json::Map::new();
    for name in &item_props {
        let v = match name.as_str() {
            "options" => json!([{"label": "a", "description": "d"}, {"label": "b"}]),
            "multi_select" => json!(true),
            _ => json!("text"),
        };
        q.insert(name.clone(), v);
    }
    let args = json!({ "questions": [Value::Object(q)], "timeout": 5 });
    let req = timed(&args).unwrap();
    assert_eq!(req.wait, WaitLimit::Seconds(5));
    assert!(req.questions[0].multi_select);
}

#[test]
fn description_guides_the_model() {
    let legacy_d = tool_definition(ToolMode::Legacy, 120)["description"].as_str().unwrap().to_string();
    let timed_d = tool_definition(ToolMode::Timed, 90)["description"].as_str().unwrap().to_string();
    for d in [&legacy_d, &timed_d] {
        assert!(d.contains("concise"), "{d}");
        assert!(d.contains("prefer options"), "{d}");
        assert!(d.contains("ids echoed"), "{d}");
    }
    assert!(!legacy_d.contains("timeout") && !legacy_d.contains("pending"), "{legacy_d}");
    for phrase in ["\"timeout\"", "default 90", "pending", "answer_to_pending_question", "consent", "skip"] {
        assert!(timed_d.contains(phrase), "{phrase:?} missing from {timed_d}");
    }
}

/// The schema is derived from types now; these files hold what it said when it was written by hand
/// (bar one intended rewording), so a change to a type's docs or attributes that reaches the model
/// shows up here, byte for byte, and has to be made on purpose.
#[test]
fn the_derived_schemas_are_the_recorded_contract_byte_for_byte() {
    for (mode, golden) in
        [(ToolMode::Legacy, include_str!("golden/legacy.json")), (ToolMode::Timed, include_str!("golden/timed.json"))]
    {
        let derived = serde_json::to_string_pretty(&tool_definition(mode, 120)).unwrap() + "\n";
        assert_eq!(derived, golden, "{mode:?} schema changed");
    }
}

#[test]
fn an_outside_agent_with_a_longest_wait_is_told_it_and_minus_one_is_no_promise_of_more() {
    let unlimited = client_tool_definition(ToolMode::Timed, 300, None);
    let text = unlimited["description"].as_str().unwrap();
    assert!(text.contains("-1 waits until answered") && text.contains("get_answers"), "{text}");

    let capped = client_tool_definition(ToolMode::Timed, 300, Some(45));
    let text = capped["description"].as_str().unwrap();
    assert!(text.contains("(default 45), at most 45: -1 and longer timeouts wait 45 seconds"), "{text}");
    assert!(!text.contains("until answered"), "{text}");
    let timeout = &capped["parameters"]["properties"]["timeout"];
    assert_eq!(timeout["default"], 45);
    let said = timeout["description"].as_str().unwrap();
    assert!(said.contains("-1 waits 45 seconds") && !said.contains("until the user answers"), "{said}");
    // A default under the longest wait stays; the blocking tool has no timeout to cap.
    assert_eq!(
        client_tool_definition(ToolMode::Timed, 30, Some(45))["parameters"]["properties"]["timeout"]["default"],
        30
    );
    assert_eq!(
        client_tool_definition(ToolMode::Legacy, 30, Some(45)),
        client_tool_definition(ToolMode::Legacy, 30, None)
    );
}
