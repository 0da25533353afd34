//! The site rules under an administrator's policy (docs/rules.md, "Who can
//! change the rules"): the person's rules bounded call by call by theirs,
//! read tool, area, kind on both sides; the changes a person may make; whose
//! rule a card and the set-apart page name.

use serde_json::json;
use toolgate::decisions::answers::{Answer, RuleAnswer, SiteAnswer};
use toolgate::decisions::rules::{site_tools, RuleBook, SeenTool};
mod common;
#[path = "common/harness.rs"]
mod harness;
use harness::*;

// The Notes example's kinds: list_notes Read; add_note and send_note Outside
// the site (their openWorldHint is left out); delete_note Delete.
fn rules(book: serde_json::Value) -> RuleBook {
    serde_json::from_value(book).expect("a rule book")
}

/// The Notes example with chat "c" allowing every tool on the remote site,
/// and the tools seen there.
fn allowed_all() -> (Harness, Vec<SeenTool>) {
    let mut h = Harness::new();
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    let seen = site_tools(&h.registry, REMOTE);
    (h, seen)
}

/// What the set-apart page says of tool `name` under `book`.
fn says(book: &RuleBook, seen: &[SeenTool], name: &str) -> String {
    let standings = book.standings(REMOTE, seen);
    let standing = standings.iter().find(|s| s.name == name).expect("listed");
    standing.says.clone()
}

#[test]
fn under_an_administrator_the_persons_rules_are_bounded_and_can_only_be_narrower() {
    use toolgate::decisions::rules::{Because, Change, Level, RuleError, RuleFacts, ToolKind};
    let h = Harness::new();
    let seen = site_tools(&h.registry, REMOTE);
    let changes = |value: serde_json::Value| -> Vec<Change> {
        serde_json::from_value(value).expect("changes")
    };
    let admin = rules(json!({"unattended": true, "sites": {REMOTE: {
        "read": "allowed", "write": "ask_first", "delete": "off", "outside": "ask_first", "tools": {"list_notes": "ask_first"},
    }}}));
    // The person's own book is wider; what holds is the narrower of the two.
    let own = rules(json!({"sites": {REMOTE: {
        "read": "allowed", "write": "allowed", "delete": "allowed", "outside": "off", "tools": {"list_notes": "allowed"},
    }}}));
    let held = own.bounded_by(&admin);
    let site = held.sites.get(REMOTE).expect("rules");
    let level = |name: &str| {
        let tool = seen.iter().find(|t| t.name == name).expect("seen");
        site.level(RuleFacts {
            name: &tool.name,
            area: &tool.area,
            kind: tool.kind,
            definition: &tool.definition,
        })
    };
    // list_notes: the administrator's Ask first for the tool, named as theirs;
    // add_note (Outside): the person's Off; delete_note: the administrator's Off.
    assert_eq!(
        level("list_notes"),
        (
            Level::AskFirst,
            Because::Tool {
                name: "list_notes".into(),
                admin: true
            }
        )
    );
    assert_eq!(
        level("add_note"),
        (
            Level::Off,
            Because::Kind {
                kind: ToolKind::Outside,
                admin: false
            }
        )
    );
    assert_eq!(
        level("delete_note"),
        (
            Level::Off,
            Because::Kind {
                kind: ToolKind::Delete,
                admin: true
            }
        )
    );
    // The set-apart page says whose rule holds.
    let says = |name: &str| says(&held, &seen, name);
    assert_eq!(
        says("delete_note"),
        "Off, by your administrator's rule for Delete tools"
    );
    assert_eq!(
        says("add_note"),
        "Off, by the rule for Outside the site tools"
    );
    assert!(held.unattended, "unattended if either says so");
    // A site only the administrator sets is held to the administrator's
    // rules, each of them theirs (a card names whose rule asks).
    let alone = RuleBook::default().bounded_by(&admin);
    let alone = alone.sites.get(REMOTE).expect("rules");
    assert_eq!(
        Some(&toolgate::decisions::rules::SiteRules {
            admin_alone: false,
            admin_owned_conditions: Default::default(),
            ..alone.clone()
        }),
        admin.sites.get(REMOTE)
    );
    assert!(alone.admin_alone);

    // Changes: Delete or Outside to Allowed, an area to Allowed, or allowing a
    // Delete tool are for the administrator alone; nor can a level be wider
    // than the administrator's; narrower is fine.
    let mut book = RuleBook::default();
    for refused in [
        json!([{"target": "kind", "kind": "delete", "level": "allowed"}]),
        json!([{"target": "kind", "kind": "outside", "level": "allowed"}]),
        json!([{"target": "area", "area": "add_note", "level": "allowed"}]),
        json!([{"target": "tool", "name": "delete_note", "level": "allowed"}]),
    ] {
        let error = book
            .change(REMOTE, &changes(refused.clone()), &seen, Some(&admin))
            .unwrap_err();
        assert!(
            matches!(error, RuleError::OwnersOnly { .. }),
            "{refused}: {error:?}"
        );
    }
    let error = book
        .change(
            REMOTE,
            &changes(json!([{"target": "kind", "kind": "write", "level": "allowed"}])),
            &seen,
            Some(&admin),
        )
        .unwrap_err();
    assert_eq!(error.to_string(), "Your administrator set this to Ask first; you can choose less, never more. Nothing was saved.");
    assert_eq!(book, RuleBook::default(), "nothing saved");
    book.change(
        REMOTE,
        &changes(json!([{"target": "kind", "kind": "write", "level": "off"}])),
        &seen,
        Some(&admin),
    )
    .expect("narrower is fine");
    // Unmanaged, the person is the owner.
    book.change(
        REMOTE,
        &changes(json!([{"target": "kind", "kind": "delete", "level": "allowed"}])),
        &seen,
        None,
    )
    .expect("the owner sets everything");
}

/// docs/rules.md, "Who can change the rules": the person's rules can only be
/// narrower than the administrator's, call by call. A tool set apart is not
/// wider than the administrator's rule for its kind (their Read Ask first
/// holds for a Read tool the person set to Allowed; their Delete Off for a
/// Delete tool the person set to Ask first), and a tool the administrator
/// set apart is not wider than the person's rule for its kind.
#[test]
fn a_tool_set_apart_is_never_wider_than_the_other_ones_rule_for_its_kind() {
    use toolgate::decisions::rules::Change;
    let (mut h, seen) = allowed_all();
    let admin = rules(json!({"sites": {REMOTE: {
        "read": "ask_first", "write": "allowed", "delete": "off", "outside": "allowed",
        "tools": {"add_note": "allowed"},
    }}}));
    let mut own = RuleBook::default();
    let changes: Vec<Change> = serde_json::from_value(json!([
        {"target": "kind", "kind": "outside", "level": "ask_first"},
        {"target": "tool", "name": "list_notes", "level": "allowed"},
        {"target": "tool", "name": "delete_note", "level": "ask_first"},
    ]))
    .expect("changes");
    own.change(REMOTE, &changes, &seen, Some(&admin))
        .expect("narrower than the administrator's, for what each sets");
    h.session.rules = own.bounded_by(&admin);
    let (step, shown) = h.rule_card("c", 1, "list_notes", json!({}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: your administrator's rule for tools that only look things up")
    );
    h.answer(card_id(&step), Answer::Rule(RuleAnswer::Refuse));
    assert_eq!(
        h.call_said("c", 1, "delete_note", json!({"id": "1"})),
        "Nothing ran: delete_note is Off on this site, by the administrator's rule for Delete tools."
    );
    // add_note (Outside): the administrator allows the tool, the person's
    // rule for Outside tools asks first.
    h.rule_card("c", 1, "add_note", json!({"title": "hi", "text": "hi"}));
}

/// docs/rules.md, "Who can change the rules": an administrator's rule for an
/// area, narrower than the person's rules for the tool, is named as theirs
/// on the rule's card (its line quotes the area as page text) and on the
/// set-apart page.
#[test]
fn an_administrators_area_rule_is_named_as_theirs() {
    use toolgate::views::text::Part;
    let (mut h, seen) = allowed_all();
    let admin = rules(json!({"sites": {REMOTE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed",
        "areas": {"list_notes": "ask_first"},
    }}}));
    let own = rules(json!({"sites": {REMOTE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed",
    }}}));
    let held = own.bounded_by(&admin);
    assert_eq!(
        says(&held, &seen, "list_notes"),
        "Ask first, by your administrator's rule for the area list_notes"
    );
    h.session.rules = held;
    let (_, shown) = h.rule_card("c", 1, "list_notes", json!({}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: your administrator's rule for the area list_notes")
    );
    let asks = shown
        .lines
        .iter()
        .find(|line| {
            matches!(line.0.first(), Some(Part::Toolgate(t)) if t.starts_with("It asks first"))
        })
        .expect("the line that says why it asks");
    assert_eq!(
        asks.0[..2],
        [
            Part::Toolgate(
                "It asks first because of your administrator's rule for the area ".into()
            ),
            Part::Page("list_notes".into()),
        ]
    );
}

/// docs/rules.md, "Who can change the rules": on a site the person set no
/// rules for, the administrator's rules are the site's, and a card, the
/// agent and the set-apart page name each of them as theirs: the kind's,
/// the area's and the tool's alike.
#[test]
fn on_a_site_the_person_set_no_rules_for_the_administrators_rules_are_named_as_theirs() {
    let (mut h, seen) = allowed_all();
    let admin = rules(json!({"sites": {REMOTE: {
        "read": "ask_first", "write": "allowed", "delete": "off", "outside": "allowed",
        "areas": {"send_note": "ask_first"},
        "tools": {"add_note": "off"},
    }}}));
    let held = RuleBook::default().bounded_by(&admin);
    let says = |name: &str| says(&held, &seen, name);
    assert_eq!(
        says("list_notes"),
        "Ask first, by your administrator's rule for Read tools"
    );
    assert_eq!(
        says("send_note"),
        "Ask first, by your administrator's rule for the area send_note"
    );
    assert_eq!(says("add_note"), "Off, set apart by your administrator");
    h.session.rules = held;
    let (_, shown) = h.rule_card("c", 1, "list_notes", json!({}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: your administrator's rule for tools that only look things up")
    );
    let (_, shown) = h.rule_card("c", 1, "send_note", json!({"id": "1"}));
    assert_eq!(
        shown.rule.as_deref(),
        Some("Ask first: your administrator's rule for the area send_note")
    );
    assert_eq!(
        h.call_said("c", 1, "delete_note", json!({"id": "1"})),
        "Nothing ran: delete_note is Off on this site, by the administrator's rule for Delete tools."
    );
}
