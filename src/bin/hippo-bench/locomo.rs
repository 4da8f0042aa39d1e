//! The LoCoMo retrieval task of data/locomo/README.md, for Hippo and the BM25 baseline.
//!
//! Items: one per turn, "Speaker: text" plus " [shares image: caption]", timed at the session's
//! date. Questions: those whose evidence ids are all well formed (`D<session>:<turn>`). Metric:
//! recall@k = share of a question's evidence turns in the top k, averaged over questions.
//!
//! Hippo runs exactly as the engine would: candidates = lexical top-N ∪ the vector index's top-N
//! (`MemoryVectorIndex`, the engine's quantised index, over the built-in embedder), then the
//! core's `rank` with the lexical index's corpus statistics; every item has the same strength
//! (no reinforcement). A turn's neighbours in its session are its context field.

use crate::args::Args;
use crate::baseline::Bm25;
use crate::dream::block_on;
use chrono::NaiveDateTime;
use hippo::memory::Collection;
use hippo::memory::MemoryType;
use hippo::ports::{VectorFilter, VectorIndex, VectorItem};
use hippo::retrieval::embed::{cosine, BuiltinEmbedder};
use hippo::retrieval::lexical::LexicalIndex;
use hippo::retrieval::query::{Names, Speaker};
use hippo::retrieval::rank::query_terms;
use hippo::retrieval::rank::{
    rank_with, Candidate, CandidateKind, RankRequest, Weights, LEXICAL_CANDIDATES, TIME_CANDIDATES,
    TIME_TURNS_MAX_DAYS, VECTOR_CANDIDATES, WEIGHTS,
};
use hippo::store::MemoryVectorIndex;
use hippo::time::phrase::parse_time_range;
use hippo::time::Timestamp;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

const KS: [usize; 4] = [1, 5, 10, 20];

pub(crate) struct Item {
    pub id: String,
    /// "Speaker: text" (the ranking-only mode indexes this).
    pub text: String,
    /// What was said, without the speaker label (what an app appends).
    pub content: String,
    pub context: String,
    /// The session's start.
    pub time: Timestamp,
    pub speaker: Option<Speaker>,
    /// Session number, as in the data.
    pub session: u32,
}

pub(crate) struct Question {
    pub text: String,
    pub evidence: Vec<String>,
    pub category: String,
    /// When the question is asked (LongMemEval's `question_date`), if the data says.
    pub date: Option<Timestamp>,
}

pub(crate) struct Conversation {
    pub items: Vec<Item>,
    pub questions: Vec<Question>,
    /// `speaker_a` is the user, `speaker_b` the character.
    pub names: Names,
}

/// Recall sums per method, overall and per category.
#[derive(Default)]
pub(crate) struct Tally {
    /// Cosines of the built-in embedder between turns far apart (threshold calibration).
    pair_cosines: Vec<f32>,
    sums: [f64; 4],
    count: usize,
    by_category: BTreeMap<String, ([f64; 4], usize)>,
}

impl Tally {
    pub fn add(&mut self, category: &str, ranked: &[String], evidence: &[String]) {
        let entry = self.by_category.entry(category.to_string()).or_default();
        for (slot, k) in KS.iter().enumerate() {
            let found = evidence
                .iter()
                // An entry may stand for several turns ("D1:3|D1:4", a memory drawn from both).
                .filter(|e| {
                    ranked
                        .iter()
                        .take(*k)
                        .any(|r| r.split('|').any(|part| part == e.as_str()))
                })
                .count();
            let recall = found as f64 / evidence.len() as f64;
            self.sums[slot] += recall;
            entry.0[slot] += recall;
        }
        self.count += 1;
        entry.1 += 1;
    }

    pub fn questions(&self) -> usize {
        self.count
    }

    pub fn to_json(&self) -> Value {
        let row = |sums: &[f64; 4], n: usize| {
            let mut m = serde_json::Map::new();
            for (slot, k) in KS.iter().enumerate() {
                let v = sums[slot] / n.max(1) as f64;
                m.insert(format!("r@{k}"), json!((v * 10000.0).round() / 10000.0));
            }
            m
        };
        let mut out = row(&self.sums, self.count);
        let cats: serde_json::Map<String, Value> = self
            .by_category
            .iter()
            .map(|(c, (s, n))| {
                let mut r = row(s, *n);
                r.insert("questions".into(), json!(n));
                (c.clone(), Value::Object(r))
            })
            .collect();
        out.insert("by_category".into(), Value::Object(cats));
        Value::Object(out)
    }
}

pub fn run(args: &Args) -> Result<(), String> {
    let path = args.value("data").ok_or("locomo needs --data FILE")?;
    let raw = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let samples: Vec<Value> = serde_json::from_str(&raw).map_err(|e| format!("{path}: {e}"))?;
    let (first, last) = args
        .range("convs")?
        .unwrap_or((0, samples.len().saturating_sub(1)));
    let weights = weights_from(args.value("weights"))?;
    let end_to_end = match args.value("mode").unwrap_or("e2e") {
        "e2e" => true,
        "ranking" => false,
        other => return Err(format!("--mode is e2e or ranking, not {other:?}")),
    };
    let dreams = crate::e2e::DreamSchedule::parse(args.value("dreams").unwrap_or("nightly"))?;
    let mut product = crate::e2e::Product::default();
    let mut hippo = Tally::default();
    let mut bm25 = Tally::default();
    for (index, sample) in samples.iter().enumerate() {
        if index < first || index > last {
            continue;
        }
        let mut conv = load(sample).map_err(|e| format!("sample {index}: {e}"))?;
        if args.flag("no-speaker-label") {
            for item in &mut conv.items {
                if let Some((_, text)) = item.text.split_once(": ") {
                    item.text = text.to_string();
                }
            }
        }
        if args.flag("no-names") {
            conv.names = Names::default();
        }
        if end_to_end {
            product.evaluate(&conv, index, dreams, args.value("dump"))?;
        }
        if end_to_end && args.flag("no-ranking") {
            continue;
        }
        evaluate(
            &conv,
            &weights,
            args.flag("vector-all"),
            args.value("dump"),
            &mut hippo,
            &mut bm25,
        );
    }
    let summary = if end_to_end {
        let mut s = product.summary();
        if hippo.count > 0 {
            s["results"]["ranking"] = hippo.to_json();
            s["results"]["bm25"] = bm25.to_json();
        }
        product.print();
        s
    } else {
        json!({
            "questions": hippo.count,
            "mode": "ranking",
            "results": {"hippo": hippo.to_json(), "bm25": bm25.to_json()},
        })
    };
    print_table(&summary);
    let mut cosines = std::mem::take(&mut hippo.pair_cosines);
    cosines.sort_by(f32::total_cmp);
    if !cosines.is_empty() {
        let at = |p: f64| cosines[((cosines.len() - 1) as f64 * p) as usize];
        println!(
            "built-in embedder, {} distant turn pairs: cosine p50 {:.3}, p99 {:.3}, p99.9 {:.3}, max {:.3}",
            cosines.len(),
            at(0.5),
            at(0.99),
            at(0.999),
            at(1.0)
        );
    }
    if args.flag("json") {
        println!("{summary}");
    }
    Ok(())
}

/// `--weights lexical=1,vector=0.5,…` overrides for exploration; the default is the core's.
fn weights_from(spec: Option<&str>) -> Result<Weights, String> {
    let mut w = WEIGHTS;
    for part in spec.unwrap_or("").split(',').filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').ok_or(format!("bad weight {part:?}"))?;
        let value: f64 = value.parse().map_err(|_| format!("bad weight {part:?}"))?;
        let slot = match name {
            "lexical" => &mut w.lexical,
            "keywords" => &mut w.keywords,
            "proximity" => &mut w.proximity,
            "vector" => &mut w.vector,
            "strength" => &mut w.strength,
            "recency" => &mut w.recency,
            "time" => &mut w.time,
            "speaker" => &mut w.speaker,
            "sentence" => &mut w.sentence,
            _ => return Err(format!("unknown weight {name:?}")),
        };
        *slot = value;
    }
    Ok(w)
}

fn session_time(text: &str) -> Option<Timestamp> {
    let dt = NaiveDateTime::parse_from_str(text.trim(), "%I:%M %p on %d %B, %Y").ok()?;
    Some(Timestamp(dt.and_utc().timestamp_millis()))
}

/// LongMemEval's `question_date`: "2023/11/08 (Wed) 09:08".
fn question_time(text: &str) -> Option<Timestamp> {
    let mut parts = text.split_whitespace();
    let date = parts.next()?;
    let time = parts.last().unwrap_or("00:00");
    let dt = NaiveDateTime::parse_from_str(&format!("{date} {time}"), "%Y/%m/%d %H:%M").ok()?;
    Some(Timestamp(dt.and_utc().timestamp_millis()))
}

fn well_formed(id: &str) -> bool {
    let Some(rest) = id.strip_prefix('D') else {
        return false;
    };
    let Some((s, t)) = rest.split_once(':') else {
        return false;
    };
    !s.is_empty()
        && !t.is_empty()
        && s.chars().all(|c| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_digit())
}

pub(crate) fn load(sample: &Value) -> Result<Conversation, String> {
    let conv = sample["conversation"]
        .as_object()
        .ok_or("no conversation")?;
    let mut sessions: Vec<(u32, &Vec<Value>, Timestamp)> = Vec::new();
    for (key, value) in conv {
        let Some(n) = key
            .strip_prefix("session_")
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Some(turns) = value.as_array() else {
            continue;
        };
        let date = conv
            .get(&format!("session_{n}_date_time"))
            .and_then(Value::as_str)
            .and_then(session_time)
            .ok_or(format!("session {n}: no date"))?;
        sessions.push((n, turns, date));
    }
    sessions.sort_by_key(|s| s.0);
    let name = |key: &str| conv.get(key).and_then(Value::as_str).map(str::to_string);
    let (user, character) = (name("speaker_a"), name("speaker_b"));
    let speaker_of = |turn: &Value| {
        let s = turn["speaker"].as_str().map(str::to_string);
        if s.is_some() && s == user {
            Some(Speaker::User)
        } else if s.is_some() && s == character {
            Some(Speaker::Character)
        } else {
            None
        }
    };
    let names = Names {
        user: user.iter().filter(|n| *n != "User").cloned().collect(),
        character: character
            .iter()
            .filter(|n| *n != "Assistant")
            .cloned()
            .collect(),
    };
    let mut items = Vec::new();
    for (session, turns, time) in sessions {
        let texts: Vec<String> = turns.iter().map(turn_text).collect();
        for (i, turn) in turns.iter().enumerate() {
            let neighbours: Vec<&str> = [i.checked_sub(1), Some(i + 1)]
                .into_iter()
                .flatten()
                .filter_map(|j| texts.get(j).map(String::as_str))
                .collect();
            let content = texts[i]
                .split_once(": ")
                .map_or(texts[i].as_str(), |(_, text)| text)
                .to_string();
            items.push(Item {
                id: turn["dia_id"].as_str().unwrap_or_default().to_string(),
                text: texts[i].clone(),
                content,
                context: neighbours.join("\n"),
                time,
                speaker: speaker_of(turn),
                session,
            });
        }
    }
    let questions = sample["qa"]
        .as_array()
        .ok_or("no qa")?
        .iter()
        .filter_map(|qa| {
            let evidence: Vec<String> = qa["evidence"]
                .as_array()?
                .iter()
                .map(|e| e.as_str().map(str::to_string))
                .collect::<Option<_>>()?;
            if evidence.is_empty() || !evidence.iter().all(|e| well_formed(e)) {
                return None;
            }
            Some(Question {
                text: qa["question"].as_str()?.to_string(),
                evidence,
                category: qa["category"].to_string(),
                date: qa["question_date"].as_str().and_then(question_time),
            })
        })
        .collect();
    Ok(Conversation {
        items,
        questions,
        names,
    })
}

fn turn_text(turn: &Value) -> String {
    let speaker = turn["speaker"].as_str().unwrap_or_default();
    let text = turn["text"].as_str().unwrap_or_default();
    match turn["blip_caption"].as_str() {
        Some(caption) if !caption.is_empty() => {
            format!("{speaker}: {text} [shares image: {caption}]")
        }
        _ => format!("{speaker}: {text}"),
    }
}

/// The NPC id the conversation's vectors are kept under.
const NPC: &str = "locomo";

fn evaluate(
    conv: &Conversation,
    weights: &Weights,
    vector_all: bool,
    dump: Option<&str>,
    hippo: &mut Tally,
    bm25: &mut Tally,
) {
    let embedder = BuiltinEmbedder::new();
    let mut index = LexicalIndex::new();
    let mut vectors = Vec::with_capacity(conv.items.len());
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for (i, item) in conv.items.iter().enumerate() {
        index.add_with_context(&item.id, &item.text, &[], &item.context);
        vectors.push(embedder.embed_text(&item.text));
        by_id.insert(&item.id, i);
    }
    hippo.pair_cosines.extend(unrelated_pair_cosines(&vectors));
    let vector_index = MemoryVectorIndex::new();
    let items = conv
        .items
        .iter()
        .zip(&vectors)
        .map(|(item, v)| VectorItem {
            id: item.id.clone(),
            collection: Collection::Content,
            memory_type: MemoryType::History,
            values: v.clone(),
        })
        .collect();
    block_on(vector_index.upsert(NPC, items)).expect("in-memory index");
    let baseline = Bm25::new(
        &conv
            .items
            .iter()
            .map(|i| (i.id.clone(), i.text.clone()))
            .collect::<Vec<_>>(),
    );
    let now = conv
        .items
        .iter()
        .map(|i| i.time)
        .max()
        .unwrap_or_default()
        .plus_days(1);
    for q in &conv.questions {
        let now = q.date.unwrap_or(now);
        let terms = query_terms(&q.text, &conv.names);
        let query_vector = embedder.embed_text(&q.text);
        // The engine's vector index (quantised scan, rescored), as retrieval queries it.
        let nearest = block_on(vector_index.query(
            NPC,
            &query_vector,
            VECTOR_CANDIDATES,
            &VectorFilter::default(),
        ))
        .expect("in-memory index");
        let mut chosen: Vec<(usize, Option<f32>)> = nearest
            .iter()
            .map(|(id, s)| (by_id[id.as_str()], Some(*s)))
            .collect();
        for (id, _) in index.search(&terms, LEXICAL_CANDIDATES) {
            let i = by_id[id.as_str()];
            if !chosen.iter().any(|c| c.0 == i) {
                chosen.push((i, None));
            }
        }
        let time_range = hippo::retrieval::query::analyse(&q.text, &conv.names)
            .time_words_apply
            .then(|| parse_time_range(&q.text, now.date()))
            .flatten();
        // The turns of the period the question names, as the engine adds them.
        if let Some(range) = time_range.filter(|r| r.days() <= TIME_TURNS_MAX_DAYS) {
            let then = (0..conv.items.len()).filter(|&i| range.contains(conv.items[i].time));
            for i in then.take(TIME_CANDIDATES) {
                if !chosen.iter().any(|c| c.0 == i) {
                    chosen.push((i, None));
                }
            }
        }
        let candidates = chosen
            .into_iter()
            .map(|(i, similarity)| {
                let item = &conv.items[i];
                let mut c = Candidate::new(
                    item.id.clone(),
                    CandidateKind::Conversation,
                    MemoryType::History,
                    item.text.clone(),
                    item.time,
                );
                c.event_time = Some(item.time);
                c.context = item.context.clone();
                c.speaker = item.speaker;
                c.vector_similarity = if vector_all {
                    Some(cosine(&query_vector, &vectors[i]))
                } else {
                    similarity
                };
                c
            })
            .collect();
        let req = RankRequest {
            query: q.text.clone(),
            types: Vec::new(),
            time_range,
            max_results: 20,
            debug: false,
            now,
            names: conv.names.clone(),
        };
        let ranked: Vec<String> = rank_with(weights, &req, candidates, &index.stats(&terms))
            .into_iter()
            .map(|r| r.candidate.id)
            .collect();
        let bm25_ranked = baseline.search(&q.text, 20);
        if let Some(path) = dump {
            let text_of = |id: &str| {
                by_id
                    .get(id)
                    .map(|&i| conv.items[i].text.chars().take(160).collect::<String>())
            };
            let line = json!({
                "question": q.text,
                "category": q.category,
                "evidence": q.evidence.iter().map(|e| json!({
                    "id": e,
                    "rank": ranked.iter().position(|r| r == e),
                    "bm25_rank": bm25_ranked.iter().position(|r| r == e),
                    "text": text_of(e),
                })).collect::<Vec<_>>(),
                "top": ranked.iter().take(5).map(|id| json!({"id": id, "text": text_of(id)})).collect::<Vec<_>>(),
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
        hippo.add(&q.category, &ranked, &q.evidence);
        bm25.add(&q.category, &bm25_ranked, &q.evidence);
    }
}

/// Cosines of turn pairs at least 50 turns apart (a deterministic sample): what "unrelated"
/// looks like to the embedder, for its §2.3 thresholds.
fn unrelated_pair_cosines(vectors: &[Vec<f32>]) -> Vec<f32> {
    let mut out = Vec::new();
    for i in (0..vectors.len()).step_by(3) {
        for j in ((i + 50)..vectors.len()).step_by(7) {
            out.push(cosine(&vectors[i], &vectors[j]));
        }
    }
    out
}

fn print_table(summary: &Value) {
    println!("LoCoMo retrieval, {} questions", summary["questions"]);
    println!(
        "{:<8} {:>6} {:>6} {:>6} {:>6}",
        "method", "R@1", "R@5", "R@10", "R@20"
    );
    for method in ["hippo", "hippo_strict", "ranking", "bm25"] {
        let r = &summary["results"][method];
        if r.is_null() {
            continue;
        }
        println!(
            "{:<8} {:>6} {:>6} {:>6} {:>6}",
            method, r["r@1"], r["r@5"], r["r@10"], r["r@20"]
        );
        if let Some(cats) = r["by_category"].as_object() {
            for (c, v) in cats {
                println!(
                    "  cat {:<3} {:>6} {:>6} {:>6} {:>6}  ({} questions)",
                    c, v["r@1"], v["r@5"], v["r@10"], v["r@20"], v["questions"]
                );
            }
        }
    }
}
