// index.d.ts is written by hand, so this suite keeps it true to the wasm build: the methods of
// the `Hippo` class on both sides, and every field of every request type the declarations name,
// with a value of the declared type, accepted by the Rust request types (the package refuses
// unknown keys, so a field that exists only in the declarations is an error here). And
// TypeScript consumers, ESM and CommonJS, type-check under nodenext, node16 and bundler.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync, execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { consumerDir, pkgDir, requireHippo, root, tempDir } from './helpers.mjs';

const { Hippo } = requireHippo();
const DECLARATIONS = path.join(pkgDir, 'index.d.ts');
// What wasm-bindgen adds to every class, not part of the API.
const BINDGEN = new Set(['constructor', 'free', '__destroy_into_raw', '__wrap', 'length', 'name', 'prototype']);

const program = ts.createProgram([DECLARATIONS], { strict: true, noEmit: true, types: [] });
const checker = program.getTypeChecker();
const source = program.getSourceFile(DECLARATIONS);
const hippoClass = source.statements.find((s) => ts.isClassDeclaration(s) && s.name?.text === 'Hippo');

const declared = (isStatic) =>
  hippoClass.members
    .filter((m) => ts.isMethodDeclaration(m) && Boolean(m.modifiers?.some((k) => k.kind === ts.SyntaxKind.StaticKeyword)) === isStatic)
    .map((m) => m.name.text)
    .sort();
const runtime = (object) =>
  Object.getOwnPropertyNames(object)
    .filter((name) => !BINDGEN.has(name) && typeof object[name] === 'function')
    .sort();

test('index.d.ts declares exactly the methods the wasm build exports', () => {
  assert.deepEqual(declared(false), runtime(Hippo.prototype));
  assert.deepEqual(declared(true), runtime(Hippo));
});

/** A value of a declared type: every property of an object, one element of an array. */
function sample(type, name = '', depth = 0) {
  assert.ok(depth < 12, `the sample of ${name} nests too deep`);
  const alias = type.aliasSymbol?.name;
  if (alias === 'Timestamp' || alias === 'TimeInput') return '2026-04-01T10:00:00Z';
  if (name === 'date') return '2026-04-01';
  if (type.isUnion()) {
    const members = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
    if (members.every((t) => t.flags & ts.TypeFlags.BooleanLiteral)) return false;
    return sample(members[0], name, depth + 1);
  }
  if (type.isStringLiteral() || type.isNumberLiteral()) return type.value;
  if (type.flags & ts.TypeFlags.StringLike) return `${name || 'text'} sample`;
  if (type.flags & ts.TypeFlags.NumberLike) return 1;
  if (type.flags & ts.TypeFlags.BooleanLike) return false;
  if (checker.isArrayType(type)) return [sample(checker.getTypeArguments(type)[0], name, depth + 1)];
  if (checker.getIndexInfosOfType(type).length > 0) return {};
  const out = {};
  for (const property of checker.getPropertiesOfType(type)) {
    const propertyType = checker.getTypeOfSymbol(property);
    if (propertyType.getCallSignatures().length > 0) continue;
    out[property.name] = sample(propertyType, property.name, depth + 1);
  }
  return out;
}

const SERDE = /unknown field|invalid type|unknown variant|missing field|invalid value|invalid length/;

test('every declared request field, with its declared type, is one the wasm build reads', async () => {
  const hippo = await Hippo.open({ storage: 'memory', clock: () => Date.parse('2026-04-08T10:00:00Z') });
  let checked = 0;
  for (const member of hippoClass.members.filter(ts.isMethodDeclaration)) {
    if (member.modifiers?.some((k) => k.kind === ts.SyntaxKind.StaticKeyword)) continue;
    const method = member.name.text;
    const objects = member.parameters.filter((p) => checker.getTypeAtLocation(p).getProperties().length > 0);
    if (objects.length === 0) continue;
    const args = member.parameters.map((p) => {
      const type = checker.getNonNullableType(checker.getTypeAtLocation(p));
      return type.getProperties().length > 0 ? sample(type, p.name.text) : p.name.text === 'npcid' ? 'n1' : 'id1';
    });
    await hippo.createNpc('n1').catch(() => {});
    try {
      await hippo[method](...args);
    } catch (error) {
      assert.doesNotMatch(error.message, SERDE, `${method}(${JSON.stringify(args)})`);
    }
    checked += 1;
  }
  assert.ok(checked >= 10, `only ${checked} methods take request objects`);
});

// The request schemas of the HTTP API (worker/src/http/openapi_components.json) are the ones
// the package checks keys against, and a Rust test keeps them equal to the Rust types' fields.
const SCHEMAS = JSON.parse(readFileSync(path.join(root, 'worker', 'src', 'http', 'openapi_components.json'), 'utf8'));
const REQUESTS = {
  createNpc: 'NpcUpsert',
  updatePkg: 'PkgUpdateRequest',
  applyEntityOps: 'EntityOpsRequest',
  addConversation: 'ConversationAppend',
  addMemories: 'AddMemoriesRequest',
  search: 'SearchRequest',
  retrieve: 'RetrievalRequest',
  importNpc: 'NpcExport',
};

/** Differences between a declared type and a schema, at every depth both describe. */
function differences(type, schema, where, out = []) {
  while (schema.$ref) schema = SCHEMAS[schema.$ref.split('/').at(-1)];
  type = checker.getNonNullableType(type);
  if (schema.type === 'array' && schema.items && checker.isArrayType(type)) {
    return differences(checker.getTypeArguments(type)[0], schema.items, `${where}[]`, out);
  }
  if (!schema.properties || checker.getIndexInfosOfType(type).length > 0) return out;
  const declared = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, checker.getTypeOfSymbol(p)]));
  for (const name of Object.keys(schema.properties)) {
    if (!declared.has(name)) out.push(`${where}.${name} is read by the wasm build but not declared`);
    else differences(declared.get(name), schema.properties[name], `${where}.${name}`, out);
  }
  for (const name of declared.keys()) {
    if (!(name in schema.properties)) out.push(`${where}.${name} is declared but refused by the wasm build`);
  }
  return out;
}

test('every request type declares exactly the fields the wasm build reads, at every depth', () => {
  const found = [];
  for (const [method, shape] of Object.entries(REQUESTS)) {
    const member = hippoClass.members.find((m) => ts.isMethodDeclaration(m) && m.name.text === method);
    assert.ok(member, `${method} is not declared`);
    const parameter = member.parameters.at(-1);
    differences(checker.getTypeAtLocation(parameter), SCHEMAS[shape], `${method}(${shape})`, found);
  }
  assert.deepEqual(found, []);
});

test('TypeScript consumers, ESM and CommonJS, type-check under nodenext, node16 and bundler', () => {
  const dir = tempDir('hippo-ts-');
  const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
  execFileSync('ln', ['-s', path.join(consumerDir(), 'node_modules'), path.join(dir, 'node_modules')]);
  writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  const consumer = path.join(root, 'tests', 'npm', 'types', 'consumer.ts');
  for (const [module, resolution, files] of [
    ['nodenext', 'nodenext', ['consumer.mts', 'consumer.cts']],
    ['node16', 'node16', ['consumer.mts', 'consumer.cts']],
    ['esnext', 'bundler', ['consumer.ts']],
  ]) {
    for (const file of files) {
      copyFileSync(consumer, path.join(dir, file));
      const compilerOptions = { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022', 'DOM'], types: [], module, moduleResolution: resolution };
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [file] }));
      const run = spawnSync(tsc, ['-p', dir], { cwd: dir, encoding: 'utf8' });
      assert.equal(run.status, 0, `${file} under ${resolution}:\n${run.stdout}${run.stderr}`);
    }
  }
});
