//! Precision and recall of the built-in extractor on the labelled sets, per category and per
//! language (labelling guide and matching rules: `tests/data/extraction/README.md`).
//!
//! `cargo test -p hippo --test dream_extraction -- --nocapture` prints the figures and the
//! misses of the tuning sets; docs/BENCHMARKS.md records them. The misses of the held-out
//! set stay hidden (reading them would steer the rules) unless `HIPPO_SHOW_HELDOUT=1`.

use chrono::NaiveDate;
use hippo::conversation::{EntryKind, Role, Turn};
use hippo::dream::extract;
use hippo::text::{lang_of, Lang};
use hippo::time::Timestamp;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct Set {
    today: String,
    items: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    text: String,
    #[serde(default)]
    role: Option<String>,
    /// In `extraction_set.json`: `heldout` items were labelled after its rules were written.
    #[serde(default)]
    split: Option<String>,
    #[serde(default)]
    pkg: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    entities: Vec<ExpectedEntity>,
    #[serde(default)]
    memories: Vec<ExpectedMemory>,
}

#[derive(Deserialize)]
struct ExpectedEntity {
    name: String,
    title: String,
}

#[derive(Deserialize)]
struct ExpectedMemory {
    #[serde(rename = "type")]
    memory_type: String,
    contains: Vec<String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    date: Option<String>,
}

/// True positives, predictions and expectations of one category.
#[derive(Default, Clone, Copy)]
struct Tally {
    hit: usize,
    predicted: usize,
    expected: usize,
}

impl Tally {
    fn precision(self) -> f64 {
        if self.predicted == 0 {
            1.0
        } else {
            self.hit as f64 / self.predicted as f64
        }
    }
    fn recall(self) -> f64 {
        if self.expected == 0 {
            1.0
        } else {
            self.hit as f64 / self.expected as f64
        }
    }
    fn add(&mut self, other: Tally) {
        self.hit += other.hit;
        self.predicted += other.predicted;
        self.expected += other.expected;
    }
}

/// `term` is `a|b|…`: any alternative found in `haystack`, ignoring case.
fn has(haystack: &str, term: &str) -> bool {
    let h = haystack.to_lowercase();
    term.split('|').any(|t| h.contains(&t.to_lowercase()))
}

/// `options` is `a|b|…`: `value` equals one of them, ignoring case.
fn is_one_of(value: &str, options: &str) -> bool {
    options.split('|').any(|o| o.eq_ignore_ascii_case(value))
}

/// Greedy one-to-one matching of predictions to expectations.
fn matched<P, E>(
    predicted: &[P],
    expected: &[E],
    fits: impl Fn(&P, &E) -> bool,
) -> (usize, Vec<usize>) {
    let mut used = vec![false; predicted.len()];
    let mut misses = Vec::new();
    let mut hit = 0;
    for (k, e) in expected.iter().enumerate() {
        match (0..predicted.len()).find(|&i| !used[i] && fits(&predicted[i], e)) {
            Some(i) => {
                used[i] = true;
                hit += 1;
            }
            None => misses.push(k),
        }
    }
    (hit, misses)
}

const CATEGORIES: [&str; 3] = ["pkg", "entities", "memories"];

/// Tallies by language (`zh`, `en`) and category.
#[derive(Default)]
struct Scores {
    by: BTreeMap<(&'static str, &'static str), Tally>,
}

impl Scores {
    fn get(&self, lang: &str, category: &str) -> Tally {
        let mut t = Tally::default();
        for ((l, c), v) in &self.by {
            if (lang == "all" || *l == lang) && (category == "all" || *c == category) {
                t.add(*v);
            }
        }
        t
    }
}

fn load(path: &str) -> Set {
    let text = std::fs::read_to_string(format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Scores the items of a set (of one `split` when given); prints misses when `show`.
fn score(path: &str, split: Option<&str>, show: bool) -> Scores {
    let set = load(path);
    let today = NaiveDate::parse_from_str(&set.today, "%Y-%m-%d").unwrap();
    let said_at = Timestamp(Timestamp::from_date(today).ms() + 10 * 3_600_000);
    let mut scores = Scores::default();
    for (n, item) in set.items.iter().enumerate() {
        if split.is_some() && item.split.as_deref() != split {
            continue;
        }
        let lang = match lang_of(&item.text) {
            Lang::Zh => "zh",
            Lang::En => "en",
        };
        let turn = Turn {
            id: format!("t{n}"),
            seq: n as u64 + 1,
            session_id: None,
            turn_index: None,
            kind: EntryKind::Turn,
            role: Some(if item.role.as_deref() == Some("assistant") {
                Role::Assistant
            } else {
                Role::User
            }),
            content: item.text.clone(),
            ts: said_at,
            emotion: None,
        };
        let got = extract(&[turn], today);
        let mut misses: Vec<String> = Vec::new();

        let predicted_pkg: Vec<(String, String)> = got
            .pkg_updates
            .iter()
            .flat_map(|u| match &u.value {
                serde_json::Value::Array(items) => items
                    .iter()
                    .filter_map(|v| v.as_str())
                    .map(|v| (u.key.clone(), v.to_string()))
                    .collect(),
                v => vec![(u.key.clone(), v.as_str().unwrap_or_default().to_string())],
            })
            .collect();
        let expected_pkg: Vec<(String, String)> = item
            .pkg
            .iter()
            .flat_map(|(k, vs)| vs.iter().map(move |v| (k.clone(), v.clone())))
            .collect();
        let (hit, missed) = matched(&predicted_pkg, &expected_pkg, |p, e| {
            p.0 == e.0 && e.1.split(' ').all(|t| has(&p.1, t))
        });
        misses.extend(missed.iter().map(|&k| format!("pkg {:?}", expected_pkg[k])));
        let pkg = Tally {
            hit,
            predicted: predicted_pkg.len(),
            expected: expected_pkg.len(),
        };

        let (hit, missed) = matched(&got.entity_ops, &item.entities, |p, e| {
            p.name.as_deref().is_some_and(|n| is_one_of(n, &e.name))
                && p.title
                    .as_ref()
                    .is_some_and(|ts| ts.iter().any(|t| is_one_of(t, &e.title)))
        });
        misses.extend(missed.iter().map(|&k| {
            let e = &item.entities[k];
            format!("entity {} ({})", e.name, e.title)
        }));
        let entities = Tally {
            hit,
            predicted: got.entity_ops.len(),
            expected: item.entities.len(),
        };

        let (hit, missed) = matched(&got.memories, &item.memories, |p, e| {
            is_one_of(p.memory_type.as_str(), &e.memory_type)
                && e.contains.iter().all(|t| has(&p.summary, t))
                && !e.absent.iter().any(|t| has(&p.summary, t))
                && e.date.as_deref().is_none_or(|d| {
                    p.event_time
                        .is_some_and(|t| t.date().format("%Y-%m-%d").to_string() == d)
                })
        });
        misses.extend(missed.iter().map(|&k| {
            let e = &item.memories[k];
            format!(
                "memory {} {:?} date {:?}",
                e.memory_type, e.contains, e.date
            )
        }));
        let memories = Tally {
            hit,
            predicted: got.memories.len(),
            expected: item.memories.len(),
        };

        let wrong = pkg.hit < pkg.predicted
            || entities.hit < entities.predicted
            || memories.hit < memories.predicted;
        if show && (wrong || !misses.is_empty()) {
            println!("--- {}", item.text);
            for m in &misses {
                println!("    missed {m}");
            }
            println!("    got pkg {predicted_pkg:?}");
            for op in &got.entity_ops {
                println!(
                    "    got entity {} {:?}",
                    op.name.as_deref().unwrap_or(""),
                    op.title.as_deref().unwrap_or(&[])
                );
            }
            for m in &got.memories {
                println!(
                    "    got memory {}: {} {:?}",
                    m.memory_type.as_str(),
                    m.summary,
                    m.event_time.map(|t| t.date())
                );
            }
        }
        for (category, t) in CATEGORIES.into_iter().zip([pkg, entities, memories]) {
            scores.by.entry((lang, category)).or_default().add(t);
        }
    }
    scores
}

fn print_table(title: &str, s: &Scores) {
    println!("\n{title}\n| lang | category | expected | predicted | correct | precision | recall |\n|---|---|---|---|---|---|---|");
    for lang in ["zh", "en", "all"] {
        for category in CATEGORIES.into_iter().chain(["all"]) {
            let t = s.get(lang, category);
            println!(
                "| {lang} | {category} | {} | {} | {} | {:.3} | {:.3} |",
                t.expected,
                t.predicted,
                t.hit,
                t.precision(),
                t.recall()
            );
        }
    }
}

/// `(lang, category, precision floor, recall floor)`.
type Floors = [(&'static str, &'static str, f64, f64)];

fn assert_floors(name: &str, s: &Scores, floors: &Floors) {
    for &(lang, category, p, r) in floors {
        let t = s.get(lang, category);
        assert!(
            t.precision() >= p && t.recall() >= r,
            "{name} {lang} {category}: precision {:.3} (floor {p}), recall {:.3} (floor {r})",
            t.precision(),
            t.recall()
        );
    }
}

/// The first rules' set: floors are the measured figures minus a small margin.
const FLOORS_RULES: &Floors = &[
    ("all", "pkg", 0.95, 0.95),
    ("all", "entities", 0.93, 0.93),
    ("all", "memories", 0.95, 0.95),
    ("all", "all", 0.95, 0.95),
];
const FLOORS_RULES_HELDOUT: &Floors = &[("all", "all", 0.93, 0.93)];

#[test]
fn built_in_extractor_holds_on_the_set_its_first_rules_were_written_for() {
    let all = score("extraction_set.json", None, true);
    print_table("extraction_set.json (all items)", &all);
    assert_floors("extraction_set.json", &all, FLOORS_RULES);
    let heldout = score("extraction_set.json", Some("heldout"), false);
    print_table("extraction_set.json (its held-out items)", &heldout);
    assert!(heldout.get("all", "all").expected >= 50);
    assert_floors(
        "extraction_set.json heldout",
        &heldout,
        FLOORS_RULES_HELDOUT,
    );
}

/// Floors at the figures measured on the held-out set (docs/BENCHMARKS.md), rounded down:
/// a guard against regressions. Every row meets the target (≥ 0.85 / ≥ 0.75) since
/// the fifth round; Chinese PKG precision went 0.951 → 0.930 with it (recall 0.796 → 0.816).
const FLOORS_HELDOUT: &Floors = &[
    ("zh", "pkg", 0.92, 0.81),
    ("zh", "entities", 0.91, 0.80),
    ("zh", "memories", 0.91, 0.78),
    ("en", "pkg", 0.85, 0.80),
    ("en", "entities", 0.90, 0.86),
    ("en", "memories", 0.93, 0.75),
];

#[test]
fn built_in_extractor_on_the_held_out_set() {
    let show = std::env::var("HIPPO_SHOW_HELDOUT").is_ok_and(|v| v == "1");
    let s = score("extraction/heldout.json", None, show);
    print_table("extraction/heldout.json", &s);
    assert!(s.get("zh", "all").expected >= 100 && s.get("en", "all").expected >= 100);
    assert_floors("heldout", &s, FLOORS_HELDOUT);
}

/// Floors at the figures measured on the dev set (docs/BENCHMARKS.md), rounded down.
const FLOORS_DEV: &Floors = &[
    ("zh", "pkg", 0.99, 0.90),
    ("zh", "entities", 0.99, 0.87),
    ("zh", "memories", 0.95, 0.87),
    ("en", "pkg", 0.96, 0.85),
    ("en", "entities", 0.99, 0.88),
    ("en", "memories", 0.95, 0.87),
];

#[test]
fn built_in_extractor_on_the_dev_set() {
    let s = score("extraction/dev.json", None, true);
    print_table("extraction/dev.json", &s);
    assert!(s.get("zh", "all").expected >= 100 && s.get("en", "all").expected >= 100);
    assert_floors("dev", &s, FLOORS_DEV);
}

/// Floors at the figures measured on the second dev set (docs/BENCHMARKS.md), rounded down.
const FLOORS_DEV2: &Floors = &[
    ("zh", "pkg", 0.89, 0.84),
    ("zh", "entities", 0.99, 0.90),
    ("zh", "memories", 0.92, 0.84),
    ("en", "pkg", 0.95, 0.73),
    ("en", "entities", 0.99, 0.93),
    ("en", "memories", 0.93, 0.79),
];

#[test]
fn built_in_extractor_on_the_second_dev_set() {
    let s = score("extraction/dev2.json", None, true);
    print_table("extraction/dev2.json", &s);
    assert!(s.get("zh", "all").expected >= 50 && s.get("en", "all").expected >= 50);
    assert_floors("dev2", &s, FLOORS_DEV2);
}

/// Floors at the figures measured on the third dev set (docs/BENCHMARKS.md), rounded down.
/// Mostly Chinese: it was written for the held-out set's weakest figure, Chinese memories.
const FLOORS_DEV3: &Floors = &[
    ("zh", "pkg", 0.85, 0.72),
    ("zh", "entities", 0.99, 0.92),
    ("zh", "memories", 0.92, 0.84),
];

#[test]
fn built_in_extractor_on_the_third_dev_set() {
    let s = score("extraction/dev3.json", None, true);
    print_table("extraction/dev3.json", &s);
    assert!(s.get("zh", "all").expected >= 70);
    assert_floors("dev3", &s, FLOORS_DEV3);
}
