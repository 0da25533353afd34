// Built-ins, captured before the page can replace them: the language's own,
// and the few DOM objects needed before the page's first use of WebMCP. This
// module runs first in the bundle (index.js imports it first, and every other
// module depends on it), at document_start, before any page script.
//
// Imports nothing. Every other module may import it.

// The language's own, here: they cost next to nothing.

export const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, hasOwn, setPrototypeOf } = Object;
export const objectKeys = Object.keys;
export const { apply } = Reflect;
const { bind, call } = Function.prototype;
// `uncurry(f)(self, ...args)` is `f.call(self, ...args)`, with the
// built-ins taken here: `call` bound to `f` (V8 inlines it; a rest-parameter
// wrapper around Reflect.apply cost about half as much again, benches/JOURNAL.md).
export const uncurry = (fn) => apply(bind, call, [fn]);
export const stringify = JSON.stringify;
export const parse = JSON.parse;
export const isArray = Array.isArray;
export const SymbolIterator = Symbol.iterator;
export const arrayFrom = Array.from;
export const toString = String;
export const toNumber = Number;
export const isNaNFn = Number.isNaN;
export const PromiseCtor = Promise;
export const promiseThen = uncurry(Promise.prototype.then);
export const resolved = (value) => PromiseCtor.resolve(value);
export const rejected = (error) => PromiseCtor.reject(error);
export const MapCtor = Map;
export const mapGet = uncurry(Map.prototype.get);
export const mapSet = uncurry(Map.prototype.set);
export const mapHas = uncurry(Map.prototype.has);
export const mapSize = uncurry(getOwnPropertyDescriptor(Map.prototype, 'size').get);
export const WeakSetCtor = WeakSet;
export const weakSetHas = uncurry(WeakSet.prototype.has);
export const weakSetAdd = uncurry(WeakSet.prototype.add);
export const weakSetDelete = uncurry(WeakSet.prototype.delete);
export const ObjectCtor = Object;
export const mapDelete = uncurry(Map.prototype.delete);
export const mapValues = uncurry(Map.prototype.values);
export const mapKeys = uncurry(Map.prototype.keys);
const mapIteratorNext = uncurry(getPrototypeOf(new Map().values()).next);
// A map's values (or keys) as an array, by the map iterator's own `next`, as
// captured here: Array.from and for...of would call the iterators' methods,
// which a page can replace.
export function arrayOf(iterator) {
  const list = [];
  for (let step = mapIteratorNext(iterator); !step.done; step = mapIteratorNext(iterator)) arrayPush(list, step.value);
  return list;
}
// `object[key] = value` as an own data property, and appends each value as one of the array: unlike
// Array.prototype.push or an assignment, which set through any setter a page put on
// Object.prototype or Array.prototype for the key, so that what the shim sends could lose it
// (json.js). The descriptor has no prototype, so no getter a page put on
// Object.prototype is read into it.
export const setOwn = (object, key, value) => {
  defineProperty(object, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
};
// One descriptor serves every push: it is read whole before anything else
// runs, so a push nested in another (through a page's Proxy trap) cannot
// change what the outer one appends. A new descriptor and a rest parameter
// on every push cost a registration about 5 µs (benches/JOURNAL.md).
const pushed = { __proto__: null, value: undefined, writable: true, enumerable: true, configurable: true };
export const arrayPush = (array, value) => {
  pushed.value = value;
  defineProperty(array, array.length, pushed);
  pushed.value = undefined;
  return array.length;
};
export const arraySort = uncurry(Array.prototype.sort);
export const EventTargetCtor = EventTarget;
export const dispatch = uncurry(EventTarget.prototype.dispatchEvent);
export const listen = uncurry(EventTarget.prototype.addEventListener);
export const unlisten = uncurry(EventTarget.prototype.removeEventListener);
export const TypeErrorCtor = TypeError;
export const ErrorCtor = Error;
export const queueMicrotaskFn = globalThis.queueMicrotask;
export const warn = console.warn;
export const reportErrorFn = globalThis.reportError;
export const regexTest = uncurry(RegExp.prototype.test);
export const stringStartsWith = uncurry(String.prototype.startsWith);
export const stringSlice = uncurry(String.prototype.slice);
export const stringIndexOf = uncurry(String.prototype.indexOf);
export const DocumentProto = Document.prototype;
export const querySelectorAll = uncurry(DocumentProto.querySelectorAll);
export const MutationObserverCtor = MutationObserver;
export const win = window;
export const doc = document;
// The channel to the relay (channel.js), taken before any page script: the
// event types it is made of and the members used for every message. (dom.js
// takes CustomEvent again at the page's first use of WebMCP, for the events
// between frames: a page that broke it by then gets no WebMCP from Toolgate.)
export const FocusEventCtor = FocusEvent;
export const CustomEventBase = CustomEvent;
export const customDetail = uncurry(getOwnPropertyDescriptor(CustomEvent.prototype, 'detail').get);
// A task of the shim's own (events.js): a MessageChannel's message.
export const MessageChannelCtor = MessageChannel;
export const channelPort1 = uncurry(getOwnPropertyDescriptor(MessageChannel.prototype, 'port1').get);
export const channelPort2 = uncurry(getOwnPropertyDescriptor(MessageChannel.prototype, 'port2').get);
export const portPost = uncurry(MessagePort.prototype.postMessage);
export const portSetOnMessage = uncurry(getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage').set);
export const NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;
