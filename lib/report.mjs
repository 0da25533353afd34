// How `toolgate check` (and `./build.sh example`) show a palette: a table as
// the palette's rows read (docs/classes.md, "Badges"), and JUnit XML with one
// test case per tool (docs/ci.md).
import { create } from 'xmlbuilder2';
import { didText } from './conduct.mjs';
import { entriesOf } from './tools.mjs';

const hostOf = (site) => {
  try {
    return new URL(site).host || site;
  } catch {
    return site;
  }
};

// What a call (`toolgate check --call`, lib/conduct.mjs) was seen doing, in
// a table's cell: what the reply told, else what its flag says it did, else
// "nothing"; a call Toolgate did not run, "not run".
export function seenCell(call) {
  if (call.decision !== 'run') return 'not run';
  if (call.seen.length) return call.seen.join(', ');
  return call.broke ? didText(call.broke) : 'nothing';
}

// The palette as a table: site, tool (title and name), the class badge with
// off-site where it applies, and the rule that decided the class; with
// `tools` (lib/check.mjs) of which some were called, what each call was seen
// doing, after the badges.
export function table(palette, tools = []) {
  const calls = new Map(tools.filter((t) => t.call).map((t) => [t.entry.name, t.call]));
  const called = (e) => (calls.size ? [calls.has(e.name) ? seenCell(calls.get(e.name)) : ''] : []);
  const rows = entriesOf(palette).map((e) => [
    hostOf(e.site),
    e.title ? `${e.title} (${e.name})` : e.name,
    [e.badge, ...e.badges.filter((b) => b === 'off-site')].join(', '),
    ...called(e),
    e.rule ?? 'a skill: listed, never called',
  ]);
  const head = ['site', 'tool', 'badges', ...(calls.size ? ['seen during --call'] : []), 'why'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [`Tools palette of ${palette.title} (${palette.url})`, '', line(head),
    line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

// JUnit XML for a check's pages (lib/check.mjs), in the shape the Jenkins
// JUnit schema gives (what Jenkins, GitLab and GitHub Actions' reporters
// read): a test suite per URL, a test case per tool or skill (named by it,
// its class name the site's host) that fails with its findings; a URL that
// did not load, or published nothing, is one test case in error; a tool
// called with --call says what it was seen doing, and what its result said
// to the agent's model, if anything. Tools an --expect file or
// --call named that no page registered make a suite each (`missing`:
// [{ name, suite, finding }]).
export function junit(pages, missing = []) {
  const suites = pages.map((page) => ({
    name: page.url,
    cases: page.error
      ? [{ classname: hostOf(page.url), name: page.error.what, error: page.error }]
      : page.tools.map(({ entry, findings, call }) => ({
        classname: hostOf(entry.site),
        name: entry.name,
        findings,
        out: [`${entry.badge}: ${entry.rule ?? 'a skill: listed, never called'}`,
          ...(call ? [`called with ${JSON.stringify(call.args)}: seen ${seenCell(call)}${call.isError && call.decision === 'run' ? `; it failed: ${call.text}` : ''}`] : []),
          ...(call?.speaks ? [call.speaks] : []),
        ].join('\n'),
      })),
  }));
  for (const suite of new Set(missing.map((m) => m.suite))) {
    suites.push({
      name: suite,
      cases: missing.filter((m) => m.suite === suite).map(({ name, finding }) => ({
        classname: suite.startsWith('expected') ? 'expected' : 'called', name, findings: [finding],
      })),
    });
  }
  const count = (cases) => ({
    tests: cases.length,
    failures: cases.filter((c) => c.findings?.length).length,
    errors: cases.filter((c) => c.error).length,
  });
  const all = suites.flatMap((s) => s.cases);
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', { name: 'toolgate check', ...count(all) });
  for (const suite of suites) {
    const node = root.ele('testsuite', { name: suite.name, ...count(suite.cases) });
    for (const c of suite.cases) {
      const test = node.ele('testcase', { classname: c.classname, name: c.name });
      if (c.error) test.ele('error', { message: c.error.message, type: c.error.kind }).txt(c.error.message);
      if (c.findings?.length) test.ele('failure', { message: c.findings.join('; '), type: 'toolgate check' }).txt(c.findings.join('\n'));
      if (c.out) test.ele('system-out').txt(c.out);
    }
  }
  return `${root.end({ prettyPrint: true })}\n`;
}
