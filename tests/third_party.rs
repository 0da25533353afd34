//! Tools registered by other sites' scripts (docs/cards.md, "Tools
//! registered by other sites' scripts"; docs/rules.md): never inside a
//! chat's width, asked about once for a chat and a script's site, and the
//! site's rule for them, Ask first unless set, Off, or Allowed.

use serde_json::{json, Value};
use toolgate::decisions::agent::Step;
use toolgate::decisions::answers::{Answer, ScriptAnswer, SiteAnswer};
use toolgate::decisions::rules::{Change, Level, RuleBook, Target};
mod common;
#[path = "common/harness.rs"]
mod harness;
use common::{frame, page};
use harness::*;

/// The Notes tab on notes.example with three more tools: one a widget's
/// script from another site registered, one the site's own static host's
/// script, and one whose stack Toolgate could not see.
fn harness() -> Harness {
    let mut h = Harness::new();
    let script = |url: &str| json!([{"kind": "script", "url": url}]);
    let tool = |name: &str, scripts: Value| {
        json!({"op": "register", "decl": {"path": "document_object", "name": name, "description": "d",
            "annotations": {"readOnlyHint": true, "openWorldHint": false}, "scripts": scripts}})
    };
    let ops = json!([
        tool("widget_search", script("https://cdn.widgets.example/w.js")),
        tool(
            "widget_read",
            script("https://static.widgets.example/other.js")
        ),
        tool("own_search", script("https://static.notes.example/app.js")),
        tool("unseen", json!([{"kind": "unknown"}])),
    ]);
    h.registry
        .apply(page(frame(1, 1, "doc-widget", REMOTE), ops));
    // The same widget on the local Notes, in tab 2.
    let ops = json!([tool(
        "widget_local",
        script("https://cdn.widgets.example/w.js")
    )]);
    h.registry
        .apply(page(frame(2, 1, "doc-widget-2", LOCAL), ops));
    h
}

/// Runs what was let run, so that no call is left running.
fn said(h: &mut Harness, step: &Step) -> String {
    let said = outcome(h, step);
    if let Step::Run { run } = step {
        h.session
            .finish(run.call_id, Ok(&raw(&json!("ok"))), 1024, false, None, 0);
    }
    said
}

fn call(h: &mut Harness, chat: &str, tool: &str) -> String {
    let step = h.call(chat, 1, tool, json!({}));
    said(h, &step)
}

fn answer(h: &mut Harness, chat: &str, tool: &str, answer: ScriptAnswer) -> String {
    let step = h.call(chat, 1, tool, json!({}));
    assert_eq!(outcome(h, &step), "script card", "{tool} asks first");
    let after = h.answer(card_id(&step), Answer::Script(answer));
    said(h, &after)
}

fn listed(h: &mut Harness, chat: &str) -> Vec<String> {
    let step = h.send(
        chat,
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let Step::Reply { reply } = step else {
        panic!("not a listing: {step:?}")
    };
    reply.value()["result"]["structuredContent"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn a_chats_width_does_not_cover_another_sites_script_and_its_answer_holds_for_that_site_in_that_chat(
) {
    let mut h = harness();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    // The site's own tools, and its own static host's, run within the width.
    assert_eq!(call(&mut h, "c", "list_notes"), "run");
    assert_eq!(call(&mut h, "c", "own_search"), "run");
    // The widget's asks, whatever the chat allowed on notes.example.
    assert_eq!(call(&mut h, "c", "widget_search"), "script card");
    let card_step = h.call("c", 1, "widget_search", json!({}));
    let shown = card(&h.session, card_id(&card_step), &h.world()).expect("card");
    let lines: Vec<String> = shown.lines.iter().map(ToString::to_string).collect();
    assert!(lines.contains(
        &"The tool was registered by a script from cdn.widgets.example, not by notes.example."
            .to_owned()
    ));
    let menu: Vec<String> = shown.approve_menu.iter().map(|c| c.label.clone()).collect();
    assert_eq!(
        menu,
        ["Allow tools from widgets.example's scripts in this chat"]
    );
    h.answer(card_id(&card_step), Answer::Script(ScriptAnswer::DenyOnce));
    // Allowed for the chat: then the chat's answers apply, as for any tool,
    // to every tool of that script's site.
    assert_eq!(
        answer(&mut h, "c", "widget_search", ScriptAnswer::AllowForChat),
        "run"
    );
    assert_eq!(call(&mut h, "c", "widget_search"), "run");
    assert_eq!(call(&mut h, "c", "widget_read"), "run");
    // On any site the chat uses: the local Notes' widget (within its
    // width there, Read only on localhost).
    let step = h.call("c", 2, "widget_local", json!({}));
    assert_eq!(said(&mut h, &step), "run");
    // Not for a script Toolgate could not see, nor for another chat.
    assert_eq!(call(&mut h, "c", "unseen"), "script card");
    with_site_answer(&mut h, "d", SiteAnswer::AllowAll);
    assert_eq!(call(&mut h, "d", "widget_search"), "script card");
}

#[test]
fn allow_once_lets_one_call_run_and_a_denial_for_the_chat_refuses_and_hides_that_sites_tools() {
    let mut h = harness();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    assert_eq!(
        answer(&mut h, "c", "widget_search", ScriptAnswer::AllowOnce),
        "run"
    );
    assert_eq!(call(&mut h, "c", "widget_search"), "script card");
    assert!(listed(&mut h, "c").contains(&"widget_read".to_owned()));
    assert_eq!(
        answer(&mut h, "c", "widget_search", ScriptAnswer::DenyForChat),
        "refused: in this chat you denied tools from widgets.example's scripts"
    );
    assert_eq!(
        call(&mut h, "c", "widget_read"),
        "refused: widget_read on notes.example was registered by a script from static.widgets.example, and in this chat you denied tools from widgets.example's scripts"
    );
    let tools = listed(&mut h, "c");
    assert!(!tools.contains(&"widget_read".to_owned()), "{tools:?}");
    assert!(tools.contains(&"unseen".to_owned()) && tools.contains(&"list_notes".to_owned()));
}

/// The person's rules for notes.example with the level for other sites'
/// scripts, and the administrator's for every site.
fn rules(h: &mut Harness, own: Option<Level>, every_site: Option<Level>) {
    let mut book = RuleBook::default();
    let change = Change::level(Target::Scripts, own);
    book.change(REMOTE, &[change], &[], None)
        .expect("the change");
    let admin = RuleBook {
        scripts: every_site,
        ..RuleBook::default()
    };
    h.session.rules = book.bounded_by(&admin);
}

#[test]
fn the_sites_rule_turns_them_off_or_leaves_them_to_the_chat_and_an_administrator_bounds_it() {
    let mut h = harness();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    rules(&mut h, Some(Level::Off), None);
    assert_eq!(
        call(&mut h, "c", "widget_search"),
        "Nothing ran: widget_search on notes.example was registered by a script from cdn.widgets.example, and tools registered by other sites' scripts are Off on this site, by the rule for tools registered by other sites' scripts."
    );
    let tools = listed(&mut h, "c");
    assert!(
        !tools.iter().any(|t| t == "widget_search" || t == "unseen"),
        "{tools:?}"
    );
    assert!(tools.contains(&"own_search".to_owned()));
    // Allowed: the chat's width applies as to any tool.
    rules(&mut h, Some(Level::Allowed), None);
    assert_eq!(call(&mut h, "c", "widget_search"), "run");
    // An administrator's Off for every site holds over the person's Allowed.
    rules(&mut h, Some(Level::Allowed), Some(Level::Off));
    assert!(call(&mut h, "c", "unseen")
        .ends_with("by the administrator's rule for tools registered by other sites' scripts."));
    let admin = RuleBook {
        scripts: Some(Level::AskFirst),
        ..RuleBook::default()
    };
    let wider = Change::level(Target::Scripts, Some(Level::Allowed));
    let refused = RuleBook::default()
        .change(REMOTE, &[wider], &[], Some(&admin))
        .expect_err("wider than the administrator's");
    assert!(refused.to_string().contains("administrator"), "{refused}");
}

#[test]
fn unattended_nobody_is_asked_and_the_call_is_refused_in_words() {
    let mut h = harness();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    h.session.rules.unattended = true;
    assert_eq!(
        call(&mut h, "c", "widget_search"),
        "Nothing ran: widget_search on notes.example was registered by another site's script, which needs an answer on a card, and no one was there to ask (Toolgate runs unattended)."
    );
}
