//! `hippo-bench year [--days N] [--seed N] [--seeds N] [--show] [--latency [--sessions N] [--typed N]] [--json] [--export DIR]`:
//! a year of daily conversation per language (one NPC each, English and Chinese), generated
//! from a seed: every day one session of 4–10 turns of everyday filler at 18:00–21:00; 60 facts
//! per language, each stated once on its day (5 per month of age, 1 to 12 months before the
//! questions); `append_conversation` at the turns' time and a dream every night at 03:00 (the
//! product path of `hippo-bench locomo`, built-in engines, in-memory store). On the day after
//! the year, each fact is asked about once (worded differently from the statement) through
//! `retrieve` (memory_retrieval, `max_results` 10).
//!
//! `--seeds N` (default 3) plays N years, each its own placement of the facts and its own
//! filler, and adds them up: every bucket then holds different facts, so a bucket's figure is
//! not one handful of easy or hard questions.
//!
//! A fact is found when a returned item is the conversation record of the turn that stated it,
//! or a typed memory whose `source_turns` include that turn (diary days never count). Recall@5
//! counts the first five items of the same answer. Printed by age of the fact in months.
//!
//! `--latency`: retrieve p50/p95 on an NPC holding a year of conversation with `--sessions`
//! sessions a day (default 4: ≥ 10k stored records) against the same questions on an NPC
//! holding only `--typed` (default 10,000) typed memories added with `add_memories` — the
//! store before verbatim turns were kept. Each question is timed three times on each NPC, the
//! two in turn (so the machine's load weighs on both alike), fastest kept.
//!
//! `--export DIR`: the first seed's NPC of each language after the year, as the export document
//! (`DIR/year-en.json`, `DIR/year-zh.json`): what docs/SCALING.md imports into a local D1 to
//! measure bytes per stored record.

use crate::args::Args;
use crate::corpus::{self, Rng};
use crate::dream::{block_on, in_memory};
use crate::e2e::{dream_until_done, night_after, pair, timing, DAY_MS, HOUR_MS};
use crate::year_data::{Fact, Filler, EN_FACTS, EN_FILLER, ZH_FACTS, ZH_FILLER};
use hippo::api::{
    AddMemoriesRequest, ConversationAppend, NpcUpsert, RetrievalRequest, SearchRequest, TurnInput,
};
use hippo::memory::{Collection, MemoryType};
use hippo::ports::{FixedClock, MemoryFilter, Store};
use hippo::store::MemoryStore;
use hippo::time::Timestamp;
use hippo::Hippo;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The first day of the year (UTC midnight).
const START: &str = "2025-06-01T00:00:00Z";
/// Age buckets in months, for the recall table.
const BUCKETS: [(u32, u32); 5] = [(1, 1), (2, 3), (4, 6), (7, 9), (10, 12)];
/// Each latency question runs this many times and the fastest counts (as `hippo-bench latency`).
const REPEATS: usize = 3;

struct Language {
    code: &'static str,
    user: &'static str,
    character: &'static str,
    facts: &'static [Fact],
    filler: &'static Filler,
}

const LANGUAGES: [Language; 2] = [
    Language {
        code: "en",
        user: "Alex",
        character: "Juniper",
        facts: EN_FACTS,
        filler: &EN_FILLER,
    },
    Language {
        code: "zh",
        user: "小林",
        character: "阿澈",
        facts: ZH_FACTS,
        filler: &ZH_FILLER,
    },
];

/// One fact as placed in the year.
struct Placed {
    fact: usize,
    day: usize,
    /// Age at the questions, in months (1..=12).
    months: u32,
}

/// A year of one language, generated and played into a fresh Hippo.
struct Year {
    hippo: Hippo,
    store: Rc<MemoryStore>,
    clock: Rc<FixedClock>,
    npcid: String,
    placed: Vec<Placed>,
    /// The turn id that stated each placed fact.
    fact_turn: Vec<String>,
    asked_at: Timestamp,
    turns: usize,
    append: Vec<Duration>,
    dream: Vec<Duration>,
    dream_errors: usize,
}

fn fill(template: &str, filler: &Filler, rng: &mut Rng) -> String {
    let mut out = template.to_string();
    for (name, values) in filler.slots {
        let slot = format!("{{{name}}}");
        while out.contains(&slot) {
            out = out.replacen(&slot, rng.pick(values), 1);
        }
    }
    out
}

/// When each fact is stated: 5 facts per month of age (1..=12 months before the questions,
/// ± 1/3 month), in a seeded order.
fn place(n: usize, days: usize, rng: &mut Rng) -> Vec<Placed> {
    let mut facts: Vec<usize> = (0..n).collect();
    for i in (1..facts.len()).rev() {
        facts.swap(i, rng.below(i + 1));
    }
    let jitter = (days / 36).max(1);
    let mut taken = vec![false; days];
    facts
        .into_iter()
        .enumerate()
        .map(|(i, fact)| {
            let months = (i % 12) as u32 + 1;
            let age = (months as usize * days / 12 + rng.below(2 * jitter + 1))
                .saturating_sub(jitter)
                .clamp(1, days);
            // One fact a day: the nearest free day.
            let wanted = days - age;
            let day = (0..days)
                .flat_map(|d| [wanted.saturating_sub(d), (wanted + d).min(days - 1)])
                .find(|&d| !taken[d])
                .expect("more days than facts");
            taken[day] = true;
            Placed { fact, day, months }
        })
        .collect()
}

fn play(lang: &Language, days: usize, sessions: usize, seed: u64) -> Result<Year, String> {
    let mut rng = Rng::new(seed ^ lang.code.bytes().map(u64::from).sum::<u64>());
    let start = Timestamp::parse(START).expect("valid start");
    let npcid = format!("year_{}", lang.code);
    let (hippo, store, clock) = in_memory();
    clock.set(start);
    let mut pkg = indexmap::IndexMap::new();
    pkg.insert("Name".to_string(), json!(lang.user));
    let upsert = NpcUpsert {
        display_name: Some(lang.character.to_string()),
        pkg: Some(pkg),
        ..NpcUpsert::default()
    };
    block_on(hippo.upsert_npc(&npcid, upsert)).map_err(|e| e.to_string())?;

    let placed = place(lang.facts.len(), days, &mut rng);
    let mut stated_on: HashMap<usize, usize> = HashMap::new();
    for (i, p) in placed.iter().enumerate() {
        stated_on.insert(p.day, i);
    }
    let mut fact_at: HashMap<(String, u32), usize> = HashMap::new();
    let (mut append, mut dream, mut dream_errors, mut turns) = (Vec::new(), Vec::new(), 0, 0);
    for day in 0..days {
        let mut end = Timestamp(0);
        for s in 0..sessions {
            let hour = if sessions == 1 {
                18 + rng.below(4)
            } else {
                8 + s * 14 / sessions + rng.below(2)
            };
            let session_start =
                Timestamp(start.ms() + day as i64 * DAY_MS + hour as i64 * HOUR_MS).plus_days(0);
            let session_start = Timestamp(session_start.ms() + rng.below(60) as i64 * 60_000);
            let n = 4 + rng.below(7);
            let session_id = format!("d{day}s{s}");
            // The day's fact, in the first session, said by the user, acknowledged.
            let fact = stated_on.get(&day).filter(|_| s == 0).copied();
            let fact_turn = fact.map(|_| 2 * rng.below(n / 2));
            let mut contents: Vec<String> = Vec::with_capacity(n);
            for k in 0..n {
                let text = match (fact, fact_turn) {
                    (Some(i), Some(t)) if t == k => {
                        fact_at.insert((session_id.clone(), k as u32), i);
                        lang.facts[placed[i].fact].statement.to_string()
                    }
                    (Some(_), Some(t)) if t + 1 == k => {
                        rng.pick(lang.filler.acknowledge).to_string()
                    }
                    _ if k % 2 == 0 => fill(rng.pick(lang.filler.user), lang.filler, &mut rng),
                    _ => fill(rng.pick(lang.filler.character), lang.filler, &mut rng),
                };
                contents.push(text);
            }
            let turn_inputs = contents
                .into_iter()
                .enumerate()
                .map(|(k, content)| TurnInput {
                    role: if k % 2 == 0 { "user" } else { "assistant" }.into(),
                    content,
                    ts: Some(Timestamp(session_start.ms() + k as i64 * 60_000)),
                    index: None,
                    emotion: None,
                })
                .collect();
            end = Timestamp(session_start.ms() + n as i64 * 60_000);
            clock.set(end);
            let req = ConversationAppend {
                session_id: Some(session_id),
                turns: turn_inputs,
                summary: None,
            };
            let t = Instant::now();
            block_on(hippo.append_conversation(&npcid, req)).map_err(|e| e.to_string())?;
            append.push(t.elapsed());
            turns += n;
        }
        clock.set(night_after(end));
        dream_errors += dream_until_done(&hippo, &npcid, &mut dream)?;
    }

    let log = block_on(store.turns(&npcid, 0, usize::MAX)).map_err(|e| e.to_string())?;
    let mut fact_turn = vec![String::new(); placed.len()];
    for t in &log {
        let key = (
            t.session_id.clone().unwrap_or_default(),
            t.turn_index.unwrap_or(u32::MAX),
        );
        if let Some(&i) = fact_at.get(&key) {
            fact_turn[i] = t.id.clone();
        }
    }
    if let Some(i) = fact_turn.iter().position(String::is_empty) {
        return Err(format!("fact {i} has no turn in the log"));
    }
    let asked_at = Timestamp(start.ms() + days as i64 * DAY_MS + 10 * HOUR_MS);
    Ok(Year {
        hippo,
        store,
        clock,
        npcid,
        placed,
        fact_turn,
        asked_at,
        turns,
        append,
        dream,
        dream_errors,
    })
}

fn ask(
    hippo: &Hippo,
    npcid: &str,
    question: &str,
) -> Result<(Vec<(String, String)>, Duration), String> {
    let req = RetrievalRequest {
        query: question.to_string(),
        max_results: Some(10),
        ..RetrievalRequest::default()
    };
    let t = Instant::now();
    let answer = block_on(hippo.retrieve(npcid, req)).map_err(|e| e.to_string())?;
    let took = t.elapsed();
    Ok((
        answer
            .memories
            .into_iter()
            .map(|m| (m.id, m.summary))
            .collect(),
        took,
    ))
}

/// Records per collection (superseded ones included: they are stored).
fn store_size(store: &MemoryStore, npcid: &str) -> Result<serde_json::Map<String, Value>, String> {
    let mut sizes = serde_json::Map::new();
    let mut total = 0;
    for c in Collection::ALL {
        let filter = MemoryFilter {
            collection: Some(c),
            include_superseded: true,
            ..MemoryFilter::default()
        };
        let n = block_on(store.memories(npcid, &filter))
            .map_err(|e| e.to_string())?
            .len();
        total += n;
        sizes.insert(format!("{c:?}").to_lowercase(), json!(n));
    }
    sizes.insert("total".into(), json!(total));
    Ok(sizes)
}

/// Recall by age bucket, and what found the facts.
#[derive(Default)]
struct Recall {
    /// Per bucket: (facts, found@5, found@10).
    buckets: [(usize, usize, usize); BUCKETS.len()],
    by_turn: usize,
    by_memory: usize,
    /// Found in the search route's top 10 (no relevance floor).
    unfloored: usize,
    items: usize,
    chars: usize,
    retrieve: Vec<Duration>,
}

impl Recall {
    fn to_json(&self) -> Value {
        let r = |x: usize, n: usize| (x as f64 / n.max(1) as f64 * 1000.0).round() / 1000.0;
        let mut by_age = serde_json::Map::new();
        let (mut n, mut f5, mut f10) = (0, 0, 0);
        for ((lo, hi), (facts, at5, at10)) in BUCKETS.iter().zip(&self.buckets) {
            let name = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            };
            by_age.insert(
                name,
                json!({"facts": facts, "r@5": r(*at5, *facts), "r@10": r(*at10, *facts)}),
            );
            (n, f5, f10) = (n + facts, f5 + at5, f10 + at10);
        }
        json!({
            "facts": n,
            "r@5": r(f5, n),
            "r@10": r(f10, n),
            "by_age_months": by_age,
            "search_route_r@10": r(self.unfloored, n),
            "found_by_turn": self.by_turn,
            "found_by_memory": self.by_memory,
            "items_per_answer": (self.items as f64 / n.max(1) as f64 * 100.0).round() / 100.0,
            "chars_per_answer": (self.chars as f64 / n.max(1) as f64).round(),
            "retrieve_ms": timing(&self.retrieve),
        })
    }
}

/// The rank (0-based) of the first item that stands for `turn`, and its collection: the turn's
/// record or a typed memory drawn from it (diary days never count).
fn first_hit(
    year: &Year,
    ids: &[String],
    turn: &str,
) -> Result<Option<(usize, Collection)>, String> {
    let records =
        block_on(year.store.memories_by_id(&year.npcid, ids)).map_err(|e| e.to_string())?;
    Ok(ids.iter().enumerate().find_map(|(rank, id)| {
        let m = records.iter().find(|m| &m.id == id)?;
        let counts = matches!(m.collection, Collection::Content | Collection::Memory)
            && m.source_turns.iter().any(|t| t == turn);
        counts.then_some((rank, m.collection))
    }))
}

/// Asks the year's questions; adds what was found to `recall`.
fn evaluate(lang: &Language, year: &Year, show: bool, recall: &mut Recall) -> Result<(), String> {
    year.clock.set(year.asked_at);
    for (i, p) in year.placed.iter().enumerate() {
        let fact = &lang.facts[p.fact];
        let (answer, took) = ask(&year.hippo, &year.npcid, fact.question)?;
        recall.retrieve.push(took);
        recall.items += answer.len();
        recall.chars += answer.iter().map(|(_, s)| s.chars().count()).sum::<usize>();
        let ids: Vec<String> = answer.iter().map(|(id, _)| id.clone()).collect();
        let hit = first_hit(year, &ids, &year.fact_turn[i])?;
        let bucket = BUCKETS
            .iter()
            .position(|(lo, hi)| (*lo..=*hi).contains(&p.months))
            .expect("months are 1..=12");
        let b = &mut recall.buckets[bucket];
        b.0 += 1;
        if let Some((rank, collection)) = hit {
            b.1 += usize::from(rank < 5);
            b.2 += 1;
            match collection {
                Collection::Content => recall.by_turn += 1,
                _ => recall.by_memory += 1,
            }
        } else if show {
            println!(
                "  missed ({} months): {} [{}]",
                p.months, fact.question, fact.statement
            );
            for (_, s) in answer.iter().take(3) {
                println!("      {s}");
            }
        }
    }
    // The same questions on the search route (same ranking, no relevance floor), after the
    // measured pass: what the floor costs. Search reinforces too, so it runs last.
    for (i, p) in year.placed.iter().enumerate() {
        let req = SearchRequest {
            query: lang.facts[p.fact].question.to_string(),
            max_results: Some(10),
            ..SearchRequest::default()
        };
        let hits = block_on(year.hippo.search(&year.npcid, req)).map_err(|e| e.to_string())?;
        let ids: Vec<String> = hits.memories.into_iter().map(|m| m.id).collect();
        recall.unfloored += usize::from(first_hit(year, &ids, &year.fact_turn[i])?.is_some());
    }
    Ok(())
}

/// An NPC holding only `count` typed memories (the store before verbatim turns were kept):
/// a few added with `add_memories`, exported, multiplied with generated texts (the corpus of
/// `hippo-bench latency`, dated over the year) and imported. Import, because conflict
/// resolution folds the generator's near-duplicates into far fewer than `count` memories.
fn typed_npc(count: usize, seed: u64) -> Result<(Hippo, Rc<FixedClock>, usize), String> {
    let (hippo, store, clock) = in_memory();
    let npcid = "typed";
    let start = Timestamp::parse(START).expect("valid start");
    clock.set(start);
    block_on(hippo.upsert_npc(npcid, NpcUpsert::default())).map_err(|e| e.to_string())?;
    let mut rng = Rng::new(seed);
    let typed_input = |rng: &mut Rng, i: usize| {
        let (summary, keywords) = corpus::memory(rng);
        corpus::input(
            summary,
            keywords,
            MemoryType::ALL[i % MemoryType::ALL.len()],
        )
    };
    let memories = (0..100).map(|i| typed_input(&mut rng, i)).collect();
    block_on(hippo.add_memories(npcid, AddMemoriesRequest { memories }))
        .map_err(|e| e.to_string())?;
    let mut doc = block_on(hippo.export_npc(npcid)).map_err(|e| e.to_string())?;
    let template = doc.memories.first().cloned().ok_or("no memory to copy")?;
    doc.memories = (0..count)
        .map(|i| {
            let input = typed_input(&mut rng, i);
            let at = start.plus_days((i * 365 / count.max(1)) as i64);
            let mut m = template.clone();
            m.id = format!("typed_{i:06}");
            m.summary = input.summary;
            m.keywords = input.keywords;
            m.memory_type = MemoryType::ALL[i % MemoryType::ALL.len()];
            (m.created_at, m.updated_at, m.last_accessed_at) = (at, at, at);
            m
        })
        .collect();
    block_on(hippo.import_npc(npcid, doc)).map_err(|e| e.to_string())?;
    let filter = MemoryFilter {
        collection: Some(Collection::Memory),
        ..MemoryFilter::default()
    };
    let stored = block_on(store.memories(npcid, &filter))
        .map_err(|e| e.to_string())?
        .len();
    Ok((hippo, clock, stored))
}

fn p(ms: &mut [f64], q: f64) -> f64 {
    ms.sort_by(f64::total_cmp);
    let v = ms
        .get(((ms.len().saturating_sub(1)) as f64 * q).round() as usize)
        .copied()
        .unwrap_or(0.0);
    (v * 100.0).round() / 100.0
}

fn latency(args: &Args, days: usize, seed: u64) -> Result<Value, String> {
    let sessions: usize = args
        .value("sessions")
        .unwrap_or("4")
        .parse()
        .map_err(|_| "bad --sessions")?;
    let typed: usize = args
        .value("typed")
        .unwrap_or("10000")
        .parse()
        .map_err(|_| "bad --typed")?;
    println!("latency: a year with {sessions} sessions a day per language vs {typed} typed memories; same questions, fastest of {REPEATS}, the two NPCs asked in turn");
    let t = Instant::now();
    let (typed_hippo, typed_clock, stored) = typed_npc(typed, seed)?;
    typed_clock.set(
        Timestamp::parse(START)
            .expect("valid")
            .plus_days(days as i64 + 1),
    );
    let typed_built = t.elapsed().as_secs_f64();
    let (mut year_ms, mut typed_ms) = (Vec::new(), Vec::new());
    let mut out = serde_json::Map::new();
    for lang in &LANGUAGES {
        let t = Instant::now();
        let year = play(lang, days, sessions, seed)?;
        year.clock.set(year.asked_at);
        let sizes = store_size(&year.store, &year.npcid)?;
        let built = t.elapsed().as_secs_f64();
        // Each question goes to the year's NPC and the typed one in turn, each time: the
        // machine's load then weighs on both alike, and the ratio is what is compared.
        let mut ms = Vec::new();
        for f in lang.facts {
            let (mut year_best, mut typed_best) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..REPEATS {
                let took = |(_, d): (_, Duration)| d.as_secs_f64() * 1e3;
                year_best = year_best.min(took(ask(&year.hippo, &year.npcid, f.question)?));
                typed_best = typed_best.min(took(ask(&typed_hippo, "typed", f.question)?));
            }
            ms.push(year_best);
            typed_ms.push(typed_best);
        }
        println!(
            "  {} year: {} turns, stored {} (built in {built:.0} s): retrieve p50 {} / p95 {} ms",
            lang.code,
            year.turns,
            Value::Object(sizes.clone()),
            p(&mut ms, 0.5),
            p(&mut ms, 0.95)
        );
        out.insert(
            format!("year_{}", lang.code),
            json!({"turns": year.turns, "stored": sizes, "p50_ms": p(&mut ms, 0.5), "p95_ms": p(&mut ms, 0.95)}),
        );
        year_ms.extend(ms);
    }
    println!(
        "  typed: {stored} memories (built in {typed_built:.0} s): retrieve p50 {} / p95 {} ms",
        p(&mut typed_ms, 0.5),
        p(&mut typed_ms, 0.95)
    );
    let (y95, t95) = (p(&mut year_ms, 0.95), p(&mut typed_ms, 0.95));
    println!(
        "  year (both languages) p50 {} / p95 {} ms vs typed p50 {} / p95 {} ms: p95 ratio {:.2}",
        p(&mut year_ms, 0.5),
        y95,
        p(&mut typed_ms, 0.5),
        t95,
        y95 / t95.max(1e-9)
    );
    out.insert(
        "typed".into(),
        json!({"memories": stored, "p50_ms": p(&mut typed_ms, 0.5), "p95_ms": t95}),
    );
    out.insert(
        "year".into(),
        json!({"p50_ms": p(&mut year_ms, 0.5), "p95_ms": y95}),
    );
    out.insert(
        "p95_ratio".into(),
        json!((y95 / t95.max(1e-9) * 100.0).round() / 100.0),
    );
    Ok(Value::Object(out))
}

pub fn run(args: &Args) -> Result<(), String> {
    let days: usize = args
        .value("days")
        .unwrap_or("365")
        .parse()
        .map_err(|_| "bad --days")?;
    let seed: u64 = args
        .value("seed")
        .unwrap_or("17")
        .parse()
        .map_err(|_| "bad --seed")?;
    if days < 2 * LANGUAGES[0].facts.len() {
        return Err(format!(
            "--days must be at least {}",
            2 * LANGUAGES[0].facts.len()
        ));
    }
    let seeds: u64 = args
        .value("seeds")
        .unwrap_or("3")
        .parse()
        .map_err(|_| "bad --seeds")?;
    let show = args.flag("show");
    let mut results = serde_json::Map::new();
    let mut results_sizes = serde_json::Map::new();
    println!("a year of daily conversation ({days} days, seeds {seed}..{}, each its own placement of the facts and filler): recall of facts stated once, by age in months", seed + seeds - 1);
    println!("found = a returned item is the stating turn's record or a memory drawn from it (source_turns); retrieve max_results 10, r@5 = first five items");
    println!(
        "{:<4} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "lang", "1", "2-3", "4-6", "7-9", "10-12", "all"
    );
    for lang in &LANGUAGES {
        let mut recall = Recall::default();
        let (mut append, mut dream, mut dream_errors) = (Vec::new(), Vec::new(), 0);
        let mut per_seed = Vec::new();
        for seed in seed..seed + seeds {
            let t = Instant::now();
            let year = play(lang, days, 1, seed)?;
            let found_before = recall.buckets.iter().map(|b| b.2).sum::<usize>();
            evaluate(lang, &year, show, &mut recall)?;
            let found = recall.buckets.iter().map(|b| b.2).sum::<usize>() - found_before;
            let sizes = store_size(&year.store, &year.npcid)?;
            if let Some(dir) = args.value("export").filter(|_| per_seed.is_empty()) {
                let doc =
                    block_on(year.hippo.export_npc(&year.npcid)).map_err(|e| e.to_string())?;
                let path = std::path::Path::new(dir).join(format!("year-{}.json", lang.code));
                let text = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
                std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            per_seed.push(format!(
                "     seed {seed}: r@10 {:.3}; {} turns; stored {}; played and asked in {:.0} s",
                found as f64 / year.placed.len() as f64,
                year.turns,
                Value::Object(sizes.clone()),
                t.elapsed().as_secs_f64()
            ));
            append.extend(year.append);
            dream.extend(year.dream);
            dream_errors += year.dream_errors;
            results_sizes.insert(format!("{}_{seed}", lang.code), Value::Object(sizes));
        }
        let mut j = recall.to_json();
        let cell = |v: &Value| format!("{}/{}", v["r@5"], v["r@10"]);
        println!(
            "{:<4} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
            lang.code,
            cell(&j["by_age_months"]["1"]),
            cell(&j["by_age_months"]["2-3"]),
            cell(&j["by_age_months"]["4-6"]),
            cell(&j["by_age_months"]["7-9"]),
            cell(&j["by_age_months"]["10-12"]),
            cell(&j)
        );
        println!(
            "     search route (no floor) r@10 {}; found by turn {} / by memory {}; {} items, {} chars per answer; append {}, dream {}, retrieve {} ms p50/p95; {} dreams, {} with errors",
            j["search_route_r@10"],
            j["found_by_turn"],
            j["found_by_memory"],
            j["items_per_answer"],
            j["chars_per_answer"],
            pair(&timing(&append)),
            pair(&timing(&dream)),
            pair(&j["retrieve_ms"]),
            dream.len(),
            dream_errors,
        );
        for line in per_seed {
            println!("{line}");
        }
        j["append_ms"] = timing(&append);
        j["dream_ms"] = timing(&dream);
        results.insert(lang.code.into(), j);
    }
    println!("(cells: r@5/r@10)");
    let latency = if args.flag("latency") {
        Some(latency(args, days, seed)?)
    } else {
        None
    };
    if args.flag("json") {
        let mut out = json!({
            "days": days,
            "seeds": (seed..seed + seeds).collect::<Vec<u64>>(),
            "stored": results_sizes,
            "evidence": "found: a returned item is the stating turn's record or a typed memory whose source_turns include it",
            "results": results,
        });
        if let Some(l) = latency {
            out["latency"] = l;
        }
        println!("{out}");
    }
    Ok(())
}
