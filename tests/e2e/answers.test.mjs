// docs/cards.md, "The two cards", end to end in headless Chromium
// with the real extension: agents' calls through `self.toolgate.agent`, the
// cards they open (popup windows), every answer clicked by its visible label,
// and what each answer does to the calls after it. Also: localhost against a
// real host name, the cards' texts word for word, two chats, the immediate
// identical retry, a changed definition, bad arguments, and the keyboard.
// Service-worker restarts are in worker-restarts.test.mjs, failing calls in
// call-failures.test.mjs; all three use tests/support/fixture.mjs's harness.
//
// One browser per describe; every test uses chats of its own, so answers never
// leak between tests. "Never allow" holds for every chat until the browser
// restarts, so the test that gives it uses a site of its own (never.test).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries } from '../support/browser.mjs';
import {
  cardId, cardKind, choose, closeCard, isCard, menuLabels, pressAnswering, readCard,
} from '../support/cards.mjs';
import { reportsAnswered, sendWaiting } from '../support/events.mjs';
import {
  harness, assertRan, assertRefused, chatWith, NON_CONSEQUENTIAL, PUBLISHES, callsOf,
} from '../support/fixture.mjs';

describe('answering on a real host name', () => {
  const h = harness();

  test('the site card says what docs/cards.md says, word for word', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat('Trip planning');
    const { card, reply } = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const shownCard = await readCard(card);
    const site = h.site();
    assert.equal(shownCard.chat, 'Asked by Trip planning', 'the card says which chat asked');
    assert.equal(shownCard.heading, `An agent wants permission to use this site's page tools on ${site}`);
    assert.deepEqual(shownCard.lines, [
      'Let the agent see and call the tools this website publishes to it.',
      `Requested by browser_call_webmcp_tool, in the tab \u201cNotes\u201d at ${page.url()}.`,
      `Allowing this applies to ${site} only.`,
    ]);
    assert.equal(shownCard.publishesOpen, true, 'the site card lists what the site publishes openly');
    assert.deepEqual(shownCard.publishes, PUBLISHES);
    assert.equal(shownCard.class, null);
    assert.equal(shownCard.argumentCount, null);
    assert.equal(shownCard.approve, 'Allow this call only');
    assert.equal(shownCard.deny, 'Deny this call');
    assert.deepEqual(await menuLabels(card, 'More ways to allow'), [
      'Allow read-only tools on this website',
      'Allow non-consequential read/write tools on this website',
      'Allow all tools on this website',
    ]);
    assert.deepEqual(await menuLabels(card, 'More ways to deny'), ['Deny for this chat']);
    await choose(card, 'Deny this call');
    assert.equal(assertRefused(await reply, 'list_notes'), `refused: you denied this call to ${site}`);
    assert.equal(await callsOf(page, 'list_notes'), 0, 'a refused call never reaches the page');

    // A listing asks the same question, naming the tool that asked.
    const listing = await h.start(chat, h.listRequest(tabId));
    assert.ok(listing.card, 'the listing asks the site question');
    assert.equal((await readCard(listing.card)).lines[1],
      `Requested by browser_list_webmcp_tools, in the tab \u201cNotes\u201d at ${page.url()}.`);
    await choose(listing.card, 'Allow this call only');
    const listed = (await listing.reply).result.structuredContent;
    assert.deepEqual(listed.tools.map((t) => `${t.name}, ${t.class}`), PUBLISHES.slice(0, -1));
    assert.deepEqual(listed.skills.map((s) => s.name), ['house_style']);
    // Nothing was recorded: the next listing asks again.
    const again = await h.start(chat, h.listRequest(tabId));
    assert.ok(again.card, 'allowed once: the next listing asks again');
    await choose(again.card, 'Deny this call');
    assert.deepEqual((await again.reply).result.structuredContent.tools, []);
    await page.close();
  });

  test('what the answers add up to: the widths table, row by row', async () => {
    const { page, tabId } = await h.open();
    const table = [
      ['Allow read-only tools on this website', { list_notes: 'run', add_note: 'ask', delete_note: 'ask', send_note: 'ask' }],
      ['Allow non-consequential read/write tools on this website', { list_notes: 'run', add_note: 'run', delete_note: 'ask', send_note: 'ask' }],
      ['Allow all tools on this website', { list_notes: 'run', add_note: 'run', delete_note: 'run', send_note: 'run' }],
    ];
    for (const [answer, expected] of table) {
      const chat = await h.chat();
      const { card, reply } = await h.asks(chat, tabId, 'list_notes', {}, 'site');
      await choose(card, answer);
      assertRan(await reply, 'list_notes');
      for (const [tool, want] of Object.entries(expected)) {
        const args = tool === 'list_notes' ? {} : { title: 'Shopping' };
        if (want === 'run') {
          await h.runs(chat, tabId, tool, args);
        } else {
          // Confirmed per call: every call, not only the first.
          for (let i = 0; i < 2; i++) {
            const asked = await h.asks(chat, tabId, tool, args);
            assert.equal((await readCard(asked.card)).heading, tool, `${answer}: ${tool}`);
            await choose(asked.card, 'Deny this call');
            assertRefused(await asked.reply, tool);
          }
        }
      }
    }
    await page.close();
  });

  test('every answer on the site card, and closing it', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();

    // Allow this call only: this call runs; nothing is recorded, so the next call asks again.
    let chat = await h.chat();
    let asked = await h.asks(chat, tabId, 'delete_note', { title: 'Nope' }, 'site');
    await choose(asked.card, 'Allow this call only');
    const once = await asked.reply;
    assertRan(once, 'delete_note');
    assert.equal(once.result.content[0].text, 'Deleted "Nope".');
    assert.equal(await callsOf(page, 'delete_note'), 1);
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny this call');

    // Allow read-only / non-consequential / all: the next calls follow the width
    // (the widths table above checks every class under each).
    for (const [answer, runs, asks] of [
      ['Allow read-only tools on this website', 'list_notes', 'add_note'],
      ['Allow non-consequential read/write tools on this website', 'add_note', 'send_note'],
      ['Allow all tools on this website', 'send_note', null],
    ]) {
      chat = await h.chat();
      asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
      await choose(asked.card, answer);
      assertRan(await asked.reply, 'list_notes');
      await h.runs(chat, tabId, runs, runs === 'list_notes' ? {} : { title: 'A' });
      if (asks) {
        const confirm = await h.asks(chat, tabId, asks, { title: 'B' });
        await choose(confirm.card, 'Deny this call');
      }
    }

    // Deny this call: refused; nothing is recorded.
    chat = await h.chat();
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny this call');
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: you denied this call to ${site}`);
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny for this chat');

    // Deny for this chat: refused, and later calls to the site are refused without asking.
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'send_note', { title: 'A' }), `refused: send_note on ${site} is denied in this chat`);
    const listing = await h.start(chat, h.listRequest(tabId));
    assert.ok(!listing.card, 'a listing is refused without asking too');
    assert.deepEqual(listing.reply.result.structuredContent.tools, []);
    assert.deepEqual(listing.reply.result.structuredContent.withheld, [`refused: ${site} is denied in this chat`]);

    // Closing the card without answering counts as Deny for this chat.
    chat = await h.chat();
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await closeCard(asked.card);
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    assert.equal(await callsOf(page, 'list_notes'), 4, 'only the allowed calls reached the page');
    await page.close();
  });

  test('a card closes once answered, while the call it let run goes on', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const asked = await h.asks(chat, tabId, 'slow', { ms: 2000 }, 'site');
    const started = Date.now();
    await choose(asked.card, 'Allow this call only');
    assert.ok(Date.now() - started < 1500, `the card closed after ${Date.now() - started} ms, before the call ended`);
    assert.equal(await callsOf(page, 'slow'), 1);
    const reply = await asked.reply;
    assertRan(reply, 'slow');
    assert.equal(reply.result.content[0].text, 'slept (run 1)');
    await page.close();
  });

  test('a site answer too narrow for the call leads on to the call card', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const site = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' }, 'site');
    await choose(site.card, 'Allow read-only tools on this website');
    const call = await h.cards.next();
    assert.equal(await cardKind(call), 'call');
    assert.equal((await readCard(call)).heading, 'delete_note');
    await choose(call, 'Allow this call only');
    const reply = await site.reply;
    assertRan(reply, 'delete_note');
    assert.equal(reply.result.content[0].text, 'Deleted "Old draft".');
    // The width stays what the site card gave.
    await h.runs(chat, tabId, 'list_notes');
    const next = await h.asks(chat, tabId, 'add_note', { title: 'A' });
    await choose(next.card, 'Deny this call');
    await next.reply;
    await page.close();
  });

  test('the call card says what docs/cards.md says, word for word', async () => {
    const { tabId } = await h.open();
    const site = h.site();
    const chat = await chatWith(h, tabId, NON_CONSEQUENTIAL, 'Spring cleaning');
    const { card, reply } = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' });
    const shownCard = await readCard(card);
    assert.equal(shownCard.chat, 'Asked by Spring cleaning');
    assert.equal(shownCard.heading, 'delete_note');
    assert.equal(shownCard.class, 'Consequential');
    assert.equal(shownCard.argumentCount, '1 argument');
    assert.deepEqual(shownCard.arguments, [['title', 'Old draft']]);
    assert.equal(shownCard.changed, null);
    assert.equal(shownCard.publishesOpen, false, '"What this site publishes" is folded');
    assert.deepEqual(shownCard.publishes, PUBLISHES);
    assert.equal(await card.locator('#publishes-section summary').textContent(), 'What this site publishes');
    assert.equal(shownCard.approve, 'Allow this call only');
    assert.equal(shownCard.deny, 'Deny this call');
    assert.deepEqual(await menuLabels(card, 'More ways to allow'),
      [`Always allow \u201cdelete_note\u201d on ${site}`, `Allow all tools on ${site}`]);
    assert.deepEqual(await menuLabels(card, 'More ways to deny'),
      [`Never allow \u201cdelete_note\u201d on ${site}`, `Deny all page tools on ${site}`]);
    await choose(card, 'Deny this call');
    assert.equal(assertRefused(await reply, 'delete_note'), `refused: you denied this call to delete_note on ${site}`);

    // A Mutating tool's widening answer names its width.
    const ro = await chatWith(h, tabId, 'Allow read-only tools on this website');
    const mutating = await h.asks(ro, tabId, 'add_note', { title: 'Groceries' });
    assert.equal((await readCard(mutating.card)).class, 'Mutating');
    assert.deepEqual(await menuLabels(mutating.card, 'More ways to allow'),
      [`Always allow \u201cadd_note\u201d on ${site}`, `Allow non-consequential read/write tools on ${site}`]);
    await choose(mutating.card, 'Deny this call');
    await mutating.reply;
  });

  // A card answered elsewhere (its second window) refuses the later answer
  // with a clear error, and stays usable rather than frozen.
  test('an answer the worker does not take leaves the card usable', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const second = await h.browser.context.newPage();
    await second.goto(asked.card.url());
    await second.waitForFunction(() => document.getElementById('deny')?.textContent !== '');
    await choose(asked.card, 'Deny this call');
    await asked.reply;
    await second.getByRole('button', { name: 'Deny this call', exact: true }).click();
    await second.waitForFunction(() => /could not take this answer/.test(document.getElementById('status').textContent));
    assert.match(await second.locator('#status').textContent(), /^Toolgate could not take this answer: card \d+ is not waiting for an answer$/);
    assert.equal(await second.getByRole('button', { name: 'Deny this call', exact: true }).isDisabled(), false);
    await second.close();
    await page.close();
  });

  test('page text on a card is text, never HTML', async () => {
    const { page, tabId } = await h.open();
    const evil = '<img src=x onerror="window.top.pwned=1">';
    await page.evaluate((t) => { document.title = t; }, `Notes ${evil}`);
    const chat = await h.chat(`Chat ${evil}`);
    const site = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const siteCard = await readCard(site.card);
    assert.equal(siteCard.chat, `Asked by Chat ${evil}`);
    assert.match(siteCard.lines[1], new RegExp(`in the tab \u201cNotes ${evil.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\u201d`));
    assert.ok(!siteCard.elements.includes('img'), 'no element came from page text');
    await choose(site.card, 'Allow read-only tools on this website');
    await site.reply;

    const call = await h.asks(chat, tabId, 'send_note', { title: evil, to: '<b>bob</b>' });
    const callCard = await readCard(call.card);
    assert.equal(callCard.argumentCount, '2 arguments');
    assert.deepEqual(callCard.arguments, [['title', evil], ['to', '<b>bob</b>']]);
    assert.ok(!callCard.elements.includes('img') && !callCard.elements.includes('b'), 'no element came from the arguments');
    assert.equal(await call.card.evaluate(() => window.pwned), undefined);
    await choose(call.card, 'Allow this call only');
    assert.equal((await call.reply).result.content[0].text, `Sent "${evil}" to <b>bob</b>.`);
    await page.close();
  });

  test('every answer on the call card, and closing it', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();

    // Allow this call only: runs; nothing is recorded.
    let chat = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    let asked = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' });
    await choose(asked.card, 'Allow this call only');
    assert.equal((await asked.reply).result.content[0].text, 'Deleted "Old draft".');
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' });
    await choose(asked.card, 'Deny this call');
    assertRefused(await asked.reply, 'delete_note');

    // Always allow "delete_note": it runs without asking from now on, in this
    // chat; other consequential tools are still confirmed; other chats still ask.
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    await choose(asked.card, `Always allow \u201cdelete_note\u201d on ${site}`);
    assertRan(await asked.reply, 'delete_note');
    const always = await h.runs(chat, tabId, 'delete_note', { title: 'B' });
    assert.equal(always.result._meta.toolgate.why, `delete_note is always allowed on ${site} in this chat`);
    asked = await h.asks(chat, tabId, 'send_note', { title: 'A' });
    await choose(asked.card, 'Deny this call');
    const other = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    asked = await h.asks(other, tabId, 'delete_note', { title: 'A' });

    // Allow all tools on {site}: widens to Consequential and everything below.
    await choose(asked.card, `Allow all tools on ${site}`);
    assertRan(await asked.reply, 'delete_note');
    await h.runs(other, tabId, 'send_note', { title: 'A' });
    await h.runs(other, tabId, 'delete_note', { title: 'C' });

    // For a Mutating tool: "Allow non-consequential read/write tools on {site}".
    chat = await chatWith(h, tabId, 'Allow read-only tools on this website');
    asked = await h.asks(chat, tabId, 'add_note', { title: 'A' });
    await choose(asked.card, `Allow non-consequential read/write tools on ${site}`);
    assertRan(await asked.reply, 'add_note');
    await h.runs(chat, tabId, 'add_note', { title: 'different' });
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    // Deny this call: refused; nothing recorded.
    await choose(asked.card, 'Deny this call');
    assertRefused(await asked.reply, 'delete_note');
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });

    // Closing the call card counts as Deny this call: the next call asks again.
    await closeCard(asked.card);
    assert.equal(assertRefused(await asked.reply, 'delete_note'), `refused: you denied this call to delete_note on ${site}`);
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });

    // Deny all page tools on {site}: refuses the site and withdraws what the chat had allowed.
    await choose(asked.card, `Deny all page tools on ${site}`);
    assert.equal(assertRefused(await asked.reply, 'delete_note'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'add_note', { title: 'A' }), `refused: add_note on ${site} is denied in this chat`);
    // Other chats keep their own answers.
    await h.runs(other, tabId, 'send_note', { title: 'still' });
    await page.close();
  });

  test('Never allow refuses the tool in every chat, without asking, and hides it', async () => {
    // never.test: "Never allow" lasts until the browser restarts, for every chat.
    const { page, tabId } = await h.open('never.test');
    const site = h.site('never.test');
    const chat = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    const asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    await choose(asked.card, `Never allow \u201cdelete_note\u201d on ${site}`);
    const never = `refused: delete_note on ${site} is never allowed, until the browser restarts`;
    assert.equal(assertRefused(await asked.reply, 'delete_note'), never);
    assert.equal(await h.refused(chat, tabId, 'delete_note', { title: 'A' }), never);
    // Other consequential tools are still only confirmed.
    const send = await h.asks(chat, tabId, 'send_note', { title: 'A' });
    await choose(send.card, 'Deny this call');
    await send.reply;
    // Another chat, even one that allowed all tools, is refused too, and does not see it listed.
    const other = await chatWith(h, tabId, 'Allow all tools on this website');
    assert.equal(await h.refused(other, tabId, 'delete_note', { title: 'A' }), never);
    const listing = await h.start(other, h.listRequest(tabId));
    assert.ok(!listing.reply.result.structuredContent.tools.some((t) => t.name === 'delete_note'), 'delete_note is not listed');
    assert.equal(await callsOf(page, 'delete_note'), 0);
    // Other sites' delete_note is untouched.
    const elsewhere = await h.open();
    const third = await chatWith(h, elsewhere.tabId, 'Allow all tools on this website');
    await h.runs(third, elsewhere.tabId, 'delete_note', { title: 'A' });
    await elsewhere.page.close();
    await page.close();
  });

  test('two chats keep different answers on the same site', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const a = await chatWith(h, tabId, 'Allow all tools on this website', 'Chat A');
    const b = await h.chat('Chat B');
    const asked = await h.asks(b, tabId, 'list_notes', {}, 'site');
    assert.equal((await readCard(asked.card)).chat, 'Asked by Chat B');
    await choose(asked.card, 'Deny for this chat');
    await asked.reply;
    await h.runs(a, tabId, 'send_note', { title: 'A' });
    assert.equal(await h.refused(b, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    await h.runs(a, tabId, 'delete_note', { title: 'A' });
    // A third chat has answered nothing yet: it is asked.
    const c = await h.chat();
    const third = await h.asks(c, tabId, 'list_notes', {}, 'site');
    await choose(third.card, 'Deny this call');
    await third.reply;
    await page.close();
  });

  test('calls of one chat made at once on a new site ask the site question once', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat('Chat at once');
    // Three requests at once: the first opens the site card, the other two
    // wait on it (one card, not three).
    const first = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const { reply: second, waitsOn: secondWaitsOn } = await h.sendWaiting(chat, h.request(tabId, 'list_notes'));
    const { reply: listing, waitsOn: listingWaitsOn } = await h.sendWaiting(chat, h.listRequest(tabId));
    // Both were told to wait on the first card, so neither opened one.
    assert.equal(await secondWaitsOn, cardId(first.card), 'the second call waits on the site card');
    assert.equal(await listingWaitsOn, cardId(first.card), 'the listing waits on the site card');
    assert.equal(h.browser.context.pages().filter(isCard).length, 1,
      'one card window');
    await choose(first.card, 'Allow read-only tools on this website');
    assertRan(await first.reply, 'list_notes');
    assertRan(await second, 'list_notes');
    const listed = await listing;
    assert.equal(listed.result.isError, false, JSON.stringify(listed));
    // Once for one call only: the waiting call asks again, on a card of its own.
    const other = await h.chat('Chat once');
    const asked = await h.asks(other, tabId, 'list_notes', {}, 'site');
    const waiting = h.send(other, h.request(tabId, 'list_notes'));
    await choose(asked.card, 'Allow this call only');
    assertRan(await asked.reply, 'list_notes');
    const again = await h.cards.next();
    assert.equal(await cardKind(again), 'site');
    await choose(again, 'Deny this call');
    assertRefused(await waiting, 'list_notes');
    await page.close();
  });

  test('an approved idempotent Mutating call may be retried at once, identically, without asking', async () => {
    const { page, tabId } = await h.open();
    const chat = await chatWith(h, tabId, 'Allow read-only tools on this website');
    const asked = await h.asks(chat, tabId, 'add_note', { title: 'Retry me' });
    await choose(asked.card, 'Allow this call only');
    assertRan(await asked.reply, 'add_note');
    const retry = await h.runs(chat, tabId, 'add_note', { title: 'Retry me' });
    assert.equal(retry.result._meta.toolgate.why, 'an immediate identical retry of add_note, which you just approved');
    assert.equal(await callsOf(page, 'add_note'), 2);
    // Only the very next call: a third identical call asks again.
    let again = await h.asks(chat, tabId, 'add_note', { title: 'Retry me' });
    await choose(again.card, 'Allow this call only');
    await again.reply;
    // Different arguments are not a retry, and end the window.
    again = await h.asks(chat, tabId, 'add_note', { title: 'Something else' });
    await choose(again.card, 'Deny this call');
    await again.reply;
    again = await h.asks(chat, tabId, 'add_note', { title: 'Retry me' });
    await choose(again.card, 'Deny this call');
    await again.reply;
    // A Consequential tool is never retried without asking, idempotent or not.
    const consequential = await h.asks(chat, tabId, 'delete_note', { title: 'Gone' });
    await choose(consequential.card, 'Allow this call only');
    await consequential.reply;
    const next = await h.asks(chat, tabId, 'delete_note', { title: 'Gone' });
    await choose(next.card, 'Deny this call');
    await next.reply;
    await page.close();
  });

  test('a grant lapses when the page re-registers the tool with a changed definition', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const chat = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    let asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    await choose(asked.card, `Always allow \u201cdelete_note\u201d on ${site}`);
    await asked.reply;
    await h.runs(chat, tabId, 'delete_note', { title: 'B' });
    // Re-registering the same definition changes nothing.
    await page.evaluate(() => window.redefine('delete_note', 'Delete the note with this title.'));
    assert.equal(await reportsAnswered(page), null, 'the registry has applied the re-registration');
    await h.runs(chat, tabId, 'delete_note', { title: 'C' });

    await page.evaluate(() => window.redefine('delete_note', 'Delete the note with this title, and every copy of it.'));
    await h.browser.waitForPalette(page, (p) => entries(p).find((e) => e.name === 'delete_note')?.description.includes('every copy'),
      'the new definition');
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'D' });
    assert.equal((await readCard(asked.card)).changed,
      'delete_note changed since you chose to always allow it: its description, schema or hints are different.');
    await choose(asked.card, 'Allow this call only');
    assertRan(await asked.reply, 'delete_note');
    // Still not allowed: the old grant does not cover the new definition.
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'E' });
    await choose(asked.card, `Always allow \u201cdelete_note\u201d on ${site}`);
    await asked.reply;
    await h.runs(chat, tabId, 'delete_note', { title: 'F' });
    await page.close();
  });

  test('invalid arguments get a clear error, before any card', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    for (const [args, message] of [
      [{}, 'invalid arguments for add_note: arguments.title: is required'],
      [{ title: 7 }, 'invalid arguments for add_note: arguments.title: expected a string, got an integer'],
      [{ title: 'A', color: 'red' }, 'invalid arguments for add_note: arguments.color: is not a known argument'],
    ]) {
      const got = await h.start(chat, h.request(tabId, 'add_note', args));
      assert.ok(!got.card, `no card for ${JSON.stringify(args)}`);
      assert.equal(got.reply.error?.message, message);
      assert.equal(got.reply.error.code, -32602);
    }
    assert.equal(await callsOf(page, 'add_note'), 0);
    // The chat was never asked, so the site question comes with a valid call.
    const asked = await h.asks(chat, tabId, 'add_note', { title: 'A' }, 'site');
    await choose(asked.card, 'Deny this call');
    await asked.reply;
    await page.close();
  });

  test('keyboard: Tab to a button and Enter answers; Esc closes an open menu', async () => {
    const { tabId } = await h.open();
    const site = h.site();
    const chat = await h.chat();
    let asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const card = asked.card;
    // Every button has an accessible name.
    for (const name of ['Allow this call only', 'More ways to allow', 'Deny this call', 'More ways to deny']) {
      assert.equal(await card.getByRole('button', { name, exact: true }).count(), 1, `a button named ${name}`);
    }
    const focused = () => card.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent);
    assert.equal(await focused(), `An agent wants permission to use this site's page tools on ${site}`,
      'the heading has the focus, which answers nothing (docs/cards.md, "Answering on purpose")');
    // Tab to the deny arrow; Enter opens its menu.
    for (let i = 0; i < 6 && (await focused()) !== 'More ways to deny'; i++) await card.keyboard.press('Tab');
    assert.equal(await focused(), 'More ways to deny');
    await card.keyboard.press('Enter');
    const menu = card.getByRole('menu');
    assert.equal(await menu.isVisible(), true);
    assert.equal(await focused(), 'Deny for this chat', 'the menu takes the focus');
    // Esc closes the menu, not the card, and gives the focus back to the arrow.
    await card.keyboard.press('Escape');
    assert.equal(await menu.isHidden(), true);
    assert.equal(await card.getByRole('button', { name: 'More ways to deny' }).getAttribute('aria-expanded'), 'false');
    assert.equal(await focused(), 'More ways to deny');
    assert.equal(card.isClosed(), false);
    // Shift+Tab to "Deny this call", Enter answers.
    await card.keyboard.press('Shift+Tab');
    assert.equal(await focused(), 'Deny this call');
    await pressAnswering(card, 'Enter');
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: you denied this call to ${site}`);

    // Esc with no menu open closes the card, which counts as closing it: Deny for this chat.
    const other = await h.chat();
    asked = await h.asks(other, tabId, 'list_notes', {}, 'site');
    await pressAnswering(asked.card, 'Escape');
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: ${site} is denied in this chat`);
    await h.refused(other, tabId, 'list_notes');

    // Arrow keys in a menu, Enter on an item.
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    // From the heading: the folded list's summary, "Allow this call only", "More ways to allow".
    for (let i = 0; i < 3; i++) await asked.card.keyboard.press('Tab');
    assert.equal(await asked.card.evaluate(() => document.activeElement.getAttribute('aria-label')), 'More ways to allow');
    await asked.card.keyboard.press('ArrowDown');
    await asked.card.keyboard.press('ArrowDown');
    const choice = await asked.card.evaluate(() => document.activeElement.textContent);
    assert.equal(choice, 'Allow non-consequential read/write tools on this website');
    await pressAnswering(asked.card, 'Enter');
    assertRan(await asked.reply, 'list_notes');
    await h.runs(chat, tabId, 'add_note', { title: 'typed' });
  });
});

describe('on localhost', () => {
  const h = harness();

  test('no site question, read-only width from the start, and no site-wide refusal', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const site = h.site('notes.localhost');
    const chat = await h.chat('Local chat');
    await h.runs(chat, tabId, 'list_notes');
    const listing = await h.start(chat, h.listRequest(tabId));
    assert.ok(!listing.card, 'a listing is not asked either');
    assert.equal(listing.reply.result.structuredContent.tools.length, 10);
    const asked = await h.asks(chat, tabId, 'add_note', { title: 'Local' });
    const shownCard = await readCard(asked.card);
    assert.equal(shownCard.heading, 'add_note');
    assert.equal(shownCard.class, 'Mutating');
    assert.deepEqual(await menuLabels(asked.card, 'More ways to allow'),
      [`Always allow \u201cadd_note\u201d on ${site}`, `Allow non-consequential read/write tools on ${site}`]);
    assert.deepEqual(await menuLabels(asked.card, 'More ways to deny'),
      [`Never allow \u201cadd_note\u201d on ${site}`], 'no "Deny all page tools" on localhost');
    await choose(asked.card, `Allow non-consequential read/write tools on ${site}`);
    assertRan(await asked.reply, 'add_note');
    await h.runs(chat, tabId, 'add_note', { title: 'Local 2' });
    const consequential = await h.asks(chat, tabId, 'delete_note', { title: 'Local' });
    assert.deepEqual(await menuLabels(consequential.card, 'More ways to deny'), [`Never allow \u201cdelete_note\u201d on ${site}`]);
    await closeCard(consequential.card);
    assertRefused(await consequential.reply, 'delete_note');
    await h.runs(chat, tabId, 'list_notes');

    // The same page on a real host name is asked the site question.
    const real = await h.open('notes.test');
    const remote = await h.asks(chat, real.tabId, 'list_notes', {}, 'site');
    assert.deepEqual(await menuLabels(remote.card, 'More ways to deny'), ['Deny for this chat']);
    await choose(remote.card, 'Deny this call');
    await remote.reply;
    await real.page.close();
    await page.close();
  });
});
