// The tools palette: every tool and skill of the current tab, grouped by site.
// Everything a page declared is rendered with textContent, never as HTML,
// cut and escaped by the core, in elements of its own; a tool's name is shown
// wherever its title is, since the title is the page's to choose and may copy
// another tool's (docs/cards.md, "How page text is shown").

import { $, badge, classBadge, el, pageText, pressOnly, siteLabel } from './dom.js';
import { askWorker } from '../shared/chromium-errors.js';

// A tool's name, then its title if it has one, each apart.
const nameAndTitle = (entry) => [
  el('code', { class: 'tool-name', text: entry.name }),
  ...(entry.title ? [' ', pageText(entry.title, 'bdi')] : []),
];

function showDetails(entry, button) {
  pressOnly(document.querySelectorAll('ul.tools button'), button);
  $('details').hidden = false;
  $('detail-name').replaceChildren(...nameAndTitle(entry));
  $('detail-badges').replaceChildren(classBadge(entry.badge), ...entry.badges.map(badge));
  $('detail-description').replaceChildren(pageText(entry.description, 'span'));
  $('detail-rule').textContent = entry.rule ?? 'A skill: instructions for agents, never called, never confirmed.';
  // The site's rule for it (docs/rules.md), where the site has rules.
  $('detail-agents').hidden = !entry.agents;
  $('detail-agents').textContent = entry.agents ?? '';
  // Seen doing more than its hints said (docs/classes.md, "Hints held to
  // their word"): asked about at every call until the person clears it.
  $('detail-broke').hidden = !entry.broke;
  $('detail-broke-text').textContent = entry.broke ? `Toolgate asks about every call of it: it ${entry.broke}.` : '';
  $('detail-clear').onclick = () => clearFlag(entry);
  $('detail-lints').replaceChildren(
    ...(entry.lints.length ? entry.lints.map((l) => l.text) : ['Nothing to note.']).map((text) => el('li', { text })),
  );
  // The schema as the core shows it (indented, its strings as written).
  const schema = entry.kind === 'skill' ? entry.instructions : entry.schema;
  $('detail-schema-heading').textContent = entry.kind === 'skill' ? 'Instructions' : 'Input schema';
  $('detail-schema').textContent = schema ?? '(none)';
  $('detail-schema').dir = schema ? 'auto' : '';
}

function render(palette) {
  const status = {
    needs_reload: 'This tab was loaded before Toolgate was installed or updated: reload this tab to see its tools.',
    unsupported: 'Toolgate cannot see tools on this kind of page.',
    loading: 'This page is still loading, and publishes no tools yet.',
    shimmed: palette.groups.length ? '' : 'This page publishes no tools.',
  }[palette.page];
  $('status').textContent = status;
  $('groups').replaceChildren(
    ...palette.groups.map((group) => el('section', { class: 'group' }, [
      el('h2', { text: siteLabel(group.site) }),
      // Tools another origin's script registered, apart (docs/classes.md,
      // "Where a tool comes from"): the core's words, its page text escaped.
      ...(group.registered_by ? [el('p', { class: 'registered-by', text: group.registered_by })] : []),
      el('ul', { class: 'tools' }, group.entries.map((entry) => {
        const button = el('button', { type: 'button', 'aria-pressed': 'false' }, [
          el('span', { class: 'name' }, nameAndTitle(entry)),
          classBadge(entry.badge),
          ...entry.badges.filter((b) => b === 'off-site').map(badge),
          ...(entry.broke ? [el('span', { class: 'badge broke', text: 'broke its hints' })] : []),
        ]);
        button.addEventListener('click', () => showDetails(entry, button));
        return el('li', {}, [button]);
      })),
    ])),
  );
}

// The person clears a tool's flag: its hints are trusted again.
async function clearFlag(entry) {
  const answer = await askWorker({ type: 'clear_flag', site: entry.site, tool: entry.name });
  if (answer?.error) throw new Error(answer.error);
  await main();
  $('details').hidden = true;
}

async function main() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  // Tests open this page in a tab of its own and name the tab to show.
  const tabId = Number(new URLSearchParams(location.search).get('tab')) || tab?.id;
  const palette = await askWorker({ type: 'palette', tab_id: tabId });
  if (palette?.error) throw new Error(palette.error);
  render(palette);
}

main().catch((error) => {
  $('status').textContent = `Toolgate could not read this tab's tools: ${error.message}`;
});
