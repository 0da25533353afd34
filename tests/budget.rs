//! What checking a page's schema may cost (docs/agents.md, "Arguments and
//! limits"; ARCHITECTURE.md, "Budgets"): every check is counted before it
//! runs, one past the budget is refused as too costly, and any failure of the
//! validator refuses the call. Honest schemas with ordinary arguments stay
//! far below the budget.

use serde_json::{json, Value};
use toolgate::page::schema::{cached, check, work, Plan, Refusal, PATTERNS, STEPS, WORK_PER_STEP};

/// How a check of `arguments` against `schema` ends: `Ok` with the steps it
/// was counted at, or the refusal.
fn checked(schema: &Value, arguments: &Value) -> Result<u64, Refusal> {
    let plan = Plan::read(schema).map_err(Refusal::Unchecked)?;
    check(schema, &plan, arguments, &arguments.to_string())?;
    Ok(plan
        .steps(schema, arguments)
        .expect("counted once, counted again"))
}

fn too_costly(refusal: Result<u64, Refusal>) -> String {
    match refusal {
        Err(Refusal::Unchecked(why)) if why.starts_with("its schema is too costly to check") => why,
        other => panic!("expected a refusal as too costly, got {other:?}"),
    }
}

/// `depth` `$defs`, each an `allOf` of two `$ref`s to the next: checking
/// anything visits 2^depth subschemas.
fn doubling(depth: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..depth {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(format!("d{depth}"), json!({"type": "object"}));
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

#[test]
fn a_schema_whose_refs_double_at_each_level_is_refused_before_the_validator_runs() {
    let why = too_costly(checked(&doubling(22), &json!({})));
    assert_eq!(
        why,
        "its schema is too costly to check (more than 10,000 steps for these arguments)"
    );
    // The same shape a few levels deep is an ordinary schema: checked.
    let steps = checked(&doubling(6), &json!({})).unwrap();
    assert!(steps < 1_000, "{steps}");
}

#[test]
fn a_ref_to_itself_is_too_costly_not_a_stack_overflow() {
    too_costly(checked(&json!({"$ref": "#"}), &json!({})));
    too_costly(checked(
        &json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}),
        &json!({}),
    ));
}

#[test]
fn a_recursive_schema_costs_what_its_arguments_hold() {
    let tree = json!({"$defs": {"node": {"type": "object", "properties": {
        "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"});
    let leaf = json!({"name": "leaf", "children": []});
    let small =
        json!({"name": "root", "children": [leaf, leaf, {"name": "mid", "children": [leaf]}]});
    let steps = checked(&tree, &small).unwrap();
    assert!(steps < 100, "{steps}");
    let wrong = json!({"name": "root", "children": [{"name": 5}]});
    assert_eq!(
        checked(&tree, &wrong),
        Err(Refusal::Invalid(vec![
            "arguments.children[0].name: expected a string, got an integer".to_owned()
        ]))
    );
}

#[test]
fn refs_by_anchor_and_id_are_followed_and_a_ref_to_nothing_refuses() {
    let by_anchor = json!({"$defs": {"n": {"$anchor": "num", "type": "number"}},
        "properties": {"a": {"$ref": "#num"}, "b": {"$ref": "https://x.test/s#/$defs/s"}},
        "$id": "https://x.test/s", "additionalProperties": false});
    let by_anchor = {
        let mut schema = by_anchor;
        schema["$defs"]["s"] = json!({"type": "string"});
        schema
    };
    assert!(checked(&by_anchor, &json!({"a": 1, "b": "x"})).is_ok());
    assert!(matches!(
        checked(&by_anchor, &json!({"a": "x"})),
        Err(Refusal::Invalid(_))
    ));
    let nowhere = json!({"properties": {"a": {"$ref": "#/$defs/missing"}}});
    assert_eq!(
        checked(&nowhere, &json!({"a": 1})),
        Err(Refusal::Unchecked(
            "its $ref \"#/$defs/missing\" names nothing Toolgate can find".to_owned()
        ))
    );
    // Not reached by these arguments: the count follows nothing, and the
    // worker's validator passes them; the native one cannot build such a
    // schema, and a schema the validator cannot build refuses the call.
    assert!(matches!(
        checked(&nowhere, &json!({})),
        Err(Refusal::Unchecked(why)) if why.starts_with("the validator failed (its schema cannot be read")
    ));
}

#[test]
fn a_pattern_is_compiled_once_per_schema_however_many_values_it_is_tested_on() {
    let source = "^[a-zà-ÿ]{1,24}$";
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array",
        "items": {"type": "string", "pattern": source}}}});
    let tags: Vec<Value> = (0..300)
        .map(|i| json!(format!("tag{}", "x".repeat(i % 9))))
        .collect();
    let steps = checked(&schema, &json!({ "tags": tags })).unwrap();
    // Each tag is a visit and a match, no compile.
    assert!(steps < 1_000, "{steps}");
    assert!(
        cached(source).is_some(),
        "the plan leaves its pattern compiled for the validator"
    );
    let mut wrong = tags.clone();
    wrong.push(json!("Not-a-tag!"));
    let Err(Refusal::Invalid(problems)) = checked(&schema, &json!({ "tags": wrong })) else {
        panic!("a tag that does not match is a problem");
    };
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("arguments.tags[300]:"),
        "{problems:?}"
    );
}

#[test]
fn a_schema_whose_patterns_take_too_much_compiling_is_refused_when_first_read() {
    // Each a different pattern of a few KB compiled: a 64 KB schema holds
    // hundreds of them.
    let many: serde_json::Map<String, Value> = (0..400)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!("^[a-z]{{1,{}}}x{i}$", 20 + i % 40)}),
            )
        })
        .collect();
    let schema = json!({"type": "object", "properties": many});
    assert!(schema.to_string().len() < 64 << 10);
    let why = too_costly(checked(&schema, &json!({})));
    assert!(
        why.contains(&format!("more than {PATTERNS} patterns")) || why.contains("KB compiled"),
        "{why}"
    );
    // Patterns whose compiled size passes the schema's budget together.
    let wide: serde_json::Map<String, Value> = (0..8)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!("^.{{0,{}}}y{i}$", 400 + i)}),
            )
        })
        .collect();
    let why = too_costly(checked(&json!({"properties": wide}), &json!({})));
    assert!(why.contains("KB compiled"), "{why}");
}

#[test]
fn a_schema_whose_patterns_the_cache_let_go_is_still_checked() {
    // At the schema's bounds: 100 patterns, one of them about 300 KB compiled.
    let mut patterns: serde_json::Map<String, Value> = (1..PATTERNS)
        .map(|i| {
            (
                format!("p{i}"),
                json!({"type": "string", "pattern": format!("^[a-z]{{1,3}}-{i}$")}),
            )
        })
        .collect();
    patterns.insert(
        "p0".to_owned(),
        json!({"type": "string", "pattern": "^\\p{L}{1,20}-0$"}),
    );
    let schema = json!({"type": "object", "properties": patterns});
    let plan = Plan::read(&schema).unwrap();
    let arguments = json!({"p0": "été-0", "p1": "ab-1"});
    assert!(check(&schema, &plan, &arguments, &arguments.to_string()).is_ok());
    // Other schemas' patterns, more than the cache holds, push these out.
    for i in 0..16 {
        let other = json!({"type": "string", "pattern": format!("^\\p{{L}}{{1,20}}-other{i}$")});
        Plan::read(&other).unwrap();
    }
    assert!(cached("^\\p{L}{1,20}-0$").is_none(), "the cache let it go");
    // Compiled again within the schema's bound, not refused as too costly.
    assert!(check(&schema, &plan, &arguments, &arguments.to_string()).is_ok());
    let steps = plan.steps(&schema, &arguments).unwrap();
    assert!(steps < 1_000, "{steps}");
}

#[test]
fn an_error_flood_is_refused_as_too_costly_not_run_unchecked() {
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
        "additionalProperties": false});
    let numbers: Vec<Value> = (0..250_000).map(|i| json!(i)).collect();
    let why = too_costly(checked(&schema, &json!({"tags": numbers, "extra": 1})));
    assert!(why.contains("10,000 steps"), "{why}");
    // An honest call of the same tool: a few tags.
    assert!(checked(&schema, &json!({"tags": ["a", "b"]})).is_ok());
    // A few wrong values are problems, each named.
    let Err(Refusal::Invalid(problems)) = checked(&schema, &json!({"tags": [1, 2], "extra": 1}))
    else {
        panic!("wrong values are problems");
    };
    assert_eq!(problems.len(), 3, "{problems:?}");
    // Many, within the budget: the first 20 listed, and that there are more.
    let many: Vec<Value> = (0..1_000).map(|i| json!(i)).collect();
    let Err(Refusal::Invalid(problems)) = checked(&schema, &json!({ "tags": many })) else {
        panic!("wrong values are problems");
    };
    assert_eq!(problems.len(), 21, "{problems:?}");
    assert_eq!(
        problems[19],
        "arguments.tags[19]: expected a string, got an integer"
    );
    assert_eq!(
        problems[20],
        "and more: only the first 20 problems are listed"
    );
}

#[test]
fn unique_items_and_enums_are_charged_for_every_comparison() {
    let unique = json!({"type": "array", "uniqueItems": true});
    let many: Vec<Value> = (0..5_000).map(|i| json!(i)).collect();
    too_costly(checked(&unique, &Value::Array(many)));
    let few: Vec<Value> = (0..50).map(|i| json!(i)).collect();
    assert!(checked(&unique, &Value::Array(few)).is_ok());
    let choices: Vec<Value> = (0..10_000).map(|i| json!(format!("c{i}"))).collect();
    let enumerated = json!({"type": "array", "items": {"enum": choices}});
    let picks: Vec<Value> = (0..10).map(|_| json!("c1")).collect();
    too_costly(checked(&enumerated, &Value::Array(picks)));
}

#[test]
fn the_count_ends_at_the_budget_whatever_the_schema() {
    // The counting itself stops at the budget: a schema of 2^40 visits is
    // refused after about STEPS of them.
    let plan = Plan::read(&doubling(40)).unwrap();
    let why = plan.steps(&doubling(40), &json!({})).unwrap_err();
    assert!(why.contains(&format!("{}", STEPS / 1000)), "{why}");
}

/// How `text` against `pattern` ends, and the matching work it took
/// (`work`: every byte a lazy DFA read, every state it built, the most a Pike
/// VM run could cost), counted, not timed.
fn matched(pattern: &str, text: &str) -> (Result<u64, Refusal>, u64) {
    let schema = json!({"type": "string", "pattern": pattern});
    let before = work();
    let answer = checked(&schema, &json!(text));
    (answer, work() - before)
}

/// A check's matching does at most its budget of work, twice (the count and
/// the validator, which finds the count's states built), and reads its text
/// at most four times (the count's match and the validator's, and
/// `checked` counts once more).
fn most_work(text: &str) -> u64 {
    2 * 2 * STEPS * WORK_PER_STEP + 4 * text.len() as u64
}

#[test]
fn a_wide_repetition_on_a_long_text_is_refused_as_too_costly_within_the_budget() {
    // Each 16,000 bytes: a Pike VM keeps up to the repetition's width of
    // threads alive at each byte (`a{0,2000}b` took 1.0-2.6 s in the worker,
    // counted 1,000 steps); a lazy DFA builds a state of that width for each
    // byte until the repetition is full.
    let shapes = [
        ("a{0,2000}b", "a".repeat(16_000), "16,000"),
        ("a{0,2000}b", "a".repeat(1_000), "1,000"),
        ("a{0,500}b", "a".repeat(16_000), "16,000"),
        ("(?:a|b){0,1000}c", "ab".repeat(8_000), "16,000"),
        ("[a-z]{0,1000}1", "x".repeat(16_000), "16,000"),
        ("(?:ab){0,1000}c", "ab".repeat(8_000), "16,000"),
    ];
    for (pattern, text, bytes) in shapes {
        let (answer, work) = matched(pattern, &text);
        let why = match answer {
            Err(Refusal::Unchecked(why)) => why,
            other => panic!("{pattern}: expected a refusal as too costly, got {other:?}"),
        };
        assert_eq!(
            why,
            format!(
                "its pattern {} is too costly to check on this text ({bytes} bytes)",
                json!(pattern),
            )
        );
        assert!(
            work <= most_work(&text),
            "{pattern}: {work} units of work, more than {}",
            most_work(&text)
        );
    }
    // A short text of the same shape is cheap enough, and its true answer given.
    let (answer, work) = matched("a{0,2000}b", &format!("{}b", "a".repeat(40)));
    assert!(answer.is_ok(), "{answer:?}");
    assert!(work <= most_work("a"), "{work}");
    let (answer, _) = matched("a{0,2000}b", &"a".repeat(40));
    assert!(matches!(answer, Err(Refusal::Invalid(_))), "{answer:?}");
}

#[test]
fn honest_patterns_still_pass_and_fail_as_they_should_far_below_the_budget() {
    let email = "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$";
    let date = "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$";
    let letters = "^\\p{L}{1,20}$";
    let short = "^.{0,500}$";
    let cases = [
        (email, "someone.else@example.co.uk".to_owned(), true),
        (email, "someone@localhost".to_owned(), false),
        (date, "2026-12-04".to_owned(), true),
        (date, "2026-13-04".to_owned(), false),
        (letters, "Äpfelbäume".to_owned(), true),
        (letters, "日本語".to_owned(), true),
        (letters, "two words".to_owned(), false),
        (short, "é".repeat(500), true),
        (short, "x".repeat(501), false),
        (short, "€".repeat(499), true),
        ("\\p{L}+", "é".repeat(8_000), true),
        ("\\bfoo\\b", "ééé foo ".repeat(200), true),
        ("[0-9]{8}", "1234567 ".repeat(2_000), false),
    ];
    for (pattern, text, passes) in cases {
        let (answer, work) = matched(pattern, &text);
        match answer {
            Ok(steps) => {
                assert!(passes, "{pattern} passed {text:?}");
                assert!(steps < STEPS / 2, "{pattern}: {steps} steps");
            }
            Err(Refusal::Invalid(problems)) => {
                assert!(!passes, "{pattern} refused {text:?}: {problems:?}");
                assert!(problems[0].contains("does not match"), "{problems:?}");
            }
            Err(other) => panic!("{pattern}: {other:?}"),
        }
        assert!(work <= most_work(&text), "{pattern}: {work}");
    }
    // Patterns past the compiled budget are refused when the schema is read,
    // as they were: `\p{L}{1,60}` and `.{0,5000}` compile to over 512 KB.
    for pattern in ["^\\p{L}{1,60}$", "^.{0,5000}$"] {
        let why = Plan::read(&json!({ "pattern": pattern })).unwrap_err();
        assert!(why.ends_with("is too large to check"), "{why}");
    }
}
