//! `toolgate-mcp doctor`: one screen of what is there and what is missing,
//! one line per item, each MISSING line saying what to do.

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate::bridge::{EXTENSION_ID, HOST_NAME};

use crate::install::{self, Options};
use crate::transport;

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
pub fn manifest_check(name: &str, data_dir: &Path, exe: Option<&Path>, origin: &str) -> Check {
    let path = install::manifest_path(data_dir);
    let fix = "run `toolgate-mcp install`";
    let text = match std::fs::read_to_string(&path) {
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
    let runnable =
        std::fs::metadata(&host).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if !host.is_absolute() || !runnable {
        return Check::Missing(format!(
            "{name}: {} points at {}, which is not an executable file; {fix}",
            path.display(),
            host.display()
        ));
    }
    let this = exe.is_some_and(|exe| host.canonicalize().is_ok_and(|h| h == exe));
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

/// The manifests: of `--user-data-dir`, or of every browser whose profile
/// folder exists.
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

/// The files a profile lists its extensions in, under `extensions.settings`
/// (installed and unpacked ones alike).
const PREFERENCE_FILES: [&str; 2] = ["Preferences", "Secure Preferences"];

/// The profiles of a user data folder: `Default` and `Profile *`, sorted.
///
/// # Errors
///
/// When the folder cannot be listed.
fn profiles(data_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(data_dir)?
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name == "Default" || name.starts_with("Profile ")
        })
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    found.sort();
    Ok(found)
}

/// Whether one profile's preference files list extension `id`, and the
/// files that could not be read or parsed, each with why. A file that is
/// not there is not a problem: a profile need not have both.
fn profile_has(profile: &Path, id: &str) -> (bool, Vec<String>) {
    let mut problems = Vec::new();
    for name in PREFERENCE_FILES {
        let path = profile.join(name);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                problems.push(format!("{} cannot be read ({e})", path.display()));
                continue;
            }
        };
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(prefs) => {
                if prefs["extensions"]["settings"]
                    .get(id)
                    .is_some_and(Value::is_object)
                {
                    return (true, Vec::new());
                }
            }
            Err(e) => problems.push(format!("{} is not JSON ({e})", path.display())),
        }
    }
    (false, problems)
}

/// The extension: one OK line per profile that has it, else one MISSING
/// line saying how to load it; a NOTE for each profile or folder that
/// could not be read.
fn extension_checks(data_dirs: &[PathBuf], id: &str) -> Vec<Check> {
    let mut ok = Vec::new();
    let mut notes = Vec::new();
    let mut looked = 0;
    for dir in data_dirs {
        let list = match profiles(dir) {
            Ok(list) => list,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                notes.push(Check::Note(format!(
                    "extension: cannot list the profiles in {} ({e})",
                    dir.display()
                )));
                continue;
            }
        };
        for profile in list {
            looked += 1;
            match profile_has(&profile, id) {
                (true, _) => ok.push(Check::Ok(format!(
                    "extension: Toolgate ({id}) in {}",
                    profile.display()
                ))),
                (false, problems) => notes.extend(problems.into_iter().map(|why| {
                    Check::Note(format!(
                        "extension: cannot tell for {}: {why}",
                        profile.display()
                    ))
                })),
            }
        }
    }
    if !ok.is_empty() {
        return ok;
    }
    let load = "run ./build.sh, then at chrome://extensions turn on Developer mode, Load \
                unpacked, and pick the repository root (or install Toolgate)";
    let dirs: Vec<String> = data_dirs.iter().map(|d| d.display().to_string()).collect();
    let missing = if looked == 0 {
        let within = if dirs.is_empty() {
            String::new()
        } else {
            format!(" in {}", dirs.join(", "))
        };
        format!(
            "extension: no browser profile (Default/, Profile */){within}; start the browser \
             once, then {load}"
        )
    } else {
        let other = if id == EXTENSION_ID {
            ""
        } else {
            " (with --extension-id, the id chrome://extensions shows for your copy)"
        };
        format!(
            "extension: Toolgate ({id}) is in none of the {looked} profile(s) in {}{other}; \
             {load}",
            dirs.join(", ")
        )
    };
    notes.push(Check::Missing(missing));
    notes
}

/// The names a Chromium-based browser is run by, on PATH (Linux) or as an
/// app (macOS).
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
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        });
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

/// The socket: its folder safe, the file an owner-only socket, and a host
/// answering on it.
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

    const OTHER: &str = "abcdefghijklmnopabcdefghijklmnop";

    /// Writes `prefs` as `<data_dir>/<profile>/<file>`.
    fn prefs(data_dir: &Path, profile: &str, file: &str, prefs: &Value) {
        let dir = data_dir.join(profile);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(file), prefs.to_string()).expect("write");
    }

    fn with_extension(id: &str) -> Value {
        json!({"extensions": {"settings": {id: {"location": 4, "path": "/src/toolgate"}}}})
    }

    #[test]
    fn a_profile_with_the_id_in_secure_preferences_is_ok_and_named() {
        let data = tempfile::tempdir().expect("tempdir");
        prefs(
            data.path(),
            "Default",
            "Preferences",
            &with_extension(OTHER),
        );
        prefs(
            data.path(),
            "Default",
            "Secure Preferences",
            &with_extension(EXTENSION_ID),
        );
        prefs(data.path(), "Profile 2", "Preferences", &json!({}));
        let checks = extension_checks(&[data.path().to_owned()], EXTENSION_ID);
        let default = data.path().join("Default");
        assert_eq!(
            checks,
            vec![Check::Ok(format!(
                "extension: Toolgate ({EXTENSION_ID}) in {}",
                default.display()
            ))]
        );
    }

    #[test]
    fn every_profile_with_the_extension_gets_an_ok_line_and_others_are_not_looked_in() {
        let data = tempfile::tempdir().expect("tempdir");
        for profile in ["Default", "Profile 3", "Guest Profile", "System Profile"] {
            prefs(data.path(), profile, "Preferences", &with_extension(OTHER));
        }
        let checks = extension_checks(&[data.path().to_owned()], OTHER);
        let ok: Vec<_> = ["Default", "Profile 3"]
            .iter()
            .map(|p| {
                Check::Ok(format!(
                    "extension: Toolgate ({OTHER}) in {}",
                    data.path().join(p).display()
                ))
            })
            .collect();
        assert_eq!(checks, ok);
    }

    #[test]
    fn a_profile_with_only_another_extension_is_missing_with_how_to_load_it() {
        let data = tempfile::tempdir().expect("tempdir");
        // The id appears in the file, but not as an installed extension.
        let mut other = with_extension(OTHER);
        other["session"] = json!({"startup_urls": [format!("chrome-extension://{EXTENSION_ID}/")]});
        other["extensions"]["pinned_extensions"] = json!([EXTENSION_ID]);
        prefs(data.path(), "Default", "Preferences", &other);
        prefs(data.path(), "Default", "Secure Preferences", &other);
        let checks = extension_checks(&[data.path().to_owned()], EXTENSION_ID);
        assert!(
            matches!(
                checks.as_slice(),
                [Check::Missing(t)] if t.starts_with("extension: ")
                    && t.contains(EXTENSION_ID)
                    && t.contains("1 profile")
                    && t.contains("Load unpacked")
                    && t.contains("./build.sh")
            ),
            "{checks:?}"
        );
    }

    #[test]
    fn no_profile_at_all_is_missing_and_says_to_start_the_browser() {
        let data = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(data.path().join("NativeMessagingHosts")).expect("mkdir");
        let nowhere = data.path().join("nowhere");
        let checks = extension_checks(&[data.path().to_owned(), nowhere], EXTENSION_ID);
        assert!(
            matches!(checks.as_slice(), [Check::Missing(t)]
                if t.contains("no browser profile") && t.contains("Load unpacked")),
            "{checks:?}"
        );
        let checks = extension_checks(&[], EXTENSION_ID);
        assert!(
            matches!(checks.as_slice(), [Check::Missing(_)]),
            "{checks:?}"
        );
    }

    #[test]
    fn an_unreadable_or_garbage_preferences_file_is_named_with_why_not_a_panic() {
        let data = tempfile::tempdir().expect("tempdir");
        let garbage = data.path().join("Default/Preferences");
        std::fs::create_dir_all(data.path().join("Default")).expect("mkdir");
        std::fs::write(&garbage, b"\xff{\"extensions\": ").expect("write");
        // A folder where the file should be: reading it fails, even as root.
        let unreadable = data.path().join("Profile 1/Secure Preferences");
        std::fs::create_dir_all(&unreadable).expect("mkdir");
        let checks = extension_checks(&[data.path().to_owned()], EXTENSION_ID);
        let notes: Vec<&str> = checks
            .iter()
            .filter_map(|c| match c {
                Check::Note(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        let garbage = garbage.display().to_string();
        let unreadable = unreadable.display().to_string();
        assert!(
            notes
                .iter()
                .any(|t| t.contains(&garbage) && t.contains("is not JSON (")),
            "{checks:?}"
        );
        assert!(
            notes
                .iter()
                .any(|t| t.contains(&unreadable) && t.contains("cannot be read (")),
            "{checks:?}"
        );
        assert!(
            matches!(checks.last(), Some(Check::Missing(t)) if t.contains("2 profile")),
            "{checks:?}"
        );
        // The other file of the same profile still counts.
        prefs(
            data.path(),
            "Default",
            "Secure Preferences",
            &with_extension(EXTENSION_ID),
        );
        let checks = extension_checks(&[data.path().to_owned()], EXTENSION_ID);
        assert!(matches!(checks.as_slice(), [Check::Ok(_)]), "{checks:?}");
    }

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
