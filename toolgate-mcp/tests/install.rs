//! `install`, `uninstall` and `doctor`, run as the built binary in a made-up
//! home (Linux; Windows's registry is tests/install_windows.rs).

#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{run_binary, socket_dir, Browser, EXE};
use serde_json::Value;
use toolgate::protocol::bridge::{EXTENSION_ID, HOST_NAME};

/// Runs the binary with `home` as HOME, `path` as PATH, and `socket`.
fn run(args: &[&str], home: &Path, path: &Path, socket: &Path) -> (Output, String) {
    run_binary(
        Command::new(EXE)
            .args(args)
            .env("HOME", home)
            .env_remove("XDG_CONFIG_HOME")
            .env("PATH", path)
            .env("TOOLGATE_SOCKET", socket),
    )
}

fn manifest_at(data_dir: &Path) -> Value {
    let path = data_dir
        .join("NativeMessagingHosts")
        .join(format!("{HOST_NAME}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

/// Writes `<data_dir>/Default/<file>` listing extension `id`, as Chromium
/// does for an installed or unpacked extension.
fn profile_with(data_dir: &Path, file: &str, id: &str) -> PathBuf {
    let profile = data_dir.join("Default");
    std::fs::create_dir_all(&profile).expect("mkdir");
    let prefs = serde_json::json!({"extensions": {"settings": {id: {"location": 4}}}});
    std::fs::write(profile.join(file), prefs.to_string()).expect("write");
    profile
}

fn lines_starting<'a>(text: &'a str, start: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(start)).collect()
}

fn this_binary() -> PathBuf {
    Path::new(EXE).canonicalize().expect("the binary")
}

#[test]
fn install_with_a_user_data_dir_writes_the_manifest_chromium_reads() {
    let home = tempfile::tempdir().expect("tempdir");
    let profile = home.path().join("profile");
    let (out, text) = run(
        &[
            "install",
            "--user-data-dir",
            profile.to_str().expect("utf-8"),
        ],
        home.path(),
        home.path(),
        &home.path().join("s.sock"),
    );
    assert!(out.status.success(), "{text}");
    let manifest = manifest_at(&profile);
    assert_eq!(manifest["name"], HOST_NAME);
    assert_eq!(manifest["type"], "stdio");
    assert_eq!(manifest["path"], this_binary().to_str().expect("utf-8"));
    assert_eq!(
        manifest["allowed_origins"],
        serde_json::json!([format!("chrome-extension://{EXTENSION_ID}/")])
    );
    assert!(manifest["description"]
        .as_str()
        .is_some_and(|d| !d.is_empty()));
    // Nothing else is written for other browsers.
    assert!(!home.path().join(".config").exists());
}

#[test]
fn install_takes_another_extension_id() {
    let home = tempfile::tempdir().expect("tempdir");
    let id = "abcdefghijklmnopabcdefghijklmnop";
    let profile = home.path().join("p");
    let dir = format!("--user-data-dir={}", profile.display());
    let (out, text) = run(
        &["install", &dir, "--extension-id", id],
        home.path(),
        home.path(),
        &home.path().join("s"),
    );
    assert!(out.status.success(), "{text}");
    assert_eq!(
        manifest_at(&profile)["allowed_origins"][0],
        format!("chrome-extension://{id}/")
    );
    let (out, _) = run(
        &["install", &dir, "--extension-id", "nope"],
        home.path(),
        home.path(),
        &home.path().join("s"),
    );
    assert!(!out.status.success());
}

#[test]
fn install_writes_for_each_browser_found_and_names_the_others() {
    let home = tempfile::tempdir().expect("tempdir");
    let config = home.path().join(".config");
    std::fs::create_dir_all(config.join("chromium")).expect("mkdir");
    std::fs::create_dir_all(config.join("BraveSoftware/Brave-Browser")).expect("mkdir");
    let (out, text) = run(
        &["install"],
        home.path(),
        home.path(),
        &home.path().join("s"),
    );
    assert!(out.status.success(), "{text}");
    assert_eq!(manifest_at(&config.join("chromium"))["name"], HOST_NAME);
    assert_eq!(
        manifest_at(&config.join("BraveSoftware/Brave-Browser"))["name"],
        HOST_NAME
    );
    assert!(!config.join("google-chrome").exists() && !config.join("microsoft-edge").exists());
    assert!(
        text.contains("written for Chromium") && text.contains("written for Brave"),
        "{text}"
    );
    let not_found = text
        .lines()
        .find(|l| l.starts_with("not found"))
        .expect("a not-found line");
    assert!(
        not_found.contains("Google Chrome") && not_found.contains("Microsoft Edge"),
        "{text}"
    );
}

#[test]
fn uninstall_removes_what_install_wrote_and_only_that() {
    let home = tempfile::tempdir().expect("tempdir");
    let config = home.path().join(".config");
    std::fs::create_dir_all(config.join("chromium")).expect("mkdir");
    let socket = home.path().join("s");
    let (out, text) = run(&["install"], home.path(), home.path(), &socket);
    assert!(out.status.success(), "{text}");
    // Another host's manifest under our file name is not ours to remove.
    let edge = config.join("microsoft-edge/NativeMessagingHosts");
    std::fs::create_dir_all(&edge).expect("mkdir");
    let foreign = edge.join(format!("{HOST_NAME}.json"));
    std::fs::write(&foreign, r#"{"name": "someone.else"}"#).expect("write");

    let (out, text) = run(&["uninstall"], home.path(), home.path(), &socket);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("removed for Chromium"), "{text}");
    assert!(!config
        .join("chromium/NativeMessagingHosts")
        .join(format!("{HOST_NAME}.json"))
        .exists());
    assert!(foreign.exists(), "{text}");
    let (out, text) = run(&["uninstall"], home.path(), home.path(), &socket);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("nothing to remove"), "{text}");
}

#[test]
fn install_with_no_browser_found_fails_and_says_so() {
    let home = tempfile::tempdir().expect("tempdir");
    let (out, text) = run(
        &["install"],
        home.path(),
        home.path(),
        &home.path().join("s"),
    );
    assert!(!out.status.success());
    assert!(text.contains("--user-data-dir"), "{text}");
}

#[test]
fn doctor_says_what_is_missing_and_exits_non_zero() {
    let home = tempfile::tempdir().expect("tempdir");
    let (_dir, socket) = socket_dir();
    let (out, text) = run(&["doctor"], home.path(), home.path(), &socket);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let missing: Vec<&str> = text.lines().filter(|l| l.starts_with("MISSING")).collect();
    assert!(
        missing.iter().any(|l| l.contains("browser profile")),
        "{text}"
    );
    assert!(missing.iter().any(|l| l.contains("browser:")), "{text}");
    assert!(
        missing
            .iter()
            .any(|l| l.contains("extension:") && l.contains("Load unpacked")),
        "{text}"
    );
    assert!(
        missing
            .iter()
            .any(|l| l.contains("socket:") && l.contains("nothing at")),
        "{text}"
    );
}

#[test]
fn doctor_is_all_ok_after_install_with_a_browser_and_a_host() {
    let home = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(home.path().join(".config/chromium")).expect("mkdir");
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    std::fs::write(bin.join("chromium"), "#!/bin/sh\n").expect("write");
    std::fs::set_permissions(bin.join("chromium"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let (_dir, socket) = socket_dir();

    let (out, text) = run(&["doctor"], home.path(), &bin, &socket);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("MISSING") && l.contains("Chromium: no host manifest")),
        "{text}"
    );

    let (out, text) = run(&["install"], home.path(), &bin, &socket);
    assert!(out.status.success(), "{text}");
    let _host = Browser::start(&socket);
    // Everything but the extension: still not all set.
    let (out, text) = run(&["doctor"], home.path(), &bin, &socket);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let missing = lines_starting(&text, "MISSING");
    assert!(
        matches!(missing.as_slice(), [l] if l.starts_with("MISSING  extension:")),
        "{text}"
    );

    let profile = profile_with(
        &home.path().join(".config/chromium"),
        "Secure Preferences",
        EXTENSION_ID,
    );
    let (out, text) = run(&["doctor"], home.path(), &bin, &socket);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!(
            "OK       extension: Toolgate ({EXTENSION_ID}) in {}",
            profile.display()
        )),
        "{text}"
    );
    assert!(!text.contains("MISSING"), "{text}");
    assert!(
        text.contains("this binary") && text.contains("a host answers"),
        "{text}"
    );
}

#[test]
fn doctor_with_a_user_data_dir_looks_for_the_extension_there_only() {
    let home = tempfile::tempdir().expect("tempdir");
    let (_dir, socket) = socket_dir();
    let chromium = profile_with(
        &home.path().join(".config/chromium"),
        "Preferences",
        EXTENSION_ID,
    );
    let own = home.path().join("own");
    profile_with(&own, "Preferences", "abcdefghijklmnopabcdefghijklmnop");
    let dir = format!("--user-data-dir={}", own.display());

    let (out, text) = run(&["doctor", &dir], home.path(), home.path(), &socket);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let extension: Vec<_> = text.lines().filter(|l| l.contains("extension:")).collect();
    assert!(
        matches!(extension.as_slice(), [l] if l.starts_with("MISSING")
            && l.contains(&own.display().to_string())
            && l.contains("1 profile")),
        "{text}"
    );
    assert!(!text.contains(&chromium.display().to_string()), "{text}");

    let profile = profile_with(&own, "Secure Preferences", EXTENSION_ID);
    let (_, text) = run(&["doctor", &dir], home.path(), home.path(), &socket);
    let extension: Vec<_> = text.lines().filter(|l| l.contains("extension:")).collect();
    assert_eq!(
        extension,
        [format!(
            "OK       extension: Toolgate ({EXTENSION_ID}) in {}",
            profile.display()
        )],
        "{text}"
    );
}

#[test]
fn doctor_takes_the_extension_id_it_is_given() {
    let home = tempfile::tempdir().expect("tempdir");
    let (_dir, socket) = socket_dir();
    let id = "abcdefghijklmnopabcdefghijklmnop";
    let own = home.path().join("own");
    profile_with(&own, "Preferences", id);
    let dir = format!("--user-data-dir={}", own.display());
    let (_, text) = run(&["doctor", &dir], home.path(), home.path(), &socket);
    assert!(
        text.lines()
            .any(|l| l.starts_with("MISSING  extension:") && l.contains(EXTENSION_ID)),
        "{text}"
    );
    let (_, text) = run(
        &["doctor", &dir, "--extension-id", id],
        home.path(),
        home.path(),
        &socket,
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("OK       extension:") && l.contains(id)),
        "{text}"
    );
}

#[test]
fn doctor_names_a_garbage_preferences_file_and_exits_1_not_a_panic() {
    let home = tempfile::tempdir().expect("tempdir");
    let (_dir, socket) = socket_dir();
    let own = home.path().join("own");
    std::fs::create_dir_all(own.join("Default")).expect("mkdir");
    let garbage = own.join("Default/Preferences");
    std::fs::write(&garbage, b"\0\xffnot json").expect("write");
    let dir = format!("--user-data-dir={}", own.display());
    let (out, text) = run(&["doctor", &dir], home.path(), home.path(), &socket);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        lines_starting(&text, "NOTE     extension:")
            .iter()
            .any(|l| l.contains(&garbage.display().to_string()) && l.contains("not JSON")),
        "{text}"
    );
    assert!(
        lines_starting(&text, "MISSING  extension:").len() == 1,
        "{text}"
    );
}
