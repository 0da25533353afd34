//! Conditions that reach into lists of objects (docs/rules.md, "Conditions
//! on a tool's arguments"): a path with `[]` after a list's name
//! (`recipients[].email`) looks at each item, read the safer way (Allowed
//! needs every item to pass, and at least one; Ask first, any); such paths
//! are checked against the schema through its `items`, offered to the
//! settings page, and decide an agent's calls with words that name them.

use serde_json::{json, Value};
use toolgate::decisions::answers::{Answer, RuleAnswer, SiteAnswer};
use toolgate::decisions::rules::conditions::{properties, validate};
use toolgate::decisions::rules::{Condition, Level, RuleBook, Test};
mod common;
#[path = "common/harness.rs"]
mod harness;
use common::{frame, page};
use harness::*;

fn test(path: &str, op: &str, value: Value) -> Test {
    serde_json::from_value(json!({"path": path, "op": op, "value": value})).expect("a test")
}

/// A mail tool's schema: a list of recipients, each an object.
fn mail_schema() -> Value {
    json!({"type": "object", "properties": {
        "subject": {"type": "string"},
        "recipients": {"type": "array", "items": {"type": "object", "properties": {
            "email": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "cc": {"type": "array", "items": {"type": "object",
                "properties": {"email": {"type": "string"}}}}}}},
        "to": {"type": "array", "items": {"type": "string"}},
        "odd[]": {"type": "string"}}})
}

#[test]
fn a_path_into_a_list_of_objects_is_read_the_safer_way() {
    let t = test("recipients[].email", "ends_with", json!("@team.example"));
    let team = |e: &str| json!({"email": format!("{e}@team.example")});
    // (arguments, holds for Allowed: every item, at least one; for Ask first: any)
    let table = [
        (json!({"recipients": [team("a"), team("b")]}), true, true),
        (
            json!({"recipients": [team("a"), {"email": "b@evil.example"}]}),
            false,
            true,
        ),
        (
            json!({"recipients": [team("a"), {"name": "bo"}]}),
            false,
            true,
        ),
        (
            json!({"recipients": [{"email": "b@evil.example"}]}),
            false,
            false,
        ),
        (json!({"recipients": []}), false, false),
        (json!({"recipients": team("a")}), false, false),
        (
            json!({"recipients": [team("a"), "c@team.example"]}),
            false,
            true,
        ),
        (json!({}), false, false),
    ];
    for (arguments, allowed, ask) in table {
        assert_eq!(t.holds(&arguments, Level::Allowed), allowed, "{arguments}");
        assert_eq!(t.holds(&arguments, Level::AskFirst), ask, "{arguments}");
    }
    // A list at the path's end is read the same way, within each item; and
    // lists in lists, at every level.
    let tags = test("recipients[].tags", "is", json!("ok"));
    let nested = test(
        "recipients[].cc[].email",
        "ends_with",
        json!("@team.example"),
    );
    let table = [
        (
            json!({"recipients": [{"tags": ["ok"]}, {"tags": ["ok", "ok"]}]}),
            &tags,
            true,
            true,
        ),
        (
            json!({"recipients": [{"tags": ["ok"]}, {"tags": []}]}),
            &tags,
            false,
            true,
        ),
        (
            json!({"recipients": [{"cc": [team("a")]}, {"cc": [team("b"), team("c")]}]}),
            &nested,
            true,
            true,
        ),
        (
            json!({"recipients": [{"cc": [team("a")]}, {"cc": []}]}),
            &nested,
            false,
            true,
        ),
        (
            json!({"recipients": [{"cc": [team("a")]}, {"cc": [{"email": "x@evil.example"}]}]}),
            &nested,
            false,
            true,
        ),
    ];
    for (arguments, t, allowed, ask) in table {
        assert_eq!(t.holds(&arguments, Level::Allowed), allowed, "{arguments}");
        assert_eq!(t.holds(&arguments, Level::AskFirst), ask, "{arguments}");
    }
    // Without `[]`, a path goes through objects only, as before.
    let plain = test("recipients.email", "ends_with", json!("@team.example"));
    let arguments = json!({"recipients": [team("a")]});
    assert!(!plain.holds(&arguments, Level::Allowed) && !plain.holds(&arguments, Level::AskFirst));
}

#[test]
fn a_path_into_a_list_is_checked_against_the_lists_items_when_set() {
    let set = |path: &str, op: &str, value: Value| {
        let condition = Condition {
            when: vec![test(path, op, value)],
            level: Level::Allowed,
        };
        validate(&[condition], Some(&mail_schema())).map_err(|e| e.words("send_mail"))
    };
    assert_eq!(set("recipients[].email", "ends_with", json!("@x")), Ok(()));
    assert_eq!(set("recipients[].cc[].email", "is", json!("a@x")), Ok(()));
    assert_eq!(set("recipients[].tags", "is_one_of", json!(["a"])), Ok(()));
    for (path, op, value, words) in [
        ("recipients.email", "is", json!("a"),
            "send_mail has no property \"recipients.email\" in its schema: a condition can only look at a property the schema declares."),
        ("recipients[].emial", "is", json!("a"),
            "send_mail has no property \"recipients[].emial\" in its schema: a condition can only look at a property the schema declares."),
        ("subject[].x", "is", json!("a"),
            "send_mail has no property \"subject[].x\" in its schema: a condition can only look at a property the schema declares."),
        ("odd[]", "is", json!("a"),
            "send_mail has no property \"odd[]\" in its schema: a condition can only look at a property the schema declares."),
        ("recipients[].email", "at_most", json!(5),
            "The test on recipients[].email of send_mail looks for a number, but the schema declares recipients[].email as string."),
    ] {
        assert_eq!(set(path, op, value), Err(words.to_owned()), "{path}");
    }
}

#[test]
fn the_settings_page_is_offered_paths_into_lists_of_objects() {
    let mut offered: Vec<(String, Vec<String>)> = properties(&mail_schema())
        .into_iter()
        .map(|p| (p.path, p.types))
        .collect();
    offered.sort();
    let want: Vec<(&str, Vec<&str>)> = vec![
        ("recipients", vec!["array", "object"]),
        ("recipients[].cc", vec!["array", "object"]),
        ("recipients[].cc[].email", vec!["string"]),
        ("recipients[].email", vec!["string"]),
        ("recipients[].tags", vec!["string", "array"]),
        ("subject", vec!["string"]),
        // A list of text is tested as it is, by its name; and a name
        // ending in `[]` cannot be named.
        ("to", vec!["string", "array"]),
    ];
    assert_eq!(
        offered,
        want.into_iter()
            .map(|(p, t)| (p.to_owned(), t.into_iter().map(str::to_owned).collect()))
            .collect::<Vec<_>>()
    );
}

/// The Notes harness, with `send_mail({subject, recipients})` on the remote tab.
fn with_mail() -> Harness {
    let mut h = Harness::new();
    let ops = json!([{"op": "register", "decl": {"path": "document_object", "name": "send_mail",
        "description": "Send mail", "input_schema": mail_schema().to_string(),
        "annotations": {"consequentialHint": false, "openWorldHint": false}}}]);
    h.registry.apply(page(frame(1, 0, "doc-1", REMOTE), ops));
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h
}

fn mail_rules(h: &Harness, level: &str, conditions: Value) -> RuleBook {
    let definition = h.definition_of(1, "send_mail");
    serde_json::from_value(json!({"sites": {REMOTE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed",
        "tools": {"send_mail": level}, "tool_definitions": {"send_mail": definition},
        "conditions": {"send_mail": conditions}}}}))
    .expect("rules")
}

#[test]
fn a_condition_on_each_recipient_decides_an_agents_call_and_names_the_path() {
    let mut h = with_mail();
    let team = |e: &str| json!({"email": format!("{e}@team.example")});
    // Ask first, but Allowed when every recipient's email is the team's.
    h.session.rules = mail_rules(
        &h,
        "ask_first",
        json!([{"when": [{"path": "recipients[].email", "op": "ends_with", "value": "@team.example"}],
            "level": "allowed"}]),
    );
    let all_team = json!({"subject": "hi", "recipients": [team("a"), team("b")]});
    assert_eq!(h.call_said("c", 1, "send_mail", all_team), "run");
    let one_out =
        json!({"subject": "hi", "recipients": [team("a"), {"email": "eve@evil.example"}]});
    let (step, shown) = h.rule_card("c", 1, "send_mail", one_out);
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: send_mail: recipients[].email does not end with \u{201c}@team.example\u{201d}, by your rule for this tool")
    );
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Rule(RuleAnswer::Refuse)),
        "Nothing ran: you refused this call of send_mail (send_mail: recipients[].email does not end with \u{201c}@team.example\u{201d}, by the rule for the tool send_mail)."
    );
    for arguments in [
        json!({"subject": "hi", "recipients": [team("a"), {"tags": []}]}),
        json!({"subject": "hi", "recipients": []}),
    ] {
        let (_, shown) = h.rule_card("c", 1, "send_mail", arguments);
        assert_eq!(
            shown.rule.as_deref(),
            Some("Ask first: send_mail: has no recipients[].email, by your rule for this tool")
        );
    }
    // Allowed, but Ask first when any recipient is outside the team.
    h.session.rules = mail_rules(
        &h,
        "allowed",
        json!([{"when": [{"path": "recipients[].email", "op": "ends_with", "value": "@evil.example"}],
            "level": "ask_first"}]),
    );
    let one_evil =
        json!({"subject": "hi", "recipients": [team("a"), {"email": "eve@evil.example"}]});
    let (_, shown) = h.rule_card("c", 1, "send_mail", one_evil);
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: send_mail: recipients[].email ends with \u{201c}@evil.example\u{201d}, by your condition for this tool")
    );
    let none_evil = json!({"subject": "hi", "recipients": [team("a")]});
    assert_eq!(h.call_said("c", 1, "send_mail", none_evil), "run");
}
