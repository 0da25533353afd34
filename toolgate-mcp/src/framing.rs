//! Frames: a 4-byte length in the machine's own byte order, then that many
//! bytes of UTF-8 JSON, one message per frame.
//!
//! Chrome's native messaging frames stdin and stdout this way; the socket
//! between the stdio server and the host uses the same framing, so a frame
//! from the browser can cross to its session's connection untouched.
//! tokio-util's `LengthDelimitedCodec` does the byte work (partial reads
//! included); this module fixes its shape and the limits, and reads and
//! writes the bridge's messages.

use std::fmt;

use bytes::Bytes;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;
use tokio_util::codec::LengthDelimitedCodec;
use toolgate::protocol::bridge::{MAX_FROM_BROWSER, MAX_TO_BROWSER};
use toolgate::protocol::RpcError;

use crate::salvage;

/// The codec for frames of at most `max` bytes (the length prefix excluded).
/// A longer frame is an error on both reading and writing: reading stops at
/// its length prefix, before any of its bytes are buffered.
pub fn codec(max: usize) -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .length_field_length(4)
        .native_endian()
        .max_frame_length(max)
        .new_codec()
}

/// What the host reads from the browser on stdin.
pub fn from_browser() -> LengthDelimitedCodec {
    codec(MAX_FROM_BROWSER)
}

/// What the host writes to the browser on stdout.
pub fn to_browser() -> LengthDelimitedCodec {
    codec(MAX_TO_BROWSER)
}

/// The socket, both ways. It carries the browser's replies whole, so it takes
/// the browser's larger limit; what crosses on to the browser is held to
/// [`MAX_TO_BROWSER`] where it crosses (with a reply that says so), not by
/// dropping the connection.
pub fn socket() -> LengthDelimitedCodec {
    codec(MAX_FROM_BROWSER)
}

/// A frame that holds no message of the expected kind.
#[derive(Debug)]
pub enum Malformed {
    /// The bytes are not JSON (or not UTF-8).
    NotJson(serde_json::Error),
    /// JSON, but not one of the messages this side reads.
    NotMessage(serde_json::Error),
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::NotJson(e) => write!(f, "the frame is not JSON ({e})"),
            Malformed::NotMessage(e) => write!(f, "the frame is not a Toolgate message ({e})"),
        }
    }
}

/// Reads one message from a frame's bytes.
///
/// # Errors
///
/// [`Malformed::NotJson`] when the bytes are not UTF-8 JSON,
/// [`Malformed::NotMessage`] when the JSON is not a `T` (an unknown `type`,
/// a missing or unknown field).
pub fn decode<T: DeserializeOwned>(frame: &[u8]) -> Result<T, Malformed> {
    // One pass over the bytes, straight into `T`; only a frame that fails is
    // read again, to say whether it is JSON at all.
    serde_json::from_slice(frame).map_err(|e| {
        match serde_json::from_slice::<serde::de::IgnoredAny>(frame) {
            Ok(_) => Malformed::NotMessage(e),
            Err(e) => Malformed::NotJson(e),
        }
    })
}

/// The session and the JSON-RPC id of a reply whose frame cannot be read,
/// where the lenient scan (`salvage`) finds both: the call waiting for it
/// can then be failed, not left to wait for ever.
pub fn unreadable_reply(frame: &[u8]) -> Option<(String, Value)> {
    if salvage::member(frame, "type")? != br#""reply""# {
        return None;
    }
    let session = serde_json::from_slice(salvage::member(frame, "session")?).ok()?;
    let id = salvage::id(salvage::member(salvage::member(frame, "reply")?, "id")?)?;
    Some((session, id))
}

/// The reply that fails the call `id` whose reply frame cannot be read:
/// a JSON-RPC internal error saying why.
pub fn unread_reply(id: &Value, why: &Malformed) -> Value {
    let error = RpcError::Internal(format!(
        "Toolgate's reply could not be read, so the call's outcome is unknown: {why}"
    ));
    toolgate::protocol::error_reply(id, &error).value()
}

/// A message too large for the hop it was meant for.
#[derive(Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The message's size in bytes, as JSON.
    pub len: usize,
    /// The hop's limit.
    pub max: usize,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the message is {} bytes, over the {} bytes the browser takes in one message",
            self.len, self.max
        )
    }
}

/// Writes one message as a frame's bytes (the codec adds the length).
///
/// # Errors
///
/// [`TooLarge`] when its JSON is over `max` bytes.
pub fn encode<T: Serialize>(message: &T, max: usize) -> Result<Bytes, TooLarge> {
    // Serializing these types (strings and `Value`s) cannot fail; were it to,
    // the empty frame that results is refused on the other side as not JSON.
    let bytes = serde_json::to_vec(message).unwrap_or_default();
    if bytes.len() > max {
        return Err(TooLarge {
            len: bytes.len(),
            max,
        });
    }
    Ok(Bytes::from(bytes))
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use bytes::BytesMut;
    use futures::{SinkExt, StreamExt};
    use serde_json::json;
    use tokio::io::{AsyncRead, ReadBuf};
    use tokio_util::codec::{Decoder, Encoder, FramedRead};
    use toolgate::protocol::bridge::{FromAgent, ToAgent};

    use super::*;

    /// A reader that hands out its bytes one at a time, each read a new poll.
    struct Trickle {
        bytes: Vec<u8>,
        at: usize,
    }

    impl AsyncRead for Trickle {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            if self.at < self.bytes.len() {
                let at = self.at;
                buf.put_slice(&self.bytes[at..at + 1]);
                self.at += 1;
            }
            // Wake at once: the next byte is "later", not never.
            cx.waker().wake_by_ref();
            Poll::Ready(Ok(()))
        }
    }

    fn framed(payload: &[u8]) -> Vec<u8> {
        let mut out = (payload.len() as u32).to_ne_bytes().to_vec();
        out.extend_from_slice(payload);
        out
    }

    fn reply(session: &str) -> ToAgent {
        ToAgent::Reply {
            session: session.into(),
            reply: json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
        }
    }

    async fn read_all(bytes: Vec<u8>, max: usize) -> Vec<Result<BytesMut, String>> {
        let frames = FramedRead::new(Trickle { bytes, at: 0 }, codec(max));
        frames.map(|f| f.map_err(|e| e.to_string())).collect().await
    }

    #[test]
    fn a_frame_is_written_with_a_native_endian_four_byte_length() {
        let message = reply("s1");
        let payload = encode(&message, MAX_TO_BROWSER).expect("small");
        let mut out = BytesMut::new();
        to_browser()
            .encode(payload.clone(), &mut out)
            .expect("fits");
        assert_eq!(&out[..4], &(payload.len() as u32).to_ne_bytes());
        assert_eq!(&out[4..], &payload[..]);
        assert_eq!(decode::<ToAgent>(&out[4..]).expect("a message"), message);
    }

    #[test]
    fn a_frame_is_read_by_its_native_endian_four_byte_length() {
        let open = FromAgent::Open {
            session: "s1".into(),
            client: "Claude".into(),
            read_only: false,
        };
        let payload = serde_json::to_vec(&open).expect("json");
        let mut bytes = BytesMut::from(&framed(&payload)[..]);
        bytes.extend_from_slice(&[7, 0]); // the start of the next frame
        let frame = from_browser()
            .decode(&mut bytes)
            .expect("no error")
            .expect("a whole frame");
        assert_eq!(decode::<FromAgent>(&frame).expect("a message"), open);
        assert_eq!(&bytes[..], &[7, 0], "the next frame's bytes stay buffered");
    }

    #[test]
    fn a_message_over_one_megabyte_is_refused_toward_the_browser() {
        let big = "x".repeat(MAX_TO_BROWSER);
        let message = FromAgent::Open {
            session: "s".into(),
            client: big,
            read_only: false,
        };
        let err = encode(&message, MAX_TO_BROWSER).expect_err("over the limit");
        assert!(err.len > MAX_TO_BROWSER && err.max == MAX_TO_BROWSER);
        assert!(err.to_string().contains("bytes the browser takes"));
        // And the codec itself refuses to write such a frame.
        let mut out = BytesMut::new();
        let raw = Bytes::from(vec![b' '; MAX_TO_BROWSER + 1]);
        assert!(to_browser().encode(raw, &mut out).is_err());
        let exact = Bytes::from(vec![b' '; MAX_TO_BROWSER]);
        assert!(to_browser().encode(exact, &mut out).is_ok());
    }

    #[test]
    fn a_frame_over_sixty_four_megabytes_is_refused_at_its_length() {
        let mut bytes = BytesMut::from(&((MAX_FROM_BROWSER + 1) as u32).to_ne_bytes()[..]);
        assert!(from_browser().decode(&mut bytes).is_err());
        // Exactly the limit is a frame still coming, not an error.
        let mut bytes = BytesMut::from(&(MAX_FROM_BROWSER as u32).to_ne_bytes()[..]);
        assert!(matches!(from_browser().decode(&mut bytes), Ok(None)));
    }

    #[tokio::test]
    async fn frames_arriving_one_byte_at_a_time_are_read_whole() {
        let first = serde_json::to_vec(&reply("a")).expect("json");
        let second = serde_json::to_vec(&reply("b")).expect("json");
        let mut bytes = framed(&first);
        bytes.extend(framed(&second));
        let frames = read_all(bytes, MAX_FROM_BROWSER).await;
        let read: Vec<ToAgent> = frames
            .into_iter()
            .map(|f| decode(&f.expect("a frame")).expect("a message"))
            .collect();
        assert_eq!(read, vec![reply("a"), reply("b")]);
    }

    #[tokio::test]
    async fn a_stream_that_ends_mid_frame_is_an_error_not_a_short_frame() {
        let payload = serde_json::to_vec(&reply("a")).expect("json");
        let mut bytes = framed(&payload);
        bytes.truncate(bytes.len() - 3);
        let frames = read_all(bytes, MAX_FROM_BROWSER).await;
        assert_eq!(frames.len(), 1);
        assert!(frames[0].is_err(), "{frames:?}");
        // Ending inside the length prefix is the same.
        let frames = read_all(vec![3, 0], MAX_FROM_BROWSER).await;
        assert!(matches!(&frames[..], [Err(_)]), "{frames:?}");
        // Ending between frames is a clean end.
        assert!(read_all(framed(&payload), MAX_FROM_BROWSER)
            .await
            .iter()
            .all(Result::is_ok));
    }

    #[tokio::test]
    async fn a_malformed_frame_is_refused_and_the_next_one_still_read() {
        let good = serde_json::to_vec(&reply("a")).expect("json");
        let mut bytes = framed(b"{not json");
        bytes.extend(framed(br#"{"type":"reply","session":"a"}"#)); // no reply
        bytes.extend(framed(br#"{"type":"open","session":"a","client":"x"}"#)); // wrong way
        bytes.extend(framed(b""));
        bytes.extend(framed(&good));
        let frames = read_all(bytes, MAX_FROM_BROWSER).await;
        let read: Vec<Result<ToAgent, Malformed>> = frames
            .into_iter()
            .map(|f| decode(&f.expect("a frame")))
            .collect();
        assert!(matches!(read[0], Err(Malformed::NotJson(_))));
        assert!(matches!(read[1], Err(Malformed::NotMessage(_))));
        assert!(matches!(read[2], Err(Malformed::NotMessage(_))));
        assert!(matches!(read[3], Err(Malformed::NotJson(_))));
        assert_eq!(read[4].as_ref().expect("the good one"), &reply("a"));
    }

    #[test]
    fn a_message_with_an_unknown_field_or_a_field_twice_is_not_a_message() {
        // Read in one pass, as the core reads it: no last-one-wins.
        for text in [
            &br#"{"type":"close","session":"a","as":"b"}"#[..],
            br#"{"type":"close","session":"a","session":"b"}"#,
        ] {
            assert!(matches!(
                decode::<FromAgent>(text),
                Err(Malformed::NotMessage(_))
            ));
        }
    }

    #[tokio::test]
    async fn frames_written_by_the_sink_read_back_the_same() {
        let (a, b) = tokio::io::duplex(64);
        let mut sink = tokio_util::codec::FramedWrite::new(a, socket());
        let messages = vec![reply("a"), reply("b")];
        let written = messages.clone();
        let writer = tokio::spawn(async move {
            for m in &written {
                sink.send(encode(m, MAX_FROM_BROWSER).expect("small"))
                    .await
                    .expect("written");
            }
        });
        let mut frames = FramedRead::new(b, socket());
        for want in messages {
            let frame = frames.next().await.expect("a frame").expect("no error");
            assert_eq!(decode::<ToAgent>(&frame).expect("a message"), want);
        }
        writer.await.expect("the writer finished");
    }
}
