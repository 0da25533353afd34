// The fixture from TypeScript: its types (playwright/index.d.ts in the
// package) are checked by `npm run typecheck` (tsc), which build.sh runs.
import { expect, test, type Tool, type Untrusted } from 'toolgate/playwright';

test('a TypeScript test reads the tools and calls one, typed', async ({ page, toolgate }) => {
  await page.goto('/notes/');
  const tools: Tool[] = await toolgate.tools(page);
  const readOnly = tools.filter((t) => t.class === 'Read only').map((t) => t.name);
  expect(readOnly).toEqual(['list_notes']);
  await expect(page).toHaveToolClass('add_note', 'Mutating');
  const call = await toolgate.call(page, 'add_note', { title: 'Typed', body: 'yes' }, { answer: ['Allow this call only'] });
  const decision: 'run' | 'refuse' = call.decision;
  expect(decision).toBe('run');
  const untrusted: Untrusted | null = call.untrusted;
  expect(untrusted).toBeNull();
});

// Never run: what tsc must refuse.
export function misuses(page: import('@playwright/test').Page) {
  // @ts-expect-error 'Harmless' is not a class
  void expect(page).toHaveToolClass('add_note', 'Harmless');
  void expect(page).toKeepItsHints('add_note', { title: 'Typed', body: 'yes' });
  // @ts-expect-error the arguments are an object
  void expect(page).toKeepItsHints('add_note', 'Typed');
}
