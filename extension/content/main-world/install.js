// Installing Toolgate's objects: the accessors of document.modelContext,
// navigator.modelContext and navigator.modelContextTesting (install, which
// index.js calls once, at document_start).
//
// Imports: primordials.js, native.js, start.js.
// (Its classes extend the page's Event, taken here at document_start, before any page script.)

import { defineProperty, doc, DocumentProto, win } from './primordials.js';
import { NavigatorProto } from './native.js';
import { documentContext, navigatorContext, start, testingContext } from './start.js';

// Configurable accessors on the prototypes, as the native API has them. A
// page's own polyfill (@mcp-b/webmcp-polyfill, @mcp-b/global) then finds
// ours and registers through it, or wraps it. Each starts Toolgate.
export function install() {
  defineProperty(DocumentProto, 'modelContext', {
    configurable: true,
    enumerable: true,
    get() { return start() && this === doc ? documentContext : undefined; },
  });
  defineProperty(NavigatorProto, 'modelContext', {
    configurable: true,
    enumerable: true,
    get() { return start() ? navigatorContext : undefined; },
  });
  defineProperty(NavigatorProto, 'modelContextTesting', {
    configurable: true,
    enumerable: true,
    get() { return start() ? testingContext : undefined; },
  });
  installEventInterfaces();
}

// The interfaces of `toolactivated` and `toolcancel` (156's), where the
// browser has no WebMCP events at all: `new ToolActivatedEvent(type,
// {toolName})`, and `event instanceof ToolActivatedEvent` for the events
// Toolgate fires (events.js takes them as the browser's own, dom.js). 148
// with its WebMCP on has `WebMCPEvent`, and keeps it.
function installEventInterfaces() {
  if (typeof win.WebMCPEvent === 'function') return;
  for (const name of ['ToolActivatedEvent', 'ToolCancelEvent']) {
    if (typeof win[name] === 'function') continue;
    const names = new WeakMap();
    const ToolEvent = class extends Event {
      constructor(type, init = undefined) {
        super(type, init);
        const toolName = init === undefined || init === null ? undefined : init.toolName;
        names.set(this, toolName === undefined ? '' : String(toolName));
      }

      get toolName() {
        if (!names.has(this)) throw new TypeError('Illegal invocation');
        return names.get(this);
      }
    };
    defineProperty(ToolEvent, 'name', { value: name });
    defineProperty(ToolEvent.prototype, 'toolName', { enumerable: true });
    defineProperty(win, name, { value: ToolEvent, writable: true, configurable: true, enumerable: false });
  }
}
