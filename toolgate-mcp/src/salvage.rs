//! What can still be read of a message that does not parse: the members of
//! its top-level object, found by a lenient scan. A request that cannot be
//! read whole is answered by its id all the same (JSON-RPC 2.0's error
//! carries the request's id, or `null` when it cannot be found), so that its
//! client does not wait for ever (docs/agents.md).
//!
//! The scan reads the text once, left to right, with no recursion and no
//! allocation, so its cost is bounded by the text's length, which the
//! readers bound already (a line, a frame). It only finds where values start
//! and end and judges none of them: a number no JSON reader here can carry,
//! or text broken after the member sought, does not stop it.

use serde_json::Value;

/// The top-level members of the object `text` holds, in order: each the raw
/// text of its name (between the quotes, escapes as written) and of its
/// value. The scan stops at the object's end or at the first thing that is
/// not a member.
pub struct Members<'a> {
    text: &'a [u8],
    at: usize,
    closed: bool,
    stopped: bool,
}

impl<'a> Members<'a> {
    pub fn of(text: &'a [u8]) -> Members<'a> {
        let at = skip_space(text, 0);
        let object = text.get(at) == Some(&b'{');
        Members {
            text,
            at: at + 1,
            closed: false,
            stopped: !object,
        }
    }

    /// Whether the scan reached the object's closing brace: every member was
    /// seen, so a member not seen is not there.
    pub fn closed(&self) -> bool {
        self.closed
    }

    fn member(&mut self) -> Option<(&'a [u8], &'a [u8])> {
        let text = self.text;
        let mut at = skip_space(text, self.at);
        if text.get(at) == Some(&b',') {
            at = skip_space(text, at + 1);
        }
        match text.get(at) {
            Some(b'}') => {
                self.closed = true;
                return None;
            }
            Some(b'"') => {}
            _ => return None,
        }
        let name_end = string_end(text, at)?;
        let colon = skip_space(text, name_end);
        if text.get(colon) != Some(&b':') {
            return None;
        }
        let start = skip_space(text, colon + 1);
        let end = value_end(text, start)?;
        self.at = end;
        Some((&text[at + 1..name_end - 1], &text[start..end]))
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped {
            return None;
        }
        let member = self.member();
        self.stopped = member.is_none();
        member
    }
}

/// The raw text of member `name`'s value (its first, if it is there twice).
pub fn member<'a>(text: &'a [u8], name: &str) -> Option<&'a [u8]> {
    Members::of(text)
        .find(|(key, _)| *key == name.as_bytes())
        .map(|(_, value)| value)
}

/// A JSON-RPC id read from its raw text: a string or a number, as written.
/// Anything else (`null`, an object, a number out of range) is no id.
pub fn id(raw: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(raw)
        .ok()
        .filter(|v| v.is_string() || v.is_number())
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// Just past the closing quote of the string whose opening quote is at `at`.
fn string_end(text: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while let Some(byte) = text.get(i) {
        match byte {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Just past the value that starts at `at`.
fn value_end(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => string_end(text, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(byte) = text.get(i) {
                match byte {
                    b'"' => {
                        i = string_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        // A number, `true`, `false`, `null`, or a word no JSON has: read as
        // far as the next member, or the object's end, would begin.
        _ => {
            let len = text[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .unwrap_or(text.len() - at);
            (len > 0).then_some(at + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id_of(text: &str) -> Option<Value> {
        member(text.as_bytes(), "id").and_then(id)
    }

    #[test]
    fn the_id_is_found_before_and_after_a_number_out_of_range() {
        assert_eq!(id_of(r#"{"id":3,"params":{"x":1e400}}"#), Some(json!(3)));
        assert_eq!(
            id_of(r#"{"params":{"x":[1e400, "}{"]}, "id" : "a\"b"}"#),
            Some(json!("a\"b"))
        );
    }

    #[test]
    fn an_id_nested_deeper_or_inside_a_string_is_not_the_id() {
        assert_eq!(id_of(r#"{"params":{"id":1},"x":"\"id\":2"}"#), None);
    }

    #[test]
    fn an_id_before_the_text_breaks_is_found_one_after_is_not() {
        assert_eq!(id_of(r#"{"id":7,"params":{"x":tru"#), Some(json!(7)));
        assert_eq!(id_of(r#"{"params":{"x":"#), None);
        assert_eq!(id_of("not json"), None);
        assert_eq!(id_of(r#"["id", 1]"#), None);
    }

    #[test]
    fn only_a_string_or_a_number_is_an_id() {
        assert_eq!(id_of(r#"{"id":1.5}"#), Some(json!(1.5)));
        assert_eq!(id_of(r#"{"id":null}"#), None);
        assert_eq!(id_of(r#"{"id":{"a":1}}"#), None);
        assert_eq!(id_of(r#"{"id":1e400}"#), None);
    }

    #[test]
    fn a_whole_object_is_closed_and_a_cut_one_is_not() {
        let mut whole = Members::of(br#" {"a":1, "b":[2]} "#);
        assert_eq!(whole.by_ref().count(), 2);
        assert!(whole.closed());
        let mut cut = Members::of(br#"{"a":1, "b":[2"#);
        assert_eq!(cut.by_ref().count(), 1);
        assert!(!cut.closed());
    }
}
