// Which origins registerTool's `exposedTo` may name: those the browser counts
// secure. That is the browser's decision (its command line can add origins:
// --unsafely-treat-insecure-origin-as-secure), so Toolgate asks it, as far as
// a script can (docs/differences.md):
// - this document's own origin and its ancestors' are secure when the
//   document is a secure context: the browser decided that from each of them;
// - any other origin is secure by its URL alone when the Secure Contexts
//   rules call it potentially trustworthy (https, wss, file, localhost names
//   and loopback addresses), which no command line takes back;
// - for the rest, where the browser has a WebMCP of its own (156), its own
//   registerTool answers (nativeExposedCheck, native.js); without one, no
//   script can learn the browser's answer for an origin it has not loaded,
//   and it is a SecurityError.
//
// Imports: primordials.js, dom.js.

import { arrayPush, regexTest, win } from './primordials.js';
import { DOMExceptionCtor, isSecureContext, URLCtor } from './dom.js';

export const insecureOrigins = () => new DOMExceptionCtor('Only secure origins are allowed in the exposedTo list.', 'SecurityError');

const LOOPBACK = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;
function trustworthyUrl(url) {
  const { protocol, hostname } = url;
  if (protocol === 'https:' || protocol === 'wss:' || protocol === 'file:') return true;
  return (protocol === 'http:' || protocol === 'ws:') && regexTest(LOOPBACK, hostname);
}

// The origins the browser has already judged for this document: its own
// and its ancestors', when it made this document a secure context.
function vouchedOrigins() {
  const origins = [];
  if (isSecureContext(win) !== true) return origins;
  arrayPush(origins, win.origin);
  const ancestors = win.location.ancestorOrigins;
  for (let i = 0; i < (ancestors?.length ?? 0); i++) arrayPush(origins, ancestors[i]);
  return origins;
}

// `exposedTo`'s origins: `{ origins, unsure }`, where `unsure` says that
// some origin is one only the browser can judge. Text that is no URL is a
// SecurityError at once, as in 156.
export function exposedOriginsOf(list) {
  const origins = [];
  const texts = list ?? [];
  let vouched = null;
  let unsure = false;
  for (let i = 0; i < texts.length; i++) {
    let url = null;
    try {
      url = new URLCtor(texts[i]);
    } catch {
      throw insecureOrigins();
    }
    const { origin } = url;
    arrayPush(origins, origin);
    if (trustworthyUrl(url)) continue;
    vouched ??= vouchedOrigins();
    let known = false;
    for (let j = 0; j < vouched.length; j++) if (vouched[j] === origin) known = true;
    if (!known) unsure = true;
  }
  return { origins, unsure };
}
