// How the shim (main-world/channel.js) and the relay (relay/index.js) get
// their channel: the name of the one event of the handshake, imported by both
// bundles, so the name is written once (ARCHITECTURE.md, "The shim–relay
// channel").
//
// The relay listens for HELLO from the start of every document; the shim,
// injected right after it and before any page script, makes a
// MessageChannel and dispatches HELLO, a MessageEvent carrying one of its
// ports, which the relay takes within that dispatch. The relay hears only
// the first HELLO of a document.
//
// Imports nothing.

export const HELLO = 'toolgate:hello';
