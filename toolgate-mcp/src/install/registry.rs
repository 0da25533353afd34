//! Windows: where each Chromium-based browser looks for a native-messaging
//! host. Windows browsers read no manifest folder: the default value of
//! `HKCU\Software\<browser>\NativeMessagingHosts\dev.toolgate.mcp` holds the
//! manifest's full path (the per-user keys, so no administrator is needed).

use std::io;
use std::path::PathBuf;

use toolgate::protocol::bridge::HOST_NAME;
use winreg::enums::HKEY_CURRENT_USER;
use winreg::RegKey;

/// Each browser's name and its key under `HKCU\Software`, before
/// `\NativeMessagingHosts`.
pub const BROWSERS: [(&str, &str); 4] = [
    ("Google Chrome", r"Software\Google\Chrome"),
    ("Chromium", r"Software\Chromium"),
    ("Microsoft Edge", r"Software\Microsoft\Edge"),
    ("Brave", r"Software\BraveSoftware\Brave-Browser"),
];

/// The host's key under a browser's key, relative to HKCU.
pub fn host_key(browser: &str) -> String {
    format!(r"{browser}\NativeMessagingHosts\{HOST_NAME}")
}

/// The key as a person would type it for `reg query`.
pub fn shown(browser: &str) -> String {
    format!(r"HKCU\{}", host_key(browser))
}

/// Points `browser`'s host key at the manifest (its default value).
///
/// # Errors
///
/// When the key cannot be created or its value set.
pub fn set(browser: &str, manifest: &std::path::Path) -> io::Result<()> {
    let (key, _) = RegKey::predef(HKEY_CURRENT_USER).create_subkey(host_key(browser))?;
    key.set_value("", &manifest.as_os_str())
}

/// The manifest `browser`'s host key names: `None` when there is no key,
/// or it holds no text.
pub fn get(browser: &str) -> Option<PathBuf> {
    let key = RegKey::predef(HKEY_CURRENT_USER)
        .open_subkey(host_key(browser))
        .ok()?;
    let value: std::ffi::OsString = key.get_value("").ok()?;
    Some(PathBuf::from(value)).filter(|p| !p.as_os_str().is_empty())
}

/// Removes `browser`'s host key; `Ok(false)` when there was none.
///
/// # Errors
///
/// When the key is there and cannot be removed.
pub fn delete(browser: &str) -> io::Result<bool> {
    match RegKey::predef(HKEY_CURRENT_USER).delete_subkey_all(host_key(browser)) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}
