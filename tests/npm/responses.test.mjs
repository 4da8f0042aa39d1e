// The other half of types.test.mjs: what the package *returns*. index.d.ts and the OpenAPI
// response schemas are written by hand, so a scripted session (an NPC, a conversation, a dream,
// memories, every read) checks that each object the wasm build returns, at every depth, has
// exactly the properties its declared return type names (every required one present, none
// undeclared) and none the HTTP API's schema of the same shape lacks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { pkgDir, requireHippo, root } from './helpers.mjs';

const { Hippo } = requireHippo();
const DECLARATIONS = path.join(pkgDir, 'index.d.ts');
const program = ts.createProgram([DECLARATIONS], { strict: true, noEmit: true, types: [] });
const checker = program.getTypeChecker();
const source = program.getSourceFile(DECLARATIONS);
const hippoClass = source.statements.find((s) => ts.isClassDeclaration(s) && s.name?.text === 'Hippo');
const SCHEMAS = JSON.parse(readFileSync(path.join(root, 'worker', 'src', 'http', 'openapi_components.json'), 'utf8'));

/** The declared type a method's promise resolves to. */
function returned(method) {
  const member = hippoClass.members.find((m) => ts.isMethodDeclaration(m) && m.name.text === method);
  assert.ok(member, `${method} is not declared`);
  const signature = checker.getSignatureFromDeclaration(member);
  const promise = checker.getReturnTypeOfSignature(signature);
  return checker.getTypeArguments(promise)[0] ?? checker.getAwaitedType(promise);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array);

/** Differences between a value and a declared type, at every depth. */
function againstDeclared(value, type, where, out) {
  type = checker.getNonNullableType(type);
  if (Array.isArray(value)) {
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type)[0];
      value.forEach((v, i) => againstDeclared(v, element, `${where}[${i}]`, out));
    }
    return out;
  }
  if (!isObject(value)) return out;
  if (type.isUnion()) {
    // The member that fits best: the one with the fewest differences.
    const tries = type.types.map((t) => againstDeclared(value, t, where, []));
    tries.sort((a, b) => a.length - b.length);
    out.push(...(tries[0] ?? []));
    return out;
  }
  const index = checker.getIndexInfosOfType(type);
  if (index.length > 0) {
    for (const [k, v] of Object.entries(value)) againstDeclared(v, index[0].type, `${where}.${k}`, out);
    return out;
  }
  const declared = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]));
  if (declared.size === 0) return out;
  for (const [name, v] of Object.entries(value)) {
    const property = declared.get(name);
    if (!property) out.push(`${where}.${name} is returned but not declared`);
    else againstDeclared(v, checker.getTypeOfSymbol(property), `${where}.${name}`, out);
  }
  for (const [name, property] of declared) {
    const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
    if (!optional && !(name in value)) out.push(`${where}.${name} is declared required but not returned`);
  }
  return out;
}

/** Properties of a value that the OpenAPI schema does not describe, at every depth. */
function againstSchema(value, schema, where, out) {
  while (schema?.$ref) schema = SCHEMAS[schema.$ref.split('/').at(-1)];
  if (!schema) return out;
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) {
    const tries = alternatives.map((s) => againstSchema(value, s, where, []));
    tries.sort((a, b) => a.length - b.length);
    out.push(...(tries[0] ?? []));
    return out;
  }
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((v, i) => againstSchema(v, schema.items, `${where}[${i}]`, out));
    return out;
  }
  if (!isObject(value) || !schema.properties) {
    if (isObject(value) && isObject(schema.additionalProperties)) {
      for (const [k, v] of Object.entries(value)) againstSchema(v, schema.additionalProperties, `${where}.${k}`, out);
    }
    return out;
  }
  for (const [name, v] of Object.entries(value)) {
    if (!(name in schema.properties)) {
      if (schema.additionalProperties === false || schema.additionalProperties === undefined) {
        out.push(`${where}.${name} is returned but not in the schema`);
      }
    } else againstSchema(v, schema.properties[name], `${where}.${name}`, out);
  }
  return out;
}

test('every object the package returns has exactly the declared properties, and the HTTP schema knows them', async () => {
  let now = Date.parse('2026-04-08T10:00:00Z');
  const hippo = await Hippo.open({ storage: 'memory', clock: () => now });
  const calls = [];
  const call = async (method, schema, ...args) => {
    const value = await hippo[method](...args);
    calls.push({ method, schema, value });
    return value;
  };
  await call('createNpc', 'NpcView', 'n1', { display_name: 'Lin' });
  await call('getNpc', 'NpcView', 'n1');
  await call('listNpcs', 'NpcList');
  await call('addConversation', 'ConversationAppendResponse', 'n1', {
    session_id: 's1',
    turns: [
      { role: 'user', content: '我叫小林，我妹妹林可在杭州读大学。我对花生过敏。下周五我要去上海出差。', ts: '2026-04-08T09:00:00Z' },
      { role: 'assistant', content: '记住了，下周五出差要注意休息。', ts: '2026-04-08T09:01:00Z' },
      { role: 'user', content: "I love hiking, my friend Sam and I go every Saturday.", ts: '2026-04-08T09:02:00Z' },
    ],
  });
  await call('getConversation', 'ConversationView', 'n1');
  now = Date.parse('2026-04-09T03:00:00Z');
  await call('dream', 'DreamReport', 'n1');
  await call('getPkg', 'PkgView', 'n1');
  await call('updatePkg', 'PkgUpdateResponse', 'n1', { updates: [{ key: 'Hobbies', value: 'pottery' }] });
  await call('getRelationships', 'RelationshipView', 'n1');
  await call('applyEntityOps', 'EntityOpsResponse', 'n1', { ops: [{ op: 'add', name: 'Sam', title: ['friend'] }] });
  await call('getDiary', 'DiaryView', 'n1');
  const added = await call('addMemories', 'AddMemoriesResponse', 'n1', {
    memories: [{ type: 'preference', summary: 'The user likes green tea', importance: 0.6 }],
  });
  const list = await call('listMemories', 'MemoryList', 'n1');
  const id = added.results?.[0]?.id ?? list.memories[0].memory.id;
  await call('updateMemory', 'UpdateMemoryResponse', 'n1', id, { importance: 0.7 });
  await call('search', 'SearchResponse', 'n1', { query: '妹妹 大学', include_sources: true, debug: true });
  await call('retrieve', 'RetrievalResponse', 'n1', { query: '我妹妹在哪里读书？' });
  await call('brief', 'BriefResponse', 'n1', { query: 'hiking' });
  const exported = await call('exportNpc', 'NpcExport', 'n1');
  await call('importNpc', 'NpcView', 'n2', exported);
  await call('reembed', 'ReembedResponse');
  await call('deleteMemory', 'Ok', 'n1', id);
  await call('deleteNpc', 'Ok', 'n2');

  const found = [];
  for (const { method, schema, value } of calls) {
    againstDeclared(value, returned(method), `${method}()`, found);
    assert.ok(SCHEMAS[schema], `no schema ${schema}`);
    againstSchema(value, SCHEMAS[schema], `${method}() as ${schema}`, found);
  }
  assert.deepEqual(found, []);
  await hippo.close();
});
