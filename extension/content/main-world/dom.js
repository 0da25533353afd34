// The DOM's built-ins, captured late: by captureDom(), at start(), when the
// page first uses WebMCP. The second half of the captured built-ins (the first
// is primordials.js): every module takes the DOM interfaces it needs from here.
// They are live bindings, undefined until captureDom() ran.
//
// Imports: primordials.js, text.js.

import { getOwnPropertyDescriptor, TypeErrorCtor, uncurry } from './primordials.js';
import { describe } from './text.js';

// The DOM's interfaces, captured by captureDom() when the page first uses
// WebMCP (or a form declares a tool), not here: the first touch of each
// costs every document main-thread time, before its first script. A page can have
// replaced one by then; that breaks only its own tools, since the relay and
// the worker trust nothing from this world anyway.
export let EventCtor, CustomEventCtor, DOMExceptionCtor, AbortControllerCtor;
export let signalAborted, signalReason, abortController, controllerSignal;
export let getAttribute, eventDetail, URLCtor;
// Whether this document is a secure context, as the browser decided.
export let isSecureContext;
// The browser's own WebMCP event interfaces, where it has them (156:
// ToolActivatedEvent, ToolCancelEvent; 148: WebMCPEvent), else undefined.
export let ToolActivatedEventCtor, ToolCancelEventCtor;
// Whether this document may use WebMCP: the permissions policy's "tools"
// feature, where the browser knows it (156 with its WebMCP on: a
// cross-origin frame needs allow="tools"), as the draft says; everywhere
// else, yes. Read at start().
export let toolsAllowed = true;
function readToolsPolicy() {
  try {
    const policy = document.featurePolicy;
    if (policy && policy.features().includes('tools')) return policy.allowsFeature('tools') === true;
  } catch {
    // No policy to read: nothing forbids it.
  }
  return true;
}
export const notAllowed = () => new DOMExceptionCtor('Access to the feature "tools" is disallowed by permissions policy.', 'NotAllowedError');

// Whether a value is an AbortSignal (a brand check: the page cannot fake one).
export function isSignal(value) {
  try {
    signalAborted(value);
    return true;
  } catch {
    return false;
  }
}

export function captureDom() {
  EventCtor = Event;
  CustomEventCtor = CustomEvent;
  DOMExceptionCtor = DOMException;
  AbortControllerCtor = AbortController;
  signalAborted = uncurry(getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted').get);
  signalReason = uncurry(getOwnPropertyDescriptor(AbortSignal.prototype, 'reason').get);
  abortController = uncurry(AbortController.prototype.abort);
  controllerSignal = uncurry(getOwnPropertyDescriptor(AbortController.prototype, 'signal').get);
  getAttribute = uncurry(Element.prototype.getAttribute);
  URLCtor = URL;
  const secure = getOwnPropertyDescriptor(window, 'isSecureContext') ?? getOwnPropertyDescriptor(Window.prototype, 'isSecureContext');
  isSecureContext = secure?.get ? uncurry(secure.get) : () => false;
  toolsAllowed = readToolsPolicy();
  eventDetail = uncurry(getOwnPropertyDescriptor(CustomEvent.prototype, 'detail').get);
  ToolActivatedEventCtor = typeof ToolActivatedEvent === 'function' ? ToolActivatedEvent
    : typeof WebMCPEvent === 'function' ? WebMCPEvent : undefined;
  ToolCancelEventCtor = typeof ToolCancelEvent === 'function' ? ToolCancelEvent
    : typeof WebMCPEvent === 'function' ? WebMCPEvent : undefined;
  const ctors = [EventCtor, CustomEventCtor, DOMExceptionCtor, AbortControllerCtor];
  for (let i = 0; i < ctors.length; i++) {
    const ctor = ctors[i];
    if (typeof ctor !== 'function') throw new TypeErrorCtor(`${describe(ctor)} where a DOM interface belongs`);
  }
}
