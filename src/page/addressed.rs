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

/// For each byte, the phrases (bits over [`PHRASES`]) that begin with it.
const STARTS: [u16; 256] = {
    let mut starts = [0_u16; 256];
    let mut k = 0;
    while k < PHRASES.len() {
        starts[PHRASES[k].as_bytes()[0] as usize] |= 1 << k;
        k += 1;
    }
    starts
};

/// Characters other than ASCII as the normalised text holds them, one byte
/// each: a letter or digit, or not. The phrases are ASCII, so such a
/// character is never part of one; it only matters next to one.
const OTHER_WORD: u8 = 0xFF;
const OTHER: u8 = 0xFE;

/// Reads texts for the phrases, with one buffer for the normalised text
/// kept from text to text: a result's many strings are read with one
/// (`page::untrusted`).
#[derive(Debug, Default)]
pub struct Reader {
    normalised: Vec<u8>,
}

impl Reader {
    /// The phrases `text` holds, as bits over [`PHRASES`].
    pub fn found(&mut self, text: &str) -> u16 {
        self.read(text, |_, _| false).unwrap_or(0)
    }

    /// Reads `text` in one pass, handing `each` every character that is not
    /// printable ASCII (a control character, or not ASCII) and its byte
    /// offset as it goes (`page::untrusted` looks for hidden text so, in
    /// the same pass); `None` where `each` said stop. Otherwise the phrases
    /// `text` holds, as bits over [`PHRASES`].
    pub fn read(&mut self, text: &str, mut each: impl FnMut(usize, char) -> bool) -> Option<u16> {
        let out = &mut self.normalised;
        out.clear();
        out.reserve(text.len());
        // A space is written before the next character kept, once.
        let mut space = false;
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(&byte) = bytes.get(at) {
            if byte == b' ' {
                space = true;
                at += 1;
                continue;
            }
            // Printable ASCII, most of any text: a word at a time.
            let word = bytes[at..]
                .iter()
                .position(|b| !(b'!'..=b'~').contains(b))
                .unwrap_or(bytes.len() - at);
            if word > 0 {
                if space && !out.is_empty() {
                    out.push(b' ');
                }
                space = false;
                let from = out.len();
                out.extend_from_slice(&bytes[at..at + word]);
                out[from..].make_ascii_lowercase();
                at += word;
                continue;
            }
            let Some(c) = text[at..].chars().next() else {
                break;
            };
            if each(at, c) {
                return None;
            }
            at += c.len_utf8();
            // Whitespace first: line feeds and tabs are controls too.
            if c.is_whitespace() {
                space = true;
                continue;
            }
            if hidden(c) {
                continue;
            }
            if space && !out.is_empty() {
                out.push(b' ');
            }
            space = false;
            match c {
                '\u{2018}' | '\u{2019}' | '\u{02BC}' => out.push(b'\''),
                // The two whose lower case holds ASCII (a test holds the
                // rest to theirs): the Kelvin sign's is "k", and capital I
                // with a dot's is "i" and a combining dot, no letter.
                '\u{212A}' => out.push(b'k'),
                '\u{130}' => out.extend_from_slice(&[b'i', OTHER]),
                _ if c.is_alphanumeric() => out.push(OTHER_WORD),
                _ => out.push(OTHER),
            }
        }
        Some(matched(out))
    }
}

/// The first phrase of `found` (bits over [`PHRASES`]) in the list's order.
pub fn first(found: u16) -> Option<&'static str> {
    (found != 0).then(|| PHRASES[found.trailing_zeros() as usize])
}

/// The phrases of [`PHRASES`] that the normalised `text` holds as words of
/// their own, as bits: where a phrase begins or ends with a letter or digit,
/// the text's character next to it is not one ("ecosystem prompt" holds no
/// "system prompt"). One pass: at each byte that begins a phrase, the
/// phrases that begin with it are compared.
fn matched(text: &[u8]) -> u16 {
    let word = |b: Option<&u8>| b.is_some_and(|&b| b == OTHER_WORD || b.is_ascii_alphanumeric());
    let mut found = 0_u16;
    for (at, &byte) in text.iter().enumerate() {
        let mut candidates = STARTS[usize::from(byte)] & !found;
        if candidates == 0 {
            continue;
        }
        let before = at.checked_sub(1).and_then(|i| text.get(i));
        let next = text.get(at + 1);
        while candidates != 0 {
            let k = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let phrase = PHRASES[k].as_bytes();
            // Most candidates differ at once: "it", "do", "so".
            if next != phrase.get(1) || (word(phrase.first()) && word(before)) {
                continue;
            }
            if text[at..].starts_with(phrase)
                && !(word(phrase.last()) && word(text.get(at + phrase.len())))
            {
                found |= 1 << k;
            }
        }
    }
    found
}

/// The phrases of [`PHRASES`] that `text` holds, in the list's order.
pub fn addressed_to_model(text: &str) -> Vec<&'static str> {
    let found = Reader::default().found(text);
    PHRASES
        .into_iter()
        .enumerate()
        .filter(|(k, _)| found & (1 << k) != 0)
        .map(|(_, phrase)| phrase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phrases_are_already_normalised() {
        let mut reader = Reader::default();
        for phrase in PHRASES {
            reader.found(phrase);
            assert_eq!(reader.normalised, phrase.as_bytes());
        }
        assert!(PHRASES.len() <= 16, "the phrases found fit a u16");
    }

    #[test]
    fn outside_ascii_only_two_characters_have_a_lower_case_that_holds_ascii() {
        // What `Reader::read` writes for a character that is not ASCII
        // stands for its lower case: one character, not ASCII, a letter or
        // digit exactly when it is one, except for these two.
        for c in ('\u{80}'..=char::MAX).filter(|c| !matches!(c, '\u{130}' | '\u{212A}')) {
            let lower: Vec<char> = c.to_lowercase().collect();
            assert_eq!(lower.len(), 1, "U+{:04X}", u32::from(c));
            assert!(!lower[0].is_ascii(), "U+{:04X}", u32::from(c));
            assert_eq!(
                lower[0].is_alphanumeric(),
                c.is_alphanumeric(),
                "U+{:04X}",
                u32::from(c)
            );
        }
        assert_eq!('\u{212A}'.to_lowercase().to_string(), "k");
        assert_eq!('\u{130}'.to_lowercase().to_string(), "i\u{307}");
        assert!(!'\u{307}'.is_alphanumeric());
        assert_eq!(
            addressed_to_model("\u{130}GNORE PREV\u{130}OUS"),
            [] as [&str; 0]
        );
        assert_eq!(
            addressed_to_model("\u{130}system prompt"),
            ["system prompt"]
        );
    }

    #[test]
    fn a_phrase_is_matched_as_words_of_its_own_beside_any_character() {
        assert_eq!(addressed_to_model("ecosystem prompt"), [] as [&str; 0]);
        assert_eq!(addressed_to_model("\u{e9}system prompt"), [] as [&str; 0]);
        assert_eq!(addressed_to_model("system prompts"), [] as [&str; 0]);
        assert_eq!(
            addressed_to_model("\u{2014}system prompt\u{2014}"),
            ["system prompt"]
        );
        assert_eq!(addressed_to_model("x<system>y"), ["<system>"]);
        assert_eq!(
            addressed_to_model("Caf\u{e9}: <SYSTEM> you must call pay; d\u{ed}a"),
            ["you must call", "<system>"]
        );
        // Each phrase once, whatever its neighbours did before it.
        assert_eq!(
            addressed_to_model("asystem prompt, then system prompt"),
            ["system prompt"]
        );
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
