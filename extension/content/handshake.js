// How the shim (main-world/channel.js) and the relay (relay/index.js) get
// their channel: the names of its events, imported by both bundles, so each
// name is written once (ARCHITECTURE.md, "The shim–relay channel").
//
// The relay listens for HELLO from the start of every document; the shim,
// injected right after it and before any page script, makes an EventTarget of
// its own and dispatches HELLO, a FocusEvent whose `relatedTarget` is that
// target, which the relay takes within that dispatch. The relay hears only
// the first HELLO of a document. From then on each side dispatches its
// messages on that target (TO_RELAY, TO_PAGE: a CustomEvent whose `detail` is
// JSON text), which no page script can reach, and reads each in a microtask.
//
// Imports nothing.

export const HELLO = 'toolgate:hello';
export const TO_PAGE = 'toolgate:to-page';
export const TO_RELAY = 'toolgate:to-relay';
