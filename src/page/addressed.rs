//! Text addressed to the agent's model rather than describing the tool: the
//! one list of phrases Toolgate looks for in a tool's title and description,
//! and how they are matched (docs/classes.md, "Lint notes"). A tool's texts
//! are read by the model, and words that order it about (to forget what it
//! was told, to keep something from the person, to call a tool) are how a
//! page poisons it. The list is short on purpose: each phrase is one an
//! honest description has no reason to hold, and a longer list would catch
//! honest text too. Matching is case-insensitive, on whitespace made single
//! spaces and hidden characters dropped (`page::hidden`), at word
//! boundaries, and linear in the text.

use crate::page::hidden::hidden;

/// The phrases, lower case, one space between words. At most a dozen.
pub const PHRASES: [&str; 12] = [
    // Overriding what the model was told.
    "ignore previous instructions",
    "ignore all previous instructions",
    "ignore prior instructions",
    "disregard previous instructions",
    // Keeping something from the person.
    "do not tell the user",
    "don't tell the user",
    "without telling the user",
    // Ordering calls.
    "you must call",
    // Posing as the agent's own instructions.
    "system prompt",
    "<important>",
    "<system>",
    "<instructions>",
];

/// The text as the phrases are matched against it: lower case, each run of
/// whitespace one space, hidden characters (a zero-width space inside a
/// word) dropped, and typographic apostrophes made plain.
fn normalised(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
        } else if hidden(c) {
            continue;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            match c {
                '\u{2018}' | '\u{2019}' | '\u{02BC}' => out.push('\''),
                c => out.extend(c.to_lowercase()),
            }
        }
    }
    out
}

/// Whether `phrase` occurs in `text` as words of their own: where the
/// phrase begins or ends with a letter or digit, the text's character next
/// to it is not one ("ecosystem prompt" holds no "system prompt").
fn occurs(text: &str, phrase: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let starts_word = word(phrase.chars().next());
    let ends_word = word(phrase.chars().next_back());
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        let joined = (starts_word && word(before)) || (ends_word && word(after));
        !joined
    })
}

/// The phrases of [`PHRASES`] that `text` holds, in the list's order.
pub fn addressed_to_model(text: &str) -> Vec<&'static str> {
    let text = normalised(text);
    PHRASES
        .into_iter()
        .filter(|phrase| occurs(&text, phrase))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phrases_are_already_normalised() {
        for phrase in PHRASES {
            assert_eq!(normalised(phrase), phrase);
        }
    }

    #[test]
    fn whitespace_case_and_hidden_characters_do_not_hide_a_phrase() {
        assert_eq!(
            addressed_to_model("IGNORE\n\tprevious   Instructions."),
            ["ignore previous instructions"]
        );
        assert_eq!(
            addressed_to_model("ig\u{200b}nore previous\u{a0}instructions"),
            ["ignore previous instructions"]
        );
        assert_eq!(
            addressed_to_model("Don\u{2019}t tell the user."),
            ["don't tell the user"]
        );
    }
}
