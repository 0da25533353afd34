//! `toolgate-mcp doctor`: one screen of what is there and what is missing,
//! one line per item, each MISSING line saying what to do.

#[cfg(unix)]
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate::protocol::bridge::HOST_NAME;

use crate::install::{self, Options};
use crate::transport;

mod extension;
use extension::extension_checks;

/// One line of the report.
#[derive(Debug, PartialEq)]
pub enum Check {
    Ok(String),
    Missing(String),
    /// Something doctor could not tell; not counted as missing.
    Note(String),
}

impl Check {
    fn line(&self) -> String {
        match self {
            Check::Ok(text) => format!("OK       {text}"),
            Check::Missing(text) => format!("MISSING  {text}"),
            Check::Note(text) => format!("NOTE     {text}"),
        }
    }
}

/// Checks one user data folder's host manifest against this executable and
/// the extension's origin.
#[cfg_attr(windows, allow(dead_code))]
pub fn manifest_check(name: &str, data_dir: &Path, exe: Option<&Path>, origin: &str) -> Check {
    manifest_file_check(name, &install::manifest_path(data_dir), exe, origin)
}

/// Checks the host manifest at `path` against this executable and the
/// extension's origin.
pub fn manifest_file_check(name: &str, path: &Path, exe: Option<&Path>, origin: &str) -> Check {
    let fix = "run `toolgate-mcp install`";
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(_) => {
            return Check::Missing(format!(
                "{name}: no host manifest at {}; {fix}",
                path.display()
            ))
        }
    };
    let manifest: Value = match serde_json::from_str(&text) {
        Ok(manifest) => manifest,
        Err(e) => {
            return Check::Missing(format!(
                "{name}: {} is not JSON ({e}); {fix}",
                path.display()
            ))
        }
    };
    if manifest["name"] != HOST_NAME || manifest["type"] != "stdio" {
        return Check::Missing(format!(
            "{name}: {} is not a stdio manifest named {HOST_NAME}; {fix}",
            path.display()
        ));
    }
    let allows = manifest["allowed_origins"]
        .as_array()
        .is_some_and(|o| o.iter().any(|o| o == origin));
    if !allows {
        return Check::Missing(format!(
            "{name}: {} does not allow {origin}; {fix} (with --extension-id for your own copy)",
            path.display()
        ));
    }
    let Some(host) = manifest["path"].as_str().map(PathBuf::from) else {
        return Check::Missing(format!(
            "{name}: {} names no host path; {fix}",
            path.display()
        ));
    };
    let runnable = std::fs::metadata(&host).is_ok_and(|m| m.is_file() && executable(&m));
    if !host.is_absolute() || !runnable {
        return Check::Missing(format!(
            "{name}: {} points at {}, which is not an executable file; {fix}",
            path.display(),
            host.display()
        ));
    }
    let this = exe.is_some_and(|exe| {
        host.canonicalize()
            .is_ok_and(|h| exe.canonicalize().is_ok_and(|e| h == e))
    });
    let whose = if this {
        "this binary".to_owned()
    } else {
        format!(
            "{} (another copy, not this binary; {fix} to use this one)",
            host.display()
        )
    };
    Check::Ok(format!(
        "{name}: host manifest {} -> {whose}",
        path.display()
    ))
}

/// Windows: each browser's registry key, and the manifest it names (the
/// browsers read only the registry, `--user-data-dir` or not).
#[cfg(windows)]
fn manifest_checks(options: &Options, exe: Option<&Path>) -> Vec<Check> {
    use crate::install::registry;
    let origin = options.origin();
    registry::BROWSERS
        .iter()
        .map(|&(name, key)| match registry::get(key) {
            Some(path) => manifest_file_check(name, &path, exe, &origin),
            None => Check::Missing(format!(
                "{name}: no registry key {}; run `toolgate-mcp install`",
                registry::shown(key)
            )),
        })
        .collect()
}

/// The manifests: of `--user-data-dir`, or of every browser whose profile
/// folder exists.
#[cfg(not(windows))]
fn manifest_checks(options: &Options, exe: Option<&Path>) -> Vec<Check> {
    let origin = options.origin();
    if let Some(dir) = &options.user_data_dir {
        return vec![manifest_check(
            &dir.display().to_string(),
            dir,
            exe,
            &origin,
        )];
    }
    let (found, missing): (Vec<_>, Vec<_>) = install::browsers()
        .into_iter()
        .partition(|b| b.data_dir.is_dir());
    let mut checks: Vec<Check> = found
        .iter()
        .map(|b| manifest_check(b.name, &b.data_dir, exe, &origin))
        .collect();
    if checks.is_empty() {
        let names: Vec<_> = missing.iter().map(|b| b.name).collect();
        checks.push(Check::Missing(format!(
            "browser profile: none of {} has a profile folder; start the browser once, then \
             run `toolgate-mcp install` (or use --user-data-dir DIR)",
            names.join(", ")
        )));
    }
    checks
}

/// The user data folders doctor looks in: `--user-data-dir` alone, or every
/// browser's that exists.
fn data_dirs(options: &Options) -> Vec<PathBuf> {
    match &options.user_data_dir {
        Some(dir) => vec![dir.clone()],
        None => install::browsers()
            .into_iter()
            .map(|b| b.data_dir)
            .filter(|d| d.is_dir())
            .collect(),
    }
}

/// Windows: where each browser's installer puts it (for every user, or for
/// this one).
#[cfg(windows)]
fn browser_check() -> Check {
    let places = [
        ("ProgramFiles", r"Google\Chrome\Application\chrome.exe"),
        ("ProgramFiles(x86)", r"Google\Chrome\Application\chrome.exe"),
        ("LOCALAPPDATA", r"Google\Chrome\Application\chrome.exe"),
        ("LOCALAPPDATA", r"Chromium\Application\chrome.exe"),
        (
            "ProgramFiles(x86)",
            r"Microsoft\Edge\Application\msedge.exe",
        ),
        ("ProgramFiles", r"Microsoft\Edge\Application\msedge.exe"),
        (
            "ProgramFiles",
            r"BraveSoftware\Brave-Browser\Application\brave.exe",
        ),
        (
            "LOCALAPPDATA",
            r"BraveSoftware\Brave-Browser\Application\brave.exe",
        ),
    ];
    let found = places.iter().find_map(|(var, file)| {
        let path = PathBuf::from(std::env::var_os(var)?).join(file);
        path.is_file().then_some(path)
    });
    match found {
        Some(found) => Check::Ok(format!("browser: {}", found.display())),
        None => Check::Missing(
            "browser: no Chrome, Chromium, Edge or Brave in Program Files or your AppData; \
             install one"
                .into(),
        ),
    }
}

/// The names a Chromium-based browser is run by, on PATH (Linux) or as an
/// app (macOS).
#[cfg(not(windows))]
fn browser_check() -> Check {
    let names = [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
        "microsoft-edge",
        "microsoft-edge-stable",
        "brave-browser",
    ];
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && executable(&m)));
    let apps = [
        "/Applications/Chromium.app",
        "/Applications/Google Chrome.app",
        "/Applications/Microsoft Edge.app",
        "/Applications/Brave Browser.app",
    ];
    let app = apps.iter().map(PathBuf::from).find(|p| p.is_dir());
    match on_path.or(app) {
        Some(found) => Check::Ok(format!("browser: {}", found.display())),
        None => Check::Missing(format!(
            "browser: none of {} on PATH, nor an app in /Applications; install Chromium, \
             Chrome, Edge or Brave",
            names.join(", ")
        )),
    }
}

/// Whether a file's mode lets it run (Unix); any file may (Windows).
#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> bool {
    meta.permissions().mode() & 0o111 != 0
}
#[cfg(windows)]
fn executable(_: &std::fs::Metadata) -> bool {
    true
}

/// The pipe: a host of this user answering on it.
#[cfg(windows)]
async fn socket_checks(path: &Path) -> Vec<Check> {
    vec![match transport::connect(path).await {
        Ok(_) => Check::Ok(format!("pipe: a host answers on {}", path.display())),
        Err(e) => Check::Missing(format!(
            "pipe: no host of yours answers on {} ({e}); start the browser with Toolgate \
             installed (Toolgate starts the host)",
            path.display()
        )),
    }]
}

/// The socket: its folder safe, the file an owner-only socket, and a host
/// answering on it.
#[cfg(unix)]
async fn socket_checks(path: &Path) -> Vec<Check> {
    let start = "start the browser with Toolgate installed (Toolgate starts the host); if it \
                 runs, check the extension's service worker console";
    let mut checks = Vec::new();
    if let Some(dir) = path.parent() {
        if dir.exists() {
            match transport::check_folder(dir) {
                Ok(()) => checks.push(Check::Ok(format!(
                    "socket folder: {} (yours; no one else writes to it)",
                    dir.display()
                ))),
                Err(why) => checks.push(Check::Missing(format!("socket folder: {why}"))),
            }
        }
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(_) => {
            checks.push(Check::Missing(format!(
                "socket: nothing at {}; {start}",
                path.display()
            )));
            return checks;
        }
    };
    if !meta.file_type().is_socket() {
        checks.push(Check::Missing(format!(
            "socket: {} is not a socket; move it away, then {start}",
            path.display()
        )));
        return checks;
    }
    let mode = meta.mode() & 0o777;
    if meta.uid() != transport::uid() || mode & 0o077 != 0 {
        checks.push(Check::Missing(format!(
            "socket: {} is not yours alone (user {}, mode {mode:o}); remove it, then {start}",
            path.display(),
            meta.uid()
        )));
        return checks;
    }
    checks.push(match transport::connect(path).await {
        Ok(_) => Check::Ok(format!("socket: a host answers on {}", path.display())),
        Err(e) => Check::Missing(format!(
            "socket: {} is there but no host answers ({e}); {start}",
            path.display()
        )),
    });
    checks
}

/// Runs `doctor`; returns the exit code: 1 when anything is missing.
pub async fn run(options: &Options) -> u8 {
    let exe = install::this_exe().ok();
    match &exe {
        Some(exe) => println!(
            "toolgate-mcp {} at {}",
            env!("CARGO_PKG_VERSION"),
            exe.display()
        ),
        None => println!(
            "toolgate-mcp {} (its own path unknown)",
            env!("CARGO_PKG_VERSION")
        ),
    }
    let mut checks = manifest_checks(options, exe.as_deref());
    checks.push(browser_check());
    checks.extend(extension_checks(&data_dirs(options), &options.extension_id));
    checks.extend(socket_checks(&transport::socket_path()).await);
    for check in &checks {
        println!("{}", check.line());
    }
    if checks.iter().any(|c| matches!(c, Check::Missing(_))) {
        1
    } else {
        println!(
            "all set: point your MCP client at {}",
            exe.map(|e| e.display().to_string()).unwrap_or_default()
        );
        0
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const ORIGIN: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/";

    fn with_manifest(m: &Value) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        install::write(dir.path(), m).expect("written");
        dir
    }

    fn exe() -> PathBuf {
        install::this_exe().expect("the test binary")
    }

    #[test]
    fn a_manifest_install_wrote_is_ok_and_names_this_binary() {
        let dir = with_manifest(&install::manifest(&exe(), ORIGIN));
        let check = manifest_check("Chromium", dir.path(), Some(&exe()), ORIGIN);
        assert!(
            matches!(&check, Check::Ok(t) if t.contains("this binary")),
            "{check:?}"
        );
    }

    #[test]
    fn a_missing_manifest_is_missing_with_the_fix() {
        let dir = tempfile::tempdir().expect("tempdir");
        let check = manifest_check("Chromium", dir.path(), Some(&exe()), ORIGIN);
        assert!(
            matches!(&check, Check::Missing(t) if t.contains("toolgate-mcp install")),
            "{check:?}"
        );
    }

    #[test]
    fn a_manifest_for_another_extension_is_missing() {
        let dir = with_manifest(&install::manifest(&exe(), "chrome-extension://other/"));
        let check = manifest_check("Chromium", dir.path(), Some(&exe()), ORIGIN);
        assert!(
            matches!(&check, Check::Missing(t) if t.contains("does not allow")),
            "{check:?}"
        );
    }

    #[test]
    fn a_manifest_pointing_at_nothing_is_missing() {
        let dir = with_manifest(&install::manifest(
            Path::new("/nowhere/toolgate-mcp"),
            ORIGIN,
        ));
        let check = manifest_check("Chromium", dir.path(), Some(&exe()), ORIGIN);
        assert!(
            matches!(&check, Check::Missing(t) if t.contains("not an executable")),
            "{check:?}"
        );
        let dir = with_manifest(&json!({"name": "other", "type": "stdio"}));
        let check = manifest_check("Chromium", dir.path(), Some(&exe()), ORIGIN);
        assert!(matches!(check, Check::Missing(_)));
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_socket_nothing_answers_on_is_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("host.sock");
        let checks = socket_checks(&path).await;
        assert!(matches!(checks.last(), Some(Check::Missing(t)) if t.contains("nothing at")));
        drop(std::os::unix::net::UnixListener::bind(&path).expect("bind"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let checks = socket_checks(&path).await;
        assert!(matches!(checks.last(), Some(Check::Missing(t)) if t.contains("no host answers")));
        std::fs::remove_file(&path).expect("rm");
        let listener = transport::listen(&path).await.expect("listens");
        let checks = socket_checks(&path).await;
        assert!(
            checks.iter().all(|c| matches!(c, Check::Ok(_))),
            "{checks:?}"
        );
        listener.remove();
    }
}
