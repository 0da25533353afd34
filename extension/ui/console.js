// The agent console, in the side panel: a person plays the agent by hand.
// Pick a tab, list its tools, fill a tool's arguments through a form built
// from its inputSchema, call it, and see the result and Toolgate's decision.
// One console session is one chat; "New chat" starts another.
//
// Every request goes through the worker's one agent entry as MCP JSON-RPC
// (`{type: 'agent', chat_id, request}`). MV3 stops the service worker when it
// likes, dropping the reply port of a request still waiting on a card: the
// console then sends the SAME request (same chat, same id) again, which the
// worker attaches to the same pending card, or answers from the reply it kept.
//
// Everything a page declared (names, titles, descriptions, schemas, results)
// is rendered with textContent, never as HTML. The console gets it raw, as an
// agent does, so it shows it as the cards and the palette do (docs/cards.md,
// "How page text is shown"): escaped and cut by the core (`shown`), and
// isolated from the console's own words.

import init, { pageText as shownAs } from '../../pkg/toolgate.js';
import { $, badge, classBadge, el, pageText, pressOnly, prettyJson, siteLabel as host } from './dom.js';
import { clearSources, showSources } from './console-untrusted.js';
import { askWorker, saysWorkerUnreachable } from '../shared/chromium-errors.js';

await init();
// Page text of a kind (title, name, url, value, description, schema, result)
// as Toolgate shows it.
const shown = (text, kind) => shownAs(String(text ?? ''), kind);
// The same as a run of text inside an <option> or a status line, which hold
// no elements: isolated by the bidi isolate marks (FSI … PDI), which the
// escaping leaves none of in the text itself.
const isolate = (shownText) => `\u2068${shownText}\u2069`;
const isolated = (text, kind) => isolate(shown(text, kind));

const WAITING = 'Waiting for your answer on the Toolgate card…';
// Consecutive sends that may find no worker before the console gives up.
const RETRIES = 10;
// A send that stayed pending this long reached the worker, which stopped
// later (a card can wait minutes): the next failure starts the count afresh.
const LONG_WAIT_MS = 5_000;

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));



function say(text) {
  $('status').textContent = text;
}

// ---- Talking to the worker ---------------------------------------------------

// Sends a UI message, again and again while the worker is gone.
async function send(message) {
  let failures = 0;
  for (;;) {
    const started = Date.now();
    try {
      return await askWorker(message);
    } catch (error) {
      if (!saysWorkerUnreachable(String(error?.message ?? error))) throw error;
    }
    if (Date.now() - started > LONG_WAIT_MS) failures = 0;
    failures += 1;
    if (failures > RETRIES) {
      throw new Error(`Toolgate's service worker did not answer after ${RETRIES} tries`);
    }
    await sleep(Math.min(200 * failures, 2_000));
  }
}

// Runs `show` if `promise` is still pending after a moment (no flash for quick replies).
function whilePending(promise, show, delay = 400) {
  const timer = setTimeout(show, delay);
  return promise.finally(() => clearTimeout(timer));
}

// ---- Chats ------------------------------------------------------------------

let chatCount = 0;
let chat = null;

function newChat() {
  chatCount += 1;
  const readOnly = $('read-only').checked;
  const current = {
    id: crypto.randomUUID(),
    number: chatCount,
    label: `Agent console, chat ${chatCount}`,
    readOnly,
    nextId: 0,
  };
  current.opened = send({ type: 'open_chat', chat_id: current.id, label: current.label, read_only: readOnly })
    .then((reply) => {
      if (reply?.error) throw new Error(reply.error);
    });
  chat = current;
  $('chat-label').textContent = current.label;
  $('chat-mode').hidden = !readOnly;
  clearTools();
  clearSources();
  current.opened.then(
    () => {
      if (chat === current) say(`Started ${current.label}${readOnly ? ', Read only' : ''}.`);
    },
    (error) => {
      if (chat === current) say(`Toolgate could not open ${current.label}: ${error.message}`);
    },
  );
  return current;
}

// One MCP request as `current` (the current chat), under `id` (that chat's
// next one unless the caller took it already). Resolves to {chat, id, reply}.
async function request(method, params, current = chat, id = ++current.nextId) {
  await current.opened;
  const reply = await send({
    type: 'agent',
    chat_id: current.id,
    request: { jsonrpc: '2.0', id, method, params },
  });
  // `{error: "..."}` (a string) is the worker failing, not a JSON-RPC error.
  if (typeof reply?.error === 'string') throw new Error(reply.error);
  return { chat: current, id, reply };
}

// A browser tool whose result the console reads: its structuredContent.
async function browserTool(name, args) {
  const { chat: asked, reply } = await request('tools/call', { name, arguments: args });
  if (reply.error) throw new Error(reply.error.message ?? JSON.stringify(reply.error));
  if (reply.result?.isError) throw new Error(resultText(reply.result));
  return { asked, content: reply.result?.structuredContent ?? {} };
}

// ---- Tabs ---------------------------------------------------------------------

async function refreshTabs() {
  const select = $('tab');
  const before = select.value;
  $('refresh').disabled = true;
  say('Listing tabs…');
  try {
    const pending = browserTool('browser_list_tabs', {});
    const { content } = await whilePending(pending, () => say(`Listing tabs… ${WAITING}`));
    const tabs = content.tabs ?? [];
    select.replaceChildren(...tabs.map((tab) => el('option', {
      value: String(tab.tabId),
      text: `${tab.title ? isolated(tab.title, 'title') : '(untitled)'} — ${host(tab.site)}`,
    })));
    if (tabs.some((tab) => String(tab.tabId) === before)) select.value = before;
    const none = tabs.length === 0;
    select.disabled = none;
    $('list').disabled = none;
    $('tab-note').hidden = !none;
    $('tab-note').textContent = none ? 'No tab publishes WebMCP tools. Open a page that does, then Refresh.' : '';
    say(none ? 'No tab publishes WebMCP tools.' : `${tabs.length} tab${tabs.length === 1 ? '' : 's'} publish${tabs.length === 1 ? 'es' : ''} tools.`);
  } catch (error) {
    say(`Toolgate could not list the tabs: ${error.message}`);
  } finally {
    $('refresh').disabled = false;
  }
}

// ---- Tools --------------------------------------------------------------------

// The last listing of the current chat: {tabId, tools, skills, withheld}.
let listing = null;

function clearTools() {
  listing = null;
  $('tools').replaceChildren();
  $('withheld').replaceChildren();
  $('withheld').hidden = true;
  $('tools-note').hidden = true;
  $('tools-section').hidden = true;
  $('tool').hidden = true;
}

// The picked tab's id, or null.
function pickedTab() {
  const value = $('tab').value;
  return value === '' ? null : Number(value);
}

async function listTools() {
  const tabId = pickedTab();
  if (tabId === null) {
    say('Pick a tab first.');
    return;
  }
  const asking = chat;
  $('list').disabled = true;
  say('Listing tools…');
  try {
    const pending = browserTool('browser_list_webmcp_tools', { tabId });
    const { asked, content } = await whilePending(pending, () => say(`Listing tools… ${WAITING}`));
    if (asked !== chat) return; // A new chat began meanwhile.
    showListing(content);
  } catch (error) {
    if (asking === chat) say(`Toolgate could not list the tools: ${error.message}`);
  } finally {
    $('list').disabled = false;
  }
}

function showListing(content) {
  listing = {
    tabId: content.tabId,
    tools: content.tools ?? [],
    skills: content.skills ?? [],
    withheld: content.withheld ?? [],
  };
  // A name published by several sites needs its site named in each call.
  const sitesOf = new Map();
  for (const tool of listing.tools) {
    sitesOf.set(tool.name, new Set([...(sitesOf.get(tool.name) ?? []), tool.site]));
  }
  const entries = [
    ...listing.tools.map((tool) => ({ ...tool, kind: 'tool', needsSite: sitesOf.get(tool.name).size > 1 })),
    ...listing.skills.map((skill) => ({ ...skill, kind: 'skill' })),
  ];
  const sites = [...new Set(entries.map((e) => e.site))];
  $('tools').replaceChildren(...sites.map((site) => el('section', { class: 'group' }, [
    el('h3', { text: host(site) }),
    el('ul', { class: 'tools' }, entries.filter((e) => e.site === site).map((entry) => {
      const button = el('button', { type: 'button', 'aria-pressed': 'false' }, [
        el('span', { class: 'name' }, [pageText(shown(entry.name, 'name'))]),
        ...(entry.title ? [el('span', { class: 'title' }, [pageText(shown(entry.title, 'title'))])] : []),
        classBadge(entry.kind === 'skill' ? 'Skill' : entry.class),
      ]);
      button.addEventListener('click', () => showTool(entry, button));
      return el('li', {}, [button]);
    })),
  ])));
  $('withheld').replaceChildren(...listing.withheld.map((why) => el('li', { text: `Withheld: ${shown(why, 'result')}` })));
  $('withheld').hidden = listing.withheld.length === 0;
  const notes = [];
  if (chat.readOnly) notes.push('This chat is Read only: the listing leaves out every tool that is not Read only.');
  if (entries.length === 0) notes.push('This tab lists no tools for this chat.');
  $('tools-note').textContent = notes.join(' ');
  $('tools-note').hidden = notes.length === 0;
  $('tools-section').hidden = false;
  $('tool').hidden = true;
  say(`Listed ${listing.tools.length} tool${listing.tools.length === 1 ? '' : 's'} and ${listing.skills.length} skill${listing.skills.length === 1 ? '' : 's'}.`);
}

// The form of the selected tool: a function that reads its arguments.
let readArguments = null;
let selected = null;

function showTool(entry, button) {
  pressOnly($('tools').querySelectorAll('button'), button);
  selected = entry;
  $('tool').hidden = false;
  const name = pageText(shown(entry.name, 'name'));
  $('tool-name').replaceChildren(...(entry.title ? [pageText(shown(entry.title, 'title')), ' (', name, ')'] : [name]));
  const extras = (entry.badges ?? []).map(String);
  $('tool-badges').replaceChildren(classBadge(entry.kind === 'skill' ? 'Skill' : entry.class), ...extras.map(badge));
  $('tool-site').textContent = `Published by ${host(entry.site)}`;
  $('tool-description').replaceChildren(pageText(shown(entry.description, 'description'), 'span'));
  const skill = entry.kind === 'skill';
  $('tool-skill').hidden = !skill;
  $('tool-form').hidden = skill;
  if (skill) {
    $('tool-instructions').replaceChildren(pageText(shown(entry.instructions, 'schema'), 'span'));
    $('fields').replaceChildren();
    readArguments = null;
    return;
  }
  formError('form-error', '');
  const form = buildForm(entry.inputSchema);
  $('fields').replaceChildren(...form.nodes);
  readArguments = form.read;
  $('call').replaceChildren('Call ', pageText(shown(entry.name, 'name')));
}

// ---- Forms from input schemas -------------------------------------------------

let fieldCount = 0;

// The JSON Schema type of a property: its `type`, the first non-null of a type list.
function typeOf(schema) {
  if (!schema || typeof schema !== 'object') return null;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(schema.enum)) return 'enum';
  return null;
}

function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} is not valid JSON: ${error.message}`);
  }
}

// Arguments typed as JSON text: an object ({} when nothing is typed), or an
// error that says why not.
function argumentsObject(text) {
  const trimmed = text.trim();
  const value = trimmed === '' ? {} : parseJson(trimmed, 'Arguments');
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('Arguments must be a JSON object.');
  return value;
}

// Builds `{nodes, read}`: the fields, and a function returning the arguments
// object (or throwing a sentence that says which field is wrong).
function buildForm(schema) {
  const properties = schema && typeof schema === 'object' && schema.properties;
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) {
    // No schema, or not an object of named properties: the whole arguments as JSON.
    const id = `field-${++fieldCount}`;
    const area = el('textarea', { id, rows: '4', spellcheck: 'false' });
    area.value = '{}';
    const note = schema ? 'Its inputSchema names no properties.' : 'This tool declares no inputSchema.';
    return {
      nodes: [
        el('label', { for: id, text: 'All arguments, as a JSON object' }),
        el('p', { class: 'hint', text: note }),
        area,
      ],
      read: () => argumentsObject(area.value),
    };
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = Object.entries(properties).map(([name, prop]) => field(name, prop ?? {}, required.has(name)));
  if (fields.length === 0) {
    return { nodes: [el('p', { class: 'hint', text: 'This tool takes no arguments.' })], read: () => ({}) };
  }
  return {
    nodes: fields.map((f) => f.node),
    read: () => {
      const args = {};
      for (const f of fields) {
        const value = f.read();
        if (value !== undefined) args[f.name] = value;
      }
      return args;
    },
  };
}

// One property's field: {name, node, read() → value or undefined when left out}.
function field(name, prop, isRequired) {
  const id = `field-${++fieldCount}`;
  const descriptionId = `${id}-description`;
  const type = typeOf(prop);
  const label = el('label', { for: id }, [
    el('span', { class: 'field-name' }, [pageText(shown(name, 'name'))]),
    ...(isRequired ? [' ', el('span', { class: 'required', text: '(required)' })] : []),
  ]);
  const description = typeof prop.description === 'string' && prop.description
    ? el('p', { id: descriptionId, class: 'hint' }, [pageText(shown(prop.description, 'description'), 'span')])
    : null;
  const common = {
    id,
    name,
    'aria-required': isRequired ? 'true' : null,
    'aria-describedby': description ? descriptionId : null,
  };
  const hasDefault = Object.hasOwn(prop, 'default');
  let input;
  let read;
  if (Array.isArray(prop.enum) && prop.enum.length > 0) {
    input = el('select', common, [
      el('option', { value: '', text: isRequired ? '(choose one)' : '(not set)' }),
      ...prop.enum.map((value, index) => el('option', {
        value: String(index),
        dir: 'auto',
        text: shown(typeof value === 'string' ? value : JSON.stringify(value), 'value'),
      })),
    ]);
    if (hasDefault) {
      const at = prop.enum.findIndex((v) => JSON.stringify(v) === JSON.stringify(prop.default));
      if (at >= 0) input.value = String(at);
    }
    read = () => (input.value === '' ? undefined : prop.enum[Number(input.value)]);
  } else if (type === 'string') {
    input = el('input', { ...common, type: 'text', autocomplete: 'off' });
    if (typeof prop.default === 'string') input.value = prop.default;
    read = () => (input.value === '' ? undefined : input.value);
  } else if (type === 'number' || type === 'integer') {
    input = el('input', { ...common, type: 'number', step: type === 'integer' ? '1' : 'any' });
    if (typeof prop.default === 'number') input.value = String(prop.default);
    read = () => {
      if (input.validity.badInput) throw new Error(`${name} is not a number.`);
      return input.value === '' ? undefined : Number(input.value);
    };
  } else if (type === 'boolean') {
    input = el('input', { ...common, type: 'checkbox' });
    input.checked = prop.default === true;
    let changed = false;
    input.addEventListener('change', () => { changed = true; });
    // Required: always sent. Optional: sent when checked, or once changed.
    read = () => (isRequired || changed || input.checked || hasDefault ? input.checked : undefined);
  } else {
    // Objects, arrays, and properties without a type: JSON.
    input = el('textarea', { ...common, rows: '3', spellcheck: 'false' });
    if (hasDefault) input.value = JSON.stringify(prop.default, null, 2);
    read = () => {
      const text = input.value.trim();
      return text === '' ? undefined : parseJson(text, name);
    };
  }
  const kind = type === 'boolean' ? 'field check' : 'field';
  const parts = type === 'boolean' ? [input, ' ', label] : [label, input];
  if (type && type !== 'enum' && !['string', 'boolean'].includes(type)) {
    parts.push(el('span', { class: 'type', text: type === 'integer' || type === 'number' ? type : `${type} as JSON` }));
  } else if (!type && !Array.isArray(prop.enum)) {
    parts.push(el('span', { class: 'type', text: 'JSON' }));
  }
  return { name, node: el('div', { class: kind }, [...parts, ...(description ? [description] : [])]), read };
}

// ---- Calls and results ----------------------------------------------------------

function resultText(result) {
  const content = Array.isArray(result?.content) ? result.content : [];
  return content
    .map((item) => (item?.type === 'text' && typeof item.text === 'string' ? item.text : JSON.stringify(item, null, 2)))
    .join('\n');
}

function decisionLine(meta) {
  if (!meta || typeof meta !== 'object') return null;
  if (meta.decision === 'run') return `Ran: ${meta.why}`;
  // The core's refusals start "refused: …"; the line says it once.
  if (meta.decision === 'refuse') return `Refused: ${String(meta.why ?? '').replace(/^refused:\s*/i, '')}`;
  return `${meta.decision}: ${meta.why ?? ''}`;
}

// A result card in the log, newest first; returns the parts to fill in.
function addResult(title, asked, id) {
  $('results-empty').hidden = true;
  const state = el('p', { class: 'state', text: 'Sending…' });
  const item = el('li', { class: 'result pending', 'data-chat': String(asked.number), 'data-request': String(id) }, [
    el('h3', {}, [
      el('span', { class: 'name' }, [pageText(title)]),
      el('span', { class: 'meta', text: `chat ${asked.number}, request ${id}` }),
    ]),
    state,
  ]);
  $('results').prepend(item);
  item.scrollIntoView({ block: 'nearest' });
  return { item, state };
}

function finish({ item, state }, title, reply) {
  item.classList.remove('pending');
  state.remove();
  if (reply.error) {
    item.classList.add('error');
    // The core's words, which may quote a page's (a tool's name): escaped.
    const message = shown(reply.error.message ?? JSON.stringify(reply.error), 'result');
    item.append(el('p', { class: 'error-line', text: `Error: ${message}` }));
    say(`${isolate(title)}: error: ${message}`);
    return;
  }
  const result = reply.result ?? {};
  const line = shown(decisionLine(result._meta?.toolgate) ?? '', 'result') || null;
  const refused = result._meta?.toolgate?.decision === 'refuse';
  if (result.isError) item.classList.add('error');
  if (refused) item.classList.add('refused');
  if (line) item.append(el('p', { class: 'decision', text: line }));
  if (result.isError && !refused) item.append(el('p', { class: 'error-line', text: 'The tool reported an error:' }));
  if (!refused) item.append(el('pre', { class: 'output' }, [pageText(shown(prettyJson(resultText(result)), 'result'), 'span')]));
  say(`${isolate(title)}: ${line ?? (result.isError ? 'the tool reported an error' : 'done')}`);
}

function failed({ item, state }, title, error) {
  item.classList.remove('pending');
  item.classList.add('error');
  state.remove();
  const message = shown(error.message, 'result');
  item.append(el('p', { class: 'error-line', text: `Error: ${message}` }));
  say(`${isolate(title)}: error: ${message}`);
}

// Calls a page's tool through browser_call_webmcp_tool.
async function callTool({ tabId, name, site, args }) {
  const params = { tabId, name, arguments: args };
  if (site) params.site = site;
  const asked = chat;
  const id = ++asked.nextId;
  const title = shown(name, 'name');
  const parts = addResult(title, asked, id);
  const waiting = () => {
    parts.state.textContent = WAITING;
    say(`${isolated(name, 'name')}: ${WAITING}`);
  };
  try {
    const { reply } = await whilePending(request('tools/call', { name: 'browser_call_webmcp_tool', arguments: params }, asked, id), waiting);
    finish(parts, title, reply);
    if (asked === chat) showSources(reply);
  } catch (error) {
    failed(parts, title, error);
  }
}

// Shows (or clears) a form's own error, and announces it.
function formError(id, text) {
  $(id).textContent = text;
  $(id).hidden = !text;
  if (text) say(text);
}

function callSelected(event) {
  event.preventDefault();
  if (!selected || selected.kind !== 'tool' || !listing || !readArguments) return;
  let args;
  try {
    args = readArguments();
  } catch (error) {
    formError('form-error', `${error.message} Nothing was sent.`);
    return;
  }
  formError('form-error', '');
  callTool({ tabId: listing.tabId, name: selected.name, site: selected.needsSite ? selected.site : null, args });
}

function callByName(event) {
  event.preventDefault();
  const name = $('by-name-name').value.trim();
  const site = $('by-name-site').value.trim();
  const tabId = pickedTab();
  if (!name) {
    formError('by-name-error', 'Give the name of the tool to call. Nothing was sent.');
    return;
  }
  if (tabId === null) {
    formError('by-name-error', 'Pick a tab first. Nothing was sent.');
    return;
  }
  let args;
  try {
    args = argumentsObject($('by-name-arguments').value);
  } catch (error) {
    formError('by-name-error', `${error.message} Nothing was sent.`);
    return;
  }
  formError('by-name-error', '');
  callTool({ tabId, name, site: site || null, args });
}

// ---- Start --------------------------------------------------------------------

$('new-chat').addEventListener('click', () => newChat());
$('refresh').addEventListener('click', () => refreshTabs());
$('list').addEventListener('click', () => listTools());
$('tool-form').addEventListener('submit', callSelected);
$('by-name-form').addEventListener('submit', callByName);

$('list').disabled = true;
newChat();
refreshTabs();
