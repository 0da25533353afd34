// What Toolgate's pages share for building the DOM. Page-provided text only
// ever goes in through `text` (textContent), never as HTML.

export const $ = (id) => document.getElementById(id);

// An element with attributes (`text` sets its text, `class` its class names;
// null, undefined and false leave an attribute out) and children.
// A moment as the person's locale writes it (what `toLocaleString` gives),
// by one formatter made once: `toLocaleString` makes one each time, about
// 20 µs, which a thousand audit rows feel (benches/README.md, figure 15c).
let localTimes = null;
export const localTime = (ms) => (localTimes ??= new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
})).format(ms);

export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else node.setAttribute(key, value === true ? '' : value);
  }
  node.append(...children);
  return node;
}

// Text a page chose (or an agent's name for its chat), already cut and
// escaped by the core: in an element of its own, isolated from the words
// around it (`<bdi>`: its direction is its own, and it cannot reorder ours).
export function pageText(text, tag = 'bdi') {
  return el(tag, { class: 'page-text', dir: 'auto', text });
}

// Saves `text` as the file `name` of JSON, as a download.
export function saveJson(text, name) {
  const link = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'application/json' })), download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

// A line of a card as the core builds it (`Line`: parts, Toolgate's words
// `{toolgate}` and page text `{page}`), as nodes: the page's parts apart.
export function lineNodes(parts) {
  return parts.map((part) => ('page' in part ? pageText(part.page) : document.createTextNode(part.toolgate)));
}

// The same line as plain text (a window title, an accessible name).
export const lineText = (parts) => parts.map((part) => part.page ?? part.toolgate).join('');

// A class badge: the class's label as the core gives it (docs/classes.md,
// "Badges"), styled by its words ("Read only" is `.read-only`).
export function classBadge(label) {
  const text = String(label ?? '');
  return el('span', { class: `badge ${text.toLowerCase().replaceAll(' ', '-')}`, text });
}

// Any other badge ("off-site").
export const badge = (text) => el('span', { class: 'badge extra', text });

// The site as people read it ("notes.localhost:8000"); opaque origins as they are.
export function siteLabel(site) {
  try {
    return new URL(site).host || site;
  } catch {
    return String(site ?? '');
  }
}

// JSON text shown indented; anything else (a schema a page gave as other
// text) as it is.
export function prettyJson(text) {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return text;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return text;
  }
}

// Marks `button` as the pressed one of `buttons` (a list of toggle buttons).
export function pressOnly(buttons, button) {
  for (const other of buttons) other.setAttribute('aria-pressed', String(other === button));
}
