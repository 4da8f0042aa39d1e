// `make dev` (scripts/dev.sh) printed the admin token into its output, which terminals and CI
// logs keep (issue 18, item 10). It now says where the token is. The script runs in a copy of
// its layout with the build and wrangler stubbed, so nothing is built or served.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

test("make dev says where the admin token is and never prints it", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "hippo-dev-"));
  try {
    mkdirSync(path.join(dir, "scripts"));
    mkdirSync(path.join(dir, "bin"));
    copyFileSync(path.join(root, "scripts/dev.sh"), path.join(dir, "scripts/dev.sh"));
    copyFileSync(path.join(root, ".dev.vars.example"), path.join(dir, ".dev.vars.example"));
    writeFileSync(path.join(dir, "scripts/build-worker.sh"), "exit 0\n");
    writeFileSync(path.join(dir, "bin/npx"), "#!/bin/sh\necho \"npx $*\"\n");
    chmodSync(path.join(dir, "bin/npx"), 0o755);
    const run = () =>
      execFileSync("bash", ["scripts/dev.sh"], {
        cwd: dir,
        env: { ...process.env, PATH: `${path.join(dir, "bin")}:${process.env.PATH}`, PORT: "8799" },
        encoding: "utf8",
      });
    for (const output of [run(), run()]) {
      const token = readFileSync(path.join(dir, ".dev.vars"), "utf8").match(/^HIPPO_ADMIN_TOKEN=(.+)$/m)[1];
      assert.match(token, /^dev-[0-9a-f]{32}$/);
      assert.ok(!output.includes(token), `the token is in the output:\n${output}`);
      assert.match(output, /admin token: HIPPO_ADMIN_TOKEN in .*\.dev\.vars/);
      assert.match(output, /npx wrangler dev --ip 127\.0\.0\.1 --port 8799/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
