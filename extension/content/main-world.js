// Toolgate's shim, in the page's own (MAIN) world, in every frame, at
// document_start: before any page script runs.
//
// It puts Toolgate's own objects in front of the page:
//   document.modelContext          the current WebMCP draft (promises, getTools, executeTool);
//   navigator.modelContext         the legacy API, shaped as Chromium's native one (M148):
//                                  synchronous registerTool, plus unregisterTool,
//                                  provideContext and clearContext;
//   navigator.modelContextTesting  Chromium's testing API (listTools, executeTool).
// It snapshots every declaration once, at registration, and reports the
// snapshot to the relay (relay.js), which forwards it to the service worker,
// where the Wasm core classes it. Where the browser has a native API, each
// tool is also registered with it: the snapshot's values, Toolgate's
// `execute`, and annotations that carry Toolgate's class.
//
// The page shares this world: it can replace any global after this script
// ran, so the built-ins used later are captured first: the language's own at
// once, the DOM's when the page first uses WebMCP (see "Starting"). And it can
// read, call and forge anything this script sends, so the worker trusts none
// of it.
//
// Every document runs this before its first script, and most never use
// WebMCP: until one does, this script only puts its accessors, its hooks and
// its listener for the relay in place (see "Starting").
(() => {
  'use strict';

  // ---- Built-ins, captured before the page can replace them ---------------
  // The language's own, here: they cost next to nothing.

  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, hasOwn } = Object;
  const { apply } = Reflect;
  const uncurry = (fn) => (self, ...args) => apply(fn, self, args);
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const clone = globalThis.structuredClone;
  const isArray = Array.isArray;
  const arrayFrom = Array.from;
  const toString = String;
  const PromiseCtor = Promise;
  const promiseThen = uncurry(Promise.prototype.then);
  const resolved = (value) => PromiseCtor.resolve(value);
  const rejected = (error) => PromiseCtor.reject(error);
  const MapCtor = Map;
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapHas = uncurry(Map.prototype.has);
  const mapSize = uncurry(getOwnPropertyDescriptor(Map.prototype, 'size').get);
  const WeakSetCtor = WeakSet;
  const weakSetHas = uncurry(WeakSet.prototype.has);
  const weakSetAdd = uncurry(WeakSet.prototype.add);
  const ObjectCtor = Object;
  const mapDelete = uncurry(Map.prototype.delete);
  const mapValues = uncurry(Map.prototype.values);
  const mapKeys = uncurry(Map.prototype.keys);
  const arrayPush = uncurry(Array.prototype.push);
  const arraySort = uncurry(Array.prototype.sort);
  const EventTargetCtor = EventTarget;
  const dispatch = uncurry(EventTarget.prototype.dispatchEvent);
  const listen = uncurry(EventTarget.prototype.addEventListener);
  const unlisten = uncurry(EventTarget.prototype.removeEventListener);
  const TypeErrorCtor = TypeError;
  const ErrorCtor = Error;
  const queueMicrotaskFn = globalThis.queueMicrotask;
  const warn = console.warn;
  const reportErrorFn = globalThis.reportError;
  const regexTest = uncurry(RegExp.prototype.test);
  const DocumentProto = Document.prototype;
  const querySelectorAll = uncurry(DocumentProto.querySelectorAll);
  const MutationObserverCtor = MutationObserver;
  const win = window;
  const doc = document;
  const NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;

  // The DOM's interfaces, captured by captureDom() when the page first uses
  // WebMCP (or a form declares a tool), not here: the first touch of each
  // costs every document main-thread time, before its first script. A page can have
  // replaced one by then; that breaks only its own tools, since the relay and
  // the worker trust nothing from this world anyway.
  let EventCtor, CustomEventCtor, DOMExceptionCtor, AbortControllerCtor, AbortSignalCtor;
  let signalAborted, signalReason, abortController, controllerSignal;
  let MessageChannelCtor, channelPort1, channelPort2, portPost, portSetOnMessage;
  let getAttribute;
  function captureDom() {
    EventCtor = Event;
    CustomEventCtor = CustomEvent;
    DOMExceptionCtor = DOMException;
    AbortControllerCtor = AbortController;
    AbortSignalCtor = AbortSignal;
    signalAborted = uncurry(getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted').get);
    signalReason = uncurry(getOwnPropertyDescriptor(AbortSignal.prototype, 'reason').get);
    abortController = uncurry(AbortController.prototype.abort);
    controllerSignal = uncurry(getOwnPropertyDescriptor(AbortController.prototype, 'signal').get);
    MessageChannelCtor = MessageChannel;
    channelPort1 = uncurry(getOwnPropertyDescriptor(MessageChannel.prototype, 'port1').get);
    channelPort2 = uncurry(getOwnPropertyDescriptor(MessageChannel.prototype, 'port2').get);
    portPost = uncurry(MessagePort.prototype.postMessage);
    portSetOnMessage = uncurry(getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage').set);
    getAttribute = uncurry(Element.prototype.getAttribute);
    for (const ctor of [EventCtor, CustomEventCtor, DOMExceptionCtor, AbortControllerCtor, AbortSignalCtor, MessageChannelCtor]) {
      if (typeof ctor !== 'function') throw new TypeErrorCtor(`${describe(ctor)} where a DOM interface belongs`);
    }
  }

  // A task, not a microtask: WebMCP's events and promise resolutions are
  // queued as tasks. The steps queued during one task (a page registering
  // 1,000 tools in a loop queues 2,000: a `toolchange` event and then a
  // resolution, per tool) run in order in one later task, not 2,000 tasks:
  // every event still fires, none in the task that queued it, each promise
  // after its own event. What goes is the microtask checkpoint between two
  // steps: microtasks queued by a listener or a promise reaction run after
  // the whole batch. The draft queues these tasks from steps run in
  // parallel, so it promises no order between them and other tasks.
  // The channel is made on first use.
  let taskChannel = null; // the port to post to
  let taskQueue = [];
  function runTasks() {
    const tasks = taskQueue;
    taskQueue = [];
    for (let i = 0; i < tasks.length; i++) tasks[i]();
  }
  function queueTask(task) {
    if (taskQueue.length === 0) {
      if (taskChannel === null) {
        const channel = new MessageChannelCtor();
        portSetOnMessage(channelPort1(channel), runTasks);
        taskChannel = channelPort2(channel);
      }
      portPost(taskChannel, null);
    }
    arrayPush(taskQueue, task);
  }

  // ---- The native API, if the browser has one ------------------------------
  // Chromium with --enable-features=WebMCP has `navigator.modelContext` (M148);
  // the draft puts it on `document`. Either is wrapped the same way.

  // The browser's own accessors, taken before Toolgate's replace them (see
  // "Installing"); the objects they give are read at start().
  const NavigatorProto = Navigator.prototype;
  const nativeOnDocument = getOwnPropertyDescriptor(DocumentProto, 'modelContext');
  const nativeOnNavigator = getOwnPropertyDescriptor(NavigatorProto, 'modelContext');
  function nativeContextOf(desc, target) {
    if (!desc || typeof desc.get !== 'function') return null;
    try {
      const context = apply(desc.get, target, []);
      const register = context && getPrototypeOf(context).registerTool;
      return typeof register === 'function' ? { context, register } : null;
    } catch {
      return null;
    }
  }
  let native = null;

  // ---- The channel to the relay --------------------------------------------

  const TO_RELAY = 'toolgate:to-relay';
  const TO_PAGE = 'toolgate:to-page';
  let pendingOps = [];
  let pendingCallbacks = [];
  let nextBatch = 1;
  const waiting = new MapCtor(); // batch id -> callbacks for its register results, in order

  // Queues one op; the ops of one task go to the worker as one message.
  // `onResult` receives the worker's answer to each declaration registered.
  function report(op, onResult = null) {
    if (pendingOps.length === 0) queueMicrotaskFn(flush);
    arrayPush(pendingOps, op);
    const declarations = op.op === 'register' ? 1 : op.op === 'provide' ? op.decls.length : 0;
    for (let i = 0; i < declarations; i++) arrayPush(pendingCallbacks, onResult);
  }

  function flush() {
    if (pendingOps.length === 0) return; // Flushed already, by `pagehide`.
    const batch = nextBatch++;
    const ops = pendingOps;
    mapSet(waiting, batch, pendingCallbacks);
    pendingOps = [];
    pendingCallbacks = [];
    // In this order: the relay reads `type` and `batch` from the text's start.
    dispatch(win, new CustomEventCtor(TO_RELAY, { detail: stringify({ type: 'updates', batch, ops }) }));
  }

  // The relay's answers, and the calls it hands on. Listened to from the
  // start (one listener costs next to nothing): a call can come for a tool
  // this frame never registered (the page forged its report), and must get
  // its answer at once, not at the call's timeout.
  function fromRelay(event) {
    if (typeof event.detail !== 'string') return;
    let message;
    try {
      message = parse(event.detail);
    } catch {
      return;
    }
    if (message?.type === 'call') {
      // Unanswered if Toolgate could not start here: the worker's timeout answers.
      if (start()) runForAgent(message);
      return;
    }
    if (message?.type === 'native_result') {
      nativeReply(message);
      return;
    }
    if (message?.type !== 'results' || !mapHas(waiting, message.batch)) return;
    const callbacks = mapGet(waiting, message.batch);
    mapDelete(waiting, message.batch);
    const results = isArray(message.results) ? message.results : [];
    for (let i = 0; i < callbacks.length; i++) {
      if (callbacks[i]) callbacks[i](results[i] ?? { error: message.error ?? 'no answer from Toolgate' });
    }
  }

  // ---- Reading a declaration, once, without ever throwing into the page ----

  const HINTS = ['readOnlyHint', 'consequentialHint', 'destructiveHint', 'idempotentHint',
    'openWorldHint', 'untrustedContentHint', 'debugging'];
  // The members of the draft's ToolAnnotations, which getTools() reports.
  const IDL_HINTS = ['readOnlyHint', 'untrustedContentHint', 'consequentialHint', 'debugging'];

  // How a value the page put where a boolean belongs reads in a lint note.
  function describe(value) {
    if (value === null) return 'null';
    switch (typeof value) {
      case 'string': return `the string ${stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
      case 'number': case 'bigint': return `the number ${toString(value)}`;
      case 'function': return 'a function';
      case 'symbol': return 'a symbol';
      default: return isArray(value) ? 'an array' : 'an object';
    }
  }

  function errorText(error) {
    try {
      return `${error?.name ?? 'Error'}: ${error?.message ?? toString(error)}`;
    } catch {
      return 'an error that could not be read';
    }
  }

  // Reads one member; a throwing getter or Proxy trap gives `{ error }`.
  function read(object, key) {
    try {
      return { value: object[key] };
    } catch (error) {
      return { error };
    }
  }

  // WebIDL's DOMString conversion, as the native API does it.
  function toDOMString(value) {
    if (typeof value === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string');
    return toString(value);
  }

  const REGISTER = "Failed to execute 'registerTool' on 'ModelContext': ";
  const memberError = (member, dictionary, reason) => new TypeErrorCtor(
    `${REGISTER}Failed to read the '${member}' property from '${dictionary}': ${reason}`,
  );
  const invalidState = (message) => new DOMExceptionCtor(REGISTER + message, 'InvalidStateError');

  // Copies `annotations` as plain data. structuredClone reads every member
  // once and refuses Proxies, functions and other non-data: such annotations
  // make the declaration unreadable (Consequential) instead of throwing.
  function readAnnotations(annotations, problems) {
    if (annotations === undefined || annotations === null) return { hints: null, idl: null };
    if (typeof annotations !== 'object') {
      arrayPush(problems, `annotations is ${describe(annotations)}, not an object`);
      return { hints: null, idl: null };
    }
    let copy;
    try {
      copy = clone(annotations);
    } catch (error) {
      arrayPush(problems, `annotations is not plain data (${errorText(error)})`);
      return { hints: null, idl: null };
    }
    const hints = {};
    for (const key of HINTS) {
      if (!hasOwn(copy, key) || copy[key] === undefined) continue;
      hints[key] = typeof copy[key] === 'boolean' ? copy[key] : describe(copy[key]);
    }
    // What the draft's WebIDL makes of them: any value converted to a boolean.
    const idl = {};
    for (const key of IDL_HINTS) idl[key] = Boolean(copy[key]);
    return { hints, idl };
  }

  // Reads a declaration's hints: `annotations` and hints misplaced beside it.
  function readHints(tool) {
    const problems = [];
    const annotations = read(tool, 'annotations');
    const { hints, idl } = annotations.error
      ? (arrayPush(problems, `reading annotations threw ${errorText(annotations.error)}`), { hints: null, idl: null })
      : readAnnotations(annotations.value, problems);
    const strayHints = [];
    for (const key of HINTS) {
      const stray = read(tool, key);
      if (stray.error || stray.value !== undefined) arrayPush(strayHints, key);
    }
    return { hints, idl, strayHints, problems };
  }

  // Snapshots a tool given as an object. Members are read in WebIDL's order
  // (alphabetical), each once: a later change to the page's object changes
  // nothing. Then the checks run in the spec's order: duplicate, name,
  // description, schema. `options` is read between the two, as the native API
  // reads it. Returns the entry's parts and the signal, or throws the error
  // the registration fails with.
  function snapshotTool(tool, path, exists, options) {
    if (tool === null || typeof tool !== 'object') {
      throw new TypeErrorCtor(`${REGISTER}The provided value is not of type 'ModelContextTool'.`);
    }
    const member = (key) => {
      const { value, error } = read(tool, key);
      if (error) throw error;
      return value;
    };
    let { hints, idl, strayHints, problems } = readHints(tool);
    const description = member('description');
    if (description === undefined) throw memberError('description', 'ModelContextTool', 'Required member is undefined.');
    if (typeof description === 'symbol') throw memberError('description', 'ModelContextTool', 'Cannot convert a Symbol value to a string');
    const execute = member('execute');
    if (execute === undefined) throw memberError('execute', 'ModelContextTool', 'Required member is undefined.');
    if (typeof execute !== 'function') throw memberError('execute', 'ModelContextTool', 'The given value is not a function.');
    const schema = member('inputSchema');
    if (schema !== undefined && (schema === null || (typeof schema !== 'object' && typeof schema !== 'function'))) {
      throw memberError('inputSchema', 'ModelContextTool', "Failed to convert value to 'object'.");
    }
    const nameValue = member('name');
    if (nameValue === undefined) throw memberError('name', 'ModelContextTool', 'Required member is undefined.');
    if (typeof nameValue === 'symbol') throw memberError('name', 'ModelContextTool', 'Cannot convert a Symbol value to a string');
    const tags = read(tool, 'tags');
    const titleRead = read(tool, 'title');
    const title = titleRead.error || typeof titleRead.value === 'symbol' ? undefined : titleRead.value;
    const { signal } = readOptions(options, 'registerTool');

    const name = toDOMString(nameValue);
    // A registration forwarded by the page's own polyfill (see "Pages that
    // bring their own polyfill" below) takes its hints and path from what the
    // page declared, not from the polyfill's cleaned copy; its duplicates are
    // looked for where it will be stored, under that path.
    let registeredAs = path;
    if (foreignCall && foreignCall.name === name) {
      ({ hints, idl, strayHints, problems } = foreignCall);
      registeredAs = foreignCall.path;
    }
    if (exists(name, registeredAs)) throw invalidState('Duplicate tool name');
    if (name === '') throw invalidState('Tool name is required');
    // The draft's name rule. Chromium's native API (M148) does not check it;
    // docs/classes.md, "What a page may register", asks for it.
    if (!regexTest(NAME_RULE, name)) {
      throw invalidState(`Tool name must be 1 to 128 characters of A-Z a-z 0-9 _ . - (got ${stringify(name.slice(0, 140))})`);
    }
    const descriptionText = toDOMString(description);
    if (descriptionText === '') throw invalidState('Description is required');
    let schemaJson = null;
    if (schema !== undefined) {
      try {
        schemaJson = stringify(schema);
      } catch (error) {
        throw new TypeErrorCtor(REGISTER + (error?.message ?? toString(error)));
      }
      if (schemaJson === undefined) throw new TypeErrorCtor(`${REGISTER}invalid input schema: toJSON() returns undefined`);
    }
    const snapshot = {
      kind: 'tool',
      path: registeredAs,
      name,
      title: title === undefined ? null : toDOMString(title),
      description: descriptionText,
      input_schema: schemaJson,
      annotations: hints,
      stray_hints: strayHints,
      tags: !tags.error && isArray(tags.value) ? arrayFrom(tags.value).filter((t) => typeof t === 'string') : [],
      instructions: null,
      unreadable: problems.length ? problems.join('; ') : null,
    };
    return { snapshot, execute, idl, signal };
  }

  // `registerTool(name, description, inputSchema, execute, annotations?)`.
  function positionalTool(args, path, exists) {
    const [name, description, inputSchema, execute, annotations] = args;
    return snapshotTool({ name, description, inputSchema, execute, annotations }, path, exists, undefined);
  }

  // Skills: instructions for agents, never called.
  function snapshotSkill(skill, path, exists) {
    const fail = (message) => new TypeErrorCtor(`Failed to execute 'registerSkill' on 'ModelContext': ${message}`);
    if (skill === null || typeof skill !== 'object') throw fail('The provided value is not an object.');
    const get = (key) => {
      const { value, error } = read(skill, key);
      if (error) throw error;
      return value === undefined ? undefined : toDOMString(value);
    };
    const description = get('description') ?? '';
    const instructions = get('instructions');
    const name = get('name');
    const title = get('title');
    if (name === undefined) throw fail('Skill name is required.');
    if (exists(name)) throw new DOMExceptionCtor("Failed to execute 'registerSkill' on 'ModelContext': Duplicate skill name", 'InvalidStateError');
    if (!regexTest(NAME_RULE, name)) {
      throw new DOMExceptionCtor("Failed to execute 'registerSkill' on 'ModelContext': Skill name must be 1 to 128 characters of A-Z a-z 0-9 _ . -", 'InvalidStateError');
    }
    if (instructions === undefined) throw fail('Skill instructions are required.');
    const snapshot = {
      kind: 'skill', path, name, title: title ?? null, description, input_schema: null,
      annotations: null, stray_hints: [], tags: [], instructions, unreadable: null,
    };
    return { snapshot, execute: null, idl: null };
  }

  function readOptions(options, method) {
    if (options === undefined || options === null) return {};
    if (typeof options !== 'object' && typeof options !== 'function') {
      throw new TypeErrorCtor(`Failed to execute '${method}' on 'ModelContext': The provided value is not of type 'ModelContextRegisterToolOptions'.`);
    }
    const { value: signal, error } = read(options, 'signal');
    if (error) throw error;
    if (signal !== undefined && !(signal instanceof AbortSignalCtor)) {
      throw new TypeErrorCtor(`Failed to execute '${method}' on 'ModelContext': Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.`);
    }
    return { signal };
  }

  // ---- What this frame publishes -------------------------------------------

  // "source/kind/name" -> entry. Sources: document, navigator, declarative.
  const entries = new MapCtor();
  // Where document.modelContext stores a registration: under `navigator` when
  // the page's polyfill on navigator forwarded it (see snapshotTool).
  const sourceOf = (path) => (path === 'navigator_object' ? 'navigator' : 'document');
  // Whether document.modelContext already has a tool of this name where a
  // registration by `path` goes (snapshotTool's `exists`).
  const keyOf = (source, kind, name) => `${source}/${kind}/${name}`;
  const has = (source, kind) => (name) => mapHas(entries, keyOf(source, kind, name));
  // One name is one tool in a document, whichever object registered it: a
  // second registration of the name, on any object, is a duplicate
  // (ARCHITECTURE.md, "One name, one tool"; the worker refuses it too).
  const toolNamed = (name) => has('document', 'tool')(name) || has('navigator', 'tool')(name) || has('declarative', 'tool')(name);

  // The tools of this frame, sorted by name as WebMCP lists them.
  function toolEntries() {
    const list = [];
    for (const entry of arrayFrom(mapValues(entries))) {
      if (entry.snapshot.kind === 'tool') arrayPush(list, entry);
    }
    return arraySort(list, (a, b) => (a.snapshot.name < b.snapshot.name ? -1 : a.snapshot.name > b.snapshot.name ? 1 : 0));
  }

  function findTool(name) {
    for (const entry of toolEntries()) if (entry.snapshot.name === name) return entry;
    return null;
  }

  // `toolchange`: one event per change, as a task, on every object that has it.
  const changeTargets = [];
  function changed() {
    queueTask(() => {
      for (const target of changeTargets) dispatch(target, new EventCtor('toolchange'));
    });
  }

  // The `execute` of the copy Toolgate registers with the browser's own
  // WebMCP. Whatever calls it comes from outside Toolgate: the browser's own
  // agent, or an agent driving the browser through DevTools
  // (`WebMCP.invokeTool`). So it runs nothing itself: it asks the worker,
  // through the relay, as the chat "the browser's agent in this tab", and
  // the worker decides as for any agent (ARCHITECTURE.md, "Who is gated").
  // If the call may run, the worker runs it as it runs every agent's call
  // (`runForAgent`, below), and the value the page's function gave is what
  // the browser gets; if not, this throws the refusal, which the browser
  // reports as the call's failure. A page calling its own tool (executeTool)
  // never comes here.
  let lastNativeCall = 0;
  const nativeCalls = new MapCtor(); // call number -> {resolve, reject}
  const nativeValues = new MapCtor(); // call number -> the page's result, once run
  function gatedExecute(entry) {
    return function execute(input) {
      return new PromiseCtor((resolve, reject) => {
        const call = ++lastNativeCall;
        let detail;
        try {
          detail = stringify({ type: 'native_call', call, source: entry.source, name: entry.snapshot.name, arguments: input ?? {} });
        } catch (error) {
          reject(new TypeErrorCtor(`Toolgate could not read the call's input: ${errorText(error)}`));
          return;
        }
        mapSet(nativeCalls, call, { resolve, reject });
        dispatch(win, new CustomEventCtor(TO_RELAY, { detail }));
      });
    };
  }

  // The worker's reply to a native call: a JSON-RPC response, as an agent
  // gets it. The page can forge this event, but only about its own calls.
  function nativeReply({ call, reply }) {
    const waiting = mapGet(nativeCalls, call);
    if (!waiting) return;
    mapDelete(nativeCalls, call);
    const ran = mapHas(nativeValues, call);
    const value = mapGet(nativeValues, call);
    mapDelete(nativeValues, call);
    const result = reply?.result;
    if (waiting.form) {
      // Allowed: the page's answer to the released submission is the call's.
      if (!(result && result.isError === false)) waiting.reject(refusalOf(reply));
      return;
    }
    if (result && result.isError === false) {
      if (ran) {
        try {
          waiting.resolve(servable(value));
        } catch (error) {
          waiting.reject(error);
        }
      } else {
        waiting.resolve(result.structuredContent ?? result.content?.[0]?.text);
      }
      return;
    }
    waiting.reject(refusalOf(reply));
  }
  // Why a native call failed: Toolgate refused it, or it ran and failed.
  function refusalOf(reply) {
    const why = toString(reply?.result?.content?.[0]?.text ?? reply?.error?.message ?? 'Toolgate gave no answer');
    const ran = reply?.result?._meta?.toolgate?.decision === 'run';
    return new ErrorCtor(ran ? why : `Toolgate refused this call: ${why}`);
  }

  // Runs the function the page gave at registration and settles with its
  // result, the result's JSON text (undefined for undefined or a function),
  // and why it cannot be serialised, if it cannot (a Symbol, a cycle, a
  // BigInt, a throwing toJSON). Its getters and toJSON run once, here.
  async function runTool(entry, input) {
    return settled(apply(entry.execute, undefined, [input]));
  }
  function outcome(value) {
    if (typeof value === 'symbol') {
      return { value, text: undefined, unserialisable: new TypeErrorCtor('The tool returned a Symbol, which cannot be serialised.') };
    }
    try {
      return { value, text: stringify(value), unserialisable: null };
    } catch (error) {
      return { value, text: undefined, unserialisable: error };
    }
  }

  // The result a caller of `execute` gets: the page's value, undefined for
  // an object whose JSON is nothing. A Symbol, or an object that cannot be
  // serialised, throws, so the call fails cleanly; a bare BigInt is the
  // page's value, as Chromium's own API hands it on.
  function servable({ value, text, unserialisable }) {
    const isObject = value !== null && typeof value === 'object';
    if (unserialisable && (isObject || typeof value === 'symbol')) throw unserialisable;
    return isObject && text === undefined ? undefined : value;
  }

  // Annotations for the native copy: the class Toolgate decided.
  function nativeAnnotations(result) {
    switch (result?.class) {
      case 'Read only': return { readOnlyHint: true };
      case 'Mutating': return { readOnlyHint: false, consequentialHint: false };
      default: return { readOnlyHint: false, consequentialHint: true };
    }
  }

  // Registers Toolgate's copy of a tool with the browser's own API once the
  // worker has classed it, so the browser's own agent sees the same class.
  // Declarative tools are left to the browser, which registers forms itself.
  function mirror(entry, result) {
    if (!native || entry.removed || entry.snapshot.kind !== 'tool' || entry.source === 'declarative') return;
    entry.nativeController = new AbortControllerCtor();
    const copy = {
      name: entry.snapshot.name,
      description: entry.snapshot.description,
      execute: entry.gated,
      annotations: nativeAnnotations(result),
    };
    if (entry.snapshot.title !== null) copy.title = entry.snapshot.title;
    // The schema as the page gave it, even where that is not an object (a Date,
    // a toJSON that returns a string), which the native API refuses as a value.
    const schemaJson = entry.snapshot.input_schema;
    if (schemaJson !== null) copy.inputSchema = { toJSON: () => parse(schemaJson) };
    const failed = (error) => warn(`Toolgate could not register ${copy.name} with the browser's WebMCP: ${errorText(error)}`);
    try {
      const done = apply(native.register, native.context, [copy, { signal: controllerSignal(entry.nativeController) }]);
      if (done && typeof done.then === 'function') promiseThen(done, undefined, failed);
    } catch (error) {
      failed(error);
    }
  }

  // Puts an entry for a snapshot in the frame's map, without reporting it.
  function makeEntry(source, taken) {
    const entry = {
      source,
      snapshot: taken.snapshot,
      execute: taken.execute,
      idl: taken.idl,
      removed: false,
      nativeController: null,
      gated: null,
    };
    entry.gated = gatedExecute(entry);
    mapSet(entries, keyOf(source, entry.snapshot.kind, entry.snapshot.name), entry);
    return entry;
  }

  // Adds an entry for a snapshot and reports it to the worker.
  function add(source, taken, signal) {
    const entry = makeEntry(source, taken);
    report({ op: 'register', decl: entry.snapshot }, (result) => mirror(entry, result));
    changed();
    if (signal !== undefined) {
      // Aborting unregisters this entry, not a later one of the same name.
      listen(signal, 'abort', () => {
        if (mapGet(entries, keyOf(source, entry.snapshot.kind, entry.snapshot.name)) === entry) {
          remove(source, entry.snapshot.kind, entry.snapshot.name);
        }
      }, { once: true });
    }
    return entry;
  }

  // Removes an entry. `reported` is false when the caller reports the change
  // itself (clearContext, provideContext).
  function remove(source, kind, name, reported = true) {
    const key = keyOf(source, kind, name);
    const entry = mapGet(entries, key);
    if (!entry) return;
    mapDelete(entries, key);
    entry.removed = true;
    if (entry.nativeController) abortController(entry.nativeController);
    if (reported) report({ op: 'unregister', source, kind, name });
    changed();
  }

  // ---- Running a tool, as WebMCP's executeTool does -----------------------

  const unknownError = (message) => new DOMExceptionCtor(message, 'UnknownError');
  const INVOCATION_FAILED = 'Tool was executed but the invocation failed. For example, the script function threw an error';

  // Runs a tool with input given as JSON text. The result is text: strings as
  // they are, objects as JSON, anything else as String() gives it, as
  // Chromium's testing API returns them.
  function runForTesting(entry, inputJson) {
    let input;
    try {
      input = parse(inputJson);
    } catch {
      input = null;
    }
    if (input === null || typeof input !== 'object') {
      dispatch(win, toolActivated(entry.snapshot.name));
      return rejected(unknownError('Failed to parse input arguments'));
    }
    // The page's execute runs now, before toolactivated, as in Chromium.
    const running = promiseThen(runTool(entry, input), (result) => ({ text: result.text, value: servable(result) }));
    dispatch(win, toolActivated(entry.snapshot.name));
    return promiseThen(running, ({ value, text }) => {
      if (typeof value === 'string') return value === '' ? 'Operation succeeded' : value;
      if (value !== null && typeof value === 'object') return text;
      if (typeof value === 'function') return 'undefined';
      return toString(value);
    }, (error) => { reportErrorFn(error); throw unknownError(INVOCATION_FAILED); });
  }

  // Runs a tool an agent called through Toolgate, and answers the relay with
  // the result's JSON text (written once, handed on as text to the worker's
  // core), or the reason it failed.
  function runForAgent({ call_id: callId, source, name, arguments: input, native_call: nativeCall }) {
    const answer = (result) => dispatch(win, new CustomEventCtor(TO_RELAY, {
      detail: stringify({ type: 'call_result', call_id: callId, ...result }),
    }));
    // A native call's own value goes back to the browser, not its JSON.
    const keep = mapHas(nativeCalls, nativeCall)
      ? (outcome) => { mapSet(nativeValues, nativeCall, outcome); return outcome; }
      : (outcome) => outcome;
    const held = mapGet(nativeCalls, nativeCall);
    if (held?.form) {
      try {
        releaseForm(held);
        answer({ ok: true, json: 'null' });
      } catch (error) {
        answer({ ok: false, error: `${name}'s form could not be submitted: ${errorText(error)}` });
      }
      return;
    }
    const entry = mapGet(entries, keyOf(toString(source), 'tool', toString(name)));
    if (!entry) {
      answer({ ok: false, error: `${name} is no longer registered on this page` });
      return;
    }
    const finish = ({ text, unserialisable }) => {
      if (unserialisable) answer({ ok: false, error: `${name} returned a result that cannot be serialised (${errorText(unserialisable)})` });
      else answer({ ok: true, json: text === undefined ? 'null' : text });
    };
    const fail = (error) => answer({ ok: false, error: `${name} threw ${errorText(error)}` });
    // The page's execute runs now, then toolactivated fires, as for executeTool.
    let value;
    let threw = false;
    try {
      value = apply(entry.execute, undefined, [input ?? {}]);
    } catch (error) {
      threw = true;
      value = error;
    }
    dispatch(win, toolActivated(entry.snapshot.name));
    if (threw) fail(value);
    // A plain value is the result as it is: answered at once, not a turn
    // later (README, figure 4).
    else if (isPlain(value)) finish(keep(outcome(value)));
    else promiseThen(settled(value), (result) => finish(keep(result)), fail);
  }
  const isPlain = (value) => value === null || value === undefined
    || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  // Awaited as `await` does it: a page's thenable, or a promise whose
  // `constructor` getter throws, rejects instead of throwing here.
  async function settled(value) {
    return outcome(await value);
  }

  // `toolactivated`: a WebMCPEvent where the browser has one, else an Event with `toolName`.
  function toolActivated(toolName) {
    if (typeof win.WebMCPEvent === 'function') return new win.WebMCPEvent('toolactivated', { toolName });
    const event = new EventCtor('toolactivated');
    defineProperty(event, 'toolName', { value: toolName, enumerable: true });
    return event;
  }

  // ---- document.modelContext (the current draft) ---------------------------

  class ModelContext extends EventTargetCtor {
    // registerTool(tool, {signal, exposedTo}) -> Promise<undefined>; errors reject.
    // Also takes the positional form (name, description, inputSchema, execute, annotations?).
    registerTool(tool, options) {
      try {
        const positional = typeof tool === 'string';
        const taken = positional
          ? positionalTool(arguments, 'document_positional', toolNamed)
          : snapshotTool(tool, 'document_object', toolNamed, options);
        const { signal } = taken;
        if (signal !== undefined && signalAborted(signal)) return rejected(signalReason(signal));
        add(sourceOf(taken.snapshot.path), taken, signal);
        // The spec resolves after toolchange was queued.
        return new PromiseCtor((resolve) => queueTask(() => resolve(undefined)));
      } catch (error) {
        return rejected(error);
      }
    }

    // registerSkill({name, description, instructions}, {signal}) -> Promise<undefined>.
    registerSkill(skill, options) {
      try {
        const taken = snapshotSkill(skill, 'document_object', has('document', 'skill'));
        const { signal } = readOptions(options, 'registerSkill');
        if (signal !== undefined && signalAborted(signal)) return rejected(signalReason(signal));
        add('document', taken, signal);
        return resolved(undefined);
      } catch (error) {
        return rejected(error);
      }
    }

    // getTools() -> Promise of this frame's tools, sorted by name, as RegisteredTool.
    getTools() {
      const list = [];
      for (const entry of toolEntries()) {
        const { snapshot } = entry;
        const item = {
          name: snapshot.name,
          title: snapshot.title ?? '',
          description: snapshot.description,
          inputSchema: snapshot.input_schema === null ? undefined : parse(snapshot.input_schema),
          window: win,
          origin: win.origin,
        };
        if (entry.idl) item.annotations = { ...entry.idl };
        arrayPush(list, item);
      }
      return new PromiseCtor((resolve) => queueTask(() => resolve(list)));
    }

    // executeTool(registeredTool, inputObject = {}) -> Promise of the result as JSON text.
    // The input may also be JSON text, as page polyfills (@mcp-b) pass it.
    executeTool(tool, inputObject = {}) {
      const name = read(tool ?? {}, 'name');
      const entry = name.error ? null : findTool(toString(name.value));
      if (!entry) return rejected(unknownError(`Tool not found: ${name.error ? '' : toString(name.value)}`));
      let inputJson = inputObject;
      if (typeof inputObject !== 'string') {
        try {
          inputJson = stringify(inputObject);
        } catch (error) {
          return rejected(error);
        }
      }
      return promiseThen(runForTesting(entry, inputJson), (text) => {
        let value = text;
        try {
          value = parse(text);
        } catch {
          // A plain string result: serialise it as the draft does.
        }
        return stringify(value);
      });
    }
  }
  defineEventHandler(ModelContext.prototype, 'toolchange');
  defineEventHandler(ModelContext.prototype, 'toolactivated');
  defineEventHandler(ModelContext.prototype, 'toolcancel');

  // ---- navigator.modelContext (the legacy API) -----------------------------

  class LegacyModelContext extends EventTargetCtor {
    // registerTool(tool, {signal}) or registerTool(name, description, inputSchema, execute, annotations?).
    // Synchronous and returning nothing, errors thrown, as Chromium's native API (M148).
    registerTool(tool, options) {
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
      const list = read(context ?? {}, 'tools');
      if (list.error) throw list.error;
      const given = list.value === undefined || list.value === null ? [] : arrayFrom(list.value);
      const names = new MapCtor();
      const takenAll = [];
      for (const tool of given) {
        const taken = snapshotTool(tool, 'provide_context', (name) => mapHas(names, name), undefined);
        mapSet(names, taken.snapshot.name, true);
        arrayPush(takenAll, taken);
      }
      for (const entry of toolEntries()) {
        if (entry.source === 'navigator' && (entry.snapshot.path === 'provide_context' || mapHas(names, entry.snapshot.name))) {
          remove('navigator', 'tool', entry.snapshot.name, false);
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
      for (const entry of arrayFrom(mapValues(entries))) {
        if (entry.source === 'navigator') remove('navigator', entry.snapshot.kind, entry.snapshot.name, false);
      }
      report({ op: 'clear', source: 'navigator' });
    }

    registerSkill(skill, options) {
      const taken = snapshotSkill(skill, 'navigator_object', has('navigator', 'skill'));
      const { signal } = readOptions(options, 'registerSkill');
      if (signal !== undefined && signalAborted(signal)) return;
      add('navigator', taken, signal);
    }
  }

  // ---- navigator.modelContextTesting, as Chromium's (WebMCPTesting) --------

  class ModelContextTesting extends EventTargetCtor {
    // The frame's tools, sorted by name: {description, inputSchema (JSON text, '' if none), name}.
    listTools() {
      return toolEntries().map(({ snapshot }) => ({
        description: snapshot.description,
        inputSchema: snapshot.input_schema ?? '',
        name: snapshot.name,
      }));
    }

    // executeTool(name, inputArgsJson) -> Promise of the result as text.
    executeTool(...args) {
      if (args.length < 2) {
        return rejected(new TypeErrorCtor(`Failed to execute 'executeTool' on 'ModelContextTesting': 2 arguments required, but only ${args.length} present.`));
      }
      const name = toDOMString(args[0]);
      const entry = findTool(name);
      if (!entry) return rejected(unknownError(`Tool not found: ${name}`));
      return runForTesting(entry, toDOMString(args[1]));
    }
  }
  defineEventHandler(ModelContextTesting.prototype, 'toolchange');

  // An `on<type>` event handler attribute.
  function defineEventHandler(proto, type) {
    const handlers = new WeakMap();
    defineProperty(proto, `on${type}`, {
      configurable: true,
      enumerable: true,
      get() { return handlers.get(this)?.handler ?? null; },
      set(handler) {
        const old = handlers.get(this);
        if (old) unlisten(this, type, old.listener);
        handlers.delete(this);
        if (typeof handler !== 'function') return;
        const listener = (event) => apply(handler, this, [event]);
        handlers.set(this, { handler, listener });
        listen(this, type, listener);
      },
    });
  }

  // ---- Declarative tools: <form toolname tooldescription> -------------------

  let declared = new MapCtor(); // name -> snapshot JSON text, as last reported

  function fieldSchema(field) {
    const type = field.type;
    const property = type === 'number' || type === 'range' ? { type: 'number' }
      : type === 'checkbox' ? { type: 'boolean' } : { type: 'string' };
    const description = getAttribute(field, 'toolparamdescription')
      ?? field.labels?.[0]?.textContent?.trim() ?? getAttribute(field, 'aria-description');
    if (description) property.description = description;
    if (field.tagName === 'SELECT') property.enum = arrayFrom(field.options).map((o) => o.value);
    return property;
  }

  function formSnapshot(form) {
    const properties = {};
    const required = [];
    for (const field of arrayFrom(form.elements)) {
      const { name, type } = field;
      if (!name || ['submit', 'button', 'reset', 'hidden', 'file', 'image'].includes(type) || field.tagName === 'FIELDSET') continue;
      if (hasOwn(properties, name)) continue; // radio groups: one property
      properties[name] = fieldSchema(field);
      if (field.required) arrayPush(required, name);
    }
    const schema = { type: 'object', properties };
    if (required.length) schema.required = required;
    return {
      kind: 'tool',
      path: 'declarative',
      name: getAttribute(form, 'toolname'),
      title: null,
      description: getAttribute(form, 'tooldescription'),
      input_schema: stringify(schema),
      annotations: null,
      stray_hints: [],
      tags: [],
      instructions: null,
      unreadable: null,
    };
  }

  // Reports what the page's forms declare now, against what was last reported.
  function scanForms() {
    scanQueued = false;
    const forms = arrayFrom(querySelectorAll(doc, 'form[toolname][tooldescription]'));
    if ((forms.length === 0 && mapSize(declared) === 0) || !start()) return;
    const now = new MapCtor();
    for (const form of forms) {
      const snapshot = formSnapshot(form);
      if (!regexTest(NAME_RULE, snapshot.name) || !snapshot.description || mapHas(now, snapshot.name)) continue;
      const text = stringify(snapshot);
      mapSet(now, snapshot.name, text);
      if (mapGet(declared, snapshot.name) === text) continue;
      remove('declarative', 'tool', snapshot.name, false);
      add('declarative', {
        snapshot,
        execute: () => { throw new DOMExceptionCtor('A declarative tool runs by submitting its form.', 'NotSupportedError'); },
        idl: null,
      });
    }
    for (const name of arrayFrom(mapKeys(declared))) {
      if (!mapHas(now, name)) remove('declarative', 'tool', name);
    }
    declared = now;
  }

  let scanQueued = false;
  function queueScan() {
    if (scanQueued) return;
    scanQueued = true;
    queueMicrotaskFn(scanForms);
  }

  // Forms can only appear through added nodes or changed attributes. The
  // watch starts once the parser is done, with one scan for the forms it
  // made: watching from document_start would queue a mutation record for
  // every node the parser inserts, and a scan per batch of them, on every
  // page, before its `load`.
  function watchForms() {
    scanForms();
    new MutationObserverCtor((records) => {
      for (const record of records) {
        if (record.type === 'attributes' || record.addedNodes.length || record.removedNodes.length) {
          queueScan();
          return;
        }
      }
    }).observe(doc, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['toolname', 'tooldescription', 'toolparamdescription', 'name', 'required', 'type'],
    });
  }
  // ---- Form tools called through the browser's own WebMCP -------------------
  // Chromium registers every <form toolname> with its native WebMCP itself,
  // so Toolgate has no copy to gate there. An agent's call fills the form and
  // then submits it with a trusted, cancelable SubmitEvent whose
  // `agentInvoked` is true, the person's submit included when the form has
  // no `toolautosubmit`. This capturing listener, on window before any page
  // script, holds that submission: no page handler runs and nothing
  // navigates, and the call waits on a promise Toolgate hands to
  // `respondWith`. The worker decides as for any call (gatedExecute, above).
  // Refused, the promise rejects: the caller gets the native failure. Allowed,
  // the form is submitted again (`requestSubmit`, let through once), the page
  // answers that submission as it would have, and the held promise is left
  // unsettled so that the page's own answer is the call's (the first answer
  // to settle is the one the browser takes). The fill itself
  // happens before any event a page can stop; only the submission is gated.
  let releasing = null; // the form Toolgate is submitting again, once
  function holdAgentSubmit(event) {
    if (!event.isTrusted || event.agentInvoked !== true) return;
    const form = event.target;
    if (form === releasing) {
      releasing = null;
      return;
    }
    if (!start()) return;
    const name = getAttribute(form, 'toolname');
    if (name === null) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    const call = ++lastNativeCall;
    const held = new PromiseCtor((_, reject) => {
      mapSet(nativeCalls, call, { form, submitter: event.submitter, reject });
    });
    // The refusal goes to the caller through respondWith; it is no uncaught
    // error of the page's.
    promiseThen(held, undefined, () => {});
    event.respondWith(held);
    dispatch(win, new CustomEventCtor(TO_RELAY, {
      detail: stringify({ type: 'native_call', call, source: 'declarative', name, arguments: formArguments(form) }),
    }));
  }
  listen(win, 'submit', holdAgentSubmit, true);

  // What an agent filled a form with, as its schema reads (formSnapshot).
  function formArguments(form) {
    const values = {};
    for (const field of arrayFrom(form.elements)) {
      const { name, type } = field;
      if (!name || ['submit', 'button', 'reset', 'hidden', 'file', 'image'].includes(type) || field.tagName === 'FIELDSET') continue;
      if (type === 'checkbox') values[name] = field.checked;
      else if (type === 'radio') {
        if (field.checked) values[name] = field.value;
      } else if (type === 'number' || type === 'range') {
        if (field.value !== '') values[name] = field.valueAsNumber;
      } else if (field.value !== '' || !hasOwn(values, name)) values[name] = field.value;
    }
    return values;
  }

  // The worker let a held form call run: the form is submitted again, and
  // the page's own answer to that submission is the call's.
  function releaseForm(held) {
    releasing = held.form;
    try {
      held.form.requestSubmit(held.submitter ?? undefined);
    } finally {
      releasing = null;
    }
  }

  // A capturing listener on window, added before any page script: the first
  // to hear DOMContentLoaded, which no page listener can stop first.
  if (doc.readyState === 'loading') listen(win, 'DOMContentLoaded', watchForms, { once: true, capture: true });
  else watchForms();

  // ---- Installing Toolgate's objects -----------------------------------------
  // Configurable accessors on the prototypes, as the native API has them. A
  // page's own polyfill (@mcp-b/webmcp-polyfill, @mcp-b/global) then finds
  // ours and registers through it, or wraps it. Each starts Toolgate.

  let documentContext = null;
  let navigatorContext = null;
  let testingContext = null;

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

  // ---- Starting --------------------------------------------------------------
  // What only a page that uses WebMCP needs waits for its first use: reading
  // any `modelContext`, defining one (a polyfill), a form declaring a tool, or
  // a call from the relay.

  listen(win, TO_PAGE, fromRelay);

  // Starts Toolgate in this document, once; says whether it runs. A page that
  // removed or replaced a DOM built-in Toolgate needs before its first use of
  // WebMCP gets no WebMCP from Toolgate (a warning says why), never an error.
  let started = false;
  function start() {
    if (started) return documentContext !== null;
    started = true;
    try {
      captureDom();
    } catch (error) {
      warn(`Toolgate is off in this document: the page replaced a built-in that WebMCP needs (${errorText(error)}).`);
      return false;
    }
    native = nativeContextOf(nativeOnDocument, doc) ?? nativeContextOf(nativeOnNavigator, win.navigator);
    documentContext = new ModelContext();
    navigatorContext = new LegacyModelContext();
    testingContext = new ModelContextTesting();
    arrayPush(changeTargets, documentContext, testingContext);
    listen(win, 'pagehide', leaving);
    listen(win, 'pageshow', restored);
    return true;
  }

  // ---- Pages that bring their own polyfill ----------------------------------
  // @mcp-b/global defines its own object as `modelContext` on `document` and
  // `navigator` (Object.defineProperty, over ours) and forwards each
  // registration to ours, with a cleaned copy that drops most hints. So
  // Toolgate watches for objects defined as `modelContext` and wraps their
  // registerTool, to keep the page's own declaration for the forwarded call.
  // The hooks are Proxies of the built-ins, so they look native to the page.

  let foreignCall = null; // the page's declaration while its polyfill runs
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
      const own = getOwnPropertyDescriptor(context, 'registerTool');
      try {
        defineProperty(context, 'registerTool', {
          configurable: true,
          writable: true,
          enumerable: own ? own.enumerable : false,
          value: function registerTool(tool) {
            const outer = foreignCall;
            foreignCall = tool !== null && typeof tool === 'object'
              ? { ...readHints(tool), name: nameOf(tool), path } : null;
            try {
              return apply(register, this, arguments);
            } finally {
              foreignCall = outer;
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
  Object.defineProperty = hook(defineProperty, (args) => definesModelContext(args[1]));
  Reflect.defineProperty = hook(Reflect.defineProperty, (args) => definesModelContext(args[1]));
  Object.defineProperties = hook(Object.defineProperties, (args) => hasOwn(ObjectCtor(args[1]), 'modelContext'));

  // A document going away for good (an iframe removed, a page left without
  // the back/forward cache) takes its tools with it: say so now, so the
  // icon's count is right without waiting for the palette to look.
  function leaving(event) {
    if (event.persisted || mapSize(entries) === 0) return;
    report({ op: 'reset' });
    flush();
  }

  // A page restored from the back/forward cache is a document the worker has
  // forgotten: report all of it again.
  function restored(event) {
    if (!event.persisted) return;
    report({ op: 'reset' });
    for (const entry of arrayFrom(mapValues(entries))) report({ op: 'register', decl: entry.snapshot });
  }
})();
