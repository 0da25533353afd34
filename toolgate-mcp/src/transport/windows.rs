//! Windows: a named pipe, `\\.\pipe\toolgate-<SID>`, made with a security
//! descriptor whose DACL grants this user's SID alone (protected, so nothing
//! is inherited), refusing remote clients; the host makes the pipe's first
//! instance (so nobody can have made it before), and on every connection
//! each side checks the other's token: the host the client process's user,
//! the client the server process's user.

use super::{ListenError, SOCKET_VAR};
use std::ffi::c_void;
use std::io;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::windows::named_pipe::{
    ClientOptions, NamedPipeClient, NamedPipeServer, ServerOptions,
};
use windows_sys::Win32::Foundation::{CloseHandle, LocalFree, HANDLE};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW, SDDL_REVISION_1,
};
use windows_sys::Win32::Security::{
    GetTokenInformation, TokenUser, SECURITY_ATTRIBUTES, TOKEN_QUERY, TOKEN_USER,
};
use windows_sys::Win32::System::Pipes::{GetNamedPipeClientProcessId, GetNamedPipeServerProcessId};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION,
};

/// ERROR_PIPE_BUSY: every instance is taken (the host is between two).
const PIPE_BUSY: i32 = 231;
/// ERROR_NO_DATA: the client closed its end before the host connected it.
const NO_DATA: i32 = 232;

/// One connection on the pipe: the host's end or a client's.
pub enum Stream {
    Server(NamedPipeServer),
    Client(NamedPipeClient),
}

pub type ReadHalf = tokio::io::ReadHalf<Stream>;
pub type WriteHalf = tokio::io::WriteHalf<Stream>;

/// Splits a connection into its reading and writing halves.
pub fn split(stream: Stream) -> (ReadHalf, WriteHalf) {
    tokio::io::split(stream)
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Server(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Client(c) => Pin::new(c).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Server(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Client(c) => Pin::new(c).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Server(s) => Pin::new(s).poll_flush(cx),
            Stream::Client(c) => Pin::new(c).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Server(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Client(c) => Pin::new(c).poll_shutdown(cx),
        }
    }
}

/// The user SID (as `S-1-5-...`) of a process's token.
fn process_sid(process: HANDLE) -> io::Result<String> {
    // SAFETY: every out-pointer is valid for the call; the token handle and
    // the string are released on every path.
    unsafe {
        let mut token: HANDLE = std::ptr::null_mut();
        if OpenProcessToken(process, TOKEN_QUERY, &mut token) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut buf = vec![0u64; 64];
        let mut len = 0u32;
        let ok = GetTokenInformation(
            token,
            TokenUser,
            buf.as_mut_ptr().cast(),
            (buf.len() * 8) as u32,
            &mut len,
        );
        let err = io::Error::last_os_error();
        CloseHandle(token);
        if ok == 0 {
            return Err(err);
        }
        let user = &*(buf.as_ptr() as *const TOKEN_USER);
        let mut text: *mut u16 = std::ptr::null_mut();
        if ConvertSidToStringSidW(user.User.Sid, &mut text) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut n = 0;
        while *text.add(n) != 0 {
            n += 1;
        }
        let sid = String::from_utf16_lossy(std::slice::from_raw_parts(text, n));
        LocalFree(text.cast());
        Ok(sid)
    }
}

/// This process's user, as a SID string.
pub fn sid() -> io::Result<String> {
    // SAFETY: the pseudo-handle of the current process needs no closing.
    process_sid(unsafe { GetCurrentProcess() })
}

/// The user of process `pid`.
fn pid_sid(pid: u32) -> io::Result<String> {
    // SAFETY: the handle is checked and closed.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return Err(io::Error::last_os_error());
        }
        let sid = process_sid(process);
        CloseHandle(process);
        sid
    }
}

/// Where the pipe is: `$TOOLGATE_SOCKET`, else `\\.\pipe\toolgate-<SID>`.
pub fn socket_path() -> PathBuf {
    if let Some(path) = std::env::var_os(SOCKET_VAR).filter(|s| !s.is_empty()) {
        return PathBuf::from(path);
    }
    PathBuf::from(format!(
        r"\\.\pipe\toolgate-{}",
        sid().unwrap_or_else(|_| "unknown".into())
    ))
}

/// The pipe's security descriptor, in SDDL: owner and sole grantee this
/// user; `P` keeps inherited entries out.
fn sddl(sid: &str) -> String {
    format!("O:{sid}D:P(A;;GA;;;{sid})")
}

/// Makes one instance of the pipe with the owner-only descriptor.
fn instance(path: &Path, sddl: &str, first: bool) -> io::Result<NamedPipeServer> {
    let wide: Vec<u16> = sddl.encode_utf16().chain(Some(0)).collect();
    let mut descriptor: *mut c_void = std::ptr::null_mut();
    // SAFETY: `wide` is NUL-terminated; the descriptor is freed below, after
    // the pipe was made with it (the pipe keeps its own copy).
    unsafe {
        if ConvertStringSecurityDescriptorToSecurityDescriptorW(
            wide.as_ptr(),
            SDDL_REVISION_1,
            &mut descriptor,
            std::ptr::null_mut(),
        ) == 0
        {
            return Err(io::Error::last_os_error());
        }
        let mut attributes = SECURITY_ATTRIBUTES {
            nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
            lpSecurityDescriptor: descriptor,
            bInheritHandle: 0,
        };
        let made = ServerOptions::new()
            .first_pipe_instance(first)
            .reject_remote_clients(true)
            .create_with_security_attributes_raw(path, (&raw mut attributes).cast());
        LocalFree(descriptor);
        made
    }
}

/// The host's pipe: the instance the next client will connect to.
pub struct Listener {
    next: tokio::sync::Mutex<NamedPipeServer>,
    path: PathBuf,
    sddl: String,
    sid: String,
}

/// One accepted connection.
pub enum Accepted {
    /// From a process of this user.
    Ours(Stream),
    /// From another user (the SID), or from a peer whose user cannot be read.
    Refused(Option<String>),
}

/// Listens on `path`, making the pipe's first instance.
///
/// # Errors
///
/// [`ListenError::AlreadyRunning`] when a host of ours answers there;
/// [`ListenError::Occupied`] when someone else holds the name.
pub async fn listen(path: &Path) -> Result<Listener, ListenError> {
    let sid = sid().map_err(|e| ListenError::Io(path.into(), e))?;
    // A host of ours answering: say so. (The first-instance flag below also
    // refuses a name someone holds; Wine does not enforce it.)
    if connect(path).await.is_ok() {
        return Err(ListenError::AlreadyRunning(path.into()));
    }
    let sddl = sddl(&sid);
    match instance(path, &sddl, true) {
        Ok(first) => Ok(Listener {
            next: tokio::sync::Mutex::new(first),
            path: path.into(),
            sddl,
            sid,
        }),
        // The name is taken: ours answering, or someone else's.
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => match connect(path).await {
            Ok(_) => Err(ListenError::AlreadyRunning(path.into())),
            Err(why) => Err(ListenError::Occupied(format!(
                "the pipe {} is held by another program ({why}); toolgate-mcp leaves it alone: \
                 set {SOCKET_VAR} to another \\\\.\\pipe\\ name",
                path.display()
            ))),
        },
        Err(e) => Err(ListenError::Io(path.into(), e)),
    }
}

impl Listener {
    /// The next connection, its peer checked.
    ///
    /// # Errors
    ///
    /// When accepting fails, or no next instance can be made.
    pub async fn accept(&self) -> io::Result<Accepted> {
        let mut next = self.next.lock().await;
        let connected = loop {
            let result = next.connect().await;
            // This instance is spent either way: the next client gets a
            // fresh one.
            let spent = std::mem::replace(&mut *next, instance(&self.path, &self.sddl, false)?);
            match result {
                Ok(()) => break spent,
                // A client that came and went before the host looked (a
                // doctor's probe) leaves nothing to serve; Windows says so
                // with ERROR_NO_DATA (Wine connects it instead).
                Err(e) if e.raw_os_error() == Some(NO_DATA) => continue,
                Err(e) => return Err(e),
            }
        };
        let mut pid = 0u32;
        // SAFETY: a connected server handle and a valid out-pointer.
        let peer = if unsafe {
            GetNamedPipeClientProcessId(connected.as_raw_handle() as HANDLE, &mut pid)
        } == 0
        {
            None
        } else {
            pid_sid(pid).ok()
        };
        Ok(match peer {
            Some(sid) if sid == self.sid => Accepted::Ours(Stream::Server(connected)),
            other => Accepted::Refused(other),
        })
    }

    /// Where it listens.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Nothing to remove: a pipe goes when its last handle closes.
    pub fn remove(&self) {}
}

/// Connects to the host's pipe and checks that the host runs as this user.
///
/// # Errors
///
/// When no host is there, or it runs as another user.
pub async fn connect(path: &Path) -> io::Result<Stream> {
    let mut tries = 0;
    let client = loop {
        match ClientOptions::new().open(path) {
            Ok(client) => break client,
            Err(e) if e.raw_os_error() == Some(PIPE_BUSY) && tries < 20 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            Err(e) => return Err(e),
        }
    };
    let mut pid = 0u32;
    // SAFETY: a connected client handle and a valid out-pointer.
    if unsafe { GetNamedPipeServerProcessId(client.as_raw_handle() as HANDLE, &mut pid) } == 0 {
        return Err(io::Error::last_os_error());
    }
    match (pid_sid(pid)?, sid()?) {
        (theirs, ours) if theirs == ours => Ok(Stream::Client(client)),
        (theirs, _) => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("the pipe is served by {theirs}, not by you"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use windows_sys::Win32::Security::Authorization::{
        ConvertSecurityDescriptorToStringSecurityDescriptorW, GetSecurityInfo, SE_KERNEL_OBJECT,
    };
    use windows_sys::Win32::Security::{DACL_SECURITY_INFORMATION, OWNER_SECURITY_INFORMATION};

    use super::*;

    /// The security descriptor a pipe instance carries, as SDDL.
    fn sddl_of(pipe: &NamedPipeServer) -> String {
        let info = OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION;
        let mut descriptor: *mut c_void = std::ptr::null_mut();
        let mut text: *mut u16 = std::ptr::null_mut();
        // SAFETY: a live pipe handle, valid out-pointers; both buffers are
        // freed with LocalFree.
        unsafe {
            let read = GetSecurityInfo(
                pipe.as_raw_handle() as HANDLE,
                SE_KERNEL_OBJECT,
                info,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut descriptor,
            );
            assert_eq!(read, 0, "GetSecurityInfo");
            let ok = ConvertSecurityDescriptorToStringSecurityDescriptorW(
                descriptor,
                SDDL_REVISION_1,
                info,
                &mut text,
                std::ptr::null_mut(),
            );
            assert_ne!(ok, 0, "{}", io::Error::last_os_error());
            let mut n = 0;
            while *text.add(n) != 0 {
                n += 1;
            }
            let sddl = String::from_utf16_lossy(std::slice::from_raw_parts(text, n));
            LocalFree(text.cast());
            LocalFree(descriptor);
            sddl
        }
    }

    fn unique_pipe() -> PathBuf {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).expect("random");
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        PathBuf::from(format!(r"\\.\pipe\toolgate-unit-{hex}"))
    }

    #[tokio::test]
    async fn every_instance_of_the_pipe_is_owned_by_this_user_and_open_to_no_one_else() {
        let path = unique_pipe();
        let listener = listen(&path).await.expect("listens");
        let ours = sid().expect("our SID");
        assert!(ours.starts_with("S-1-"), "{ours}");
        // All rights to this user, as given (Wine keeps the generic right)
        // or mapped to a pipe's own (Windows); no entry for anyone else, and
        // none inherited.
        let alone = [
            format!("O:{ours}D:P(A;;GA;;;{ours})"),
            format!("O:{ours}D:P(A;;FA;;;{ours})"),
        ];
        // The first instance, and the next one made at a connection.
        let first = sddl_of(&*listener.next.lock().await);
        assert!(alone.contains(&first), "{first}");
        let client = connect(&path).await.expect("connects");
        assert!(matches!(listener.accept().await, Ok(Accepted::Ours(_))));
        let next = sddl_of(&*listener.next.lock().await);
        assert!(alone.contains(&next), "{next}");
        drop(client);
    }

    #[tokio::test]
    async fn a_second_host_on_the_same_pipe_is_told_one_answers() {
        let path = unique_pipe();
        let first = listen(&path).await.expect("listens");
        let serving = async {
            let _ = first.accept().await;
        };
        let (_, second) = tokio::join!(serving, listen(&path));
        assert!(
            matches!(second, Err(ListenError::AlreadyRunning(_))),
            "{:?}",
            second.err()
        );
    }
}
