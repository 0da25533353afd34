"""The records `extract.py` writes, in the order the extractors make them:
`emit` appends one, its text stripped, with backslash, tab and line feed
escaped, and its group cut to 120 characters."""

OUT = []


def emit(label, source, group, text):
    text = text.strip()
    if not text:
        return
    esc = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "")
    group = group.replace("\t", " ").replace("\n", " ")[:120]
    OUT.append(f"{label}\t{source}\t{group}\t{esc}")
