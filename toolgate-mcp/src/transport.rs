//! The per-user meeting point of stdio servers and the host: the one platform
//! part of toolgate-mcp. The rest of toolgate-mcp sees only [`Stream`] (and
//! [`split`]), [`Listener`], [`listen`] and [`connect`].
//!
//! - Unix (`transport/unix.rs`): a socket file, owner-only, peers' uids checked.
//! - Windows (`transport/windows.rs`): a named pipe whose DACL grants this
//!   user's SID alone, peers' SIDs checked.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;
