//! Unix: a socket file in a folder only its owner can enter (0700, the
//! socket 0600), and on every connection the peer's uid is checked against
//! ours, so another user can neither connect nor be connected to.

use super::{ListenError, SOCKET_VAR};
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::{UnixListener, UnixStream};

/// One connection on the socket.
pub type Stream = UnixStream;
/// A connection's two halves, as [`split`] gives them.
pub type ReadHalf = tokio::net::unix::OwnedReadHalf;
pub type WriteHalf = tokio::net::unix::OwnedWriteHalf;

/// Splits a connection into its reading and writing halves.
pub fn split(stream: Stream) -> (ReadHalf, WriteHalf) {
    stream.into_split()
}

/// This process's user.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// Where the socket is: `$TOOLGATE_SOCKET`; else
/// `$XDG_RUNTIME_DIR/toolgate/host.sock` where that folder exists; else
/// `/tmp/toolgate-<uid>/host.sock`.
pub fn socket_path() -> PathBuf {
    socket_path_from(
        std::env::var_os(SOCKET_VAR),
        std::env::var_os("XDG_RUNTIME_DIR"),
        uid(),
    )
}

/// [`socket_path`] from given values (the rule, apart from the environment).
pub fn socket_path_from(socket: Option<OsString>, runtime: Option<OsString>, uid: u32) -> PathBuf {
    if let Some(socket) = socket.filter(|s| !s.is_empty()) {
        return PathBuf::from(socket);
    }
    if let Some(runtime) = runtime.map(PathBuf::from).filter(|r| r.is_dir()) {
        return runtime.join("toolgate").join("host.sock");
    }
    PathBuf::from(format!("/tmp/toolgate-{uid}/host.sock"))
}

/// Makes sure `dir` exists, is a folder (not a link), is ours, and is closed
/// to other users' writes: created 0700 where missing.
///
/// # Errors
///
/// A sentence saying what is wrong and what to do, when the folder cannot be
/// created or is not safe.
pub fn prepare_folder(dir: &Path) -> Result<(), String> {
    if let Err(e) = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        return Err(format!(
            "cannot create the socket folder {}: {e}",
            dir.display()
        ));
    }
    check_folder(dir)
}

/// Checks that `dir` is a folder (not a link), owned by this user, that no
/// other user may write to.
///
/// # Errors
///
/// A sentence saying what is wrong and what to do.
pub fn check_folder(dir: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("cannot read the socket folder {}: {e}", dir.display()))?;
    let fix = format!("remove it, or set {SOCKET_VAR} to a path in a folder of your own");
    if !meta.is_dir() {
        return Err(format!(
            "the socket folder {} is not a folder (a link or a file): {fix}",
            dir.display()
        ));
    }
    if meta.uid() != uid() {
        return Err(format!(
            "the socket folder {} belongs to user {}, not to you (user {}): {fix}",
            dir.display(),
            meta.uid(),
            uid()
        ));
    }
    // Others who may write to the folder could swap the socket for their own;
    // reading it gives them nothing (the socket is 0600, and peers are
    // checked), so a folder of one's own at 0755 is fine where given.
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "the socket folder {} is open to other users (mode {:o}; others must not write \
             to it): run `chmod 700 {}`, or {fix}",
            dir.display(),
            meta.mode() & 0o777,
            dir.display()
        ));
    }
    Ok(())
}

/// The host's listening socket, removed again by [`Listener::remove`].
pub struct Listener {
    inner: UnixListener,
    path: PathBuf,
}

/// One accepted connection.
pub enum Accepted {
    /// From a process of this user.
    Ours(Stream),
    /// From another user (the uid), or from a peer whose uid cannot be read:
    /// refused, the connection dropped.
    Refused(Option<u32>),
}

/// Listens on `path`: the folder prepared, a stale socket of ours removed,
/// the socket made 0600.
///
/// # Errors
///
/// [`ListenError::AlreadyRunning`] when a host answers on `path`;
/// [`ListenError::Occupied`] when something else (a file, another user's
/// socket) is there; [`ListenError::Folder`] when the folder is not safe;
/// [`ListenError::Io`] when binding fails.
pub async fn listen(path: &Path) -> Result<Listener, ListenError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    prepare_folder(dir.unwrap_or(Path::new("."))).map_err(ListenError::Folder)?;
    clear_stale(path).await?;
    let inner = UnixListener::bind(path).map_err(|e| ListenError::Io(path.into(), e))?;
    let listener = Listener {
        inner,
        path: path.into(),
    };
    // The folder is 0700 already; 0600 keeps the socket owner-only even if
    // the folder's mode is changed later.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| {
        listener.remove();
        ListenError::Io(path.into(), e)
    })?;
    Ok(listener)
}

/// Removes a socket of ours that nothing answers on (left by a host that
/// died); refuses anything else at `path`.
async fn clear_stale(path: &Path) -> Result<(), ListenError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(ListenError::Io(path.into(), e)),
    };
    if !meta.file_type().is_socket() {
        return Err(ListenError::Occupied(format!(
            "{} exists and is not a socket; toolgate-mcp leaves it alone: move it away, or set \
             {SOCKET_VAR} to another path",
            path.display()
        )));
    }
    if meta.uid() != uid() {
        return Err(ListenError::Occupied(format!(
            "the socket {} belongs to user {}, not to you (user {}); toolgate-mcp leaves it \
             alone: remove it, or set {SOCKET_VAR} to another path",
            path.display(),
            meta.uid(),
            uid()
        )));
    }
    match UnixStream::connect(path).await {
        Ok(_) => Err(ListenError::AlreadyRunning(path.into())),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            std::fs::remove_file(path).map_err(|e| ListenError::Io(path.into(), e))
        }
        Err(e) => Err(ListenError::Io(path.into(), e)),
    }
}

impl Listener {
    /// The next connection, its peer checked.
    ///
    /// # Errors
    ///
    /// When accepting fails (the listener is broken).
    pub async fn accept(&self) -> io::Result<Accepted> {
        let (stream, _) = self.inner.accept().await?;
        Ok(match stream.peer_cred() {
            Ok(cred) if cred.uid() == uid() => Accepted::Ours(stream),
            Ok(cred) => Accepted::Refused(Some(cred.uid())),
            Err(_) => Accepted::Refused(None),
        })
    }

    /// Where it listens.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the socket file, so that stdio servers see at once that no
    /// host is there.
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Connects to the host's socket, and checks that the host is ours: a socket
/// someone else put there (in a folder they made before we did) would
/// otherwise receive this user's calls.
///
/// # Errors
///
/// When nothing listens at `path` (missing, refused, not allowed), or when
/// what listens runs as another user.
pub async fn connect(path: &Path) -> io::Result<Stream> {
    let stream = UnixStream::connect(path).await?;
    match stream.peer_cred()?.uid() {
        peer if peer == uid() => Ok(stream),
        peer => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("the socket is served by user {peer}, not by you"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_path_is_toolgate_socket_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = socket_path_from(
            Some("/x/y.sock".into()),
            Some(dir.path().as_os_str().into()),
            7,
        );
        assert_eq!(path, PathBuf::from("/x/y.sock"));
    }

    #[test]
    fn the_socket_path_is_in_the_runtime_folder_when_it_exists() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = socket_path_from(None, Some(dir.path().as_os_str().into()), 7);
        assert_eq!(path, dir.path().join("toolgate/host.sock"));
        let gone = dir.path().join("gone");
        let path = socket_path_from(Some("".into()), Some(gone.into_os_string()), 7);
        assert_eq!(path, PathBuf::from("/tmp/toolgate-7/host.sock"));
    }

    #[test]
    fn the_socket_path_falls_back_to_tmp_with_the_uid() {
        assert_eq!(
            socket_path_from(None, None, 1234),
            PathBuf::from("/tmp/toolgate-1234/host.sock")
        );
    }

    #[tokio::test]
    async fn the_folder_is_created_0700_and_the_socket_0600() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a/b/host.sock");
        let listener = listen(&path).await.expect("listens");
        let mode = |p: &Path| std::fs::metadata(p).expect("exists").mode() & 0o777;
        assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        assert_eq!(mode(&path), 0o600);
        listener.remove();
        assert!(!path.exists());
    }

    #[tokio::test]
    async fn a_folder_open_to_others_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let open = dir.path().join("open");
        std::fs::create_dir(&open).expect("mkdir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        let err = listen(&open.join("host.sock"))
            .await
            .err()
            .expect("refused");
        assert!(matches!(&err, ListenError::Folder(why) if why.contains("open to other users")));
        assert!(!open.join("host.sock").exists());
    }

    #[tokio::test]
    async fn a_stale_socket_of_ours_is_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.sock");
        // A socket file nothing listens on: bound, then its listener dropped.
        drop(std::os::unix::net::UnixListener::bind(&path).expect("bind"));
        assert!(path.exists());
        let listener = listen(&path).await.expect("the stale socket is replaced");
        assert!(connect(&path).await.is_ok());
        listener.remove();
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_socket_is_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.sock");
        std::fs::write(&path, "mine").expect("write");
        let err = listen(&path).await.err().expect("refused");
        assert!(matches!(&err, ListenError::Occupied(why) if why.contains("not a socket")));
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "mine");
    }

    #[tokio::test]
    async fn a_stale_socket_of_another_user_is_left_alone() {
        if uid() != 0 {
            eprintln!("skipped: only root can give a file to another user");
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.sock");
        drop(std::os::unix::net::UnixListener::bind(&path).expect("bind"));
        std::os::unix::fs::chown(&path, Some(4321), None).expect("chown");
        let err = listen(&path).await.err().expect("refused");
        assert!(matches!(&err, ListenError::Occupied(why) if why.contains("user 4321")));
        assert!(path.exists());
    }

    #[tokio::test]
    async fn a_second_host_refuses_while_one_answers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.sock");
        let first = listen(&path).await.expect("the first listens");
        let err = listen(&path).await.err().expect("the second is refused");
        assert!(matches!(err, ListenError::AlreadyRunning(_)));
        assert!(err.to_string().contains("already answers"));
        // The first still answers.
        assert!(connect(&path).await.is_ok());
        first.remove();
    }

    #[tokio::test]
    async fn a_connection_of_ours_is_accepted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.sock");
        let listener = listen(&path).await.expect("listens");
        let (accepted, _client) = tokio::join!(listener.accept(), connect(&path));
        assert!(matches!(accepted, Ok(Accepted::Ours(_))));
        listener.remove();
    }
}
