// Uncaught errors, and errors no caller can be told of, kept so that tests
// (and `self.toolgate.errors`) can fail on them. worker.js registers the two
// listeners on `self`; every module pushes to the same list.
export const errors = [];

// The text a failure is kept as: `when` it happened, then its stack.
export function keepError(when, error) {
  errors.push(`${when}: ${error?.stack ?? error}`);
}

export const onError = (e) => errors.push(String(e.error?.stack ?? e.message));
export const onUnhandledRejection = (e) => errors.push(String(e.reason?.stack ?? e.reason));
