// Hints held to their word (docs/classes.md, "Hints held to their word"):
// the writes to this document's storage made while an agent's call runs here
// (localStorage, sessionStorage, IndexedDB, cookies), and the requests it
// sends (requests.js), told to the worker with the call's answer. What
// reaches the network the worker sees itself (the requests told here only
// say which of the site's service worker's are the call's);
// what is written to localStorage or sessionStorage as a named property
// (`localStorage.x = …`), which no method wrapper sees, the relay finds by
// comparing them before and after the call (content/relay/storage.js).
//
// The storage methods are wrapped once, at the page's first use of WebMCP
// (start.js): a page that never uses WebMCP is never touched, and until a
// call runs a wrapper only calls through. A page that set out to hide its
// writes could use methods taken before that, or another frame's: the docs
// say what the shim cannot see.
//
// Imports: primordials.js.

import {
  apply, arrayPush, defineProperty, getOwnPropertyDescriptor, stringIndexOf, stringSlice, toString, win,
} from './primordials.js';

// The calls running in this document that are watched: each one's writes,
// and how many more it made than are kept.
const running = [];
// What one call is told of, at most; the rest is counted.
const KEPT = 20;
const CUT = 200;
// Requests told a call, at most (distinct method and address); past that,
// `sent_more`. An address is cut to this many characters, longer than what
// the core compares (src/page/witnessed.rs, `PageSent`).
const SENT_KEPT = 64;
const URL_CUT = 4096;

// A call starts: its record of writes and requests, which `stopWatching` closes.
export function startWatching() {
  const seen = { writes: [], more: 0, sent: [], sent_more: false };
  arrayPush(running, seen);
  return seen;
}

export function stopWatching(seen) {
  for (let i = 0; i < running.length; i++) {
    if (running[i] === seen) {
      for (let j = i; j < running.length - 1; j++) running[j] = running[j + 1];
      running.length -= 1;
      break;
    }
  }
  return seen;
}

function note(area, op, key) {
  const together = running.length > 1;
  // Only a string is read: anything else would run the page's code again.
  const text = typeof key === 'string' ? key : '';
  const storage = { area, op, key: text.length > CUT ? stringSlice(text, 0, CUT) : text, together };
  for (let i = 0; i < running.length; i++) {
    if (running[i].writes.length < KEPT) arrayPush(running[i].writes, { storage });
    else running[i].more += 1;
  }
}

// While calls run: the document sent `method` (a string, or null when it
// could not be read) to `url` (an absolute address, or null).
export const watching = () => running.length > 0;
export function noteSent(method, url) {
  const address = typeof url === 'string' && url.length > URL_CUT ? stringSlice(url, 0, URL_CUT) : url;
  for (let i = 0; i < running.length; i++) {
    const { sent } = running[i];
    let told = false;
    for (let j = 0; j < sent.length && !told; j++) told = sent[j].method === method && sent[j].url === address;
    if (told) continue;
    if (sent.length < SENT_KEPT) arrayPush(sent, { method, url: address });
    else running[i].sent_more = true;
  }
}

// Wraps `proto[name]` so that, while a call runs, `describe(self, args)`
// notes what it writes. Never throws into the page because of Toolgate.
export function wrap(proto, name, describe) {
  const own = proto && getOwnPropertyDescriptor(proto, name);
  const original = own?.value;
  if (typeof original !== 'function') return;
  const wrapper = {
    [name](...args) {
      if (running.length) {
        try {
          describe(this, args);
        } catch {
          // Unreadable: nothing noted.
        }
      }
      return apply(original, this, args);
    },
  }[name];
  defineProperty(proto, name, { ...own, value: wrapper });
}

let localArea = null;
function areaOf(storage) {
  if (localArea === null) {
    try {
      localArea = win.localStorage;
    } catch {
      localArea = undefined;
    }
  }
  return storage === localArea ? 'localStorage' : 'sessionStorage';
}

const storeName = (store) => {
  try {
    return `${store.transaction.db.name}/${store.name}`;
  } catch {
    return toString(store?.name ?? '');
  }
};

// Installs the wrappers, once.
let installed = false;
export function watchWrites() {
  if (installed) return;
  installed = true;
  const storage = win.Storage?.prototype;
  wrap(storage, 'setItem', (self, [key]) => note(areaOf(self), 'set', key));
  wrap(storage, 'removeItem', (self, [key]) => note(areaOf(self), 'remove', key));
  wrap(storage, 'clear', (self) => note(areaOf(self), 'clear', ''));
  const store = win.IDBObjectStore?.prototype;
  wrap(store, 'put', (self) => note('indexedDB', 'set', storeName(self)));
  wrap(store, 'add', (self) => note('indexedDB', 'set', storeName(self)));
  wrap(store, 'delete', (self) => note('indexedDB', 'remove', storeName(self)));
  wrap(store, 'clear', (self) => note('indexedDB', 'clear', storeName(self)));
  const cursor = win.IDBCursor?.prototype;
  wrap(cursor, 'update', (self) => note('indexedDB', 'set', storeName(self.source)));
  wrap(cursor, 'delete', (self) => note('indexedDB', 'remove', storeName(self.source)));
  wrap(win.IDBFactory?.prototype, 'deleteDatabase', (self, [name]) => note('indexedDB', 'delete_database', name));
  const cookieStore = win.CookieStore?.prototype;
  wrap(cookieStore, 'set', (self, [first]) => note('cookie', 'set', typeof first === 'object' ? first?.name : first));
  wrap(cookieStore, 'delete', (self, [first]) => note('cookie', 'remove', typeof first === 'object' ? first?.name : first));
  // document.cookie's setter.
  const proto = win.Document?.prototype;
  const cookie = proto && getOwnPropertyDescriptor(proto, 'cookie');
  if (cookie?.set) {
    const set = cookie.set;
    defineProperty(proto, 'cookie', {
      ...cookie,
      set: {
        cookie(value) {
          if (!running.length) return apply(set, this, [value]);
          // Read once, here, as the setter would (its error, if any, is the page's).
          const text = toString(value);
          try {
            const at = stringIndexOf(text, '=');
            note('cookie', 'set', at < 0 ? text : stringSlice(text, 0, at));
          } catch {
            // Unreadable: nothing noted.
          }
          return apply(set, this, [text]);
        },
      }.cookie,
    });
  }
}
