//! The backend test suites: one set of cases every [`Store`] implementation runs unchanged
//! (the in-memory store here, D1 inside the Worker, the persisted store of the npm package),
//! and one every [`VectorIndex`] runs ([`run_vector_suite`]: in memory, D1, Vectorize).
//!
//! Cases run against a store that may already hold other data: each case works on its own
//! NPCs, named from a per-run prefix, and checks that other NPCs are never touched.
//!
//! Cases by theme: `records` (NPC, PKG, entities, diary, log), `memories` (memories, lexical
//! search), `commutative` (appends and touches, which need no version guard), `access`
//! (tokens, leases, meta, deletion, isolation, listing).
//!
//! Test code: compiled only with the core's `testing` feature (the test builds of the
//! bindings turn it on), never into a production Worker or npm package.

use crate::conversation::{EntryKind, Role, Turn};
use crate::diary::DiaryEntry;
use crate::error::PortError;
use crate::memory::{Collection, Memory, MemoryType};
use crate::npc::Npc;
use crate::pkg::PkgValue;
use crate::ports::*;
use crate::relationship::Entity;
use crate::time::Timestamp;

pub type CaseResult = Result<(), String>;

macro_rules! check {
    ($cond:expr, $($msg:tt)+) => {
        let ok: bool = $cond;
        if !ok {
            return Err(format!($($msg)+));
        }
    };
}

macro_rules! port {
    ($e:expr) => {
        $e.await.map_err(|e| format!("{}: {e}", stringify!($e)))?
    };
}

pub(super) const T0: i64 = 1_775_606_400_000; // 2026-04-08T00:00:00Z

pub(super) fn npc(npcid: &str) -> Npc {
    Npc::new(npcid, Timestamp(T0))
}

pub(super) fn memory(id: &str, summary: &str, t: MemoryType, collection: Collection) -> Memory {
    Memory {
        confidence: 0.9,
        source: "test".into(),
        collection,
        ..Memory::new(id, t, summary, Timestamp(T0))
    }
}

pub(super) fn turn(seq: u64, session: Option<&str>, index: Option<u32>, content: &str) -> Turn {
    Turn {
        id: format!("turn_{seq}"),
        seq,
        session_id: session.map(str::to_string),
        turn_index: index,
        kind: EntryKind::Turn,
        role: Some(Role::User),
        content: content.to_string(),
        ts: Timestamp(T0 + seq as i64),
        emotion: None,
    }
}

pub(super) async fn create(store: &dyn Store, npcid: &str) -> CaseResult {
    let mut b = WriteBatch::new();
    b.push(Write::PutNpc(npc(npcid)));
    port!(store.commit(npcid, b));
    Ok(())
}

pub(super) async fn write(store: &dyn Store, npcid: &str, writes: Vec<Write>) -> CaseResult {
    port!(store.commit(
        npcid,
        WriteBatch {
            writes,
            expect_version: None
        }
    ));
    Ok(())
}

// Declared after the helpers and macros above, which the case modules use.
mod access;
mod commutative;
mod memories;
mod records;
mod vectors;

pub use vectors::run_vector_suite;

use access::*;
use commutative::*;
use memories::*;
use records::*;

/// Runs every case; returns each case's name and outcome. `prefix` keeps runs apart.
pub async fn run_store_suite(store: &dyn Store, prefix: &str) -> Vec<(String, CaseResult)> {
    let mut out = Vec::new();
    macro_rules! case {
        ($name:ident) => {
            out.push((stringify!($name).to_string(), $name(store, prefix).await));
        };
    }
    case!(npc_round_trip_and_versions);
    case!(expected_version_conflict_applies_nothing);
    case!(writes_need_an_npc);
    case!(pkg_fields_keep_their_order);
    case!(entities_put_and_delete);
    case!(diary_dailies_and_prior);
    case!(retrieval_view_matches_the_single_reads);
    case!(restored_turns_keep_their_seq);
    case!(appends_assign_contiguous_seqs_and_skip_replays);
    case!(touches_and_appends_leave_the_version);
    case!(guarded_rewrite_of_a_touched_memory_conflicts);
    case!(concurrent_appends_and_touches_all_land);
    case!(memories_filter_page_and_touch);
    case!(exact_texts_follow_writes);
    case!(lexical_search_and_stats);
    case!(lexical_search_skips_superseded);
    case!(tokens_by_hash);
    case!(lease_excludes_others_until_it_lapses);
    case!(meta_values);
    case!(delete_npc_removes_everything_of_it_only);
    case!(reads_are_scoped_by_npc);
    case!(list_npcs_pages_in_order);
    out
}

/// Panics with every failing case's message: for `#[test]` wrappers.
pub fn assert_all_pass(results: Vec<(String, CaseResult)>) {
    assert!(!results.is_empty(), "no case ran");
    let failures: Vec<String> = results
        .into_iter()
        .filter_map(|(name, r)| r.err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(
        failures.is_empty(),
        "suite failures:\n{}",
        failures.join("\n")
    );
}

pub async fn assert_store_suite(store: &dyn Store, prefix: &str) {
    assert_all_pass(run_store_suite(store, prefix).await);
}

pub async fn assert_vector_suite(index: &dyn VectorIndex, prefix: &str) {
    assert_all_pass(run_vector_suite(index, prefix).await);
}
