// Types of `toolgate/playwright` (docs/ci.md), for TypeScript tests.
import type {
  Expect, ExpectMatcherState, MatcherReturnType, Page, PlaywrightTestArgs, PlaywrightTestOptions,
  PlaywrightWorkerArgs, PlaywrightWorkerOptions, TestType,
} from '@playwright/test';

export type ToolClass = 'Read only' | 'Mutating' | 'Consequential';

export interface LintNote {
  kind: 'undeclared' | 'decided_by_default' | 'unreadable' | 'outside_annotations' | 'contradictory' | 'legacy_api' | 'proposed_subset';
  severity: 'error' | 'warning';
  text: string;
}

export interface Tool {
  name: string;
  title: string | null;
  kind: 'tool' | 'skill';
  /** null for skills */
  class: ToolClass | null;
  badge: ToolClass | 'Skill';
  badges: Array<'off-site' | 'idempotent' | 'untrusted content' | 'debugging'>;
  /** the deciding rule in words; null for skills */
  rule: string | null;
  lints: LintNote[];
  site: string;
  description: string;
  path: string;
}

/** Why Toolgate holds a call's result for untrusted content (the reply's `_meta.toolgate.result_untrusted`). */
export interface Untrusted {
  /** addressed: it holds a phrase addressed to the agent's model; hidden: text people cannot see;
   * declared: its tool declares untrustedContentHint: true; flagged: its tool broke its hints */
  because: 'addressed' | 'hidden' | 'declared' | 'flagged';
  /** the phrase, when addressed */
  phrase?: string;
  /** at most 200 characters of the result, as the page wrote them */
  excerpt: string;
}

export interface Call {
  decision: 'run' | 'refuse';
  why: string;
  isError: boolean;
  /** the tool's structured result, else its text */
  result: unknown;
  text: string;
  /** why its result is untrusted content, or null */
  untrusted: Untrusted | null;
  cards: Array<{ heading: string; answer: string }>;
}

export interface Toolgate {
  tools(page: Page, options?: { settleMs?: number; timeoutMs?: number }): Promise<Tool[]>;
  call(page: Page, name: string, args?: Record<string, unknown>, options?: { answer?: string | string[] }): Promise<Call>;
}

export interface ToolgateOptions {
  /** the Chromium to run; else CHROMIUM, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH, Playwright's own, the usual paths */
  browser?: string;
  /** turn on Chromium's own WebMCP as well */
  native?: boolean;
  /** fail a test on an uncaught error in a page (default true) */
  failOnPageErrors?: boolean;
}

export const test: TestType<
  PlaywrightTestArgs & PlaywrightTestOptions & { toolgate: Toolgate; toolgateOptions: ToolgateOptions },
  PlaywrightWorkerArgs & PlaywrightWorkerOptions
>;

export const expect: Expect<{
  /** Toolgate classes the page's tool `name` as `cls`. */
  toHaveToolClass(this: ExpectMatcherState, page: Page, name: string, cls: ToolClass | 'Skill'): Promise<MatcherReturnType>;
  /** Every tool on the page declares all five class hints (form tools aside). */
  toDeclareAllHints(this: ExpectMatcherState, page: Page): Promise<MatcherReturnType>;
  /**
   * The page's tool `name`, called with `args` as an agent calls it (each card answered
   * "Allow this call only"), keeps its hints: nothing changed while it said Read only, no
   * other site reached while it said openWorldHint: false, and nothing in its result addressed to
   * the agent's model or hidden from people unless it declares untrustedContentHint: true.
   * Fails naming what it did or what its result said.
   */
  toKeepItsHints(this: ExpectMatcherState, page: Page, name: string, args?: Record<string, unknown>): Promise<MatcherReturnType>;
}>;
