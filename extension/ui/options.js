// Toolgate's settings page: what agents may do on each site (site-rules.js),
// which desktop agents are connected through toolgate-mcp, and which other
// extensions may connect as agents. Names and
// ids are shown as text, never as HTML.
import { $, el, localTime } from './dom.js';
import { renderRules } from './site-rules.js';
import { renderAudit } from './audit.js';
import { renderAuditSending } from './audit-otlp.js';
import { renderBroken } from './broken.js';
import { askWorker } from '../shared/chromium-errors.js';

const send = async (message) => {
  const answer = await askWorker(message);
  if (answer && typeof answer === 'object' && 'error' in answer && Object.keys(answer).length === 1) {
    throw new Error(answer.error);
  }
  return answer;
};
const when = localTime;

const DESKTOP_STATES = {
  connected: 'toolgate-mcp is connected.',
  not_installed: 'toolgate-mcp is not installed for this browser: run `toolgate-mcp install`, then Connect again.',
  disconnected: 'toolgate-mcp stopped.',
  idle: 'Not connected.',
};

// What the page shows now: it is built again only when that changes, so the
// focus, and a click under way, stay where they are between polls.
let shown = null;

async function render(force = false) {
  const { desktop, extensions } = await send({ type: 'agents' });
  const now = JSON.stringify({ desktop, extensions });
  if (now === shown && !force) return;
  shown = now;
  const said = DESKTOP_STATES[desktop.state] ?? desktop.state;
  $('desktop-state').textContent = desktop.error && desktop.state !== 'connected' ? `${said} (${desktop.error})` : said;
  $('desktop-sessions').replaceChildren(...(desktop.sessions.length
    ? desktop.sessions.map((s) => el('li', { text: `${s.client}, connected since ${when(s.since)}` }))
    : [el('li', { text: desktop.state === 'connected' ? 'No desktop agent is connected.' : 'None.' })]));

  const connected = new Map(extensions.connected.map((c) => [c.id, c]));
  $('allowed').replaceChildren(...(extensions.allowed.length
    ? extensions.allowed.map(({ id, label, by_policy: byPolicy }) => {
      const now = connected.has(id) ? ' (connected)' : '';
      if (byPolicy) {
        return el('li', {}, [el('span', { text: label ? `${label} ` : '' }), el('span', { class: 'id', text: id }),
          el('span', { text: `${now} (allowed by your administrator)` })]);
      }
      const forget = el('button', { type: 'button', text: 'Remove', 'aria-label': `Remove ${label || id}` });
      forget.addEventListener('click', async () => {
        await send({ type: 'forget_extension', extension_id: id });
        await render();
      });
      return el('li', {}, [el('span', { text: label ? `${label} ` : '' }), el('span', { class: 'id', text: id }), el('span', { text: `${now} ` }), forget]);
    })
    : [el('li', { text: 'None.' })]));
  $('refused').replaceChildren(...(extensions.refused.length
    ? extensions.refused.map(({ id, at, times }) => el('li', {}, [
      el('span', { class: 'id', text: id }),
      el('span', { text: ` refused ${times === 1 ? 'once' : `${times} times`}, last ${when(at)}` }),
    ]))
    : [el('li', { text: 'None.' })]));
}

$('allow-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('allow-error').textContent = '';
  try {
    await send({ type: 'allow_extension', extension_id: $('allow-id').value.trim(), label: $('allow-label').value.trim() });
    $('allow-id').value = '';
    $('allow-label').value = '';
  } catch (error) {
    $('allow-error').textContent = String(error?.message ?? error);
  }
  await render();
});
$('desktop-connect').addEventListener('click', async () => {
  await send({ type: 'connect_desktop' });
  await new Promise((done) => setTimeout(done, 300));
  await render();
});

// The audit first: its read is the longest (benches/README.md, figure 15c).
renderAudit();
render();
renderRules();
renderAuditSending();
renderBroken();
// Agents come and go: shown as they are now.
setInterval(render, 2000);
