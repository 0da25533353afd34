//! toolgate-mcp: Toolgate for desktop agents. One binary, five modes:
//!
//! - no arguments: the stdio MCP server an MCP client starts;
//! - `chrome-extension://<id>/` first: the native-messaging host the browser
//!   starts;
//! - `install [--user-data-dir DIR] [--extension-id ID]`: the host manifest
//!   (and, on Windows, the registry keys); `uninstall` removes them;
//! - `doctor [--user-data-dir DIR] [--extension-id ID]`: what is missing.
//!
//! The server and the host meet on a per-user socket or, on Windows, a
//! per-user named pipe (`transport`), framed
//! as native messaging is (`framing`), speaking the core's `toolgate::protocol::bridge`
//! messages.

#![deny(clippy::unwrap_used)]

mod doctor;
mod framing;
mod host;
mod install;
mod link;
mod salvage;
mod server;
mod stdio;
mod transport;

use std::ffi::OsString;
use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "\
toolgate-mcp: lets MCP clients (Claude Desktop, Claude Code, Cursor...) use the browser's
WebMCP tools through Toolgate.

usage:
  toolgate-mcp [--read-only]       the stdio MCP server (what an MCP client runs); with
                                   --read-only its agent may call Read tools only
  toolgate-mcp install [--user-data-dir DIR] [--extension-id ID]
                                   write the native-messaging host manifest for every
                                   Chromium-based browser found, or for DIR only (on
                                   Windows: the manifest, and every browser's registry key)
  toolgate-mcp uninstall [--user-data-dir DIR]
                                   remove what install wrote
  toolgate-mcp doctor [--user-data-dir DIR] [--extension-id ID]
                                   say what is missing; exit 1 if anything is
  toolgate-mcp chrome-extension://ID/
                                   the native-messaging host (the browser runs this)
  toolgate-mcp --version           print its version

MCP client configuration:
  {\"mcpServers\": {\"toolgate\": {\"command\": \"/path/to/toolgate-mcp\"}}}

The socket is $TOOLGATE_SOCKET, else $XDG_RUNTIME_DIR/toolgate/host.sock, else
/tmp/toolgate-<uid>/host.sock. On Windows: $TOOLGATE_SOCKET, else the named pipe
\\\\.\\pipe\\toolgate-<your SID>.
";

enum Mode {
    Server { read_only: bool },
    Host(String),
    Install(install::Options),
    Uninstall(install::Options),
    Doctor(install::Options),
    Help,
    Version,
}

fn mode(args: &[OsString]) -> Result<Mode, String> {
    let Some(first) = args.first() else {
        return Ok(Mode::Server { read_only: false });
    };
    let first = first.to_string_lossy();
    if first.starts_with("chrome-extension://") {
        // Chrome may add `--parent-window=<id>` (Windows); nothing else here
        // needs it.
        return Ok(Mode::Host(first.into_owned()));
    }
    match &*first {
        "--read-only" if args.len() == 1 => Ok(Mode::Server { read_only: true }),
        "install" => install::Options::parse(&args[1..]).map(Mode::Install),
        "uninstall" => install::Options::parse(&args[1..]).map(Mode::Uninstall),
        "doctor" => install::Options::parse(&args[1..]).map(Mode::Doctor),
        "help" | "--help" | "-h" => Ok(Mode::Help),
        "--version" | "-V" => Ok(Mode::Version),
        other => Err(format!("not understood: {other}")),
    }
}

/// Runs `future` on a single-threaded runtime: the host and the server each
/// have a handful of tasks, all waiting on I/O.
fn block_on(future: impl Future<Output = u8>) -> u8 {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => {
            let code = runtime.block_on(future);
            // A read of stdin still under way on a blocking thread would hold
            // a plain drop: it cannot be cancelled.
            runtime.shutdown_timeout(Duration::from_millis(200));
            code
        }
        Err(e) => {
            eprintln!("toolgate-mcp: cannot start: {e}");
            1
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let code = match mode(&args) {
        Ok(Mode::Server { read_only }) => block_on(server::run(read_only)),
        Ok(Mode::Host(origin)) => block_on(host::run(&origin)),
        Ok(Mode::Install(options)) => install::run(&options),
        Ok(Mode::Uninstall(options)) => install::uninstall(&options),
        Ok(Mode::Doctor(options)) => block_on(doctor::run(&options)),
        Ok(Mode::Help) => {
            print!("{USAGE}");
            0
        }
        // The workspace's one version (Cargo.toml), which the extension's
        // manifest and package.json carry too (tests/e2e/package.test.mjs).
        Ok(Mode::Version) => {
            println!("toolgate-mcp {}", env!("CARGO_PKG_VERSION"));
            0
        }
        Err(why) => {
            eprintln!("toolgate-mcp: {why}\n\n{USAGE}");
            2
        }
    };
    ExitCode::from(code)
}
