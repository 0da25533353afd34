// What this frame's relay tells the worker of where it is, for pages calling
// each other's tools where the browser has no WebMCP to carry the call
// (background/exposed.js, src/decisions/exposed/tree.rs): its origin, its
// place in the tab's frame tree, and what each of its own frames' containers
// says of the permissions policy's "tools" (its `allow` attribute: the
// embedding page's own word, which is what the browser reads too).
//
// Read in this isolated world, where the page can replace none of the
// built-ins used: `window.parent`, `length` and indexed frames are the
// browser's, for cross-origin windows as for same-origin ones.

// This window's place from the top: at each level, its index among its
// parent's frames (`parent[i] === window`), or null if it is not found.
function framePath() {
  const path = [];
  let at = window;
  for (let depth = 0; at !== at.parent && depth < 64; depth++) {
    const parent = at.parent;
    let index = -1;
    for (let i = 0; i < parent.length; i++) {
      if (parent[i] === at) {
        index = i;
        break;
      }
    }
    if (index < 0) return null;
    path.unshift(index);
    at = parent;
  }
  return at === at.parent ? path : null;
}

// The origin a URL stands for, or null.
function originOf(text) {
  try {
    const origin = new URL(text, location.href).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

// A container's allowlist for "tools" (Permissions Policy's `allow`
// attribute: `feature allowlist; …`), with `'self'` and `'src'` read as
// the origins they stand for; null where it names no "tools".
function toolsAllowlist(container) {
  const allow = container.getAttribute?.('allow');
  if (typeof allow !== 'string') return null;
  for (const directive of allow.split(';')) {
    const [feature, ...tokens] = directive.trim().split(/\s+/);
    if (feature !== 'tools') continue;
    const src = container.hasAttribute('srcdoc') || !container.getAttribute('src')
      ? self.origin : originOf(container.getAttribute('src')) ?? self.origin;
    const list = { all: false, origins: [] };
    for (const token of tokens.length === 0 ? ["'src'"] : tokens) {
      if (token === '*') list.all = true;
      else if (token === "'self'") list.origins.push(self.origin);
      else if (token === "'src'") list.origins.push(src);
      else if (token !== "'none'") {
        const origin = originOf(token);
        if (origin !== null) list.origins.push(origin);
      }
    }
    return list;
  }
  return null;
}

// Each of this window's frames, in `window.frames` order: its container's
// allowlist for "tools", or null.
function childPolicies() {
  const found = [];
  if (window.length === 0) return found;
  const containers = document.querySelectorAll('iframe, frame, object');
  for (let i = 0; i < window.length && i < 1000; i++) {
    let policy = null;
    for (const container of containers) {
      if (container.contentWindow === window[i]) {
        policy = toolsAllowlist(container);
        break;
      }
    }
    found.push(policy);
  }
  return found;
}

export function frameFacts() {
  return { origin: self.origin, path: framePath(), children: childPolicies() };
}
