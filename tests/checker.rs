//! The arguments' check off the worker's thread (ARCHITECTURE.md, "The
//! arguments' checker"): the core asks for it and reads nothing of the
//! schema, takes a verdict only for the very texts it asked about, and the
//! checker's own check gives what the check in place gives.

mod common;
#[path = "common/harness.rs"]
mod harness;

use harness::{card_id, outcome, Harness, REMOTE};
use serde_json::{json, Value};
use toolgate::decisions::agent::Step;
use toolgate::decisions::answers::{Answer, SiteAnswer};
use toolgate::page::schema::{check, check_texts, CheckAsked, Checked, Plan, Verdict};

const ADD_NOTE_SCHEMA: &str =
    r#"{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}"#;

/// A harness whose chat "c" allowed every tool on the remote Notes site, so
/// that a call that passes its check runs.
fn allowed() -> Harness {
    let mut h = Harness::new();
    let step = h.call("c", 1, "list_notes", json!({}));
    let card = card_id(&step);
    h.answer(card, Answer::Site(SiteAnswer::AllowAll));
    h
}

fn asked(step: &Step) -> CheckAsked {
    match step {
        Step::NeedCheck { check, .. } => check.clone(),
        other => panic!("expected a check to be asked for, got {other:?}"),
    }
}

fn verdict_for(asked: &CheckAsked, verdict: Verdict) -> Checked {
    Checked {
        schema: asked.schema.clone(),
        arguments: asked.arguments.clone(),
        verdict,
    }
}

#[test]
fn a_call_with_a_schema_asks_the_checker_for_exactly_its_texts() {
    let mut h = allowed();
    let args = json!({"title": "a"});
    let check = asked(&h.call_off_thread(10, 1, "add_note", &args, None));
    assert_eq!(
        check,
        CheckAsked {
            schema: ADD_NOTE_SCHEMA.to_owned(),
            arguments: args.to_string(),
            site: REMOTE.to_owned(),
        }
    );
}

#[test]
fn a_call_of_a_tool_without_a_schema_needs_no_check() {
    let mut h = allowed();
    let step = h.call_off_thread(10, 1, "list_notes", &json!({}), None);
    assert_eq!(outcome(&h, &step), "run");
}

#[test]
fn a_verdict_answers_only_for_the_texts_it_names() {
    let mut h = allowed();
    let args = json!({"title": "a"});
    let check = asked(&h.call_off_thread(10, 1, "add_note", &args, None));
    // A verdict on other arguments, or on another schema, is no verdict on these.
    let mut other_arguments = verdict_for(&check, Verdict::Passed);
    other_arguments.arguments = json!({"title": "b"}).to_string();
    let step = h.call_off_thread(10, 1, "add_note", &args, Some(&other_arguments));
    assert_eq!(asked(&step), check);
    let mut other_schema = verdict_for(&check, Verdict::Passed);
    other_schema.schema = "{}".to_owned();
    let step = h.call_off_thread(10, 1, "add_note", &args, Some(&other_schema));
    assert_eq!(asked(&step), check);
}

#[test]
fn each_verdict_decides_the_call_as_the_check_in_place_would() {
    let cases: [(Verdict, &str); 3] = [
        (Verdict::Passed, "run"),
        (
            Verdict::Invalid {
                problems: vec!["arguments.title: expected a string, got an integer".into()],
            },
            "error: invalid arguments for add_note: arguments.title: expected a string, got an integer",
        ),
        (
            Verdict::Unchecked {
                why: "its schema is too costly to check: the check ran past 250 ms".into(),
            },
            "error: cannot check the arguments of add_note: its schema is too costly to check: the check ran past 250 ms",
        ),
    ];
    for (verdict, expected) in cases {
        let mut h = allowed();
        let args = json!({"title": "a"});
        let check = asked(&h.call_off_thread(10, 1, "add_note", &args, None));
        let step = h.call_off_thread(
            10,
            1,
            "add_note",
            &args,
            Some(&verdict_for(&check, verdict)),
        );
        assert_eq!(outcome(&h, &step), expected);
    }
}

/// The checker's own check, from texts, against the check in place.
fn in_place(schema: &str, arguments: &str) -> Verdict {
    let schema: Value = serde_json::from_str(schema).expect("JSON");
    let arguments: Value = serde_json::from_str(arguments).expect("JSON");
    match Plan::read(&schema) {
        Err(why) => Verdict::Unchecked { why },
        Ok(plan) => Verdict::of(check(&schema, &plan, &arguments, &arguments.to_string())),
    }
}

#[test]
fn the_checkers_check_gives_what_the_check_in_place_gives() {
    let many = serde_json::to_string(&vec!["x"; 12_000]).expect("JSON");
    let cases: [(&str, &str); 6] = [
        (ADD_NOTE_SCHEMA, r#"{"title":"a"}"#),
        (ADD_NOTE_SCHEMA, r#"{"title":1}"#),
        (ADD_NOTE_SCHEMA, r#"{}"#),
        (
            r#"{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"}}}"#,
            r#"{"code":"abc"}"#,
        ),
        (
            r#"{"type":"array","items":{"type":"string","minLength":1}}"#,
            &many,
        ),
        (r#"{"properties":{"a":{"pattern":"("}}}"#, r#"{"a":"x"}"#),
    ];
    for (schema, arguments) in cases {
        let expected = in_place(schema, arguments);
        assert_eq!(
            check_texts(schema, arguments),
            expected,
            "{schema} {arguments}"
        );
        // Asked again, from the plan it kept.
        assert_eq!(
            check_texts(schema, arguments),
            expected,
            "{schema} {arguments}, again"
        );
    }
}

#[test]
fn texts_the_checker_cannot_read_are_unchecked() {
    assert_eq!(
        check_texts("{", "{}"),
        Verdict::Unchecked {
            why: "its schema is not JSON".into()
        }
    );
    assert_eq!(
        check_texts("{}", "[1,"),
        Verdict::Unchecked {
            why: "the arguments are not JSON".into()
        }
    );
}

#[test]
fn a_verdict_crosses_to_the_core_as_the_shell_writes_it() {
    let checked: Checked = serde_json::from_value(json!({
        "schema": "{}", "arguments": "{}", "verdict": "invalid", "problems": ["arguments.a: is required"],
    }))
    .expect("reads");
    assert_eq!(
        checked.verdict,
        Verdict::Invalid {
            problems: vec!["arguments.a: is required".into()]
        }
    );
    let written = serde_json::to_value(Verdict::Unchecked { why: "w".into() }).expect("writes");
    assert_eq!(written, json!({"verdict": "unchecked", "why": "w"}));
}

/// An `enum` of one 62 KB value: the validator words each value's problem
/// with the whole value, and an agent was told 1.3 MB of it.
#[test]
fn each_problem_an_agent_is_told_is_cut_to_its_bound() {
    let big = "x".repeat(62 * 1024);
    let schema = json!({"type": "array", "items": {"enum": [big]}}).to_string();
    let Verdict::Invalid { problems } = check_texts(&schema, "[1,2,3]") else {
        panic!("the values break the schema")
    };
    assert_eq!(problems.len(), 3);
    for problem in &problems {
        assert!(
            problem.chars().count() <= toolgate::page::schema::PROBLEM_CHARS + 1,
            "{} characters",
            problem.len()
        );
        // Where, and what it wanted: its start and its end.
        assert!(
            problem.starts_with("arguments[") && problem.contains('…'),
            "{problem}"
        );
    }
}

/// The binding takes an agent's call up again with its verdict from what the
/// core kept of it (`Resume`), not reading its text a second time: what it
/// decides is what reading the request again with the verdict decides.
#[test]
fn a_call_taken_up_again_with_its_verdict_is_decided_as_the_request_read_again() {
    let args = json!({"title": "a"});
    for verdict in [
        Verdict::Passed,
        Verdict::Invalid {
            problems: vec!["arguments.title: expected a string".to_owned()],
        },
    ] {
        let mut h = allowed();
        let step = h.call_off_thread(10, 1, "add_note", &args, None);
        let Step::NeedCheck {
            check,
            resume: Some(resume),
        } = step
        else {
            panic!("expected a check with the call to take up again, got {step:?}");
        };
        assert_eq!(
            (
                &resume.id,
                resume.tab_id,
                resume.name.as_str(),
                &resume.site
            ),
            (&json!(10), 1, "add_note", &None)
        );
        let checked = verdict_for(&check, verdict);
        let resumed = h.resume_off_thread(&resume, &check.arguments, &checked);
        let read = allowed().call_off_thread(10, 1, "add_note", &args, Some(&checked));
        assert_eq!(resumed, read);
    }
}
