//! The hand-written scripts about a site's rules (docs/rules.md): levels,
//! areas, conditions, rule cards and their late yeses, unattended mode.
//! scripts.rs runs them with the others.

use super::acts::*;
use toolgate_fuzz::decisions::{
    Act, ConditionSpec, LimitSpec, PolicyLimit, Script, TargetSpec, ToolSpec,
};

/// EDIT, with a schema, set apart at Ask first, and Allowed when x is at
/// most 1.
fn edit_allowed_up_to_one() -> Vec<Act> {
    vec![
        page(
            0,
            vec![ToolSpec {
                schema: true,
                ..kinded(EDIT, Kind::Write, UNTAGGED, 0)
            }],
        ),
        rules(vec![tool_level(EDIT, ASK_FIRST)]),
        Act::Conditions {
            site: 0,
            tool: EDIT,
            conditions: vec![ConditionSpec {
                op: 0,
                value: 1,
                allow: true,
            }],
        },
    ]
}

pub fn scripts() -> Vec<(&'static str, Script, [usize; 4])> {
    vec![
        (
            // Issue 26, attack 8: `note`, set apart as Allowed, registered
            // again as a Delete tool, follows "Delete: Off".
            "a-tool-changes-its-kind-under-its-own-rule",
            Script {
                acts: vec![
                    page(0, vec![kinded(NOTE, Kind::Write, UNTAGGED, 0)]),
                    rules(vec![tool_level(NOTE, ALLOWED)]),
                    call(0, 0, NOTE, 0),
                    answer(SITE_ALL),
                    page(0, vec![kinded(NOTE, Kind::Delete, UNTAGGED, 0)]),
                    call(0, 0, NOTE, 0),
                ],
            },
            [1, 1, 1, 0],
        ),
        (
            // Conditions on the arguments (docs/rules.md): EDIT set apart at
            // Ask first, Allowed when x is at most 1. {"x": 1} runs once the
            // site is answered; {"x": "one"} is refused by the schema before
            // any condition; {} holds no test, and asks on the rule's card.
            "a-condition-lets-small-calls-through",
            Script {
                acts: [
                    edit_allowed_up_to_one(),
                    vec![
                        call(0, 0, EDIT, 1),
                        answer(SITE_ALL),
                        call(0, 0, EDIT, 2),
                        call(0, 0, EDIT, 3),
                        answer(RULE_ONCE),
                    ],
                ]
                .concat(),
            },
            [2, 2, 2, 0],
        ),
        (
            // Attack 9: the area "search" held Read tools when set to
            // Allowed; a Delete tool tagged "search" later follows "Delete: Off".
            "a-tag-carries-a-tool-into-an-area",
            Script {
                acts: vec![
                    page(0, vec![kinded(READ, Kind::Read, SEARCH, 0)]),
                    rules(vec![area_level(SEARCH, ALLOWED)]),
                    page(0, vec![kinded(WIPE, Kind::Delete, SEARCH, 0)]),
                    call(0, 0, READ, 0),
                    answer(SITE_ALL),
                    call(0, 0, WIPE, 0),
                ],
            },
            [1, 1, 1, 0],
        ),
        (
            // Attack 10: a yes given after the agent stopped waiting runs
            // its same call once, of the definition its card showed only.
            "a-late-yes-holds-for-the-definition-its-card-showed",
            Script {
                acts: vec![
                    page(0, vec![kinded(EDIT, Kind::Write, UNTAGGED, 0)]),
                    rules(vec![kind_level(Kind::Write, ASK_FIRST)]),
                    call(0, 0, EDIT, 1),
                    stop_waiting(),
                    answer(RULE_ONCE),
                    // Registered again, changed: the yes is another tool's.
                    page(0, vec![kinded(EDIT, Kind::Write, UNTAGGED, 1)]),
                    call(0, 0, EDIT, 1),
                    stop_waiting(),
                    answer(RULE_ONCE),
                    // The yes for what it is now runs it, once.
                    call(0, 0, EDIT, 1),
                    call(0, 0, EDIT, 1),
                    // Nobody answers within 10 minutes: the card closes.
                    Act::Later { minutes: 11 },
                ],
            },
            [3, 2, 1, 0],
        ),
        (
            // A tool set apart that changed follows its area's level; a
            // tool of a kind new in the area follows its kind's.
            "a-changed-tool-follows-its-area-then-its-kind",
            Script {
                acts: vec![
                    page(
                        0,
                        vec![
                            kinded(NOTES_ADD, Kind::Write, UNTAGGED, 0),
                            kinded(NOTE, Kind::Write, NOTES, 0),
                        ],
                    ),
                    rules(vec![
                        kind_level(Kind::Write, ALLOWED),
                        area_level(NOTES, OFF),
                        tool_level(NOTES_ADD, ALLOWED),
                    ]),
                    call(0, 0, NOTES_ADD, 0),
                    answer(SITE_ALL),
                    call(0, 0, NOTE, 0),
                    // Changed: its own "Allowed" lapses, and the area's Off holds.
                    page(0, vec![kinded(NOTES_ADD, Kind::Write, UNTAGGED, 1)]),
                    call(0, 0, NOTES_ADD, 0),
                    // Now an Outside tool, new in the area: its kind's level.
                    rules(vec![kind_level(Kind::Outside, ALLOWED)]),
                    page(0, vec![kinded(NOTES_ADD, Kind::Outside, UNTAGGED, 1)]),
                    call(0, 0, NOTES_ADD, 0),
                ],
            },
            [1, 1, 2, 0],
        ),
        (
            // A rule card's yes meets the rule as it is when answered, and
            // rule cards and late yeses outlive a restart.
            "a-rule-card-meets-the-rule-of-its-answers-time",
            Script {
                acts: vec![
                    page(0, vec![kinded(WIPE, Kind::Delete, UNTAGGED, 0)]),
                    rules(vec![kind_level(Kind::Delete, ASK_FIRST)]),
                    call(0, 0, WIPE, 0),
                    Act::Restart {
                        probe: spec(1, 0, WIPE, 0),
                    },
                    rules(vec![kind_level(Kind::Delete, OFF)]),
                    answer(RULE_ONCE),
                    rules(vec![kind_level(Kind::Delete, ASK_FIRST)]),
                    answer(RULE_ONCE),
                ],
            },
            [2, 2, 1, 1],
        ),
        (
            // Found by the fuzzer: a site card's "Allow once" for a tool the
            // page changed since, where the rule now asks first, opened a
            // rule card for the tool as it no longer was.
            "a-tool-changed-on-the-chats-card-meets-a-rule",
            Script {
                acts: vec![
                    page(0, vec![kinded(EDIT, Kind::Write, UNTAGGED, 0)]),
                    rules(vec![tool_level(EDIT, ALLOWED)]),
                    call(0, 0, EDIT, 0),
                    page(0, vec![kinded(EDIT, Kind::Outside, UNTAGGED, 0)]),
                    answer(SITE_ONCE),
                ],
            },
            [1, 1, 0, 0],
        ),
        (
            // An agent that stopped waiting on a rule card and sends its
            // request again waits on it again: a yes then runs it now.
            "a-resent-request-waits-again-on-its-rule-card",
            Script {
                acts: vec![
                    page(0, vec![kinded(EDIT, Kind::Write, UNTAGGED, 0)]),
                    rules(vec![kind_level(Kind::Write, ASK_FIRST)]),
                    call(0, 0, EDIT, 1),
                    stop_waiting(),
                    Act::Resend { back: 0 },
                    answer(RULE_ONCE),
                ],
            },
            [1, 1, 1, 0],
        ),
        (
            "unattended-ask-first-is-off",
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
                    Act::Unattended { on: true },
                    call(0, 0, READ, 0),
                    call(0, 0, EDIT, 0),
                ],
            },
            [0, 0, 1, 0],
        ),
        (
            // docs/rules.md, "Limits on how often": a tool the rules allow,
            // at most 1 call a minute: the chat's second call within the
            // minute asks on a rule card; a minute later one runs again
            // without; unattended, the next is refused.
            "a-limit-asks-past-its-calls",
            Script {
                acts: vec![
                    page(0, vec![kinded(READ, Kind::Read, UNTAGGED, 0)]),
                    limit(TargetSpec::Tool(READ), 1),
                    call(0, 0, READ, 0),
                    answer(SITE_ALL),
                    call(0, 0, READ, 0),
                    answer(RULE_ONCE),
                    Act::Later { minutes: 1 },
                    call(0, 0, READ, 0),
                    Act::Unattended { on: true },
                    call(0, 0, READ, 0),
                ],
            },
            [2, 2, 3, 0],
        ),
        (
            // docs/rules.md, "Who can change the rules": under the
            // administrator's Read Ask first and Delete Off, a Read tool the
            // person set to Allowed still asks, and a Delete tool they set
            // to Ask first stays Off.
            "an-administrators-kinds-hold-over-tools-set-apart",
            Script {
                acts: vec![
                    page(
                        0,
                        vec![
                            kinded(READ, Kind::Read, UNTAGGED, 0),
                            kinded(WIPE, Kind::Delete, UNTAGGED, 0),
                        ],
                    ),
                    policy(vec![
                        kind_level(Kind::Read, ASK_FIRST),
                        kind_level(Kind::Delete, OFF),
                    ]),
                    rules(vec![tool_level(READ, ALLOWED), tool_level(WIPE, ASK_FIRST)]),
                    call(0, 0, READ, 0),
                    answer(RULE_ONCE),
                    call(0, 0, WIPE, 0),
                ],
            },
            [1, 1, 1, 0],
        ),
        (
            // docs/rules.md, "Limits on how often": the person's limit of 2
            // calls a minute and the administrator's of 3 on the same tool
            // count each call once: the second call runs, the third asks.
            "the-persons-and-the-administrators-limits-count-each-call-once",
            Script {
                acts: vec![
                    page(0, vec![kinded(READ, Kind::Read, UNTAGGED, 0)]),
                    Act::Policy {
                        site: 0,
                        levels: Vec::new(),
                        conditions: Vec::new(),
                        limits: vec![PolicyLimit {
                            target: TargetSpec::Tool(READ),
                            every: LimitSpec {
                                calls: 2,
                                window: 0,
                            },
                        }],
                        unattended: false,
                    },
                    limit(TargetSpec::Tool(READ), 2),
                    call(0, 0, READ, 0),
                    answer(SITE_ALL),
                    call(0, 0, READ, 0),
                    call(0, 0, READ, 0),
                    answer(RULE_ONCE),
                ],
            },
            [2, 2, 3, 0],
        ),
        (
            // docs/rules.md, "Who can change the rules": the person's
            // condition lets {"x": 1} through; a policy set later, with EDIT
            // at Ask first, asks for the same call.
            "a-policy-set-after-the-persons-condition-bounds-it",
            Script {
                acts: [
                    edit_allowed_up_to_one(),
                    vec![
                        call(0, 0, EDIT, 1),
                        answer(SITE_ALL),
                        policy(vec![tool_level(EDIT, ASK_FIRST)]),
                        call(0, 0, EDIT, 1),
                        answer(RULE_ONCE),
                    ],
                ]
                .concat(),
            },
            [2, 2, 2, 0],
        ),
    ]
}
