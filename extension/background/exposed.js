// Pages calling each other's tools where the browser has no WebMCP to carry
// the call (Toolgate's polyfill: Chromium 148, or 156 with its WebMCP off).
// The browser's own WebMCP lists, announces and runs a tool another
// origin's frame exposes to a page (`exposedTo`); without it, this worker
// does, through its view of the tab's frames (`tabTree`), with the core
// deciding (src/decisions/exposed/tree.rs): which frames the permissions
// policy's "tools" allows, what each frame may list, which frames hear a
// change, and the pass a call gets and uses up in one turn, as the native
// path's (docs/agents.md, "Pages calling each other's tools";
// ARCHITECTURE.md, "Where the native API and the draft differ").
import { exposedListeners } from '../../pkg/toolgate.js';
import { record } from './audit.js';
import { fromJson, inTab, toJson } from './core.js';
import { keepError } from './errors.js';
import { settings, settingsNow } from './settings.js';
import { withTimeout } from '../shared/deadlines.js';
import { saysDocumentGone } from '../shared/chromium-errors.js';

// How long a frame's relay has to say where it is; one that does not answer
// (still loading, gone, or no Toolgate in it) is allowed nothing.
const FACTS_MS = 2000;
// The most frames of a tab asked (src/decisions/exposed/tree.rs, TREE_FRAMES).
const TREE_FRAMES = 1000;

// The tab's frames as the browser lists them, each with what its relay says
// of itself and of its own frames' containers (relay/frame-facts.js): the
// core's `Tree`.
async function tabTree(tabId) {
  let frames = [];
  try {
    frames = (await chrome.webNavigation.getAllFrames({ tabId })) ?? [];
  } catch {
    return [];
  }
  frames = frames.slice(0, TREE_FRAMES);
  const facts = await Promise.all(frames.map((frame) => (typeof frame.documentId !== 'string' ? null : withTimeout(
    chrome.tabs.sendMessage(tabId, { type: 'frame_facts' }, { frameId: frame.frameId, documentId: frame.documentId }),
    FACTS_MS,
    'no answer',
  ).catch(() => null))));
  return frames.map((frame, i) => {
    const said = facts[i];
    const path = Array.isArray(said?.path) && said.path.every((n) => Number.isSafeInteger(n) && n >= 0 && n < 2 ** 32)
      ? said.path : null;
    return {
      frame_id: frame.frameId,
      parent_frame_id: frame.parentFrameId,
      document_id: String(frame.documentId ?? ''),
      origin: typeof said?.origin === 'string' ? said.origin : null,
      path,
      children: Array.isArray(said?.children) ? said.children.slice(0, TREE_FRAMES).map(allowlist) : [],
    };
  });
}

// One container's "tools" allowlist as its parent's relay read it.
function allowlist(said) {
  if (said === null || typeof said !== 'object') return null;
  const origins = Array.isArray(said.origins) ? said.origins.filter((o) => typeof o === 'string').slice(0, 64) : [];
  return { all: said.all === true, origins };
}

const senderOf = (sender) => ({
  tab_id: sender.tab.id, frame_id: sender.frameId, document_id: sender.documentId, origin: sender.origin,
});

// A page's getTools({fromOrigins}): the tools frames of those origins in
// its tab expose to it, as the core lists them.
export async function exposedTools(read, sender) {
  const tree = await tabTree(sender.tab.id);
  const tools = await inTab(sender.tab.id, (core) => ({
    results: fromJson(core.exposedTools(toJson(senderOf(sender), 'sender'), toJson(read.from_origins, 'origins'), toJson(tree, 'tree'))),
    effects: [],
  }));
  return { tools };
}

// A page's executeTool of a tool a frame of another origin exposed to it:
// the core grants and takes its pass for the frame the page named, and the
// tool runs there as the page's call, with no card (its `execute` with
// `(input, {signal})`, then `toolactivated`, as 156 runs it); the audit
// says who called. Answers `{ ok, json }` (the result's JSON text) or
// `{ ok: false, error, thrown }`.
export async function exposedRun(read, sender) {
  const tabId = sender.tab.id;
  const tree = await tabTree(tabId);
  const weighed = await inTab(tabId, (core) => ({
    results: fromJson(core.polyfillCall(toJson(senderOf(sender), 'sender'), toJson(read.run, 'run'), toJson(tree, 'tree'), Date.now())),
    effects: [],
  }));
  if (weighed.type !== 'run') return { ok: false, error: weighed.why };
  const { call, page_call: pageCall } = weighed;
  record({
    what: 'decision',
    by: `the page at ${pageCall.caller}`,
    tab: tabId,
    site: pageCall.site,
    tool: pageCall.tool,
    decision: 'run',
    why: `called by the page at ${pageCall.caller}, which the site exposed the tool to`,
  });
  const { callTimeoutMs } = settingsNow() ?? await settings();
  try {
    const answer = await withTimeout(
      chrome.tabs.sendMessage(
        tabId,
        {
          type: 'call', source: call.source, name: call.name, arguments_json: JSON.stringify(call.arguments),
          timeout_ms: callTimeoutMs, watch: false,
        },
        { frameId: call.frame_id, documentId: call.document_id },
      ),
      callTimeoutMs,
      `${call.name} did not answer in time`,
    );
    if (answer?.ok === true && typeof answer.json === 'string') return { ok: true, json: answer.json };
    return { ok: false, error: String(answer?.error ?? 'the page gave no answer'), thrown: true };
  } catch (error) {
    const text = String(error?.message ?? error);
    return { ok: false, error: saysDocumentGone(text) ? `the frame of ${call.name} went away` : text };
  }
}

// A report changed what frame `sender` exposes to `origins`: their frames
// in its tab that the policy allows hear `toolchange` (the relay hands it to
// the page's document.modelContext), as 156 fires it in them. Not awaited
// by the report's answer.
export function exposureChanged(sender, origins) {
  const tabId = sender.tab.id;
  tabTree(tabId).then((tree) => {
    const to = fromJson(exposedListeners(toJson(senderOf(sender), 'sender'), toJson(origins, 'origins'), toJson(tree, 'tree')));
    for (const { frame_id: frameId, document_id: documentId } of to) {
      chrome.tabs.sendMessage(tabId, { type: 'exposed_changed' }, { frameId, documentId }).catch(() => {});
    }
  }).catch((error) => keepError(`telling tab ${tabId}'s frames of exposed tools`, error));
}
