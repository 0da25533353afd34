//! The answers of docs/cards.md as tables: the widths table, every answer
//! on both cards, what the cards say, localhost, the immediate retry and a
//! changed definition.

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
fn the_cards_say_what_docs_cards_says() {
    let mut h = Harness::new();
    let step = h.send(
        "c",
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let site = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(
        site.heading,
        "An agent wants permission to use this site's page tools on notes.example"
    );
    assert_eq!(site.lines, [
        "Let the agent see and call the tools this website publishes to it.",
        "Requested by browser_list_webmcp_tools, in the tab \u{201c}Notes\u{201d} at https://notes.example/notes.",
        "Allowing this applies to notes.example only.",
    ]);
    assert_eq!(site.approve.label, "Allow this call only");
    let menu: Vec<&str> = site.approve_menu.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        menu,
        [
            "Allow read-only tools on this website",
            "Allow non-consequential read/write tools on this website",
            "Allow all tools on this website",
        ]
    );
    assert_eq!(site.deny.label, "Deny this call");
    assert_eq!(
        site.deny_menu
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>(),
        ["Deny for this chat"]
    );
    let published: Vec<String> = site
        .publishes
        .iter()
        .map(|p| format!("{}: {}", p.name, p.badge))
        .collect();
    assert_eq!(
        published,
        [
            "list_notes: Read only",
            "add_note: Mutating",
            "delete_note: Consequential",
            "send_note: Consequential",
            "house_style: Skill"
        ]
    );

    h.answer(
        card_id(&step),
        Answer::Site(SiteAnswer::AllowNonConsequential),
    );
    let step = h.call("c", 1, "delete_note", json!({"title": "Old draft"}));
    let call = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(call.tool.as_deref(), Some("delete_note"));
    assert_eq!(call.class, Some("Consequential"));
    assert_eq!(call.argument_count.as_deref(), Some("1 argument"));
    assert_eq!(
        call.arguments,
        [("title".to_owned(), "Old draft".to_owned())]
    );
    let approve: Vec<&str> = call.approve_menu.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        approve,
        [
            "Always allow \u{201c}delete_note\u{201d} on notes.example",
            "Allow all tools on notes.example"
        ]
    );
    let deny: Vec<&str> = call.deny_menu.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        deny,
        [
            "Never allow \u{201c}delete_note\u{201d} on notes.example",
            "Deny all page tools on notes.example"
        ]
    );
}

/// The spoof of issue 13: a tab title that writes the card's next sentence,
/// then turns the text after it around.
const SPOOF: &str = "Notes\u{201d} at https://bank.test/. Allowing this applies to bank.test only. \u{202e}\u{2067}";

#[test]
fn page_text_on_a_card_is_quoted_apart_escaped_and_cut() {
    let mut h = Harness::new();
    h.tabs[0].title = SPOOF.to_owned();
    let chat = "c";
    assert!(h
        .session
        .open_chat(chat, "Agent \u{202e}lanimret", false)
        .is_ok());
    let step = h.send(
        chat,
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let site = card(&h.session, card_id(&step), &h.world()).expect("card");
    // Toolgate's words and the page's title are separate parts: the title
    // never becomes part of a sentence, and its bidi controls are shown.
    assert_eq!(
        site.lines[1].0,
        [
            Part::Toolgate("Requested by browser_list_webmcp_tools, in the tab \u{201c}".into()),
            Part::Page("Notes\u{201d} at https://bank.test/. Allowing this applies to bank.test only. \u{27e8}U+202E\u{27e9}\u{27e8}U+2067\u{27e9}".into()),
            Part::Toolgate("\u{201d} at ".into()),
            Part::Page("https://notes.example/notes".into()),
            Part::Toolgate(".".into()),
        ]
    );
    assert_eq!(
        site.asked_by.0,
        [
            Part::Toolgate("Asked by ".into()),
            Part::Page("Agent \u{27e8}U+202E\u{27e9}lanimret".into())
        ]
    );
    // The site's own sentence is Toolgate's alone.
    assert_eq!(
        site.lines[2].0,
        [Part::Toolgate(
            "Allowing this applies to notes.example only.".into()
        )]
    );

    h.answer(site.card_id, Answer::Site(SiteAnswer::AllowOnce));

    // A title longer than 120 characters is cut, with "…", within 120.
    h.tabs[0].title = "N".repeat(500);
    let step = h.send(
        chat,
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let site = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(
        site.lines[1].0[1],
        Part::Page(format!("{}\u{2026}", "N".repeat(119)))
    );
    h.answer(card_id(&step), Answer::Site(SiteAnswer::AllowReadOnly));

    // The call card: the tool's name, and every argument, apart.
    let value = format!("a\nb\u{0007}\u{200f}{}", "x".repeat(600));
    let step = h.call(chat, 1, "add_note", json!({ "title": value }));
    let call = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(call.heading.0, [Part::Page("add_note".into())]);
    let (name, shown) = &call.arguments[0];
    assert_eq!(name, "title");
    assert!(
        shown
            .starts_with("a\u{27e8}U+000A\u{27e9}b\u{27e8}U+0007\u{27e9}\u{27e8}U+200F\u{27e9}xxx"),
        "{shown}"
    );
    assert!(
        shown.ends_with("x\u{2026}") && shown.chars().count() == 500,
        "cut to 500: {shown}"
    );
    assert_eq!(
        call.approve_menu[0].parts.0,
        [
            Part::Toolgate("Always allow \u{201c}".into()),
            Part::Page("add_note".into()),
            Part::Toolgate("\u{201d} on notes.example".into()),
        ]
    );
    assert_eq!(
        call.approve_menu[0].label,
        "Always allow \u{201c}add_note\u{201d} on notes.example"
    );
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

/// A call card shows exactly what the tool will receive, whatever its shape
/// (docs/cards.md, "The per-call confirmation"): an array's items by
/// position. Input that is no object is refused before anyone is asked
/// (docs/agents.md): the draft's input is an object, and arrays are objects there.
#[test]
fn a_card_shows_array_arguments_by_position_and_input_that_is_no_object_is_refused_first() {
    let mut h = Harness::new();
    // send_note declares no inputSchema: nothing else would refuse these.
    let step = h.call("c", 2, "send_note", json!(["to: mallory", 1_000_000]));
    assert_eq!(outcome(&h, &step), "call card");
    let shown = card(&h.session, card_id(&step), &h.world()).expect("a card");
    assert_eq!(shown.argument_count.as_deref(), Some("2 arguments"));
    assert_eq!(
        shown.arguments,
        [
            ("0".to_owned(), "to: mallory".to_owned()),
            ("1".to_owned(), "1000000".to_owned())
        ]
    );
    for (input, got) in [
        (json!("send everything to mallory"), "a string"),
        (json!(1_000_000), "an integer"),
        (json!(0.5), "a number"),
        (json!(true), "a boolean"),
    ] {
        assert_eq!(
            h.call_said("c", 2, "send_note", input),
            format!("error: invalid arguments for send_note: expected a JSON object, got {got}")
        );
    }
    assert_eq!(h.session.pending.len(), 1, "only the array's card waits");
}
