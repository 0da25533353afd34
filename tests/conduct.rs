//! Hints held to their word (docs/classes.md): what a call's tab was seen
//! doing comes in as an event, a tool that broke its hints is flagged on its
//! site, and from then on each of its calls is confirmed, on every chat,
//! until the person clears it; a re-registration does not clear it.

use serde_json::{json, Value};
use toolgate::decisions::agent::{Run, Step, TabInfo};
use toolgate::page::conduct::{Frame, Seen, Watch, Witnessed};
use toolgate::toolgate::Toolgate;
use toolgate::views::palette::palette;

mod common;
use common::{frame, page};

const SITE: &str = "https://notes.example";

fn tools() -> Value {
    json!([
        {"op": "register", "decl": {"path": "document_object", "name": "list_notes", "description": "List notes",
            "annotations": {"readOnlyHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "pin_note", "description": "Pin a note",
            "annotations": {"readOnlyHint": false, "consequentialHint": false, "openWorldHint": false}}},
        {"op": "register", "decl": {"path": "document_object", "name": "send_note", "description": "Send a note",
            "annotations": {"consequentialHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "search_web", "description": "Search",
            "annotations": {"readOnlyHint": true, "untrustedContentHint": true}}},
    ])
}

fn core() -> Toolgate {
    let mut core = Toolgate::default();
    core.apply(page(frame(1, 0, "doc-1", SITE), tools()));
    core
}

fn tabs() -> Vec<TabInfo> {
    vec![TabInfo {
        id: 1,
        title: "Notes".into(),
        url: format!("{SITE}/"),
    }]
}

fn request(core: &mut Toolgate, chat: &str, id: i64, tool: &str) -> Step {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "browser_call_webmcp_tool",
        "arguments": {"tabId": 1, "name": tool, "arguments": {}}}});
    core.request(chat, &request.to_string(), Some(&tabs()), 0)
}

/// A chat that allowed all tools on the site, and its call of `tool`, run.
fn allowed_run(core: &mut Toolgate, chat: &str, tool: &str) -> Run {
    let step = request(core, chat, 1, tool);
    let step = match step {
        Step::Ask { card_id } => {
            let answer = serde_json::from_value(json!({"site": "allow_all"})).expect("answer");
            core.answer(card_id, answer, &tabs(), 0)
                .expect("answered")
                .step
        }
        step => step,
    };
    match step {
        Step::Run { run } => run,
        other => panic!("expected the call to run, got {other:?}"),
    }
}

fn post(path: &str) -> Seen {
    Seen::Request {
        method: "POST".into(),
        url: format!("{SITE}{path}"),
        kind: "xmlhttprequest".into(),
        together: false,
        frame: Frame::Tool,
        from: None,
        usual: false,
        other_tabs: false,
    }
}

fn observed(core: &mut Toolgate, run: &Run, seen: &[Seen]) -> Option<String> {
    let watch = run.watch.as_ref().expect("a Read only call is watched");
    core.observe(Some(run.call_id), watch, &witnessed(seen), false, 5)
        .map(|f| f.text)
}

/// `seen`, every one, as the worker would have seen it during a call.
fn witnessed(seen: &[Seen]) -> Witnessed {
    Witnessed::of(SITE, seen.iter().cloned())
}

fn reply(core: &mut Toolgate, run: &Run) -> Value {
    let text = core
        .finish(run.call_id, Some("\"ok\""), None, 1024, true, 0)
        .expect("a reply");
    serde_json::from_str(&text).expect("JSON")
}

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
    let get = Seen::Request {
        method: "GET".into(),
        url: format!("{SITE}/api/notes"),
        kind: "xmlhttprequest".into(),
        together: false,
        frame: Frame::Tool,
        from: None,
        usual: false,
        other_tabs: false,
    };
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

fn get(url: &str) -> Seen {
    Seen::Request {
        method: "GET".into(),
        url: url.into(),
        kind: "xmlhttprequest".into(),
        together: false,
        frame: Frame::Tool,
        from: None,
        usual: false,
        other_tabs: false,
    }
}

fn storage(area: &str, op: &str, key: &str) -> Seen {
    Seen::Storage {
        area: area.into(),
        op: op.into(),
        key: key.into(),
        together: false,
    }
}

#[test]
fn everything_seen_is_judged_and_only_what_is_shown_is_cut_state_changes_first() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "list_notes");
    let mut seen: Vec<Seen> = (0..100).map(|i| get(&format!("{SITE}/n/{i}"))).collect();
    seen.push(post("/api/notes/delete"));
    seen.push(storage("localStorage", "set", "hidden"));
    assert_eq!(
        observed(&mut core, &run, &seen).as_deref(),
        Some("said Read only; during a call it sent POST /api/notes/delete (and 1 more)")
    );
    let first = reply(&mut core, &run);
    let meta = &first["result"]["_meta"]["toolgate"];
    let told = meta["seen"].as_array().expect("told");
    assert_eq!(told.len(), 20);
    assert_eq!(told[0]["done"], "sent POST");
    assert_eq!(told[1]["done"], "wrote localStorage");
    assert_eq!(told[2]["to"], "/n/0");
    assert_eq!(meta["more_seen"], 82, "102 seen, 20 told");

    // An honest call of as many GETs: nothing flagged, the rest counted.
    let run = allowed_run(&mut core, "b", "search_web");
    let gets: Vec<Seen> = (0..25).map(|i| get(&format!("{SITE}/n/{i}"))).collect();
    assert_eq!(observed(&mut core, &run, &gets), None);
    let meta = reply(&mut core, &run)["result"]["_meta"]["toolgate"].clone();
    assert_eq!(meta["seen"].as_array().map(Vec::len), Some(20));
    assert_eq!(meta["more_seen"], 5);
    assert!(meta.get("broke").is_none());
}

#[test]
fn many_writes_on_its_own_site_do_not_hide_one_to_another_from_a_tool_that_stays_on_it() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "pin_note");
    let watch = run.watch.clone().expect("watched");
    let mut seen: Vec<Seen> = (0..50).map(|i| post(&format!("/pin/{i}"))).collect();
    seen.push(Seen::Request {
        method: "POST".into(),
        url: "https://tracker.example/collect".into(),
        kind: "xmlhttprequest".into(),
        together: false,
        frame: Frame::Tool,
        from: None,
        usual: false,
        other_tabs: false,
    });
    let flagged = core
        .observe(None, &watch, &witnessed(&seen), false, 5)
        .expect("flagged");
    assert_eq!(
        flagged.text,
        "said openWorldHint: false; during a call it sent POST https://tracker.example/collect"
    );
}

#[test]
fn a_window_the_call_opened_is_part_of_it_and_opening_one_by_get_changes_nothing() {
    let mut core = core();
    let opened = |method: &str, url: &str, kind: &str| Seen::Opened {
        method: method.into(),
        url: url.into(),
        kind: kind.into(),
        together: false,
    };
    let run = allowed_run(&mut core, "a", "list_notes");
    let honest = [
        opened("GET", &format!("{SITE}/opened.html"), "main_frame"),
        opened("GET", &format!("{SITE}/api/notes"), "xmlhttprequest"),
    ];
    assert_eq!(observed(&mut core, &run, &honest), None);
    let meta = reply(&mut core, &run)["result"]["_meta"]["toolgate"].clone();
    assert_eq!(meta["seen"][0]["done"], "opened a window at");
    assert_eq!(meta["seen"][0]["to"], "/opened.html");

    let run = allowed_run(&mut core, "a", "list_notes");
    let liar = [
        opened("GET", &format!("{SITE}/opened.html"), "main_frame"),
        opened(
            "POST",
            &format!("{SITE}/api/notes/delete"),
            "xmlhttprequest",
        ),
    ];
    assert_eq!(
        observed(&mut core, &run, &liar).as_deref(),
        Some("said Read only; during a call it opened a window that sent POST /api/notes/delete")
    );
}

#[test]
fn storage_too_large_to_compare_or_written_by_another_window_is_told_and_not_flagged() {
    let mut core = core();
    let run = allowed_run(&mut core, "a", "list_notes");
    let unchecked = [storage("localStorage", "unchecked", "")];
    assert_eq!(observed(&mut core, &run, &unchecked), None);
    let meta = reply(&mut core, &run)["result"]["_meta"]["toolgate"].clone();
    assert!(meta.get("broke").is_none());
    assert!(
        meta["seen"][0]["done"]
            .as_str()
            .is_some_and(|d| d.contains("Toolgate cannot tell")),
        "{meta}"
    );
    // Another window of the site wrote the key meanwhile: told, not judged.
    let run = allowed_run(&mut core, "a", "list_notes");
    let elsewhere = [storage("localStorage", "elsewhere", "heartbeat")];
    assert_eq!(observed(&mut core, &run, &elsewhere), None);
    let meta = reply(&mut core, &run)["result"]["_meta"]["toolgate"].clone();
    assert_eq!(
        meta["seen"][0]["done"],
        "wrote, or another window of the site wrote, localStorage"
    );
    // Too large to say which key, but its keys were more or fewer: written.
    let run = allowed_run(&mut core, "a", "list_notes");
    let changed = [storage("sessionStorage", "changed", "")];
    assert_eq!(
        observed(&mut core, &run, &changed).as_deref(),
        Some(
            "said Read only; during a call it changed sessionStorage (too large to say which key)"
        )
    );
}

/// A POST to `on`, sent by `frame`, started by `from`.
fn sent(on: &str, frame: Frame, from: &str) -> Seen {
    Seen::Request {
        method: "POST".into(),
        url: format!("{on}/api/x"),
        kind: "xmlhttprequest".into(),
        together: false,
        frame,
        from: Some(from.into()),
        usual: false,
        other_tabs: false,
    }
}

/// `seen`, known as the page's own traffic, or sent while its site was open in another tab.
fn marked(mut seen: Seen, is_usual: bool, in_other_tabs: bool) -> Seen {
    if let Seen::Request {
        usual, other_tabs, ..
    } = &mut seen
    {
        *usual = is_usual;
        *other_tabs = in_other_tabs;
    }
    seen
}

/// docs/classes.md, "What a call is judged on": what each frame and worker
/// sends, and who started it, decides whether a call caused it.
#[test]
fn a_call_is_judged_on_what_it_caused_and_nothing_else() {
    const SHOP: &str = "https://shop.example";
    let judged = |seen: Seen| {
        let mut core = core();
        let run = allowed_run(&mut core, "a", "list_notes");
        let flag = observed(&mut core, &run, &[seen]);
        let reply = reply(&mut core, &run);
        (flag, reply["result"]["_meta"]["toolgate"].clone())
    };
    // The call's: its frame's requests, a frame it holds (of its site, or
    // opaque), its site's worker's, a navigation of the tab its site started.
    for seen in [
        sent(SITE, Frame::Tool, SITE),
        sent(SITE, Frame::Child, SITE),
        sent(SITE, Frame::Child, "null"),
        sent(SITE, Frame::Worker, SITE),
        Seen::Request {
            method: "GET".into(),
            url: format!("{SITE}/next"),
            kind: "main_frame".into(),
            together: false,
            frame: Frame::Other,
            from: Some(SITE.into()),
            usual: false,
            other_tabs: false,
        },
    ] {
        let (flag, meta) = judged(seen.clone());
        assert!(flag.is_some(), "{seen:?}");
        assert!(meta["seen"][0].get("cannot_tell").is_none(), "{meta}");
    }
    // Not the call's: what another site's frame or worker sends, and a
    // navigation of the tool's frame another site started. Neither told nor judged.
    for seen in [
        sent(SHOP, Frame::Other, SHOP),
        sent(SITE, Frame::Other, SHOP),
        sent(SHOP, Frame::Child, SHOP),
        sent(SHOP, Frame::Worker, SHOP),
        sent(SITE, Frame::Tool, SHOP),
    ] {
        let (flag, meta) = judged(seen.clone());
        assert_eq!(flag, None, "{seen:?}");
        assert_eq!(meta["seen"], json!([]), "{seen:?}");
    }
    // Cannot tell: told with why, never flagged.
    let usual = marked(sent(SITE, Frame::Tool, SITE), true, false);
    let worker_elsewhere = marked(sent(SITE, Frame::Worker, SITE), false, true);
    for (seen, why) in [
        (usual, "the page sends it on its own too, outside calls"),
        (
            sent(SITE, Frame::Other, SITE),
            "another frame of the site sent it",
        ),
        (
            worker_elsewhere,
            "the site's service worker sent it while the site was open in another tab too",
        ),
    ] {
        let (flag, meta) = judged(seen.clone());
        assert_eq!(flag, None, "{seen:?}");
        assert_eq!(meta["seen"][0]["cannot_tell"], true, "{meta}");
        assert_eq!(meta["seen"][0]["why"], why, "{meta}");
        assert_eq!(meta["seen"][0]["to"], "/api/x", "{meta}");
    }
}
