//! The stdio server's side of the socket: one session, connected lazily,
//! reconnected at the next call after the host went away.
//!
//! Each forwarded call gets a JSON-RPC id unique in the session (a counter);
//! the host's replies and waiting notices come back by that id.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::codec::{FramedRead, FramedWrite};
use tokio_util::sync::CancellationToken;
use toolgate::protocol::bridge::{FromAgent, ToAgent, MAX_TO_BROWSER};

use crate::framing;
use crate::transport;

/// The calls waiting for a reply, by their id's JSON text.
type Pending = Arc<Mutex<HashMap<String, Waiter>>>;

struct Waiter {
    reply: oneshot::Sender<Value>,
    waiting: mpsc::UnboundedSender<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One connection to the host.
struct Conn {
    /// Frames to write, each a message encoded once where it is made.
    outbox: mpsc::UnboundedSender<Bytes>,
    pending: Pending,
    /// Cancelled when the connection ended (either half).
    gone: CancellationToken,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl Conn {
    /// Queues a message that is not a call (open, cancel, close) for the
    /// writer. Its size is not checked here: the host holds what crosses to
    /// the browser to the browser's limit.
    fn send(&self, message: &FromAgent) {
        if let Ok(frame) = framing::encode(message, usize::MAX) {
            let _ = self.outbox.send(frame);
        }
    }
}

/// A session's link to the host.
pub struct Link {
    path: PathBuf,
    session: String,
    client: Mutex<String>,
    /// The chat is opened Read only (`--read-only`): every tool that is not
    /// Read is off for it.
    read_only: bool,
    conn: tokio::sync::Mutex<Option<Arc<Conn>>>,
    next_id: AtomicU64,
}

/// Why a call did not get its reply.
#[derive(Debug)]
pub enum CallError {
    /// No host answers on the socket.
    Unreachable(PathBuf, io::Error),
    /// The connection ended while the call waited.
    Dropped,
    /// The call is over the browser's message limit.
    TooLarge(framing::TooLarge),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Unreachable(path, e) => write!(
                f,
                "Toolgate is not reachable: the browser is not running, or Toolgate is not \
                 installed in it, or it has not started toolgate-mcp (no socket at {}: {e}). \
                 Run `toolgate-mcp doctor`.",
                path.display()
            ),
            CallError::Dropped => f.write_str(
                "The connection to Toolgate closed while this call waited (the browser closed, \
                 or Toolgate stopped its host). The call's outcome is unknown; the next call \
                 connects again.",
            ),
            CallError::TooLarge(e) => write!(f, "Toolgate refused the call: {e}"),
        }
    }
}

/// A forwarded call, waiting.
pub struct Call {
    /// The id the extension knows the call by.
    pub id: Value,
    /// The extension's JSON-RPC response; an error when the connection ended.
    pub reply: oneshot::Receiver<Value>,
    /// The messages of the extension's waiting notices (a card opened).
    pub waiting: mpsc::UnboundedReceiver<String>,
}

/// A new session id: 128 random bits, in hex.
///
/// # Errors
///
/// When the system has no randomness to give.
pub fn new_session() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Link {
    pub fn new(path: PathBuf, session: String, read_only: bool) -> Link {
        Link {
            path,
            session,
            read_only,
            client: Mutex::new(String::new()),
            conn: tokio::sync::Mutex::new(None),
            next_id: AtomicU64::new(1),
        }
    }

    /// Names the session's client (`initialize`'s `clientInfo.name`).
    pub fn set_client(&self, name: &str) {
        *lock(&self.client) = name.to_owned();
    }

    /// Opens the session with the host, if it is there.
    ///
    /// # Errors
    ///
    /// [`CallError::Unreachable`] when no host answers on the socket.
    pub async fn open(&self) -> Result<(), CallError> {
        self.connection().await.map(drop)
    }

    /// The live connection, made (and the session opened on it) if needed.
    async fn connection(&self) -> Result<Arc<Conn>, CallError> {
        let mut held = self.conn.lock().await;
        if let Some(conn) = held.as_ref().filter(|c| !c.gone.is_cancelled()) {
            return Ok(conn.clone());
        }
        let stream = transport::connect(&self.path)
            .await
            .map_err(|e| CallError::Unreachable(self.path.clone(), e))?;
        let conn = Arc::new(start(stream, self.session.clone()));
        let client = lock(&self.client).clone();
        conn.send(&FromAgent::Open {
            session: self.session.clone(),
            client,
            read_only: self.read_only,
        });
        *held = Some(conn.clone());
        Ok(conn)
    }

    /// Forwards one `tools/call` to the extension.
    ///
    /// # Errors
    ///
    /// [`CallError::Unreachable`] when no host answers;
    /// [`CallError::TooLarge`] when the call is over the browser's limit.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<Call, CallError> {
        let id = json!(self.next_id.fetch_add(1, Ordering::Relaxed));
        let mut params = json!({"name": name});
        if let Some(arguments) = arguments {
            params["arguments"] = Value::Object(arguments);
        }
        let request = FromAgent::Request {
            session: self.session.clone(),
            request: json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
        };
        // Encoded once: the frame checked against the browser's limit is the
        // frame written.
        let frame = framing::encode(&request, MAX_TO_BROWSER).map_err(CallError::TooLarge)?;
        let conn = self.connection().await?;
        let (reply_tx, reply) = oneshot::channel();
        let (waiting_tx, waiting) = mpsc::unbounded_channel();
        lock(&conn.pending).insert(
            id.to_string(),
            Waiter {
                reply: reply_tx,
                waiting: waiting_tx,
            },
        );
        if conn.outbox.send(frame).is_err() || conn.gone.is_cancelled() {
            lock(&conn.pending).remove(&id.to_string());
            return Err(CallError::Dropped);
        }
        Ok(Call { id, reply, waiting })
    }

    /// Withdraws a call the client cancelled.
    pub async fn cancel(&self, call: &Call) {
        let held = self.conn.lock().await;
        if let Some(conn) = held.as_ref() {
            lock(&conn.pending).remove(&call.id.to_string());
            conn.send(&FromAgent::Cancel {
                session: self.session.clone(),
                request_id: call.id.clone(),
            });
        }
    }

    /// Ends the session: `Close` written to the host (waited for, briefly),
    /// and the connection closed.
    pub async fn close(&self) {
        let Some(conn) = self.conn.lock().await.take() else {
            return;
        };
        conn.send(&FromAgent::Close {
            session: self.session.clone(),
        });
        let writer = lock(&conn.writer).take();
        drop(conn);
        if let Some(writer) = writer {
            let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
        }
    }
}

/// Starts a connection's two halves. The writer ends when every sender of
/// its outbox is gone (after a `Close`) or when writing fails; the reader
/// when the host closes. Either end fails the calls still waiting.
fn start(stream: transport::Stream, session: String) -> Conn {
    let (read, write) = transport::split(stream);
    let (outbox, mut rx) = mpsc::unbounded_channel::<Bytes>();
    let pending: Pending = Arc::default();
    let gone = CancellationToken::new();

    let writer = {
        let (pending, gone) = (pending.clone(), gone.clone());
        tokio::spawn(async move {
            let mut sink = FramedWrite::new(write, framing::socket());
            loop {
                let frame = tokio::select! {
                    f = rx.recv() => f,
                    () = gone.cancelled() => None,
                };
                let Some(frame) = frame else { break };
                if sink.send(frame).await.is_err() {
                    break;
                }
            }
            gone.cancel();
            lock(&pending).clear();
        })
    };

    {
        let (pending, gone) = (pending.clone(), gone.clone());
        tokio::spawn(async move {
            let mut frames = FramedRead::new(read, framing::socket());
            loop {
                let frame = tokio::select! {
                    f = frames.next() => f,
                    () = gone.cancelled() => None,
                };
                let Some(Ok(frame)) = frame else { break };
                match framing::decode::<ToAgent>(&frame) {
                    Ok(message) if message.session() == session => deliver(&pending, message),
                    Ok(_) => eprintln!("toolgate-mcp: dropped a message for another session"),
                    Err(e) => {
                        eprintln!("toolgate-mcp: refused a message from the host: {e}");
                        // A reply that cannot be read still ends its call.
                        match framing::unreadable_reply(&frame) {
                            Some((to, id)) if to == session => {
                                let reply = framing::unread_reply(&id, &e);
                                deliver(&pending, ToAgent::Reply { session: to, reply });
                            }
                            _ => {}
                        }
                    }
                }
            }
            gone.cancel();
            // Dropping the waiters' senders fails their calls.
            lock(&pending).clear();
        });
    }

    Conn {
        outbox,
        pending,
        gone,
        writer: Mutex::new(Some(writer)),
    }
}

fn deliver(pending: &Pending, message: ToAgent) {
    match message {
        ToAgent::Reply { reply, .. } => {
            let id = reply.get("id").map(Value::to_string).unwrap_or_default();
            if let Some(waiter) = lock(pending).remove(&id) {
                let _ = waiter.reply.send(reply);
            } else {
                eprintln!("toolgate-mcp: dropped a reply to no waiting call (id {id})");
            }
        }
        ToAgent::Waiting {
            request_id,
            message,
            ..
        } => {
            if let Some(waiter) = lock(pending).get(&request_id.to_string()) {
                let _ = waiter.waiting.send(message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_128_random_bits_in_hex() {
        let a = new_session().expect("random");
        let b = new_session().expect("random");
        assert_eq!(a.len(), 32);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    #[test]
    fn unreachable_names_the_socket_and_the_doctor() {
        let e = CallError::Unreachable(
            "/run/x/host.sock".into(),
            io::Error::from(io::ErrorKind::NotFound),
        );
        let text = e.to_string();
        assert!(text.starts_with("Toolgate is not reachable"));
        assert!(text.contains("/run/x/host.sock") && text.contains("toolgate-mcp doctor"));
    }
}
