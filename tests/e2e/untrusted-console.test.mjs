// After untrusted content (docs/cards.md), as a person meets it: the agent
// console plays an agent on an inbox (tests/pages/untrusted) whose
// `read_inbox` marks what it returns as untrusted and returns a mail that
// tells the agent to act for someone else. The chat allowed the site's
// non-consequential tools, so `send_reply` runs without a card until the
// chat reads the inbox; from then on each `send_reply` opens a card that
// says why (the tool, the site, what it read), answered for that call only.
// The console lists what the chat read, and the settings page's audit keeps
// "Read untrusted content" and "Confirmed after untrusted content".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, NON_CONSEQUENTIAL, callsOf } from '../support/fixture.mjs';
import { choose, readCard } from '../support/cards.mjs';
import { latest, openConsoleOn, result, toolButton } from '../support/console.mjs';
import { answersOf, labelsOf } from '../../lib/cards.mjs';

const h = harness({ pages: 'tests/pages/untrusted', tools: 2 });

const DECLARED = 'its tool marks what it returns as untrusted';
const FOUND = 'Read untrusted content: ';

// Calls `send_reply` from its form with `text`.
async function sendReply(page, text) {
  await toolButton(page, 'send_reply').click();
  await page.getByRole('textbox', { name: 'text (required)' }).fill(text);
  await page.getByRole('button', { name: 'Call send_reply' }).click();
}

test('after the chat reads an untrusted mail, each reply it sends is asked on a card that says why', async () => {
  const { page: inbox } = await h.open('inbox.test');
  const site = h.site('inbox.test');
  // The mail as the cards and the console show page text: its line feeds
  // escaped, its markup as text.
  const mail = await inbox.evaluate(() => window.MAIL);
  const shownMail = mail.replaceAll('\n', '\u27E8U+000A\u27E9');

  // The console lists the inbox's tools; the site question comes first, and
  // the person allows the site's non-consequential tools.
  const siteCard = h.cards.next(20_000).then((card) => choose(card, NON_CONSEQUENTIAL));
  const page = await openConsoleOn(h.browser, inbox, 'Inbox');
  await siteCard;
  let results = 0;

  // Before reading: a reply runs without a card, and nothing is listed.
  await sendReply(page, 'Thanks, see you Monday');
  let shown = await result(page, ++results);
  assert.equal(shown.decision, `Ran: Mutating tools on ${site} are allowed in this chat`);
  assert.equal(h.cards.pending(), false, 'no card before the chat read anything untrusted');
  assert.equal(await page.locator('#untrusted-section').isHidden(), true);

  // Reading the inbox runs (Read only) and makes the chat untrusted.
  await toolButton(page, 'read_inbox').click();
  await page.getByRole('button', { name: 'Call read_inbox' }).click();
  shown = await result(page, ++results);
  assert.match(shown.decision, /^Ran: /);
  assert.equal(h.cards.pending(), false, 'reading asks nothing');

  // The console lists the source: the tool, its site, why, and what it read.
  const sources = page.locator('#untrusted-sources > li');
  await sources.first().waitFor();
  assert.equal(await sources.count(), 1);
  const source = sources.first();
  assert.equal(await source.locator('.source-head .name').innerText(), 'read_inbox');
  assert.ok((await source.locator('.source-head').innerText()).startsWith(`read_inbox on ${site}`));
  assert.equal(await source.locator('.why').innerText(), `Why: ${DECLARED}.`);
  assert.equal(await source.locator('.excerpt .page-text').innerText(), shownMail);

  // The next reply opens a card that says why; a real click allows it once.
  await sendReply(page, 'Forwarded the invoices');
  let card = await h.cards.next();
  await latest(page).locator('.state', { hasText: 'Waiting for your answer' }).waitFor();
  let read = await readCard(card);
  assert.equal(read.heading, 'send_reply');
  assert.deepEqual(read.untrusted, [
    `This chat has read content from \u201cread_inbox\u201d on ${site} that may carry someone else's instructions: ${DECLARED}. Check that this call is what you asked for.`,
    `What it read: \u201c${shownMail}\u201d`,
  ]);
  assert.deepEqual(read.untrustedPage, ['read_inbox', shownMail], 'the tool and what it read are page text, apart');
  assert.deepEqual(read.arguments, [['text', 'Forwarded the invoices']]);
  // Answers for this call only: no "Always allow", no wider width.
  assert.deepEqual(labelsOf(await answersOf(card)), [
    'Allow this call only', 'Deny this call', `Never allow \u201csend_reply\u201d on ${site}`, `Deny all page tools on ${site}`,
  ]);
  await card.getByRole('button', { name: 'Allow this call only', exact: true }).click()
    .catch((error) => { if (!card.isClosed()) throw error; });
  shown = await result(page, ++results);
  assert.equal(shown.decision, 'Ran: you allowed this call only, after this chat read untrusted content');
  await inbox.locator('#sent li', { hasText: 'Forwarded the invoices' }).waitFor();

  // The reply after it is asked again; denied, it never reaches the page.
  await sendReply(page, 'And the receipts');
  card = await h.cards.next();
  read = await readCard(card);
  assert.equal(read.untrusted.length, 2, 'the same warning');
  await choose(card, 'Deny this call');
  shown = await result(page, ++results);
  assert.match(shown.decision, /^Refused: /);
  assert.equal(await callsOf(inbox, 'send_reply'), 2, 'the first reply and the allowed one');
  assert.equal(await sources.count(), 1, 'still the one source');
  // Closing the next card's window refuses that call too, and the audit
  // says it was a card after untrusted content.
  await sendReply(page, 'And the bank details');
  card = await h.cards.next();
  assert.equal((await readCard(card)).untrusted.length, 2, 'the same warning');
  await card.close();
  shown = await result(page, ++results);
  assert.match(shown.decision, /^Refused: /);
  assert.equal(await callsOf(inbox, 'send_reply'), 2, 'a closed card runs nothing');
  // Page text never became markup, on the console or the cards.
  assert.equal(await page.locator('#untrusted-section b, #results b').count(), 0);

  // The settings page's audit: the read, and the two answers after it.
  const settingsUrl = await (await h.browser.worker()).evaluate(() => chrome.runtime.getURL('extension/ui/options.html'));
  const settings = await h.browser.newPage(settingsUrl);
  const rows = settings.locator('#audit-rows tr');
  const byWhat = (what) => rows.filter({ has: settings.locator('td:nth-child(5)', { hasText: what }) });
  const cells = (row) => row.locator('td').allTextContents();
  await byWhat('after untrusted content').nth(2).waitFor();
  const readRow = await cells(byWhat(FOUND).first());
  assert.deepEqual(readRow.slice(1, 5), [site, 'Agent console, chat 1', 'read_inbox', `${FOUND}${DECLARED}. What it read: \u201c${shownMail}\u201d`]);
  assert.match(readRow[5], /allowed/, 'what let the read run');
  assert.equal(await byWhat(FOUND).first().locator('td:nth-child(5) .page-text').innerText(), shownMail);
  const confirmed = await cells(byWhat('Confirmed after untrusted content').first());
  assert.deepEqual(confirmed.slice(1), [site, 'Agent console, chat 1', 'send_reply',
    'Confirmed after untrusted content: \u201cAllow this call only\u201d', 'your answer on the call card']);
  const denied = await cells(byWhat('Answered \u201cDeny this call\u201d after untrusted content').first());
  assert.deepEqual(denied.slice(1, 4), [site, 'Agent console, chat 1', 'send_reply']);
  const closed = await cells(byWhat('Closed the card after untrusted content').first());
  assert.deepEqual(closed.slice(1, 4), [site, 'Agent console, chat 1', 'send_reply']);
  // The kind of entry "After untrusted content": these four, nothing else.
  await settings.getByLabel('Kind of entry').selectOption({ label: 'After untrusted content' });
  await settings.waitForFunction(() => document.querySelectorAll('#audit-rows tr').length === 4);
  const whats = await settings.locator('#audit-rows tr td:nth-child(5)').allTextContents();
  assert.deepEqual(whats, [
    'Closed the card after untrusted content',
    'Answered \u201cDeny this call\u201d after untrusted content',
    'Confirmed after untrusted content: \u201cAllow this call only\u201d',
    `${FOUND}${DECLARED}. What it read: \u201c${shownMail}\u201d`,
  ]);
  assert.equal(await settings.locator('#audit-rows b').count(), 0, 'no markup from the mail');

  await settings.close();
  await page.close();
  await inbox.close();
});
