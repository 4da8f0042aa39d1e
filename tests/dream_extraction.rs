//! Precision and recall of the built-in extractor on the labelled set
//! (`tests/data/extraction_set.json`). Run with `--nocapture` to see the figures and misses;
//! docs/BENCHMARKS.md records them.

use chrono::NaiveDate;
use hippo::conversation::{EntryKind, Role, Turn};
use hippo::dream::extract;
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
    /// `heldout`: labelled after the rules were written, never used to tune them.
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

fn contains_all(haystack: &str, terms: impl IntoIterator<Item = impl AsRef<str>>) -> bool {
    let h = haystack.to_lowercase();
    terms
        .into_iter()
        .all(|t| h.contains(&t.as_ref().to_lowercase()))
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

struct Scores {
    pkg: Tally,
    entities: Tally,
    memories: Tally,
}

impl Scores {
    fn overall(&self) -> Tally {
        let mut t = Tally::default();
        for c in [self.pkg, self.entities, self.memories] {
            t.add(c);
        }
        t
    }
}

/// Scores the items of one split (`None` = every item).
fn score_set(split: Option<&str>) -> Scores {
    let set: Set = serde_json::from_str(include_str!("data/extraction_set.json"))
        .expect("labelled set parses");
    let today = NaiveDate::parse_from_str(&set.today, "%Y-%m-%d").unwrap();
    let ts = Timestamp::from_date(today).plus_days(0);
    let (mut pkg, mut entities, mut memories) =
        (Tally::default(), Tally::default(), Tally::default());
    for (n, item) in set.items.iter().enumerate() {
        if split.is_some() && item.split.as_deref() != split {
            continue;
        }
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
            ts: Timestamp(ts.ms() + 10 * 3_600_000),
            emotion: None,
        };
        let got = extract(&[turn], today);

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
        let (hit, misses) = matched(&predicted_pkg, &expected_pkg, |p, e| {
            p.0 == e.0 && contains_all(&p.1, e.1.split(' '))
        });
        let t = Tally {
            hit,
            predicted: predicted_pkg.len(),
            expected: expected_pkg.len(),
        };
        report(
            &item.text,
            "pkg",
            t,
            misses.iter().map(|&k| format!("{:?}", expected_pkg[k])),
            &predicted_pkg,
        );
        pkg.add(t);

        let (hit, misses) = matched(&got.entity_ops, &item.entities, |p, e| {
            p.name
                .as_deref()
                .is_some_and(|n| n.eq_ignore_ascii_case(&e.name))
                && p.title
                    .as_ref()
                    .is_some_and(|ts| ts.iter().any(|t| t.eq_ignore_ascii_case(&e.title)))
        });
        let t = Tally {
            hit,
            predicted: got.entity_ops.len(),
            expected: item.entities.len(),
        };
        report(
            &item.text,
            "entity",
            t,
            misses.iter().map(|&k| item.entities[k].name.clone()),
            &got.entity_ops,
        );
        entities.add(t);

        let (hit, misses) = matched(&got.memories, &item.memories, |p, e| {
            p.memory_type.as_str() == e.memory_type && contains_all(&p.summary, &e.contains)
        });
        let t = Tally {
            hit,
            predicted: got.memories.len(),
            expected: item.memories.len(),
        };
        let summaries: Vec<String> = got
            .memories
            .iter()
            .map(|m| format!("{}: {}", m.memory_type.as_str(), m.summary))
            .collect();
        report(
            &item.text,
            "memory",
            t,
            misses.iter().map(|&k| {
                format!(
                    "{}{:?}",
                    item.memories[k].memory_type, item.memories[k].contains
                )
            }),
            &summaries,
        );
        memories.add(t);
    }
    Scores {
        pkg,
        entities,
        memories,
    }
}

fn report<T: std::fmt::Debug>(
    text: &str,
    what: &str,
    t: Tally,
    misses: impl Iterator<Item = String>,
    got: &[T],
) {
    let misses: Vec<String> = misses.collect();
    if !misses.is_empty() || t.hit < t.predicted {
        println!("[{what}] {text}\n    missed: {misses:?}\n    got: {got:?}");
    }
}

/// Floors: the measured figures (docs/BENCHMARKS.md) minus a small margin.
/// `(category, precision floor, recall floor)`.
const FLOORS_ALL: [(&str, f64, f64); 4] = [
    ("pkg", 0.95, 0.95),
    ("entities", 0.93, 0.93),
    ("memories", 0.95, 0.95),
    ("overall", 0.95, 0.95),
];
const FLOORS_HELDOUT: (f64, f64) = (0.93, 0.93);

fn print_table(title: &str, s: &Scores) {
    println!("{title}\n| category | expected | predicted | correct | precision | recall |\n|---|---|---|---|---|---|");
    for (name, t) in [
        ("pkg", s.pkg),
        ("entities", s.entities),
        ("memories", s.memories),
        ("overall", s.overall()),
    ] {
        println!(
            "| {name} | {} | {} | {} | {:.3} | {:.3} |",
            t.expected,
            t.predicted,
            t.hit,
            t.precision(),
            t.recall()
        );
    }
}

#[test]
fn built_in_extractor_precision_and_recall_stay_above_floors() {
    let all = score_set(None);
    print_table("all items", &all);
    let rows = [
        ("pkg", all.pkg),
        ("entities", all.entities),
        ("memories", all.memories),
        ("overall", all.overall()),
    ];
    for ((name, t), (floor_name, p, r)) in rows.iter().zip(FLOORS_ALL) {
        assert_eq!(*name, floor_name);
        assert!(
            t.precision() >= p,
            "{name} precision {:.3} fell below {p}",
            t.precision()
        );
        assert!(
            t.recall() >= r,
            "{name} recall {:.3} fell below {r}",
            t.recall()
        );
    }
}

#[test]
fn built_in_extractor_holds_up_on_utterances_it_was_not_tuned_on() {
    let heldout = score_set(Some("heldout"));
    print_table("held-out items", &heldout);
    let t = heldout.overall();
    assert!(
        t.expected >= 50,
        "the held-out split has {} expectations",
        t.expected
    );
    assert!(
        t.precision() >= FLOORS_HELDOUT.0,
        "held-out precision {:.3}",
        t.precision()
    );
    assert!(
        t.recall() >= FLOORS_HELDOUT.1,
        "held-out recall {:.3}",
        t.recall()
    );
}
