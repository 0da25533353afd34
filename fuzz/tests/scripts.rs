//! The decision target's driver on hand-written scripts, each after a
//! scenario of tests/hostile.rs, tests/toolgate.rs or docs/cards.md: each
//! must reach the steps it is about (cards shown and answered, calls run, a
//! restart compared), so a driver that silently does nothing fails here.
//! They are also the seeds of fuzz/corpus/decisions/: `cargo test --
//! --ignored write_seeds` writes them as the bytes the fuzzer reads.

use arbitrary::{Arbitrary, Unstructured};
use toolgate_fuzz::decisions::{run_counted, Act, CallSpec, Encode, OpSpec, Script, ToolSpec};

const EDIT: u8 = 0;
const READ: u8 = 1;
const WIPE: u8 = 2;
const NOTE: u8 = 3;
// Answers, by their index in `every_answer`.
const SITE_ONCE: u8 = 0;
const SITE_READ_ONLY: u8 = 1;
const SITE_ALL: u8 = 3;
const CALL_ONCE: u8 = 6;
const CALL_ALWAYS: u8 = 7;
const CALL_CLASS: u8 = 8;
const CALL_NEVER: u8 = 10;
const CALL_DENY_SITE: u8 = 11;

fn tool(tool: u8, path: u8, hints: [Option<bool>; 3], variant: u8) -> ToolSpec {
    let [read_only, consequential, idempotent] = hints;
    ToolSpec {
        tool,
        path,
        read_only,
        consequential,
        destructive: None,
        idempotent,
        variant,
        schema: false,
        skill: false,
    }
}

const READ_ONLY: [Option<bool>; 3] = [Some(true), None, None];
const MUTATING: [Option<bool>; 3] = [None, Some(false), None];
const IDEMPOTENT: [Option<bool>; 3] = [None, Some(false), Some(true)];
const CONSEQUENTIAL: [Option<bool>; 3] = [None, Some(true), None];

fn page(slot: u8, tools: Vec<ToolSpec>) -> Act {
    Act::Page {
        slot,
        ops: tools.into_iter().map(OpSpec::Register).collect(),
    }
}

fn spec(chat: u8, tab: u8, tool: u8, args: u8) -> CallSpec {
    CallSpec {
        chat,
        tab,
        tool,
        args,
        site: None,
    }
}

fn call(chat: u8, tab: u8, tool: u8, args: u8) -> Act {
    Act::Call(spec(chat, tab, tool, args))
}

/// Answers the oldest open card.
fn answer(answer: u8) -> Act {
    Act::Answer { card: 0, answer }
}

fn scripts() -> Vec<(&'static str, Script, [usize; 4])> {
    vec![
        (
            "both-cards-retry-restart",
            Script {
                acts: vec![
                    page(
                        0,
                        vec![
                            tool(EDIT, 0, IDEMPOTENT, 0),
                            tool(WIPE, 0, CONSEQUENTIAL, 0),
                        ],
                    ),
                    call(0, 0, EDIT, 1),
                    answer(SITE_READ_ONLY),
                    answer(CALL_ONCE),
                    // The immediate identical retry runs without a card.
                    call(0, 0, EDIT, 1),
                    Act::Finish {
                        call: 0,
                        ok: true,
                        taken: true,
                    },
                    Act::Restart {
                        probe: spec(0, 0, WIPE, 0),
                    },
                    answer(CALL_CLASS),
                    call(0, 0, WIPE, 0),
                ],
            },
            // asked, answered, ran, restarts
            [3, 3, 4, 1],
        ),
        (
            "changed-while-its-card-was-open",
            Script {
                acts: vec![
                    page(0, vec![tool(EDIT, 0, MUTATING, 0)]),
                    call(0, 0, EDIT, 0),
                    answer(SITE_READ_ONLY),
                    // The page registers `edit` again, changed, while its card is open.
                    page(0, vec![tool(EDIT, 0, MUTATING, 1)]),
                    answer(CALL_ALWAYS),
                    // Nothing was recorded: it asks again.
                    call(0, 0, EDIT, 0),
                    answer(CALL_ONCE),
                ],
            },
            [3, 3, 1, 0],
        ),
        (
            "always-allow-lapses-when-the-tool-changes",
            Script {
                acts: vec![
                    page(0, vec![tool(EDIT, 0, MUTATING, 0)]),
                    call(0, 0, EDIT, 0),
                    answer(SITE_READ_ONLY),
                    answer(CALL_ALWAYS),
                    call(0, 0, EDIT, 0),
                    // Registered again, changed: the "Always allow" lapses and it asks.
                    page(0, vec![tool(EDIT, 0, MUTATING, 2)]),
                    call(0, 0, EDIT, 0),
                    // Registered again unchanged (a reload): it keeps its "Always allow".
                    page(0, vec![tool(EDIT, 0, MUTATING, 2)]),
                    answer(CALL_ALWAYS),
                    page(0, vec![tool(EDIT, 0, MUTATING, 2)]),
                    call(0, 0, EDIT, 0),
                ],
            },
            [3, 3, 4, 0],
        ),
        (
            "one-name-on-both-objects",
            Script {
                acts: vec![
                    page(
                        0,
                        vec![
                            tool(EDIT, 1, MUTATING, 0),
                            tool(EDIT, 0, CONSEQUENTIAL, 0),
                            tool(WIPE, 0, CONSEQUENTIAL, 0),
                        ],
                    ),
                    call(0, 0, EDIT, 0),
                    answer(SITE_READ_ONLY),
                    answer(CALL_CLASS),
                    call(0, 0, WIPE, 0),
                ],
            },
            [3, 2, 1, 0],
        ),
        (
            "sandboxed-frames",
            Script {
                acts: vec![
                    page(2, vec![tool(WIPE, 0, CONSEQUENTIAL, 0)]),
                    page(3, vec![tool(WIPE, 0, CONSEQUENTIAL, 0)]),
                    call(0, 0, WIPE, 0),
                    // "Allow all tools" is not offered to a sandboxed frame.
                    answer(SITE_ALL),
                    answer(SITE_ONCE),
                    call(0, 1, WIPE, 0),
                    Act::CloseWindow { card: 0 },
                    call(0, 1, WIPE, 0),
                ],
            },
            [3, 2, 1, 0],
        ),
        (
            "requests-waiting-on-one-site-card",
            Script {
                acts: vec![
                    page(
                        0,
                        vec![tool(EDIT, 0, READ_ONLY, 0), tool(NOTE, 0, READ_ONLY, 0)],
                    ),
                    call(0, 0, EDIT, 0),
                    call(0, 0, NOTE, 0),
                    Act::List { chat: 0, tab: 0 },
                    // The first request goes; the next takes its card over.
                    Act::Withdraw {
                        chat: 0,
                        back: 2,
                        all: false,
                    },
                    answer(SITE_ONCE),
                    answer(SITE_READ_ONLY),
                    call(0, 0, EDIT, 0),
                ],
            },
            [2, 2, 2, 0],
        ),
        (
            "localhost-retry-and-never",
            Script {
                acts: vec![
                    page(
                        4,
                        vec![
                            tool(EDIT, 0, IDEMPOTENT, 0),
                            tool(WIPE, 0, CONSEQUENTIAL, 0),
                        ],
                    ),
                    call(1, 1, EDIT, 1),
                    // No site-wide refusal on localhost.
                    answer(CALL_DENY_SITE),
                    answer(CALL_ONCE),
                    Act::Tick { seconds: 10 },
                    call(1, 1, EDIT, 1),
                    call(1, 1, EDIT, 1),
                    answer(CALL_NEVER),
                    call(1, 1, EDIT, 1),
                    Act::Finish {
                        call: 0,
                        ok: false,
                        taken: false,
                    },
                    Act::Resend { back: 4 },
                ],
            },
            [2, 2, 2, 0],
        ),
        (
            "restart-mid-call",
            Script {
                acts: vec![
                    page(0, vec![tool(EDIT, 0, MUTATING, 0)]),
                    call(0, 0, EDIT, 0),
                    answer(SITE_ALL),
                    Act::Restart {
                        probe: spec(0, 0, EDIT, 2),
                    },
                    // The call the old worker ran: its reply says so; its late outcome reaches nobody.
                    Act::Resend { back: 1 },
                    Act::Finish {
                        call: 1,
                        ok: true,
                        taken: true,
                    },
                ],
            },
            [1, 1, 2, 1],
        ),
        (
            "read-only-chat-and-the-browsers-agent",
            Script {
                acts: vec![
                    Act::OpenChat {
                        chat: 1,
                        read_only: true,
                    },
                    page(
                        6,
                        vec![tool(NOTE, 0, MUTATING, 0), tool(READ, 0, READ_ONLY, 0)],
                    ),
                    call(1, 2, NOTE, 0),
                    call(1, 2, READ, 0),
                    page(0, vec![tool(EDIT, 0, MUTATING, 0)]),
                    Act::FrameCall {
                        chat: 2,
                        slot: 0,
                        spec: spec(0, 0, EDIT, 0),
                    },
                    answer(SITE_READ_ONLY),
                    answer(CALL_ALWAYS),
                    Act::FrameCall {
                        chat: 2,
                        slot: 0,
                        spec: spec(0, 0, EDIT, 0),
                    },
                ],
            },
            [2, 2, 3, 0],
        ),
    ]
}

fn encoded(script: &Script) -> Vec<u8> {
    let mut bytes = Vec::new();
    script.encode(&mut bytes);
    bytes
}

#[test]
fn each_script_reaches_what_it_is_about() {
    for (name, script, [asked, answered, ran, restarts]) in scripts() {
        let seen = run_counted(&script);
        assert_eq!(
            [seen.asked, seen.answered, seen.ran, seen.restarts],
            [asked, answered, ran, restarts],
            "{name}: {seen:?}"
        );
    }
}

#[test]
fn each_script_is_the_bytes_its_seed_holds() {
    for (name, script, _) in scripts() {
        let bytes = encoded(&script);
        let read = Script::arbitrary_take_rest(Unstructured::new(&bytes)).expect("read");
        assert_eq!(read, script, "{name}");
    }
}

#[test]
#[ignore = "writes fuzz/corpus/decisions/"]
fn write_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/decisions");
    std::fs::create_dir_all(&dir).expect("the corpus directory");
    for (name, script, _) in scripts() {
        std::fs::write(dir.join(format!("seed-{name}")), encoded(&script)).expect("a seed");
    }
}
