//! Conditions on a tool's arguments and limits on how often (docs/rules.md,
//! "Conditions on a tool's arguments", "Limits on how often"), table-driven:
//! each operator on each type, missing paths, lists, the schema and the
//! administrator's bounds when set, the settings page's message, and a
//! limit's window on an injected clock. The whole path through the agent
//! entry is in tests/arg_rules_calls.rs.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use toolgate::decisions::rules::conditions::validate;
use toolgate::decisions::rules::{
    CallTimes, Change, Condition, Every, Level, Limit, RuleBook, SeenTool, Target, Test, ToolKind,
};

fn test(path: &str, op: &str, value: Value) -> Test {
    serde_json::from_value(json!({"path": path, "op": op, "value": value})).expect("a test")
}

#[test]
fn each_operator_on_each_type() {
    // (path, op, value, arguments, holds for Allowed, holds for Ask first)
    let table: &[(&str, Value, Value, bool)] = &[
        ("is", json!("ana"), json!({"v": "ana"}), true),
        ("is", json!("ana"), json!({"v": "Ana"}), false),
        ("is", json!(20), json!({"v": 20.0}), true),
        ("is", json!(20), json!({"v": 21}), false),
        ("is", json!(true), json!({"v": true}), true),
        ("is", json!(true), json!({"v": false}), false),
        ("is", json!("20"), json!({"v": 20}), false),
        ("is_one_of", json!(["a", "b"]), json!({"v": "b"}), true),
        ("is_one_of", json!(["a", "b"]), json!({"v": "c"}), false),
        ("is_one_of", json!([1, 2]), json!({"v": 2}), true),
        ("is_one_of", json!([1, 2]), json!({"v": 3}), false),
        ("is_one_of", json!([false]), json!({"v": false}), true),
        ("is_one_of", json!([false]), json!({"v": true}), false),
        ("at_most", json!(20), json!({"v": 20}), true),
        ("at_most", json!(20), json!({"v": 20.5}), false),
        ("at_most", json!(20), json!({"v": -3}), true),
        ("at_most", json!(20), json!({"v": "15"}), false),
        ("at_least", json!(20), json!({"v": 20}), true),
        ("at_least", json!(20), json!({"v": 19.99}), false),
        ("starts_with", json!("+44"), json!({"v": "+44 20"}), true),
        ("starts_with", json!("+44"), json!({"v": "0044"}), false),
        ("starts_with", json!("1"), json!({"v": 12}), false),
        (
            "ends_with",
            json!("@team.example"),
            json!({"v": "bo@team.example"}),
            true,
        ),
        (
            "ends_with",
            json!("@team.example"),
            json!({"v": "bo@team.example.evil"}),
            false,
        ),
        ("matches", json!("^[a-z]+$"), json!({"v": "abc"}), true),
        ("matches", json!("^[a-z]+$"), json!({"v": "ab1"}), false),
        ("matches", json!("b"), json!({"v": "abc"}), true),
        ("matches", json!("^a"), json!({"v": 1}), false),
    ];
    for (op, value, arguments, holds) in table {
        let t = test("v", op, value.clone());
        for level in [Level::Allowed, Level::AskFirst] {
            assert_eq!(
                t.holds(arguments, level),
                *holds,
                "{op} {value} on {arguments} for {level:?}"
            );
        }
    }
}

#[test]
fn a_missing_path_is_false_and_paths_go_through_objects() {
    let t = test("recipient.email", "ends_with", json!("@team.example"));
    for (arguments, holds) in [
        (json!({"recipient": {"email": "a@team.example"}}), true),
        (json!({"recipient": {}}), false),
        (json!({}), false),
        (json!({"recipient": "a@team.example"}), false),
        (json!({"recipient": [{"email": "a@team.example"}]}), false),
        (json!([]), false),
    ] {
        for level in [Level::Allowed, Level::AskFirst] {
            assert_eq!(t.holds(&arguments, level), holds, "{arguments} {level:?}");
        }
    }
}

#[test]
fn a_list_is_read_the_safer_way() {
    let t = test("to", "ends_with", json!("@team.example"));
    // (arguments, for Allowed: every item and at least one; for Ask first: any item)
    for (arguments, allowed, ask) in [
        (
            json!({"to": ["a@team.example", "b@team.example"]}),
            true,
            true,
        ),
        (
            json!({"to": ["a@team.example", "b@evil.example"]}),
            false,
            true,
        ),
        (json!({"to": ["a@evil.example"]}), false, false),
        (json!({"to": []}), false, false),
    ] {
        assert_eq!(t.holds(&arguments, Level::Allowed), allowed, "{arguments}");
        assert_eq!(t.holds(&arguments, Level::AskFirst), ask, "{arguments}");
    }
}

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "to": {"type": "string"}, "amount": {"type": "number"},
        "recipient": {"type": "object", "properties": {"email": {"type": "string"}}}}})
}

fn condition(tests: Vec<Test>, level: Level) -> Condition {
    Condition { when: tests, level }
}

#[test]
fn conditions_are_checked_against_the_schema_when_set() {
    let ok = condition(vec![test("amount", "at_most", json!(20))], Level::Allowed);
    assert_eq!(validate(std::slice::from_ref(&ok), Some(&schema())), Ok(()));
    let nested = condition(
        vec![test("recipient.email", "ends_with", json!("@x"))],
        Level::AskFirst,
    );
    assert_eq!(validate(&[nested], Some(&schema())), Ok(()));
    let refused: Vec<(Vec<Condition>, Option<Value>, &str)> = vec![
        (vec![condition(vec![test("amuont", "at_most", json!(20))], Level::Allowed)], Some(schema()),
            "t has no property \"amuont\" in its schema: a condition can only look at a property the schema declares."),
        (vec![condition(vec![test("to", "at_most", json!(20))], Level::Allowed)], Some(schema()),
            "The test on to of t looks for a number, but the schema declares to as string."),
        (vec![condition(vec![test("amount", "at_most", json!("20"))], Level::Allowed)], Some(schema()),
            "The test on amount of t is at most needs a number."),
        (vec![condition(vec![test("to", "matches", json!("(?=a)b"))], Level::Allowed)], Some(schema()),
            "The test on to of t cannot run: its pattern \"(?=a)b\" uses look-around or back-references, which Toolgate does not run."),
        (vec![condition(vec![], Level::Allowed)], Some(schema()),
            "Condition 1 of t needs 1 to 5 tests; it has 0."),
        (vec![condition(vec![test("to", "is", json!("a"))], Level::Off)], Some(schema()),
            "Condition 1 of t can give Allowed or Ask first, not Off."),
        (vec![ok.clone(); 6], Some(schema()), "t can hold up to 5 conditions; this change gives 6."),
        (vec![ok.clone()], None,
            "t declares no properties Toolgate can read: its conditions can be set once a tab publishes it with an inputSchema."),
    ];
    for (conditions, schema, words) in refused {
        let error = validate(&conditions, schema.as_ref()).expect_err("refused");
        assert_eq!(error.words("t"), words);
    }
}

const SITE: &str = "https://shop.example";

fn seen(name: &str, kind: ToolKind) -> SeenTool {
    SeenTool {
        name: name.into(),
        area: name.into(),
        kind,
        definition: format!("sha256:{name}"),
        registered_by: None,
    }
}

fn conditions_change(name: &str, conditions: Vec<Condition>) -> Change {
    Change {
        conditions: Some(conditions),
        ..Change::level(Target::Tool { name: name.into() }, None)
    }
}

fn schemas() -> BTreeMap<String, Value> {
    ["transfer", "wire"]
        .map(|n| (n.to_owned(), schema()))
        .into()
}

#[test]
fn a_change_sets_conditions_only_on_a_tool_set_apart_and_within_the_administrators_bounds() {
    let tools = [
        seen("transfer", ToolKind::Write),
        seen("wire", ToolKind::Outside),
    ];
    let allow = || condition(vec![test("amount", "at_most", json!(20))], Level::Allowed);
    let mut book = RuleBook::default();
    let apart =
        |name: &str| Change::level(Target::Tool { name: name.into() }, Some(Level::AskFirst));
    // Not set apart: refused.
    let error = book
        .change_with(
            SITE,
            &[conditions_change("transfer", vec![allow()])],
            &tools,
            None,
            &schemas(),
        )
        .expect_err("not set apart");
    assert_eq!(error.to_string(), "transfer can hold conditions once it is set apart with a level of its own. Nothing was saved.");
    // Set apart in the same change: saved, for the definition seen.
    book.change_with(
        SITE,
        &[
            apart("transfer"),
            conditions_change("transfer", vec![allow()]),
        ],
        &tools,
        None,
        &schemas(),
    )
    .expect("saved");
    let rules = &book.sites[SITE];
    assert_eq!(rules.conditions["transfer"], vec![allow()]);
    assert_eq!(rules.tool_definitions["transfer"], "sha256:transfer");
    // Under an administrator: no Allowed condition on an Outside tool...
    let admin: RuleBook = serde_json::from_value(json!({"sites": {SITE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "ask_first",
        "tools": {"transfer": "ask_first"}}}}))
    .expect("admin");
    let error = book
        .change_with(
            SITE,
            &[apart("wire"), conditions_change("wire", vec![allow()])],
            &tools,
            Some(&admin),
            &schemas(),
        )
        .expect_err("owners only");
    assert!(
        error.to_string().starts_with(
            "The condition “amount is at most 20” cannot give Allowed: Letting agents delete"
        ),
        "{error}"
    );
    // ... nor wider than the administrator's level for the tool; Ask first is fine.
    let error = book
        .change_with(
            SITE,
            &[conditions_change("transfer", vec![allow()])],
            &tools,
            Some(&admin),
            &schemas(),
        )
        .expect_err("wider than admin");
    assert!(error.to_string().ends_with("Your administrator set this to Ask first; you can choose less, never more. Nothing was saved."), "{error}");
    let ask = condition(
        vec![test("amount", "at_least", json!(100))],
        Level::AskFirst,
    );
    book.change_with(
        SITE,
        &[conditions_change("transfer", vec![ask])],
        &tools,
        Some(&admin),
        &schemas(),
    )
    .expect("narrower is fine");
    // Where the administrator's level for the tool is Allowed, an Allowed
    // condition is not wider than theirs (docs/rules.md, the policy's table).
    let allows: RuleBook = serde_json::from_value(json!({"sites": {SITE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "ask_first",
        "tools": {"transfer": "allowed"}}}}))
    .expect("admin");
    book.clone()
        .change_with(
            SITE,
            &[conditions_change("transfer", vec![allow()])],
            &tools,
            Some(&allows),
            &schemas(),
        )
        .expect("as wide as theirs");
    // Putting the tool back removes its conditions.
    book.change_with(
        SITE,
        &[Change::level(
            Target::Tool {
                name: "transfer".into(),
            },
            None,
        )],
        &tools,
        None,
        &schemas(),
    )
    .expect("put back");
    assert!(book.sites[SITE].conditions.is_empty());
}

/// A limit on the tool `transfer`: at most `calls` in `minutes`.
fn transfer_limit(calls: u32, minutes: u32) -> Limit {
    Limit {
        target: Target::Tool {
            name: "transfer".into(),
        },
        every: Every { calls, minutes },
        admin: false,
    }
}

/// docs/rules.md, "Limits on how often": past the whole bound of call times
/// kept (TIMES_IN_ALL), a call under a limit is asked about, as if past it,
/// with a wait until the oldest time kept is forgotten; within it, not.
#[test]
fn past_the_whole_bound_of_times_kept_a_call_under_a_limit_is_past_it() {
    use toolgate::decisions::rules::limits::{TIMES_IN_ALL, TIMES_PER_KEY};
    let limit = transfer_limit(1000, 60);
    let mut times = CallTimes::default();
    let t0 = 5_000_000;
    let chats = TIMES_IN_ALL / TIMES_PER_KEY;
    for chat in 0..chats {
        for i in 0..TIMES_PER_KEY as u64 {
            times.record(&format!("c{chat}"), SITE, &[&limit], t0 + i);
        }
    }
    let passed = times
        .passed("new", SITE, &[&limit], t0 + 5_000)
        .expect("no room left to count it");
    assert_eq!(passed.limit, limit);
    assert_eq!(passed.wait_ms, 3_600_000 - 5_000);
    // Past the longest window every time is forgotten: room again.
    let later = t0 + TIMES_PER_KEY as u64 + 3_600_000;
    times.forget(later);
    assert!(times.is_empty());
    times.record("c0", SITE, &[&limit], later);
    assert_eq!(times.passed("new", SITE, &[&limit], later + 1), None);
}

#[test]
fn a_limits_window_on_an_injected_clock() {
    let limit = transfer_limit(3, 1);
    let mut times = CallTimes::default();
    let t0 = 5_000_000;
    for at in [t0, t0 + 10, t0 + 20] {
        assert_eq!(times.passed("c", SITE, &[&limit], at), None);
        times.record("c", SITE, &[&limit], at);
    }
    // The fourth within the minute is past it, until the first call leaves the window.
    let passed = times
        .passed("c", SITE, &[&limit], t0 + 30)
        .expect("past the limit");
    assert_eq!(passed.wait_ms, 60_000 - 30);
    assert!(times.passed("c", SITE, &[&limit], t0 + 59_999).is_some());
    assert_eq!(times.passed("c", SITE, &[&limit], t0 + 60_000), None);
    // Per chat, and per site.
    assert_eq!(times.passed("other", SITE, &[&limit], t0 + 30), None);
    assert_eq!(
        times.passed("c", "https://else.example", &[&limit], t0 + 30),
        None
    );
    // Bounds of a limit.
    for (calls, minutes, ok) in [
        (1, 1, true),
        (1000, 60, true),
        (0, 1, false),
        (1001, 1, false),
        (3, 5, false),
    ] {
        assert_eq!(
            Every { calls, minutes }.refused().is_none(),
            ok,
            "{calls} in {minutes}"
        );
    }
    // Forgotten past the longest window.
    times.forget(t0 + 20 + 3_600_000);
    assert!(times.is_empty());
}

#[test]
fn the_settings_pages_message_sets_conditions_and_limits_as_docs_rules_md_writes_it() {
    use toolgate::messages::FromUi;
    let message = json!({"type": "change_rules", "site": SITE, "changes": [
        {"target": "tool", "name": "transfer", "level": "ask_first"},
        {"target": "tool", "name": "transfer", "conditions": [
            {"when": [{"path": "amount", "op": "at_most", "value": 20}], "level": "allowed"}]},
        {"target": "kind", "kind": "write", "limit": {"calls": 10, "minutes": 1}},
        {"target": "tool", "name": "transfer", "limit": null},
    ]});
    let FromUi::ChangeRules { changes, .. } =
        serde_json::from_value(message).expect("a change from the settings page")
    else {
        panic!("a change of the rules")
    };
    assert_eq!(
        changes[0],
        Change::level(
            Target::Tool {
                name: "transfer".into()
            },
            Some(Level::AskFirst)
        )
    );
    assert_eq!(changes[1].conditions.as_ref().map(Vec::len), Some(1));
    assert_eq!((changes[1].level, changes[1].limit), (None, None));
    assert_eq!(
        changes[2].limit,
        Some(Some(Every {
            calls: 10,
            minutes: 1
        }))
    );
    assert_eq!(changes[3].limit, Some(None), "null removes the limit");
    // A test with a key of its own is refused, not ignored.
    let odd = json!({"path": "amount", "op": "at_most", "value": 20, "also": 1});
    assert!(serde_json::from_value::<Test>(odd).is_err());
    // Applied: the standing names the conditions and limits.
    let tools = [seen("transfer", ToolKind::Write)];
    let mut book = RuleBook::default();
    book.change_with(SITE, &changes, &tools, None, &schemas())
        .expect("saved");
    assert_eq!(
        book.sites[SITE].limits.len(),
        1,
        "the tool's limit removed, the kind's kept"
    );
    let standing = &book.standings(SITE, &tools)[0];
    assert_eq!(
        standing.says,
        "Ask first, set apart; Allowed when amount is at most 20; at most 10 calls in 1 minute, by the limit for Write tools"
    );
    // A change that sets a level and a limit at once is refused.
    let both = Change {
        limit: Some(Some(Every {
            calls: 1,
            minutes: 1,
        })),
        ..Change::level(
            Target::Kind {
                kind: ToolKind::Write,
            },
            Some(Level::Off),
        )
    };
    let error = book
        .change_with(SITE, &[both], &tools, None, &schemas())
        .expect_err("one thing at a time");
    assert_eq!(error.to_string(), "A change sets a level, or conditions, or a limit: one of them at a time. Nothing was saved.");
    // The operators' words, for the settings page.
    let words = serde_json::to_value(toolgate::views::rule_words::rule_words()).expect("words");
    let labels: Vec<&str> = words["operators"]
        .as_array()
        .expect("operators")
        .iter()
        .map(|o| o["label"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        labels,
        [
            "is",
            "is one of",
            "is at most",
            "is at least",
            "starts with",
            "ends with",
            "matches"
        ]
    );
}

#[test]
fn the_person_may_give_allowed_where_an_administrators_condition_does() {
    let tools = [seen("transfer", ToolKind::Write)];
    let admin: RuleBook = serde_json::from_value(json!({"sites": {SITE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "ask_first",
        "tools": {"transfer": "ask_first"},
        "conditions": {"transfer": [{"when": [{"path": "amount", "op": "at_most", "value": 50}], "level": "allowed"}]}}}}))
    .expect("admin");
    let apart = Change::level(
        Target::Tool {
            name: "transfer".into(),
        },
        Some(Level::AskFirst),
    );
    let allow = condition(vec![test("amount", "at_most", json!(20))], Level::Allowed);
    let mut book = RuleBook::default();
    book.change_with(
        SITE,
        &[apart, conditions_change("transfer", vec![allow])],
        &tools,
        Some(&admin),
        &schemas(),
    )
    .expect("the administrator's condition gives Allowed too");
    // Bounded, a call gets the narrower of the two: 30 asks (the person's
    // condition does not hold), 10 is Allowed by both.
    let bounded = book.bounded_by(&admin);
    let rules = &bounded.sites[SITE];
    let facts = toolgate::decisions::rules::RuleFacts {
        name: "transfer",
        area: "transfer",
        kind: ToolKind::Write,
        definition: "sha256:transfer",
    };
    assert_eq!(
        rules.level_of_call(facts, Some(&json!({"amount": 10}))).0,
        Level::Allowed
    );
    assert_eq!(
        rules.level_of_call(facts, Some(&json!({"amount": 30}))).0,
        Level::AskFirst
    );
    assert_eq!(
        rules.level_of_call(facts, Some(&json!({"amount": 60}))).0,
        Level::AskFirst
    );
}

#[test]
fn an_administrators_limit_counts_once_whether_or_not_the_person_has_rules() {
    let admin: RuleBook = serde_json::from_value(json!({"sites": {SITE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed",
        "limits": [{"target": "tool", "name": "transfer", "calls": 3, "minutes": 1}]}}}))
    .expect("admin");
    let own: RuleBook = serde_json::from_value(json!({"sites": {SITE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed"}}}))
    .expect("own");
    // Kept as the administrator's, so that a card names it as theirs.
    let theirs: Vec<Limit> = admin.sites[SITE]
        .limits
        .iter()
        .map(|limit| Limit {
            admin: true,
            ..limit.clone()
        })
        .collect();
    for person in [RuleBook::default(), own] {
        let bounded = person.bounded_by(&admin);
        assert_eq!(bounded.sites[SITE].limits, theirs);
    }
}
