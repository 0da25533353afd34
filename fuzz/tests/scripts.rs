//! The decision target's driver on hand-written scripts, each after a
//! scenario of tests/hostile.rs, tests/toolgate.rs or docs/cards.md: each
//! must reach the steps it is about (cards shown and answered, calls run, a
//! restart compared), so a driver that silently does nothing fails here.
//! They are also the seeds of fuzz/corpus/decisions/: `cargo test --
//! --ignored write_seeds` writes them as the bytes the fuzzer reads.

use arbitrary::{Arbitrary, Unstructured};
use toolgate_fuzz::decisions::{run_counted, Act, Encode, Script};
#[path = "scripts/acts.rs"]
mod acts;
#[path = "scripts/rules.rs"]
mod rules;
use acts::*;

fn scripts() -> Vec<(&'static str, Script, [usize; 4])> {
    let mut all = vec![
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
                        outcome: DONE,
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
                        outcome: THREW,
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
                        outcome: DONE,
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
        (
            // docs/cards.md, "After untrusted content": a chat that allowed
            // every tool on the site reads a result its tool marks untrusted;
            // each acting call then asks, on a card with no "always", even
            // its immediate identical retry, and after the worker stopped.
            "after-untrusted-content-each-acting-call-asks",
            Script {
                acts: vec![
                    page(0, vec![untrusted_reader(READ), tool(EDIT, 0, MUTATING, 0)]),
                    call(0, 0, EDIT, 0),
                    answer(SITE_ALL),
                    call(0, 0, READ, 0),
                    // The reader's result (the second call running).
                    Act::Finish {
                        call: 1,
                        outcome: DONE,
                        taken: true,
                    },
                    Act::Restart {
                        probe: spec(0, 0, EDIT, 0),
                    },
                    // Not offered: refused, the card stays.
                    answer(CALL_ALWAYS),
                    answer(CALL_ONCE),
                    call(0, 0, EDIT, 0),
                    answer(CALL_ONCE),
                    // Reading more asks nothing.
                    call(0, 0, READ, 0),
                ],
            },
            [3, 3, 5, 1],
        ),
        (
            // A result that speaks to the agent's model: the rule's own card
            // says so, and unattended such a call is refused.
            "after-untrusted-content-a-rule-card-says-so",
            Script {
                acts: vec![
                    page(
                        0,
                        vec![
                            kinded(EDIT, Kind::Write, UNTAGGED, 0),
                            kinded(READ, Kind::Read, UNTAGGED, 0),
                        ],
                    ),
                    rules(vec![kind_level(Kind::Write, ASK_FIRST)]),
                    call(0, 0, READ, 0),
                    answer(SITE_ALL),
                    Act::Finish {
                        call: 0,
                        outcome: ADDRESSED,
                        taken: true,
                    },
                    call(0, 0, EDIT, 0),
                    answer(RULE_ONCE),
                    Act::Unattended { on: true },
                    call(0, 0, EDIT, 0),
                ],
            },
            [2, 2, 2, 0],
        ),
        (
            // docs/classes.md, "What follows": a Read only tool seen writing
            // is flagged; its result is untrusted; each of its calls, on
            // every chat, is confirmed on a card that says so and offers
            // answers for that call only, also after the worker stopped.
            "a-tool-that-broke-its-hints-is-confirmed-per-call",
            Script {
                acts: vec![
                    page(0, vec![tool(READ, 0, READ_ONLY, 0)]),
                    call(0, 0, READ, 0),
                    answer(SITE_ALL),
                    Act::Observe {
                        call: 0,
                        sight: WRITES_OWN,
                    },
                    Act::Finish {
                        call: 0,
                        outcome: DONE,
                        taken: true,
                    },
                    call(0, 0, READ, 0),
                    // Not offered: refused, the card stays.
                    answer(CALL_ALWAYS),
                    answer(CALL_ONCE),
                    Act::Restart {
                        probe: spec(0, 0, READ, 0),
                    },
                    answer(CALL_ONCE),
                    // Another chat: the site question, then the call's card.
                    call(1, 0, READ, 0),
                    answer(SITE_ALL),
                    answer(CALL_ONCE),
                    // The person clears the flag: what the chat allowed holds again.
                    Act::ClearFlag { flag: 0 },
                    call(1, 0, READ, 0),
                ],
            },
            [5, 5, 5, 1],
        ),
        (
            // docs/agents.md: an ended chat's requests are refused, and it
            // cannot be opened again.
            "an-ended-chat-runs-nothing",
            Script {
                acts: vec![
                    page(0, vec![tool(READ, 0, READ_ONLY, 0)]),
                    call(0, 0, READ, 0),
                    answer(SITE_ALL),
                    Act::CloseChat { chat: 0 },
                    call(0, 0, READ, 0),
                    Act::OpenChat {
                        chat: 0,
                        read_only: false,
                    },
                    call(0, 0, READ, 0),
                ],
            },
            [1, 1, 1, 0],
        ),
    ];
    all.extend(rules::scripts());
    all
}

fn encoded(script: &Script) -> Vec<u8> {
    let mut bytes = Vec::new();
    script.encode(&mut bytes);
    bytes
}

#[test]
fn each_script_reaches_what_it_is_about() {
    for (name, script, [asked, answered, ran, restarts]) in scripts() {
        // Printed with a failure: which script broke.
        eprintln!("script {name}");
        let seen = run_counted(&script);
        assert_eq!(
            [seen.asked, seen.answered, seen.ran, seen.restarts],
            [asked, answered, ran, restarts],
            "{name}: {seen:?}"
        );
        // Rule cards opened, and calls a late yes ran.
        let rules = match name {
            "a-late-yes-holds-for-the-definition-its-card-showed" => [3, 1],
            "a-rule-card-meets-the-rule-of-its-answers-time" => [2, 0],
            "a-resent-request-waits-again-on-its-rule-card" => [1, 0],
            "a-condition-lets-small-calls-through" => [1, 0],
            "after-untrusted-content-a-rule-card-says-so" => [1, 0],
            "a-limit-asks-past-its-calls" => [1, 0],
            "an-administrators-kinds-hold-over-tools-set-apart" => [1, 0],
            "the-persons-and-the-administrators-limits-count-each-call-once" => [1, 0],
            "a-policy-set-after-the-persons-condition-bounds-it" => [1, 0],
            _ => [0, 0],
        };
        assert_eq!([seen.rule_asked, seen.late_ran], rules, "{name}: {seen:?}");
        // Results read as untrusted content, cards that said so, and
        // tools flagged.
        let untrusted = match name {
            "after-untrusted-content-each-acting-call-asks" => [1, 2, 0],
            "after-untrusted-content-a-rule-card-says-so" => [1, 1, 0],
            "a-tool-that-broke-its-hints-is-confirmed-per-call" => [1, 2, 1],
            _ => [0, 0, 0],
        };
        assert_eq!(
            [seen.untrusted_read, seen.warned, seen.flagged],
            untrusted,
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
