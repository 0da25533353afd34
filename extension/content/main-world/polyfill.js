// Pages that bring their own polyfill: an object the page defines as
// `modelContext` is adopted (its registerTool wrapped, so the page's own
// declaration is read for the call it forwards to ours), noticed through
// hooks on the defineProperty built-ins (hookDefinitions, which index.js
// calls last).
//
// Imports: primordials.js, declaration.js, start.js.

import {
  apply, defineProperty, doc, getOwnPropertyDescriptor, hasOwn, ObjectCtor, weakSetAdd,
  WeakSetCtor, weakSetHas, win,
} from './primordials.js';
import { foreignCall, read, readHints, setForeignCall, toDOMString } from './declaration.js';
import { documentContext, navigatorContext, start } from './start.js';
import { notePolyfill } from './provenance.js';

// @mcp-b/global defines its own object as `modelContext` on `document` and
// `navigator` (Object.defineProperty, over ours) and forwards each
// registration to ours, with a cleaned copy that drops most hints. So
// Toolgate watches for objects defined as `modelContext` and wraps their
// registerTool, to keep the page's own declaration for the forwarded call.
// The hooks are Proxies of the built-ins, so they look native to the page.

const adopted = new WeakSetCtor();
function adoptForeignContexts() {
  if (!start()) return;
  const hosts = [[doc, 'document_object'], [win.navigator, 'navigator_object']];
  for (let i = 0; i < hosts.length; i++) {
    const target = hosts[i][0];
    const path = hosts[i][1];
    const context = read(target, 'modelContext').value;
    if (!context || typeof context !== 'object' || weakSetHas(adopted, context)
        || context === documentContext || context === navigatorContext) continue;
    const register = read(context, 'registerTool').value;
    if (typeof register !== 'function') continue;
    weakSetAdd(adopted, context);
    notePolyfill();
    const own = getOwnPropertyDescriptor(context, 'registerTool');
    try {
      defineProperty(context, 'registerTool', {
        configurable: true,
        writable: true,
        enumerable: own ? own.enumerable : false,
        value: function registerTool(tool) {
          const outer = foreignCall;
          setForeignCall(tool !== null && typeof tool === 'object'
            ? { ...readHints(tool), name: nameOf(tool), path } : null);
          try {
            return apply(register, this, arguments);
          } finally {
            setForeignCall(outer);
          }
        },
      });
    } catch {
      // A frozen polyfill object: its forwarded registrations keep its copy's hints.
    }
  }
}

function nameOf(tool) {
  const { value, error } = read(tool, 'name');
  try {
    return error || value === undefined ? null : toDOMString(value);
  } catch {
    return null;
  }
}

const definesModelContext = (key) => key === 'modelContext';
const hook = (builtin, keyOf_) => new Proxy(builtin, {
  apply(target, self, args) {
    const result = apply(target, self, args);
    let defined = false;
    try {
      defined = keyOf_(args);
    } catch {
      // A hostile descriptor map: not ours to judge.
    }
    if (defined) adoptForeignContexts();
    return result;
  },
});

// Puts the hooks in place, once, at document_start.
export function hookDefinitions() {
  Object.defineProperty = hook(defineProperty, (args) => definesModelContext(args[1]));
  Reflect.defineProperty = hook(Reflect.defineProperty, (args) => definesModelContext(args[1]));
  Object.defineProperties = hook(Object.defineProperties, (args) => hasOwn(ObjectCtor(args[1]), 'modelContext'));
}
