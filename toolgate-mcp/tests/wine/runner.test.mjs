// The runner the Windows tests run under (runner.sh, build.sh's
// windows_tests): a binary Wine could not start (exit 66, nothing printed)
// runs once more; every other ending stands as it is. A stand-in `wine` on
// PATH plays each ending. `node --test toolgate-mcp/tests/wine/`.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const RUNNER = fileURLToPath(new URL("./runner.sh", import.meta.url));

/** Runs the runner with a `wine` that ends its Nth start as `endings[N]`
 * says ([status, what it prints]); the runner's status, output, and how
 * many times `wine` started. */
function run(endings) {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-runner-"));
  try {
    const script = endings
      .map(([status, printed], i) => `[ "$n" = ${i} ] && { printf '%s' '${printed}'; exit ${status}; }`)
      .join("\n");
    writeFileSync(
      join(dir, "wine"),
      `#!/usr/bin/env bash\nn=$(cat "${dir}/starts" 2>/dev/null || echo 0)\necho $((n + 1)) >"${dir}/starts"\n${script}\nexit 99\n`,
    );
    chmodSync(join(dir, "wine"), 0o755);
    const ran = spawnSync(RUNNER, ["test.exe", "--quiet"], {
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
      encoding: "utf8",
    });
    const starts = Number(readFileSync(join(dir, "starts"), "utf8"));
    return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr, starts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a binary Wine could not start runs once more, and that run's ending is the result", () => {
  const passed = run([[66, ""], [0, "running 2 tests"]]);
  assert.deepEqual([passed.status, passed.starts], [0, 2]);
  assert.match(passed.stderr, /wine could not start test\.exe .*once more/);
  const failed = run([[66, ""], [101, "running 2 tests"]]);
  assert.deepEqual([failed.status, failed.starts], [101, 2]);
  const twice = run([[66, ""], [66, ""]]);
  assert.deepEqual([twice.status, twice.starts], [66, 2], "a second failure to start stands");
});

test("a binary that printed anything, or failed otherwise, is never run again", () => {
  const started = run([[66, "running 2 tests"]]);
  assert.deepEqual([started.status, started.starts, started.stdout], [66, 1, "running 2 tests"]);
  assert.equal(started.stderr, "");
  const failed = run([[101, ""]]);
  assert.deepEqual([failed.status, failed.starts], [101, 1]);
  const passed = run([[0, "ok"]]);
  assert.deepEqual([passed.status, passed.starts], [0, 1]);
});
