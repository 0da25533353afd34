//! `toolgate-mcp install`: the native-messaging host manifest, written where
//! each Chromium-based browser reads it.
//!
//! Linux and macOS read per-user manifests from
//! `<user data dir>/NativeMessagingHosts/<name>.json`. Windows reads the
//! manifest's path from the registry instead (`install/registry.rs`): the
//! manifest goes in `%LOCALAPPDATA%\Toolgate\NativeMessagingHosts` (or the
//! `--user-data-dir` given) and every browser's key points at it.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toolgate::protocol::bridge::{EXTENSION_ID, HOST_NAME};

#[cfg(windows)]
pub mod registry;

/// What `install` and `doctor` are told.
#[derive(Debug, PartialEq)]
pub struct Options {
    /// One browser profile folder (`--user-data-dir`), instead of every
    /// browser's default.
    pub user_data_dir: Option<PathBuf>,
    /// The extension allowed to start the host (`--extension-id`).
    pub extension_id: String,
}

impl Options {
    /// Reads `[--user-data-dir DIR] [--extension-id ID]`.
    ///
    /// # Errors
    ///
    /// A sentence naming the argument that is not understood, or missing its
    /// value, or an extension id that is not one.
    pub fn parse(args: &[OsString]) -> Result<Options, String> {
        let mut options = Options {
            user_data_dir: None,
            extension_id: EXTENSION_ID.to_owned(),
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let text = arg.to_string_lossy();
            let (flag, inline) = match text.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value)),
                _ => (text.to_string(), None),
            };
            let mut value = || -> Result<OsString, String> {
                match inline {
                    Some(v) => Ok(v.into()),
                    None => args.next().cloned().ok_or(format!("{flag} needs a value")),
                }
            };
            match flag.as_str() {
                "--user-data-dir" => options.user_data_dir = Some(PathBuf::from(value()?)),
                "--extension-id" => {
                    options.extension_id = value()?.to_string_lossy().into_owned();
                }
                _ => return Err(format!("not understood: {text}")),
            }
        }
        let id = &options.extension_id;
        if id.len() != 32 || !id.bytes().all(|b| (b'a'..=b'p').contains(&b)) {
            return Err(format!(
                "{id:?} is not an extension id (32 letters a to p, as chrome://extensions shows)"
            ));
        }
        Ok(options)
    }

    /// The origin the manifest allows.
    pub fn origin(&self) -> String {
        format!("chrome-extension://{}/", self.extension_id)
    }
}

/// A browser whose per-user data folder is known.
pub struct Browser {
    #[cfg_attr(windows, allow(dead_code))]
    pub name: &'static str,
    /// Its default user data folder; the manifest goes in its
    /// `NativeMessagingHosts`.
    pub data_dir: PathBuf,
}

/// The systems whose browsers' folders `install` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    Linux,
    MacOs,
    Windows,
}

impl System {
    /// The system this binary was built for (any Unix but macOS reads its
    /// browsers' folders as Linux does).
    pub const THIS: System = if cfg!(target_os = "macos") {
        System::MacOs
    } else if cfg!(windows) {
        System::Windows
    } else {
        System::Linux
    };
}

/// Each browser's folder under `~/.config` (or `$XDG_CONFIG_HOME`) on Linux.
const LINUX_FOLDERS: [(&str, &str); 4] = [
    ("Chromium", "chromium"),
    ("Google Chrome", "google-chrome"),
    ("Microsoft Edge", "microsoft-edge"),
    ("Brave", "BraveSoftware/Brave-Browser"),
];

/// Each browser's folder under `~/Library/Application Support` on macOS.
const MACOS_FOLDERS: [(&str, &str); 4] = [
    ("Chromium", "Chromium"),
    ("Google Chrome", "Google/Chrome"),
    ("Microsoft Edge", "Microsoft Edge"),
    ("Brave", "BraveSoftware/Brave-Browser"),
];

/// Each browser's folder under `%LOCALAPPDATA%` on Windows: only for
/// doctor's look at the profiles, since Windows browsers find the host
/// through the registry (`install/registry.rs`).
const WINDOWS_FOLDERS: [(&str, &str); 4] = [
    ("Chromium", r"Chromium\User Data"),
    ("Google Chrome", r"Google\Chrome\User Data"),
    ("Microsoft Edge", r"Microsoft\Edge\User Data"),
    ("Brave", r"BraveSoftware\Brave-Browser\User Data"),
];

/// The browsers' default user data folders on `system`, for the user whose
/// environment variables `var` reads. It reads nothing else, so each
/// system's table is tested on any system.
pub fn browsers_for(system: System, var: impl Fn(&str) -> Option<OsString>) -> Vec<Browser> {
    let home = var("HOME").map(PathBuf::from).unwrap_or_default();
    let (base, folders) = match system {
        System::MacOs => (home.join("Library/Application Support"), MACOS_FOLDERS),
        System::Windows => (
            var("LOCALAPPDATA").map(PathBuf::from).unwrap_or_default(),
            WINDOWS_FOLDERS,
        ),
        // Chrome on Linux honours XDG_CONFIG_HOME, as the others do.
        System::Linux => (
            var("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .unwrap_or_else(|| home.join(".config")),
            LINUX_FOLDERS,
        ),
    };
    folders
        .into_iter()
        .map(|(name, folder)| Browser {
            name,
            data_dir: base.join(folder),
        })
        .collect()
}

/// The browsers' default user data folders, for this system and user.
pub fn browsers() -> Vec<Browser> {
    browsers_for(System::THIS, |name| std::env::var_os(name))
}

/// Where a user data folder's host manifest is.
pub fn manifest_path(data_dir: &Path) -> PathBuf {
    data_dir
        .join("NativeMessagingHosts")
        .join(format!("{HOST_NAME}.json"))
}

/// The host manifest: this host, at `exe`, for `origin` only.
pub fn manifest(exe: &Path, origin: &str) -> Value {
    json!({
        "name": HOST_NAME,
        "description": "Toolgate: lets desktop AI agents (MCP clients) reach the browser's WebMCP tools, gated by Toolgate",
        "path": exe,
        "type": "stdio",
        "allowed_origins": [origin],
    })
}

/// This executable's absolute path, links resolved.
///
/// # Errors
///
/// When the system cannot say where this executable is.
pub fn this_exe() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    // Windows: already absolute; canonicalising would give a `\\?\` path.
    if cfg!(windows) {
        return Ok(exe);
    }
    exe.canonicalize()
}

/// Writes the manifest into `data_dir`, creating `NativeMessagingHosts`.
///
/// # Errors
///
/// When the folder cannot be created or the file written.
pub fn write(data_dir: &Path, manifest: &Value) -> io::Result<PathBuf> {
    let path = manifest_path(data_dir);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = serde_json::to_string_pretty(manifest).map_err(io::Error::other)?;
    text.push('\n');
    std::fs::write(&path, text)?;
    Ok(path)
}

/// Runs `install`; returns the exit code.
pub fn run(options: &Options) -> u8 {
    let exe = match this_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("toolgate-mcp install: cannot tell where this executable is: {e}");
            return 1;
        }
    };
    let manifest = manifest(&exe, &options.origin());
    let code = write_for_browsers(options, &manifest);
    if code == 0 {
        println!(
            "the host is {} for {}; restart the browser if Toolgate was running",
            exe.display(),
            options.origin()
        );
    }
    code
}

/// Linux and macOS: the manifest in each browser's folder that exists, or in
/// `--user-data-dir`.
#[cfg(not(windows))]
fn write_for_browsers(options: &Options, manifest: &Value) -> u8 {
    let targets: Vec<(String, PathBuf)> = match &options.user_data_dir {
        Some(dir) => vec![(dir.display().to_string(), dir.clone())],
        None => {
            let (found, missing): (Vec<_>, Vec<_>) =
                browsers().into_iter().partition(|b| b.data_dir.is_dir());
            if !missing.is_empty() {
                let names: Vec<_> = missing.iter().map(|b| b.name).collect();
                println!("not found (no profile folder): {}", names.join(", "));
            }
            if found.is_empty() {
                eprintln!(
                    "toolgate-mcp install: no Chromium-based browser profile found; start the \
                     browser once, or give --user-data-dir DIR"
                );
                return 1;
            }
            found
                .into_iter()
                .map(|b| (b.name.to_owned(), b.data_dir))
                .collect()
        }
    };
    let mut code = 0;
    for (name, dir) in targets {
        match write(&dir, manifest) {
            Ok(path) => println!("written for {name}: {}", path.display()),
            Err(e) => {
                eprintln!(
                    "toolgate-mcp install: cannot write the manifest for {name} in {}: {e}",
                    dir.display()
                );
                code = 1;
            }
        }
    }
    code
}

/// Where the manifest goes on Windows: `--user-data-dir`, else
/// `%LOCALAPPDATA%\Toolgate`.
#[cfg(windows)]
pub fn windows_manifest_dir(options: &Options) -> Option<PathBuf> {
    if let Some(dir) = &options.user_data_dir {
        return Some(dir.clone());
    }
    let local = std::env::var_os("LOCALAPPDATA")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("USERPROFILE").map(|p| PathBuf::from(p).join(r"AppData\Local"))
        })?;
    Some(local.join("Toolgate"))
}

/// Windows: one manifest, and every browser's registry key pointing at it,
/// whether or not the browser is installed yet (a key costs nothing, and a
/// browser installed later then finds the host).
#[cfg(windows)]
fn write_for_browsers(options: &Options, manifest: &Value) -> u8 {
    let Some(dir) = windows_manifest_dir(options) else {
        eprintln!("toolgate-mcp install: neither LOCALAPPDATA nor USERPROFILE is set; give --user-data-dir DIR");
        return 1;
    };
    let path = match write(&dir, manifest) {
        Ok(path) => path,
        Err(e) => {
            eprintln!(
                "toolgate-mcp install: cannot write the manifest in {}: {e}",
                dir.display()
            );
            return 1;
        }
    };
    println!("manifest written: {}", path.display());
    if options.user_data_dir.is_some() {
        println!(
            "note: on Windows the browsers read only the registry, so the host is registered \
             for every profile, not for that folder's alone"
        );
    }
    let mut code = 0;
    for (name, key) in registry::BROWSERS {
        match registry::set(key, &path) {
            Ok(()) => println!("registered for {name}: {}", registry::shown(key)),
            Err(e) => {
                eprintln!(
                    "toolgate-mcp install: cannot write {}: {e}",
                    registry::shown(key)
                );
                code = 1;
            }
        }
    }
    code
}

/// Whether the file at `path` is a manifest of this host (so `uninstall`
/// removes only its own).
fn ours(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|m| m["name"] == HOST_NAME)
}

/// Removes `path` if it is one of this host's manifests; says what it did.
fn remove_manifest(name: &str, path: &Path) -> Result<bool, String> {
    if !ours(path) {
        return Ok(false);
    }
    std::fs::remove_file(path)
        .map(|()| {
            println!("removed for {name}: {}", path.display());
            true
        })
        .map_err(|e| format!("cannot remove {}: {e}", path.display()))
}

/// Runs `uninstall`: removes what `install` wrote (every browser's, found or
/// not, or `--user-data-dir`'s); returns the exit code.
pub fn uninstall(options: &Options) -> u8 {
    let mut removed = 0;
    let mut failed = Vec::new();
    let mut tally = |result: Result<bool, String>| match result {
        Ok(true) => removed += 1,
        Ok(false) => {}
        Err(why) => failed.push(why),
    };
    #[cfg(windows)]
    {
        let mut manifests: Vec<PathBuf> = Vec::new();
        manifests.extend(windows_manifest_dir(options).map(|dir| manifest_path(&dir)));
        for (name, key) in registry::BROWSERS {
            manifests.extend(registry::get(key));
            tally(
                registry::delete(key)
                    .inspect(|&gone| {
                        if gone {
                            println!("removed for {name}: {}", registry::shown(key));
                        }
                    })
                    .map_err(|e| format!("cannot remove {}: {e}", registry::shown(key))),
            );
        }
        manifests.sort();
        manifests.dedup();
        for path in manifests {
            tally(remove_manifest("every browser", &path));
        }
    }
    #[cfg(not(windows))]
    {
        let places: Vec<(String, PathBuf)> = match &options.user_data_dir {
            Some(dir) => vec![(dir.display().to_string(), dir.clone())],
            None => browsers()
                .into_iter()
                .map(|b| (b.name.to_owned(), b.data_dir))
                .collect(),
        };
        for (name, dir) in places {
            tally(remove_manifest(&name, &manifest_path(&dir)));
        }
    }
    for why in &failed {
        eprintln!("toolgate-mcp uninstall: {why}");
    }
    if removed == 0 && failed.is_empty() {
        println!("nothing to remove: no host manifest of toolgate-mcp was installed");
    }
    u8::from(!failed.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn options_default_to_every_browser_and_toolgates_id() {
        let options = Options::parse(&[]).expect("valid");
        assert_eq!(options.user_data_dir, None);
        assert_eq!(
            options.origin(),
            format!("chrome-extension://{EXTENSION_ID}/")
        );
    }

    #[test]
    fn options_take_a_user_data_dir_and_an_extension_id_both_ways() {
        let id = "abcdefghijklmnopabcdefghijklmnop";
        let a = Options::parse(&args(&["--user-data-dir", "/p", "--extension-id", id]));
        let b = Options::parse(&args(&[
            "--user-data-dir=/p",
            &format!("--extension-id={id}"),
        ]));
        assert_eq!(a, b);
        let a = a.expect("valid");
        assert_eq!(a.user_data_dir, Some(PathBuf::from("/p")));
        assert_eq!(a.origin(), format!("chrome-extension://{id}/"));
    }

    #[test]
    fn options_refuse_what_they_do_not_know() {
        assert!(Options::parse(&args(&["--user-data-dir"])).is_err());
        assert!(Options::parse(&args(&["--profile", "x"])).is_err());
        assert!(Options::parse(&args(&["--extension-id", "Toolgate"])).is_err());
    }

    /// An environment holding `vars` alone.
    fn env(vars: &'static [(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, value)| OsString::from(value))
        }
    }

    /// `system`'s browsers in `env` are `expected` (name, user data folder),
    /// in that order, each manifest in the folder's `NativeMessagingHosts`.
    fn check(system: System, env: impl Fn(&str) -> Option<OsString>, expected: &[(&str, &str)]) {
        let found = browsers_for(system, env);
        // Compared as paths, component by component: a Windows build joins
        // with `\`, and these are the Unix systems' tables.
        let found: Vec<_> = found
            .iter()
            .map(|b| (b.name, b.data_dir.as_path()))
            .collect();
        let expected_paths: Vec<_> = expected.iter().map(|(n, d)| (*n, Path::new(d))).collect();
        assert_eq!(found, expected_paths, "{system:?}");
        for (_, dir) in expected {
            assert_eq!(
                manifest_path(Path::new(dir)),
                Path::new(&format!("{dir}/NativeMessagingHosts/dev.toolgate.mcp.json")),
            );
        }
    }

    #[test]
    fn macos_browsers_are_in_library_application_support() {
        let support = [
            (
                "Chromium",
                "/Users/ada/Library/Application Support/Chromium",
            ),
            (
                "Google Chrome",
                "/Users/ada/Library/Application Support/Google/Chrome",
            ),
            (
                "Microsoft Edge",
                "/Users/ada/Library/Application Support/Microsoft Edge",
            ),
            (
                "Brave",
                "/Users/ada/Library/Application Support/BraveSoftware/Brave-Browser",
            ),
        ];
        check(System::MacOs, env(&[("HOME", "/Users/ada")]), &support);
        // macOS browsers do not read XDG_CONFIG_HOME.
        let xdg = env(&[
            ("HOME", "/Users/ada"),
            ("XDG_CONFIG_HOME", "/Users/ada/.xdg"),
        ]);
        check(System::MacOs, xdg, &support);
        assert_eq!(
            manifest_path(Path::new(support[1].1)),
            Path::new("/Users/ada/Library/Application Support/Google/Chrome/NativeMessagingHosts/dev.toolgate.mcp.json")
        );
    }

    // Unix only: whether XDG_CONFIG_HOME is absolute is the running
    // system's question, and on Windows `/xdg` (no drive) is not.
    #[cfg(unix)]
    #[test]
    fn linux_browsers_are_in_the_config_folder_xdg_config_home_moves() {
        check(
            System::Linux,
            env(&[("HOME", "/home/ada")]),
            &[
                ("Chromium", "/home/ada/.config/chromium"),
                ("Google Chrome", "/home/ada/.config/google-chrome"),
                ("Microsoft Edge", "/home/ada/.config/microsoft-edge"),
                ("Brave", "/home/ada/.config/BraveSoftware/Brave-Browser"),
            ],
        );
        check(
            System::Linux,
            env(&[("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "/xdg")]),
            &[
                ("Chromium", "/xdg/chromium"),
                ("Google Chrome", "/xdg/google-chrome"),
                ("Microsoft Edge", "/xdg/microsoft-edge"),
                ("Brave", "/xdg/BraveSoftware/Brave-Browser"),
            ],
        );
        // A relative XDG_CONFIG_HOME is ignored, as the XDG specification says.
        let relative = env(&[("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "xdg")]);
        assert_eq!(
            browsers_for(System::Linux, relative)[0].data_dir,
            Path::new("/home/ada/.config/chromium")
        );
    }

    #[test]
    fn the_manifest_names_the_host_this_path_and_only_the_extension() {
        let m = manifest(Path::new("/opt/toolgate-mcp"), "chrome-extension://x/");
        assert_eq!(m["name"], HOST_NAME);
        assert_eq!(m["path"], "/opt/toolgate-mcp");
        assert_eq!(m["type"], "stdio");
        assert_eq!(m["allowed_origins"], json!(["chrome-extension://x/"]));
        assert!(m["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
}
