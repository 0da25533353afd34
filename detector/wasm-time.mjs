// Times the detector in Wasm, as a proxy for the core's build: 100 KB of the
// held-out benign text (from run.sh's work folder) scored, best of 20.
// As the core's release profile builds it (opt-level z, LTO):
//   CARGO_PROFILE_RELEASE_OPT_LEVEL=z CARGO_PROFILE_RELEASE_LTO=true \
//     cargo rustc --release --lib --target wasm32-unknown-unknown --crate-type cdylib
//   node detector/wasm-time.mjs TARGET/wasm32-unknown-unknown/release/toolgate_detector.wasm \
//     $DETECTOR_WORK/weights.bin.100k.txt   (written by the trainer)
import { readFileSync } from 'node:fs';
const [wasmPath, textPath] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const { memory, text_buffer, best_score } = instance.exports;
const text = new TextEncoder().encode(readFileSync(textPath, 'utf8')).slice(0, 100_000);
const ptr = text_buffer(text.length);
new Uint8Array(memory.buffer, ptr, text.length).set(text);
let best = Infinity, score;
for (let i = 0; i < 20; i++) {
  const t0 = performance.now();
  score = best_score(ptr, text.length);
  best = Math.min(best, performance.now() - t0);
}
console.log(`${text.length} bytes: best of 20 ${best.toFixed(2)} ms (score ${score.toFixed(3)})`);
