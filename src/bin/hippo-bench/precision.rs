//! `hippo-bench precision [--set FILE] [--show] [--json]`: precision of answers on a labelled
//! set (tests/data/precision/set.json: per language one NPC with ~70 memories added with
//! `add_memories` at their dates, and queries labelled with the memories that answer them;
//! some have none, and then the right answer is empty).
//!
//! Four routes over the same ranking, each on a fresh in-memory Hippo (retrieval reinforces
//! what it returns, so routes must not share a store):
//! - "after": memory_retrieval (`retrieve`), `max_results` 5 and 10: relevance floor on;
//! - "before": the search route (`search`, `include_sensitive` false), same `max_results`: it
//!   ranks identically and applies the same archive and fact/turn rules, but no relevance floor.
//!
//! Per language and overall: precision of the returned items (P@k, k = items returned, over
//! queries with a relevant memory; an empty answer counts 0), P@5 (hits in the first 5 / 5),
//! recall, mean items and characters per answer (all queries), and the share of empty answers
//! to queries with no relevant memory. Last line with `--json`: one JSON object.

use crate::args::Args;
use crate::dream::{block_on, in_memory};
use hippo::api::{AddMemoriesRequest, NpcUpsert, RetrievalRequest, SearchRequest};
use hippo::memory::MemoryInput;
use hippo::ports::FixedClock;
use hippo::time::Timestamp;
use hippo::Hippo;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

const DEFAULT_SET: &str = "tests/data/precision/set.json";

#[derive(Deserialize)]
struct Set {
    now: Timestamp,
    npcs: Vec<SetNpc>,
}

#[derive(Deserialize)]
struct SetNpc {
    npcid: String,
    language: String,
    display_name: String,
    user_name: String,
    memories: Vec<SetMemory>,
    queries: Vec<SetQuery>,
}

#[derive(Deserialize)]
struct SetMemory {
    id: String,
    date: String,
    #[serde(rename = "type")]
    memory_type: String,
    summary: String,
}

#[derive(Deserialize)]
struct SetQuery {
    query: String,
    relevant: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Route {
    /// memory_retrieval: the relevance floor applies.
    After,
    /// The search route: the same ranking without the floor.
    Before,
}

impl Route {
    fn name(self) -> &'static str {
        match self {
            Route::After => "after",
            Route::Before => "before",
        }
    }
}

/// Sums over the queries of one language (or all).
#[derive(Default, Clone)]
struct Figures {
    queries: usize,
    answerable: usize,
    precision: f64,
    precision_at_5: f64,
    recall: f64,
    items: usize,
    chars: usize,
    unanswerable: usize,
    unanswerable_empty: usize,
    unanswerable_items: usize,
}

impl Figures {
    fn add(&mut self, returned: &[String], chars: usize, relevant: &HashSet<String>) {
        let hits = returned.iter().filter(|id| relevant.contains(*id)).count();
        let hits_5 = returned
            .iter()
            .take(5)
            .filter(|id| relevant.contains(*id))
            .count();
        self.queries += 1;
        self.items += returned.len();
        self.chars += chars;
        if relevant.is_empty() {
            self.unanswerable += 1;
            self.unanswerable_items += returned.len();
            self.unanswerable_empty += usize::from(returned.is_empty());
            return;
        }
        self.answerable += 1;
        if !returned.is_empty() {
            self.precision += hits as f64 / returned.len() as f64;
        }
        self.precision_at_5 += hits_5 as f64 / 5.0;
        self.recall += hits as f64 / relevant.len() as f64;
    }

    fn merge(&mut self, o: &Figures) {
        self.queries += o.queries;
        self.answerable += o.answerable;
        self.precision += o.precision;
        self.precision_at_5 += o.precision_at_5;
        self.recall += o.recall;
        self.items += o.items;
        self.chars += o.chars;
        self.unanswerable += o.unanswerable;
        self.unanswerable_empty += o.unanswerable_empty;
        self.unanswerable_items += o.unanswerable_items;
    }

    fn to_json(&self) -> Value {
        let r = |x: f64, n: usize| (x / n.max(1) as f64 * 1000.0).round() / 1000.0;
        json!({
            "queries": self.queries,
            "p@k": r(self.precision, self.answerable),
            "p@5": r(self.precision_at_5, self.answerable),
            "recall": r(self.recall, self.answerable),
            "items_per_answer": r(self.items as f64, self.queries),
            "chars_per_answer": (self.chars as f64 / self.queries.max(1) as f64).round(),
            "no_relevant_queries": self.unanswerable,
            "no_relevant_empty_share": r(self.unanswerable_empty as f64, self.unanswerable),
            "no_relevant_items_per_answer": r(self.unanswerable_items as f64, self.unanswerable),
        })
    }
}

/// Labels → the product's ids, after adding the NPC's memories at their dates.
struct Loaded {
    hippo: Hippo,
    clock: Rc<FixedClock>,
    product_id: HashMap<String, String>,
    label_of: HashMap<String, String>,
}

fn load(npc: &SetNpc) -> Result<(Loaded, Vec<String>), String> {
    let (hippo, _store, clock) = in_memory();
    let mut dated: BTreeMap<String, Vec<&SetMemory>> = BTreeMap::new();
    for m in &npc.memories {
        dated.entry(m.date.clone()).or_default().push(m);
    }
    let first = dated.keys().next().cloned().unwrap_or_default();
    let noon = |date: &str| Timestamp::parse(&format!("{date}T12:00:00Z"));
    let created = noon(&first).ok_or(format!("bad date {first:?}"))?;
    clock.set(created.plus_days(-1));
    let mut pkg = indexmap::IndexMap::new();
    pkg.insert("Name".to_string(), json!(npc.user_name));
    let upsert = NpcUpsert {
        display_name: Some(npc.display_name.clone()),
        pkg: Some(pkg),
        ..NpcUpsert::default()
    };
    block_on(hippo.upsert_npc(&npc.npcid, upsert)).map_err(|e| e.to_string())?;
    let mut product_id = HashMap::new();
    let mut notes = Vec::new();
    for (date, memories) in &dated {
        let at = noon(date).ok_or(format!("bad date {date:?}"))?;
        clock.set(at);
        let req = AddMemoriesRequest {
            memories: memories
                .iter()
                .map(|m| MemoryInput {
                    summary: m.summary.clone(),
                    memory_type: m.memory_type.clone(),
                    keywords: Vec::new(),
                    confidence: None,
                    importance: None,
                    source: None,
                    event_time: Some(at),
                    expires_at: None,
                    sensitive: false,
                    sensitive_category: None,
                    pinned: false,
                })
                .collect(),
        };
        let added = block_on(hippo.add_memories(&npc.npcid, req)).map_err(|e| e.to_string())?;
        for (m, r) in memories.iter().zip(&added.results) {
            if r.action != "inserted" {
                notes.push(format!("{} {} ({})", m.id, r.action, r.id));
            }
            if r.sensitive {
                notes.push(format!("{} marked sensitive", m.id));
            }
            product_id.insert(m.id.clone(), r.id.clone());
        }
    }
    let label_of = product_id
        .iter()
        .map(|(l, p)| (p.clone(), l.clone()))
        .collect();
    Ok((
        Loaded {
            hippo,
            clock,
            product_id,
            label_of,
        },
        notes,
    ))
}

/// One answer: (id, text) per item, best first.
fn ask(
    hippo: &Hippo,
    npcid: &str,
    route: Route,
    k: usize,
    query: &str,
) -> Result<Vec<(String, String)>, String> {
    Ok(match route {
        Route::After => {
            let req = RetrievalRequest {
                query: query.to_string(),
                max_results: Some(k as i64),
                ..RetrievalRequest::default()
            };
            block_on(hippo.retrieve(npcid, req))
                .map_err(|e| e.to_string())?
                .memories
                .into_iter()
                .map(|m| (m.id, m.summary))
                .collect()
        }
        Route::Before => {
            let req = SearchRequest {
                query: query.to_string(),
                max_results: Some(k as i64),
                include_sensitive: false,
                ..SearchRequest::default()
            };
            block_on(hippo.search(npcid, req))
                .map_err(|e| e.to_string())?
                .memories
                .into_iter()
                .map(|m| (m.id, m.summary))
                .collect()
        }
    })
}

pub fn run(args: &Args) -> Result<(), String> {
    let path = args.value("set").unwrap_or(DEFAULT_SET);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let set: Set = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let show = args.flag("show");
    println!(
        "precision on {path}: {} NPCs, {} memories, {} queries ({} with no relevant memory)",
        set.npcs.len(),
        set.npcs.iter().map(|n| n.memories.len()).sum::<usize>(),
        set.npcs.iter().map(|n| n.queries.len()).sum::<usize>(),
        set.npcs
            .iter()
            .flat_map(|n| &n.queries)
            .filter(|q| q.relevant.is_empty())
            .count()
    );
    let answerable: Vec<usize> = set
        .npcs
        .iter()
        .flat_map(|n| &n.queries)
        .map(|q| q.relevant.len())
        .filter(|&n| n > 0)
        .collect();
    let ceiling = answerable
        .iter()
        .map(|&n| n.min(5) as f64 / 5.0)
        .sum::<f64>()
        / answerable.len().max(1) as f64;
    println!("P@k, P@5 and recall over the {} queries with a relevant memory (P@5 can reach at most {ceiling:.3} here); items and chars over all; empty(0) = empty answers / queries with no relevant memory", answerable.len());
    println!("after = memory_retrieval (relevance floor); before = the search route (same ranking and rules, no floor, include_sensitive false)");
    println!(
        "{:<7} {:>2} {:<4} {:>6} {:>6} {:>6} {:>6} {:>6} {:>9}",
        "route", "k", "lang", "P@k", "P@5", "recall", "items", "chars", "empty(0)"
    );
    let mut results = serde_json::Map::new();
    let mut notes_printed = false;
    for route in [Route::Before, Route::After] {
        for k in [5usize, 10] {
            let mut all = Figures::default();
            let mut by_lang = serde_json::Map::new();
            for npc in &set.npcs {
                let (loaded, notes) = load(npc)?;
                if !notes_printed && !notes.is_empty() {
                    println!("  {}: {}", npc.language, notes.join("; "));
                }
                loaded.clock.set(set.now);
                let mut f = Figures::default();
                for q in &npc.queries {
                    let relevant: HashSet<String> = q
                        .relevant
                        .iter()
                        .map(|l| loaded.product_id.get(l).cloned().unwrap_or_default())
                        .collect();
                    let answer = ask(&loaded.hippo, &npc.npcid, route, k, &q.query)?;
                    let ids: Vec<String> = answer.iter().map(|(id, _)| id.clone()).collect();
                    let chars = answer.iter().map(|(_, s)| s.chars().count()).sum();
                    f.add(&ids, chars, &relevant);
                    if show && k == 5 {
                        println!("  [{} k{k}] {} → {:?}", route.name(), q.query, q.relevant);
                        for (id, s) in &answer {
                            let label = loaded.label_of.get(id).map_or(id.as_str(), |l| l);
                            let mark = if relevant.contains(id) { "+" } else { " " };
                            println!("      {mark} {label}: {s}");
                        }
                    }
                }
                print_row(route.name(), k, &npc.language, &f);
                by_lang.insert(npc.language.clone(), f.to_json());
                all.merge(&f);
            }
            notes_printed = true;
            print_row(route.name(), k, "all", &all);
            by_lang.insert("all".into(), all.to_json());
            results.insert(format!("{}_{k}", route.name()), Value::Object(by_lang));
        }
    }
    if args.flag("json") {
        println!(
            "{}",
            json!({
                "set": path,
                "p@5_ceiling": (ceiling * 1000.0).round() / 1000.0,
                "routes": {
                    "after": "memory_retrieval (retrieve): relevance floor on",
                    "before": "search route: same ranking, archive and fact/turn rules, no relevance floor, include_sensitive false"
                },
                "results": results,
            })
        );
    }
    Ok(())
}

fn print_row(route: &str, k: usize, lang: &str, f: &Figures) {
    let n = f.answerable.max(1) as f64;
    println!(
        "{:<7} {:>2} {:<4} {:>6.3} {:>6.3} {:>6.3} {:>6.2} {:>6.0} {:>9}",
        route,
        k,
        lang,
        f.precision / n,
        f.precision_at_5 / n,
        f.recall / n,
        f.items as f64 / f.queries.max(1) as f64,
        f.chars as f64 / f.queries.max(1) as f64,
        format!("{}/{}", f.unanswerable_empty, f.unanswerable)
    );
}
