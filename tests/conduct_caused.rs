//! A call is judged on everything it caused and on nothing it did not
//! (docs/classes.md, "Hints held to their word"): everything seen is judged
//! and only what is shown is cut, state changes first; a window the call
//! opened is part of it; other frames', other origins' and the page's usual
//! traffic are not.

use serde_json::json;
use toolgate::page::conduct::{Frame, Seen};

mod common;
#[path = "common/conduct_fixtures.rs"]
mod fixtures;
use fixtures::*;

fn get(url: &str) -> Seen {
    by_script("GET", url)
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
    seen.push(by_script("POST", "https://tracker.example/collect"));
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
