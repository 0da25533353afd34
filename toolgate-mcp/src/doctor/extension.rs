//! Doctor's extension line: whether a browser profile has Toolgate,
//! read from the preference files Chromium lists extensions in.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate::protocol::bridge::EXTENSION_ID;

use super::Check;

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
pub(super) fn extension_checks(data_dirs: &[PathBuf], id: &str) -> Vec<Check> {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
        let garbage = data.path().join("Default").join("Preferences");
        std::fs::create_dir_all(data.path().join("Default")).expect("mkdir");
        std::fs::write(&garbage, b"\xff{\"extensions\": ").expect("write");
        // A folder where the file should be: reading it fails, even as root.
        let unreadable = data.path().join("Profile 1").join("Secure Preferences");
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
}
