// How `toolgate check` (and `./build.sh example`) show a palette: a table as
// the palette's rows read (docs/classes.md, "Badges"), and JUnit XML with one
// test case per tool (docs/ci.md).
import junitBuilder from 'junit-report-builder';
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

// JUnit XML for a check's pages (lib/check.mjs): a test suite per URL, a test
// case per tool or skill (named by it, its class name the site's host) that
// fails with its findings; a URL that did not load, or published nothing, is
// one test case in error. Expected tools no page registered make a last suite.
export function junit(pages, missing = [], expectFile = null) {
  const builder = junitBuilder.newBuilder();
  for (const page of pages) {
    const suite = builder.testSuite().name(page.url);
    if (page.error) {
      suite.testCase().className(hostOf(page.url)).name(page.error.what).error(page.error.message, page.error.kind);
      continue;
    }
    for (const { entry, findings } of page.tools) {
      const test = suite.testCase().className(hostOf(entry.site)).name(entry.name)
        .standardOutput(`${entry.badge}: ${entry.rule ?? 'a skill: listed, never called'}`);
      if (findings.length) test.failure(findings.join('; '), 'toolgate check').stacktrace(findings.join('\n'));
    }
  }
  if (missing.length) {
    const suite = builder.testSuite().name(`expected by ${expectFile}`);
    for (const { name, expected } of missing) {
      suite.testCase().className('expected').name(name)
        .failure(`expected ${expected}, but no page checked registered ${name}`, 'toolgate check');
    }
  }
  return builder.build();
}
