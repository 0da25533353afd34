//! An audit entry in a few words, for an OTLP log record's body.

use super::*;

/// An entry in a few words, as the settings page's audit says it
/// (extension/ui/audit.js).
pub(super) fn said(what: &str, entry: &Map<String, Value>) -> String {
    let text = |key: &str| entry.get(key).map(id_text).unwrap_or_default();
    let on_site = || match text_of(entry, "site") {
        Some(site) => format!(" on {site}"),
        None => String::new(),
    };
    match what {
        "rule" => format!(
            "{}: {} → {}{}",
            match text("kind").as_str() {
                "scripts" => "Tools registered by other sites' scripts".to_owned(),
                kind => format!("{kind} tools"),
            },
            text("from"),
            text("to"),
            on_site()
        ),
        "rules" if entry.get("to").is_some_and(|to| !to.is_null()) => {
            format!("Rules started{}", on_site())
        }
        "rules" => format!("Rules removed{}", on_site()),
        "kept" => format!("Kept as it was{}", on_site()),
        "areas" => format!("Areas set apart changed{}", on_site()),
        "tools" => format!("Tools set apart changed{}", on_site()),
        "conditions" => format!("Conditions on arguments changed{}", on_site()),
        "limits" => format!("Limits on how often changed{}", on_site()),
        "unattended" => format!(
            "Unattended {}",
            if entry.get("to") == Some(&Value::Bool(true)) {
                "on"
            } else {
                "off"
            }
        ),
        "policy" => "The administrator's policy changed".into(),
        "answer" => match text_of(entry, "label") {
            Some(label) => format!("Answered “{label}” on the {} card", text("card")),
            None => format!("Answered {} on the {} card", text("answer"), text("card")),
        },
        "flagged" => format!("{} broke its hints: it {}", text("tool"), text("text")),
        "cleared" => format!("Flag cleared{}", on_site()),
        "tool_change" => text("text"),
        other => other.to_owned(),
    }
}
