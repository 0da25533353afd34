//! Site rules ("What agents may do", docs/rules.md): kinds from hints,
//! levels and their order, areas and tools set apart, the limits, who may
//! change what, how a rule meets a chat, and the 10-minute windows on an
//! injected clock.

use serde_json::json;
use toolgate::decisions::rules::{
    area_of, ask_deadline, gate, Because, Gate, LateYeses, Level, Mode, RuleError, SameCall,
    SiteRules, ToolKind, ASK_WINDOW_MS, MAX_AREAS, MAX_AT_ONCE,
};
use toolgate::page::classify::Class;
use toolgate::page::declaration::HintState::{Absent, False, True};
#[path = "common/rule_fixtures.rs"]
mod fixtures;
use fixtures::*;

#[test]
fn kinds_come_from_the_class_and_the_destructive_and_open_world_hints() {
    assert_eq!(
        ToolKind::of(Class::ReadOnly, Absent, Absent),
        ToolKind::Read
    );
    assert_eq!(
        ToolKind::of(Class::Consequential, True, False),
        ToolKind::Delete
    );
    assert_eq!(
        ToolKind::of(Class::Consequential, True, Absent),
        ToolKind::Delete,
        "Delete before Outside"
    );
    assert_eq!(
        ToolKind::of(Class::Mutating, Absent, Absent),
        ToolKind::Outside,
        "openWorldHint left out is not false"
    );
    assert_eq!(
        ToolKind::of(Class::Mutating, False, True),
        ToolKind::Outside
    );
    assert_eq!(ToolKind::of(Class::Mutating, False, False), ToolKind::Write);
    assert_eq!(
        ToolKind::of(Class::Consequential, Absent, False),
        ToolKind::Write
    );
    let labels: Vec<_> = ToolKind::ALL.iter().map(|k| k.label()).collect();
    assert_eq!(labels, ["Read", "Write", "Delete", "Outside the site"]);
}

#[test]
fn an_area_is_the_first_tag_or_the_name_before_its_first_dot() {
    assert_eq!(area_of("notes.create", &[]), "notes");
    assert_eq!(
        area_of("notes.create", &["billing".into(), "x".into()]),
        "billing"
    );
    assert_eq!(area_of("search", &[]), "search");
    assert_eq!(
        area_of("a.b.c", &["".into()]),
        "a",
        "an empty tag is no area"
    );
}

#[test]
fn a_new_rule_set_allows_read_asks_before_write_and_outside_and_turns_delete_off() {
    let rules = SiteRules::default();
    let levels: Vec<_> = ToolKind::ALL.iter().map(|&k| rules.kind(k)).collect();
    assert_eq!(
        levels,
        [Level::Allowed, Level::AskFirst, Level::Off, Level::AskFirst]
    );
    let freely = SiteRules::read_freely();
    let levels: Vec<_> = ToolKind::ALL.iter().map(|&k| freely.kind(k)).collect();
    assert_eq!(
        levels,
        [
            Level::Allowed,
            Level::AskFirst,
            Level::AskFirst,
            Level::AskFirst
        ]
    );
    assert_eq!(
        [
            Level::Allowed.label(),
            Level::AskFirst.label(),
            Level::Off.label()
        ],
        ["Allowed", "Ask first", "Off"]
    );
}

#[test]
fn a_tools_own_level_comes_first_then_its_areas_then_its_kinds() {
    let mut rules = SiteRules::default();
    let t = tool("notes.create", "notes", ToolKind::Write);
    assert_eq!(
        rules.level(t),
        (
            Level::AskFirst,
            Because::Kind {
                kind: ToolKind::Write,
                admin: false,
            }
        )
    );
    rules
        .apply(
            &[area("notes", Some(Level::Allowed))],
            &toolgate::decisions::rules::Who::Owner,
            &seen,
        )
        .unwrap();
    assert_eq!(
        rules.level(t),
        (
            Level::Allowed,
            Because::Area {
                area: "notes".into(),
                admin: false,
            }
        )
    );
    rules
        .apply(
            &[one_tool("notes.create", Some(Level::Off))],
            &toolgate::decisions::rules::Who::Owner,
            &seen,
        )
        .unwrap();
    assert_eq!(
        rules.level(t),
        (
            Level::Off,
            Because::Tool {
                name: "notes.create".into(),
                admin: false
            }
        )
    );
    // Put back: "As its area and kind", then "As its kinds".
    rules
        .apply(
            &[one_tool("notes.create", None)],
            &toolgate::decisions::rules::Who::Owner,
            &seen,
        )
        .unwrap();
    assert_eq!(
        rules.level(t).1,
        Because::Area {
            area: "notes".into(),
            admin: false,
        }
    );
    rules
        .apply(
            &[area("notes", None)],
            &toolgate::decisions::rules::Who::Owner,
            &seen,
        )
        .unwrap();
    assert_eq!(
        rules.level(t),
        (
            Level::AskFirst,
            Because::Kind {
                kind: ToolKind::Write,
                admin: false,
            }
        )
    );
}

#[test]
fn past_the_limits_a_change_is_refused_whole_and_nothing_is_saved() {
    use toolgate::decisions::rules::Who::Owner;
    let mut rules = SiteRules::default();
    let too_many: Vec<_> = (0..=MAX_AT_ONCE)
        .map(|i| area(&format!("a{i}"), Some(Level::Off)))
        .collect();
    let before = rules.clone();
    let error = rules.apply(&too_many, &Owner, &seen).unwrap_err();
    assert_eq!(
        error,
        RuleError::TooManyAtOnce {
            given: MAX_AT_ONCE + 1
        }
    );
    assert!(error.to_string().ends_with("Nothing was saved."), "{error}");
    assert_eq!(rules, before);
    for batch in 0..MAX_AREAS / MAX_AT_ONCE {
        let changes: Vec<_> = (0..MAX_AT_ONCE)
            .map(|i| area(&format!("a{batch}-{i}"), Some(Level::Off)))
            .collect();
        rules.apply(&changes, &Owner, &seen).unwrap();
    }
    assert_eq!(rules.areas.len(), MAX_AREAS);
    let before = rules.clone();
    // One more area, and a kind in the same change: neither is saved.
    let error = rules.apply(
        &[
            kind(ToolKind::Read, Level::Off),
            area("one-more", Some(Level::Off)),
        ],
        &Owner,
        &seen,
    );
    assert_eq!(
        error,
        Err(RuleError::TooManyAreas {
            would_be: MAX_AREAS + 1
        })
    );
    assert_eq!(rules, before);
    // Changing one already set apart, or putting one back, is no new area.
    rules
        .apply(
            &[
                area("a0-0", Some(Level::Allowed)),
                area("a0-1", None),
                area("new", Some(Level::Off)),
            ],
            &Owner,
            &seen,
        )
        .unwrap();
    assert_eq!(rules.areas.len(), MAX_AREAS);
}

#[test]
fn only_tools_seen_on_the_site_can_be_set_apart() {
    let mut rules = SiteRules::default();
    let error = rules.apply(
        &[one_tool("unseen.thing", Some(Level::Off))],
        &toolgate::decisions::rules::Who::Owner,
        &seen,
    );
    assert_eq!(
        error,
        Err(RuleError::NotSeen {
            what: "unseen.thing".into()
        })
    );
    assert!(rules.tools.is_empty());
}

#[test]
fn under_an_administrator_a_person_can_choose_less_never_more() {
    use toolgate::decisions::rules::Who::{Managed, Owner};
    let mut admin = SiteRules::default();
    admin.areas.insert("billing".into(), Level::Off);
    let who = Managed {
        admin: Some(&admin),
    };
    let mut rules = SiteRules::default();
    for refused in [
        kind(ToolKind::Delete, Level::Allowed),
        kind(ToolKind::Outside, Level::Allowed),
        area("notes", Some(Level::Allowed)),
        one_tool("delete.note", Some(Level::Allowed)),
        one_tool("mail.send", Some(Level::Allowed)),
    ] {
        let error = rules
            .apply(std::slice::from_ref(&refused), &who, &seen)
            .unwrap_err();
        assert!(
            matches!(error, RuleError::OwnersOnly { .. }),
            "{refused:?}: {error:?}"
        );
    }
    // Wider than the admin's own level for the same row: Write is Ask first.
    let error = rules
        .apply(&[kind(ToolKind::Write, Level::Allowed)], &who, &seen)
        .unwrap_err();
    assert_eq!(error.to_string(), "Your administrator set this to Ask first; you can choose less, never more. Nothing was saved.");
    let error = rules
        .apply(&[area("billing", Some(Level::AskFirst))], &who, &seen)
        .unwrap_err();
    assert!(
        matches!(
            error,
            RuleError::WiderThanAdmin {
                admin: Level::Off,
                ..
            }
        ),
        "{error:?}"
    );
    // Narrower is fine, and a Write tool may be allowed by itself.
    rules
        .apply(
            &[
                kind(ToolKind::Write, Level::Off),
                one_tool("notes.edit", Some(Level::Allowed)),
            ],
            &who,
            &seen,
        )
        .unwrap();
    assert_eq!(rules.write, Level::Off);
    // The owner may set everything.
    rules
        .apply(
            &[
                kind(ToolKind::Delete, Level::Allowed),
                area("notes", Some(Level::Allowed)),
            ],
            &Owner,
            &seen,
        )
        .unwrap();
    assert_eq!(rules.delete, Level::Allowed);
}

#[test]
fn a_rule_bounds_the_chat_off_hides_ask_first_asks_allowed_lets_the_chat_decide() {
    let rules = SiteRules::default();
    let read = tool("notes.list", "notes", ToolKind::Read);
    let write = tool("notes.create", "notes", ToolKind::Write);
    let delete = tool("notes.delete", "notes", ToolKind::Delete);
    let attended = Mode::default();
    assert_eq!(gate(Some(&rules), read, attended), Gate::ChatDecides);
    assert_eq!(
        gate(Some(&rules), write, attended),
        Gate::AskFirst {
            because: Because::Kind {
                kind: ToolKind::Write,
                admin: false,
            }
        }
    );
    let Gate::Off { why } = gate(Some(&rules), delete, attended) else {
        panic!("Delete is Off")
    };
    assert_eq!(
        why,
        "Nothing ran: notes.delete is Off on this site, by the rule for Delete tools."
    );
    // A site from before follows the chat alone.
    assert_eq!(gate(None, delete, attended), Gate::ChatDecides);
}

#[test]
fn unattended_ask_first_acts_as_off_and_says_no_one_was_there_to_ask() {
    let rules = SiteRules::default();
    let unattended = Mode {
        unattended: true,
        ..Mode::default()
    };
    let Gate::Off { why } = gate(
        Some(&rules),
        tool("notes.create", "notes", ToolKind::Write),
        unattended,
    ) else {
        panic!("Ask first is Off unattended")
    };
    assert!(why.contains("no one was there to ask"), "{why}");
    assert_eq!(
        gate(
            Some(&rules),
            tool("notes.list", "notes", ToolKind::Read),
            unattended
        ),
        Gate::ChatDecides
    );
}

#[test]
fn a_chat_opened_read_only_has_every_tool_that_is_not_read_off() {
    let read_only = Mode {
        read_only_chat: true,
        ..Mode::default()
    };
    let rules = SiteRules {
        write: Level::Allowed,
        ..SiteRules::default()
    };
    assert!(matches!(
        gate(
            Some(&rules),
            tool("notes.create", "notes", ToolKind::Write),
            read_only
        ),
        Gate::Off { .. }
    ));
    for rules in [Some(&rules), None] {
        assert_eq!(
            gate(
                rules,
                tool("notes.list", "notes", ToolKind::Read),
                read_only
            ),
            Gate::ChatDecides
        );
    }
    // A site from before follows the chat, whose answers refuse the call
    // (tests/requests.rs, a_read_only_chat_sees_and_calls_only_read_only_tools).
    assert_eq!(
        gate(
            None,
            tool("notes.create", "notes", ToolKind::Write),
            read_only
        ),
        Gate::ChatDecides
    );
}

#[test]
fn a_late_yes_lets_the_same_call_run_once_within_ten_minutes() {
    let same = |chat: &str, site: &str, arguments: serde_json::Value| SameCall {
        chat: chat.into(),
        site: site.into(),
        tool: "notes.create".into(),
        definition: "sha256:1".into(),
        arguments: arguments.to_string(),
        flagged: false,
    };
    let mut yeses = LateYeses::default();
    let t0 = 1_000_000;
    assert_eq!(ask_deadline(t0), t0 + ASK_WINDOW_MS);
    yeses.grant(
        same("c", "https://a.example", json!({"title": "x", "body": "y"})),
        Vec::new(),
        t0,
    );
    assert!(
        yeses
            .take(
                &same("c", "https://a.example", json!({"title": "other"})),
                t0 + 1
            )
            .is_none(),
        "other arguments"
    );
    assert!(
        yeses
            .take(
                &same("c", "https://b.example", json!({"title": "x", "body": "y"})),
                t0 + 1
            )
            .is_none(),
        "another site"
    );
    assert!(
        yeses
            .take(
                &same("d", "https://a.example", json!({"title": "x", "body": "y"})),
                t0 + 1
            )
            .is_none(),
        "another chat"
    );
    // The same arguments in another order are the same call (kept sorted); it runs once.
    assert!(yeses
        .take(
            &same("c", "https://a.example", json!({"body": "y", "title": "x"})),
            t0 + 1
        )
        .is_some());
    assert!(yeses
        .take(
            &same("c", "https://a.example", json!({"title": "x", "body": "y"})),
            t0 + 2
        )
        .is_none());
    // Past ten minutes the yes is gone.
    yeses.grant(same("c", "https://a.example", json!({})), Vec::new(), t0);
    assert!(yeses
        .take(
            &same("c", "https://a.example", json!({})),
            t0 + ASK_WINDOW_MS
        )
        .is_none());
    assert!(yeses.is_empty());
}
