"""The benign packages, read for `extract.py`: Debian's fortunes,
licenses, Python's documentation (plain text and HTML), Debian's prose
(FAQ, reference, handbook, developers' reference); and the strings of the
repository's own example and test pages (`extract.py --repo`)."""

import os
import re

from records import emit

# ---------------------------------------------------------------- Debian


def fortunes(files):
    """Debian's fortunes: quotations, jokes, dialogue, short verse."""
    for p in sorted(files):
        if p.startswith("usr/share/games/fortunes/") and "/off/" not in p and not p.endswith((".dat", ".u8")):
            text = files[p]().decode("utf-8", "replace")
            for i, f in enumerate(text.split("\n%\n")):
                emit(0, "debian:fortunes", f"fortune:{p}:{i}", f)


def python_docs_html(files):
    """Python's documentation as its HTML pages: markup, links and all, as a
    page's tool may hand back. One page in four, cut in 2,000 characters."""
    pages = sorted(p for p in files if p.endswith(".html") and "/html/" in p and "/_static/" not in p)
    for k, p in enumerate(pages):
        if k % 4:
            continue
        text = files[p]().decode("utf-8", "replace")
        body = text[text.find("<body"):] if "<body" in text else text
        for j in range(0, min(len(body), 40000), 2000):
            emit(0, "debian:python3.11-doc:html", f"pyhtml:{p}", body[j : j + 2000])


def licenses(files):
    """Debian's common licenses: legal prose that tells its reader what they
    must and may do, as a site's terms of use do."""
    for p in sorted(files):
        if p.startswith("usr/share/common-licenses/"):
            text = files[p]().decode("utf-8", "replace")
            for i, para in enumerate(re.split(r"\n\s*\n", text)):
                emit(0, "debian:base-files", f"license:{p}", para)


RST_DIRECTIVE = re.compile(r"^\s*\.\. [a-z-]+::.*$|^\s*:[a-z-]+:.*$", re.M)
RST_ROLE = re.compile(r":[a-z:]+:`~?([^`<]*?)(?: <[^>]*>)?`")


def python_docs(files):
    """Python's documentation (Sphinx's plain-text sources): technical prose
    full of instructions to its reader, in the second person."""
    for p in sorted(files):
        if "/_sources/" in p and p.endswith(".rst.txt") and "/whatsnew/" not in p:
            text = files[p]().decode("utf-8", "replace")
            text = RST_ROLE.sub(r"\1", text)
            text = RST_DIRECTIVE.sub("", text)
            # A section a document: what a page's result would carry.
            for i, sec in enumerate(re.split(r"\n[=\-~^*]{4,}\n", text)):
                for j in range(0, len(sec), 4000):
                    emit(0, "debian:python3.11-doc", f"pydoc:{p}:{i}", sec[j : j + 4000])


# ---------------------------------------------------------------- Debian prose


def gz_or_plain(files, p):
    import gzip
    data = files[p]()
    return (gzip.decompress(data) if p.endswith(".gz") else data).decode("utf-8", "replace")


def paragraphs(source, group, text, limit=2000, every=8):
    """Plain text cut at blank lines into pieces of at most `limit`
    characters, lines kept as they are (hard-wrapped, as mail is)."""
    piece = ""
    k = 0
    for para in re.split(r"\n\s*\n", text):
        if piece and len(piece) + len(para) > limit:
            emit(0, source, f"{group}:{k // every}", piece)
            k += 1
            piece = ""
        piece += para + "\n\n"
    if piece.strip():
        emit(0, source, f"{group}:{k // every}", piece)


def html_pieces(source, group, html, limit=2000, pieces=40):
    body = html[html.find("<body"):] if "<body" in html else html
    for j in range(0, min(len(body), limit * pieces), limit):
        emit(0, source, group, body[j : j + limit])


def debian_prose(files, name):
    """Debian's documentation for its users and developers: how-tos, a FAQ,
    the bug tracker's mail-server instructions, mailing-list rules. Prose
    that tells its reader what to do, often by mail."""
    for p in sorted(files):
        if name == "debian-faq" and p.endswith("debian-faq.en.txt.gz"):
            paragraphs("debian:debian-faq", "faq", gz_or_plain(files, p))
        elif name == "doc-debian" and p.startswith("usr/share/doc/debian/") and (".txt" in p or "manifesto" in p):
            if "constitution.1." in p or "social-contract.1." in p:
                continue  # old versions of the same texts
            paragraphs("debian:doc-debian", "docdeb:" + p.rsplit("/", 1)[-1], gz_or_plain(files, p))
        elif name == "debian-reference-en" and p.endswith(".en.html"):
            html_pieces("debian:debian-reference:html", "dref:" + p, gz_or_plain(files, p))
        elif name == "debian-reference-en" and p.endswith(".en.txt.gz"):
            paragraphs("debian:debian-reference", "dreftxt", gz_or_plain(files, p))
        elif name == "debian-handbook" and "/html/en-US/" in p and p.endswith(".html"):
            # Measured only (never trained on, never used for a threshold):
            # a genre the detector has not seen, as pages and as their text.
            html = gz_or_plain(files, p)
            html_pieces("debian:debian-handbook:measure", "dhb:" + p + ":0", html, pieces=1000)
            body = html[html.find("<body"):] if "<body" in html else html
            body = re.sub(r"(?is)<(script|style)[^>]*>.*?</\1>", "", body)
            text = re.sub(r"(?i)<(/p|br|/div|/li|/h[1-6]|/pre|/tr)[^>]*>", "\n\n", body)
            text = re.sub(r"<[^>]+>", "", text)
            text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'").replace("&nbsp;", " ").replace("&amp;", "&")
            paragraphs("debian:debian-handbook:measure", "dhb:" + p, re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text), every=10**9)
        elif name == "developers-reference" and "/_sources/" in p and p.endswith(".rst.txt"):
            text = RST_DIRECTIVE.sub("", RST_ROLE.sub(r"\1", gz_or_plain(files, p)))
            for i, sec in enumerate(re.split(r"\n[=\-~^*]{4,}\n", text)):
                for j in range(0, len(sec), 4000):
                    emit(0, "debian:developers-reference", f"devref:{p}:{i}", sec[j : j + 4000])


# ---------------------------------------------------------------- the repository's pages


JS_STRING = re.compile(r"'((?:[^'\\\n]|\\.){12,})'|\"((?:[^\"\\\n]|\\.){12,})\"|`((?:[^`\\]|\\.){12,})`")
# Phrases of src/page/addressed.rs: the repository's pages that hold one
# hold it on purpose (tests of the phrase list), and are no benign text.
PHRASES = ["ignore previous instructions", "ignore all previous instructions", "ignore prior instructions",
           "disregard previous instructions", "do not tell the user", "don't tell the user",
           "without telling the user", "you must call", "system prompt", "<important>", "<system>", "<instructions>"]


# Test pages outside those folders whose results are injections on purpose.
ATTACK_PAGES = {"tests/pages/check/results.html"}


def repo_pages(root):
    """Texts the repository's example and test pages hand agents: their
    scripts' string literals and their HTML's text, one record a string.
    The pages made to attack (tests/pages/untrusted, hostile*, and the
    results `toolgate check --call` must fail, ATTACK_PAGES) are left out,
    and so is any string holding a phrase of the phrase list (made to be
    caught: labelled 1, source repo:phrase, for the report only)."""
    from html.parser import HTMLParser

    class Text(HTMLParser):
        def __init__(self):
            super().__init__()
            self.out, self.skip = [], 0

        def handle_starttag(self, tag, attrs):
            self.skip += tag in ("script", "style")

        def handle_endtag(self, tag):
            self.skip -= tag in ("script", "style") and self.skip > 0

        def handle_data(self, data):
            if not self.skip and len(data.split()) >= 3:
                self.out.append(data)

    for top in ("examples", "tests/pages"):
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in ("node_modules", "test-results", "untrusted")
                             and not x.startswith("hostile"))
            for n in sorted(names):
                if not n.endswith((".js", ".mjs", ".html", ".json")) or n in ("package-lock.json",):
                    continue
                p = os.path.join(d, n)
                rel = os.path.relpath(p, root)
                if rel in ATTACK_PAGES:
                    continue
                src = open(p, encoding="utf-8", errors="replace").read()
                texts = []
                for m in JS_STRING.finditer(src):
                    t = next(g for g in m.groups() if g is not None)
                    if " " in t and not t.lstrip().startswith(("<", "(", "{", "[")):
                        texts.append(t.replace("\\n", "\n").replace("\\'", "'").replace('\\"', '"'))
                if n.endswith(".html"):
                    h = Text()
                    h.feed(src)
                    texts += h.out
                for i, t in enumerate(texts):
                    low = " ".join(t.lower().split())
                    hit = any(ph in low for ph in PHRASES)
                    emit(1 if hit else 0, "repo:phrase" if hit else "repo:pages", f"repo:{rel}", t)
