//! A quick first look at a result's JSON text, which clears most honest
//! results without reading each string (`untrusted` reads the rest). It
//! runs over the text once, byte by byte, and says a result is clear only
//! when no string in it can hold hidden text or a phrase addressed to the
//! model, as `untrusted` finds them:
//!
//! - Hidden text needs a hidden character. One that is not ASCII is in the
//!   text as it is, and is seen; an ASCII one can only be in a JSON string as
//!   an escape other than `\n`, `\t` and `\r` (the text's own layout): `\b`,
//!   `\f` or `\u`. Any of these, or any hidden character, and the result is
//!   not clear.
//! - Without them, a string's characters are the text's own, or the escapes
//!   `\n`, `\t`, `\r` (whitespace), `\"`, `\\` and `\/` (in no phrase). The
//!   text the phrases are matched on (`addressed`) then differs from the
//!   string only in case, in whitespace (a run of it is one space) and in the
//!   typographic apostrophes made plain: a phrase it holds is in the JSON
//!   text with its letters in any case, each space one or more whitespace
//!   characters or escapes, and its apostrophe any of them. No lower case
//!   of a character that is not ASCII is part of a phrase (a test in
//!   `addressed` holds the two that are ASCII to it). So a result is not
//!   clear where a phrase is in the text so; where its words stand does not
//!   matter here, which only makes the look more careful. The look stops
//!   only at a byte of each phrase's first word (`ANCHORS`), and tries the
//!   phrase from where it would begin.

use crate::page::addressed::PHRASES;
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
        stops[b] = AT_ANCHOR[b] != 0 || b == b'\\' as usize || b == b'"' as usize || b >= 0x80;
        b += 1;
    }
    stops
};

/// How many bytes at `at` are one whitespace character, or an escape of
/// one (`\n`, `\t`, `\r`); 0 for anything else.
fn whitespace(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes.get(at) {
        Some(b' ' | b'\t' | b'\n' | b'\r') => 1,
        Some(b'\\') if matches!(bytes.get(at + 1), Some(b'n' | b't' | b'r')) => 2,
        Some(&b) if !b.is_ascii() => text[at..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
            .map_or(0, char::len_utf8),
        _ => 0,
    }
}

/// Whether `phrase` is at byte `at` of `text`, as the module says.
fn at_phrase(text: &str, mut at: usize, phrase: &str) -> bool {
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
                let rest = &bytes[at..];
                at += match rest {
                    [b'\'', ..] => 1,
                    // U+2018 and U+2019, and U+02BC.
                    [0xE2, 0x80, 0x98 | 0x99, ..] => 3,
                    [0xCA, 0xBC, ..] => 2,
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
            if !byte.is_ascii() {
                let Some(c) = text[at..].chars().next() else {
                    return false;
                };
                if hidden(c) {
                    return false;
                }
                at += c.len_utf8();
                continue;
            }
            if at_any_phrase(text, at, byte) {
                return false;
            }
            at += 1;
        }
    }
}

/// Whether a phrase whose anchor is `byte`, at `at`, is there.
fn at_any_phrase(text: &str, at: usize, byte: u8) -> bool {
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
            .is_some_and(|start| at_phrase(text, start, phrase))
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
