// One of the checker's workers (extension/checker/checker.js): the core's
// check of an agent's arguments (src/page/schema.rs: the count, then the
// validator of extension/background/arguments.js, each `pattern` on the core's
// linear-time engine), on this worker's own thread, which the checker
// terminates at its deadline. build.sh bundles this into pkg/checker-worker.js.
import init, { checkArguments } from '../../pkg/toolgate.js';
import { checkArguments as validate } from '../background/arguments.js';

// The core's validator (src/wasm/schema.rs imports it by this name).
globalThis.toolgateCheckArguments = validate;

init({ module_or_path: new URL('toolgate_bg.wasm', self.location.href) }).then(() => {
  self.onmessage = ({ data }) => {
    // A check that never ends, asked for by the test of the deadline only
    // (`self.toolgate.stallChecker`): the checker must stop this worker.
    if (data.stall === true) for (;;);
    self.postMessage({ verdict: JSON.parse(checkArguments(data.schema, data.arguments)) });
  };
  self.postMessage({ started: true });
}, (error) => self.postMessage({ failed: String(error) }));
