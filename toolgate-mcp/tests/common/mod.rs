//! Real processes for the tests: the built binary as the host (this test is
//! the browser, on its stdin/stdout with native framing) and as the stdio MCP
//! server (this test is the MCP client, with raw JSON-RPC lines).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const EXE: &str = env!("CARGO_BIN_EXE_toolgate-mcp");
pub const WAIT: Duration = Duration::from_secs(5);
/// The origin the browser names the host's caller by (any id will do: the
/// host leaves the check to Chrome).
pub const ORIGIN: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/";

/// Collects a child's stderr, for messages and for failures. The thread
/// ends at the stream's end: joined once the child exited, the text is all
/// the child wrote (a test that reads it right after the exit would
/// otherwise race the thread).
fn collect(mut from: impl Read + Send + 'static) -> (Arc<Mutex<String>>, JoinHandle<()>) {
    let text = Arc::new(Mutex::new(String::new()));
    let into = text.clone();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = from.read(&mut buf) {
            into.lock()
                .expect("lock")
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    (text, reader)
}

/// Waits for the stderr reader once the child has exited.
fn finish_reading(reader: &mut Option<JoinHandle<()>>) {
    if let Some(reader) = reader.take() {
        let _ = reader.join();
    }
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// Writes one native-messaging frame.
pub fn write_frame(to: &mut impl Write, message: &Value) {
    let bytes = serde_json::to_vec(message).expect("json");
    to.write_all(&(bytes.len() as u32).to_ne_bytes())
        .expect("length");
    to.write_all(&bytes).expect("payload");
    to.flush().expect("flush");
}

/// Reads one native-messaging frame; `None` at the end of the stream.
pub fn read_frame(from: &mut impl Read) -> Option<Value> {
    let mut len = [0u8; 4];
    from.read_exact(&mut len).ok()?;
    let mut bytes = vec![0u8; u32::from_ne_bytes(len) as usize];
    from.read_exact(&mut bytes).ok()?;
    Some(serde_json::from_slice(&bytes).expect("a frame of JSON"))
}

/// The host, with this test as its browser.
pub struct Browser {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<Value>,
    pub stderr: Arc<Mutex<String>>,
    stderr_reader: Option<JoinHandle<()>>,
    pub socket: PathBuf,
}

impl Browser {
    /// Starts a host on `socket`; returns once it answers there.
    pub fn start(socket: &Path) -> Browser {
        let mut browser = Browser::spawn(socket);
        let until = Instant::now() + WAIT;
        while raw_connect(socket).is_err() {
            assert!(
                Instant::now() < until,
                "the host never answered on {}: {}",
                socket.display(),
                browser.stderr()
            );
            if let Some(status) = browser.child.try_wait().expect("try_wait") {
                panic!("the host exited ({status}): {}", browser.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        browser
    }

    /// Starts a host without waiting for it.
    pub fn spawn(socket: &Path) -> Browser {
        let mut child = Command::new(EXE)
            .arg(ORIGIN)
            .env("TOOLGATE_SOCKET", socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the host starts");
        let mut stdout = child.stdout.take().expect("stdout");
        let (tx, frames) = mpsc::channel();
        std::thread::spawn(move || {
            while let Some(frame) = read_frame(&mut stdout) {
                if tx.send(frame).is_err() {
                    break;
                }
            }
        });
        let (stderr, stderr_reader) = collect(child.stderr.take().expect("stderr"));
        Browser {
            stdin: child.stdin.take(),
            child,
            frames,
            stderr,
            stderr_reader: Some(stderr_reader),
            socket: socket.into(),
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().expect("lock").clone()
    }

    /// What the host wrote to stderr, once it holds every one of `lines`
    /// (a thread collects it, a moment behind the host), or as it is after
    /// `WAIT`.
    pub fn stderr_with(&self, lines: &[&str]) -> String {
        let until = Instant::now() + WAIT;
        loop {
            let text = self.stderr();
            if lines.iter().all(|line| text.contains(line)) || Instant::now() >= until {
                return text;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The next message the host hands the browser.
    pub fn recv(&self) -> Value {
        match self.frames.recv_timeout(WAIT) {
            Ok(frame) => frame,
            Err(e) => panic!("no message reached the browser ({e}): {}", self.stderr()),
        }
    }

    /// The next message within `within`, if any.
    pub fn recv_within(&self, within: Duration) -> Option<Value> {
        self.frames.recv_timeout(within).ok()
    }

    /// Sends the host a message, as the extension would.
    pub fn send(&mut self, message: &Value) {
        self.write(&{
            let bytes = serde_json::to_vec(message).expect("json");
            let mut out = (bytes.len() as u32).to_ne_bytes().to_vec();
            out.extend(bytes);
            out
        });
    }

    /// Writes raw bytes to the host's stdin.
    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// Closes the port (the host's stdin); returns how the host exited.
    pub fn close(&mut self) -> ExitStatus {
        self.stdin = None;
        self.exit()
    }

    /// Waits for the host to exit.
    pub fn exit(&mut self) -> ExitStatus {
        match wait_exit(&mut self.child, WAIT) {
            Some(status) => {
                finish_reading(&mut self.stderr_reader);
                status
            }
            None => panic!("the host did not exit: {}", self.stderr()),
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("the host's stderr:\n{}", self.stderr());
        }
    }
}

/// The stdio MCP server, with this test as its MCP client.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Messages read while waiting for another.
    held: Vec<Value>,
    next_id: i64,
    pub stderr: Arc<Mutex<String>>,
    stderr_reader: Option<JoinHandle<()>>,
}

impl Client {
    pub fn start(socket: &Path) -> Client {
        Client::spawn(Command::new(EXE), socket)
    }

    /// Starts the server as another user (the test must run as root).
    #[cfg(unix)]
    pub fn start_as(socket: &Path, uid: u32) -> Client {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(EXE);
        command.uid(uid);
        Client::spawn(command, socket)
    }

    fn spawn(mut command: Command, socket: &Path) -> Client {
        let mut child = command
            .env("TOOLGATE_SOCKET", socket)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line).expect("a line of JSON");
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let (stderr, stderr_reader) = collect(child.stderr.take().expect("stderr"));
        Client {
            stdin: child.stdin.take(),
            child,
            lines,
            held: Vec::new(),
            next_id: 1,
            stderr,
            stderr_reader: Some(stderr_reader),
        }
    }

    fn write(&mut self, message: &Value) {
        self.write_line(&message.to_string());
    }

    /// Writes one line as it is (a message that may not be JSON at all).
    pub fn write_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The error reply whose `id` member is exactly `id` (`null` included,
    /// which a missing `id` is not).
    pub fn error_for(&mut self, id: &Value) -> Value {
        match self.find(WAIT, |m| {
            m.get("id") == Some(id) && m.get("error").is_some()
        }) {
            Some(message) => message,
            None => panic!(
                "no error reply with id {id}: {}",
                self.stderr.lock().expect("lock")
            ),
        }
    }

    /// Sends a request; returns its id.
    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// `initialize` as `name`, then `notifications/initialized`.
    pub fn initialize(&mut self, name: &str) -> Value {
        let id = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": name, "version": "1.0"}}),
        );
        let reply = self.response(id);
        self.notify("notifications/initialized", json!({}));
        reply
    }

    /// Calls a tool; returns the request's id.
    pub fn call(&mut self, name: &str, arguments: Value, meta: Option<Value>) -> i64 {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        self.request("tools/call", params)
    }

    /// The first message that `matches`, within `within`; others are held.
    pub fn find(&mut self, within: Duration, matches: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(at) = self.held.iter().position(&matches) {
            return Some(self.held.remove(at));
        }
        let until = Instant::now() + within;
        loop {
            let left = until.checked_duration_since(Instant::now())?;
            let message = self.lines.recv_timeout(left).ok()?;
            if matches(&message) {
                return Some(message);
            }
            self.held.push(message);
        }
    }

    /// The response to request `id`.
    pub fn response(&mut self, id: i64) -> Value {
        match self.find(WAIT, |m| m["id"] == id && m.get("method").is_none()) {
            Some(message) => message,
            None => panic!("no response to {id}: {}", self.stderr.lock().expect("lock")),
        }
    }

    /// Closes the client's end (stdin).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    pub fn exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let status = wait_exit(&mut self.child, within);
        if status.is_some() {
            finish_reading(&mut self.stderr_reader);
        }
        status
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temporary folder for a test's socket (closed to others, as the host
/// requires of a folder it is given).
#[cfg(unix)]
pub fn socket_dir() -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let socket = dir.path().join("host.sock");
    (dir, socket)
}

/// Windows: a pipe name of the test's own (the folder only makes it unique).
#[cfg(windows)]
pub fn socket_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let unique = dir.path().file_name().expect("a name").to_string_lossy();
    let socket = PathBuf::from(format!(r"\\.\pipe\toolgate-test-{unique}"));
    (dir, socket)
}

/// A raw connection to the host, as a stdio server makes, with reads that
/// give up after [`WAIT`] (Unix).
#[cfg(unix)]
pub fn raw_connect(socket: &Path) -> std::io::Result<std::os::unix::net::UnixStream> {
    let conn = std::os::unix::net::UnixStream::connect(socket)?;
    conn.set_read_timeout(Some(WAIT))?;
    Ok(conn)
}

/// A raw connection to the host's pipe (a pipe opened as a file), waiting
/// while every instance is taken (ERROR_PIPE_BUSY: the host is making the
/// next), as the stdio server does.
#[cfg(windows)]
pub fn raw_connect(socket: &Path) -> std::io::Result<std::fs::File> {
    let until = Instant::now() + WAIT;
    loop {
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(socket)
        {
            Err(e) if e.raw_os_error() == Some(231) && Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// Runs the binary as `command` says, to its end; its output, and all it
/// said (stdout, then stderr).
pub fn run_binary(command: &mut Command) -> (std::process::Output, String) {
    let output = command.output().expect("runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output, text)
}
