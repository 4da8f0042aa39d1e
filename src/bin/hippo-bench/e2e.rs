//! The product path of `hippo-bench locomo` (the default `--mode e2e`): each conversation is one
//! NPC in an in-memory Hippo with the built-in engines, used as an app uses it —
//! `append_conversation` for each session at its time, a dream after it (`--dreams nightly`,
//! the default: once a night, at 03:00 after the last session of a day; or `session`: right
//! after each session), then `retrieve` (memory_retrieval, `max_results` 10) at the question's
//! date (LongMemEval's `question_date`) or the day after the last session.
//!
//! An evidence turn counts as found ("derived", the headline) when a returned item is that turn
//! or a typed memory whose `source_turns` include it; "strict" counts the turn itself only.
//! Diary days link to all of a day's turns and never count. memory_retrieval returns at most 10
//! items, so end to end r@20 equals r@10.

use crate::dream::{block_on, in_memory};
use crate::locomo::{Conversation, Tally};
use hippo::api::{ConversationAppend, NpcUpsert, RetrievalRequest, TurnInput};
use hippo::engine::MAX_TURN_CHARS;
use hippo::memory::Collection;
use hippo::ports::Store;
use hippo::retrieval::query::Speaker;
use hippo::time::Timestamp;
use hippo::Hippo;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

pub(crate) const HOUR_MS: i64 = 3_600_000;
pub(crate) const DAY_MS: i64 = 24 * HOUR_MS;

/// When dreams run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DreamSchedule {
    Nightly,
    AfterSession,
}

impl DreamSchedule {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "nightly" => Ok(DreamSchedule::Nightly),
            "session" => Ok(DreamSchedule::AfterSession),
            other => Err(format!("--dreams is nightly or session, not {other:?}")),
        }
    }
}

/// What the product path measured over all conversations.
#[derive(Default)]
pub struct Product {
    derived: Tally,
    strict: Tally,
    items: Vec<usize>,
    chars: Vec<usize>,
    append: Vec<Duration>,
    dream: Vec<Duration>,
    retrieve: Vec<Duration>,
    dream_errors: usize,
}

/// 03:00 of the day after `t` (UTC): the nightly dream of `t`'s day.
pub(crate) fn night_after(t: Timestamp) -> Timestamp {
    Timestamp((t.ms().div_euclid(DAY_MS) + 1) * DAY_MS + 3 * HOUR_MS)
}

impl Product {
    pub fn evaluate(
        &mut self,
        conv: &Conversation,
        index: usize,
        schedule: DreamSchedule,
        dump: Option<&str>,
    ) -> Result<(), String> {
        let npcid = format!("conv{index}");
        let (hippo, store, clock) = in_memory();
        let first = conv.items.first().map_or(Timestamp(0), |i| i.time);
        clock.set(Timestamp(first.ms() - DAY_MS));
        // What an app knows when it creates the character: its name and its user's.
        let mut pkg = indexmap::IndexMap::new();
        if let Some(user) = conv.names.user.first() {
            pkg.insert("Name".to_string(), json!(user));
        }
        let upsert = NpcUpsert {
            display_name: conv.names.character.first().cloned(),
            pkg: Some(pkg),
            ..NpcUpsert::default()
        };
        block_on(hippo.upsert_npc(&npcid, upsert)).map_err(|e| e.to_string())?;

        let mut sessions: Vec<(u32, Vec<usize>)> = Vec::new();
        for (i, item) in conv.items.iter().enumerate() {
            match sessions.last_mut() {
                Some((s, members)) if *s == item.session => members.push(i),
                _ => sessions.push((item.session, vec![i])),
            }
        }
        for (n, (session, members)) in sessions.iter().enumerate() {
            let start = conv.items[members[0]].time;
            let turns: Vec<TurnInput> = members
                .iter()
                .enumerate()
                // An empty turn (LongMemEval has a few) is not something an app stores.
                .filter(|(_, &i)| !conv.items[i].content.trim().is_empty())
                .map(|(k, &i)| TurnInput {
                    role: match conv.items[i].speaker {
                        Some(Speaker::Character) => "assistant".into(),
                        _ => "user".into(),
                    },
                    // An app must cut a turn at the product's limit (LongMemEval has longer
                    // assistant answers); the ranking-only mode indexes the whole text.
                    content: conv.items[i].content.chars().take(MAX_TURN_CHARS).collect(),
                    ts: Some(Timestamp(start.ms() + k as i64 * 60_000)),
                    // The position in the session, so the log maps back to the data's ids.
                    index: Some(k as u32),
                    emotion: None,
                })
                .collect();
            let end = Timestamp(start.ms() + members.len() as i64 * 60_000);
            clock.set(end);
            let append = ConversationAppend {
                session_id: Some(format!("session_{session}")),
                turns,
                summary: None,
            };
            let t = Instant::now();
            block_on(hippo.append_conversation(&npcid, append)).map_err(|e| e.to_string())?;
            self.append.push(t.elapsed());
            let next_start = sessions.get(n + 1).map(|(_, m)| conv.items[m[0]].time);
            let dream_at = match schedule {
                DreamSchedule::AfterSession => Some(Timestamp(end.ms() + 60_000)),
                // The night after the last session of a day.
                DreamSchedule::Nightly => match next_start {
                    Some(next) if next.ms() < night_after(end).ms() => None,
                    _ => Some(night_after(end)),
                },
            };
            if let Some(at) = dream_at {
                clock.set(at);
                self.dream_until_done(&hippo, &npcid)?;
            }
        }

        // Turn id → the data's dia_id, from the stored log.
        let log = block_on(store.turns(&npcid, 0, usize::MAX)).map_err(|e| e.to_string())?;
        let mut dia_of: HashMap<String, String> = HashMap::new();
        let mut by_session: HashMap<String, Vec<&str>> = HashMap::new();
        for item in &conv.items {
            by_session
                .entry(format!("session_{}", item.session))
                .or_default()
                .push(&item.id);
        }
        for t in &log {
            let dia = t
                .session_id
                .as_ref()
                .and_then(|s| by_session.get(s))
                .and_then(|ids| ids.get(t.turn_index.unwrap_or(u32::MAX) as usize));
            if let Some(dia) = dia {
                dia_of.insert(t.id.clone(), dia.to_string());
            }
        }

        let last = conv.items.iter().map(|i| i.time).max().unwrap_or_default();
        for q in &conv.questions {
            let asked = q
                .date
                .unwrap_or(Timestamp(night_after(last).ms() + 9 * HOUR_MS));
            clock.set(asked);
            let req = RetrievalRequest {
                query: q.text.clone(),
                max_results: Some(10),
                ..RetrievalRequest::default()
            };
            let t = Instant::now();
            let answer = block_on(hippo.retrieve(&npcid, req)).map_err(|e| e.to_string())?;
            self.retrieve.push(t.elapsed());
            self.items.push(answer.memories.len());
            self.chars.push(
                answer
                    .memories
                    .iter()
                    .map(|m| m.summary.chars().count())
                    .sum(),
            );
            let ids: Vec<String> = answer.memories.iter().map(|m| m.id.clone()).collect();
            let records =
                block_on(store.memories_by_id(&npcid, &ids)).map_err(|e| e.to_string())?;
            let record_of: HashMap<&str, &hippo::memory::Memory> =
                records.iter().map(|m| (m.id.as_str(), m)).collect();
            // Each returned item as the evidence ids it stands for.
            let mut strict: Vec<String> = Vec::new();
            let mut derived: Vec<String> = Vec::new();
            for id in &ids {
                let Some(m) = record_of.get(id.as_str()) else {
                    strict.push(id.clone());
                    derived.push(id.clone());
                    continue;
                };
                let dias: Vec<String> = m
                    .source_turns
                    .iter()
                    .filter_map(|t| dia_of.get(t).cloned())
                    .collect();
                match m.collection {
                    Collection::Content => {
                        let dia = dias.first().cloned().unwrap_or_else(|| id.clone());
                        strict.push(dia.clone());
                        derived.push(dia);
                    }
                    Collection::Memory => {
                        strict.push(id.clone());
                        derived.push(dias.join("|"));
                    }
                    _ => {
                        strict.push(id.clone());
                        derived.push(id.clone());
                    }
                }
            }
            if let Some(path) = dump {
                let line = json!({
                        "mode": "e2e",
                "questions": self.derived.questions(),
                        "question": q.text,
                        "evidence": q.evidence,
                        "answer": answer.memories.iter().zip(&derived).map(|(m, d)| json!({
                            "summary": m.summary, "source": m.source, "stands_for": d,
                        })).collect::<Vec<_>>(),
                    });
                use std::io::Write as _;
                if let Ok(mut f) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                {
                    let _ = writeln!(f, "{line}");
                }
            }
            self.strict.add(&q.category, &strict, &q.evidence);
            self.derived.add(&q.category, &derived, &q.evidence);
        }
        Ok(())
    }

    fn dream_until_done(&mut self, hippo: &Hippo, npcid: &str) -> Result<(), String> {
        self.dream_errors += dream_until_done(hippo, npcid, &mut self.dream)?;
        Ok(())
    }

    pub fn summary(&self) -> Value {
        let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len().max(1) as f64;
        json!({
            "mode": "e2e",
            "evidence": "derived: a returned item is the evidence turn or a memory drawn from it",
            "results": {"hippo": self.derived.to_json(), "hippo_strict": self.strict.to_json()},
            "items_per_answer": (mean(&self.items) * 100.0).round() / 100.0,
            "chars_per_answer": mean(&self.chars).round(),
            "chars_per_answer_p95": percentile_usize(&self.chars, 0.95),
            "append_ms": timing(&self.append),
            "dream_ms": timing(&self.dream),
            "retrieve_ms": timing(&self.retrieve),
            "dreams": self.dream.len(),
            "dream_errors": self.dream_errors,
        })
    }

    pub fn print(&self) {
        let s = self.summary();
        println!(
            "end to end: {} items, {} chars per answer (p95 {}); append {}, dream {}, retrieve {} (ms p50/p95); {} dreams, {} with errors",
            s["items_per_answer"],
            s["chars_per_answer"],
            s["chars_per_answer_p95"],
            pair(&s["append_ms"]),
            pair(&s["dream_ms"]),
            pair(&s["retrieve_ms"]),
            s["dreams"],
            s["dream_errors"]
        );
    }
}

/// Dreams until the log is consumed (a dream reads at most SCAN_LIMIT entries; the next one
/// takes the rest), timing each; returns how many dreams reported an error.
pub(crate) fn dream_until_done(
    hippo: &Hippo,
    npcid: &str,
    times: &mut Vec<Duration>,
) -> Result<usize, String> {
    let mut errors = 0;
    for _ in 0..16 {
        let t = Instant::now();
        let report = block_on(hippo.dream(npcid, false)).map_err(|e| e.to_string())?;
        if report.skipped {
            break;
        }
        times.push(t.elapsed());
        errors += usize::from(report.error.is_some());
    }
    Ok(errors)
}

fn percentile_usize(v: &[usize], p: f64) -> usize {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.get(((v.len().saturating_sub(1)) as f64 * p).round() as usize)
        .copied()
        .unwrap_or(0)
}

pub(crate) fn timing(v: &[Duration]) -> Value {
    let mut ms: Vec<f64> = v.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| {
        ms.get(((ms.len().saturating_sub(1)) as f64 * p).round() as usize)
            .map_or(0.0, |x| (x * 100.0).round() / 100.0)
    };
    json!({"p50": at(0.5), "p95": at(0.95), "count": ms.len()})
}

pub(crate) fn pair(v: &Value) -> String {
    format!("{}/{}", v["p50"], v["p95"])
}
