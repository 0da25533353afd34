// Installing Toolgate's objects: the accessors of document.modelContext,
// navigator.modelContext and navigator.modelContextTesting (install, which
// index.js calls once, at document_start).
//
// Imports: primordials.js, native.js, start.js.

import { defineProperty, doc, DocumentProto } from './primordials.js';
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
}
