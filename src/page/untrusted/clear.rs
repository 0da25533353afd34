//! A quick first look at a result's JSON text, which clears most honest
//! results without reading each string (`untrusted` reads the rest). It
//! runs over the text once, byte by byte, and says a result is clear only
//! when no string in it can hold hidden text or a phrase addressed to the
//! model, as `untrusted` finds them, and the reader would read it whole:
//!
//! - Hidden text needs a hidden character. One that is not ASCII is in the
//!   text as it is, and is seen; an ASCII one can only be in a JSON string as
//!   an escape other than `\n`, `\t` and `\r` (the text's own layout): `\b`,
//!   `\f` or `\u`. Any of these, or any hidden character, and the result is
//!   not clear.
//! - An entity (`&` and a name or number, then `;`) may decode to any
//!   character (`addressed` decodes them): not clear.
//! - A character that is not ASCII is read as what it passes for
//!   (`addressed::folded`: NFKC, lower case, confusable skeleton). One that
//!   passes for ASCII a phrase holds (its letters, a space, `'`, `<`, `>`;
//!   fullwidth "（" passes for "(", in none) is not clear, except a letter with its accents (an
//!   ASCII letter followed by marks, which no phrase can hold: a phrase's
//!   next byte is ASCII, and one ending in a letter must end a word), an
//!   apostrophe (which the look reads as one, below), and a look-alike in a
//!   word that cannot be a phrase's (`word`: one with a letter that passes
//!   for no ASCII one, as most Russian or Greek words have, or one that reads
//!   as none of the phrases' words).
//! - Without them, a string's characters are the text's own, or the escapes
//!   `\n`, `\t`, `\r` (whitespace), `\"`, `\\` and `\/` (in no phrase). The
//!   text the phrases are matched on then differs from the string only in
//!   case, in whitespace (a run of it is one space), in apostrophes, and in
//!   the strings read together, a space between (`Reader::read_on`): a phrase
//!   it holds is in the JSON text with its letters in any case, each space
//!   one or more whitespace characters, escapes of them, bytes of JSON
//!   between two strings (`"`, `,`, `:`, brackets) or keys with their colon
//!   (keys are read apart), and its apostrophe any character read as one. So a result is not clear where a phrase is in
//!   the text so; where its words stand does not matter here, which only
//!   makes the look more careful. The look stops only at a byte of each
//!   phrase's first word (`ANCHORS`), and tries the phrase from where it
//!   would begin.
//! - Outside its strings, it counts nesting and reads numbers (`between`), as
//!   the reader would fail on them.

use crate::page::addressed::{folded, OTHER_WORD, PHRASES};
use crate::page::hidden::hidden;

/// Where the look stops for each phrase: a byte of its first word, the
/// rarest in text, by its place (`ignore`'s "g", `system`'s "y"). Within the
/// first word, so that where the phrase would begin is that many bytes back.
const ANCHORS: [usize; PHRASES.len()] = [1, 1, 1, 5, 0, 0, 0, 0, 1, 0, 0, 0];

/// For each byte, the phrases (bits over `PHRASES`) whose anchor it is, in
/// either case.
const AT_ANCHOR: [u16; 256] = {
    let mut at = [0_u16; 256];
    let mut k = 0;
    while k < PHRASES.len() {
        let anchor = PHRASES[k].as_bytes()[ANCHORS[k]];
        at[anchor as usize] |= 1 << k;
        at[anchor.to_ascii_uppercase() as usize] |= 1 << k;
        k += 1;
    }
    at
};

/// The bytes the look stops at: a phrase's anchor, an escape, and the first
/// byte of a character that is not ASCII. Most of a text is none.
const STOPS: [bool; 256] = {
    let mut stops = [false; 256];
    let mut b = 0;
    while b < 256 {
        stops[b] = AT_ANCHOR[b] != 0 || matches!(b as u8, b'\\' | b'"' | b'&') || b >= 0x80;
        b += 1;
    }
    stops
};

/// How many bytes at `at` are one whitespace character, an escape of one
/// (`\n`, `\t`, `\r`), a byte of JSON between two strings, or a key and its
/// colon (the reader reads string values together, keys apart); 0 for
/// anything else.
fn whitespace(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes.get(at) {
        Some(b'"') => key(bytes, at).unwrap_or(1),
        Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b'[' | b']' | b'{' | b'}') => 1,
        Some(b'\\') if matches!(bytes.get(at + 1), Some(b'n' | b't' | b'r')) => 2,
        Some(&b) if !b.is_ascii() => text[at..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
            .map_or(0, char::len_utf8),
        _ => 0,
    }
}

/// What the look needs of a character outside ASCII, read once.
#[derive(Clone, Copy, Default)]
struct Fold {
    /// [`plain`].
    plain: bool,
    /// Part of a word: not hidden, and read as letters or digits only (ASCII
    /// ones, or [`OTHER_WORD`]).
    wordish: bool,
    /// Read as a letter that passes for no ASCII one, in part at least.
    other_word: bool,
}

impl Fold {
    fn of(c: char) -> Self {
        let seen = folded(c);
        let wordish = !hidden(c)
            && !seen.is_empty()
            && seen
                .iter()
                .all(|&b| b == OTHER_WORD || b.is_ascii_alphanumeric());
        Fold {
            plain: plain(c, &seen),
            wordish,
            other_word: seen.contains(&OTHER_WORD),
        }
    }
}

/// How many characters' folds the look remembers: a text in Japanese uses
/// hundreds.
const FOLDS: usize = 1024;

/// What the look learnt of characters outside ASCII, by their code point's
/// last bits: most texts use a few, many times, and a fold costs a
/// normalisation and a table search (NUL, ASCII, is never looked up).
struct Known {
    folds: Vec<(char, Fold)>,
    /// Characters asked about as an apostrophe, and the answer.
    apostrophes: [(char, bool); 16],
}

impl Known {
    fn new() -> Self {
        Known {
            folds: Vec::new(),
            apostrophes: [('\0', false); 16],
        }
    }

    fn fold(&mut self, c: char) -> Fold {
        if self.folds.is_empty() {
            self.folds = vec![('\0', Fold::default()); FOLDS];
        }
        let slot = &mut self.folds[c as usize % FOLDS];
        if slot.0 != c {
            *slot = (c, Fold::of(c));
        }
        slot.1
    }

    /// Whether `c`, which is not ASCII, is read as an apostrophe.
    fn apostrophe(&mut self, c: char) -> bool {
        let slot = &mut self.apostrophes[c as usize % 16];
        if slot.0 != c {
            *slot = (c, folded(c) == b"'");
        }
        slot.1
    }
}

/// Where the word around byte `at` ends, when no phrase can be in it: a word
/// (letters and digits, as the text has them, each read as letters or digits
/// only) that holds a letter passing for no ASCII one ("привет": a phrase is
/// ASCII, and one that ends or begins with a letter must end or begin a
/// word), or that reads as ASCII but as none of the phrases' words ("сор").
/// `None` where one might be.
fn word(text: &str, at: usize, known: &mut Known) -> Option<usize> {
    let bytes = text.as_bytes();
    let wordish = |c: char, known: &mut Known| {
        if c.is_ascii() {
            c.is_ascii_alphanumeric().then_some(false)
        } else {
            let fold = known.fold(c);
            fold.wordish.then_some(fold.other_word)
        }
    };
    let (mut start, mut end, mut other) = (at, at, false);
    for (i, c) in text[..at].char_indices().rev() {
        let Some(other_word) = wordish(c, known) else {
            break;
        };
        // After an odd run of backslashes the letter is an escape's (`\n`,
        // `\t`, `\r`: whitespace; the rest are never cleared), not the word's.
        let backslashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 1 {
            break;
        }
        other |= other_word;
        start = i;
    }
    for (i, c) in text[at..].char_indices() {
        let Some(other_word) = wordish(c, known) else {
            break;
        };
        other |= other_word;
        end = at + i + c.len_utf8();
    }
    if other {
        return Some(end);
    }
    let mut seen = Vec::new();
    for c in text[start..end].chars() {
        if c.is_ascii() {
            seen.push(c.to_ascii_lowercase() as u8);
        } else {
            seen.extend(folded(c));
        }
    }
    let phrase_word = PHRASES
        .iter()
        .flat_map(|phrase| phrase.split(|c: char| !c.is_ascii_alphanumeric()))
        .any(|word| word.as_bytes() == seen.as_slice());
    (!phrase_word).then_some(end)
}

/// How many bytes at `at`, a quote, are a string followed by a colon (a
/// key, as the look sees it: more is taken for one only makes it more
/// careful), the colon included.
fn key(bytes: &[u8], at: usize) -> Option<usize> {
    let mut end = at + 1;
    loop {
        match bytes.get(end)? {
            b'"' => break,
            b'\\' => end += 2,
            _ => end += 1,
        }
    }
    let colon = end
        + 1
        + bytes
            .get(end + 1..)?
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    (bytes.get(colon) == Some(&b':')).then_some(colon + 1 - at)
}

/// Whether `phrase` is at byte `at` of `text`, as the module says.
fn at_phrase(text: &str, mut at: usize, phrase: &str, known: &mut Known) -> bool {
    let bytes = text.as_bytes();
    for &p in phrase.as_bytes() {
        match p {
            b' ' => {
                let mut n = whitespace(text, at);
                if n == 0 {
                    return false;
                }
                while n > 0 {
                    at += n;
                    n = whitespace(text, at);
                }
            }
            b'\'' => {
                at += match text[at..].chars().next() {
                    Some('\'') => 1,
                    Some(c) if !c.is_ascii() && known.apostrophe(c) => c.len_utf8(),
                    _ => return false,
                };
            }
            _ => {
                if bytes.get(at).map(u8::to_ascii_lowercase) != Some(p) {
                    return false;
                }
                at += 1;
            }
        }
    }
    true
}

/// Nesting deeper than this is not cleared: serde_json's reader stops at
/// 128 levels, and a result it cannot read is untrusted (`Because::Unreadable`).
const DEPTH: usize = 100;

/// Reads `text` outside its strings from byte `at` (structure, numbers,
/// literals, whitespace) to the next string's opening quote or the end: its
/// offset, or `None` where the reader might stop (nesting past [`DEPTH`], a
/// number no `f64` holds).
fn between(text: &str, mut at: usize, depth: &mut usize) -> Option<usize> {
    let bytes = text.as_bytes();
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => return Some(at),
            b'[' | b'{' => {
                *depth += 1;
                if *depth > DEPTH {
                    return None;
                }
            }
            b']' | b'}' => *depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let end = bytes[at..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
                    .map_or(bytes.len(), |n| at + n);
                // serde_json fails on a number past `f64`'s range; well short
                // of it is clear.
                let number = text[at..end].parse::<f64>().ok()?;
                if number.is_nan() || number.abs() >= 1e300 {
                    return None;
                }
                at = end;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    Some(at)
}

/// Whether the JSON text `text` is clear: none of its strings can hold
/// hidden text or a phrase addressed to the model (the module says how), and
/// the reader would read it to its end. It is handed JSON text (the session
/// checked it is): a lone surrogate, which the reader cannot read, needs a
/// `\u` escape, which is never cleared.
pub fn clear(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut depth = 0;
    let mut at = 0;
    let mut known = Known::new();
    loop {
        // Outside a string, then inside one to its closing quote.
        match between(text, at, &mut depth) {
            None => return false,
            Some(quote) if quote >= bytes.len() => return true,
            Some(quote) => at = quote + 1,
        }
        loop {
            while bytes.get(at).is_some_and(|&b| !STOPS[usize::from(b)]) {
                at += 1;
            }
            let Some(&byte) = bytes.get(at) else {
                return true;
            };
            if byte == b'"' {
                at += 1;
                break;
            }
            if byte == b'\\' {
                match bytes.get(at + 1) {
                    Some(b'u' | b'b' | b'f') => return false,
                    // The escaped character is in no phrase's first place.
                    Some(next) if next.is_ascii() => at += 2,
                    // Not JSON: the next character is read as any other.
                    _ => at += 1,
                }
                continue;
            }
            if byte == b'&' {
                if entity(bytes, at) {
                    return false;
                }
                at += 1;
                continue;
            }
            if !byte.is_ascii() {
                let Some(c) = text[at..].chars().next() else {
                    return false;
                };
                let fold = known.fold(c);
                if fold.plain {
                    at += c.len_utf8();
                    continue;
                }
                // A look-alike in a word: the word may still hold no phrase.
                match word(text, at, &mut known).filter(|_| fold.wordish) {
                    Some(end) => at = end,
                    None => return false,
                }
                continue;
            }
            if at_any_phrase(text, at, byte, &mut known) {
                return false;
            }
            at += 1;
        }
    }
}

/// Whether an entity may begin at `at`, a `&`: a name or number, then `;`
/// (the only ones `addressed` decodes). The longest name is 31 bytes.
fn entity(bytes: &[u8], at: usize) -> bool {
    let name = bytes[at + 1..]
        .iter()
        .take(40)
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'#'));
    name.is_some_and(|n| n > 0 && bytes.get(at + 1 + n) == Some(&b';'))
}

/// Whether `c`, which is not ASCII and is read as `seen`, is clear as the
/// module says: not hidden, and whitespace, or read as no byte a phrase
/// holds, as an apostrophe, or as a letter with its accents.
fn plain(c: char, seen: &[u8]) -> bool {
    if hidden(c) {
        return false;
    }
    if c.is_whitespace() {
        return true;
    }
    match seen {
        [b'\''] => true,
        [first, rest @ ..] if first.is_ascii_alphanumeric() && !rest.is_empty() => {
            rest.iter().all(|&b| b == OTHER_WORD) || in_no_phrase(seen)
        }
        _ => in_no_phrase(seen),
    }
}

/// Whether no byte of `seen` is in a phrase (fullwidth punctuation such as
/// "（" reads as "("): then no phrase can hold any of it.
fn in_no_phrase(seen: &[u8]) -> bool {
    const IN_PHRASES: [bool; 128] = {
        let mut in_phrases = [false; 128];
        let mut k = 0;
        while k < PHRASES.len() {
            let bytes = PHRASES[k].as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                in_phrases[bytes[i] as usize] = true;
                i += 1;
            }
            k += 1;
        }
        in_phrases
    };
    seen.iter()
        .all(|&b| !b.is_ascii() || !IN_PHRASES[usize::from(b)])
}

/// Whether a phrase whose anchor is `byte`, at `at`, is there.
fn at_any_phrase(text: &str, at: usize, byte: u8, known: &mut Known) -> bool {
    let mut candidates = AT_ANCHOR[usize::from(byte)];
    let next = text.as_bytes().get(at + 1).map(u8::to_ascii_lowercase);
    while candidates != 0 {
        let k = candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        // Most candidates differ at the next byte ("go", "day", "yes").
        let (phrase, anchor) = (PHRASES[k], ANCHORS[k]);
        if next != phrase.as_bytes().get(anchor + 1).copied() {
            continue;
        }
        if at
            .checked_sub(anchor)
            .is_some_and(|start| at_phrase(text, start, phrase, known))
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_anchor_is_in_its_phrase_s_first_word() {
        for (phrase, anchor) in PHRASES.iter().zip(ANCHORS) {
            let word = phrase.split([' ', '\'']).next().unwrap_or_default();
            assert!(anchor + 1 < word.len(), "{phrase}: {anchor}");
        }
    }
}
