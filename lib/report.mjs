// How `toolgate check` (and `./build.sh example`) show a palette: a table as
// the palette's rows read (docs/classes.md, "Badges"), and JUnit XML with one
// test case per tool (docs/ci.md).
import { create } from 'xmlbuilder2';
import { entriesOf } from './tools.mjs';

const hostOf = (site) => {
  try {
    return new URL(site).host || site;
  } catch {
    return site;
  }
};

// The palette as a table: site, tool (title and name), the class badge with
// off-site where it applies, and the rule that decided the class.
export function table(palette) {
  const rows = entriesOf(palette).map((e) => [
    hostOf(e.site),
    e.title ? `${e.title} (${e.name})` : e.name,
    [e.badge, ...e.badges.filter((b) => b === 'off-site')].join(', '),
    e.rule ?? 'a skill: listed, never called',
  ]);
  const head = ['site', 'tool', 'badges', 'why'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [`Tools palette of ${palette.title} (${palette.url})`, '', line(head),
    line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

// JUnit XML for a check's pages (lib/check.mjs), in the shape the Jenkins
// JUnit schema gives (what Jenkins, GitLab and GitHub Actions' reporters
// read): a test suite per URL, a test case per tool or skill (named by it,
// its class name the site's host) that fails with its findings; a URL that
// did not load, or published nothing, is one test case in error. Expected
// tools no page registered make a last suite.
export function junit(pages, missing = [], expectFile = null) {
  const suites = pages.map((page) => ({
    name: page.url,
    cases: page.error
      ? [{ classname: hostOf(page.url), name: page.error.what, error: page.error }]
      : page.tools.map(({ entry, findings }) => ({
        classname: hostOf(entry.site),
        name: entry.name,
        findings,
        out: `${entry.badge}: ${entry.rule ?? 'a skill: listed, never called'}`,
      })),
  }));
  if (missing.length) {
    suites.push({
      name: `expected by ${expectFile}`,
      cases: missing.map(({ name, expected }) => ({
        classname: 'expected', name, findings: [`expected ${expected}, but no page checked registered ${name}`],
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
