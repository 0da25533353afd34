// Hints held to their word (docs/classes.md, "What a call is judged on"):
// the requests this document sends while an agent's call runs here (`fetch`,
// `XMLHttpRequest`, `navigator.sendBeacon`, a form's submission), told to
// the worker with the call's answer (watch.js). The browser shows what a
// page's service worker sends on only as the worker's own, in no tab; with
// the site open in another tab too, the worker's request is the call's when
// the call's document sent the same method to the same address.
//
// Wrapped once, at the page's first use of WebMCP (start.js), with the
// built-ins read then: until a call runs a wrapper only calls through. What
// cannot be read without running the page's code again (an address that is
// neither a string, a URL nor a Request; a method behind a getter) is told
// as unread, which matches any request of the worker: a page that hides what
// it sends gets its worker's requests pinned on the call. A page that set
// out to hide a request can still send it by a method taken before its
// first use of WebMCP, or from another frame: docs/classes.md says so.
//
// Imports: primordials.js, watch.js.

import {
  apply, getOwnPropertyDescriptor, listen, TypeErrorCtor, uncurry, win,
} from './primordials.js';
import { noteSent, watching, wrap } from './watch.js';

// A getter of `proto`'s, as a function of the object; one that throws
// when `proto` has none.
const getter = (proto, name) => {
  const get = proto && getOwnPropertyDescriptor(proto, name)?.get;
  if (typeof get !== 'function') return () => { throw new TypeErrorCtor('unread'); };
  return uncurry(get);
};

// Installs the wrappers, once.
let installed = false;
export function watchRequests() {
  if (installed) return;
  installed = true;
  const URLCtor = win.URL;
  const href = getter(URLCtor?.prototype, 'href');
  const requestUrl = getter(win.Request?.prototype, 'url');
  const requestMethod = getter(win.Request?.prototype, 'method');
  const baseURI = getter(win.Node?.prototype, 'baseURI');
  const WeakMapCtor = win.WeakMap;
  const opened = new WeakMapCtor();
  const openedGet = uncurry(WeakMapCtor.prototype.get);
  const openedSet = uncurry(WeakMapCtor.prototype.set);
  const formMethod = getter(win.HTMLFormElement?.prototype, 'method');
  const formAction = getter(win.HTMLFormElement?.prototype, 'action');
  const eventTarget = getter(win.Event?.prototype, 'target');
  const submitter = getter(win.SubmitEvent?.prototype, 'submitter');
  const hasAttribute = uncurry(win.Element.prototype.hasAttribute);

  // An absolute address, or null: only a string or a URL is read.
  const addressOf = (input) => {
    if (typeof input === 'string') {
      try {
        return href(new URLCtor(input, baseURI(win.document)));
      } catch {
        return null;
      }
    }
    try {
      return href(input);
    } catch {
      return null;
    }
  };
  // A string of the init's own, or null; `fallback` where it has none.
  const own = (init, name, fallback) => {
    if (init === undefined || init === null) return fallback;
    if (typeof init !== 'object' && typeof init !== 'function') return fallback;
    const found = getOwnPropertyDescriptor(init, name);
    if (found === undefined) return name in init ? null : fallback;
    return typeof found.value === 'string' ? found.value : null;
  };

  // fetch(input, init): a Request's own method and address, else the init's method.
  wrap(win, 'fetch', (self, [input, init]) => {
    let method = 'GET';
    let url;
    try {
      url = requestUrl(input);
      method = requestMethod(input);
    } catch {
      url = addressOf(input);
    }
    noteSent(own(init, 'method', method), url);
  });
  const xhr = win.XMLHttpRequest?.prototype;
  wrap(xhr, 'open', (self, [method, url]) => {
    openedSet(opened, self, { method: typeof method === 'string' ? method : null, url: addressOf(url) });
  });
  wrap(xhr, 'send', (self) => {
    const sent = openedGet(opened, self);
    noteSent(sent ? sent.method : null, sent ? sent.url : null);
  });
  wrap(win.Navigator?.prototype, 'sendBeacon', (self, [url]) => noteSent('POST', addressOf(url)));

  // A form's submission: `submit()`, which fires no event, and the submit
  // event of a click or `requestSubmit()`. A GET's address carries the
  // form's fields, and a submitter may name its own: read as unread.
  const submitted = (form, by) => {
    const method = formMethod(form);
    if (method === 'dialog') return;
    const fromForm = by === null || !(hasAttribute(by, 'formmethod') || hasAttribute(by, 'formaction'));
    noteSent(fromForm ? method : null, fromForm && method !== 'get' ? formAction(form) : null);
  };
  const form = win.HTMLFormElement?.prototype;
  wrap(form, 'submit', (self) => submitted(self, null));
  if (form) {
    // Only the browser's own event submits: the page's `new Event('submit')` sends nothing.
    listen(win, 'submit', (event) => {
      if (!watching()) return;
      try {
        if (apply(getOwnPropertyDescriptor(event, 'isTrusted').get, event, []) !== true) return;
        submitted(eventTarget(event), submitter(event));
      } catch {
        noteSent(null, null);
      }
    }, true);
  }
}
