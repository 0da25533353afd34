//! What the set-apart page says each tool may do (docs/rules.md, "Areas and
//! tools set apart"): the level that holds and where it comes from.
use toolgate::decisions::rules::{Level, RuleBook, SeenTool, ToolKind};

fn seen(name: &str, area: &str, kind: ToolKind) -> SeenTool {
    SeenTool {
        name: name.to_owned(),
        area: area.to_owned(),
        kind,
        definition: format!("def of {name}"),
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
