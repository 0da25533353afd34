//! Windows: `install`, `uninstall` and `doctor` with the registry, run as the
//! built binary. Checked with Windows' own `reg query`, not with our code.
//!
//! They change the current user's `NativeMessagingHosts` keys, so they run
//! only where that registry is a throwaway: build.sh runs them under Wine in
//! a prefix of their own and sets `TOOLGATE_THROWAWAY_REGISTRY=1`.

#![cfg(windows)]

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

use common::{run_binary, socket_dir, Browser, EXE};
use serde_json::Value;
use toolgate::protocol::bridge::{EXTENSION_ID, HOST_NAME};

/// The browsers' keys, as `install` must write them.
const KEYS: [&str; 4] = [
    r"HKCU\Software\Google\Chrome\NativeMessagingHosts\dev.toolgate.mcp",
    r"HKCU\Software\Chromium\NativeMessagingHosts\dev.toolgate.mcp",
    r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts\dev.toolgate.mcp",
    r"HKCU\Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\dev.toolgate.mcp",
];

/// One test at a time: they share the user's registry.
static REGISTRY: Mutex<()> = Mutex::new(());

fn throwaway() -> bool {
    if std::env::var_os("TOOLGATE_THROWAWAY_REGISTRY").is_some_and(|v| v == "1") {
        return true;
    }
    eprintln!("skipped: this registry is not a throwaway (TOOLGATE_THROWAWAY_REGISTRY=1)");
    false
}

/// Runs the binary with `local` as `%LOCALAPPDATA%`.
fn run(args: &[&str], local: &Path, socket: &Path) -> (Output, String) {
    run_binary(
        Command::new(EXE)
            .args(args)
            .env("LOCALAPPDATA", local)
            .env("TOOLGATE_SOCKET", socket),
    )
}

/// The key's default value, by `reg query KEY /ve`; `None` when `reg` finds
/// no key.
fn reg_default(key: &str) -> Option<String> {
    let out = Command::new("reg")
        .args(["query", key, "/ve"])
        .output()
        .expect("reg runs");
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().find(|l| l.contains("REG_SZ"))?;
    Some(line.split("REG_SZ").nth(1)?.trim().to_owned())
}

fn manifest_at(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn install_writes_every_browsers_key_and_uninstall_removes_them() {
    if !throwaway() {
        return;
    }
    let _one = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let local = tempfile::tempdir().expect("tempdir");
    let (_dir, socket) = socket_dir();

    let (out, text) = run(&["install"], local.path(), &socket);
    assert!(out.status.success(), "{text}");
    let manifest = local
        .path()
        .join(r"Toolgate\NativeMessagingHosts")
        .join(format!("{HOST_NAME}.json"));
    for key in KEYS {
        let value = reg_default(key).unwrap_or_else(|| panic!("no key {key}: {text}"));
        assert_eq!(Path::new(&value), manifest, "{key}");
    }
    let written = manifest_at(&manifest.display().to_string());
    assert_eq!(written["name"], HOST_NAME);
    assert_eq!(written["type"], "stdio");
    assert_eq!(
        written["allowed_origins"],
        serde_json::json!([format!("chrome-extension://{EXTENSION_ID}/")])
    );
    let host = written["path"].as_str().expect("a path");
    assert!(
        host.ends_with("toolgate-mcp.exe") && !host.starts_with(r"\\?\"),
        "Chrome takes a plain absolute path: {host}"
    );
    assert_eq!(
        Path::new(host).canonicalize().expect("the host"),
        Path::new(EXE).canonicalize().expect("this binary")
    );

    let (out, text) = run(&["uninstall"], local.path(), &socket);
    assert!(out.status.success(), "{text}");
    for key in KEYS {
        assert_eq!(reg_default(key), None, "{key} left: {text}");
    }
    assert!(!manifest.exists(), "{text}");
    let (out, text) = run(&["uninstall"], local.path(), &socket);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("nothing to remove"), "{text}");

    // --user-data-dir: the manifest in that folder, the keys (every
    // profile's, on Windows) pointing there, and `install` saying so.
    let profile = local.path().join("profile");
    let (out, text) = run(
        &[
            "install",
            "--user-data-dir",
            profile.to_str().expect("utf-8"),
        ],
        local.path(),
        &socket,
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("for every profile"), "{text}");
    let in_profile = profile
        .join("NativeMessagingHosts")
        .join(format!("{HOST_NAME}.json"));
    for key in KEYS {
        assert_eq!(
            reg_default(key).map(Into::into),
            Some(in_profile.clone()),
            "{key}"
        );
    }
    let (out, text) = run(
        &[
            "uninstall",
            "--user-data-dir",
            profile.to_str().expect("utf-8"),
        ],
        local.path(),
        &socket,
    );
    assert!(out.status.success(), "{text}");
    assert!(
        !in_profile.exists() && reg_default(KEYS[0]).is_none(),
        "{text}"
    );
}

#[test]
fn doctor_reads_the_keys_and_the_manifests_they_name() {
    if !throwaway() {
        return;
    }
    let _one = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let local = tempfile::tempdir().expect("tempdir");
    let (_dir, socket) = socket_dir();
    let missing = |text: &str, what: &str| {
        text.lines()
            .any(|l| l.starts_with("MISSING") && l.contains(what))
    };

    // Nothing installed: each key missing, with the fix; no browser; no host.
    run(&["uninstall"], local.path(), &socket);
    let (out, text) = run(&["doctor"], local.path(), &socket);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for browser in ["Google Chrome", "Chromium", "Microsoft Edge", "Brave"] {
        assert!(
            missing(&text, &format!("{browser}: no registry key")),
            "{text}"
        );
    }
    assert!(missing(&text, "toolgate-mcp install"), "{text}");
    assert!(missing(&text, "browser:"), "{text}");
    assert!(missing(&text, "pipe:"), "{text}");

    // Installed, a browser, a profile with Toolgate, a host on the pipe: all OK.
    let (out, text) = run(&["install"], local.path(), &socket);
    assert!(out.status.success(), "{text}");
    let chrome = local.path().join(r"Google\Chrome\Application");
    std::fs::create_dir_all(&chrome).expect("mkdir");
    std::fs::write(chrome.join("chrome.exe"), b"MZ").expect("write");
    let profile = local.path().join(r"Google\Chrome\User Data\Default");
    std::fs::create_dir_all(&profile).expect("mkdir");
    let prefs = serde_json::json!({"extensions": {"settings": {EXTENSION_ID: {"location": 4}}}});
    std::fs::write(profile.join("Secure Preferences"), prefs.to_string()).expect("write");
    let browser = Browser::start(&socket);
    let (out, text) = run(&["doctor"], local.path(), &socket);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("-> this binary"))
            .count(),
        4,
        "{text}"
    );
    drop(browser);

    // A key whose manifest is gone is missing, named.
    let manifest = local
        .path()
        .join(r"Toolgate\NativeMessagingHosts")
        .join(format!("{HOST_NAME}.json"));
    std::fs::remove_file(&manifest).expect("rm");
    let (out, text) = run(&["doctor"], local.path(), &socket);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(missing(&text, "no host manifest at"), "{text}");
    run(&["uninstall"], local.path(), &socket);
}
