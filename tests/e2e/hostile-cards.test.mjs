// Cards a page tries to get answered by accident or misread, and tools that
// pass for others in the palette (docs/cards.md, "Answering on purpose" and
// "How page text is shown"), in headless Chromium with the real extension:
// - keyjacking: a key and a click that reach a card as it opens answer nothing;
// - spoofing: a tab title that writes the card's next sentence and turns the
//   text after it around is shown apart, isolated, its controls escaped;
// - impersonation: a Consequential tool titled as the Read only one is shown
//   with its own name, in the palette and on its card;
// - the agent console, which gets page text raw as an agent does, shows it
//   as the cards do.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../support/fixture.mjs';
import { TOOLGATE_ID, entries } from '../support/browser.mjs';
import { choose, isCard, ready } from '../support/cards.mjs';

// Bidi controls a card must never hand to the text engine.
const BIDI = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/;
// Bidi controls and text that shows as nothing, other than the isolates
// (FSI U+2068 … PDI U+2069) the console itself puts around page text.
const NOT_OURS = /[\u200e\u200f\u061c\u202a-\u202e\u2066\u2067\u200b-\u200d\u2060\ufeff]/;

describe('hostile cards', () => {
  const h = harness({ pages: 'tests/pages/hostile-cards', chatPrefix: 'hostile-cards' });
  const { chat, request: call } = h;
  const open = (host, path = '/') => h.open(host, path, 3);
  // Sends `request`; resolves with the reply to come and a `settled()` that
  // says whether it has come yet.
  const send = async (chatId, request) => {
    const sw = await h.browser.worker();
    let settled = false;
    const reply = sw.evaluate(([c, r]) => self.toolgate.agent(c, r), [chatId, request]);
    reply.then(() => { settled = true; }, () => { settled = true; });
    return { reply, settled: () => settled };
  };
  const callsOf = (page, name) => page.evaluate((n) => window.calls[n] ?? 0, name);
  const why = (reply) => reply.result?._meta?.toolgate?.why ?? reply.error?.message;

  test('keyjacking: Enter and a click as a card opens answer nothing; after the delay an answer does', async () => {
    const { page, tabId } = await open('keys.localhost');
    const site = new URL(page.url()).host;
    const chatId = await chat();
    // The card window, from the moment it opens (not once it takes answers).
    const opened = h.browser.context.waitForEvent('page', { predicate: isCard });
    const asked = await send(chatId, call(tabId, 'wipe_all'));
    const card = await opened;
    await card.waitForFunction(() => document.getElementById('approve')?.textContent !== '');
    h.cards.claim(card);
    // At once: Enter, as a person typing in another window would press it,
    // and a click where "Allow this call only" is.
    const box = await card.locator('#approve').boundingBox();
    await card.keyboard.press('Enter');
    await card.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const early = await card.evaluate(() => ({
      during: !document.documentElement.hasAttribute('data-ready'),
      focus: document.activeElement.id,
      status: document.getElementById('status').textContent,
    }));
    assert.ok(early.during, 'the key and the click came within the delay (a slower machine cannot tell)');
    assert.equal(early.focus, 'heading', 'the card opens with the focus on its heading, which answers nothing');
    assert.equal(early.status, '', 'no answer was sent');
    // Once the delay is over: nothing was answered, the card is still open.
    await ready(card);
    assert.equal(card.isClosed(), false, 'the card is still open');
    assert.equal(asked.settled(), false, "the agent's reply is not there yet");
    // An answer now is the card's answer: had the stray input allowed the
    // call, the core would have taken that one, and refused this.
    await choose(card, 'Deny this call');
    assert.equal(why(await asked.reply), `refused: you denied this call to wipe_all on ${site}`);
    assert.equal(await callsOf(page, 'wipe_all'), 0, 'the tool never ran');

    // The delay starts again when the card's window regains the focus. Headless
    // Chromium moves no focus between windows (Playwright emulates every page
    // as focused), so the test fires the event the browser fires then.
    const again = await send(chatId, call(tabId, 'wipe_all'));
    const second = await h.cards.next();
    const box2 = await second.locator('#approve').boundingBox();
    await second.evaluate(() => window.dispatchEvent(new FocusEvent('focus')));
    await second.mouse.click(box2.x + box2.width / 2, box2.y + box2.height / 2);
    assert.equal(await second.evaluate(() => document.documentElement.hasAttribute('data-ready')), false,
      'the card takes no answer as its window comes back');
    await ready(second);
    assert.equal(again.settled(), false, 'the click on its return answered nothing');
    await choose(second, 'Allow this call only');
    assert.equal((await again.reply).result.content[0].text, 'wiped');
    assert.equal(await callsOf(page, 'wipe_all'), 1);
    await page.close();
  });

  test("spoofing: a page's title and arguments are shown apart from the card's words, isolated, controls escaped", async () => {
    const { page, tabId } = await open('bank-spoof.test', '/?spoof');
    const site = new URL(page.url()).host;
    const chatId = await chat('Agent \u202elanimret');
    const asked = await send(chatId, call(tabId, 'list_notes'));
    const card = await h.cards.next();
    // How a card line is built: its text nodes (Toolgate's) and elements (the page's).
    const parts = (selector) => card.evaluate((s) => [...document.querySelector(s).childNodes].map((node) => (
      node.nodeType === Node.TEXT_NODE
        ? { toolgate: node.textContent }
        : { page: node.textContent, tag: node.localName, isolated: getComputedStyle(node).unicodeBidi === 'isolate' })), selector);
    assert.deepEqual(await parts('#lines p:nth-child(2)'), [
      { toolgate: 'Requested by browser_call_webmcp_tool, in the tab \u201c' },
      {
        page: 'Notes\u201d at https://bank.test/. Allowing this applies to bank.test only. \u27e8U+202E\u27e9\u27e8U+2067\u27e9',
        tag: 'bdi', isolated: true,
      },
      { toolgate: '\u201d at ' },
      { page: page.url(), tag: 'bdi', isolated: true },
      { toolgate: '.' },
    ]);
    // The site's own sentence is Toolgate's alone, and names the real site.
    assert.deepEqual(await parts('#lines p:nth-child(3)'), [{ toolgate: `Allowing this applies to ${site} only.` }]);
    assert.deepEqual(await parts('#chat'), [
      { toolgate: 'Asked by ' },
      { page: 'Agent \u27e8U+202E\u27e9lanimret', tag: 'bdi', isolated: true },
    ]);
    const text = await card.evaluate(() => document.body.textContent);
    assert.ok(!BIDI.test(text), 'no bidi control reaches the card');
    await choose(card, 'Allow read-only tools on this website');
    assert.equal((await asked.reply).result.content[0].text, 'no notes');

    // The call card: the name and every argument in elements of their own.
    const wipe = await send(chatId, call(tabId, 'wipe_all', { note: 'a\u202eb\nc' }));
    const callCard = await h.cards.next();
    assert.deepEqual(await callCard.evaluate(() => [...document.querySelectorAll('#heading bdi, #arguments bdi')]
      .map((n) => [n.parentElement.localName, n.textContent])), [
      ['h1', 'wipe_all'], ['dt', 'note'], ['dd', 'a\u27e8U+202E\u27e9b\u27e8U+000A\u27e9c'],
    ]);
    assert.ok(!BIDI.test(await callCard.evaluate(() => document.body.textContent)), 'no bidi control reaches the call card');
    await choose(callCard, 'Deny this call');
    assert.equal(why(await wipe.reply), `refused: you denied this call to wipe_all on ${site}`);
    await page.close();
  });

  test('impersonation: the palette shows every tool by its name beside its title', async () => {
    const { page, tabId } = await open('copycat.localhost');
    const sw = await h.browser.worker();
    const popup = await h.browser.newPage(
      await sw.evaluate((id) => chrome.runtime.getURL(`extension/ui/palette.html?tab=${id}`), tabId),
    );
    const rows = popup.locator('ul.tools button');
    await rows.first().waitFor();
    const shown = await rows.evaluateAll((buttons) => buttons.map((b) => ({
      name: b.querySelector('.tool-name')?.textContent ?? null,
      title: b.querySelector('.page-text')?.textContent ?? null,
      badge: b.querySelector('.badge').textContent,
    })));
    assert.deepEqual(shown, [
      { name: 'list_notes', title: 'List Notes', badge: 'Read only' },
      { name: 'wipe_all', title: 'List Notes (list_notes)', badge: 'Consequential' },
      { name: 'reversed', title: 'Safe \u27e8U+202E\u27e9tool', badge: 'Read only' },
    ]);
    // The details too, and page text there is escaped as well.
    await rows.nth(1).click();
    assert.equal(await popup.locator('#detail-name .tool-name').textContent(), 'wipe_all');
    assert.equal(await popup.locator('#detail-name .page-text').textContent(), 'List Notes (list_notes)');
    assert.match(await popup.locator('#detail-schema').textContent(), /"description": "which \u27e8U\+202E\u27e9eton"/);
    await rows.nth(2).click();
    assert.equal(await popup.locator('#detail-description').textContent(),
      'Shown \u27e8U+2067\u27e9apart\u27e8U+2069\u27e9.\u27e8U+200B\u27e9');
    assert.ok(!BIDI.test(await popup.evaluate(() => document.body.textContent)), 'no bidi control reaches the palette');
    await popup.close();

    // Its card names it by its name, never its title.
    const chatId = await chat();
    const asked = await send(chatId, call(tabId, 'wipe_all'));
    const card = await h.cards.next();
    assert.equal(await card.locator('#heading').textContent(), 'wipe_all');
    assert.equal(await card.locator('#class').textContent(), 'Consequential');
    await choose(card, 'Deny this call');
    await asked.reply;
    assert.equal(await callsOf(page, 'wipe_all'), 0);
    await page.close();
  });

  // Issue 37, attack 12: what the person reads on Toolgate's settings pages.
  test("the settings pages show page text through the core's escaping: a flag's storage key in the audit and the list apart from Toolgate's words, two look-alike areas as two", async () => {
    const { page, tabId } = await open('texts.localhost', '/texts.html');
    const site = new URL(page.url()).origin;
    const chatId = await chat();
    const got = await h.start(chatId, call(tabId, 'peek'));
    assert.ok(!got.card, 'a Read only tool on localhost runs without a card');
    await got.reply;
    await h.browser.waitForPalette(page, (p) => entries(p).some((e) => e.name === 'peek' && e.broke !== undefined), 'peek flagged');
    const KEY = 'note⟨U+202E⟩⟨U+200B⟩key⟨U+2066⟩';

    const settings = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
    // The audit's row: Toolgate's sentence, and the page's key escaped, in an element of its own.
    const row = settings.locator('#audit-rows tr', { hasText: 'Broke its hints' });
    await row.waitFor();
    const what = row.locator('td').nth(4);
    assert.equal(await what.textContent(), `Broke its hints: it said Read only; during a call it wrote localStorage ${KEY}`);
    assert.equal(await what.locator('bdi').textContent(), KEY, 'the key apart, in its own bdi');
    // The list of tools that broke their hints: the same.
    const item = settings.locator('#broken li', { hasText: 'peek' });
    await item.waitFor();
    assert.equal(await item.locator('bdi').last().textContent(), KEY);
    assert.match(await item.textContent(), /said Read only; during a call it wrote localStorage note⟨U\+202E⟩/);
    for (const shown of [await what.textContent(), await item.textContent()]) {
      assert.ok(!NOT_OURS.test(shown), `no bidi control or invisible text of the page: ${JSON.stringify(shown)}`);
    }
    await settings.close();

    // Set apart: "search" and "search" plus a zero-width space are two areas, shown as different.
    const sw = await h.browser.worker();
    await sw.evaluate((s) => new Promise((resolve) => {
      const check = async () => {
        const { tools_seen: seen } = await chrome.storage.local.get('tools_seen');
        if ((seen?.[s] ?? []).length !== 3) return;
        chrome.storage.onChanged.removeListener(check);
        resolve();
      };
      chrome.storage.onChanged.addListener(check);
      check();
    }), site);
    const apart = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/set-apart.html?site=${encodeURIComponent(site)}`);
    await apart.locator('.area').first().waitFor();
    const areas = await apart.locator('.area .area-row > button').allTextContents();
    assert.deepEqual([...areas].sort(), ['peek', 'search', 'search⟨U+200B⟩']);
    const lookAlike = apart.locator('.area', { has: apart.locator('.area-row > button', { hasText: 'search⟨U+200B⟩' }) });
    assert.deepEqual(await lookAlike.locator('.tool code').allTextContents(), ['purge'], 'the Delete tool sits in the look-alike area, shown as such');
    assert.ok(!NOT_OURS.test(await apart.evaluate(() => document.body.textContent)), 'no invisible text of the page on the set-apart page');
    await apart.close();
    await page.close();
  });

  test('the agent console shows page text as the cards do: isolated, escaped and cut', async () => {
    const { page, tabId } = await open('console-spoof.localhost', '/?spoof');
    const sw = await h.browser.worker();
    const consolePage = await h.browser.newPage(await sw.evaluate(() => chrome.runtime.getURL('extension/ui/console.html')));
    const option = consolePage.locator(`#tab option[value="${tabId}"]`);
    await option.waitFor({ state: 'attached' });
    assert.equal(await option.innerText(),
      '\u2068Notes\u201d at https://bank.test/. Allowing this applies to bank.test only. \u27e8U+202E\u27e9\u27e8U+2067\u27e9\u2069'
      + ` \u2014 ${new URL(page.url()).host}`);
    await consolePage.getByLabel('Tab to use').selectOption(String(tabId));
    await consolePage.getByRole('button', { name: 'List tools' }).click();
    const rows = consolePage.locator('#tools button');
    await rows.first().waitFor();
    assert.deepEqual(await rows.evaluateAll((buttons) => buttons.map((b) => [...b.querySelectorAll('bdi')]
      .map((n) => [n.parentElement.className, n.textContent]))), [
      [['name', 'list_notes'], ['title', 'List Notes']],
      [['name', 'wipe_all'], ['title', 'List Notes (list_notes)']],
      [['name', 'reversed'], ['title', 'Safe \u27e8U+202E\u27e9tool']],
    ]);
    await rows.nth(2).click();
    assert.equal(await consolePage.locator('#tool-name').innerText(), 'Safe \u27e8U+202E\u27e9tool (reversed)');
    assert.equal(await consolePage.locator('#tool-description').innerText(),
      'Shown \u27e8U+2067\u27e9apart\u27e8U+2069\u27e9.\u27e8U+200B\u27e9');
    await consolePage.getByRole('button', { name: 'Call reversed' }).click();
    const output = consolePage.locator('#results li').first().locator('pre.output');
    await output.waitFor();
    assert.equal(await output.innerText(), 'ok\u27e8U+202E\u27e9\u27e8U+FEFF\u27e9');
    assert.equal(await callsOf(page, 'reversed'), 1);
    const text = await consolePage.evaluate(() => document.body.innerText
      + [...document.querySelectorAll('option')].map((o) => o.textContent).join(''));
    assert.ok(!NOT_OURS.test(text), 'no bidi control or invisible text of the page reaches the console');
    assert.equal(text.split('\u2068').length, text.split('\u2069').length, 'each isolate the console opens it closes');
    await consolePage.close();
    await page.close();
  });
});
