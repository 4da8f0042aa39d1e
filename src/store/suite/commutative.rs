//! Suite cases: the writes that need no version guard. Log appends (the store assigns `seq`)
//! and touches (in-place increments) commute with each other and with structural writes:
//! none of them is ever refused, lost or applied twice.

use super::*;
use futures_util::future::{join, join_all};

fn entry(session: Option<&str>, index: Option<u32>, content: &str) -> Turn {
    // The seq given is ignored by `append_turns`: 999 shows it.
    turn(999, session, index, content)
}

async fn version(store: &dyn Store, npcid: &str) -> Result<u64, String> {
    Ok(port!(store.npc(npcid)).ok_or("NPC missing")?.version)
}

fn touch(ids: &[&str], at: i64) -> Write {
    Write::Touch {
        ids: ids.iter().map(|id| id.to_string()).collect(),
        at: Timestamp(at),
    }
}

pub(super) async fn appends_assign_contiguous_seqs_and_skip_replays(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
    let id = format!("{p}append");
    check!(
        store
            .append_turns(&id, vec![entry(None, None, "x")])
            .await
            .is_err(),
        "append to a missing NPC succeeded"
    );
    create(store, &id).await?;
    let v = version(store, &id).await?;
    let first = port!(store.append_turns(
        &id,
        vec![
            entry(Some("s1"), Some(0), "你好"),
            entry(Some("s1"), Some(1), "hello"),
            entry(None, None, "no session"),
        ]
    ));
    check!(
        first.seqs == [Some(1), Some(2), Some(3)] && first.last_seq == 3,
        "first append {first:?}"
    );
    // A replay of s1/1 is skipped; s1/2 is new; within one call the second s2/0 is a replay.
    let second = port!(store.append_turns(
        &id,
        vec![
            entry(Some("s1"), Some(1), "hello again"),
            entry(Some("s1"), Some(2), "new"),
            entry(Some("s2"), Some(0), "other session"),
            entry(Some("s2"), Some(0), "twice in one call"),
            entry(None, None, "no session"),
        ]
    ));
    check!(
        second.seqs == [None, Some(4), Some(5), None, Some(6)] && second.last_seq == 6,
        "second append {second:?}"
    );
    let all_replayed = port!(store.append_turns(&id, vec![entry(Some("s1"), Some(0), "again")]));
    check!(
        all_replayed.seqs == [None] && all_replayed.last_seq == 6,
        "replay {all_replayed:?}"
    );
    let log = port!(store.turns(&id, 0, 100));
    let got: Vec<(u64, &str)> = log.iter().map(|t| (t.seq, t.content.as_str())).collect();
    check!(
        got == [
            (1, "你好"),
            (2, "hello"),
            (3, "no session"),
            (4, "new"),
            (5, "other session"),
            (6, "no session"),
        ],
        "log {got:?}"
    );
    check!(
        log[1].session_id.as_deref() == Some("s1") && log[1].turn_index == Some(1),
        "session fields {:?}",
        log[1]
    );
    check!(port!(store.last_seq(&id)) == 6, "last_seq");
    check!(
        version(store, &id).await? == v,
        "appends moved the NPC's version"
    );
    Ok(())
}

pub(super) async fn touches_and_appends_leave_the_version(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
    let id = format!("{p}noversion");
    create(store, &id).await?;
    write(
        store,
        &id,
        vec![Write::PutMemory {
            memory: memory("m", "tea", MemoryType::Preference, Collection::Memory),
        }],
    )
    .await?;
    let v = version(store, &id).await?;
    // A structural writer reads at v; a retrieval touches and a turn is appended meanwhile.
    write(store, &id, vec![touch(&["m", "unknown"], T0 + 10)]).await?;
    port!(store.append_turns(&id, vec![entry(None, None, "meanwhile")]));
    check!(
        version(store, &id).await? == v,
        "a touch or an append moved the version"
    );
    let mut guarded = WriteBatch::expecting(v);
    guarded.push(Write::SetPrior {
        prior: "computed at v".into(),
    });
    port!(store.commit(&id, guarded));
    check!(
        version(store, &id).await? > v,
        "a structural write kept the version"
    );
    // Touches commute: the later instant wins whatever the order they land in.
    write(store, &id, vec![touch(&["m"], T0 + 5)]).await?;
    let m = port!(store.memories_by_id(&id, &["m".into()]))
        .pop()
        .ok_or("m gone")?;
    check!(
        m.access_count == 2 && m.last_accessed_at == Timestamp(T0 + 10),
        "touches {m:?}"
    );
    Ok(())
}

pub(super) async fn guarded_rewrite_of_a_touched_memory_conflicts(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
    let id = format!("{p}rewrite");
    create(store, &id).await?;
    write(
        store,
        &id,
        vec![
            Write::PutMemory {
                memory: memory("a", "likes tea", MemoryType::Preference, Collection::Memory),
            },
            Write::PutMemory {
                memory: memory(
                    "b",
                    "likes jazz",
                    MemoryType::Preference,
                    Collection::Memory,
                ),
            },
        ],
    )
    .await?;
    let v = version(store, &id).await?;
    let read = port!(store.memories_by_id(&id, &["a".into(), "b".into()]));
    check!(read.len() == 2, "read {read:?}");
    write(store, &id, vec![touch(&["a"], T0 + 60_000)]).await?;
    // Rewriting `a` as read would drop the touch: the batch is refused whole.
    let mut stale = WriteBatch::expecting(v);
    for m in &read {
        let mut m = m.clone();
        m.encounter_count += 1;
        stale.push(Write::PutMemory { memory: m });
    }
    match store.commit(&id, stale).await {
        Err(PortError::Conflict(_)) => {}
        other => return Err(format!("stale rewrite gave {other:?}, want Conflict")),
    }
    let now = port!(store.memories_by_id(&id, &["a".into(), "b".into()]));
    check!(
        now[0].access_count == 1 && now.iter().all(|m| m.encounter_count == 1),
        "a write of the refused batch landed: {now:?}"
    );
    // Read again: the rewrite lands and keeps the touch; an untouched memory and a new one
    // go through a guarded batch as before.
    let mut fresh = WriteBatch::expecting(v);
    for mut m in now {
        m.encounter_count += 1;
        fresh.push(Write::PutMemory { memory: m });
    }
    fresh.push(Write::PutMemory {
        memory: memory("c", "new fact", MemoryType::Other, Collection::Memory),
    });
    port!(store.commit(&id, fresh));
    let after = port!(store.memories_by_id(&id, &["a".into(), "b".into(), "c".into()]));
    let got: Vec<(u32, u32)> = after
        .iter()
        .map(|m| (m.access_count, m.encounter_count))
        .collect();
    check!(got == [(1, 2), (0, 2), (0, 1)], "counts {got:?}");
    Ok(())
}

/// Many writers at once, as a live character and its dream produce them: every call lands.
pub(super) async fn concurrent_appends_and_touches_all_land(
    store: &dyn Store,
    p: &str,
) -> CaseResult {
    const SESSIONS: usize = 16;
    const TOUCHES: usize = 16;
    let id = format!("{p}parallel");
    create(store, &id).await?;
    let ids: Vec<String> = (0..4).map(|i| format!("m{i}")).collect();
    write(
        store,
        &id,
        ids.iter()
            .map(|m| Write::PutMemory {
                memory: memory(m, "shared", MemoryType::Other, Collection::Memory),
            })
            .collect(),
    )
    .await?;
    let v = version(store, &id).await?;
    let session = |s: usize| {
        let name = format!("session-{s}");
        vec![
            entry(Some(&name), Some(0), &format!("s{s} t0")),
            entry(Some(&name), Some(1), &format!("s{s} t1")),
        ]
    };
    // Every session sent twice at once (a client retrying), and touches among them.
    let appends = (0..2 * SESSIONS).map(|i| store.append_turns(&id, session(i % SESSIONS)));
    let touches = (0..TOUCHES).map(|i| {
        let mut batch = WriteBatch::new();
        batch.push(Write::Touch {
            ids: ids.clone(),
            at: Timestamp(T0 + i as i64),
        });
        store.commit(&id, batch)
    });
    let (appended, touched) = join(join_all(appends), join_all(touches)).await;
    let failed: Vec<String> = appended
        .iter()
        .filter_map(|r| r.as_ref().err())
        .chain(touched.iter().filter_map(|r| r.as_ref().err()))
        .map(|e| e.to_string())
        .collect();
    check!(failed.is_empty(), "refused: {failed:?}");
    let stored: usize = appended
        .iter()
        .flatten()
        .map(|a| a.seqs.iter().flatten().count())
        .sum();
    check!(
        stored == 2 * SESSIONS,
        "{stored} entries stored, want {}",
        2 * SESSIONS
    );
    let log = port!(store.turns(&id, 0, 1000));
    let seqs: Vec<u64> = log.iter().map(|t| t.seq).collect();
    check!(
        seqs == (1..=(2 * SESSIONS) as u64).collect::<Vec<_>>(),
        "seqs {seqs:?}"
    );
    let mut contents: Vec<&str> = log.iter().map(|t| t.content.as_str()).collect();
    contents.sort();
    let mut want: Vec<String> = (0..SESSIONS)
        .flat_map(|s| [format!("s{s} t0"), format!("s{s} t1")])
        .collect();
    want.sort();
    check!(contents == want, "contents {contents:?}");
    // One call's entries are adjacent, in order.
    for pair in log.chunks(2) {
        check!(
            pair[0].session_id == pair[1].session_id
                && pair[0].turn_index == Some(0)
                && pair[1].turn_index == Some(1),
            "a call's entries were split: {pair:?}"
        );
    }
    let memories = port!(store.memories_by_id(&id, &ids));
    check!(
        memories.iter().all(|m| m.access_count == TOUCHES as u32
            && m.last_accessed_at == Timestamp(T0 + TOUCHES as i64 - 1)),
        "touch counts {:?}",
        memories
            .iter()
            .map(|m| (m.access_count, m.last_accessed_at))
            .collect::<Vec<_>>()
    );
    check!(
        version(store, &id).await? == v,
        "appends or touches moved the version"
    );
    Ok(())
}
