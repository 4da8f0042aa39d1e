#!/usr/bin/env node
// Writes the fuzzers' committed seed corpora (fuzz/seeds/<target>/) and dictionaries
// (fuzz/dict/<target>.dict): extreme numbers, dates and time units in English and Chinese,
// so the class of input that once panicked ("100000000 days ago") is where the fuzzers
// start, not something they must stumble on. `node scripts/fuzz-seeds.mjs` rewrites both;
// scripts/fuzz.sh passes them to cargo fuzz.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// ---- the values ----
const COUNTS = [
  "0", "-0", "1", "-1", "00", "007", "3", "12", "99", "1000", "9999", "10000", "10001",
  "120000", "120001", "521775", "521776", "3652425", "3652426", "99999999", "100000000",
  "2147483647", "2147483648", "4294967295", "4294967296", "9007199254740993",
  "9223372036854775807", "9223372036854775808", "18446744073709551616", "1e308", "1e309",
  "-1e308", "5e-324", "0x10", "0xFFFFFFFF", "NaN", "Infinity", "-Infinity", "1.5", "1_000",
];
const EN_UNITS = ["day", "days", "week", "weeks", "month", "months", "year", "years"];
const ZH_UNITS = ["天前", "日前", "周前", "星期前", "个星期前", "礼拜前", "个礼拜前", "个月前", "月前", "年前"];
const ZH_NUMBERS = ["一", "两", "十", "十二", "九十九", "零", "〇", "十十", "九九九九九九九九九九"];
const DATES = [
  "0000-01-01", "9999-12-31", "10000-01-01", "262143-12-31", "+262143-12-31", "-262144-01-01",
  "2024-02-29", "2023-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "1970-01-01",
  "2026/4/8", "2026.4.8", "4294967295-4-8",
];
const INSTANTS = [
  "1970-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59-01:00",
  "0000-01-01T00:00:00+01:00", "2024-02-29T24:00:00Z", "2026-04-08T10:00:00.123456789+14:00",
];
const MILLIS = [
  0, -1, 253402300799999, 253402300800000, -62167219200000, -62167219200001, 9.2e18, -9.2e18,
  1e308, 0.5,
];
const PHRASES = [
  "今天", "昨天", "前天", "大前天", "明天", "后天", "大后天", "上周", "下周", "这周", "本周",
  "上个月", "这个月", "去年", "前年", "今年", "最近", "这几天", "today", "yesterday", "tomorrow",
  "the day before yesterday", "last week", "this week", "next week", "past week", "recently",
  "last month", "this month", "last year", "this year", "in May", "May 8", "8 May", "the 8th of May",
  "May 8th, 2023", "March 2024", "Sept", "下午三点半", "晚上7点", "10:30", "3pm", "at noon",
  "下周一", "星期天", "礼拜二", "next Friday", "last Monday", "12月31日", "2月29号", "13月40日",
];
const ODD = ["\u202E", "\u2066", "\u0000", "\u001b[31m", "\u2028", "\uFEFF", "\t", "\n"];

// ---- dictionaries: one token per line, libFuzzer syntax ----
const esc = (s) =>
  [...Buffer.from(s, "utf8")]
    .map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`))
    .join("");
const dictOf = (tokens) => [...new Set(tokens)].map((t) => `"${esc(t)}"`).join("\n") + "\n";

const TIME_TOKENS = [
  ...COUNTS, ...EN_UNITS, ...ZH_UNITS, ...ZH_NUMBERS, ...DATES, ...PHRASES, ...ODD,
  " ago", " days ago", "天前", "年", "月", "日", "号", "份", "周", "星期", "礼拜", "个", "点", "半", "一刻", "分",
  "a ", "an ", "one ", "of ", "the ", "th", "st", "nd", "rd", ", ", "in ", "since ", "during ",
];
const JSON_TOKENS = [
  "{", "}", "[", "]", ":", ",", "\"", "null", "true", "false", "\\u0000", "\\ud800", "\\u202e",
  ...MILLIS.map(String), ...COUNTS,
];
const ROUTES = [
  "list_npcs", "get_npc", "put_npc", "delete_npc", "get_pkg", "put_pkg", "get_relationship",
  "post_relationship", "get_diary", "dream", "append_conversation", "get_conversation",
  "add_memories", "list_memories", "update_memory", "delete_memory", "search_memories", "issue_token",
  "revoke_token", "export_npc", "import_npc", "rebuild_vectors", "retrieve", "clock",
];
const FIELDS = [
  "query", "time_hint", "max_results", "memory_types", "live_id", "reason", "updates", "key",
  "value", "ops", "op", "add", "update", "delete", "name", "alias", "title", "remark", "turns",
  "role", "user", "assistant", "content", "ts", "index", "session_id", "summary", "memories",
  "type", "keywords", "importance", "confidence", "source", "event_time", "expires_at",
  "sensitive", "sensitive_category", "credentials", "health", "include_sensitive", "include_archived", "debug", "ttl_seconds", "display_name",
  "pkg", "settings", "diary_window", "content_ttl_days", "format", "hippo.npc", "version",
  "limit", "since", "offset", "after", "dry_run", "types", "collection", "include_superseded",
  "entity_001", "Hobbies", "Name", "Nickname", "Favorite Books", "preference", "history",
];

// ---- seeds ----
// Every count with every unit, spread over the seeds: each seed holds several phrases (the
// parser reads them all), so a few hundred files cover the whole table.
const agoPhrases = [];
for (const n of COUNTS) {
  for (const u of EN_UNITS) agoPhrases.push(`what happened ${n} ${u} ago`);
  for (const u of ZH_UNITS) agoPhrases.push(`${n}${u}`);
}
for (const n of ZH_NUMBERS) for (const u of ZH_UNITS) agoPhrases.push(`${n}${u}`);
const ago = [];
for (let i = 0; i < agoPhrases.length; i += 4) ago.push(agoPhrases.slice(i, i + 4).join(", "));
const dateList = [
  ...DATES, ...INSTANTS, ...PHRASES,
  ...DATES.map((d) => `${d.replaceAll("-", "年").replace(/年(\d+)$/, "月$1日")}`),
  ...COUNTS.map((n) => `May 8, ${n}`), ...COUNTS.map((n) => `${n}年4月8日`), ...COUNTS.map((n) => `${n}号`),
  ...ODD.map((o) => `昨天${o}last week`),
  // Dates told as done move back a week, a month or a year (a day the month or year before
  // lacks stays ahead).
  ...COUNTS.map((n) => `${n}号我已经去了`), "2月29号我们去了北京", "31号我已经交了报告",
  "周六我们去爬山了", "元旦晚会上我们表演了魔术", "周末我们去了海边", "这周日我去了",
  "We went hiking on Saturday", "My wedding was on February 29", "It was on the 31st",
  // A day of a month counted from today's, and any four-digit year.
  ...COUNTS.map((n) => `8 May ${n}`), ...COUNTS.map((n) => `on the 31st of May, ${n}`),
  "on the 31st of next month", "on the 29th of last month", "on the 31st and 1st of this month",
  "on the 31st of the previous month", "on the 14th floor", "on the 8th, we met",
  // Gone by, a habit, a month in a year said after it.
  "I've been here since February 29th", "I left back in December", "we went in January last year",
  "every Monday, Wednesday and Friday", "in May of next year", ...COUNTS.map((n) => `in May ${n}`),
  "May 8, -123", "8 May -999", "on the 3rd of May, 0000",
];
const dateTexts = [];
for (let i = 0; i < dateList.length; i += 3) dateTexts.push(dateList.slice(i, i + 3).join(" / "));

const retrievalBodies = [
  ...ago.filter((_, i) => i % 2 === 0).map((q) => JSON.stringify({ query: q })),
  ...PHRASES.map((p) => JSON.stringify({ query: "hiking", time_hint: p })),
  ...COUNTS.map((n) => `{"query":"x","max_results":${/^-?[\d.e]+$/.test(n) ? n : JSON.stringify(n)}}`),
  JSON.stringify({ query: "x", memory_types: "preference,,other,bogus" }),
  JSON.stringify({ query: "\u202Ex", live_id: 1e308, reason: "\u0000" }),
];

const turns = (extra) => JSON.stringify({ session_id: "s", turns: [{ role: "user", content: "我明天下午三点去看牙医", ...extra }] });
const conversationBodies = [
  ...MILLIS.map((ts) => turns({ ts })),
  ...INSTANTS.map((ts) => turns({ ts })),
  turns({ index: 4294967295 }), turns({ index: 4294967294 }), turns({ index: -1 }),
  ...ago.filter((_, i) => i % 4 === 0).map((content) => turns({ content })),
  ...dateTexts.map((content) => JSON.stringify({ turns: [{ role: "user", content }] })),
];

const pkgBodies = [
  ...COUNTS.map((n) => `{"updates":[{"key":"Age","value":${/^-?[\d.e]+$/.test(n) ? n : JSON.stringify(n)}}]}`),
  JSON.stringify({ updates: ODD.map((o) => ({ key: `K${o}ey`, value: `v${o}` })) }),
  JSON.stringify({ updates: [{ key: "Hobbies", value: Array.from({ length: 12 }, (_, i) => `h${i}`) }] }),
];

const llmOutputs = [
  ...MILLIS.map((m) => JSON.stringify({ entity_ops: [], pkg_updates: [], memories: [{ summary: "s", type: "history", importance: m, confidence: m }] })),
  ...[...DATES, ...INSTANTS].map((t) => JSON.stringify({ entity_ops: [], pkg_updates: [], memories: [{ summary: "s", type: "history", event_time: t }] })),
];

const R = String.fromCharCode(0x1e);
const req = (head, query, body) => `${head}\n${query}\n${body}`;
const seq = (...requests) => requests.join(R);
const exportDoc = (memory) =>
  JSON.stringify({
    format: "hippo.npc", version: 1,
    npc: { npcid: "f", display_name: "F", created_at: 0, voice_registered: false, face_registered: false, settings: {}, next_entity_seq: 2, watermark: 0 },
    pkg: { Name: "x" }, relationship: { entity_001: { name: "A" } }, diary: { prior: "", dailies: [{ date: "2024-02-29", summary: "d" }] },
    turns: [{ id: "t1", seq: 1, kind: "turn", role: "user", content: "hi", ts: 0 }],
    memories: [{ id: "m1", type: "history", summary: "s", confidence: 0.5, importance: 0.5, source: "x", created_at: 0, updated_at: 0, last_accessed_at: 0, ...memory }],
  });
const httpSequences = [
  ...ago.filter((_, i) => i % 2 === 0).map((q) => req("retrieve f", "", JSON.stringify({ query: q }))),
  ...PHRASES.map((p) => req("search_memories f", "", JSON.stringify({ query: "hiking", time_hint: p, max_results: 1e308 }))),
  ...conversationBodies.filter((_, i) => i % 2 === 0).map((b) => seq(req("append_conversation f", "", b), req("dream f", "", ""))),
  ...MILLIS.map((m) => req("add_memories f", "", JSON.stringify({ memories: [{ summary: "s", type: "other", event_time: m, expires_at: m, importance: m }] }))),
  ...MILLIS.map((m) => seq(req("clock", "", String(m)), req("retrieve f", "", '{"query":"昨天 last week 3 days ago"}'), req("dream f", "", ""), req("issue_token f", "", '{"ttl_seconds":315360000}'))),
  ...["importance", "confidence"].flatMap((f) => MILLIS.map((m) => req("import_npc f", "", exportDoc({ [f]: m })))),
  ...["", ".", "..", "x/../y", "a".repeat(65), "\u202E"].map((id) => seq(req("import_npc f", "", exportDoc({ id })), req(`delete_memory f ${id}`, "", ""))),
  ...[
    { importance: 1e308 }, { importance: -0.0 }, { summary: "" }, { summary: "x".repeat(2001) },
    { summary: "\u202Emy password is hunter2xyz", sensitive: false }, { sensitive: false, sensitive_category: "health" },
    { sensitive_category: "bogus" }, { type: "bogus" }, { keywords: Array.from({ length: 33 }, (_, i) => `k${i}`) },
    {}, { bogus: 1 }, { summary: "我的银行卡密码是123456", keywords: [""], sensitive: true },
  ].map((patch) => seq(req("import_npc f", "", exportDoc({})), req("update_memory f m1", "", JSON.stringify(patch)), req("retrieve f", "", '{"query":"password"}'))),
  ...["", ".", "..", "x/../y", "missing"].map((id) => req(`update_memory f ${id}`, "", '{"importance":0.5}')),
  ...[".", "..", "", "a b", "__demo_01"].map((npcid) => req(`put_npc ${npcid}`, "", "{}")),
  ...["limit=18446744073709551615", "limit=4294967297&after=", "limit=0", "limit=-1", "limit=1e3"].map((q) => req("list_npcs", q, "")),
  ...["since=18446744073709551615&limit=4294967297", "since=-1", "limit=0x10"].map((q) => req("get_conversation f", q, "")),
  ...["offset=18446744073709551615&limit=1", "types=preference,,bogus&collection=all&include_superseded=TRUE", "collection=\u0000"].map((q) => req("list_memories f", q, "")),
  ...["dry_run=1", "dry_run=maybe", "dry_run=TRUE"].map((q) => req("dream f", q, "")),
  ...pkgBodies.map((b) => req("put_pkg f", "", b)),
  req("post_relationship f", "", JSON.stringify({ ops: [{ op: "add", name: "\u202EAnna", alias: ["x".repeat(201)] }, { op: "delete", id: "entity_999" }] })),
  req("put_npc g", "", JSON.stringify({ display_name: "G", pkg: { Name: "x", "Bad\nKey": 1e308 }, settings: { diary_window: 4294967295 } })),
  seq(req("export_npc f", "", ""), req("delete_npc f", "", ""), req("rebuild_vectors f", "", ""), req("get_diary f", "", "")),
  req("revoke_token f tok_0000000000000000", "", ""),
];

// ---- write ----
const targets = {
  time_expression: { seeds: [...ago, ...dateTexts], dict: TIME_TOKENS },
  retrieval_request: { seeds: retrievalBodies, dict: [...JSON_TOKENS, ...FIELDS, ...TIME_TOKENS] },
  conversation_append: { seeds: conversationBodies, dict: [...JSON_TOKENS, ...FIELDS, ...TIME_TOKENS] },
  pkg_updates: { seeds: pkgBodies, dict: [...JSON_TOKENS, ...FIELDS] },
  tokenizer: { seeds: [...ago.filter((_, i) => i % 2 === 0), ...dateTexts], dict: TIME_TOKENS },
  llm_output: { seeds: llmOutputs, dict: [...JSON_TOKENS, ...FIELDS, ...DATES, ...INSTANTS] },
  http_request: { seeds: httpSequences, dict: [...ROUTES, ...JSON_TOKENS, ...FIELDS, ...TIME_TOKENS, R, "\n"] },
};
rmSync(path.join(root, "fuzz/seeds"), { recursive: true, force: true });
mkdirSync(path.join(root, "fuzz/dict"), { recursive: true });
for (const [target, { seeds, dict }] of Object.entries(targets)) {
  const dir = path.join(root, "fuzz/seeds", target);
  mkdirSync(dir, { recursive: true });
  for (const seed of new Set(seeds)) {
    const name = createHash("sha1").update(seed).digest("hex").slice(0, 16);
    writeFileSync(path.join(dir, name), seed);
  }
  writeFileSync(path.join(root, "fuzz/dict", `${target}.dict`), dictOf(dict));
  console.log(`${target}: ${new Set(seeds).size} seeds, ${new Set(dict).size} dictionary tokens`);
}
