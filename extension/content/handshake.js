// How the shim (main-world/channel.js) gets its channel from the relay
// (relay/index.js): the names of the two events of the handshake. Imported
// by both bundles, so the names are written once (ARCHITECTURE.md, "The
// shim–relay channel").
//
// The relay listens for HELLO from the start of every document; the shim,
// injected right after it and before any page script, dispatches HELLO, and
// inside that dispatch the relay answers with a PORT MessageEvent carrying
// one end of a MessageChannel. Both happen before the page's first script.
//
// Imports nothing.

export const HELLO = 'toolgate:hello';
export const PORT = 'toolgate:port';
