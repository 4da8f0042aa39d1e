//! The LoCoMo retrieval task of data/locomo/README.md, for Hippo and the BM25 baseline.
//!
//! Items: one per turn, "Speaker: text" plus " [shares image: caption]", timed at the session's
//! date. Questions: those whose evidence ids are all well formed (`D<session>:<turn>`). Metric:
//! recall@k = share of a question's evidence turns in the top k, averaged over questions.
//!
//! Hippo runs exactly as the engine would: candidates = lexical top-N ∪ embedder top-N, then the
//! core's `rank` with the lexical index's corpus statistics; every item has the same strength
//! (no reinforcement). A turn's neighbours in its session are its context field.
//!
//! With `HIPPO_EMBED=openai` (see [`crate::model`]) the ranking-only mode has two more rows:
//! `hippo+model` (the same ranking with the model's vectors and `WEIGHTS_MODEL_EMBEDDINGS`, as a
//! deployment with that embedder runs it) and `model` (the model alone: items by cosine to the
//! query).

use crate::args::Args;
use crate::baseline::Bm25;
use crate::model::Model;
use chrono::NaiveDateTime;
use hippo::memory::MemoryType;
use hippo::ports::EmbedKind;
use hippo::retrieval::embed::{cosine, BuiltinEmbedder};
use hippo::retrieval::lexical::LexicalIndex;
use hippo::retrieval::query::{Names, Speaker};
use hippo::retrieval::rank::query_terms;
use hippo::retrieval::rank::{
    rank_with, Candidate, CandidateKind, RankRequest, VectorScale, Weights, LEXICAL_CANDIDATES,
    TIME_CANDIDATES, TIME_TURNS_MAX_DAYS, VECTOR_CANDIDATES, WEIGHTS, WEIGHTS_MODEL_EMBEDDINGS,
};
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
    /// Cosines of the method's embedder between turns far apart (threshold calibration).
    pair_cosines: Vec<f32>,
    /// Cosines of each question to its evidence, and to every item (the relevance floor).
    evidence_cosines: Vec<f32>,
    item_cosines: Vec<f32>,
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

/// What one run measures, besides the data.
struct Setup<'a> {
    weights: Weights,
    model_weights: Weights,
    model: Option<&'a Model>,
    vector_all: bool,
    dump: Option<&'a str>,
}

/// One tally per method.
#[derive(Default)]
struct Tallies {
    hippo: Tally,
    bm25: Tally,
    fused: Tally,
    model: Tally,
}

pub fn run(args: &Args) -> Result<(), String> {
    let path = args.value("data").ok_or("locomo needs --data FILE")?;
    let raw = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let samples: Vec<Value> = serde_json::from_str(&raw).map_err(|e| format!("{path}: {e}"))?;
    let (first, last) = args
        .range("convs")?
        .unwrap_or((0, samples.len().saturating_sub(1)));
    // A deterministic subset: every Nth sample of the range, from its first.
    let every: usize = match args.value("sample-every") {
        None => 1,
        Some(n) => n.parse().ok().filter(|n| *n > 0).ok_or(format!(
            "--sample-every expects a positive integer, got {n:?}"
        ))?,
    };
    let end_to_end = match args.value("mode").unwrap_or("e2e") {
        "e2e" => true,
        "ranking" => false,
        other => return Err(format!("--mode is e2e or ranking, not {other:?}")),
    };
    let model = crate::model::from_env()?;
    if model.is_some() && end_to_end {
        return Err(
            "a model (HIPPO_EMBED=openai) is measured ranking-only: add --mode ranking".into(),
        );
    }
    let setup = Setup {
        weights: weights_from(args.value("weights"), WEIGHTS)?,
        model_weights: weights_from(args.value("model-weights"), WEIGHTS_MODEL_EMBEDDINGS)?,
        model: model.as_ref(),
        vector_all: args.flag("vector-all"),
        dump: args.value("dump"),
    };
    let dreams = crate::e2e::DreamSchedule::parse(args.value("dreams").unwrap_or("nightly"))?;
    let mut product = crate::e2e::Product::default();
    let mut tallies = Tallies::default();
    for (index, sample) in samples.iter().enumerate() {
        if index < first || index > last || (index - first) % every != 0 {
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
        evaluate(&conv, &setup, &mut tallies)?;
    }
    let summary = if end_to_end {
        let mut s = product.summary();
        if tallies.hippo.count > 0 {
            s["results"]["ranking"] = tallies.hippo.to_json();
            s["results"]["bm25"] = tallies.bm25.to_json();
        }
        product.print();
        s
    } else {
        let mut results = serde_json::Map::new();
        results.insert("hippo".into(), tallies.hippo.to_json());
        if let Some(model) = &model {
            results.insert("hippo+model".into(), tallies.fused.to_json());
            results.insert("model".into(), tallies.model.to_json());
            let (texts, seconds) = *model.embedded.borrow();
            if texts > 0 {
                println!(
                    "{}: {texts} texts embedded in {seconds:.0} s ({:.2} texts/s); the rest from the cache",
                    model.name(),
                    texts as f64 / seconds.max(1e-9)
                );
            }
        }
        results.insert("bm25".into(), tallies.bm25.to_json());
        json!({
            "questions": tallies.hippo.count,
            "mode": "ranking",
            "sample_every": every,
            "model": model.as_ref().map(|m| m.name()),
            "results": results,
        })
    };
    print_table(&summary);
    print_cosines("built-in embedder", &mut tallies.hippo);
    if let Some(model) = &model {
        print_cosines(model.name(), &mut tallies.model);
    }
    if args.flag("json") {
        println!("{summary}");
    }
    Ok(())
}

/// The distributions an embedder's thresholds are read from.
fn print_cosines(name: &str, tally: &mut Tally) {
    for (what, cosines) in [
        ("distant turn pairs", &mut tally.pair_cosines),
        ("question-evidence pairs", &mut tally.evidence_cosines),
        ("question-item pairs", &mut tally.item_cosines),
    ] {
        if cosines.is_empty() {
            continue;
        }
        cosines.sort_by(f32::total_cmp);
        let at = |p: f64| cosines[((cosines.len() - 1) as f64 * p) as usize];
        println!(
            "{name}, {} {what}: cosine p1 {:.3}, p10 {:.3}, p50 {:.3}, p90 {:.3}, p99 {:.3}, p99.9 {:.3}, max {:.3}",
            cosines.len(),
            at(0.01),
            at(0.1),
            at(0.5),
            at(0.9),
            at(0.99),
            at(0.999),
            at(1.0)
        );
    }
}

/// `--weights lexical=1,vector=0.5,…` overrides for exploration; the default is the core's.
fn weights_from(spec: Option<&str>, base: Weights) -> Result<Weights, String> {
    let mut w = base;
    for part in spec.unwrap_or("").split(',').filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').ok_or(format!("bad weight {part:?}"))?;
        if name == "vector_scale" {
            w.vector_scale = match value {
                "raw" => VectorScale::Raw,
                "minmax" => VectorScale::MinMax,
                _ => return Err(format!("vector_scale is raw or minmax, got {value:?}")),
            };
            continue;
        }
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
            "topic" => &mut w.topic,
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

/// The candidates the engine would gather for one question: `gathered`, the lexical index's
/// best (the first `lexical`) and the named period's turns, with, for a model (`scan`), the
/// vector index's nearest (with their similarity; the others have one only under
/// `--vector-all`). The built-in embedder's vectors only score the lexical index's best (the
/// engine does not scan them).
fn candidates(
    conv: &Conversation,
    similarities: &[f32],
    (gathered, lexical): (&[usize], usize),
    scan: bool,
    vector_all: bool,
) -> Vec<Candidate> {
    let mut chosen: Vec<(usize, Option<f32>)> = Vec::new();
    if scan {
        let mut nearest: Vec<(usize, f32)> = similarities.iter().copied().enumerate().collect();
        nearest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        nearest.truncate(VECTOR_CANDIDATES);
        chosen.extend(nearest.iter().map(|&(i, s)| (i, Some(s))));
    }
    for (at, &i) in gathered.iter().enumerate() {
        if !chosen.iter().any(|c| c.0 == i) {
            let scored = vector_all || (!scan && at < lexical);
            chosen.push((i, scored.then(|| similarities[i])));
        }
    }
    chosen
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
            c.vector_similarity = similarity;
            c
        })
        .collect()
}

fn evaluate(conv: &Conversation, setup: &Setup, tallies: &mut Tallies) -> Result<(), String> {
    let embedder = BuiltinEmbedder::new();
    let mut index = LexicalIndex::new();
    let mut vectors = Vec::with_capacity(conv.items.len());
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for (i, item) in conv.items.iter().enumerate() {
        index.add_with_context(&item.id, &item.text, &[], &item.context);
        vectors.push(embedder.embed_text(&item.text));
        by_id.insert(&item.id, i);
    }
    tallies
        .hippo
        .pair_cosines
        .extend(unrelated_pair_cosines(&vectors));
    // The model embeds what the product embeds: each turn as a document, each question as a
    // query.
    let model_vectors = match setup.model {
        Some(model) => {
            let items: Vec<String> = conv.items.iter().map(|i| i.text.clone()).collect();
            let questions: Vec<String> = conv.questions.iter().map(|q| q.text.clone()).collect();
            let items = model.embed(EmbedKind::Document, &items)?;
            let questions = model.embed(EmbedKind::Query, &questions)?;
            tallies
                .model
                .pair_cosines
                .extend(unrelated_pair_cosines(&items));
            Some((items, questions))
        }
        None => None,
    };
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
    for (qi, q) in conv.questions.iter().enumerate() {
        let now = q.date.unwrap_or(now);
        let terms = query_terms(&q.text, &conv.names);
        let time_range = hippo::retrieval::query::analyse(&q.text, &conv.names)
            .time_words_apply
            .then(|| parse_time_range(&q.text, now.date()))
            .flatten();
        // The lexical index's best, then the turns of the period the question names, as the
        // engine adds them.
        let mut gathered: Vec<usize> = index
            .search(&terms, LEXICAL_CANDIDATES)
            .into_iter()
            .map(|(id, _)| by_id[id.as_str()])
            .collect();
        let lexical = gathered.len();
        if let Some(range) = time_range.filter(|r| r.days() <= TIME_TURNS_MAX_DAYS) {
            let then = (0..conv.items.len()).filter(|&i| range.contains(conv.items[i].time));
            gathered.extend(then.take(TIME_CANDIDATES));
        }
        let stats = index.stats(&terms);
        let req = RankRequest {
            query: q.text.clone(),
            types: Vec::new(),
            time_range,
            max_results: 20,
            debug: false,
            now,
            names: conv.names.clone(),
            min_vector_similarity: hippo::retrieval::embed::THRESHOLDS.relevant,
        };
        let ids = |ranked: Vec<hippo::retrieval::rank::Ranked>| -> Vec<String> {
            ranked.into_iter().map(|r| r.candidate.id).collect()
        };
        let query_vector = embedder.embed_text(&q.text);
        let similarities: Vec<f32> = vectors.iter().map(|v| cosine(&query_vector, v)).collect();
        let ranked = ids(rank_with(
            &setup.weights,
            &req,
            candidates(
                conv,
                &similarities,
                (&gathered, lexical),
                false,
                setup.vector_all,
            ),
            &stats,
        ));
        let mut fused_ranked = None;
        let mut model_ranked: Option<Vec<String>> = None;
        if let (Some((items, questions)), Some(model)) = (&model_vectors, setup.model) {
            let similarities: Vec<f32> = items.iter().map(|v| cosine(&questions[qi], v)).collect();
            let mut dense: Vec<usize> = (0..items.len()).collect();
            dense.sort_by(|&a, &b| similarities[b].total_cmp(&similarities[a]).then(a.cmp(&b)));
            let dense: Vec<String> = dense
                .iter()
                .take(20)
                .map(|&i| conv.items[i].id.clone())
                .collect();
            tallies.model.add(&q.category, &dense, &q.evidence);
            model_ranked = Some(dense.clone());
            let evidence = q.evidence.iter().filter_map(|e| by_id.get(e.as_str()));
            tallies
                .model
                .evidence_cosines
                .extend(evidence.map(|&i| similarities[i]));
            tallies
                .model
                .item_cosines
                .extend(similarities.iter().step_by(7));
            let req = RankRequest {
                min_vector_similarity: model.thresholds().relevant,
                ..req.clone()
            };
            let fused = ids(rank_with(
                &setup.model_weights,
                &req,
                candidates(
                    conv,
                    &similarities,
                    (&gathered, lexical),
                    true,
                    setup.vector_all,
                ),
                &stats,
            ));
            tallies.fused.add(&q.category, &fused, &q.evidence);
            fused_ranked = Some(fused);
        }
        let bm25_ranked = baseline.search(&q.text, 20);
        if let Some(path) = setup.dump {
            let text_of = |id: &str| {
                by_id
                    .get(id)
                    .map(|&i| conv.items[i].text.chars().take(160).collect::<String>())
            };
            let top = fused_ranked.as_ref().unwrap_or(&ranked);
            let line = json!({
                "question": q.text,
                "category": q.category,
                "evidence": q.evidence.iter().map(|e| json!({
                    "id": e,
                    "rank": ranked.iter().position(|r| r == e),
                    "fused_rank": fused_ranked.as_ref().map(|f| f.iter().position(|r| r == e)),
                    "bm25_rank": bm25_ranked.iter().position(|r| r == e),
                    "model_rank": model_ranked.as_ref().map(|f| f.iter().position(|r| r == e)),
                    "text": text_of(e),
                })).collect::<Vec<_>>(),
                "top": top.iter().take(5).map(|id| json!({"id": id, "text": text_of(id)})).collect::<Vec<_>>(),
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
        tallies.hippo.add(&q.category, &ranked, &q.evidence);
        tallies.bm25.add(&q.category, &bm25_ranked, &q.evidence);
    }
    Ok(())
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
        "{:<12} {:>6} {:>6} {:>6} {:>6}",
        "method", "R@1", "R@5", "R@10", "R@20"
    );
    let methods = summary["results"].as_object().into_iter().flatten();
    for (method, r) in methods {
        println!(
            "{:<12} {:>6} {:>6} {:>6} {:>6}",
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
