//! Conditions and limits through the whole path of an agent's call (docs/rules.md,
//! "Conditions on a tool's arguments", "Limits on how often"): decided on the
//! arguments after the schema, dropped with a changed definition, past a limit
//! asked (refused unattended, with the wait), the administrator's bounds, the
//! settings page's message, the palette's words, and cards that outlive the worker.
//! The tables of each operator, and setting them, are in tests/arg_rules.rs.

use serde_json::{json, Value};
use toolgate::decisions::answers::{Answer, RuleAnswer, SiteAnswer};
use toolgate::decisions::rules::{Level, RuleBook};
mod common;
#[path = "common/harness.rs"]
mod harness;
use common::{frame, page};
use harness::*;

/// The Notes harness, with a `transfer({to, amount})` Write tool on the remote tab.
fn with_transfer() -> Harness {
    let mut h = Harness::new();
    let ops = json!([{"op": "register", "decl": {"path": "document_object", "name": "transfer",
        "description": "Move money", "input_schema": json!({"type": "object",
            "properties": {"to": {"type": "string"}, "amount": {"type": "number"}},
            "required": ["to", "amount"]}).to_string(),
        "annotations": {"consequentialHint": false, "openWorldHint": false}}}]);
    h.registry.apply(page(frame(1, 0, "doc-1", REMOTE), ops));
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h
}

/// A rule book for the remote site: Read, Write and Outside the site
/// Allowed, Delete Off, and what `more` sets besides.
fn remote_book(more: Value) -> RuleBook {
    let mut site =
        json!({"read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed"});
    for (key, value) in more.as_object().expect("an object") {
        site[key] = value.clone();
    }
    serde_json::from_value(json!({"sites": {REMOTE: site}})).expect("rules")
}

fn transfer_rules(h: &Harness, extra: Value) -> RuleBook {
    let definition = h.definition_of(1, "transfer");
    let mut more = json!({"tools": {"transfer": "ask_first"}, "tool_definitions": {"transfer": definition},
        "conditions": {"transfer": [{"when": [{"path": "amount", "op": "at_most", "value": 20}], "level": "allowed"}]}});
    for (key, value) in extra.as_object().expect("an object") {
        more[key] = value.clone();
    }
    remote_book(more)
}

/// Ends `step`'s call, if it ran, as a tool that answered "ok"; the reply.
fn finish(h: &mut Harness, step: &toolgate::decisions::agent::Step) -> Option<Value> {
    let toolgate::decisions::agent::Step::Run { run } = step else {
        return None;
    };
    h.session
        .finish(
            run.call_id,
            Ok(&raw(&json!("ok"))),
            1024,
            false,
            None,
            h.now_ms,
        )
        .map(|(_, _, reply)| reply.value().clone())
}

/// `count` calls of transfer with a small amount, a second apart, each of
/// which must run (and is finished).
fn run_small_transfers(h: &mut Harness, count: usize) {
    for _ in 0..count {
        let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
        assert_eq!(outcome(h, &step), "run");
        finish(h, &step);
        h.now_ms += 1000;
    }
}

#[test]
fn a_call_is_decided_on_its_arguments_after_the_schema() {
    let mut h = with_transfer();
    h.session.rules = transfer_rules(&h, json!({}));
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 15}));
    assert_eq!(outcome(&h, &step), "run");
    finish(&mut h, &step);
    // Over 20: the rule's card, naming the condition that was not met.
    let (step, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 25}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: transfer: amount is more than 20, by your rule for this tool")
    );
    assert!(
        shown
            .arguments
            .iter()
            .any(|(name, value)| name == "amount" && value == "25"),
        "{:?}",
        shown.arguments
    );
    let ran = h.answer(card_id(&step), Answer::Rule(RuleAnswer::AllowOnce));
    assert_eq!(outcome(&h, &ran), "run");
    // Text where the schema says a number never reaches a condition.
    let said = h.call_said("c", 1, "transfer", json!({"to": "ana", "amount": "15"}));
    assert!(
        said.starts_with("error: invalid arguments for transfer"),
        "{said}"
    );
    // Unattended: the same call is refused, naming the condition.
    h.session.rules.unattended = true;
    assert_eq!(
        h.call_said("c", 1, "transfer", json!({"to": "ana", "amount": 25})),
        "Nothing ran: transfer asks first (transfer: amount is more than 20, by the rule for the tool transfer), and no one was there to ask (Toolgate runs unattended)."
    );
}

#[test]
fn a_changed_definition_drops_the_conditions_with_the_level() {
    let mut h = with_transfer();
    let mut rules = transfer_rules(&h, json!({}));
    rules
        .sites
        .get_mut(REMOTE)
        .expect("site")
        .tool_definitions
        .insert("transfer".into(), "sha256:another".into());
    // The kind's level holds (Write: Ask first here), whatever the amount.
    rules.sites.get_mut(REMOTE).expect("site").write = Level::AskFirst;
    h.session.rules = rules;
    let (_, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 15}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: the rule for tools that change things on the site")
    );
}

#[test]
fn past_a_limit_a_call_asks_and_unattended_it_is_refused_with_the_wait() {
    let mut h = with_transfer();
    h.session.rules = transfer_rules(
        &h,
        json!({"limits": [{"target": "tool", "name": "transfer", "calls": 3, "minutes": 1}]}),
    );
    run_small_transfers(&mut h, 3);
    let (step, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer")
    );
    h.answer(card_id(&step), Answer::Rule(RuleAnswer::Refuse));
    h.session.rules.unattended = true;
    assert_eq!(
        h.call_said("c", 1, "transfer", json!({"to": "ana", "amount": 5})),
        "Nothing ran: transfer asks first (transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer), and no one was there to ask (Toolgate runs unattended); the next call may run in 57 seconds."
    );
    // A minute after the first call, the next runs.
    h.now_ms += 57_000;
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(outcome(&h, &step), "run");
}

/// docs/agents.md, "What an agent is told": a no on a rule's card that a
/// condition or a limit asked for names it, as a yes does, and the card
/// says it for the audit in the same words; a rule's card asked by a level
/// names nothing more.
#[test]
fn a_refusal_on_a_rule_card_names_the_condition_or_limit_that_asked() {
    let mut h = with_transfer();
    h.session.rules = transfer_rules(
        &h,
        json!({"limits": [{"target": "tool", "name": "transfer", "calls": 1, "minutes": 10}]}),
    );
    let (step, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 25}));
    assert_eq!(
        shown.asked_because.as_deref(),
        Some("transfer: amount is more than 20, by the rule for the tool transfer")
    );
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Rule(RuleAnswer::Refuse)),
        "Nothing ran: you refused this call of transfer (transfer: amount is more than 20, by the rule for the tool transfer)."
    );
    run_small_transfers(&mut h, 1);
    let (step, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(
        shown.asked_because.as_deref(),
        Some("transfer: more than 1 call in 10 minutes in this chat, by the limit for the tool transfer")
    );
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Rule(RuleAnswer::Refuse)),
        "Nothing ran: you refused this call of transfer (transfer: more than 1 call in 10 minutes in this chat, by the limit for the tool transfer)."
    );
    // A condition that asks first, held: named as the condition.
    h.session.rules = transfer_rules(
        &h,
        json!({"conditions": {"transfer": [{"when": [{"path": "to", "op": "is", "value": "eve"}], "level": "ask_first"}]},
            "tools": {"transfer": "allowed"}}),
    );
    let (step, _) = h.rule_card("c", 1, "transfer", json!({"to": "eve", "amount": 5}));
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Rule(RuleAnswer::Refuse)),
        "Nothing ran: you refused this call of transfer (transfer: to is \u{201c}eve\u{201d}, by the condition of the tool transfer)."
    );
    // The tool's own level asks, with no condition: the card names no more.
    h.session.rules = transfer_rules(&h, json!({"conditions": {}}));
    let (step, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(shown.asked_because, None);
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Rule(RuleAnswer::Refuse)),
        "Nothing ran: you refused this call of transfer."
    );
}

/// docs/rules.md, "Limits on how often": calls are counted while a limit
/// holds. Calls made before it was set do not count; a limit changed to
/// other numbers keeps counting what it counted.
#[test]
fn a_limit_counts_the_calls_made_while_it_holds() {
    let mut h = with_transfer();
    let limited = |h: &Harness, calls: u32| {
        transfer_rules(
            h,
            json!({"limits": [{"target": "tool", "name": "transfer", "calls": calls, "minutes": 1}]}),
        )
    };
    // A call a second after the last: what it met; a rule card is refused.
    let call = |h: &mut Harness| {
        h.now_ms += 1000;
        let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
        let said = outcome(h, &step);
        if said == "rule card" {
            h.answer(card_id(&step), Answer::Rule(RuleAnswer::Refuse));
        }
        finish(h, &step);
        said
    };
    h.session.rules = transfer_rules(&h, json!({}));
    for _ in 0..3 {
        assert_eq!(call(&mut h), "run");
    }
    // Set now, at most 1 a minute: the three before do not count.
    h.session.rules = limited(&h, 1);
    assert_eq!(call(&mut h), "run");
    assert_eq!(call(&mut h), "rule card");
    // At most 2: the call counted under 1 still counts.
    h.session.rules = limited(&h, 2);
    assert_eq!(call(&mut h), "run");
    assert_eq!(call(&mut h), "rule card");
}

/// docs/rules.md, "Limits on how often": a limit of the person's and one of
/// the administrator's for the same tool each count a call once.
#[test]
fn the_persons_and_the_administrators_limits_on_one_tool_count_each_call_once() {
    let mut h = with_transfer();
    let admin = remote_book(json!({
        "limits": [{"target": "tool", "name": "transfer", "calls": 10, "minutes": 1}]}));
    let own = transfer_rules(
        &h,
        json!({"limits": [{"target": "tool", "name": "transfer", "calls": 3, "minutes": 1}]}),
    );
    h.session.rules = own.bounded_by(&admin);
    run_small_transfers(&mut h, 3);
    let (_, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer")
    );
}

/// docs/rules.md, "Limits on how often": an administrator's limit is named as
/// theirs wherever it is said (the card, the agent's reason, the palette),
/// beside the person's own, and still so once the worker stopped.
#[test]
fn an_administrators_limit_is_named_as_theirs() {
    let mut h = with_transfer();
    let admin = remote_book(json!({
        "limits": [{"target": "tool", "name": "transfer", "calls": 1, "minutes": 1}]}));
    let own = transfer_rules(
        &h,
        json!({"limits": [{"target": "kind", "kind": "write", "calls": 5, "minutes": 10}]}),
    );
    h.session.rules = own.bounded_by(&admin);
    let groups = toolgate::views::palette::palette_under(&h.registry, 1, &h.session.rules);
    let listed = groups
        .iter()
        .flat_map(|g| g.entries.iter())
        .find(|e| e.name == "transfer")
        .and_then(|e| e.agents.clone());
    assert_eq!(
        listed.as_deref(),
        Some("What agents may do: Ask first, by the rule for the tool transfer; Allowed when amount is at most 20; at most 5 calls in 10 minutes, by the limit for Write tools; at most 1 call in 1 minute, by your administrator's limit for the tool transfer.")
    );
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(outcome(&h, &step), "run");
    finish(&mut h, &step);
    let (step, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    let said = "Ask first: transfer: more than 1 call in 1 minute in this chat, by your administrator's limit for the tool transfer";
    assert_eq!(shown.rule.as_deref(), Some(said));
    // Stored and read back, as the worker does when it starts again (the
    // rules are handed to it again from where they are stored).
    let text = serde_json::to_string(&h.session).expect("stored");
    h.session = serde_json::from_str(&text).expect("read back");
    h.session.rules = own.bounded_by(&admin);
    let shown = card(&h.session, card_id(&step), &h.world()).expect("the card again");
    assert_eq!(shown.rule.as_deref(), Some(said));
    h.answer(card_id(&step), Answer::Rule(RuleAnswer::Refuse));
    h.session.rules.unattended = true;
    assert_eq!(
        h.call_said("c", 1, "transfer", json!({"to": "ana", "amount": 5})),
        "Nothing ran: transfer asks first (transfer: more than 1 call in 1 minute in this chat, by the administrator's limit for the tool transfer), and no one was there to ask (Toolgate runs unattended); the next call may run in 60 seconds."
    );
}

#[test]
fn an_administrators_conditions_bound_the_persons() {
    let mut h = with_transfer();
    let own = transfer_rules(&h, json!({}));
    let admin = remote_book(json!({
        "tools": {"transfer": "ask_first"},
        "conditions": {"transfer": [{"when": [{"path": "to", "op": "is", "value": "ana"}], "level": "allowed"}]}}));
    h.session.rules = own.bounded_by(&admin);
    // Both allow: runs. The person's allows, the administrator's does not: asks.
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 15}));
    assert_eq!(outcome(&h, &step), "run");
    finish(&mut h, &step);
    let step = h.call("c", 1, "transfer", json!({"to": "bo", "amount": 15}));
    assert_eq!(outcome(&h, &step), "rule card");
    // A person without a rule for the tool follows the administrator's conditions.
    h.session.rules = RuleBook::default().bounded_by(&admin);
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 500}));
    assert_eq!(outcome(&h, &step), "run");
}

/// docs/rules.md, "Who can change the rules": a condition of the person's
/// that allows a call is not wider than the administrator's level for the
/// tool (their Ask first, without conditions of theirs) nor their rule for
/// its kind (Write Off), though the person set it before the policy did.
#[test]
fn the_persons_condition_is_not_wider_than_the_administrators_levels() {
    let mut h = with_transfer();
    let own = transfer_rules(&h, json!({}));
    let tool_level = remote_book(json!({"tools": {"transfer": "ask_first"}}));
    h.session.rules = own.bounded_by(&tool_level);
    let (step, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: your administrator's rule for this tool")
    );
    h.answer(card_id(&step), Answer::Rule(RuleAnswer::Refuse));
    let write_off = remote_book(json!({"write": "off"}));
    h.session.rules = own.bounded_by(&write_off);
    assert_eq!(
        h.call_said("c", 1, "transfer", json!({"to": "ana", "amount": 5})),
        "Nothing ran: transfer is Off on this site, by the administrator's rule for Write tools."
    );
}

/// docs/rules.md, "Who can change the rules": where the administrator's
/// conditions for a tool ask and the person's level for it would not, the
/// card names the administrator's rule.
#[test]
fn where_the_administrators_conditions_ask_the_card_names_theirs() {
    let mut h = with_transfer();
    let definition = h.definition_of(1, "transfer");
    let own = remote_book(json!({
        "tools": {"transfer": "allowed"}, "tool_definitions": {"transfer": definition}}));
    let admin = remote_book(json!({
        "tools": {"transfer": "ask_first"},
        "conditions": {"transfer": [{"when": [{"path": "amount", "op": "at_most", "value": 20}], "level": "allowed"}]}}));
    h.session.rules = own.bounded_by(&admin);
    let (_, shown) = h.rule_card("c", 1, "transfer", json!({"to": "ana", "amount": 25}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: transfer: amount is more than 20, by your administrator's rule for this tool")
    );
}

#[test]
fn a_card_names_the_administrators_rule_where_the_person_set_none() {
    let mut h = with_transfer();
    let admin = remote_book(json!({
        "tools": {"transfer": "ask_first"},
        "conditions": {"transfer": [{"when": [{"path": "amount", "op": "at_most", "value": 20}], "level": "allowed"}]}}));
    let rule_of = |h: &mut Harness, amount: u32| {
        let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": amount}));
        card(&h.session, card_id(&step), &h.world())
            .expect("a rule card")
            .rule
    };
    // Only the administrator's rules: their level, and their condition, not the person's.
    h.session.rules = RuleBook::default().bounded_by(&admin);
    assert_eq!(
        rule_of(&mut h, 25).as_deref(),
        Some("Ask first: transfer: amount is more than 20, by your administrator's rule for this tool")
    );
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    assert_eq!(outcome(&h, &step), "run");
    let reply = finish(&mut h, &step).expect("a reply");
    assert!(reply["result"]["_meta"]["toolgate"]["why"]
        .as_str()
        .is_some_and(|why| why.ends_with(
            "within transfer: amount is at most 20, by the administrator's condition of the tool transfer"
        )));
    // The person's own narrower level, with their own condition: theirs.
    let own = transfer_rules(&h, json!({}));
    h.session.rules = own.bounded_by(&RuleBook::default());
    assert_eq!(
        rule_of(&mut h, 25).as_deref(),
        Some("Ask first: transfer: amount is more than 20, by your rule for this tool")
    );
    // A tool level of theirs alone, without conditions.
    let admin = remote_book(json!({
        "tools": {"transfer": "ask_first"}}));
    h.session.rules = RuleBook::default().bounded_by(&admin);
    assert_eq!(
        rule_of(&mut h, 5).as_deref(),
        Some("Ask first: your administrator's rule for this tool")
    );
}

#[test]
fn an_administrators_condition_that_asks_holds_without_a_level_of_theirs() {
    let mut h = with_transfer();
    let admin = remote_book(json!({
        "conditions": {"transfer": [{"when": [{"path": "to", "op": "is", "value": "mallory"}], "level": "ask_first"}]}}));
    let own = remote_book(json!({}));
    h.session.rules = own.bounded_by(&admin);
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 500}));
    assert_eq!(outcome(&h, &step), "run");
    finish(&mut h, &step);
    let (_, shown) = h.rule_card("c", 1, "transfer", json!({"to": "mallory", "amount": 1}));
    assert_eq!(
        shown.rule.as_deref(),
        Some(
            "Ask first: transfer: to is “mallory”, by your administrator's condition for this tool"
        )
    );
}

#[test]
fn the_palette_says_a_tools_conditions_and_limits_after_its_level() {
    let h = with_transfer();
    let rules = transfer_rules(
        &h,
        json!({"limits": [{"target": "kind", "kind": "write", "calls": 3, "minutes": 10}]}),
    );
    let groups = toolgate::views::palette::palette_under(&h.registry, 1, &rules);
    let transfer = groups
        .iter()
        .flat_map(|g| g.entries.iter())
        .find(|e| e.name == "transfer")
        .expect("transfer listed");
    assert_eq!(
        transfer.agents.as_deref(),
        Some("What agents may do: Ask first, by the rule for the tool transfer; Allowed when amount is at most 20; at most 3 calls in 10 minutes, by the limit for Write tools.")
    );
}

#[test]
fn the_properties_a_condition_can_look_at() {
    use toolgate::decisions::rules::conditions::properties;
    let schema = json!({"type": "object", "properties": {
        "amount": {"type": "number"},
        "to": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "a.b": {"type": "string"},
        "recipient": {"type": "object", "properties": {"email": {"type": "string"},
            "deep": {"properties": {"er": {"properties": {"est": {"type": "string",
                "properties": {"fifth": {"type": "string"}}}}}}}}}}});
    let shown: Vec<(String, Vec<String>)> = properties(&schema)
        .into_iter()
        .map(|p| (p.path, p.types))
        .collect();
    let want: Vec<(&str, Vec<&str>)> = vec![
        ("amount", vec!["number"]),
        ("recipient", vec!["object"]),
        ("recipient.deep", vec![]),
        ("recipient.deep.er", vec![]),
        // Four names deep at most: "fifth" is not offered.
        ("recipient.deep.er.est", vec!["string"]),
        ("recipient.email", vec!["string"]),
        ("tags", vec!["string", "array"]),
        ("to", vec!["string", "null"]),
    ];
    let mut shown = shown;
    shown.sort();
    assert_eq!(
        shown,
        want.into_iter()
            .map(|(p, t)| (p.to_owned(), t.into_iter().map(str::to_owned).collect()))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_card_asked_by_a_limit_or_a_condition_survives_the_worker_stopping() {
    let mut h = with_transfer();
    h.session.rules = transfer_rules(
        &h,
        json!({"limits": [{"target": "tool", "name": "transfer", "calls": 1, "minutes": 10}]}),
    );
    let step = h.call("c", 1, "transfer", json!({"to": "ana", "amount": 5}));
    finish(&mut h, &step);
    for arguments in [
        json!({"to": "ana", "amount": 5}),
        json!({"to": "ana", "amount": 50}),
    ] {
        let step = h.call("c", 1, "transfer", arguments);
        assert_eq!(outcome(&h, &step), "rule card");
    }
    // Stored and read back, as the worker does when it starts again.
    let text = serde_json::to_string(&h.session).expect("stored");
    let back: toolgate::decisions::agent::Session = serde_json::from_str(&text).expect("read back");
    let asked: Vec<String> = back
        .pending
        .values()
        .filter_map(|p| match &p.action {
            toolgate::decisions::agent::Action::Call(call) => {
                call.asked_because.as_ref().map(|b| b.text())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        asked,
        [
            "transfer: more than 1 call in 10 minutes in this chat, by the limit for the tool transfer",
            "transfer: amount is more than 20, by the rule for the tool transfer",
        ]
    );
    assert!(!back.call_times.is_empty(), "the calls counted are kept");
}
