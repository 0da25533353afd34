// Where an administrator's policy sends the audit (docs/rules.md, "Sending
// the audit where your team collects it"): `auditEndpoint`, an OTLP/HTTP
// endpoint, and `auditHeaders`, the headers each request carries
// (managed-schema.json). Read the same way by the worker, which sends
// (background/otlp.js), and by the settings page, which says so
// (ui/audit-otlp.js). Only the policy names one: a person cannot
// (docs/rules.md says why).

// Where this browser profile's `service.instance.id` is kept: made once by
// the worker, which sends it, and read by the settings page's export.
export const INSTANCE_KEY = 'audit_instance';

// A header's name (RFC 9110's token) and value (no line breaks), and how
// many a policy may give.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const HEADER_VALUE = /^[^\r\n\0]{0,8192}$/;
const MOST_HEADERS = 32;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

// {endpoint, headers} from a policy, or null when it names no endpoint or
// one that cannot be used: an https: URL, or http: on this machine only (a
// collector beside the browser), with no user name, password or query.
export function auditTarget(managed) {
  const named = managed?.auditEndpoint;
  if (typeof named !== 'string' || named.length > 2048) return null;
  let url;
  try {
    url = new URL(named);
  } catch {
    return null;
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  if (!secure || url.username || url.password || url.search || url.hash) return null;
  const given = managed.auditHeaders;
  const headers = {};
  if (given && typeof given === 'object' && !Array.isArray(given)) {
    for (const [name, value] of Object.entries(given).slice(0, MOST_HEADERS)) {
      if (HEADER_NAME.test(name) && typeof value === 'string' && HEADER_VALUE.test(value)) headers[name] = value;
    }
  }
  // OTLP/HTTP's signal paths are added to the base URL (`/v1/traces`, `/v1/logs`).
  return { endpoint: url.href.replace(/\/+$/, ''), headers };
}
