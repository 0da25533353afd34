//! Site rules set apart (docs/rules.md, "A rule holds for what you saw",
//! "Set areas and tools apart"): a tool's own level holds for the definition
//! the person saw, an area's for the kinds it held, and either can be
//! changed and put back when no tab publishes it any more.

use toolgate::decisions::rules::{Because, Level, RuleError, RuleFacts, SiteRules, ToolKind};
#[path = "common/rule_fixtures.rs"]
mod fixtures;
use fixtures::*;

/// docs/rules.md, "A rule holds for what you saw": a tool set apart holds
/// for the definition it was set for, an area for the kinds it held; what
/// changed or joined later follows its area's and kind's level.
#[test]
fn a_rule_set_apart_holds_for_the_definition_and_the_kinds_the_person_saw() {
    use toolgate::decisions::rules::{RuleBook, SeenTool};
    const SITE: &str = "https://notes.example";
    let seen_tool = |name: &str, area: &str, kind, definition: &str| SeenTool {
        name: name.into(),
        area: area.into(),
        kind,
        definition: definition.into(),
        registered_by: None,
    };
    let seen = [
        seen_tool("add_note", "notes", ToolKind::Write, "sha256:add"),
        seen_tool("find", "search", ToolKind::Read, "sha256:find"),
    ];
    let mut book = RuleBook::default();
    let changes = [
        one_tool("add_note", Some(Level::Allowed)),
        area("search", Some(Level::Allowed)),
    ];
    book.change(SITE, &changes, &seen, None).expect("saved");
    let rules = book.sites.get(SITE).expect("rules").clone();
    let facts = |name, area, kind, definition| RuleFacts {
        name,
        area,
        kind,
        definition,
    };
    // As the person saw them.
    assert_eq!(
        rules
            .level(facts("add_note", "notes", ToolKind::Write, "sha256:add"))
            .0,
        Level::Allowed
    );
    // add_note registered again with destructiveHint: a Delete tool, another
    // definition: Delete is Off.
    assert_eq!(
        rules.level(facts("add_note", "notes", ToolKind::Delete, "sha256:other")),
        (
            Level::Off,
            Because::Kind {
                kind: ToolKind::Delete,
                admin: false,
            }
        )
    );
    // A Delete tool tagged "search" later: the area covers Read tools only.
    assert_eq!(
        rules.level(facts("wipe", "search", ToolKind::Delete, "sha256:wipe")),
        (
            Level::Off,
            Because::Kind {
                kind: ToolKind::Delete,
                admin: false,
            }
        )
    );
    assert_eq!(
        rules
            .level(facts("lookup", "search", ToolKind::Read, "sha256:lookup"))
            .0,
        Level::Allowed
    );
    // Put back, the tool and the area forget what they were set for.
    let back = [one_tool("add_note", None), area("search", None)];
    book.change(SITE, &back, &seen, None).expect("saved");
    let rules = book.sites.get(SITE).expect("rules");
    assert!(rules.tool_definitions.is_empty() && rules.area_kinds.is_empty());
    // An administrator's rule holds by name, whatever the definition.
    let mut admin = SiteRules::default();
    admin.tools.insert("add_note".into(), Level::Off);
    let mut person = SiteRules::default();
    person.tools.insert("add_note".into(), Level::Off);
    person
        .tool_definitions
        .insert("add_note".into(), "sha256:add".into());
    let bounded = person.bounded_by(&admin);
    assert_eq!(
        bounded
            .level(facts("add_note", "notes", ToolKind::Read, "sha256:other"))
            .0,
        Level::Off
    );
}

/// docs/rules.md, "Set areas and tools apart": the rules keep what a tool set
/// apart was (its area and kind), and take an area with a rule as seen, so
/// that the person can change either or put it back when no tab publishes
/// it and the record of tools seen, which pages fill, no longer holds it.
#[test]
fn a_tool_or_area_with_a_rule_can_be_changed_and_put_back_with_no_tool_seen() {
    use toolgate::decisions::rules::{AsSet, RuleBook, SeenTool};
    let site = "https://bank.example";
    let seen_tool = |name: &str, area: &str, kind, definition: &str| SeenTool {
        name: name.into(),
        area: area.into(),
        kind,
        definition: definition.into(),
        registered_by: None,
    };
    let seen = [
        seen_tool("accounts.delete", "accounts", ToolKind::Delete, "d1"),
        seen_tool("cards.freeze", "cards", ToolKind::Write, "d2"),
    ];
    let mut book = RuleBook::default();
    book.change(
        site,
        &[
            one_tool("accounts.delete", Some(Level::Allowed)),
            area("cards", Some(Level::Off)),
        ],
        &seen,
        None,
    )
    .expect("saved");
    // Nothing seen now: the tool with a rule is still listed, as it was set.
    assert_eq!(book.listed(site, &[]), vec![seen[0].clone()]);
    book.change(
        site,
        &[one_tool("accounts.delete", Some(Level::Off))],
        &[],
        None,
    )
    .expect("changed with nothing seen");
    book.change(site, &[area("cards", Some(Level::AskFirst))], &[], None)
        .expect("the area changed with nothing seen");
    let rules = &book.sites[site];
    assert_eq!(rules.tools["accounts.delete"], Level::Off);
    assert_eq!(
        rules.tool_definitions["accounts.delete"], "d1",
        "for the definition the person saw"
    );
    assert_eq!(
        rules.tools_as_set["accounts.delete"],
        AsSet {
            area: "accounts".into(),
            kind: ToolKind::Delete
        }
    );
    assert_eq!(
        rules.area_kinds["cards"],
        vec![ToolKind::Write],
        "the kinds it was set for"
    );
    // Under an administrator, the kind kept still counts: a Delete tool is not Allowed.
    let admin = RuleBook::default();
    let refused = book
        .change(
            site,
            &[one_tool("accounts.delete", Some(Level::Allowed))],
            &[],
            Some(&admin),
        )
        .unwrap_err();
    assert!(
        matches!(refused, RuleError::OwnersOnly { .. }),
        "{refused:?}"
    );
    // Put back, with nothing seen.
    book.change(
        site,
        &[one_tool("accounts.delete", None), area("cards", None)],
        &[],
        None,
    )
    .expect("put back");
    let rules = &book.sites[site];
    assert!(rules.tools.is_empty() && rules.tools_as_set.is_empty() && rules.areas.is_empty());
    assert!(book.listed(site, &[]).is_empty());
    // A tool with no rule is set apart only once seen.
    assert_eq!(
        book.change(
            site,
            &[one_tool("accounts.close", Some(Level::Off))],
            &[],
            None
        ),
        Err(RuleError::NotSeen {
            what: "accounts.close".into()
        })
    );
    // Its refusal names it as Toolgate shows page text, a hidden character
    // made visible (a page named it); an area likewise.
    for (change, shown) in [
        (
            one_tool("accounts\u{202E}.close", Some(Level::Off)),
            "accounts\u{27E8}U+202E\u{27E9}.close",
        ),
        (
            area("vault\u{202E}", Some(Level::AskFirst)),
            "vault\u{27E8}U+202E\u{27E9}",
        ),
    ] {
        let refused = book
            .change(site, &[change], &[], None)
            .expect_err("not seen");
        assert_eq!(refused, RuleError::NotSeen { what: shown.into() });
        assert!(
            refused
                .to_string()
                .starts_with(&format!("{shown} can be set apart once")),
            "{refused}"
        );
    }
    // A tool set apart before the rules kept its kind is put back all the same.
    let mut older = RuleBook::default();
    let mut rules = SiteRules::default();
    rules.tools.insert("legacy.tool".into(), Level::Allowed);
    older.sites.insert(site.into(), rules);
    older
        .change(site, &[one_tool("legacy.tool", None)], &[], None)
        .expect("put back");
    assert!(older.sites[site].tools.is_empty());
}
