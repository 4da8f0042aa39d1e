// The first example of pkg/README.md, run as a user would (saved as a file in a project that
// installed the package, run with node), twice: the same right answer first both times, and
// no turn stored twice.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { consumerDir, pkgDir, requireHippo, tempDir } from './helpers.mjs';

test('the README example, run twice, prints the allergy first and stores each turn once', async () => {
  const readme = readFileSync(path.join(pkgDir, 'README.md'), 'utf8');
  const example = readme.match(/```js\n([\s\S]*?)```/)[1];
  assert.match(example, /session_id/);
  const dir = tempDir('hippo-readme-');
  symlinkSync(path.join(consumerDir(), 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'example.mjs'), example);
  // What the example logs, as JSON (node prints arrays in its own notation).
  writeFileSync(path.join(dir, 'capture.mjs'), 'console.log = (value) => process.stdout.write(JSON.stringify(value) + "\\n");\n');
  const run = () => execFileSync(process.execPath, ['--import', './capture.mjs', 'example.mjs'], { cwd: dir, encoding: 'utf8' });
  const runs = [run(), run()].map((out) => JSON.parse(out));
  for (const printed of runs) assert.match(printed[0], /peanut/i, JSON.stringify(printed));
  assert.deepEqual(runs[1][0], runs[0][0]);

  const { Hippo } = requireHippo();
  const hippo = await Hippo.open({ storage: { file: path.join(dir, 'lingfei.hippo') } });
  const { turns } = await hippo.getConversation('lingfei');
  assert.equal(turns.length, 3, 'the second run stored no turn again');
  await hippo.close();
});
