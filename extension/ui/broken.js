// The settings page's "Tools that broke their hints" (docs/classes.md,
// "Hints held to their word"): every tool flagged, by site, and the person's
// "Clear", after which its hints are trusted again. The flag's words come
// from the core as a line: what the page chose in them escaped and apart.
import { $, el, lineNodes, pageText, siteLabel } from './dom.js';
import { askWorker } from '../shared/chromium-errors.js';

async function render() {
  const flags = await askWorker({ type: 'flags' });
  if (!Array.isArray(flags)) throw new Error(flags?.error ?? 'Toolgate did not list the flags');
  $('broken').replaceChildren(...(flags.length ? flags.map((flag) => {
    const who = flag.tool_shown ?? 'every tool on the site';
    const clear = el('button', { type: 'button', text: 'Clear', 'aria-label': `Clear ${who} on ${siteLabel(flag.site)}` });
    clear.addEventListener('click', async () => {
      await askWorker({ type: 'clear_flag', site: flag.site, tool: flag.tool });
      await render();
    });
    return el('li', {}, [
      el('span', { text: `${siteLabel(flag.site)}: ` }),
      flag.tool ? pageText(flag.tool_shown, 'code') : el('span', { text: who }),
      el('span', { text: ' ' }),
      el('span', {}, lineNodes(flag.line)),
      el('span', { text: ' ' }),
      clear,
    ]);
  }) : [el('li', { text: 'None.' })]));
}

export function renderBroken() {
  render();
  // A flag set or cleared elsewhere (a call, the palette) shows at once.
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && 'hints_broken' in changes) render();
  });
}
