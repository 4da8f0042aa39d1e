//! The change log: each API call's writes as small records appended after the last snapshot,
//! so a call costs bytes in proportion to what it changed, not to the size of the store.
//!
//! A record is a `LOGR` section of the persisted format (see [`super::format`]) whose body is
//! a 4-byte checksum (the start of the payload's SHA-256) and the payload: one kind byte,
//! then the body. A store commit is written field by field ([`Writer`]): a tag per write,
//! strings and numbers as such, the records a write carries (a memory, a turn, …) as their
//! JSON, read back with the parsers the snapshot and the requests already use. (A serde form
//! of the whole batch would add ~60 KB to the npm wasm, which has a size budget.) Vector
//! upserts are a vector snapshot (compact f32s); the rest is small JSON. Loading replays the records in order over the snapshot; a record cut
//! short or failing its checksum at the very end is an append that never completed (it was
//! not acknowledged) and is dropped.

use super::format;
use hippo::conversation::Turn;
use hippo::error::PortError;
use hippo::ports::{PortResult, Store, VectorIndex, VectorItem, Write, WriteBatch};
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::time::Timestamp;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const LOG_SECTION: [u8; 4] = *b"LOGR";

const COMMIT: u8 = b'C';
const META: u8 = b'M';
const UPSERT: u8 = b'U';
const DELETE: u8 = b'D';
const DELETE_NPC: u8 = b'N';
const APPEND_TURNS: u8 = b'T';

#[derive(Serialize, Deserialize)]
struct Meta {
    key: String,
    value: String,
}

/// The log entries one `append_turns` call stored, each with the `seq` it was given.
#[derive(Serialize, Deserialize)]
struct AppendedTurns {
    npcid: String,
    turns: Vec<Turn>,
}

#[derive(Serialize, Deserialize)]
struct Deletion {
    npcid: String,
    #[serde(default)]
    ids: Vec<String>,
}

/// A store commit, as a framed record.
pub fn commit(npcid: &str, batch: &WriteBatch) -> PortResult<Vec<u8>> {
    let mut w = Writer(Vec::new());
    w.str(npcid);
    w.u64(batch.expect_version.map_or(0, |v| v.saturating_add(1)));
    w.u64(batch.writes.len() as u64);
    for write in &batch.writes {
        match write {
            Write::PutNpc(npc) => w.tag(0).json(npc)?,
            Write::DeleteNpc => w.tag(1),
            Write::SetPkgField {
                key,
                value,
                source_turns,
            } if source_turns.is_empty() => w.tag(2).str(key).json(value)?,
            // Its own tag, so a record of a value without links reads as before.
            Write::SetPkgField {
                key,
                value,
                source_turns,
            } => w.tag(15).str(key).json(value)?.strs(source_turns),
            Write::PutEntity { id, entity } => w.tag(3).str(id).json(entity)?,
            Write::DeleteEntity { id } => w.tag(4).str(id),
            Write::PutDaily { entry } => w.tag(5).json(entry)?,
            Write::DeleteDaily { date } => w.tag(6).str(date),
            Write::SetPrior { prior } => w.tag(7).str(prior),
            Write::PutTurn { turn } => w.tag(8).json(turn)?,
            Write::PutMemory { memory } => w.tag(9).json(memory)?,
            Write::DeleteMemory { id } => w.tag(10).str(id),
            Write::Touch { ids, at } => w.tag(11).strs(ids).u64(at.0 as u64),
            Write::SetWatermark { seq } => w.tag(12).u64(*seq),
            Write::PutToken { token } => w.tag(13).json(token)?,
            Write::DeleteToken { token_id } => w.tag(14).str(token_id),
        };
    }
    Ok(frame(COMMIT, &w.0))
}

fn read_commit(body: &[u8]) -> Result<(String, WriteBatch), String> {
    let mut r = Reader(body);
    let npcid = r.str()?;
    let expect_version = r.u64()?.checked_sub(1);
    let count = r.u64()?;
    let mut writes = Vec::new();
    for _ in 0..count {
        let write = match r.tag()? {
            0 => Write::PutNpc(r.json()?),
            1 => Write::DeleteNpc,
            2 => Write::SetPkgField {
                key: r.str()?,
                value: r.json()?,
                source_turns: Vec::new(),
            },
            15 => Write::SetPkgField {
                key: r.str()?,
                value: r.json()?,
                source_turns: r.strs()?,
            },
            3 => Write::PutEntity {
                id: r.str()?,
                entity: r.json()?,
            },
            4 => Write::DeleteEntity { id: r.str()? },
            5 => Write::PutDaily { entry: r.json()? },
            6 => Write::DeleteDaily { date: r.str()? },
            7 => Write::SetPrior { prior: r.str()? },
            8 => Write::PutTurn { turn: r.json()? },
            9 => Write::PutMemory { memory: r.json()? },
            10 => Write::DeleteMemory { id: r.str()? },
            11 => Write::Touch {
                ids: r.strs()?,
                at: Timestamp(r.u64()? as i64),
            },
            12 => Write::SetWatermark { seq: r.u64()? },
            13 => Write::PutToken { token: r.json()? },
            14 => Write::DeleteToken { token_id: r.str()? },
            other => return Err(format!("unknown write {other} in a log record")),
        };
        writes.push(write);
    }
    Ok((
        npcid,
        WriteBatch {
            writes,
            expect_version,
        },
    ))
}

/// A commit record's body: tags, length-prefixed strings, LE u64s, JSON of records.
struct Writer(Vec<u8>);

impl Writer {
    fn tag(&mut self, tag: u8) -> &mut Self {
        self.0.push(tag);
        self
    }
    fn u64(&mut self, value: u64) -> &mut Self {
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }
    fn str(&mut self, text: &str) -> &mut Self {
        self.u64(text.len() as u64);
        self.0.extend_from_slice(text.as_bytes());
        self
    }
    /// A count, then each string.
    fn strs(&mut self, texts: &[String]) -> &mut Self {
        self.u64(texts.len() as u64);
        for text in texts {
            self.str(text);
        }
        self
    }
    fn json<T: Serialize>(&mut self, value: &T) -> PortResult<&mut Self> {
        let text = serde_json::to_string(value)
            .map_err(|e| PortError::Backend(format!("cannot encode a log record: {e}")))?;
        Ok(self.str(&text))
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.0.len() < n {
            return Err("a log record is cut short".into());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn tag(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?.first().copied().unwrap_or_default())
    }
    fn u64(&mut self) -> Result<u64, String> {
        let bytes = self
            .take(8)?
            .first_chunk::<8>()
            .copied()
            .unwrap_or_default();
        Ok(u64::from_le_bytes(bytes))
    }
    fn str(&mut self) -> Result<String, String> {
        let len = usize::try_from(self.u64()?).map_err(|_| "a log record is too long")?;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|e| format!("a log record is not text: {e}"))
    }
    fn strs(&mut self) -> Result<Vec<String>, String> {
        let n = self.u64()?;
        (0..n).map(|_| self.str()).collect()
    }
    fn json<T: DeserializeOwned>(&mut self) -> Result<T, String> {
        let text = self.str()?;
        hippo::json::parse(&text).map_err(|e| format!("a log record does not parse: {e}"))
    }
}

pub fn meta(key: &str, value: &str) -> PortResult<Vec<u8>> {
    json(
        META,
        &Meta {
            key: key.to_string(),
            value: value.to_string(),
        },
    )
}

/// What an `append_turns` call stored (the entries it skipped as already stored are left
/// out). Replayed with `append_turns` on the same state, they get the same `seq`s again.
pub fn append_turns(npcid: &str, stored: Vec<Turn>) -> PortResult<Vec<u8>> {
    json(
        APPEND_TURNS,
        &AppendedTurns {
            npcid: npcid.to_string(),
            turns: stored,
        },
    )
}

pub fn upsert(npcid: &str, items: &[VectorItem]) -> PortResult<Vec<u8>> {
    Ok(frame(
        UPSERT,
        &MemoryVectorIndex::snapshot_of(npcid, items)?,
    ))
}

pub fn delete(npcid: &str, ids: &[String]) -> PortResult<Vec<u8>> {
    json(
        DELETE,
        &Deletion {
            npcid: npcid.to_string(),
            ids: ids.to_vec(),
        },
    )
}

pub fn delete_npc(npcid: &str) -> PortResult<Vec<u8>> {
    json(
        DELETE_NPC,
        &Deletion {
            npcid: npcid.to_string(),
            ids: Vec::new(),
        },
    )
}

fn json<T: Serialize>(kind: u8, body: &T) -> PortResult<Vec<u8>> {
    let bytes = serde_json::to_vec(body)
        .map_err(|e| PortError::Backend(format!("cannot encode a log record: {e}")))?;
    Ok(frame(kind, &bytes))
}

fn frame(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(body.len().saturating_add(1));
    payload.push(kind);
    payload.extend_from_slice(body);
    let mut record = checksum(&payload).to_vec();
    record.extend_from_slice(&payload);
    format::encode_section(LOG_SECTION, &record)
}

fn checksum(payload: &[u8]) -> [u8; 4] {
    let digest = Sha256::digest(payload);
    let mut sum = [0u8; 4];
    sum.copy_from_slice(digest.get(..4).unwrap_or_default());
    sum
}

/// The payload of a record body, or `None` if its checksum does not match (a torn write).
pub fn verify(record: &[u8]) -> Option<&[u8]> {
    let (sum, payload) = record.split_first_chunk::<4>()?;
    (checksum(payload) == *sum).then_some(payload)
}

/// Applies one record's payload to the loaded store and vectors.
pub async fn replay(
    payload: &[u8],
    store: &MemoryStore,
    vectors: &MemoryVectorIndex,
) -> Result<(), String> {
    let (kind, body) = payload.split_first().ok_or("an empty log record")?;
    // Read as text, as requests and the snapshot are: the parsers of the types a write carries
    // are then theirs (the npm wasm has a size budget).
    let text = || std::str::from_utf8(body).map_err(|e| format!("a log record is not text: {e}"));
    let parse = |e: serde_json::Error| format!("a log record does not parse: {e}");
    let port = |e: PortError| format!("a log record does not apply: {e}");
    match *kind {
        COMMIT => {
            let (npcid, batch) = read_commit(body)?;
            store.commit(&npcid, batch).await.map_err(port)
        }
        META => {
            let Meta { key, value } = hippo::json::parse(text()?).map_err(parse)?;
            store.set_meta(&key, &value).await.map_err(port)
        }
        APPEND_TURNS => {
            let AppendedTurns { npcid, turns } = hippo::json::parse(text()?).map_err(parse)?;
            let recorded: Vec<Option<u64>> = turns.iter().map(|t| Some(t.seq)).collect();
            let appended = store.append_turns(&npcid, turns).await.map_err(port)?;
            if appended.seqs != recorded {
                return Err("a log record's turns do not follow the stored log".into());
            }
            Ok(())
        }
        UPSERT => vectors.absorb(body).map_err(port),
        DELETE => {
            let Deletion { npcid, ids } = hippo::json::parse(text()?).map_err(parse)?;
            vectors.delete(&npcid, &ids).await.map_err(port)
        }
        DELETE_NPC => {
            let Deletion { npcid, .. } = hippo::json::parse(text()?).map_err(parse)?;
            vectors.delete_npc(&npcid).await.map_err(port)
        }
        other => Err(format!("unknown log record kind {other}")),
    }
}
