// navigator.modelContext: the legacy API, shaped as Chromium's native one
// (M148): synchronous registerTool, plus unregisterTool, provideContext and
// clearContext. The class only; start.js makes the object.
//
// Imports: primordials.js, dom.js, channel.js, native.js, declaration.js,
// registry.js.

import {
  arrayFrom, arrayOf, arrayPush, EventTargetCtor, MapCtor, mapHas, mapSet, mapValues, TypeErrorCtor, warn,
} from './primordials.js';
import { notAllowed, signalAborted, toolsAllowed } from './dom.js';
import { report } from './channel.js';
import { mirror } from './native.js';
import {
  positionalTool, read, readOptions, REGISTER, snapshotSkill, snapshotTool, toDOMString,
} from './declaration.js';
import {
  add, changed, entries, has, makeEntry, remove, toolEntries, toolNamed,
} from './registry.js';

export class LegacyModelContext extends EventTargetCtor {
  // registerTool(tool, {signal}) or registerTool(name, description, inputSchema, execute, annotations?).
  // Synchronous and returning nothing, errors thrown, as Chromium's native API (M148).
  registerTool(tool, options) {
    if (!toolsAllowed) throw notAllowed();
    if (arguments.length === 0) throw new TypeErrorCtor(`${REGISTER}1 argument required, but only 0 present.`);
    const positional = typeof tool === 'string';
    const taken = positional
      ? positionalTool(arguments, 'navigator_positional', toolNamed)
      : snapshotTool(tool, 'navigator_object', toolNamed, options);
    const { signal } = taken;
    if (signal !== undefined && signalAborted(signal)) {
      warn(`Tool '${taken.snapshot.name}' was not registered because its AbortSignal was already aborted.`);
      return;
    }
    add('navigator', taken, signal);
  }

  unregisterTool(name) {
    remove('navigator', 'tool', toDOMString(name));
  }

  // provideContext({tools}): replaces the tools the previous call provided.
  provideContext(context) {
    if (!toolsAllowed) throw notAllowed();
    const list = read(context ?? {}, 'tools');
    if (list.error) throw list.error;
    const given = list.value === undefined || list.value === null ? [] : arrayFrom(list.value);
    const names = new MapCtor();
    const takenAll = [];
    for (let i = 0; i < given.length; i++) {
      const taken = snapshotTool(given[i], 'provide_context', (name) => mapHas(names, name), undefined);
      mapSet(names, taken.snapshot.name, true);
      arrayPush(takenAll, taken);
    }
    const tools = toolEntries();
    for (let i = 0; i < tools.length; i++) {
      const { source, snapshot } = tools[i];
      if (source === 'navigator' && (snapshot.path === 'provide_context' || mapHas(names, snapshot.name))) {
        remove('navigator', 'tool', snapshot.name, false);
      }
    }
    const added = [];
    const decls = [];
    for (let i = 0; i < takenAll.length; i++) {
      const entry = makeEntry('navigator', takenAll[i]);
      arrayPush(added, entry);
      arrayPush(decls, entry.snapshot);
    }
    let index = 0;
    report({ op: 'provide', decls }, (result) => mirror(added[index++], result));
    changed();
  }

  clearContext() {
    const all = arrayOf(mapValues(entries));
    for (let i = 0; i < all.length; i++) {
      if (all[i].source === 'navigator') remove('navigator', all[i].snapshot.kind, all[i].snapshot.name, false);
    }
    report({ op: 'clear', source: 'navigator' });
  }

  registerSkill(skill, options) {
    if (!toolsAllowed) throw notAllowed();
    const taken = snapshotSkill(skill, 'navigator_object', has('navigator', 'skill'));
    const { signal } = readOptions(options, 'registerSkill');
    if (signal !== undefined && signalAborted(signal)) return;
    add('navigator', taken, signal);
  }
}
