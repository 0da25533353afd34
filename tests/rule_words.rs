//! The site rules' words as the settings pages read them from the core
//! (docs/rules.md, word for word), and what the set-apart page says each
//! tool may do: the level that holds and where it comes from.
use serde_json::json;
use toolgate::decisions::rules::{Level, RuleBook, SeenTool, ToolKind};
use toolgate::views::rule_words::rule_words;

#[test]
fn the_rules_words_come_from_one_place() {
    let words = serde_json::to_value(rule_words()).expect("JSON");
    assert_eq!(
        words["kinds"],
        json!([
            { "key": "read", "label": "Read", "meaning": "tools that only look things up" },
            { "key": "write", "label": "Write", "meaning": "tools that change things on the site" },
            { "key": "delete", "label": "Delete", "meaning": "tools that remove things" },
            { "key": "outside", "label": "Outside the site", "meaning": "tools that act beyond it" },
        ])
    );
    assert_eq!(
        words["levels"],
        json!([
            { "key": "allowed", "label": "Allowed" },
            { "key": "ask_first", "label": "Ask first" },
            { "key": "off", "label": "Off" },
        ])
    );
    assert_eq!(
        words["new_rules"],
        json!({ "read": "allowed", "write": "ask_first", "delete": "off", "outside": "ask_first" })
    );
    assert_eq!(
        words["read_freely"],
        json!({ "label": "Read freely, ask before the rest",
                "levels": { "read": "allowed", "write": "ask_first", "delete": "ask_first", "outside": "ask_first" } })
    );
    assert_eq!(
        words["classes"],
        json!(["Read only", "Mutating", "Consequential", "Skill"])
    );
    // The reasons the pages show beside a level are the ones a refused change gives.
    let book = RuleBook::default();
    let admin: RuleBook = serde_json::from_value(json!({ "sites": { "https://a.example": {
        "read": "allowed", "write": "ask_first", "delete": "off", "outside": "ask_first" } } }))
    .expect("a rule book");
    // Allowed for `kind`, which the administrator's rules refuse.
    let refused = |kind: &str| {
        book.clone()
            .change(
                "https://a.example",
                &[serde_json::from_value(
                    json!({ "target": "kind", "kind": kind, "level": "allowed" }),
                )
                .expect("a change")],
                &[],
                Some(&admin),
            )
            .expect_err("refused under the administrator's rules")
    };
    let wider = refused("write");
    assert_eq!(
        wider.to_string(),
        format!(
            "{} Nothing was saved.",
            words["wider_than_admin"][1][1].as_str().expect("text")
        )
    );
    assert_eq!(words["wider_than_admin"][1][0], "ask_first");
    let owners = refused("delete");
    assert_eq!(
        owners.to_string(),
        format!(
            "{} Nothing was saved.",
            words["owners_only"].as_str().expect("text")
        )
    );
}

fn seen(name: &str, area: &str, kind: ToolKind) -> SeenTool {
    SeenTool {
        name: name.to_owned(),
        area: area.to_owned(),
        kind,
        definition: format!("def of {name}"),
        registered_by: None,
    }
}

#[test]
fn each_tool_says_its_level_and_which_rule_gives_it() {
    let site = "https://shop.example";
    let mut book: RuleBook = serde_json::from_value(serde_json::json!({
        "sites": { site: {
            "read": "allowed", "write": "ask_first", "delete": "off", "outside": "ask_first",
            "areas": { "billing": "off" }, "tools": { "notes.erase": "allowed" },
        } },
    }))
    .expect("a rule book");
    let tools = [
        seen("notes.list", "notes", ToolKind::Read),
        seen("notes.add", "notes", ToolKind::Write),
        seen("notes.erase", "notes", ToolKind::Delete),
        seen("billing.list", "billing", ToolKind::Read),
        seen("export", "export", ToolKind::Outside),
    ];
    let says: Vec<(String, Option<Level>)> = book
        .standings(site, &tools)
        .into_iter()
        .map(|s| (s.says, s.level))
        .collect();
    assert_eq!(
        says,
        [
            (
                "Allowed, by the rule for Read tools".to_owned(),
                Some(Level::Allowed)
            ),
            (
                "Ask first, by the rule for Write tools".to_owned(),
                Some(Level::AskFirst)
            ),
            ("Allowed, set apart".to_owned(), Some(Level::Allowed)),
            ("Off, by the area billing".to_owned(), Some(Level::Off)),
            (
                "Ask first, by the rule for Outside the site tools".to_owned(),
                Some(Level::AskFirst)
            ),
        ]
    );
    book.unattended = true;
    assert_eq!(
        book.standings(site, &tools[1..2])[0].says,
        "Ask first (Off while Toolgate runs unattended), by the rule for Write tools"
    );
    let none = book.standings("https://other.example", &tools[..1]);
    assert_eq!(
        (none[0].level, none[0].says.as_str()),
        (None, "No rules: what a chat allows")
    );
}
