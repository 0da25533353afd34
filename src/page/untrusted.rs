//! Untrusted content in what a tool returned (docs/cards.md, "After untrusted
//! content"): text that reaches the agent's model through a result and may
//! carry someone else's instructions. A result is untrusted when its tool
//! says so (`untrustedContentHint: true`), when its tool is flagged for
//! breaking its hints, or when the result itself holds a phrase addressed to
//! the model (`page::addressed`, the list the lint notes use) or text hidden
//! from people, or when the learned detector reads instructions to an agent
//! in what the list cleared (`page::addressed::learned`). This module reads
//! one result; the chat's memory of what it read is the decisions'
//! (`decisions::untrusted`).
//!
//! The work is linear in the result, which the reply's cap already bounds
//! (`DEFAULT_RESULT_CAP`): the result is read once as JSON, in order, without
//! building it (a string that needs no unescaping is read where it lies), and
//! each of its strings (keys too) is matched once. Every result of every
//! call is read, so the cost is measured: benches/README.md, figure 14.

mod clear;

use crate::page::addressed::{first, instructions_in, Instructions, NoDetector, Reader};
use crate::page::hidden::{hidden, hides_alone, in_region_flag};
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// At most this many characters of a result are kept as the excerpt that
/// made it untrusted.
pub const EXCERPT_CHARS: usize = 200;
/// What the learned detector's finding is called, before its span.
pub const READS_AS_INSTRUCTIONS: &str = "it reads as instructions to the agent";
/// Hidden characters in a row that hide text: a run this long is no emoji's
/// joiner, soft hyphen or direction mark of honest text.
const HIDDEN_RUN: usize = 4;

/// Why a result is untrusted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "because", rename_all = "snake_case")]
pub enum Because {
    /// Its tool declared `untrustedContentHint: true`.
    Declared,
    /// Its tool is flagged for doing more than its hints said.
    Flagged,
    /// It holds this phrase, addressed to the agent's model.
    Addressed { phrase: String },
    /// It holds text people cannot see: tag characters, bidi overrides, or
    /// a run of hidden characters.
    Hidden,
    /// The learned detector reads this span of it as instructions addressed
    /// to an agent (`page::addressed::learned`; page text, at most
    /// `EXCERPT_CHARS` characters).
    ReadsAsInstructions { span: String },
    /// Not a result: the chat read untrusted content, and Toolgate had to
    /// forget which, to keep within its storage (docs/agents.md, "Chats").
    Lost,
    /// Toolgate could not read it (a lone surrogate in a string, nesting
    /// past the reader's depth), yet the agent gets it whole: what cannot be
    /// read cannot be cleared (docs/cards.md, "After untrusted content").
    Unreadable,
}

impl Because {
    /// Why, in plain words, of the content read ("it").
    pub fn plain(&self) -> String {
        match self {
            Because::Declared => "its tool marks what it returns as untrusted".to_owned(),
            Because::Flagged => "its tool is flagged for doing more than its hints say".to_owned(),
            Because::Addressed { phrase } => {
                format!("it speaks to the agent's model: \u{201c}{phrase}\u{201d}")
            }
            Because::Hidden => "it holds text people cannot see".to_owned(),
            Because::ReadsAsInstructions { span } => {
                format!("{READS_AS_INSTRUCTIONS}: \u{201c}{span}\u{201d}")
            }
            Because::Lost => "Toolgate had to forget what this chat read, to keep within its storage, and treats it as having read such content".to_owned(),
            Because::Unreadable => "Toolgate could not read it".to_owned(),
        }
    }
}

/// What made a result untrusted, and the part of it that shows why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    #[serde(flatten)]
    pub because: Because,
    /// At most `EXCERPT_CHARS` characters of the result, as the page wrote
    /// them (shown as page text: escaped, cut).
    pub excerpt: String,
}

/// What the tool said of itself when its call started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// `untrustedContentHint: true`.
    pub hint: bool,
    /// Flagged for breaking its hints.
    pub flagged: bool,
}

/// Whether text hides characters that carry text, read one character at a
/// time: a tag character (the invisible copies of ASCII a model reads), a
/// bidi embedding or override (which reorders what people see), a hidden
/// character that hides text alone (a variation selector outside its
/// ordinary uses, an unassigned ignorable: `hidden::hides_alone`), or
/// `HIDDEN_RUN` hidden characters in a row. It is handed only the characters
/// that are not printable ASCII, with their byte offsets: one that does not
/// follow the last it saw had other characters between them.
#[derive(Default)]
struct Hiding {
    run: usize,
    /// The byte offset after the last character seen.
    next: usize,
}

impl Hiding {
    /// Whether `text` hides characters, as of `c` at byte offset `at`.
    fn at(&mut self, text: &str, at: usize, c: char) -> bool {
        if at != self.next {
            self.run = 0;
        }
        self.next = at + c.len_utf8();
        let tag = ('\u{E0000}'..='\u{E007F}').contains(&c);
        let reorders = ('\u{202A}'..='\u{202E}').contains(&c);
        // A region's flag (England's, Scotland's) is what people see.
        if tag && in_region_flag(text, at) {
            self.run = 0;
            return false;
        }
        if tag || reorders {
            return true;
        }
        // Line feeds and tabs are the text's own layout.
        if hidden(c) && !matches!(c, '\n' | '\t' | '\r') {
            if hides_alone(text[..at].chars().next_back(), c) {
                return true;
            }
            self.run += 1;
            return self.run == HIDDEN_RUN;
        }
        self.run = 0;
        false
    }
}

/// Where `text` first hides characters that carry text (`Hiding`): the byte
/// offset of the character that shows it.
#[cfg(test)]
fn hides_text(text: &str) -> Option<usize> {
    let mut hiding = Hiding::default();
    text.char_indices()
        .find(|&(at, c)| hiding.at(text, at, c))
        .map(|(at, _)| at)
}

/// At most `EXCERPT_CHARS` characters of `text` around byte offset `at`.
fn excerpt(text: &str, at: usize) -> String {
    let before = text[..at]
        .char_indices()
        .rev()
        .nth(EXCERPT_CHARS / 4)
        .map_or(0, |(i, _)| i);
    text[before..].chars().take(EXCERPT_CHARS).collect()
}

/// Where `phrase` (lower case, single spaces) first occurs in `text`, ASCII
/// case aside; `None` where only its normalised form holds it (hidden
/// characters or odd spacing inside it), and the excerpt starts at the text.
fn locate(text: &str, phrase: &str) -> Option<usize> {
    let (hay, needle) = (text.as_bytes(), phrase.as_bytes());
    (0..hay.len().checked_sub(needle.len())? + 1)
        .find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
        .filter(|&i| text.is_char_boundary(i))
}

/// What in one string of a result makes it untrusted, if anything: read in
/// one pass for hidden text and for phrases addressed to the model; `on`:
/// read on from the string before (`Reader::read_on`), so that a phrase split
/// across the two is found.
fn in_text(text: &str, reader: &mut Reader, on: bool) -> Option<Found> {
    let mut hiding = Hiding::default();
    let mut hides = None;
    let each = |at, c| {
        let stop = hiding.at(text, at, c);
        if stop {
            hides = Some(at);
        }
        stop
    };
    let found = if on {
        reader.read_on(text, each)
    } else {
        reader.read(text, each)
    };
    if let Some(at) = hides {
        return Some(Found {
            because: Because::Hidden,
            excerpt: excerpt(text, at),
        });
    }
    let phrase = first(found?)?;
    let at = locate(text, phrase).unwrap_or(0);
    Some(Found {
        because: Because::Addressed {
            phrase: phrase.to_owned(),
        },
        excerpt: excerpt(text, at),
    })
}

/// What [`Strings`] hands over: a string that is a value, one that is a
/// key, or a value that is no string.
enum Piece<'a> {
    Value(&'a str),
    Key(&'a str),
    Other,
}

/// Hands each string of a JSON value to `each`, in the text's order (a key
/// before its value), and each value that is no string, until `each` says it
/// found something; what it found is kept in `found`. Nothing of the value
/// is built: a string without escapes is handed over where it lies in the
/// text.
struct Strings<'a, F> {
    each: &'a mut F,
    found: &'a mut Option<Found>,
    /// Whether the string to come is a key.
    key: bool,
}

impl<F: FnMut(Piece) -> Option<Found>> Strings<'_, F> {
    fn again(&mut self, key: bool) -> Strings<'_, F> {
        Strings {
            each: self.each,
            found: self.found,
            key,
        }
    }

    fn hand(self, piece: Piece) {
        if self.found.is_none() {
            *self.found = (self.each)(piece);
        }
    }

    /// A value that is no string.
    fn scalar<E>(self) -> Result<(), E> {
        self.hand(Piece::Other);
        Ok(())
    }
}

impl<'de, F: FnMut(Piece) -> Option<Found>> DeserializeSeed<'de> for Strings<'_, F> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, F: FnMut(Piece) -> Option<Found>> Visitor<'de> for Strings<'_, F> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_str<E>(self, text: &str) -> Result<(), E> {
        let piece = if self.key {
            Piece::Key(text)
        } else {
            Piece::Value(text)
        };
        self.hand(piece);
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.scalar()
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut items: A) -> Result<(), A::Error> {
        while items.next_element_seed(self.again(false))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut members: A) -> Result<(), A::Error> {
        while members.next_key_seed(self.again(true))?.is_some() {
            members.next_value_seed(self.again(false))?;
        }
        Ok(())
    }
}

/// What the first string of the JSON text `text` that makes it untrusted
/// holds; `Err` when nothing did and `text` cannot be read to its end (not
/// JSON, a lone surrogate, nesting past serde_json's depth).
fn in_json(text: &str, reader: &mut Reader) -> Result<Option<Found>, serde_json::Error> {
    let mut found = None;
    // The string values are read together, in the text's order, a space
    // between each and the next, so that a phrase split across two fields is
    // found (docs/cards.md, "After untrusted content"). A value that is no
    // string stands apart; a key is read alone, with a reader of its own:
    // keys name a result's fields, and two in a row ("system", then
    // "prompt") are structure, not a sentence.
    let mut keys = Reader::default();
    let mut each = |piece: Piece| match piece {
        Piece::Value(s) => in_text(s, reader, true),
        Piece::Key(s) => in_text(s, &mut keys, false),
        Piece::Other => {
            reader.break_off();
            None
        }
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let read = Strings {
        each: &mut each,
        found: &mut found,
        key: false,
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end());
    // What was found before the reader stopped is the better reason.
    match (found, read) {
        (Some(found), _) => Ok(Some(found)),
        (None, read) => read.map(|()| None),
    }
}

/// Why the result of a call is untrusted, if it is: what it holds first (a
/// phrase addressed to the model, hidden text), then what its tool said of
/// itself. `result` is the result's JSON text as the page wrote it, or, for
/// a call that failed, the reason the agent is told (page text too). A
/// result that cannot be read is untrusted (`Because::Unreadable`): the agent
/// gets it all the same, so a check that fails must not clear it.
pub fn untrusted(result: Result<&str, &str>, declared: Declared) -> Option<Found> {
    let mut reader = Reader::default();
    let found = match result {
        // Most results are cleared at a first look (`clear`), without reading
        // each string.
        Ok(text) if clear::clear(text) => None,
        Ok(text) => in_json(text, &mut reader).unwrap_or_else(|_| {
            Some(Found {
                because: Because::Unreadable,
                excerpt: excerpt(text, 0),
            })
        }),
        Err(reason) => in_text(reason, &mut reader, false),
    };
    if found.is_some() {
        return found;
    }
    // What the phrase list cleared, the learned detector reads, unless the
    // tool's own word makes the result untrusted anyway.
    if !declared.hint && !declared.flagged {
        if let Some(found) = reads_as_instructions(result) {
            return Some(found);
        }
    }
    // A result that failed holds none of the declared content.
    let because = match (result.is_ok(), declared) {
        (true, Declared { hint: true, .. }) => Because::Declared,
        (_, Declared { flagged: true, .. }) => Because::Flagged,
        _ => return None,
    };
    // A text result quoted as its text, anything else as its JSON.
    let text = match result {
        Ok(text) | Err(text) => text,
    };
    let excerpt = match result.ok().map(serde_json::from_str::<String>) {
        Some(Ok(string)) => excerpt(&string, 0),
        _ => excerpt(text, 0),
    };
    Some(Found { because, excerpt })
}

/// The learned detector's reading of a result (docs/cards.md, "After
/// untrusted content"): its string values, each a line of its own (keys
/// name fields, and are left out), or the reason a failed call gives; the
/// span it reads as instructions to the agent, if any. Weights it cannot
/// read leave every result unread, so untrusted.
fn reads_as_instructions(result: Result<&str, &str>) -> Option<Found> {
    let text = match result {
        Ok(json) => values_of(json),
        Err(reason) => reason.to_owned(),
    };
    match instructions_in(&text, EXCERPT_CHARS) {
        Ok(found) => found.map(|Instructions { span, .. }| Found {
            excerpt: span.clone(),
            because: Because::ReadsAsInstructions { span },
        }),
        Err(NoDetector) => Some(Found {
            because: Because::Unreadable,
            excerpt: excerpt(&text, 0),
        }),
    }
}

/// The string values of the JSON text `json` in order, a line feed after
/// each; as far as it can be read (the phrase list's reading has already
/// found what cannot be).
fn values_of(json: &str) -> String {
    let mut text = String::new();
    let mut each = |piece: Piece| {
        if let Piece::Value(s) = piece {
            text.push_str(s);
            text.push('\n');
        }
        None
    };
    let mut found = None;
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let _ = Strings {
        each: &mut each,
        found: &mut found,
        key: false,
    }
    .deserialize(&mut deserializer);
    text
}

#[cfg(test)]
mod detector_tests;
#[cfg(test)]
mod tests;
