//! The stdio server's MCP transport: JSON-RPC messages one per line, as
//! rmcp's own stdio transport reads and writes them, except that every
//! request among the lines that cannot be read is answered.
//!
//! rmcp's transport drops a line that is not JSON, and a number out of a
//! double's range (`1e400`) counts as not JSON to serde_json; a line that is
//! JSON but not a message gets an error without the request's id. Either way
//! the client waits for ever. Here each such request gets a JSON-RPC error
//! carrying its id, found by a lenient scan (`salvage`), or `null` when none
//! can be found, as JSON-RPC 2.0 asks: -32700 Parse error for text that
//! cannot be parsed, -32600 Invalid Request for JSON that is not a request
//! (docs/agents.md lists the messages). Unreadable notifications and
//! responses get no reply: JSON-RPC answers requests only, and answering a
//! response could start an endless exchange of errors with a peer that
//! answers errors.

use std::future::Future;
use std::io;
use std::sync::Arc;

use bytes::{BufMut, BytesMut};
use futures::{SinkExt, StreamExt};
use rmcp::model::{ClientRequest, ErrorCode, ErrorData, JsonRpcRequest};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Mutex;
use tokio_util::codec::{Decoder, Encoder, FramedRead, FramedWrite};

use crate::salvage;

/// The longest line read, as rmcp's stdio transport takes by default: a
/// longer one is dropped unread, and answered as one without an id.
pub const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

type Writer<W> = Arc<Mutex<Option<FramedWrite<W, Lines>>>>;

/// MCP over a reader and a writer of lines.
pub struct Stdio<R, W> {
    lines: FramedRead<R, Lines>,
    out: Writer<W>,
}

impl<R: AsyncRead, W: AsyncWrite> Stdio<R, W> {
    pub fn new(read: R, write: W) -> Stdio<R, W> {
        Stdio {
            lines: FramedRead::new(read, Lines::default()),
            out: Arc::new(Mutex::new(Some(FramedWrite::new(write, Lines::default())))),
        }
    }
}

/// Writes one message as a line, unless the transport is closed.
async fn write<W: AsyncWrite + Unpin, T: Serialize>(out: &Writer<W>, item: T) -> io::Result<()> {
    match out.lock().await.as_mut() {
        Some(lines) => lines.send(item).await,
        None => Err(io::Error::new(
            io::ErrorKind::NotConnected,
            "the transport is closed",
        )),
    }
}

impl<R, W> Transport<RoleServer> for Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = io::Result<()>> + Send + 'static {
        let out = self.out.clone();
        async move { write(&out, item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        // rmcp polls this among other events and drops it when another comes
        // first: nothing is awaited between taking a line and acting on it,
        // and `FramedRead` keeps a partial line for the next call.
        loop {
            let verdict = match self.lines.next().await? {
                Ok(Line::Text(line)) => read(&line),
                Ok(Line::TooLong) => Verdict::Refused(
                    Value::Null,
                    ErrorData::new(
                        ErrorCode::INVALID_REQUEST,
                        format!(
                            "Invalid Request: the message is over the {MAX_LINE} bytes \
                             toolgate-mcp reads in one line, and was not read"
                        ),
                        None,
                    ),
                ),
                // The client's end of stdin is gone, or a last line was left
                // without its newline: the session is over.
                Err(_) => return None,
            };
            match verdict {
                Verdict::Message(message) => return Some(*message),
                Verdict::Unanswered(why) => {
                    eprintln!("toolgate-mcp: dropped a message it cannot read ({why})");
                }
                Verdict::Refused(id, error) => {
                    eprintln!(
                        "toolgate-mcp: refused a request (id {id}): {}",
                        error.message
                    );
                    let reply = ErrorReply {
                        jsonrpc: "2.0",
                        id,
                        error,
                    };
                    // Written by a task of its own, as rmcp writes its
                    // replies, so that this read can be dropped at any point.
                    let out = self.out.clone();
                    tokio::spawn(async move { write(&out, reply).await });
                }
            }
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        drop(self.out.lock().await.take());
        Ok(())
    }
}

/// A JSON-RPC error reply, its members in the usual order.
#[derive(Serialize)]
struct ErrorReply {
    jsonrpc: &'static str,
    id: Value,
    error: ErrorData,
}

/// What to do with one line.
#[derive(Debug)]
enum Verdict {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// An unreadable notification or response, or an empty line: no reply,
    /// for the reason given.
    Unanswered(String),
    /// A request that cannot be read, answered with this error and id.
    Refused(Value, ErrorData),
}

/// Reads one line: serde_json takes its newline for white space, and a byte
/// order mark before it is left out, as rmcp's transport leaves it out.
fn read(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Unanswered("an empty line".into());
    }
    let e = match serde_json::from_slice(line) {
        Ok(message) => return Verdict::Message(Box::new(message)),
        Err(e) => e,
    };
    let mut members = salvage::Members::of(line);
    let (mut id, mut method, mut answer) = (None, false, false);
    for (name, value) in members.by_ref() {
        match name {
            b"id" => id = id.or(Some(value)),
            b"method" => method = true,
            b"result" | b"error" => answer = true,
            _ => {}
        }
    }
    // A response, or a notification seen whole (an id cannot come after
    // the object's end), is not answered.
    if answer && !method {
        return Verdict::Unanswered(format!("a response: {e}"));
    }
    if method && id.is_none() && members.closed() {
        return Verdict::Unanswered(format!("a notification: {e}"));
    }
    let usable = id.and_then(salvage::id);
    let error = if e.is_data() {
        let why = match (&usable, id) {
            (Some(Value::Number(n)), _) if !n.is_i64() => {
                "its id must be a string or an integer (of 64 bits at most)".into()
            }
            (None, Some(_)) => "its id must be a string or an integer".into(),
            _ => request_error(line).unwrap_or_else(|| e.to_string()),
        };
        ErrorData::new(
            ErrorCode::INVALID_REQUEST,
            format!(
                "Invalid Request: the message is JSON but not a request toolgate-mcp reads: {why}"
            ),
            None,
        )
    } else {
        ErrorData::new(ErrorCode::PARSE_ERROR, parse_error(&e), None)
    };
    Verdict::Refused(usable.unwrap_or(Value::Null), error)
}

/// What is wrong with a line that holds a method, read as a request alone:
/// that says more than rmcp's reading of any message does.
fn request_error(line: &[u8]) -> Option<String> {
    let e = serde_json::from_slice::<JsonRpcRequest<ClientRequest>>(line).err()?;
    let method = salvage::member(line, "method")?;
    let method = serde_json::from_slice::<String>(method).ok()?;
    // rmcp's requests are an untagged enum, whose error names no field.
    Some(if e.to_string().contains("untagged enum ClientRequest") {
        format!("its params are not those of {method:?}")
    } else {
        e.to_string()
    })
}

/// What is wrong with text serde_json cannot parse, in a sentence.
fn parse_error(e: &serde_json::Error) -> String {
    // serde_json gives its reasons as text only; this one is worth its own
    // sentence, since the text is otherwise JSON.
    if e.to_string().starts_with("number out of range") {
        format!(
            "Parse error: the message holds a number that JSON cannot carry here (beyond a \
             double's range, about ±1.8e308), at line {} column {}",
            e.line(),
            e.column()
        )
    } else {
        format!("Parse error: the message is not JSON ({e})")
    }
}

/// Lines of at most [`MAX_LINE`] bytes in, messages as lines out.
#[derive(Default)]
struct Lines {
    /// Where the search for the newline goes on.
    searched: usize,
    /// The rest of a line too long to read is being skipped.
    skipping: bool,
}

enum Line {
    Text(BytesMut),
    TooLong,
}

impl Decoder for Lines {
    type Item = Line;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Line>> {
        loop {
            let Some(at) = buf[self.searched..].iter().position(|b| *b == b'\n') else {
                if self.skipping {
                    buf.clear();
                    self.searched = 0;
                } else if buf.len() > MAX_LINE {
                    buf.clear();
                    self.searched = 0;
                    self.skipping = true;
                    return Ok(Some(Line::TooLong));
                } else {
                    self.searched = buf.len();
                }
                return Ok(None);
            };
            let line = buf.split_to(self.searched + at + 1);
            self.searched = 0;
            if !std::mem::take(&mut self.skipping) {
                return Ok(Some(Line::Text(line)));
            }
        }
    }
}

impl<T: Serialize> Encoder<T> for Lines {
    type Error = io::Error;

    fn encode(&mut self, item: T, buf: &mut BytesMut) -> io::Result<()> {
        serde_json::to_writer(buf.writer(), &item)?;
        buf.put_u8(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refused(line: &str) -> (Value, ErrorData) {
        match read(line.as_bytes()) {
            Verdict::Refused(id, error) => (id, error),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_good_request_is_rmcps_with_or_without_a_byte_order_mark() {
        for line in [
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n",
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
        ] {
            assert!(matches!(read(line.as_bytes()), Verdict::Message(_)));
        }
    }

    #[test]
    fn a_number_out_of_range_is_a_parse_error_that_says_so() {
        let (id, error) =
            refused(r#"{"jsonrpc":"2.0","id":"x","method":"ping","params":{"n":1e400}}"#);
        assert_eq!(id, json!("x"));
        assert_eq!(error.code, ErrorCode::PARSE_ERROR);
        assert!(error.message.contains("cannot carry") && error.message.contains("column 61"));
    }

    #[test]
    fn a_line_cut_short_after_its_method_is_still_answered() {
        let (id, error) = refused(r#"{"jsonrpc":"2.0","method":"tools/list","id""#);
        assert_eq!((id, error.code), (Value::Null, ErrorCode::PARSE_ERROR));
    }

    #[test]
    fn an_id_that_is_neither_a_string_nor_a_number_is_answered_with_null() {
        let (id, error) = refused(r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#);
        assert_eq!((id, error.code), (Value::Null, ErrorCode::INVALID_REQUEST));
        assert!(error.message.contains("its id must be"));
    }

    #[test]
    fn empty_lines_are_skipped_unanswered() {
        assert!(matches!(read(b" \r\n"), Verdict::Unanswered(_)));
    }

    #[test]
    fn a_line_too_long_is_skipped_to_its_end_and_the_next_is_read() {
        let mut codec = Lines::default();
        let mut buf = BytesMut::from(&vec![b'x'; MAX_LINE + 1][..]);
        assert!(matches!(codec.decode(&mut buf), Ok(Some(Line::TooLong))));
        buf.extend_from_slice(b"still the long line\n{}\n");
        match codec.decode(&mut buf) {
            Ok(Some(Line::Text(line))) => assert_eq!(&line[..], b"{}\n"),
            _ => panic!("the next line is read"),
        }
        assert!(buf.is_empty());
    }
}
