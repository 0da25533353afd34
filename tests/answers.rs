//! The answers of docs/cards.md as tables: the widths table, every answer
//! on both cards, localhost, the immediate retry, refusals while a card is
//! open and a changed definition (what the cards say: tests/card_texts.rs).

use serde_json::json;
use toolgate::decisions::agent::{Step, World};
use toolgate::decisions::answers::{Answer, CallAnswer, SiteAnswer};
use toolgate::views::text::Part;
mod common;
#[path = "common/harness.rs"]
mod harness;
use harness::*;

#[test]
fn the_widths_table_of_docs_cards() {
    // After answering the site question with… → Read-only, Mutating, Consequential tools.
    let table = [
        (SiteAnswer::AllowReadOnly, ["run", "call card", "call card"]),
        (
            SiteAnswer::AllowNonConsequential,
            ["run", "run", "call card"],
        ),
        (SiteAnswer::AllowAll, ["run", "run", "run"]),
    ];
    for (answer, expected) in table {
        let mut h = Harness::new();
        with_site_answer(&mut h, "chat", answer);
        for (tool, want) in ["list_notes", "add_note", "delete_note"]
            .iter()
            .zip(expected)
        {
            let step = h.call(
                "chat",
                1,
                tool,
                json!({"title": "Old draft"})
                    .as_object()
                    .filter(|_| *tool == "add_note")
                    .map_or(json!({}), |o| json!(o)),
            );
            assert_eq!(outcome(&h, &step), want, "{answer:?}: {tool}");
            if let Step::Run { run } = step {
                h.session
                    .finish(run.call_id, Ok(&raw(&json!("ok"))), 1024, false, None, 0);
            }
        }
    }
}

#[test]
fn every_answer_on_the_site_card() {
    // Allow this call only: this call runs, nothing is recorded, the next call asks again.
    let mut h = Harness::new();
    let step = h.call("c", 1, "delete_note", json!({}));
    assert_eq!(outcome(&h, &step), "site card");
    assert_eq!(
        h.answer_said(card_id(&step), Answer::Site(SiteAnswer::AllowOnce)),
        "run"
    );
    assert_eq!(h.call_said("c", 1, "list_notes", json!({})), "site card");

    // Deny this call: refused, nothing recorded.
    let mut h = Harness::new();
    let step = h.call("c", 1, "list_notes", json!({}));
    let refused = h.answer(card_id(&step), Answer::Site(SiteAnswer::DenyOnce));
    assert_eq!(
        outcome(&h, &refused),
        "refused: you denied this call to notes.example"
    );
    assert_eq!(h.call_said("c", 1, "list_notes", json!({})), "site card");

    // Deny for this chat: later calls refused without asking.
    let mut h = Harness::new();
    let step = h.call("c", 1, "list_notes", json!({}));
    h.answer(card_id(&step), Answer::Site(SiteAnswer::DenyForChat));
    assert_eq!(
        h.call_said("c", 1, "delete_note", json!({})),
        "refused: delete_note on notes.example is denied in this chat"
    );

    // Closing the card counts as Deny for this chat.
    let mut h = Harness::new();
    let step = h.call("c", 1, "list_notes", json!({}));
    let close = h
        .session
        .close_answer(card_id(&step))
        .expect("a pending card");
    assert_eq!(close, Answer::Site(SiteAnswer::DenyForChat));
    h.answer(card_id(&step), close);
    assert_eq!(
        h.call_said("c", 1, "list_notes", json!({})),
        "refused: list_notes on notes.example is denied in this chat"
    );
}

#[test]
fn every_answer_on_the_call_card() {
    let consequential_card = |h: &mut Harness| {
        with_site_answer(h, "c", SiteAnswer::AllowNonConsequential);
        let step = h.call("c", 1, "delete_note", json!({}));
        assert_eq!(outcome(h, &step), "call card");
        card_id(&step)
    };

    // Allow this call only: runs, nothing recorded.
    let mut h = Harness::new();
    let id = consequential_card(&mut h);
    assert_eq!(
        h.answer_said(id, Answer::Call(CallAnswer::AllowOnce)),
        "run"
    );
    assert_eq!(h.call_said("c", 1, "delete_note", json!({})), "call card");

    // Always allow "delete_note": runs from now on in this chat; other consequential tools still asked.
    let mut h = Harness::new();
    let id = consequential_card(&mut h);
    h.answer(id, Answer::Call(CallAnswer::AlwaysAllowTool));
    assert_eq!(h.call_said("c", 1, "delete_note", json!({})), "run");
    assert_eq!(h.call_said("c", 1, "send_note", json!({})), "call card");
    assert_eq!(
        h.call_said("other chat", 1, "delete_note", json!({})),
        "site card",
        "only in this chat"
    );

    // Allow all tools on {site}: widens to the tool's class and below.
    let mut h = Harness::new();
    let id = consequential_card(&mut h);
    h.answer(id, Answer::Call(CallAnswer::AllowClass));
    assert_eq!(h.call_said("c", 1, "send_note", json!({})), "run");

    // Deny this call: refused, nothing recorded.
    let mut h = Harness::new();
    let id = consequential_card(&mut h);
    assert_eq!(
        h.answer_said(id, Answer::Call(CallAnswer::DenyOnce)),
        "refused: you denied this call to delete_note on notes.example"
    );
    assert_eq!(h.call_said("c", 1, "delete_note", json!({})), "call card");

    // Never allow "delete_note": refused without asking, in every chat.
    let mut h = Harness::new();
    let id = consequential_card(&mut h);
    h.answer(id, Answer::Call(CallAnswer::NeverAllowTool));
    assert_eq!(
        h.call_said("c", 1, "delete_note", json!({})),
        "refused: delete_note on notes.example is never allowed, until the browser restarts"
    );
    with_site_answer(&mut h, "second", SiteAnswer::AllowAll);
    assert_eq!(
        h.call_said("second", 1, "delete_note", json!({})),
        "refused: delete_note on notes.example is never allowed, until the browser restarts"
    );
    assert_eq!(h.call_said("second", 1, "send_note", json!({})), "run");

    // Deny all page tools: refuses the site and withdraws what the chat had allowed.
    let mut h = Harness::new();
    let id = consequential_card(&mut h);
    h.answer(id, Answer::Call(CallAnswer::DenyAllSite));
    assert_eq!(
        h.call_said("c", 1, "list_notes", json!({})),
        "refused: list_notes on notes.example is denied in this chat"
    );

    // Closing the call card counts as Deny this call.
    let mut h = Harness::new();
    let id = consequential_card(&mut h);
    assert_eq!(
        h.session.close_answer(id),
        Some(Answer::Call(CallAnswer::DenyOnce))
    );
}

#[test]
fn a_mutating_tool_widens_to_non_consequential() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowReadOnly);
    let step = h.call("c", 1, "add_note", json!({"title": "x"}));
    let id = card_id(&step);
    let shown = card(&h.session, id, &h.world()).expect("card");
    let labels: Vec<&str> = shown
        .approve_menu
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "Always allow \u{201c}add_note\u{201d} on notes.example",
            "Allow non-consequential read/write tools on notes.example"
        ]
    );
    h.answer(id, Answer::Call(CallAnswer::AllowClass));
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "y"})),
        "run"
    );
    assert_eq!(h.call_said("c", 1, "delete_note", json!({})), "call card");
}

#[test]
fn localhost_is_never_asked_the_site_question_nor_offered_site_wide_refusals() {
    let mut h = Harness::new();
    assert_eq!(h.call_said("c", 2, "list_notes", json!({})), "run");
    let step = h.call("c", 2, "delete_note", json!({}));
    assert_eq!(outcome(&h, &step), "call card");
    let shown = card(&h.session, card_id(&step), &h.world()).expect("card");
    let deny: Vec<&str> = shown.deny_menu.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        deny,
        ["Never allow \u{201c}delete_note\u{201d} on notes.localhost:8000"]
    );
    let world = World {
        checking: Default::default(),
        registry: &h.registry,
        tabs: Some(&h.tabs),
        now_ms: h.now_ms,
    };
    assert!(
        h.session
            .answer(
                card_id(&step),
                Answer::Call(CallAnswer::DenyAllSite),
                &world
            )
            .is_err(),
        "not offered, not taken"
    );
    for host in [
        "http://localhost:1",
        "http://a.localhost",
        "http://127.0.0.1:9",
        "http://127.1.2.3",
        "http://[::1]:80",
    ] {
        assert!(toolgate::decisions::answers::is_localhost(host), "{host}");
    }
    for host in [
        "https://localhost.example",
        "http://127.0.0.1.nip.io",
        "http://10.0.0.1",
    ] {
        assert!(!toolgate::decisions::answers::is_localhost(host), "{host}");
    }
}

#[test]
fn an_immediate_identical_retry_of_an_approved_idempotent_call_runs() {
    let approved = |h: &mut Harness| {
        with_site_answer(h, "c", SiteAnswer::AllowReadOnly);
        let step = h.call("c", 1, "add_note", json!({"title": "x"}));
        if let Step::Run { run } = h.answer(card_id(&step), Answer::Call(CallAnswer::AllowOnce)) {
            h.session
                .finish(run.call_id, Ok(&raw(&json!("ok"))), 1024, false, None, 0);
        }
    };
    let mut h = Harness::new();
    approved(&mut h);
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "x"})),
        "run"
    );

    let mut h = Harness::new();
    approved(&mut h);
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "other"})),
        "call card",
        "other arguments"
    );

    let mut h = Harness::new();
    approved(&mut h);
    h.now_ms += 2 * 60 * 1000 + 1;
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "x"})),
        "call card",
        "after two minutes"
    );

    let mut h = Harness::new();
    approved(&mut h);
    h.call("c", 1, "list_notes", json!({}));
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "x"})),
        "call card",
        "not the very next call"
    );

    // A call Toolgate cannot decide is still the chat's next call.
    for (tool, args, why) in [
        ("no_such_tool", json!({}), "a tool the tab does not publish"),
        (
            "add_note",
            json!({"title": 5}),
            "arguments the schema refuses",
        ),
        ("house_style", json!({}), "a skill"),
    ] {
        let mut h = Harness::new();
        approved(&mut h);
        assert!(
            h.call_said("c", 1, tool, args).starts_with("error: "),
            "{why}"
        );
        assert_eq!(
            h.call_said("c", 1, "add_note", json!({"title": "x"})),
            "call card",
            "after {why}"
        );
    }
}

/// docs/cards.md, "A refusal while a card is open": "Never allow", a chat
/// opened Read only again, or the site denied, while a call card waits,
/// holds against that card's allowing answers, which record nothing.
#[test]
fn a_refusal_made_while_a_call_card_is_open_holds_against_its_allowing_answers() {
    let allowing = [
        CallAnswer::AllowOnce,
        CallAnswer::AlwaysAllowTool,
        CallAnswer::AllowClass,
    ];
    type Refuse = fn(&mut Harness);
    let refusals: [(&str, Refuse, &str); 3] = [
        (
            "never allowed",
            |h| {
                let other = h.call("c", 1, "add_note", json!({"title": "y"}));
                h.answer(card_id(&other), Answer::Call(CallAnswer::NeverAllowTool));
            },
            "refused: add_note on notes.example is never allowed, until the browser restarts",
        ),
        (
            "made Read only",
            |h| assert!(h.session.open_chat("c", "c", true).is_ok()),
            "refused: add_note on notes.example is Mutating, and this chat was opened Read only",
        ),
        (
            "site denied",
            |h| {
                let other = h.call("c", 1, "send_note", json!({}));
                h.answer(card_id(&other), Answer::Call(CallAnswer::DenyAllSite));
            },
            "refused: add_note on notes.example is denied in this chat",
        ),
    ];
    for (what, refuse, said) in refusals {
        for answer in allowing {
            let mut h = Harness::new();
            with_site_answer(&mut h, "c", SiteAnswer::AllowReadOnly);
            let card = card_id(&h.call("c", 1, "add_note", json!({"title": "x"})));
            refuse(&mut h);
            assert_eq!(
                h.answer_said(card, Answer::Call(answer)),
                said,
                "{answer:?} after the tool was {what}"
            );
        }
    }
    // Nothing was recorded: the chat's answers are what they were before.
    for answer in allowing {
        let mut h = Harness::new();
        with_site_answer(&mut h, "c", SiteAnswer::AllowReadOnly);
        let card = card_id(&h.call("c", 1, "add_note", json!({"title": "x"})));
        let before = h.session.answers.chats.get("c").cloned();
        assert!(h.session.open_chat("c", "c", true).is_ok());
        h.answer(card, Answer::Call(answer));
        let after = h.session.answers.chats.get("c").cloned();
        assert_eq!(
            after.as_ref().map(|c| &c.sites),
            before.as_ref().map(|c| &c.sites),
            "{answer:?}"
        );
        assert_eq!(
            after.and_then(|c| c.last_approval),
            None,
            "{answer:?} recorded nothing"
        );
    }
}

/// docs/agents.md, "Chats": Read only is a chat's for its whole life, and a
/// closed chat's id cannot be opened again, so nobody inherits its answers.
#[test]
fn read_only_holds_for_a_chats_life_and_a_closed_chat_cannot_be_opened_again() {
    let mut h = Harness::new();
    assert!(h.session.open_chat("c", "Claude", true).is_ok());
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    // Opened again without Read only (a reconnecting MCP session, or anyone
    // else using its id): still Read only.
    assert!(h.session.open_chat("c", "Claude", false).is_ok());
    assert_eq!(
        h.call_said("c", 1, "add_note", json!({"title": "x"})),
        "refused: add_note on notes.example is Mutating, and this chat was opened Read only"
    );
    h.session.close_chat("c");
    assert_eq!(
        h.session.open_chat("c", "Mallory", false),
        Err(
            "chat c was closed, and a closed chat cannot be opened again: start a new one"
                .to_owned()
        )
    );
    assert_eq!(
        h.call_said("c", 1, "list_notes", json!({})),
        "error: chat c was closed"
    );
    let chat = h
        .session
        .answers
        .chats
        .get("c")
        .cloned()
        .unwrap_or_default();
    assert!(
        chat.closed && chat.sites.is_empty(),
        "what it was allowed is forgotten"
    );
    // A chat opened Read only later narrows; any other chat is untouched.
    assert!(h.session.open_chat("d", "d", false).is_ok());
    assert!(h.session.open_chat("d", "d", true).is_ok());
    assert!(h.session.answers.read_only("d"));
}

/// The site question is about the site, not about a tool (its card names
/// none): its answer stands when the tool the request named changed while
/// it was open; only that call does not run.
#[test]
fn a_site_answer_stands_when_the_tool_changed_while_its_card_was_open() {
    let mut h = Harness::new();
    let card = card_id(&h.call("c", 1, "list_notes", json!({})));
    let ops = json!([{"op": "register", "decl": {"path": "document_object", "name": "list_notes",
        "description": "List every note", "annotations": {"readOnlyHint": true, "openWorldHint": false}}}]);
    h.registry
        .apply(common::page(common::frame(1, 0, "doc-1", REMOTE), ops));
    assert!(h
        .answer_said(card, Answer::Site(SiteAnswer::AllowReadOnly))
        .contains("changed while this call waited"));
    assert_eq!(h.call_said("c", 1, "list_notes", json!({})), "run");
}

#[test]
fn a_changed_definition_lapses_always_allow_and_the_card_says_so() {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowNonConsequential);
    let step = h.call("c", 1, "delete_note", json!({}));
    h.answer(card_id(&step), Answer::Call(CallAnswer::AlwaysAllowTool));
    notes(
        &mut h.registry,
        1,
        REMOTE,
        "Delete a note, and its history too",
    );
    let step = h.call("c", 1, "delete_note", json!({}));
    assert_eq!(outcome(&h, &step), "call card");
    let shown = card(&h.session, card_id(&step), &h.world()).expect("card");
    let changed = shown.changed.expect("says it changed");
    assert_eq!(
        changed.0[0],
        Part::Page("delete_note".into()),
        "the name apart"
    );
    assert!(changed.to_string().starts_with("delete_note changed since"));
}
