//! A [`WriteBatch`] as one D1 `batch()`: a single transaction, so it lands whole or not at all.
//!
//! Layout of the statements:
//! 1. preconditions (the `commit_guard` table): the expected version and, in a guarded
//!    batch, the access counts of the memories it replaces; and that the NPC exists when the
//!    batch writes to it without creating it. A failed precondition inserts a row that
//!    breaks a named CHECK, which aborts the batch;
//! 2. one or more statements per write, in order;
//! 3. the version bump (when a write [moves it](Write::moves_version): touches do not), and
//!    the memory revision bump (when memory rows changed: migration 0003).
//!
//! Log appends are not a batch of writes: [`append`] compiles `Store::append_turns`.

use super::bind::{self, *};
use super::lexical::lexical_document;
use super::rows::{kind_name, role_name};
use hippo::conversation::Turn;
use hippo::error::PortError;
use hippo::memory::strength::ACCESS_BOOST;
use hippo::ports::{Write, WriteBatch};
use hippo::relationship::entity_number;
use wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement};

/// Tables that hold rows of an NPC and go when it is deleted. Vector rows belong to the
/// vector index (its `delete_npc`).
const NPC_TABLES: [&str; 9] = [
    "pkg_fields",
    "entities",
    "diary_dailies",
    "turns",
    "memories",
    // After `memories`: its delete trigger leaves tombstones, which go too.
    "memory_tombstones",
    "tokens",
    "leases",
    "npcs",
];

/// The memory revision the commit will have when it lands (its bump is the last statement),
/// stamped on every memory row it writes so isolates can catch up by `rev` (migrations 0002,
/// 0003). Separate from the version: touches move it, and must not move the version.
const NEXT_MEMORY_REV: &str = "(SELECT memory_rev FROM npcs WHERE npcid = ?1) + 1";

/// `(id, access_count)` pairs per access-guard statement (two parameters each, plus the npcid).
const ACCESS_GUARD_PAIRS: usize = (bind::MAX_PARAMS - 1) / 2;

/// Whether the write changes memory rows (and so the memory revision).
fn writes_memories(write: &Write) -> bool {
    matches!(
        write,
        Write::PutMemory { .. } | Write::DeleteMemory { .. } | Write::Touch { .. }
    )
}

/// Whether the NPC exists at a point of the batch: known from an earlier write of the
/// batch, or only from the database.
#[derive(Clone, Copy, PartialEq)]
enum Existence {
    FromDatabase,
    Known(bool),
}

pub fn compile(
    db: &D1Database,
    npcid: &str,
    batch: &WriteBatch,
) -> Result<Vec<D1PreparedStatement>, PortError> {
    let mut out = Vec::with_capacity(batch.writes.len() + 3);
    if let Some(expected) = batch.expect_version {
        out.push(statement(
            db,
            "INSERT INTO commit_guard (version_ok, npc_ok) SELECT 0, 1 \
             WHERE (SELECT version FROM npcs WHERE npcid = ?1) IS NOT ?2",
            &[text(npcid), uint(expected)],
        )?);
        push_access_guards(db, npcid, batch, &mut out)?;
    }
    let mut existence = Existence::FromDatabase;
    let mut needs_existing = false;
    for write in &batch.writes {
        match write {
            Write::PutNpc(_) => existence = Existence::Known(true),
            Write::DeleteNpc => existence = Existence::Known(false),
            Write::PutToken { token } if token.npcid != npcid => {
                return Err(PortError::Backend("token of another NPC".into()))
            }
            _ => match existence {
                Existence::FromDatabase => needs_existing = true,
                Existence::Known(true) => {}
                Existence::Known(false) => {
                    return Err(PortError::Backend(format!("NPC {npcid} does not exist")))
                }
            },
        }
        push_write(db, npcid, write, &mut out)?;
    }
    if needs_existing {
        // Precondition 1b: goes first, before anything of the batch ran.
        out.insert(0, npc_must_exist(db, npcid)?);
    }
    if batch.writes.iter().any(Write::moves_version) {
        out.push(statement(
            db,
            "UPDATE npcs SET version = version + 1 WHERE npcid = ?1",
            &[text(npcid)],
        )?);
    }
    if batch.writes.iter().any(writes_memories) {
        out.push(statement(
            db,
            "UPDATE npcs SET memory_rev = memory_rev + 1 WHERE npcid = ?1",
            &[text(npcid)],
        )?);
    }
    Ok(out)
}

/// A guarded batch replaces memories as it read them: if one was touched since (its
/// `access_count` moved), the batch is a version conflict and the writer reads again. Not the
/// memories after a `DeleteNpc` in the batch (an import): they replace nothing it read.
fn push_access_guards(
    db: &D1Database,
    npcid: &str,
    batch: &WriteBatch,
    out: &mut Vec<D1PreparedStatement>,
) -> Result<(), PortError> {
    let replaced: Vec<(&str, u32)> = batch
        .writes
        .iter()
        .take_while(|w| !matches!(w, Write::DeleteNpc))
        .filter_map(|w| match w {
            Write::PutMemory { memory } => Some((memory.id.as_str(), memory.access_count)),
            _ => None,
        })
        .collect();
    for chunk in replaced.chunks(ACCESS_GUARD_PAIRS) {
        let rows: Vec<String> = (0..chunk.len())
            .map(|i| format!("(?{}, ?{})", 2 + 2 * i, 3 + 2 * i))
            .collect();
        let mut params = vec![text(npcid)];
        for (id, count) in chunk {
            params.push(text(id));
            params.push(uint(u64::from(*count)));
        }
        out.push(statement(
            db,
            &format!(
                "INSERT INTO commit_guard (version_ok, npc_ok) SELECT 0, 1 WHERE EXISTS \
                 (SELECT 1 FROM memories m JOIN (VALUES {}) AS w ON m.id = w.column1 \
                 WHERE m.npcid = ?1 AND m.access_count != w.column2)",
                rows.join(", ")
            ),
            &params,
        )?);
    }
    Ok(())
}

/// `Store::append_turns` as one batch: the NPC must exist; each entry takes the next `seq`
/// inside its own INSERT (so concurrent appends never collide) unless its
/// `(session_id, turn_index)` is stored already (the unique index `turns_session_index`),
/// and says which `seq` it got (`RETURNING`); the last statement reads the log's end.
/// Neither the version nor the memory revision moves: nothing cached or guarded changed.
pub fn append(
    db: &D1Database,
    npcid: &str,
    turns: &[Turn],
) -> Result<Vec<D1PreparedStatement>, PortError> {
    let mut out = Vec::with_capacity(turns.len() + 2);
    out.push(npc_must_exist(db, npcid)?);
    for turn in turns {
        let (sql, params) = insert_turn(npcid, turn, None);
        out.push(statement(db, &sql, &params)?);
    }
    out.push(statement(
        db,
        "SELECT COALESCE(MAX(seq), 0) AS seq FROM turns WHERE npcid = ?1",
        &[text(npcid)],
    )?);
    Ok(out)
}

/// One log entry's INSERT: under `seq`, or (`None`) under the next `seq` of the log, computed
/// inside the statement so concurrent appends never collide. Skipped when its session holds
/// its index already (the unique index `turns_session_index`; entries without a session never
/// collide); `RETURNING` says the `seq` it got. A `seq` that is taken fails the batch.
fn insert_turn(npcid: &str, turn: &Turn, seq: Option<u64>) -> (String, Vec<JsValue>) {
    let mut params = vec![
        text(npcid),
        text(&turn.id),
        opt_text(turn.session_id.as_deref()),
        opt_int(turn.turn_index.map(i64::from)),
        text(kind_name(turn.kind)),
        opt_text(turn.role.map(role_name)),
        text(&turn.content),
        int(turn.ts.ms()),
        opt_text(turn.emotion.as_deref()),
    ];
    let seq_value = match seq {
        Some(seq) => {
            params.push(uint(seq));
            "?10"
        }
        None => "COALESCE((SELECT MAX(seq) FROM turns WHERE npcid = ?1), 0) + 1",
    };
    // `WHERE true`: SQLite's upsert after INSERT … SELECT needs a WHERE to parse.
    let sql = format!(
        "INSERT INTO turns (npcid, seq, id, session_id, turn_index, kind, role, content, ts, \
         emotion) SELECT ?1, {seq_value}, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE true \
         ON CONFLICT (npcid, session_id, turn_index) DO NOTHING RETURNING seq"
    );
    (sql, params)
}

/// The precondition that the NPC exists (`npc_missing`), to run before anything else.
fn npc_must_exist(db: &D1Database, npcid: &str) -> Result<D1PreparedStatement, PortError> {
    statement(
        db,
        "INSERT INTO commit_guard (version_ok, npc_ok) SELECT 1, 0 \
         WHERE NOT EXISTS (SELECT 1 FROM npcs WHERE npcid = ?1)",
        &[text(npcid)],
    )
}

fn push_write(
    db: &D1Database,
    npcid: &str,
    write: &Write,
    out: &mut Vec<D1PreparedStatement>,
) -> Result<(), PortError> {
    let id = text(npcid);
    let mut push = |sql: &str, params: Vec<JsValue>| -> Result<(), PortError> {
        out.push(statement(db, sql, &params)?);
        Ok(())
    };
    match write {
        Write::PutNpc(npc) => push(
            "INSERT INTO npcs (npcid, display_name, created_at, voice_registered, \
             face_registered, settings, next_entity_seq, watermark, incarnation) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, lower(hex(randomblob(8)))) \
             ON CONFLICT (npcid) DO UPDATE SET display_name = excluded.display_name, \
             created_at = excluded.created_at, voice_registered = excluded.voice_registered, \
             face_registered = excluded.face_registered, settings = excluded.settings, \
             next_entity_seq = excluded.next_entity_seq, watermark = excluded.watermark",
            vec![
                id,
                text(&npc.display_name),
                int(npc.created_at.ms()),
                flag(npc.voice_registered),
                flag(npc.face_registered),
                json(&npc.settings),
                uint(npc.next_entity_seq as u64),
                uint(npc.watermark),
            ],
        )?,
        Write::DeleteNpc => {
            for table in NPC_TABLES {
                push(
                    &format!("DELETE FROM {table} WHERE npcid = ?1"),
                    vec![id.clone()],
                )?;
            }
        }
        Write::SetPkgField {
            key,
            value,
            source_turns,
        } => push(
            // A new field goes after the existing ones; an existing one keeps its place.
            "INSERT INTO pkg_fields (npcid, key, value, position, source_turns) VALUES (?1, ?2, \
             ?3, (SELECT COALESCE(MAX(position), -1) + 1 FROM pkg_fields WHERE npcid = ?1), ?4) \
             ON CONFLICT (npcid, key) DO UPDATE SET value = excluded.value, \
             source_turns = excluded.source_turns",
            vec![id, text(key), json(value), json(source_turns)],
        )?,
        Write::PutEntity {
            id: entity_id,
            entity,
        } => push(
            "INSERT INTO entities (npcid, id, num, name, alias, title, remark, source_turns) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
             ON CONFLICT (npcid, id) DO UPDATE SET num = excluded.num, name = excluded.name, \
             alias = excluded.alias, title = excluded.title, remark = excluded.remark, \
             source_turns = excluded.source_turns",
            vec![
                id,
                text(entity_id),
                uint(entity_number(entity_id).map_or(u32::MAX as u64, u64::from)),
                text(&entity.name),
                json(&entity.alias),
                json(&entity.title),
                text(&entity.remark),
                json(&entity.source_turns),
            ],
        )?,
        Write::DeleteEntity { id: entity_id } => push(
            "DELETE FROM entities WHERE npcid = ?1 AND id = ?2",
            vec![id, text(entity_id)],
        )?,
        Write::PutDaily { entry } => push(
            "INSERT INTO diary_dailies (npcid, date, summary) VALUES (?1, ?2, ?3) \
             ON CONFLICT (npcid, date) DO UPDATE SET summary = excluded.summary",
            vec![id, text(&entry.date), text(&entry.summary)],
        )?,
        Write::DeleteDaily { date } => push(
            "DELETE FROM diary_dailies WHERE npcid = ?1 AND date = ?2",
            vec![id, text(date)],
        )?,
        Write::SetPrior { prior } => push(
            "UPDATE npcs SET diary_prior = ?2 WHERE npcid = ?1",
            vec![id, text(prior)],
        )?,
        Write::PutTurn { turn } => {
            let (sql, params) = insert_turn(npcid, turn, Some(turn.seq));
            push(&sql, params)?
        }
        Write::PutMemory { memory: m } => {
            let doc = lexical_document(m);
            push(
                &format!(
                    "INSERT INTO memories (npcid, id, collection, type, summary, keywords, \
                 confidence, importance, source, created_at, updated_at, last_accessed_at, \
                 access_count, encounter_count, event_time, expires_at, sensitive, \
                 superseded_by, emotion, context, lex, lex_ctx, lex_len, sensitive_category, \
                 source_turns, pinned, rev) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, \
                 ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, \
                 {NEXT_MEMORY_REV}) \
                 ON CONFLICT (npcid, id) DO UPDATE SET collection = excluded.collection, \
                 type = excluded.type, summary = excluded.summary, \
                 keywords = excluded.keywords, confidence = excluded.confidence, \
                 importance = excluded.importance, source = excluded.source, \
                 created_at = excluded.created_at, updated_at = excluded.updated_at, \
                 last_accessed_at = excluded.last_accessed_at, \
                 access_count = excluded.access_count, \
                 encounter_count = excluded.encounter_count, \
                 event_time = excluded.event_time, expires_at = excluded.expires_at, \
                 sensitive = excluded.sensitive, superseded_by = excluded.superseded_by, \
                 emotion = excluded.emotion, context = excluded.context, lex = excluded.lex, \
                 lex_ctx = excluded.lex_ctx, lex_len = excluded.lex_len, \
                 sensitive_category = excluded.sensitive_category, \
                 source_turns = excluded.source_turns, pinned = excluded.pinned, \
                 rev = excluded.rev"
                ),
                vec![
                    id,
                    text(&m.id),
                    text(m.collection.as_str()),
                    text(m.memory_type.as_str()),
                    text(&m.summary),
                    json(&m.keywords),
                    real(m.confidence),
                    real(m.importance),
                    text(&m.source),
                    int(m.created_at.ms()),
                    int(m.updated_at.ms()),
                    int(m.last_accessed_at.ms()),
                    uint(m.access_count as u64),
                    uint(m.encounter_count as u64),
                    opt_int(m.event_time.map(|t| t.ms())),
                    opt_int(m.expires_at.map(|t| t.ms())),
                    flag(m.sensitive),
                    opt_text(m.superseded_by.as_deref()),
                    m.emotion.as_ref().map_or(JsValue::NULL, json),
                    text(&m.context),
                    text(&doc.lex),
                    text(&doc.ctx),
                    real(doc.len),
                    opt_text(m.sensitive_category.map(|c| c.as_str())),
                    json(&m.source_turns),
                    flag(m.pinned),
                ],
            )?
        }
        Write::DeleteMemory { id: memory_id } => push(
            "DELETE FROM memories WHERE npcid = ?1 AND id = ?2",
            vec![id, text(memory_id)],
        )?,
        Write::Touch { ids, at } => {
            // In place, so touches commute and none is lost (SPEC §2.2); no version bump.
            for chunk in ids.chunks(bind::MAX_PARAMS - 2) {
                let mut params = vec![id.clone(), int(at.ms())];
                params.extend(chunk.iter().map(|m| text(m)));
                push(
                    &format!(
                        "UPDATE memories SET access_count = access_count + 1, \
                         last_accessed_at = MAX(last_accessed_at, ?2), \
                         importance = importance + (1 - importance) * {ACCESS_BOOST}, \
                         rev = {NEXT_MEMORY_REV} WHERE npcid = ?1 AND id IN ({})",
                        placeholders(3, chunk.len())
                    ),
                    params,
                )?;
            }
        }
        Write::SetWatermark { seq } => push(
            "UPDATE npcs SET watermark = MAX(watermark, ?2) WHERE npcid = ?1",
            vec![id, uint(*seq)],
        )?,
        Write::PutToken { token } => push(
            "INSERT INTO tokens (token_id, npcid, token_hash, created_at, expires_at, scopes) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
             ON CONFLICT (npcid, token_id) DO UPDATE SET token_hash = excluded.token_hash, \
             created_at = excluded.created_at, expires_at = excluded.expires_at, \
             scopes = excluded.scopes",
            vec![
                text(&token.token_id),
                id,
                text(&token.token_hash),
                int(token.created_at.ms()),
                opt_int(token.expires_at.map(|t| t.ms())),
                text(
                    &token
                        .scopes
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                ),
            ],
        )?,
        Write::DeleteToken { token_id } => push(
            "DELETE FROM tokens WHERE npcid = ?1 AND token_id = ?2",
            vec![id, text(token_id)],
        )?,
    }
    Ok(())
}
