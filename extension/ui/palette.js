// The tools palette: every tool and skill of the current tab, grouped by site.
// Everything a page declared is rendered with textContent, never as HTML.

import { $, badge, el, pressOnly, prettyJson, siteLabel } from './dom.js';

function showDetails(entry, button) {
  pressOnly(document.querySelectorAll('ul.tools button'), button);
  $('details').hidden = false;
  $('detail-name').textContent = entry.title ? `${entry.title} (${entry.name})` : entry.name;
  $('detail-badges').replaceChildren(badge(entry.badge), ...entry.badges.map(badge));
  $('detail-description').textContent = entry.description;
  $('detail-rule').textContent = entry.rule ?? 'A skill: instructions for agents, never called, never confirmed.';
  $('detail-lints').replaceChildren(
    ...(entry.lints.length ? entry.lints : ['Nothing to note.']).map((text) => el('li', { text })),
  );
  const schema = entry.kind === 'skill' ? entry.instructions : entry.input_schema;
  $('detail-schema-heading').textContent = entry.kind === 'skill' ? 'Instructions' : 'Input schema';
  $('detail-schema').textContent = schema ? prettyJson(schema) : '(none)';
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
      el('ul', { class: 'tools' }, group.entries.map((entry) => {
        const button = el('button', { type: 'button', 'aria-pressed': 'false' }, [
          el('span', { class: 'name', text: entry.title || entry.name }),
          badge(entry.badge),
          ...entry.badges.filter((b) => b === 'off-site').map(badge),
        ]);
        button.addEventListener('click', () => showDetails(entry, button));
        return el('li', {}, [button]);
      })),
    ])),
  );
}

async function main() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  // Tests open this page in a tab of its own and name the tab to show.
  const tabId = Number(new URLSearchParams(location.search).get('tab')) || tab?.id;
  const palette = await chrome.runtime.sendMessage({ type: 'palette', tab_id: tabId });
  if (palette?.error) throw new Error(palette.error);
  render(palette);
}

main().catch((error) => {
  $('status').textContent = `Toolgate could not read this tab's tools: ${error.message}`;
});
