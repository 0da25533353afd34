// The audit as tests read it (docs/rules.md, "Every site, side by side, and
// the audit"): every entry, oldest first, from the worker's CI API once the
// worker appended one that matches `want`. It waits on the audit's channel
// (the worker tells it after each batch: shared/audit-db.js), never on a clock.
//
// `want`: { what, tool?, site?, id? (its request's id), log? ('person' | 'agents'), error? (a
// RegExp source the entry's error matches), why? (text its why holds) }.
// Resolves with the entries of `want.what` (in `want.log`, if given).
export async function auditOnce(sw, want) {
  return sw.evaluate(async (w) => {
    const matches = (entry) => entry.what === w.what
      && (w.log === undefined || entry.chain.log === w.log)
      && (w.tool === undefined || entry.tool === w.tool)
      && (w.site === undefined || entry.site === w.site)
      && (w.id === undefined || entry.request_id === w.id)
      && (w.error === undefined || new RegExp(w.error).test(entry.error ?? ''))
      && (w.why === undefined || (typeof entry.why === 'string' && entry.why.includes(w.why)));
    const channel = new BroadcastChannel('toolgate-audit');
    try {
      for (;;) {
        const appended = new Promise((resolve) => { channel.onmessage = resolve; });
        const entries = await self.toolgate.auditEntries();
        if (entries.some(matches)) {
          return entries.filter((entry) => entry.what === w.what && (w.log === undefined || entry.chain.log === w.log));
        }
        await appended;
      }
    } finally {
      channel.close();
    }
  }, want);
}
