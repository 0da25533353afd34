//! The per-user meeting point of stdio servers and the host: the one platform
//! part of toolgate-mcp. The rest of toolgate-mcp sees only [`Stream`] (and
//! [`split`]), [`Listener`], [`listen`] and [`connect`].
//!
//! - Unix (`transport/unix.rs`): a socket file, owner-only, peers' uids checked.
//! - Windows (`transport/windows.rs`): a named pipe whose DACL grants this
//!   user's SID alone, peers' SIDs checked.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// The environment variable that names the socket (or pipe) outright.
pub const SOCKET_VAR: &str = "TOOLGATE_SOCKET";

/// Why the host cannot listen.
#[derive(Debug)]
pub enum ListenError {
    /// The socket's folder is not safe to use (not ours, open to others,
    /// not a folder). Unix only: a pipe has no folder.
    #[cfg(unix)]
    Folder(String),
    /// Something that is not a stale socket of ours, or a pipe someone else
    /// holds, is at the path.
    Occupied(String),
    /// Another host already answers there.
    AlreadyRunning(PathBuf),
    Io(PathBuf, io::Error),
}

impl fmt::Display for ListenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            #[cfg(unix)]
            ListenError::Folder(why) => f.write_str(why),
            ListenError::Occupied(why) => f.write_str(why),
            ListenError::AlreadyRunning(path) => write!(
                f,
                "another toolgate-mcp host already answers on {} (a second browser, or a second \
                 profile, with Toolgate); this one stops. Close the other browser, or give each \
                 its own {SOCKET_VAR}",
                path.display()
            ),
            ListenError::Io(path, e) => write!(f, "cannot listen on {}: {e}", path.display()),
        }
    }
}

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;
