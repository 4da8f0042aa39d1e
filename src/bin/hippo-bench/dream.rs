//! `hippo-bench dream --data FILE [--limit N] [--dry-run]`: replays LoCoMo conversations
//! session by session into an in-memory Hippo (built-in engines, no LLM) and dreams after
//! each session, as a nightly cron would. Prints dreams per second and what was extracted.

use hippo::api::ListMemoriesQuery;
use hippo::api::{ConversationAppend, DreamReport, NpcUpsert, TurnInput};
use hippo::engine::Ports;
use hippo::ports::FixedClock;
use hippo::retrieval::embed::BuiltinEmbedder;
use hippo::store::{MemoryStore, MemoryVectorIndex};
use hippo::time::Timestamp;
use hippo::Hippo;
use serde_json::Value;
use std::future::Future;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Runs a future whose ports never wait (the in-memory ones) to completion.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

/// A Hippo over the in-memory store and index with the built-in engines, at a settable time.
pub(crate) fn in_memory() -> (Hippo, Rc<MemoryStore>, Rc<FixedClock>) {
    let store = Rc::new(MemoryStore::new());
    let clock = Rc::new(FixedClock::at(Timestamp(0)));
    let hippo = Hippo::new(Ports {
        store: store.clone(),
        vectors: Rc::new(MemoryVectorIndex::new()),
        embedder: Rc::new(BuiltinEmbedder::new()),
        llm: None,
        clock: clock.clone(),
    });
    (hippo, store, clock)
}

struct Args {
    data: String,
    limit: Option<usize>,
    dry_run: bool,
    /// Print what each dream extracted.
    show: bool,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args {
        data: String::new(),
        limit: None,
        dry_run: false,
        show: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--data" => parsed.data = it.next().ok_or("--data needs a file")?.clone(),
            "--limit" => {
                parsed.limit = Some(
                    it.next()
                        .and_then(|n| n.parse().ok())
                        .ok_or("--limit needs a number")?,
                )
            }
            "--dry-run" => parsed.dry_run = true,
            "--show" => parsed.show = true,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if parsed.data.is_empty() {
        return Err("usage: hippo-bench dream --data FILE [--limit N] [--dry-run] [--show]".into());
    }
    Ok(parsed)
}

/// "1:56 pm on 8 May, 2023" → an instant (taken as UTC).
fn session_time(text: &str) -> Option<Timestamp> {
    let dt =
        chrono::NaiveDateTime::parse_from_str(&text.to_ascii_uppercase(), "%I:%M %p ON %d %B, %Y")
            .ok()?;
    Some(Timestamp(dt.and_utc().timestamp_millis()))
}

#[derive(Default)]
struct Totals {
    conversations: usize,
    sessions: usize,
    turns: usize,
    dreams: usize,
    dream_times: Vec<Duration>,
    entity_ops: usize,
    pkg_updates: usize,
    memories: usize,
    inserted: usize,
    reinforced: usize,
    superseded: usize,
    errors: Vec<String>,
}

impl Totals {
    fn add(&mut self, report: &DreamReport, took: Duration) {
        self.dreams += 1;
        self.dream_times.push(took);
        if let Some(x) = &report.extractions {
            self.entity_ops += x.entity_ops_count;
            self.pkg_updates += x.pkg_updates_count;
            self.memories += x.memories.len();
            for m in &x.memories {
                match m.action.as_str() {
                    "inserted" => self.inserted += 1,
                    "reinforced" => self.reinforced += 1,
                    _ => self.superseded += 1,
                }
            }
        }
        if let Some(e) = &report.error {
            self.errors.push(e.clone());
        }
    }
}

pub fn main(args: &[String]) -> i32 {
    let args = match parse_args(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let samples: Vec<Value> = match std::fs::read_to_string(&args.data)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read {}: {e}", args.data);
            return 1;
        }
    };
    // The Chinese word list is built on first use; its cost is paid once per process.
    let started = std::time::Instant::now();
    let words = hippo::text::segment::segment("我的同学小红下周要来杭州").len();
    println!(
        "Chinese segmenter ready in {:.2} ms ({words} words in the probe)",
        started.elapsed().as_secs_f64() * 1e3
    );
    let mut totals = Totals::default();
    println!("| conversation | sessions | turns | dreams | entities | PKG fields | memories | content | emotion | prior chars |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for sample in samples.iter().take(args.limit.unwrap_or(usize::MAX)) {
        if let Err(e) = replay(sample, &args, &mut totals) {
            eprintln!("{e}");
            return 1;
        }
    }
    report(&totals);
    i32::from(!totals.errors.is_empty())
}

fn replay(sample: &Value, args: &Args, totals: &mut Totals) -> Result<(), String> {
    let npcid = sample["sample_id"]
        .as_str()
        .ok_or("a sample without sample_id")?
        .to_string();
    let conv = &sample["conversation"];
    let user = conv["speaker_a"].as_str().unwrap_or_default().to_string();
    let (hippo, _store, clock) = in_memory();
    block_on(hippo.upsert_npc(&npcid, NpcUpsert::default())).map_err(|e| e.to_string())?;
    let mut sessions = 0;
    let mut turns = 0;
    for n in 1.. {
        let Some(session) = conv[format!("session_{n}")].as_array() else {
            break;
        };
        let at = conv[format!("session_{n}_date_time")]
            .as_str()
            .and_then(session_time)
            .ok_or(format!("{npcid}: session {n} has no date"))?;
        clock.set(at);
        let inputs: Vec<TurnInput> = session
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut text = t["text"].as_str().unwrap_or_default().to_string();
                if let Some(c) = t["blip_caption"].as_str() {
                    text.push_str(&format!(" [shares image: {c}]"));
                }
                TurnInput {
                    role: if t["speaker"].as_str() == Some(user.as_str()) {
                        "user".into()
                    } else {
                        "assistant".into()
                    },
                    content: text,
                    ts: Some(Timestamp(at.ms() + i as i64 * 60_000)),
                    index: None,
                    emotion: None,
                }
            })
            .collect();
        turns += inputs.len();
        let append = ConversationAppend {
            session_id: Some(format!("session_{n}")),
            turns: inputs,
            summary: None,
        };
        block_on(hippo.append_conversation(&npcid, append)).map_err(|e| e.to_string())?;
        // The nightly dream, after the session.
        clock.set(Timestamp(at.ms() + 3 * 3_600_000));
        let started = Instant::now();
        let report = block_on(hippo.dream(&npcid, args.dry_run)).map_err(|e| e.to_string())?;
        totals.add(&report, started.elapsed());
        if args.show {
            show(&npcid, n, &report);
        }
        sessions += 1;
    }
    let count = |collection: &str| {
        let q = ListMemoriesQuery {
            collection: Some(collection.into()),
            limit: Some(500),
            ..Default::default()
        };
        block_on(hippo.list_memories(&npcid, q)).map_or(0, |l| l.count)
    };
    let pkg = block_on(hippo.get_pkg(&npcid))
        .map_err(|e| e.to_string())?
        .pkg;
    let entities = block_on(hippo.get_relationships(&npcid))
        .map_err(|e| e.to_string())?
        .count;
    let prior = block_on(hippo.get_diary(&npcid))
        .map_err(|e| e.to_string())?
        .prior;
    println!(
        "| {npcid} | {sessions} | {turns} | {sessions} | {entities} | {} | {} | {} | {} | {} |",
        pkg.len().saturating_sub(2),
        count("memory"),
        count("content"),
        count("emotion"),
        prior.chars().count()
    );
    totals.conversations += 1;
    totals.sessions += sessions;
    totals.turns += turns;
    Ok(())
}

fn show(npcid: &str, session: usize, report: &DreamReport) {
    if let Some(d) = &report.diary {
        println!("{npcid} s{session} diary: {}", d.diary_text);
    }
    if let Some(x) = &report.extractions {
        for op in &x.entity_ops {
            println!(
                "{npcid} s{session} entity: {} {:?}",
                op.name.as_deref().unwrap_or(""),
                op.title.as_deref().unwrap_or(&[])
            );
        }
        for u in &x.pkg_updates {
            println!("{npcid} s{session} pkg: {} = {}", u.key, u.value);
        }
        for m in &x.memories {
            println!(
                "{npcid} s{session} {} {:.2} {}: {}",
                m.action, m.importance, m.memory_type, m.summary
            );
        }
    }
}

fn report(t: &Totals) {
    let mut times = t.dream_times.clone();
    times.sort();
    let total: Duration = times.iter().sum();
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or_default()
    };
    println!();
    println!(
        "dreams: {} over {} conversations, {} sessions, {} turns",
        t.dreams, t.conversations, t.sessions, t.turns
    );
    println!(
        "dream time: total {:.1} ms, {:.1} dreams/s, p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        total.as_secs_f64() * 1e3,
        t.dreams as f64 / total.as_secs_f64().max(1e-9),
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.95).as_secs_f64() * 1e3,
        times.last().copied().unwrap_or_default().as_secs_f64() * 1e3
    );
    println!(
        "extracted: {} entity ops, {} PKG updates, {} memories ({} inserted, {} reinforced, {} superseded)",
        t.entity_ops, t.pkg_updates, t.memories, t.inserted, t.reinforced, t.superseded
    );
    println!("errors: {}", t.errors.len());
    for e in t.errors.iter().take(5) {
        println!("  {e}");
    }
}
