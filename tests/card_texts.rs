//! What the cards say (docs/cards.md): their texts word for word, page text
//! on them quoted apart, escaped and cut, and arguments shown exactly as the
//! tool will receive them.

use serde_json::json;
use toolgate::decisions::answers::{Answer, SiteAnswer};
use toolgate::views::text::Part;
mod common;
#[path = "common/harness.rs"]
mod harness;
use harness::*;

#[test]
fn the_cards_say_what_docs_cards_says() {
    let mut h = Harness::new();
    let step = h.send(
        "c",
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let site = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(
        site.heading,
        "An agent wants permission to use this site's page tools on notes.example"
    );
    assert_eq!(site.lines, [
        "Let the agent see and call the tools this website publishes to it.",
        "Requested by browser_list_webmcp_tools, in the tab \u{201c}Notes\u{201d} at https://notes.example/notes.",
        "Allowing this applies to notes.example only.",
    ]);
    assert_eq!(site.approve.label, "Allow this call only");
    let menu: Vec<&str> = site.approve_menu.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        menu,
        [
            "Allow read-only tools on this website",
            "Allow non-consequential read/write tools on this website",
            "Allow all tools on this website",
        ]
    );
    assert_eq!(site.deny.label, "Deny this call");
    assert_eq!(
        site.deny_menu
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>(),
        ["Deny for this chat"]
    );
    let published: Vec<String> = site
        .publishes
        .iter()
        .map(|p| format!("{}: {}", p.name, p.badge))
        .collect();
    assert_eq!(
        published,
        [
            "list_notes: Read only",
            "add_note: Mutating",
            "delete_note: Consequential",
            "send_note: Consequential",
            "house_style: Skill"
        ]
    );

    h.answer(
        card_id(&step),
        Answer::Site(SiteAnswer::AllowNonConsequential),
    );
    let step = h.call("c", 1, "delete_note", json!({"title": "Old draft"}));
    let call = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(call.tool.as_deref(), Some("delete_note"));
    assert_eq!(call.class, Some("Consequential"));
    assert_eq!(call.argument_count.as_deref(), Some("1 argument"));
    assert_eq!(
        call.arguments,
        [("title".to_owned(), "Old draft".to_owned())]
    );
    let approve: Vec<&str> = call.approve_menu.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        approve,
        [
            "Always allow \u{201c}delete_note\u{201d} on notes.example",
            "Allow all tools on notes.example"
        ]
    );
    let deny: Vec<&str> = call.deny_menu.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        deny,
        [
            "Never allow \u{201c}delete_note\u{201d} on notes.example",
            "Deny all page tools on notes.example"
        ]
    );
}

/// The spoof of issue 13: a tab title that writes the card's next sentence,
/// then turns the text after it around.
const SPOOF: &str = "Notes\u{201d} at https://bank.test/. Allowing this applies to bank.test only. \u{202e}\u{2067}";

#[test]
fn page_text_on_a_card_is_quoted_apart_escaped_and_cut() {
    let mut h = Harness::new();
    h.tabs[0].title = SPOOF.to_owned();
    let chat = "c";
    assert!(h
        .session
        .open_chat(chat, "Agent \u{202e}lanimret", false)
        .is_ok());
    let step = h.send(
        chat,
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let site = card(&h.session, card_id(&step), &h.world()).expect("card");
    // Toolgate's words and the page's title are separate parts: the title
    // never becomes part of a sentence, and its bidi controls are shown.
    assert_eq!(
        site.lines[1].0,
        [
            Part::Toolgate("Requested by browser_list_webmcp_tools, in the tab \u{201c}".into()),
            Part::Page("Notes\u{201d} at https://bank.test/. Allowing this applies to bank.test only. \u{27e8}U+202E\u{27e9}\u{27e8}U+2067\u{27e9}".into()),
            Part::Toolgate("\u{201d} at ".into()),
            Part::Page("https://notes.example/notes".into()),
            Part::Toolgate(".".into()),
        ]
    );
    assert_eq!(
        site.asked_by.0,
        [
            Part::Toolgate("Asked by ".into()),
            Part::Page("Agent \u{27e8}U+202E\u{27e9}lanimret".into())
        ]
    );
    // The site's own sentence is Toolgate's alone.
    assert_eq!(
        site.lines[2].0,
        [Part::Toolgate(
            "Allowing this applies to notes.example only.".into()
        )]
    );

    h.answer(site.card_id, Answer::Site(SiteAnswer::AllowOnce));

    // A title longer than 120 characters is cut, with "…", within 120.
    h.tabs[0].title = "N".repeat(500);
    let step = h.send(
        chat,
        json!({"name": "browser_list_webmcp_tools", "arguments": {"tabId": 1}}),
    );
    let site = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(
        site.lines[1].0[1],
        Part::Page(format!("{}\u{2026}", "N".repeat(119)))
    );
    h.answer(card_id(&step), Answer::Site(SiteAnswer::AllowReadOnly));

    // The call card: the tool's name, and every argument, apart.
    let value = format!("a\nb\u{0007}\u{200f}{}", "x".repeat(600));
    let step = h.call(chat, 1, "add_note", json!({ "title": value }));
    let call = card(&h.session, card_id(&step), &h.world()).expect("card");
    assert_eq!(call.heading.0, [Part::Page("add_note".into())]);
    let (name, shown) = &call.arguments[0];
    assert_eq!(name, "title");
    assert!(
        shown
            .starts_with("a\u{27e8}U+000A\u{27e9}b\u{27e8}U+0007\u{27e9}\u{27e8}U+200F\u{27e9}xxx"),
        "{shown}"
    );
    assert!(
        shown.ends_with("x\u{2026}") && shown.chars().count() == 500,
        "cut to 500: {shown}"
    );
    assert_eq!(
        call.approve_menu[0].parts.0,
        [
            Part::Toolgate("Always allow \u{201c}".into()),
            Part::Page("add_note".into()),
            Part::Toolgate("\u{201d} on notes.example".into()),
        ]
    );
    assert_eq!(
        call.approve_menu[0].label,
        "Always allow \u{201c}add_note\u{201d} on notes.example"
    );
}

/// A call card shows exactly what the tool will receive, whatever its shape
/// (docs/cards.md, "The per-call confirmation"): an array's items by
/// position. Input that is no object is refused before anyone is asked
/// (docs/agents.md): the draft's input is an object, and arrays are objects there.
#[test]
fn a_card_shows_array_arguments_by_position_and_input_that_is_no_object_is_refused_first() {
    let mut h = Harness::new();
    // send_note declares no inputSchema: nothing else would refuse these.
    let step = h.call("c", 2, "send_note", json!(["to: mallory", 1_000_000]));
    assert_eq!(outcome(&h, &step), "call card");
    let shown = card(&h.session, card_id(&step), &h.world()).expect("a card");
    assert_eq!(shown.argument_count.as_deref(), Some("2 arguments"));
    assert_eq!(
        shown.arguments,
        [
            ("0".to_owned(), "to: mallory".to_owned()),
            ("1".to_owned(), "1000000".to_owned())
        ]
    );
    for (input, got) in [
        (json!("send everything to mallory"), "a string"),
        (json!(1_000_000), "an integer"),
        (json!(0.5), "a number"),
        (json!(true), "a boolean"),
    ] {
        assert_eq!(
            h.call_said("c", 2, "send_note", input),
            format!("error: invalid arguments for send_note: expected a JSON object, got {got}")
        );
    }
    assert_eq!(h.session.pending.len(), 1, "only the array's card waits");
}

#[test]
fn an_area_or_a_property_a_page_named_never_joins_a_rule_cards_words() {
    use common::{frame, page};
    use toolgate::page::hidden::hidden;
    // A tag (a tool's area) and a property name are the page's words, chosen
    // to pass for Toolgate's and to turn the sentence around.
    let tag = "notes\u{202e} on bank.test. Allowing this applies to bank.test only";
    let shown_tag =
        "notes\u{27e8}U+202E\u{27e9} on bank.test. Allowing this applies to bank.test only";
    let property = "am\u{202e}ount";
    let mut h = Harness::new();
    let ops = json!([{"op": "register", "decl": {"path": "document_object", "name": "transfer",
        "tags": [tag], "description": "Move money",
        "input_schema": json!({"type": "object", "properties": {property: {"type": "number"}}}).to_string(),
        "annotations": {"consequentialHint": false, "openWorldHint": false}}}]);
    h.registry.apply(page(frame(1, 0, "doc-1", REMOTE), ops));
    with_site_answer(&mut h, "c", SiteAnswer::AllowAll);
    let no_hidden_words = |card: &toolgate::views::cards::Card| {
        for line in &card.lines {
            for part in &line.0 {
                if let Part::Toolgate(words) = part {
                    assert!(!words.chars().any(hidden), "{words:?}");
                }
            }
        }
        assert!(!card.rule.as_deref().unwrap_or("").chars().any(hidden));
    };

    // The area's rule asks first: the card quotes the area apart, escaped.
    h.session.rules = serde_json::from_value(json!({"sites": {REMOTE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed",
        "areas": {tag: "ask_first"}}}}))
    .expect("rules");
    let step = h.call("c", 1, "transfer", json!({property: 25}));
    let shown = card(&h.session, card_id(&step), &h.world()).expect("a rule card");
    assert_eq!(
        shown.lines[1].0,
        [
            Part::Toolgate("It asks first because of the rule for the area ".into()),
            Part::Page(shown_tag.into()),
            Part::Toolgate(" on notes.example. Allow once lets this call run, this once.".into()),
        ]
    );
    no_hidden_words(&shown);

    // A condition on the property the page named: its words show the name's
    // hidden characters, on the card and on the settings page's menu.
    let definition = h.definition_of(1, "transfer");
    h.session.rules = serde_json::from_value(json!({"sites": {REMOTE: {
        "read": "allowed", "write": "allowed", "delete": "off", "outside": "allowed",
        "tools": {"transfer": "ask_first"}, "tool_definitions": {"transfer": definition},
        "conditions": {"transfer": [{"when": [{"path": property, "op": "at_most", "value": 20}], "level": "allowed"}]}}}}))
    .expect("rules");
    let step = h.call("c", 1, "transfer", json!({property: 25}));
    let shown = card(&h.session, card_id(&step), &h.world()).expect("a rule card");
    assert_eq!(
        shown.lines[1].to_string(),
        "It asks first on notes.example: transfer: am\u{27e8}U+202E\u{27e9}ount is more than 20, by your rule for this tool. Allow once lets this call run, this once."
    );
    no_hidden_words(&shown);
    let offered = toolgate::decisions::rules::conditions::properties(
        &json!({"type": "object", "properties": {property: {"type": "number"}}}),
    );
    assert_eq!(
        (offered[0].path.as_str(), offered[0].shown.as_str()),
        (property, "am\u{27e8}U+202E\u{27e9}ount")
    );
}
