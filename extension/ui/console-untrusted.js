// The agent console's list of what its chat has read that may carry someone
// else's instructions (docs/cards.md, "After untrusted content"): the
// sources each call's reply names (`_meta.toolgate.chat_read_untrusted`,
// oldest first), shown newest first, so that the person playing the agent
// sees why cards ask. Each source's tool and excerpt are page text, shown as
// the console shows all page text (`pageText`); why it counts is the core's
// words (`untrustedWhy`), never written again here.

import { pageText as shownAs, untrustedWhy } from '../../pkg/toolgate.js';
import { $, el, pageText, siteLabel } from './dom.js';

// Why a source counts, in the cards' words; what the reply said if the core
// cannot read it.
function why(source) {
  try {
    return untrustedWhy(JSON.stringify(source));
  } catch {
    return String(source?.because ?? '');
  }
}

function item(source) {
  // A record Toolgate had to forget names no tool and quotes nothing
  // (docs/agents.md, "Chats"): only why it counts is shown.
  if (source.because === 'lost') return el('li', { class: 'source' }, [el('p', { class: 'why', text: `Why: ${why(source)}.` })]);
  const at = Number.isFinite(source.at_ms) ? new Date(source.at_ms).toLocaleTimeString() : '';
  // Read in a listing rather than a result: which (docs/cards.md).
  const read = { listing: 'the listing of ', tab_title: 'the title of the tab ' }[source.read] ?? '';
  return el('li', { class: 'source' }, [
    el('p', { class: 'source-head' }, [
      read,
      el('span', { class: 'name' }, [pageText(shownAs(String(source.tool ?? ''), 'name'))]),
      ` on ${siteLabel(source.site)}`,
      ...(at ? [' ', el('span', { class: 'meta', text: `at ${at}` })] : []),
    ]),
    el('p', { class: 'why', text: `Why: ${why(source)}.` }),
    el('p', { class: 'excerpt' }, ['What it read: “', pageText(shownAs(String(source.excerpt ?? ''), 'value'), 'span'), '”']),
  ]);
}

// Shows the sources a reply names (a reply that names none leaves the list
// as it is: only a new chat starts clean).
export function showSources(reply) {
  const sources = reply?.result?._meta?.toolgate?.chat_read_untrusted;
  if (!Array.isArray(sources) || sources.length === 0) return;
  const valid = sources.filter((source) => source && typeof source === 'object');
  $('untrusted-sources').replaceChildren(...valid.slice().reverse().map(item));
  $('untrusted-section').hidden = valid.length === 0;
}

// A new chat has read nothing.
export function clearSources() {
  $('untrusted-sources').replaceChildren();
  $('untrusted-section').hidden = true;
}
