// docs/cards.md end to end, with the service worker stopped: while a card is
// open, during a call (a Mutating call is reported interrupted, a Read-only one
// runs again), while no agent waits, and between calls. One browser; every
// test uses chats of its own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cardId, cardKind, choose, closeCard, isCard,
} from '../support/cards.mjs';
import { sendWaiting } from '../support/events.mjs';
import {
  harness, assertRan, assertRefused, chatWith, callsOf,
} from '../support/fixture.mjs';

describe('service worker restarts', () => {
  const h = harness();

  test('a card answered after the worker stopped still runs its call; the agent attaches again', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const request = h.request(tabId, 'delete_note', { title: 'Old draft' });
    const first = await h.start(chat, request);
    assert.ok(first.card, 'the site card opened');
    first.reply.catch(() => {}); // The agent loses its wait when the worker stops.
    await h.restartWorker();
    // The agent sends the same request again: it waits on the same card.
    const { reply: again, waitsOn } = await h.sendWaiting(chat, request);
    assert.equal(await waitsOn, cardId(first.card), 'it waits on the card already open');
    assert.equal(h.browser.context.pages().filter(isCard).length, 1,
      'no second card');
    await choose(first.card, 'Allow all tools on this website');
    const reply = await again;
    assertRan(reply, 'delete_note');
    assert.equal(reply.id, request.id);
    assert.equal(reply.result.content[0].text, 'Deleted "Old draft".');
    assert.equal(await callsOf(page, 'delete_note'), 1);
    await page.close();
  });

  test('an agent sending the same request while its call runs gets the call\'s own reply', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const request = h.request(tabId, 'slow', { ms: 1500 });
    const first = await h.start(chat, request);
    first.reply.catch(() => {});
    await h.browser.stopWorker();
    // The answer wakes the worker; the call runs; the agent asks again meanwhile.
    const answered = choose(first.card, 'Allow this call only');
    await page.waitForFunction(() => window.calls.slow === 1);
    const reply = await h.send(chat, request);
    await answered;
    assertRan(reply, 'slow');
    assert.equal(reply.result.content[0].text, 'slept (run 1)');
    assert.equal(await callsOf(page, 'slow'), 1);
    await page.close();
  });

  test('a Mutating call cut off by the worker stopping is reported as interrupted, once', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const request = h.request(tabId, 'slow_save', { ms: 800 });
    const first = await h.start(chat, request);
    assert.equal(await cardKind(first.card), 'call');
    first.reply.catch(() => {});
    await choose(first.card, 'Allow this call only');
    await page.waitForFunction(() => window.calls.slow_save === 1);
    await h.restartWorker();
    const reply = await h.send(chat, request);
    assert.equal(reply.error?.message, "the call was interrupted when Toolgate's service worker stopped; it may have run");
    // The page's late answer goes nowhere and breaks nothing.
    await page.waitForFunction(() => window.answered.slow_save === 1); // the page answered, late
    assert.equal(await callsOf(page, 'slow_save'), 1, 'never run twice');
    await h.runs(chat, tabId, 'list_notes');
    await page.close();
  });

  test('a Read-only call cut off by the worker stopping runs again when the agent asks again', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const request = h.request(tabId, 'slow', { ms: 1500 });
    const lost = h.send(chat, request);
    lost.catch(() => {});
    await page.waitForFunction(() => window.calls.slow === 1);
    await h.restartWorker();
    // Running it again is harmless, so it was never recorded as running. The
    // reply is the second run's own, though the first run, started before
    // the stop, answers first (to nobody).
    const reply = await h.send(chat, request);
    assertRan(reply, 'slow');
    assert.equal(reply.result.content[0].text, 'slept (run 2)');
    assert.equal(await callsOf(page, 'slow'), 2);
    await h.runs(chat, tabId, 'list_notes');
    await page.close();
  });

  test('a card answered while no agent waits keeps the reply for the same request', async () => {
    const { page, tabId } = await h.open();
    const chat = await chatWith(h, tabId, 'Allow read-only tools on this website');
    const request = h.request(tabId, 'send_note', { title: 'A', to: 'B' });
    const first = await h.start(chat, request);
    assert.equal(await cardKind(first.card), 'call');
    first.reply.catch(() => {});
    await h.browser.stopWorker();
    await choose(first.card, 'Allow this call only');
    // The call ran with nobody waiting; the same request collects its reply.
    // The card closes once its answer is recorded, before the call runs.
    await page.waitForFunction(() => window.calls.send_note >= 1);
    assert.equal(await callsOf(page, 'send_note'), 1);
    const kept = await h.send(chat, request);
    assertRan(kept, 'send_note');
    assert.equal(kept.result.content[0].text, 'Sent "A" to B.');
    assert.equal(await callsOf(page, 'send_note'), 1, 'collecting the reply does not run the call again');
    await page.close();
  });

  test('closing a card while the worker is stopped still counts as closing it', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const chat = await h.chat();
    const request = h.request(tabId, 'list_notes');
    const first = await h.start(chat, request);
    first.reply.catch(() => {});
    await h.browser.stopWorker();
    await closeCard(first.card);
    // The agent asks again and collects the refusal; later calls are refused without asking.
    const kept = await h.send(chat, request);
    assert.equal(assertRefused(kept, 'list_notes'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    await page.close();
  });

  test('answers survive the worker stopping between calls', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const all = await h.chat();
    let asked = await h.asks(all, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Allow all tools on this website');
    await asked.reply;
    const denied = await h.chat();
    asked = await h.asks(denied, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny for this chat');
    await asked.reply;
    const always = await h.chat();
    asked = await h.asks(always, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Allow read-only tools on this website');
    await asked.reply;
    asked = await h.asks(always, tabId, 'add_note', { title: 'A' });
    await choose(asked.card, `Always allow \u201cadd_note\u201d on ${site}`);
    await asked.reply;

    await h.restartWorker();
    await h.runs(all, tabId, 'send_note', { title: 'A' });
    await h.runs(always, tabId, 'add_note', { title: 'B' });
    assert.equal(await h.refused(denied, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    await h.restartWorker();
    await h.runs(always, tabId, 'list_notes');
    const confirm = await h.asks(always, tabId, 'delete_note', { title: 'A' });
    await choose(confirm.card, 'Deny this call');
    await confirm.reply;
    await page.close();
  });
});
