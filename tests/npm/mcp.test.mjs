// The npm package's stdio MCP server (`hippo mcp --store FILE`), driven by the official
// TypeScript SDK client over stdio: list, call each tool, scope violations, malformed calls,
// persistence in the store file; and the `brief` method.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NAME, consumerDir, importHippo, tempDir } from './helpers.mjs';

const cli = () => path.join(consumerDir(), 'node_modules', ...NAME.split('/'), 'node', 'cli.mjs');
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

async function connect(args) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli(), 'mcp', ...args],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'hippo-npm-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const value = (result) => {
  assert.ok(!result.isError, JSON.stringify(result));
  return result.structuredContent;
};

test('the stdio server lists every tool and runs each over the store file', async () => {
  const store = path.join(tempDir('hippo-mcp-'), 'memory.hippo');
  const { Hippo } = await importHippo();
  const setup = await Hippo.open({ storage: { file: store } });
  await setup.createNpc('n1', { pkg: { Name: 'Ming', Address: '88 Jianguo Road, Beijing' } });
  await setup.close();

  const client = await connect(['--store', store]);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.deepEqual(tools, ['remember', 'recall', 'get_profile', 'brief', 'list_memories', 'update_memory', 'forget', 'dream']);
  const call = async (name, args) => value(await client.callTool({ name, arguments: { npcid: 'n1', ...args } }));
  const added = await call('remember', { fact: 'Ming drinks oolong tea every morning', type: 'preference' });
  const teaId = added.results[0].id;
  await call('remember', { turn: { role: 'user', content: "I'm allergic to mangoes. Remember this!" } });
  const dream = await call('dream', {});
  assert.ok(dream.report.extractions.memories.some((m) => m.pinned && /mango/i.test(m.summary)));
  assert.match((await call('recall', { query: 'oolong tea' })).memories[0].summary, /oolong/);
  assert.equal((await call('get_profile', {})).pkg.Name, 'Ming');
  const brief = await call('brief', { max_tokens: 80, lang: 'en' });
  assert.ok(brief.tokens <= 80);
  assert.match(brief.text, /mango/i);
  assert.ok((await call('list_memories', {})).memories.some((m) => m.id === teaId));
  assert.equal((await call('update_memory', { id: teaId, pinned: true })).memory.pinned, true);
  assert.equal((await call('forget', { id: teaId })).deleted, 1);
  const refused = await client.callTool({ name: 'forget', arguments: { npcid: 'n1', all: true } });
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /^invalid_request: .*confirm/);
  await client.close();

  // What the server wrote is in the file.
  const reopened = await Hippo.open({ storage: { file: store } });
  const list = await reopened.listMemories('n1', {});
  assert.ok(list.memories.some((m) => m.pinned && /mango/i.test(m.summary)));
  assert.ok(!list.memories.some((m) => m.id === teaId));
  await reopened.close();
});

test('--npc binds the server to one NPC; --read-only never writes; sensitive stays hidden', async () => {
  const store = path.join(tempDir('hippo-mcp-'), 'memory.hippo');
  const { Hippo } = await importHippo();
  const setup = await Hippo.open({ storage: { file: store } });
  await setup.createNpc('n1', { pkg: { Name: 'Ming', Address: '88 Jianguo Road, Beijing' } });
  await setup.createNpc('n2', {});
  await setup.addMemories('n1', { memories: [{ summary: 'Ming\'s bank card PIN is 4821', type: 'other' }] });
  await setup.close();

  const reader = await connect(['--store', store, '--npc', 'n1', '--read-only']);
  assert.deepEqual((await reader.listTools()).tools.map((t) => t.name), ['recall', 'get_profile', 'brief', 'list_memories']);
  const profile = value(await reader.callTool({ name: 'get_profile', arguments: {} }));
  assert.equal(profile.pkg.Address, undefined);
  const recall = value(await reader.callTool({ name: 'recall', arguments: { query: 'bank card PIN' } }));
  assert.ok(!JSON.stringify(recall).includes('4821'));
  const write = await reader.callTool({ name: 'remember', arguments: { fact: 'x', type: 'other' } });
  assert.equal(write.isError, true);
  assert.match(write.content[0].text, /^unauthorized: .*write scope/);
  const other = await reader.callTool({ name: 'recall', arguments: { npcid: 'n2', query: 'x' } });
  assert.equal(other.isError, true);
  assert.match(other.content[0].text, /bound to another NPC/);
  // Malformed calls.
  await assert.rejects(reader.callTool({ name: 'no_such_tool', arguments: {} }), (err) => err.code === -32602);
  const bad = await reader.callTool({ name: 'recall', arguments: { query: 5 } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^invalid_request/);
});

test('the command line refuses bad arguments with its usage', () => {
  for (const args of [['mcp'], ['mcp', '--store'], ['mcp', '--store', 'f', '--read-only'], ['mcp', '--bogus']]) {
    const run = spawnSync(process.execPath, [cli(), ...args], { encoding: 'utf8' });
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, /usage: hippo mcp --store FILE/);
    assert.equal(run.stdout, '', 'nothing but MCP messages on stdout');
  }
  assert.ok(existsSync(cli()));
});

test('brief() and pins through the package', async () => {
  const { Hippo } = await importHippo();
  const h = await Hippo.open({ storage: 'memory' });
  await h.createNpc('b', { pkg: { Name: '小明' } });
  const added = await h.addMemories('b', { memories: [
    { summary: '用户对花生过敏', type: 'constraint' },
    { summary: '用户的猫叫咪咪', type: 'history', importance: 0.2, pinned: true },
  ] });
  const brief = await h.brief('b', { max_tokens: 60 });
  assert.equal(brief.lang, 'zh');
  assert.ok(brief.tokens <= 60);
  assert.match(brief.text, /花生/);
  assert.ok(brief.items.some((i) => i.id === added.results[1].id && i.section === 'pinned'));
  await assert.rejects(h.brief('b', { max_tokens: 0 }), (err) => err.code === 'invalid_request');
  const unpinned = await h.updateMemory('b', added.results[1].id, { pinned: false });
  assert.equal(unpinned.memory.pinned, false);
  await h.close();
});
