#!/usr/bin/env node
// `npx hippo mcp --store FILE`: the package's command line. One command for now.
const [command, ...rest] = process.argv.slice(2);
if (command !== 'mcp') {
  process.stderr.write('usage: hippo mcp --store FILE [--npc NPCID] [--read-only]\n');
  process.exit(command === undefined || command === '--help' ? 0 : 2);
}
try {
  const { runStdio } = await import('./mcp.mjs');
  await runStdio(rest);
} catch (err) {
  process.stderr.write(`hippo mcp: ${err.message}\n`);
  process.exit(2);
}
