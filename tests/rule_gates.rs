//! Site rules meeting a chat (docs/rules.md, "Levels"): Off hides a tool and
//! refuses its calls, Ask first asks on its own card for every call whatever
//! the chat allowed, Allowed lets the chat's answers decide; a change reaches
//! calls already waiting on a card; unattended mode; the rule's card.

use serde_json::json;
use toolgate::decisions::agent::Step;
use toolgate::decisions::answers::{Answer, CallAnswer, CardKind, RuleAnswer, SiteAnswer};
use toolgate::decisions::rules::RuleBook;
mod common;
#[path = "common/harness.rs"]
mod harness;
use harness::*;

// The Notes example's kinds: list_notes Read; add_note and send_note Outside
// the site (their openWorldHint is left out); delete_note Delete.
fn rules(book: serde_json::Value) -> RuleBook {
    serde_json::from_value(book).expect("a rule book")
}

fn new_rules_on_remote() -> RuleBook {
    rules(
        json!({"sites": {REMOTE: {"read": "allowed", "write": "ask_first", "delete": "off", "outside": "ask_first"}}}),
    )
}

fn listed(h: &mut Harness, chat: &str) -> Vec<String> {
    let step = h.send(
        chat,
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let Step::Reply { reply } = step else {
        panic!("a listing, got {step:?}")
    };
    let tools = reply.value()["result"]["structuredContent"]["tools"]
        .as_array()
        .expect("tools")
        .clone();
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn off_is_not_listed_and_a_call_is_refused_saying_nothing_ran() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    assert!(listed(&mut h, "c").contains(&"delete_note".to_owned()));
    h.session.rules = new_rules_on_remote();
    assert_eq!(
        listed(&mut h, "c"),
        ["list_notes", "add_note", "send_note"].map(String::from)
    );
    assert_eq!(
        h.call_said("c", 1, "delete_note", json!({})),
        "Nothing ran: delete_note is Off on this site, by the rule for Delete tools."
    );
    // Not even its arguments are looked at: add_note's lack a title.
    h.session
        .rules
        .sites
        .get_mut(REMOTE)
        .expect("rules")
        .outside = toolgate::decisions::rules::Level::Off;
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({})),
        "Nothing ran: add_note is Off on this site, by the rule for Outside the site tools."
    );
    // Another site in the same book is not bound by this one's rules.
    let other = h.call_said("c", 2, "delete_note", json!({}));
    assert!(!other.starts_with("Nothing ran"), "{other}");
}

#[test]
fn ask_first_asks_on_its_own_card_every_time_whatever_the_chat_allowed() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h.session.rules = new_rules_on_remote();
    assert_eq!(
        h.call_said("c", 1, "list_notes", json!({})),
        "run",
        "Read is Allowed: the chat decides"
    );
    let (step, card) = h.rule_card("c", 1, "add_note", json!({"title": "x"}));
    let id = card_id(&step);
    assert_eq!(card.kind, CardKind::Rule);
    assert_eq!(
        (card.approve.label.as_str(), card.deny.label.as_str()),
        ("Allow once", "Refuse")
    );
    assert!(
        card.approve_menu.is_empty() && card.deny_menu.is_empty(),
        "no \"always\""
    );
    let lines: Vec<String> = card.lines.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "The agent wants to call \u{201c}add_note\u{201d} on notes.example.",
            "It asks first because of the rule for tools that act outside the site on notes.example. Allow once lets this call run, this once.",
        ]
    );
    assert_eq!(
        card.rule.as_deref(),
        Some("Ask first: the rule for tools that act outside the site")
    );
    assert_eq!(card.class, Some("Mutating"), "beside the class badge");
    assert_eq!(card.arguments, [("title".to_owned(), "x".to_owned())]);
    assert_eq!(
        h.session.close_answer(id),
        Some(Answer::Rule(RuleAnswer::Refuse)),
        "closing it refuses"
    );
    assert_eq!(
        h.answer_said(id, Answer::Rule(RuleAnswer::AllowOnce)),
        "run"
    );
    // The next call asks again.
    let step = h.call("c", 1, "add_note", json!({"title": "x"}));
    assert_eq!(outcome(&h, &step), "rule card");
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Rule(RuleAnswer::Refuse)),
        "Nothing ran: you refused this call of add_note."
    );
    // The rule's card offers only its two answers.
    let step = h.call("c", 1, "add_note", json!({"title": "x"}));
    let refused = h.checked(|session, world| {
        session.answer(
            card_id(&step),
            Answer::Call(CallAnswer::AlwaysAllowTool),
            world,
        )
    });
    assert!(refused.is_err(), "a rule's card takes no \"always\"");
}

/// A chat opened Read only is never asked about a call it may not make: on a
/// site whose rule would ask first, the call is refused with the reason, and
/// no card opens (docs/rules.md, "A chat opened Read only").
#[test]
fn a_read_only_chat_is_refused_without_a_card_where_a_rule_would_ask_first() {
    let mut h = Harness::new();
    assert!(h.session.open_chat("ro", "Read-only chat", true).is_ok());
    h.session.rules = new_rules_on_remote();
    let step = h.call("ro", 1, "add_note", json!({"title": "x"}));
    assert_eq!(
        outcome(&h, &step),
        "Nothing ran: this chat was opened Read only, and add_note is not a Read tool."
    );
    assert!(h.session.pending.is_empty(), "no card waits");
    // A site without rules: the chat's own refusal, as before.
    assert_eq!(
        h.call_said("ro", 2, "add_note", json!({"title": "x"})),
        "refused: add_note on notes.localhost:8000 is Mutating, and this chat was opened Read only"
    );
}

#[test]
fn the_chats_refusal_still_holds_after_the_rules_yes() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowNonConsequential);
    let step = h.call("c", 1, "send_note", json!({}));
    assert_eq!(outcome(&h, &step), "call card");
    h.answer(card_id(&step), Answer::Call(CallAnswer::NeverAllowTool));
    h.session.rules = new_rules_on_remote();
    let step = h.call("c", 1, "send_note", json!({}));
    assert_eq!(outcome(&h, &step), "rule card");
    let said = h.answer_said(card_id(&step), Answer::Rule(RuleAnswer::AllowOnce));
    assert!(said.starts_with("refused"), "{said}");
}

#[test]
fn a_rule_changed_while_a_call_waits_on_a_card_holds_when_it_is_answered() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowNonConsequential);
    let step = h.call("c", 1, "delete_note", json!({}));
    assert_eq!(outcome(&h, &step), "call card");
    // The person turns Delete off while the card is open, then allows the call.
    h.session.rules = new_rules_on_remote();
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Call(CallAnswer::AllowOnce)),
        "Nothing ran: delete_note is Off on this site, by the rule for Delete tools."
    );
}

#[test]
fn unattended_ask_first_is_refused_because_no_one_was_there_to_ask_and_read_still_runs() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    let mut book = new_rules_on_remote();
    book.unattended = true;
    h.session.rules = book;
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "x"})),
        "Nothing ran: add_note asks first, by the rule for Outside the site tools, and no one was there to ask (Toolgate runs unattended)."
    );
    assert_eq!(h.call_said("c", 1, "list_notes", json!({})), "run");
}

#[test]
fn a_site_without_rules_follows_the_chat_alone_and_areas_and_tools_set_apart_decide_first() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h.session.rules = rules(
        json!({"sites": {LOCAL: {"read": "off", "write": "off", "delete": "off", "outside": "off"}}}),
    );
    assert_eq!(
        h.call_said("c", 1, "delete_note", json!({})),
        "run",
        "notes.example has no rules"
    );
    h.session.rules = rules(json!({"sites": {REMOTE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed",
        "areas": {"delete_note": "allowed"}, "tools": {"send_note": "off"},
    }}}));
    // delete_note's area is its whole name (no tag, no dot): the area's level decides.
    assert_eq!(h.call_said("c", 1, "delete_note", json!({})), "run");
    assert_eq!(
        h.call_said("c", 1, "send_note", json!({})),
        "Nothing ran: send_note is Off on this site, by the rule for the tool send_note."
    );
}

#[test]
fn unattended_no_card_ever_opens_the_chats_questions_are_refused_too() {
    let mut h = Harness::new();
    h.session.rules = rules(json!({"unattended": true}));
    assert_eq!(
        h.call_said("c", 1, "list_notes", json!({})),
        "Nothing ran: list_notes needs an answer on a card, and no one was there to ask (Toolgate runs unattended)."
    );
    let step = h.send(
        "c",
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let Step::Reply { reply } = step else {
        panic!("a listing, got {step:?}")
    };
    assert_eq!(
        reply.value()["result"]["structuredContent"]["withheld"],
        json!(["notes.example's tools need an answer on a card to be listed, and no one was there to ask (Toolgate runs unattended)"])
    );
    assert!(h.session.pending.is_empty(), "no card waits");
    // With the site's rules, what they allow runs and is listed; Ask first is Off.
    h.session.rules = new_rules_on_remote();
    h.session.rules.unattended = true;
    assert_eq!(h.call_said("c", 1, "list_notes", json!({})), "run");
    assert_eq!(listed(&mut h, "c"), ["list_notes"].map(String::from));
    assert!(h.session.pending.is_empty(), "no card waits");
}

#[test]
fn a_rule_card_waits_ten_minutes_then_the_agent_is_told_no_and_may_ask_again() {
    use toolgate::decisions::rules::ASK_WINDOW_MS;
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h.session.rules = new_rules_on_remote();
    let asked = h.now_ms;
    let step = h.call("c", 1, "add_note", json!({"title": "x"}));
    let id = card_id(&step);
    assert_eq!(h.session.next_deadline(), Some(asked + ASK_WINDOW_MS));
    // The deadline is stored with the session: a new worker keeps it.
    let record = serde_json::to_string(&h.session).expect("serialises");
    let mut restored: toolgate::decisions::agent::Session =
        serde_json::from_str(&record).expect("reads");
    assert_eq!(restored.next_deadline(), Some(asked + ASK_WINDOW_MS));
    assert!(
        restored.expire(asked + ASK_WINDOW_MS - 1).is_empty(),
        "not yet"
    );
    let expired = h.session.expire(asked + ASK_WINDOW_MS);
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].card_id, id);
    let Some(Step::Reply { reply }) = &expired[0].step else {
        panic!("the agent is told no")
    };
    assert_eq!(
        reply.value()["result"]["content"][0]["text"],
        "Nothing ran: no one answered within 10 minutes, so the card closed. You can ask again."
    );
    assert!(h.session.pending.is_empty() && h.session.next_deadline().is_none());
    h.now_ms = asked + ASK_WINDOW_MS + 1;
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "x"})),
        "rule card",
        "it can ask again"
    );
}

/// The late yes's same call has the same arguments in any order
/// (docs/rules.md, "How long a call waits"): the agent's JSON text with its
/// keys in another order, or other spaces, is the same call.
#[test]
fn a_late_yes_takes_the_same_arguments_in_any_order() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h.session.rules = new_rules_on_remote();
    let request = |id: u32, args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"browser_call_webmcp_tool","arguments":{{"tabId":1,"name":"add_note","arguments":{args}}}}}}}"#
        )
    };
    let step = h.checked(|s, w| s.request("c", &request(900, r#"{"title":"x","body":"y"}"#), w));
    let id = card_id(&step);
    h.session.withdraw("c", &json!(900));
    h.answer(id, Answer::Rule(RuleAnswer::AllowOnce));
    let step =
        h.checked(|s, w| s.request("c", &request(901, r#"{ "body": "y", "title": "x" }"#), w));
    assert_eq!(outcome(&h, &step), "run");
    let step = h.checked(|s, w| s.request("c", &request(902, r#"{"title":"x","body":"y"}"#), w));
    assert_eq!(outcome(&h, &step), "rule card", "once");
}

/// A late yes applies to the definition its card showed (docs/rules.md,
/// "How long a call waits"): a tool the page registered again, changed,
/// while the agent was away is asked about again, and nothing runs.
#[test]
fn a_late_yes_does_not_run_a_tool_the_page_changed_since_its_card() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h.session.rules = new_rules_on_remote();
    let id = card_id(&h.call("c", 1, "add_note", json!({"title": "x"})));
    let request = json!(h.next_id);
    h.session.withdraw("c", &request);
    h.answer(id, Answer::Rule(RuleAnswer::AllowOnce));
    let ops = json!([{"op": "register", "decl": {"path": "document_object", "name": "add_note", "description": "Add a note",
        "input_schema": "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"}},\"required\":[\"title\"]}",
        "annotations": {"consequentialHint": true}}}]);
    h.registry
        .apply(common::page(common::frame(1, 0, "doc-1", REMOTE), ops));
    let said = h.call_said("c", 1, "add_note", json!({"title": "x"}));
    assert!(said.ends_with("card"), "asked again, not run: {said}");
}

#[test]
fn a_tool_changed_while_its_call_waited_on_the_chats_card_gets_no_rule_card() {
    // Found by the decisions fuzz target: a site card's "Allow once" for a
    // tool the page changed since, where the rule now asks first, opened a
    // rule card showing the tool as it no longer was (a yes on it could
    // never run anything).
    let mut h = Harness::new();
    let step = h.call("c", 1, "add_note", json!({"title": "x"}));
    assert_eq!(outcome(&h, &step), "site card");
    let ops = json!([{"op": "register", "decl": {"path": "document_object", "name": "add_note", "description": "Add a note",
        "input_schema": "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"}},\"required\":[\"title\"]}",
        "annotations": {"consequentialHint": true}}}]);
    h.registry
        .apply(common::page(common::frame(1, 0, "doc-1", REMOTE), ops));
    h.session.rules = new_rules_on_remote();
    let said = h.answer_said(card_id(&step), Answer::Site(SiteAnswer::AllowOnce));
    assert!(said.contains("changed while this call waited"), "{said}");
    assert!(
        h.session.pending.is_empty(),
        "no card asks about it as it was"
    );
}

#[test]
fn a_yes_after_the_agent_stopped_waiting_lets_its_same_call_run_once_within_ten_minutes() {
    use toolgate::decisions::rules::ASK_WINDOW_MS;
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h.session.rules = new_rules_on_remote();
    let step = h.call("c", 1, "add_note", json!({"title": "x", "body": "y"}));
    let id = card_id(&step);
    // The agent stops waiting (an MCP cancellation): the card stays, and says so.
    let request = json!(h.next_id);
    let withdrawn = h.session.withdraw("c", &request);
    assert!(
        withdrawn.close_windows.is_empty() && withdrawn.dropped_cards.is_empty(),
        "{withdrawn:?}"
    );
    let shown = card(&h.session, id, &h.world()).expect("still open");
    assert!(shown
        .lines
        .iter()
        .any(|l| l.to_string().starts_with("The agent stopped waiting.")));
    let said = h.answer_said(id, Answer::Rule(RuleAnswer::AllowOnce));
    assert!(
        said.starts_with("You allowed this call of add_note once"),
        "{said}"
    );
    // Another call is not the same call; the same call runs once, without a card.
    h.now_ms += 1000;
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "other"})),
        "rule card"
    );
    assert_eq!(
        h.call_said(
            "other chat",
            1,
            "add_note",
            json!({"body": "y", "title": "x"})
        ),
        "rule card"
    );
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"body": "y", "title": "x"})),
        "run"
    );
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "x", "body": "y"})),
        "rule card",
        "once"
    );
    // A late yes lapses after ten minutes.
    let step = h.call("c", 1, "send_note", json!({}));
    let id = card_id(&step);
    let request = json!(h.next_id);
    h.session.withdraw("c", &request);
    h.answer(id, Answer::Rule(RuleAnswer::AllowOnce));
    h.now_ms += ASK_WINDOW_MS;
    assert_eq!(h.call_said("c", 1, "send_note", json!({})), "rule card");
}

#[test]
fn the_settings_page_changes_a_sites_rules_whole_for_tools_and_areas_seen_there() {
    use toolgate::decisions::rules::{site_tools, Change, RuleError, ToolKind};
    let h = Harness::new();
    let seen = site_tools(&h.registry, REMOTE);
    let names: Vec<(&str, &str, ToolKind)> = seen
        .iter()
        .map(|t| (t.name.as_str(), t.area.as_str(), t.kind))
        .collect();
    assert_eq!(
        names,
        [
            ("add_note", "add_note", ToolKind::Outside),
            ("delete_note", "delete_note", ToolKind::Delete),
            ("list_notes", "list_notes", ToolKind::Read),
            ("send_note", "send_note", ToolKind::Outside),
        ],
        "skills are not listed"
    );
    let changes = |value: serde_json::Value| -> Vec<Change> {
        serde_json::from_value(value).expect("changes")
    };
    let mut book = RuleBook::default();
    // A site without rules starts from a new rule set, with the change.
    book.change(
        REMOTE,
        &changes(json!([{"target": "tool", "name": "send_note", "level": "off"}])),
        &seen,
        None,
    )
    .expect("saved");
    let rules = book.sites.get(REMOTE).expect("rules");
    assert_eq!(rules.delete, toolgate::decisions::rules::Level::Off);
    assert_eq!(
        rules.tools.get("send_note"),
        Some(&toolgate::decisions::rules::Level::Off)
    );
    // A tool or area not seen there is refused, and nothing of the change is saved.
    let before = book.clone();
    let error = book
        .change(
            REMOTE,
            &changes(json!([{"target": "kind", "kind": "read", "level": "off"}, {"target": "area", "area": "billing", "level": "off"}])),
            &seen,
            None,
        )
        .unwrap_err();
    assert_eq!(
        error,
        RuleError::NotSeen {
            what: "billing".into()
        }
    );
    assert_eq!(book, before);
    // Put back.
    book.change(
        REMOTE,
        &changes(json!([{"target": "tool", "name": "send_note", "level": null}])),
        &seen,
        None,
    )
    .expect("saved");
    assert!(book.sites.get(REMOTE).expect("rules").tools.is_empty());
}
