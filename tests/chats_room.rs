//! The room chats take in the stored session (ARCHITECTURE.md, "Budgets";
//! docs/agents.md, "Chats"): thousands of agents' chats that each read
//! untrusted content stay within their room, the person's answers and each
//! chat's record of what it read survive them and a worker's restart, a chat
//! whose record had to go is asked as one that read untrusted content, and a
//! new chat still starts clean.
//!
//! Storage is played as the browser plays it: the session is one string
//! under one key, and a write that would pass the session's share of
//! `chrome.storage.session` (the quota, less what pages and the pages' own
//! traffic may hold) fails, leaving what was stored before; a worker that
//! starts again reads that.

use serde_json::{json, Value};
use toolgate::decisions::agent::{Session, Step, World, CHATS, CHAT_BYTES, SESSION_BYTES};
use toolgate::decisions::answers::{Answer, SiteAnswer};
use toolgate::toolgate::Toolgate;
mod common;
#[path = "common/harness.rs"]
mod harness;
use harness::*;

/// What `chrome.storage.session` holds of the session.
#[derive(Default)]
struct Storage {
    stored: Option<String>,
    /// Writes the quota refused.
    failed: usize,
}

impl Storage {
    /// Stores the session as the shell does, if it changed.
    fn save(&mut self, session: &mut Session) {
        if let Some(text) = session.record().expect("serialises") {
            // The key, and what the browser counts beside a string
            // (ARCHITECTURE.md, "Budgets").
            if "session".len() + text.len() + 16 <= SESSION_BYTES {
                self.stored = Some(text);
            } else {
                self.failed += 1;
            }
        }
    }

    /// A new worker: the session read from what was stored.
    fn restart(&self, h: &mut Harness) {
        let tools: Vec<(String, String)> = Vec::new();
        let core = Toolgate::from_storage(tools, self.stored.as_deref()).expect("reads");
        h.session = core.session;
    }
}

/// A result that hides text: 300 tag characters, four bytes each, so that
/// its excerpt is as long as a chat keeps and as large as it can be.
fn hidden_text() -> Value {
    json!("\u{E0049}\u{E0067}\u{E006E}".repeat(100))
}

/// Chat `chat` reads a result that hides text, from the Read-only tool of
/// the localhost tab, which runs without a card.
fn read_hidden(h: &mut Harness, chat: &str) {
    h.next_id += 1;
    let request = json!({"jsonrpc": "2.0", "id": h.next_id, "method": "tools/call", "params":
        {"name": "browser_call_webmcp_tool", "arguments": {"tabId": 2, "name": "list_notes", "arguments": {}}}});
    let world = World {
        checking: Default::default(),
        registry: &h.registry,
        tabs: Some(&h.tabs),
        now_ms: h.now_ms,
    };
    let step = h.session.request(chat, &request.to_string(), &world);
    let Step::Run { run } = step else {
        panic!("{chat}'s read runs, got {step:?}")
    };
    h.now_ms += 1;
    h.session
        .finish(
            run.call_id,
            Ok(&raw(&hidden_text())),
            1 << 20,
            true,
            None,
            h.now_ms,
        )
        .expect("the call ran");
}

/// Agent `n`'s chat id: `prefix`, then `n`, made as long as an agent may
/// (`CHAT_ID_BYTES`, less a few).
fn flood_chat(prefix: &str, n: usize) -> String {
    format!("{prefix}{n:0>240}")
}

/// `count` agents' chats (`flood_chat`), each opened with a label of 100
/// quotes (200 bytes as stored) and reading a result that hides text;
/// stored after every hundred, as the shell stores.
fn flood(h: &mut Harness, storage: &mut Storage, prefix: &str, count: usize) {
    for n in 0..count {
        let chat = flood_chat(prefix, n);
        h.session
            .open_chat(&chat, &"\"".repeat(100), false)
            .expect("opens");
        read_hidden(h, &chat);
        if n % 100 == 99 {
            storage.save(&mut h.session);
        }
    }
    storage.save(&mut h.session);
}

/// What chat `chat`'s call of add_note, a Mutating tool, on tab `tab` comes
/// to: "run", "refused: ...", or the card it opens, "after untrusted" when
/// it says the chat read untrusted content.
fn acting(h: &mut Harness, chat: &str, tab: i64) -> String {
    let step = h.call(chat, tab, "add_note", json!({"title": "Pay Mallory"}));
    let said = outcome(h, &step);
    if said != "call card" {
        return said;
    }
    let shown = card(&h.session, card_id(&step), &h.world()).expect("a card");
    if shown.after_untrusted {
        "after untrusted".to_owned()
    } else {
        said
    }
}

#[test]
fn thousands_of_chats_that_read_untrusted_content_stay_within_their_room() {
    // (what each chat is, how many, its label, opened Read only, ended) —
    // ids and labels as long as an agent may make them.
    let quotes = "\"".repeat(100);
    let cases: [(&str, usize, Option<&str>, bool, bool); 4] = [
        ("mcp:", 3_000, Some(&quotes), false, false),
        ("ext:", 1_500, None, false, false),
        ("mcp:read-only-", 1_500, Some(&quotes), true, false),
        ("ext:ended-", 1_500, None, false, true),
    ];
    for (prefix, count, label, read_only, ended) in cases {
        let mut h = Harness::new();
        let mut storage = Storage::default();
        for n in 0..count {
            let chat = flood_chat(prefix, n);
            if label.is_some() || read_only {
                let label = label.unwrap_or("agent");
                h.session.open_chat(&chat, label, read_only).expect("opens");
            }
            read_hidden(&mut h, &chat);
            if ended {
                h.session.close_chat(&chat);
            }
            if n % 100 == 99 {
                storage.save(&mut h.session);
            }
        }
        storage.save(&mut h.session);
        let parts = h.session.stored_parts();
        assert!(parts.chat_count <= CHATS, "{prefix}: {parts:?}");
        assert!(parts.chats <= CHAT_BYTES, "{prefix}: {parts:?}");
        assert!(parts.total <= SESSION_BYTES, "{prefix}: {parts:?}");
        assert_eq!(storage.failed, 0, "{prefix}: every write fit");
        // The newest chat keeps what it read (an ended chat keeps nothing).
        let newest = flood_chat(prefix, count - 1);
        let kept = usize::from(!ended);
        assert_eq!(h.session.untrusted(&newest).len(), kept, "{prefix}");
        // The first was forgotten, and comes back as it was: having read
        // untrusted content, and Read only if it was.
        let first = flood_chat(prefix, 0);
        assert!(!h.session.answers.chats.contains_key(&first), "{prefix}");
        let said = acting(&mut h, &first, 2);
        if read_only {
            assert!(
                said.ends_with("this chat was opened Read only"),
                "{prefix}: {said}"
            );
        } else {
            assert_eq!(said, "after untrusted", "{prefix}");
        }
    }
}

#[test]
fn the_persons_answers_survive_a_flood_of_chats_and_a_restart() {
    // (chat, what the person answered after agents filled the session, the
    // tool its next call is of after a worker's restart, what it comes to).
    let cases = [
        (
            "p1",
            SiteAnswer::DenyForChat,
            "list_notes",
            "refused: list_notes on notes.example is denied in this chat",
        ),
        (
            "p2",
            SiteAnswer::DenyForChat,
            "add_note",
            "refused: add_note on notes.example is denied in this chat",
        ),
        ("p3", SiteAnswer::AllowNonConsequential, "add_note", "run"),
    ];
    let mut h = Harness::new();
    let mut storage = Storage::default();
    flood(&mut h, &mut storage, "mcp:", 3_000);
    for (chat, answer, _, _) in cases {
        let step = h.call(chat, 1, "list_notes", json!({}));
        assert_eq!(outcome(&h, &step), "site card");
        h.answer(card_id(&step), Answer::Site(answer));
        storage.save(&mut h.session);
    }
    flood(&mut h, &mut storage, "mcp:more-", 1_000);
    storage.restart(&mut h);
    for (chat, answer, tool, then) in cases {
        let said = h.call_said(chat, 1, tool, json!({"title": "Milk"}));
        assert_eq!(said, then, "{chat}: {answer:?}, then {tool}");
    }
}

#[test]
fn a_chat_whose_record_had_to_go_is_asked_as_after_untrusted_content() {
    let mut h = Harness::new();
    let mut storage = Storage::default();
    // One chat read untrusted content before the flood, one after it.
    read_hidden(&mut h, "early");
    storage.save(&mut h.session);
    flood(&mut h, &mut storage, "mcp:", 3_000);
    read_hidden(&mut h, "late");
    storage.save(&mut h.session);
    let early_kept = h.session.answers.chats.contains_key("early");
    storage.restart(&mut h);
    for chat in [
        "late",
        "early",
        &flood_chat("mcp:", 0),
        &flood_chat("mcp:", 2_999),
    ] {
        assert_eq!(acting(&mut h, chat, 2), "after untrusted", "{chat}");
    }
    assert!(!early_kept, "the early chat was forgotten");
    // The card says why for a chat whose record went.
    let step = h.call("early", 2, "add_note", json!({"title": "Milk"}));
    let shown = card(&h.session, card_id(&step), &h.world()).expect("a card");
    assert!(
        shown.untrusted[0]
            .to_string()
            .starts_with("Toolgate had to forget what this chat read"),
        "{:?}",
        shown.untrusted
    );
}

#[test]
fn a_new_chat_after_a_flood_starts_clean_and_keeps_its_answers() {
    let mut h = Harness::new();
    let mut storage = Storage::default();
    flood(&mut h, &mut storage, "mcp:", 3_000);
    for chat in ["fresh", "mcp:new", "console-1"] {
        with_site_answer(&mut h, chat, SiteAnswer::AllowNonConsequential);
        assert!(h.session.untrusted(chat).is_empty(), "{chat}");
        storage.save(&mut h.session);
    }
    storage.restart(&mut h);
    for chat in ["fresh", "mcp:new", "console-1"] {
        assert_eq!(acting(&mut h, chat, 1), "run", "{chat}");
        assert_eq!(acting(&mut h, chat, 2), "call card", "{chat}, on localhost");
    }
}

#[test]
fn an_honest_session_of_a_few_chats_is_kept_as_it_was() {
    let mut h = Harness::new();
    let mut storage = Storage::default();
    with_site_answer(&mut h, "a", SiteAnswer::AllowNonConsequential);
    with_site_answer(&mut h, "b", SiteAnswer::DenyForChat);
    read_hidden(&mut h, "c");
    read_hidden(&mut h, "a");
    h.session.open_chat("d", "Claude", true).expect("opens");
    h.session.close_chat("e");
    storage.save(&mut h.session);
    let before = storage.stored.clone().expect("stored");
    assert!(!before.contains("forgotten"), "{before}");
    assert!(!before.contains("\"lost\""), "{before}");
    let parts = h.session.stored_parts();
    // c, d (Read only is no answer of the person's) and e, which ended; a
    // and b hold answers of the person's.
    assert_eq!(parts.chat_count, 3, "{parts:?}");
    storage.restart(&mut h);
    assert_eq!(h.session.answers.chats.len(), 5);
    assert_eq!(h.session.untrusted("a").len(), 1);
    assert_eq!(h.session.untrusted("c").len(), 1);
    assert_eq!(acting(&mut h, "a", 1), "after untrusted");
    assert_eq!(acting(&mut h, "c", 2), "after untrusted");
    assert_eq!(
        h.call_said("b", 1, "list_notes", json!({})),
        "refused: list_notes on notes.example is denied in this chat"
    );
    assert_eq!(acting(&mut h, "f", 2), "call card");
    let said = acting(&mut h, "d", 2);
    assert!(said.ends_with("this chat was opened Read only"), "{said}");
}

#[test]
fn the_set_of_forgotten_chats_never_says_a_forgotten_chat_is_new() {
    use toolgate::decisions::untrusted::Forgotten;
    let mut forgotten = Forgotten::default();
    assert!(forgotten.is_empty());
    assert_eq!(serde_json::to_string(&forgotten).expect("writes"), "\"\"");
    let gone: Vec<String> = (0..20_000).map(|n| flood_chat("mcp:", n)).collect();
    for chat in &gone {
        forgotten.add(chat);
    }
    let text = serde_json::to_string(&forgotten).expect("writes");
    assert_eq!(
        text.len(),
        64 * 1024 + 2,
        "64 KB of text, whatever the count"
    );
    let read: Forgotten = serde_json::from_str(&text).expect("reads");
    assert_eq!(read, forgotten);
    assert!(gone.iter().all(|chat| read.holds(chat)));
    // New chats are taken for forgotten ones rarely, even after 20,000.
    let taken = (0..10_000)
        .filter(|n| read.holds(&format!("new-{n}")))
        .count();
    assert!(taken < 50, "{taken} of 10,000 new chats");
    assert!(serde_json::from_str::<Forgotten>("\"00ff\"").is_err());
}
