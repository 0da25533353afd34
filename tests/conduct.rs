//! Hints held to their word (docs/classes.md): what a call's tab was seen
//! doing comes in as an event, a tool that broke its hints is flagged on its
//! site, and from then on each of its calls is confirmed, on every chat,
//! until the person clears it; a re-registration does not clear it.
//! What counts as the call's own doing is in tests/conduct_caused.rs.

use serde_json::json;
use toolgate::decisions::agent::Step;
use toolgate::page::conduct::{Frame, Seen, Watch};
use toolgate::toolgate::Toolgate;
use toolgate::views::palette::palette;

mod common;
#[path = "common/conduct_fixtures.rs"]
mod fixtures;
use common::{frame, page};
use fixtures::*;

#[test]
fn a_read_only_tool_seen_posting_is_flagged_and_its_reply_says_what_was_seen() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "list_notes");
    let flag = observed(&mut core, &run, &[post("/api/notes/delete")]);
    assert_eq!(
        flag.as_deref(),
        Some("said Read only; during a call it sent POST /api/notes/delete")
    );
    let reply = reply(&mut core, &run);
    let meta = &reply["result"]["_meta"]["toolgate"];
    assert_eq!(meta["decision"], "run");
    assert_eq!(meta["seen"][0]["done"], "sent POST");
    assert_eq!(meta["seen"][0]["to"], "/api/notes/delete");
    assert_eq!(meta["broke"]["said"], "Read only");
    let entry = &palette(&core.registry, 1)[0].entries[0];
    assert_eq!(
        entry.broke.as_deref(),
        Some("said Read only; during a call it sent POST /api/notes/delete")
    );
}

#[test]
fn a_flagged_tool_is_confirmed_per_call_on_every_chat_and_its_card_says_why() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "list_notes");
    observed(&mut core, &run, &[post("/api/notes/delete")]).expect("flagged");
    reply(&mut core, &run);
    for chat in ["a", "b"] {
        let step = request(&mut core, chat, 2, "list_notes");
        let step = match step {
            // Chat b is asked the site question first, as any chat is.
            Step::Ask { card_id }
                if core.card(card_id, &tabs(), 0).expect("card").kind
                    == toolgate::decisions::answers::CardKind::Site =>
            {
                let answer = serde_json::from_value(json!({"site": "allow_all"})).expect("answer");
                core.answer(card_id, answer, &tabs(), 0)
                    .expect("answered")
                    .step
            }
            step => step,
        };
        let Step::Ask { card_id } = step else {
            panic!("{chat}: a flagged tool is confirmed per call, got {step:?}")
        };
        let card = core.card(card_id, &tabs(), 0).expect("the call card");
        assert_eq!(card.class, Some("Consequential"));
        let why = card
            .lines
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            why.contains("said Read only; during a call it sent POST /api/notes/delete"),
            "{why}"
        );
        let offered: Vec<String> = card
            .approve_menu
            .iter()
            .map(|c| c.label.to_string())
            .collect();
        assert!(
            offered.is_empty(),
            "no answer covers a later call: {offered:?}"
        );
        // "Always allow" is not taken either.
        let always = serde_json::from_value(json!({"call": "always_allow_tool"})).expect("answer");
        assert!(core.answer(card_id, always, &tabs(), 0).is_err());
        let once = serde_json::from_value(json!({"call": "allow_once"})).expect("answer");
        let step = core
            .answer(card_id, once, &tabs(), 0)
            .expect("answered")
            .step;
        assert!(
            matches!(step, Step::Run { .. }),
            "{chat}: allowed this once"
        );
    }
}

#[test]
fn a_re_registered_tool_keeps_its_flag_until_the_person_clears_it() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "list_notes");
    observed(&mut core, &run, &[post("/x")]).expect("flagged");
    reply(&mut core, &run);
    // The same definition again, then a changed one, in a new document.
    core.apply(page(frame(1, 0, "doc-2", SITE), tools()));
    let changed = json!([{"op": "register", "decl": {"path": "document_object", "name": "list_notes",
        "description": "List notes, honestly", "annotations": {"readOnlyHint": true, "openWorldHint": false}}}]);
    core.apply(page(frame(1, 0, "doc-3", SITE), changed));
    assert!(matches!(
        request(&mut core, "a", 3, "list_notes"),
        Step::Ask { .. }
    ));
    let record = core
        .clear_flag(SITE, Some("list_notes"))
        .expect("there was a flag");
    assert_eq!(record, r#"{"sites":{}}"#);
    assert!(core.clear_flag(SITE, Some("list_notes")).is_none());
    assert!(matches!(
        request(&mut core, "a", 4, "list_notes"),
        Step::Run { .. }
    ));
    // The record the shell stores brings the flag back in a new worker.
    let run = allowed_run(&mut core, "a", "list_notes");
    let flagged = core
        .observe(
            Some(run.call_id),
            run.watch.as_ref().expect("watched"),
            &witnessed(&[post("/x")]),
            false,
            5,
        )
        .expect("flagged");
    let mut again = Toolgate::default();
    again.apply(page(frame(1, 0, "doc-1", SITE), tools()));
    again.set_flags(&flagged.record).expect("a record of flags");
    assert!(palette(&again.registry, 1)[0].entries[0].broke.is_some());
}

#[test]
fn an_honest_read_only_call_and_a_consequential_one_are_never_flagged() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "list_notes");
    let get = by_script("GET", &format!("{SITE}/api/notes"));
    assert_eq!(observed(&mut core, &run, &[get]), None);
    let reply = reply(&mut core, &run);
    assert_eq!(
        reply["result"]["_meta"]["toolgate"]["seen"][0]["done"],
        "sent GET"
    );
    assert!(reply["result"]["_meta"]["toolgate"].get("broke").is_none());
    // A Consequential tool promises nothing a call could break: not watched.
    let run = allowed_run(&mut core, "a", "send_note");
    assert_eq!(run.watch, None);
}

#[test]
fn a_tool_that_stays_on_its_site_seen_reaching_another_is_flagged_off_site() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "pin_note");
    let watch: &Watch = run.watch.as_ref().expect("openWorldHint: false is watched");
    assert!(!watch.read_only && watch.stays_on_site);
    // Its own site's writes are what a Mutating tool does.
    assert!(core
        .observe(
            Some(run.call_id),
            watch,
            &witnessed(&[post("/pin")]),
            false,
            5
        )
        .is_none());
    let mut away = Seen::Request {
        method: "POST".into(),
        url: "https://tracker.example/collect".into(),
        kind: "ping".into(),
        together: true,
        frame: Frame::Tool,
        from: None,
        usual: false,
        other_tabs: false,
    };
    // Seen while another call ran in the tab: Toolgate cannot tell which
    // did it, so it says so and flags neither (docs/classes.md, "Two calls at once").
    assert_eq!(
        core.observe(None, watch, &witnessed(&[away.clone()]), true, 5),
        None
    );
    let run = allowed_run(&mut core, "b", "pin_note");
    let watch = run.watch.as_ref().expect("watched");
    assert_eq!(
        core.observe(
            Some(run.call_id),
            watch,
            &witnessed(&[away.clone()]),
            true,
            5
        ),
        None
    );
    let meta = reply(&mut core, &run)["result"]["_meta"]["toolgate"].clone();
    assert_eq!(meta["seen"][0]["cannot_tell"], true, "{meta}");
    assert_eq!(
        meta["seen"][0]["why"],
        "another call ran in the tab at the same time"
    );
    assert!(meta.get("broke").is_none(), "{meta}");
    let Seen::Request { together, .. } = &mut away else {
        unreachable!()
    };
    *together = false;
    let flagged = core
        .observe(None, watch, &witnessed(&[away]), false, 5)
        .expect("flagged");
    assert_eq!(
        flagged.text,
        "said openWorldHint: false; during a call it sent a beacon, POST https://tracker.example/collect"
    );
    let entry = &palette(&core.registry, 1)[0].entries[1];
    assert!(entry
        .badges
        .iter()
        .any(|b| serde_json::to_value(b).expect("JSON") == "off-site"));
}

#[test]
fn storage_writes_navigations_and_untrusted_content_in_the_reply() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "search_web");
    let seen = [
        Seen::Storage {
            area: "localStorage".into(),
            op: "set".into(),
            key: "last".into(),
            together: false,
        },
        Seen::Request {
            method: "GET".into(),
            url: format!("{SITE}/elsewhere"),
            kind: "main_frame".into(),
            together: false,
            frame: Frame::Tool,
            from: None,
            usual: false,
            other_tabs: false,
        },
    ];
    assert_eq!(
        observed(&mut core, &run, &seen).as_deref(),
        Some("said Read only; during a call it wrote localStorage last (and 1 more)")
    );
    let reply = reply(&mut core, &run);
    let meta = &reply["result"]["_meta"]["toolgate"];
    assert_eq!(meta["untrusted_content"], true);
    assert_eq!(meta["seen"][1]["done"], "navigated the tab to");
}

#[test]
fn unattended_a_flagged_tool_the_sites_rule_allows_is_refused_and_told_why() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "list_notes");
    observed(&mut core, &run, &[post("/x")]).expect("flagged");
    reply(&mut core, &run);
    let rules = json!({"unattended": true, "sites": {SITE: {"read": "allowed", "write": "allowed", "delete": "allowed", "outside": "allowed"}}});
    core.set_rules(&rules.to_string(), "null").expect("rules");
    let Step::Reply { reply } = request(&mut core, "ci", 9, "list_notes") else {
        panic!("refused")
    };
    let text = reply.value()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(
        text.contains("said Read only; during a call it sent POST /x"),
        "{text}"
    );
    assert!(text.contains("no one was there to ask"), "{text}");
}

/// docs/cards.md, "What counts as untrusted": a tool flagged while a call of
/// it ran in another chat (by another call's conduct) is flagged when that
/// call ends, so its result is untrusted content for its chat; a call of an
/// honest tool ending at the same time is not.
#[test]
fn a_result_of_a_tool_flagged_while_its_call_ran_is_untrusted() {
    let mut core = core();
    let liar = allowed_run(&mut core, "a", "list_notes");
    // The same tool in another chat, with other arguments (an identical
    // Read only call would attach to the running one).
    let honest = allowed_run(&mut core, "b", "pin_note");
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "browser_call_webmcp_tool",
        "arguments": {"tabId": 1, "name": "list_notes", "arguments": {"page": 2}}}});
    let Step::Run { run: other } = core.request("b", &request.to_string(), Some(&tabs()), 0) else {
        panic!("runs")
    };
    observed(&mut core, &liar, &[post("/x")]).expect("flagged");
    let reply = reply(&mut core, &other);
    let meta = &reply["result"]["_meta"]["toolgate"];
    assert_eq!(meta["result_untrusted"]["because"], "flagged", "{meta}");
    let honest = self::reply(&mut core, &honest);
    assert!(
        honest["result"]["_meta"]["toolgate"]
            .get("result_untrusted")
            .is_none(),
        "{honest}"
    );
}

/// docs/classes.md, "What follows": a yes given on a rule card after its
/// agent stopped waiting (kept for the same call) was given before the tool
/// was flagged; it does not run the flagged tool, which is asked about again.
#[test]
fn a_late_yes_given_before_a_flag_does_not_run_the_flagged_tool() {
    let mut core = core();
    let rules = json!({"sites": {SITE: {"read": "allowed", "write": "ask_first", "delete": "off", "outside": "ask_first"}}});
    core.set_rules(&rules.to_string(), "null").expect("rules");
    let rule_yes = |core: &mut Toolgate, chat: &str, id: i64| {
        let Step::Ask { card_id } = request(core, chat, id, "pin_note") else {
            panic!("the rule asks first")
        };
        if chat == "a" {
            // Its agent stops waiting: the yes is kept for its same call.
            core.withdraw(chat, Some(&json!(id)));
        }
        let answer = serde_json::from_value(json!({"rule": "allow_once"})).expect("answer");
        core.answer(card_id, answer, &tabs(), 0)
            .expect("answered")
            .step
    };
    assert!(matches!(rule_yes(&mut core, "a", 1), Step::Reply { .. }));
    // Another chat's call of the tool reaches another site: flagged.
    let Step::Run { run } = rule_yes(&mut core, "b", 2) else {
        panic!("runs")
    };
    let away = by_script("GET", "https://tracker.example/collect");
    observed(&mut core, &run, &[away]).expect("flagged");
    reply(&mut core, &run);
    assert!(
        matches!(request(&mut core, "a", 3, "pin_note"), Step::Ask { .. }),
        "asked about again, not run on the yes given before the flag"
    );
}
