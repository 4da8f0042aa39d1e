// Types of the `@hippo-engine/hippo` package (index.d.ts for `import`, the same text as
// index.d.cts for `require`). Naming: methods and the options of `Hippo.open` are camelCase (JS
// API); every request and response is the JSON shape of the matching HTTP route of the Hippo
// Worker (snake_case fields, RFC 3339 timestamps), so documents move between the two unchanged.
// A request key the route does not know rejects with `invalid_request` naming it (and its
// snake_case spelling when that was meant). tests/npm/types.test.mjs checks this file against
// the wasm build: every method, and every request field with its type.

// ---- Opening ----

/** Where the memory lives. Every mutation is saved before its promise resolves. */
export type Storage =
  | 'memory'
  | { file: string }
  | { indexedDB: string }
  | StorageAdapter;

/** Your own persistence: the store as one byte string, optionally appended to. */
export interface StorageAdapter {
  /** The bytes last saved followed by every byte appended since, or null when nothing was
   * saved yet. */
  load(): Promise<Uint8Array | ArrayBuffer | null | undefined> | Uint8Array | ArrayBuffer | null | undefined;
  /** Replaces everything with the bytes (a snapshot); resolve only once they are durable. */
  save(bytes: Uint8Array): Promise<void> | void;
  /** Optional: adds the bytes (one call's changes) after what is stored; resolve only once
   * they are durable. Without it every call saves a whole snapshot. */
  append?(bytes: Uint8Array): Promise<void> | void;
  /** Called by `close()`. */
  close?(): Promise<void> | void;
}

/** What a text is embedded as: a search query, or a stored text (models such as
 * multilingual-e5 want `"query: "` / `"passage: "` prefixes; others ignore it). */
export type EmbedKind = 'query' | 'document';

/** `embed(texts, kind)`: one vector per text (normalized to unit length by Hippo). */
export type EmbedFunction = (
  texts: string[],
  kind: EmbedKind,
) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];

export interface EmbedderOptions {
  /** Recorded on first use; a store refuses a different embedder later. */
  name: string;
  dimension: number;
  embed: EmbedFunction;
  /** The model's cosine levels: conflict resolution's `duplicate` and `ambiguous`, and the
   * `relevant` similarity a memory found only by its vector needs to be returned. Default
   * {duplicate: 0.92, ambiguous: 0.78, relevant: 0.2} (general sentence embedders); for
   * multilingual-e5 use {duplicate: 0.985, ambiguous: 0.9, relevant: 0.75}. */
  thresholds?: { duplicate: number; ambiguous: number; relevant?: number };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | string;
  content: string;
}

export interface LlmOptions {
  /** A chat completion: the answer's text. */
  complete(messages: ChatMessage[], system: string): Promise<string> | string;
}

export interface HippoOptions {
  /** Default "memory" (nothing persisted). */
  storage?: Storage;
  /** A function (probed once for its dimension, named "custom") or a described embedder.
   * Without it the built-in deterministic embedder serves. */
  embed?: EmbedFunction | EmbedderOptions;
  /** Without it the built-in extractor and summarizer serve. */
  llm?: LlmOptions;
  /** Milliseconds since the epoch (or a Date). Default Date.now(). */
  clock?: () => number | Date;
}

export type HippoErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'unauthorized'
  | 'conflict'
  | 'request_too_large'
  | 'not_configured'
  | 'internal_error';

/** What every method rejects with: `message` is the HTTP API's, `code` its error code. */
export declare class HippoError extends Error {
  constructor(message: string, code: HippoErrorCode);
  readonly name: 'HippoError';
  readonly code: HippoErrorCode;
}

// ---- Shared shapes ----

/** Accepted on input: RFC 3339, "YYYY-MM-DD", or milliseconds since the epoch. */
export type TimeInput = string | number;

export type MemoryType =
  | 'preference'
  | 'style'
  | 'profile'
  | 'history'
  | 'project'
  | 'constraint'
  | 'relationship'
  | 'other';

export type PkgValue = string | string[] | boolean;
export type Pkg = Record<string, PkgValue>;

// ---- NPC ----

export interface NpcSettings {
  diary_window: number;
  /** Days a verbatim turn is kept; 0 (the default) keeps it as long as the NPC. */
  content_ttl_days: number;
  emotion_ttl_days: number;
}

export interface NpcUpsert {
  display_name?: string;
  /** Initial PKG fields, merged with the PKG update rules. */
  pkg?: Record<string, string | string[]>;
  voice_registered?: boolean;
  face_registered?: boolean;
  settings?: Partial<NpcSettings>;
}

export interface NpcView {
  npcid: string;
  display_name: string;
  created_at: Timestamp;
  voice_registered: boolean;
  face_registered: boolean;
  settings: NpcSettings;
  /** Present (true) when this call created the NPC. */
  created?: true;
}

export interface NpcList {
  npcs: NpcView[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: string;
}

// ---- PKG ----

export interface PkgView {
  npcid: string;
  pkg: Pkg;
  /** Field → ids of the turns a dream drew its current value from; only fields with links,
   * absent when none has any. */
  source_turns?: Record<string, string[]>;
}

export interface PkgUpdate {
  key: string;
  /** Multi-value fields accept an array or a comma-separated string. */
  value: string | string[];
}

// ---- Relationships ----

export interface Entity {
  name: string;
  alias: string[];
  title: string[];
  remark: string;
  /** Ids of the turns a dream drew the entity from (at most 64); absent when none. */
  source_turns?: string[];
}

export interface RelationshipView {
  npcid: string;
  /** `entity_001`, `entity_002`, … */
  relationship: Record<string, Entity>;
  count: number;
}

export interface EntityOp {
  op: 'add' | 'update' | 'delete';
  id?: string;
  name?: string;
  alias?: string[];
  title?: string[];
  remark?: string;
}

// ---- Diary ----

export interface DiaryEntry {
  /** YYYY-MM-DD */
  date: string;
  summary: string;
}

export interface DiaryView {
  npcid: string;
  prior: string;
  /** Newest first. */
  dailies: DiaryEntry[];
  count: number;
}

// ---- Conversation ----

export interface TurnInput {
  role: 'user' | 'assistant';
  content: string;
  ts?: TimeInput;
  /** Position in the session; defaults to the position in this request. */
  index?: number;
  emotion?: string;
}

export interface ConversationAppend {
  session_id?: string;
  turns: TurnInput[];
  summary?: string;
}

export interface Turn {
  id: string;
  seq: number;
  session_id?: string;
  turn_index?: number;
  kind: 'turn' | 'summary';
  role?: 'user' | 'assistant';
  content: string;
  ts: Timestamp;
  emotion?: string;
}

export interface ConversationView {
  npcid: string;
  turns: Turn[];
  watermark: number;
}

// ---- Session brief and MCP (issue 16) ----

export interface BriefRequest {
  /** Token budget, 1..32768 (default 500): 1 per CJK character, 1 per 4 Latin letters or
   * digits of a word, 1 per other visible character or line break. */
  max_tokens?: number;
  /** What the session is about: adds what is relevant to it. */
  query?: string;
  lang?: 'zh' | 'en';
}

export interface BriefResponse {
  npcid: string;
  lang: 'zh' | 'en';
  text: string;
  /** At most `max_tokens`. */
  tokens: number;
  max_tokens: number;
  items: {
    /** A memory id, `pkg:{field}`, `rel:{entity id}` or `diary:{date}`. */
    id: string;
    kind: 'memory' | 'pkg' | 'relationship' | 'diary' | 'conversation';
    section: 'user' | 'constraints' | 'people' | 'pinned' | 'relevant' | 'recent' | 'diary';
  }[];
}

/** Who calls an MCP tool: bound to one NPC with scopes (default read and write), or, without
 * `npcid`, the store's owner (every NPC; each call names its `npcid`). */
export interface McpCaller {
  npcid?: string;
  scopes?: ('retrieval' | 'read' | 'write')[];
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, boolean>;
}

// ---- Memories ----

export interface MemoryInput {
  summary: string;
  type: MemoryType;
  keywords?: string[];
  confidence?: number;
  importance?: number;
  source?: string;
  event_time?: TimeInput;
  expires_at?: TimeInput;
  /** Text the sensitivity detector flags is marked sensitive whatever this says. */
  sensitive?: boolean;
  /** Implies `sensitive`. */
  sensitive_category?: SensitiveCategory;
  /** Store it pinned (never decays out of retrieval, always in the brief). */
  pinned?: boolean;
}

export interface Memory {
  id: string;
  type: MemoryType;
  summary: string;
  keywords: string[];
  confidence: number;
  importance: number;
  source: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_accessed_at: Timestamp;
  access_count: number;
  encounter_count: number;
  event_time?: Timestamp;
  expires_at?: Timestamp;
  sensitive: boolean;
  sensitive_category?: SensitiveCategory;
  superseded_by?: string;
  /** Pinned: never decays below the active tier; always has a place in the brief. */
  pinned: boolean;
  collection: 'memory' | 'content' | 'emotion' | 'diary';
  emotion?: { label: string; intensity: number };
  /** Text around a record (e.g. a chunk's neighbouring turns): searched, never retrieved. */
  context?: string;
  /** Ids of the conversation turns the record came from (docs/LIFECYCLE.md). */
  source_turns?: string[];
}

export interface MemoryView extends Memory {
  /** Computed at read time: importance decayed by time since last access. */
  strength: number;
  tier: 'core' | 'active' | 'background' | 'archive';
}

/** `updateMemory`: the fields to change (at least one); unknown fields are refused. */
export interface MemoryPatch {
  /** Re-embeds the memory and updates the lexical index. */
  summary?: string;
  type?: MemoryType;
  keywords?: string[];
  importance?: number;
  /** `false` is refused while the summary holds what the sensitivity detector flags. */
  sensitive?: boolean;
  /** Implies `sensitive: true`. */
  sensitive_category?: SensitiveCategory;
  /** Pin (`true`) or unpin (`false`). */
  pinned?: boolean;
}

export interface UpdateMemoryResponse {
  status: 'ok';
  memory: MemoryView;
  /** Set when the new text is stored but its vector is not (embedding or index failure). */
  warning?: string;
}

export interface ListMemoriesQuery {
  types?: MemoryType[];
  collection?: 'memory' | 'content' | 'emotion' | 'diary' | 'all';
  include_superseded?: boolean;
  offset?: number;
  limit?: number;
}

export interface MemoryList {
  npcid: string;
  memories: MemoryView[];
  count: number;
  next_offset?: number;
}

/** Read as the HTTP route reads its body: the fields as in `RetrievalRequest`, unknown keys
 * ignored. */
export interface SearchRequest {
  query: string;
  /** A list, or one comma-separated string; unknown names are ignored. */
  memory_types?: MemoryType[] | string;
  /** Default 10, clamped to 1..50; a numeric string is read as its number. */
  max_results?: number | string;
  time_hint?: string;
  include_sensitive?: boolean;
  include_archived?: boolean;
  /** Adds each hit's signal contributions. */
  debug?: boolean;
  /** Adds to each hit `sources`: the conversation turns it came from. */
  include_sources?: boolean;
}

/** The memory_retrieval request (the NPC is the method's argument, not a token). */
/** Read exactly as the Worker reads a memory_retrieval body (SPEC §3.4): unknown keys are
 * ignored, a field of another type is ignored (except `query`), at most 16 KiB of JSON. */
export interface RetrievalRequest {
  query: string;
  live_id?: string | number;
  /** Logged by the Worker, never ranked. */
  reason?: string;
  /** A list, or one comma-separated string; unknown names are ignored. */
  memory_types?: MemoryType[] | string;
  time_hint?: string;
  /** Default 5, clamped to 1..10 (floored); a numeric string is read as its number. */
  max_results?: number | string;
}

// ---- Export / import ----

export interface NpcExport {
  format: 'hippo.npc';
  version: number;
  npc: NpcView & { next_entity_seq: number; watermark: number; version?: number };
  pkg: Pkg;
  /** The PKG fields' source links, as in `PkgView.source_turns`. */
  pkg_source_turns?: Record<string, string[]>;
  relationship: Record<string, Entity>;
  diary: { prior: string; dailies: DiaryEntry[] };
  turns: Turn[];
  memories: Memory[];
}

/** The answer of `reembed()` (its former name). */
export type ReembedResponse = ReembedReport;

// ---- Generated from the Rust wire types by `make contract` (src/contract.rs); do not edit ----

/** `{"status": "ok"}` plus nothing else. */
export interface StatusOk {
  status: 'ok';
}

/** Why a text is sensitive. */
export type SensitiveCategory =
  | 'credentials'
  | 'government_id'
  | 'finance'
  | 'health'
  | 'sexuality'
  | 'precise_location'
  | 'contact'
  | 'other';

export interface PkgUpdateResponse {
  status: 'ok';
  updated_fields: string[];
}

export interface EntityOpsResponse {
  status: 'ok';
  results: EntityOpResult[];
  count: number;
}

/** What each op did: `{op, id}` in request order. */
export interface EntityOpResult {
  op: string;
  id: string;
}

export interface ConversationAppendResponse {
  status: 'ok';
  appended: number;
  /** Turns already present (same session and index): not stored twice. */
  duplicates: number;
  last_seq: number;
}

export interface AddMemoriesResponse {
  status: 'ok';
  /** One per input, in order: the id and what conflict resolution did. */
  results: AddMemoryResult[];
  /**
   * Set when the memories are durable but not in the vector index (the embedding service
   * or the index failed): they are found lexically until the NPC's vectors are rebuilt.
   */
  warning?: string;
}

export interface AddMemoryResult {
  id: string;
  /** `inserted` | `reinforced` | `superseded` (the new one replaced `supersedes`). */
  action: 'inserted' | 'reinforced' | 'superseded';
  supersedes?: string;
  /**
   * Set when the stored memory is sensitive (asked for, detected, or inherited from the
   * memory it duplicates or replaces): memory_retrieval never returns it.
   */
  sensitive?: boolean;
  /** Why it is sensitive (docs/SECURITY.md, "Sensitivity model"). */
  sensitive_category?: 'credentials' | 'government_id' | 'finance' | 'health' | 'sexuality' | 'precise_location' | 'contact' | 'other';
}

export interface DreamReport {
  skipped: boolean;
  diary: DiaryReport | null;
  extractions: ExtractionReport | null;
  cleanup: CleanupReport | null;
  /** The stages' errors, joined by `; `. */
  error: string | null;
}

export interface DiaryReport {
  date: string;
  diary_text: string;
  prior_merged: boolean;
  overflow_count: number;
  dry_run?: boolean;
}

export interface ExtractionReport {
  entity_ops_count: number;
  pkg_updates_count: number;
  entity_ops: EntityOp[];
  pkg_updates: PkgUpdate[];
  rel_written: boolean;
  pkg_written: boolean;
  /**
   * Hippo's addition: typed memories the dream extracted, and what conflict resolution
   * did with each (`inserted`, `reinforced`, `superseded`).
   */
  memories: ExtractedMemoryReport[];
  memories_written: boolean;
  dry_run?: boolean;
}

export interface ExtractedMemoryReport {
  summary: string;
  type: MemoryType;
  importance: number;
  confidence: number;
  /** What conflict resolution did: `inserted`, `reinforced` or `superseded`. */
  action: string;
  /**
   * The stored memory is sensitive (the extractor's or the LLM's mark, the detector's
   * floor, or a sensitive duplicate).
   */
  sensitive?: boolean;
  /** Why it is sensitive (docs/SECURITY.md, "Sensitivity model"). */
  sensitive_category?: 'credentials' | 'government_id' | 'finance' | 'health' | 'sexuality' | 'precise_location' | 'contact' | 'other';
  /** Stored pinned: the user asked in that turn to remember it ("记住这件事"). */
  pinned?: boolean;
}

export interface CleanupReport {
  content_hybrid_deleted: number;
  emotion_v2_deleted: number;
  dry_run?: boolean;
}

export interface SearchResponse {
  memories: SearchHit[];
}

export interface SearchHit {
  id: string;
  summary: string;
  type: MemoryType;
  confidence: number;
  updated_at: Timestamp;
  source: string;
  score: number;
  /**
   * The item is sensitive (a stored mark or what the detector flags); only returned with
   * `include_sensitive`, never by memory_retrieval.
   */
  sensitive: boolean;
  /** Why it is sensitive (docs/SECURITY.md, "Sensitivity model"). */
  sensitive_category?: 'credentials' | 'government_id' | 'finance' | 'health' | 'sexuality' | 'precise_location' | 'contact' | 'other';
  /** With `debug`: each signal's contribution to the score. */
  signals?: Record<string, number>;
  /**
   * Only with `include_sources`: the item's first 5 source turns still kept, as the dream
   * kept them (docs/LIFECYCLE.md, "Source links"; no sensitive sentence, and without
   * `include_sensitive` no quote marked or detected sensitive); empty when none is kept.
   */
  sources?: SourceTurn[];
}

/** RFC 3339, e.g. "2026-04-08T10:00:00.000Z" (years 0000-9999). */
export type Timestamp = string;

/**
 * A turn an item came from: what was said, as the dream kept it (without the sentences the
 * sensitivity detector flags), who said it and when.
 */
export interface SourceTurn {
  turn_id: string;
  /** `user`, `assistant`, or `summary` (a session summary). */
  role: 'user' | 'assistant' | 'summary';
  /** When the turn was said. */
  ts: Timestamp;
  /**
   * The turn's words as kept: without the sentences the sensitivity detector flags, at
   * most 500 characters.
   */
  text: string;
}

export interface RetrievalResponse {
  memories: RetrievedMemory[];
}

export interface RetrievedMemory {
  id: string;
  summary: string;
  type: MemoryType;
  confidence: number;
  updated_at: Timestamp;
  source: string;
}

/** The npm package's `reembed()`: every NPC re-embedded, the pages summed. */
export interface ReembedReport {
  status: 'ok';
  /** `name:dimension` of the embedder now recorded. */
  embedder: string;
  /** How many vectors were written. */
  vectors: number;
}

// ---- End of the generated types ----

// ---- The class ----

export declare class Hippo {
  private constructor();

  /** Opens (and loads) a store. */
  static open(options?: HippoOptions): Promise<Hippo>;

  /** Creates the NPC, or updates its name, flags and settings (PUT /api/npc/{npcid}). */
  createNpc(npcid: string, request?: NpcUpsert): Promise<NpcView>;
  getNpc(npcid: string): Promise<NpcView>;
  /** Deletes the NPC and everything of it. */
  deleteNpc(npcid: string): Promise<StatusOk>;
  listNpcs(page?: { after?: string; limit?: number }): Promise<NpcList>;

  getPkg(npcid: string): Promise<PkgView>;
  updatePkg(npcid: string, request: { updates: PkgUpdate[] }): Promise<PkgUpdateResponse>;

  getRelationships(npcid: string): Promise<RelationshipView>;
  applyEntityOps(npcid: string, request: { ops: EntityOp[] }): Promise<EntityOpsResponse>;

  getDiary(npcid: string): Promise<DiaryView>;

  addConversation(npcid: string, request: ConversationAppend): Promise<ConversationAppendResponse>;
  getConversation(npcid: string, range?: { since?: number; limit?: number }): Promise<ConversationView>;

  /** Consolidates new conversation into diary, PKG, relationships and memories. */
  dream(npcid: string, options?: { dryRun?: boolean }): Promise<DreamReport>;

  addMemories(npcid: string, request: { memories: MemoryInput[] }): Promise<AddMemoriesResponse>;
  listMemories(npcid: string, query?: ListMemoriesQuery): Promise<MemoryList>;
  /** PATCH /api/memories/{npcid}/{id}: change summary, type, keywords, importance, sensitivity. */
  updateMemory(npcid: string, id: string, patch: MemoryPatch): Promise<UpdateMemoryResponse>;
  deleteMemory(npcid: string, id: string): Promise<StatusOk>;

  /** The ranked search of POST /api/memories/{npcid}/search. */
  search(npcid: string, request: SearchRequest): Promise<SearchResponse>;
  /** memory_retrieval semantics: what a live character may say (no sensitive memories). */
  retrieve(npcid: string, request: RetrievalRequest): Promise<RetrievalResponse>;
  /** POST /api/npc/{npcid}/brief: a session brief within a token budget, never sensitive. */
  brief(npcid: string, request: BriefRequest): Promise<BriefResponse>;

  /** The MCP tools `caller` may call (no `npcid`: every NPC, every tool). */
  mcpTools(caller?: McpCaller): McpTool[];
  /** Runs an MCP tool; rejects with the API's error codes. */
  callTool(caller: McpCaller, name: string, args: Record<string, unknown>): Promise<unknown>;

  exportNpc(npcid: string): Promise<NpcExport>;
  importNpc(npcid: string, document: NpcExport): Promise<NpcView>;

  /** Re-embeds every memory with the configured embedder (needed once after changing
   * `embed`; until then calls reject with `not_configured`). */
  reembed(): Promise<ReembedReport>;

  /** Resolves once every change so far is saved (mutations already wait for their own save). */
  flush(): Promise<void>;
  /** Flushes and releases the storage; later calls reject. */
  close(): Promise<void>;
}

/** Makes `{[kind]: …}` a valid `storage` option (the entry points register file / indexedDB). */
export declare function registerStorage(
  kind: string,
  factory: (option: Record<string, unknown>) => StorageAdapter | Promise<StorageAdapter>,
): void;

/** Node only: the adapter behind `{file: path}`. */
export declare function fileStorage(path: string): StorageAdapter;
/** Browsers only: the adapter behind `{indexedDB: name}`. */
export declare function indexedDBStorage(name: string, factory?: unknown): StorageAdapter;

/** Cloudflare Workers only (the `workerd` entry): a Durable Object's `ctx.storage` as storage.
 * Incremental (each call appends its changes); the object is the one writer. */
export declare function durableObjectStorage(storage: unknown, prefix?: string): StorageAdapter;
/** Cloudflare Workers only: one KV key holding the whole store, rewritten by each changing call.
 * Last write wins: never let two isolates write the same key (see pkg/README.md). */
export declare function kvStorage(namespace: unknown, key: string): StorageAdapter;
