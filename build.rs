//! The Public Suffix List the core reads registrable domains from
//! (src/page/provenance.rs): Debian's `publicsuffix` package's copy, which
//! ./build.sh installs, or the file `TOOLGATE_PUBLIC_SUFFIX_LIST` names.
//! Copied into the build, so that nothing is read or fetched at run time.

use std::path::PathBuf;

const DEBIAN: &str = "/usr/share/publicsuffix/public_suffix_list.dat";

fn main() {
    println!("cargo:rerun-if-env-changed=TOOLGATE_PUBLIC_SUFFIX_LIST");
    let from = std::env::var("TOOLGATE_PUBLIC_SUFFIX_LIST").unwrap_or_else(|_| DEBIAN.to_owned());
    println!("cargo:rerun-if-changed={from}");
    let list = std::fs::read_to_string(&from).unwrap_or_else(|error| {
        panic!(
            "cannot read the Public Suffix List at {from} ({error}): install Debian's \
             publicsuffix package (./build.sh does), or set TOOLGATE_PUBLIC_SUFFIX_LIST"
        )
    });
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("public_suffix_list.dat"), list).expect("OUT_DIR is writable");
}
