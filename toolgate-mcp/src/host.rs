//! The native-messaging host: what the browser starts, a small proxy.
//!
//! Browser (extension) <-[native messaging, stdin/stdout]-> host
//! <-[per-user socket]-> stdio servers, one connection per MCP session.
//!
//! Each connection speaks for one session: its first message must be
//! `Open`, and any later message for another session closes it, so one
//! client can never act as another. Messages toward the browser are held to
//! its 1 MB limit (the client is told why when one is refused); the
//! browser's messages are routed to their session's connection by
//! `session`, and dropped when no connection has it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};
use tokio_util::codec::{FramedRead, FramedWrite};
use toolgate::protocol::bridge::{FromAgent, ToAgent, MAX_TO_BROWSER};
use toolgate::protocol::RpcError;

use crate::framing;
use crate::transport::{self, Accepted, Listener, Stream};

/// Each open session's connection, as the sender of frames to write to it.
#[derive(Clone, Default)]
struct Routes(Arc<Mutex<HashMap<String, UnboundedSender<Bytes>>>>);

impl Routes {
    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, UnboundedSender<Bytes>>) -> R) -> R {
        // A panic elsewhere cannot leave the map half-changed: every change
        // is one insert or remove.
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Runs the host until the browser closes the port; returns the exit code.
///
/// `origin` is the caller Chrome named (`chrome-extension://<id>/`); Chrome
/// has already checked it against the manifest's `allowed_origins`.
pub async fn run(origin: &str) -> u8 {
    let path = transport::socket_path();
    let listener = match transport::listen(&path).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("toolgate-mcp host: {e}");
            return 1;
        }
    };
    eprintln!(
        "toolgate-mcp host: started by {origin}, listening on {}",
        listener.path().display()
    );
    let routes = Routes::default();
    let (to_browser, outbox) = mpsc::unbounded_channel();
    let code = tokio::select! {
        code = read_browser(tokio::io::stdin(), routes.clone()) => code,
        code = write_browser(tokio::io::stdout(), outbox) => code,
        code = accept(&listener, routes, to_browser) => code,
    };
    listener.remove();
    code
}

/// Routes the browser's messages until it closes the port: 0 then, 1 when
/// the stream broke (a frame over the limit, EOF inside a frame).
async fn read_browser(stdin: impl tokio::io::AsyncRead + Unpin, routes: Routes) -> u8 {
    let mut frames = FramedRead::new(stdin, framing::from_browser());
    while let Some(frame) = frames.next().await {
        let frame = match frame {
            Ok(frame) => frame.freeze(),
            Err(e) => {
                eprintln!("toolgate-mcp host: the browser's stream broke ({e}); stopping");
                return 1;
            }
        };
        match framing::decode::<ToAgent>(&frame) {
            Ok(message) => {
                let sent = routes.with(|r| r.get(message.session()).map(|c| c.send(frame)));
                if sent.is_none() {
                    eprintln!(
                        "toolgate-mcp host: dropped a message for session {:?}, which is not open",
                        message.session()
                    );
                }
            }
            Err(e) => {
                eprintln!("toolgate-mcp host: refused a message from the browser: {e}");
                // A reply that cannot be read still ends its call, which
                // would otherwise wait for ever.
                if let Some((session, id)) = framing::unreadable_reply(&frame) {
                    let reply = ToAgent::Reply {
                        reply: framing::unread_reply(&id, &e),
                        session,
                    };
                    if let Ok(frame) = framing::encode(&reply, usize::MAX) {
                        routes.with(|r| r.get(reply.session()).map(|c| c.send(frame)));
                    }
                }
            }
        }
    }
    0
}

/// Writes frames to the browser; 1 when it can no longer be written to.
async fn write_browser(
    stdout: impl tokio::io::AsyncWrite + Unpin,
    mut outbox: UnboundedReceiver<Bytes>,
) -> u8 {
    let mut sink = FramedWrite::new(stdout, framing::to_browser());
    while let Some(frame) = outbox.recv().await {
        if let Err(e) = sink.send(frame).await {
            eprintln!("toolgate-mcp host: cannot write to the browser ({e}); stopping");
            return 1;
        }
    }
    0
}

async fn accept(listener: &Listener, routes: Routes, to_browser: UnboundedSender<Bytes>) -> u8 {
    loop {
        match listener.accept().await {
            Ok(Accepted::Ours(stream)) => {
                tokio::spawn(serve(stream, routes.clone(), to_browser.clone()));
            }
            Ok(Accepted::Refused(uid)) => {
                eprintln!("toolgate-mcp host: refused a connection from another user ({uid:?})");
            }
            Err(e) => {
                eprintln!("toolgate-mcp host: the socket broke ({e}); stopping");
                return 1;
            }
        }
    }
}

/// Why a connection is closed before its peer closed it.
enum Refusal {
    /// Said on stderr only: the peer opened no session, so there is no one to
    /// tell.
    Quiet(String),
    /// Said on stderr and to the session, as an error reply.
    Told(String),
}

/// Serves one connection: one session.
async fn serve(stream: Stream, routes: Routes, to_browser: UnboundedSender<Bytes>) {
    let (read, write) = transport::split(stream);
    let mut frames = FramedRead::new(read, framing::socket());
    let mut out = FramedWrite::new(write, framing::socket());
    let (session, open) = match opening(frames.next().await) {
        Ok(opened) => opened,
        Err(why) => {
            eprintln!("toolgate-mcp host: closed a connection: {why}");
            return;
        }
    };
    let (tx, mut inbox) = mpsc::unbounded_channel();
    if !routes.with(|r| insert_new(r, &session, tx)) {
        eprintln!("toolgate-mcp host: refused a second connection for session {session:?}");
        return;
    }
    // A session the browser never saw opened is not closed there either.
    let (opened, end) = match framing::encode(&open, MAX_TO_BROWSER) {
        Ok(frame) => {
            let _ = to_browser.send(frame);
            let end = relay(&session, &mut frames, &mut out, &mut inbox, &to_browser).await;
            (true, end)
        }
        Err(e) => (
            false,
            Some(Refusal::Told(format!("refused the session's opening: {e}"))),
        ),
    };
    routes.with(|r| r.remove(&session));
    match end {
        Some(Refusal::Told(why)) => {
            eprintln!("toolgate-mcp host: closed session {session:?}: {why}");
            let reply = error_reply(&session, Value::Null, &why);
            let _ = out.send(reply).await;
        }
        Some(Refusal::Quiet(why)) => {
            eprintln!("toolgate-mcp host: closed session {session:?}: {why}")
        }
        None => {}
    }
    if !opened {
        return;
    }
    if let Ok(close) = framing::encode(&FromAgent::Close { session }, MAX_TO_BROWSER) {
        let _ = to_browser.send(close);
    }
}

fn insert_new(
    routes: &mut HashMap<String, UnboundedSender<Bytes>>,
    session: &str,
    tx: UnboundedSender<Bytes>,
) -> bool {
    if routes.contains_key(session) {
        return false;
    }
    routes.insert(session.to_owned(), tx);
    true
}

/// The connection's first message: it must open a session.
fn opening(
    first: Option<Result<bytes::BytesMut, std::io::Error>>,
) -> Result<(String, FromAgent), String> {
    let frame = match first {
        None => return Err("it sent nothing".into()),
        Some(Err(e)) => return Err(format!("its first frame is broken ({e})")),
        Some(Ok(frame)) => frame,
    };
    match framing::decode::<FromAgent>(&frame) {
        Ok(open @ FromAgent::Open { .. }) => {
            let session = open.session().to_owned();
            if session.is_empty() {
                return Err("it opened a session with no id".into());
            }
            Ok((session, open))
        }
        Ok(other) => Err(format!(
            "its first message must open a session, not {:?}",
            kind(&other)
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Relays one session's messages both ways until either side ends it;
/// `None` when the peer closed or said `Close`.
async fn relay(
    session: &str,
    frames: &mut FramedRead<transport::ReadHalf, tokio_util::codec::LengthDelimitedCodec>,
    out: &mut FramedWrite<transport::WriteHalf, tokio_util::codec::LengthDelimitedCodec>,
    inbox: &mut UnboundedReceiver<Bytes>,
    to_browser: &UnboundedSender<Bytes>,
) -> Option<Refusal> {
    loop {
        tokio::select! {
            frame = frames.next() => {
                let frame = match frame {
                    None => return None,
                    Some(Err(e)) => return Some(Refusal::Quiet(format!("its stream broke ({e})"))),
                    Some(Ok(frame)) => frame,
                };
                let message = match framing::decode::<FromAgent>(&frame) {
                    Ok(message) => message,
                    Err(e) => return Some(Refusal::Told(e.to_string())),
                };
                if message.session() != session {
                    return Some(Refusal::Told(format!(
                        "a connection speaks for its own session only, and this message is for \
                         session {:?}",
                        message.session()
                    )));
                }
                match message {
                    FromAgent::Close { .. } => return None,
                    FromAgent::Open { .. } => {
                        return Some(Refusal::Told("the session is open already".into()))
                    }
                    message => match framing::encode(&message, MAX_TO_BROWSER) {
                        Ok(frame) => {
                            let _ = to_browser.send(frame);
                        }
                        Err(e) => {
                            eprintln!("toolgate-mcp host: refused a message of session {session:?}: {e}");
                            let id = match &message {
                                FromAgent::Request { request, .. } => {
                                    request.get("id").cloned().unwrap_or(Value::Null)
                                }
                                _ => Value::Null,
                            };
                            let reply = error_reply(session, id, &format!("Toolgate refused the request: {e}"));
                            if out.send(reply).await.is_err() {
                                return None;
                            }
                        }
                    },
                }
            }
            reply = inbox.recv() => match reply {
                Some(frame) => {
                    if let Err(e) = out.send(frame).await {
                        return Some(Refusal::Quiet(format!("cannot write to it ({e})")));
                    }
                }
                None => return None,
            },
        }
    }
}

fn kind(message: &FromAgent) -> &'static str {
    match message {
        FromAgent::Open { .. } => "open",
        FromAgent::Request { .. } => "request",
        FromAgent::Cancel { .. } => "cancel",
        FromAgent::Close { .. } => "close",
    }
}

/// A JSON-RPC error reply to `session`, as a frame.
fn error_reply(session: &str, id: Value, message: &str) -> Bytes {
    let error = RpcError::InvalidRequest(message.to_owned());
    let reply = ToAgent::Reply {
        session: session.to_owned(),
        reply: toolgate::protocol::error_reply(&id, &error).value(),
    };
    framing::encode(&reply, usize::MAX).unwrap_or_default()
}
