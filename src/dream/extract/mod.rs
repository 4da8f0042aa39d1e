//! The built-in extractor: explicit statements of the user, in Chinese and English, become
//! relationship entity ops, PKG updates and typed memories, without an LLM.
//!
//! Only user turns state facts about the user; assistant turns are context. Each sentence is
//! read by the rules of its language ([`zh`], [`en`]); a "remember …" / "记住…" prefix wraps
//! the rest of the sentence and lifts what it yields to the top importance.
//!
//! ## Importance by signal
//! | signal | importance | examples |
//! |---|---|---|
//! | explicit remember | 0.95 | 记住…, 别忘了…, remember that …, don't forget … |
//! | secret phrase | 0.90 | 我们的暗号是…, our secret phrase is … |
//! | constraint | 0.85 | 我对花生过敏, I can't eat …, 不要用Python |
//! | emotional | 0.80 | a strongly felt turn with no other fact in it |
//! | deadline / appointment | 0.75 | 明天下午三点看牙医, dentist on May 8 |
//! | identity | 0.70 | 我叫…, call me …, my birthday is … |
//! | relation | 0.65 | 我的同学小红, my sister Anna |
//! | preference, style, profile | 0.60 | 我喜欢…, answer in bullet points, I live in … |
//! | decision | 0.50 | 我决定…, I'm going to … |
//! | general | 0.30 | anything else worth keeping |
//!
//! Feeling raises importance: a memory from a turn with emotion intensity `e` gets
//! `importance + (1 − importance) × 0.4 × e`. Confidence is 0.9 for a plain statement, 0.6
//! when hedged ("可能", "maybe"), 0.95 when the user asked us to remember it.

mod en;
pub mod lexicon;
mod zh;

use crate::conversation::{Role, Turn};
use crate::dream::emotion;
use crate::memory::MemoryType;
use crate::pkg::{item_limit, PkgUpdate};
use crate::relationship::{EntityOp, OpKind};
use crate::text::{self, Lang};
use crate::time::when;
use crate::time::Timestamp;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// What a dream extracts from conversation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Extraction {
    pub entity_ops: Vec<EntityOp>,
    pub pkg_updates: Vec<PkgUpdate>,
    pub memories: Vec<ExtractedMemory>,
    pub emotions: Vec<EmotionSnippet>,
}

/// A typed memory to add through conflict resolution, with `source: "dream_extraction"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractedMemory {
    pub summary: String,
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    pub keywords: Vec<String>,
    pub importance: f64,
    pub confidence: f64,
    pub event_time: Option<Timestamp>,
    /// Never handed to a live character (passwords).
    #[serde(default)]
    pub sensitive: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive_category: Option<crate::sensitive::Category>,
    /// The user asked, in the turn it came from, to remember this ("记住这件事", "remember
    /// this"): stored pinned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

/// An emotionally salient snippet for the `emotion` collection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmotionSnippet {
    pub text: String,
    pub label: String,
    pub intensity: f64,
    pub ts: Timestamp,
}

/// The `source` of every memory a dream extracts.
pub const SOURCE: &str = "dream_extraction";

/// Longest emotion snippet kept, in characters.
pub const MAX_SNIPPET_CHARS: usize = 280;

/// Why a memory matters; sets its importance (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Remember,
    Secret,
    Constraint,
    Emotional,
    Deadline,
    Identity,
    Relation,
    Preference,
    Decision,
    General,
}

impl Signal {
    pub fn importance(self) -> f64 {
        match self {
            Signal::Remember => 0.95,
            Signal::Secret => 0.9,
            Signal::Constraint => 0.85,
            Signal::Emotional => 0.8,
            Signal::Deadline => 0.75,
            Signal::Identity => 0.7,
            Signal::Relation => 0.65,
            Signal::Preference => 0.6,
            Signal::Decision => 0.5,
            Signal::General => 0.3,
        }
    }
}

const CONFIDENCE_PLAIN: f64 = 0.9;
const CONFIDENCE_HEDGED: f64 = 0.6;
const CONFIDENCE_REMEMBER: f64 = 0.95;
/// How much a turn's feeling lifts the importance of what it said.
const EMOTION_LIFT: f64 = 0.4;
/// A turn this intense with no other fact becomes an emotional memory of its own.
const EMOTIONAL_MEMORY_MIN: f64 = 0.6;
/// Feelings that say how the user is, rather than thank or compliment someone.
const LIFE_FEELINGS: [&str; 4] = ["joy", "sadness", "anger", "fear"];

/// Extracts from the user turns of `turns`. Relative dates ("明天", "next Monday") resolve
/// against the day each turn was said; `today` serves turns without a timestamp.
pub fn extract(turns: &[Turn], today: NaiveDate) -> Extraction {
    let mut found = Found::default();
    for turn in turns {
        let day = if turn.ts.ms() > 0 {
            turn.ts.date()
        } else {
            today
        };
        if turn.role == Some(Role::Assistant) {
            for sentence in text::sentences(&turn.content) {
                promise(sentence, day, &mut found);
            }
            continue;
        }
        if turn.role != Some(Role::User) {
            continue;
        }
        let feeling = emotion::detect(&turn.content);
        let first_memory = found.memories.len();
        let mut pin = false;
        for sentence in text::sentences(&turn.content) {
            // "记住这件事" / "remember this" asks to keep what the turn says, and is not a
            // fact itself: only what is left of its sentence is read.
            let sentence = match pin_request(sentence) {
                Some(rest) => {
                    pin = true;
                    rest
                }
                None => sentence,
            };
            if !sentence.is_empty() {
                extract_sentence(sentence, day, &mut found);
            }
        }
        if let Some((label, intensity)) = feeling {
            let new = &mut found.memories[first_memory..];
            for m in new.iter_mut() {
                m.importance =
                    round2(m.importance + (1.0 - m.importance) * EMOTION_LIFT * intensity);
            }
            if new.is_empty() && intensity >= EMOTIONAL_MEMORY_MIN {
                found.memories.extend(emotional_memory(turn, day));
            }
            found.emotions.push(EmotionSnippet {
                text: text::cut_chars(turn.content.trim(), MAX_SNIPPET_CHARS).to_string(),
                label,
                intensity,
                ts: turn.ts,
            });
        }
        if pin {
            for m in &mut found.memories[first_memory..] {
                m.pinned = true;
                m.importance = m.importance.max(Signal::Remember.importance());
                m.confidence = m.confidence.max(CONFIDENCE_REMEMBER);
            }
        }
    }
    found.finish()
}

/// Requests to keep what the turn says, pointing at it rather than saying it.
const ZH_PIN_REQUESTS: &[&str] = &[
    "记住这件事",
    "记住这一点",
    "记住这点",
    "记住这个",
    "记住这些",
    "记下这件事",
    "把这件事记下来",
    "把这个记下来",
    "别忘了这件事",
    "不要忘了这件事",
    "这件事要记住",
    "这件事你要记住",
];
const EN_PIN_REQUESTS: &[&str] = &[
    "please remember this",
    "remember this",
    "don't forget this",
    "do not forget this",
    "keep this in mind",
    "pin this",
    "never forget this",
    "don’t forget this",
];

/// When `sentence` holds a pin request ([`ZH_PIN_REQUESTS`], [`EN_PIN_REQUESTS`]), what is
/// left of it once the request is taken out (empty when nothing is).
fn pin_request(sentence: &str) -> Option<&str> {
    const FILLER: &[char] = &[
        ' ', ',', '，', ':', '：', '.', '。', '!', '！', '-', '—', '、', '～', '~', '哦', '啊',
        '呀', '吧', '请', '要',
    ];
    let zh = ZH_PIN_REQUESTS.iter().find_map(|p| {
        let at = sentence.find(p)?;
        let (before, after) = (&sentence[..at], &sentence[at + p.len()..]);
        let before = before.trim_end_matches(FILLER).trim_end_matches("帮我");
        let before = before.trim_end_matches(FILLER).trim_end_matches("一定");
        Some(if before.trim_matches(FILLER).is_empty() {
            after
        } else {
            before
        })
    });
    let en = || {
        // ASCII lowering keeps byte offsets, so they index `sentence` too.
        let lower = sentence.to_ascii_lowercase();
        EN_PIN_REQUESTS.iter().find_map(|p| {
            let at = text::find_word(&lower, p)?;
            let after = lower.get(at + p.len()..)?.trim_start();
            let after = after.strip_prefix("for me").unwrap_or(after);
            // "remember this song" names something: not a request about the turn.
            if after.starts_with(|c: char| c.is_alphanumeric()) {
                return None;
            }
            let before = sentence.get(..at)?;
            Some(if before.trim_matches(FILLER).is_empty() {
                sentence.get(sentence.len() - after.len()..)?
            } else {
                before
            })
        })
    };
    let rest = zh.or_else(en)?;
    Some(rest.trim_matches(FILLER))
}

fn extract_sentence(sentence: &str, day: NaiveDate, found: &mut Found) {
    let lang = text::lang_of(sentence);
    let lower = sentence.to_ascii_lowercase();
    let hedged = match lang {
        Lang::Zh => lexicon::ZH_HEDGES.iter().any(|h| sentence.contains(h)),
        Lang::En => lexicon::EN_HEDGES
            .iter()
            .any(|h| text::find_word(&lower, h).is_some()),
    };
    let (remember, body) = match lang {
        Lang::Zh => zh::remember(sentence),
        Lang::En => en::remember(sentence),
    };
    let mut sink = Sink {
        day,
        remember: remember.is_some(),
        confidence: if remember.is_some() {
            CONFIDENCE_REMEMBER
        } else if hedged {
            CONFIDENCE_HEDGED
        } else {
            CONFIDENCE_PLAIN
        },
        found,
        memories_before: 0,
    };
    sink.memories_before = sink.found.memories.len();
    match lang {
        Lang::Zh => zh::rules(body, &mut sink),
        Lang::En => en::rules(body, &mut sink),
    }
    // "Remember X" where X matched no rule is still worth keeping as said.
    if sink.remember && sink.found.memories.len() == sink.memories_before {
        let said = text::third_person(
            body.trim_matches(|c: char| c.is_whitespace() || "：:，,".contains(c)),
            lang,
        );
        if said.chars().count() >= 2 {
            let keywords = keywords_of(&said);
            let lower = body.trim_start().to_ascii_lowercase();
            let about_user = ["我的", "我是", "my ", "i'm ", "i am "]
                .iter()
                .any(|p| lower.starts_with(p));
            let memory_type = if about_user {
                MemoryType::Profile
            } else {
                MemoryType::Other
            };
            sink.memory(Signal::Remember, memory_type, said, keywords);
        }
    }
}

/// What the character promised the user ("明天我提醒你交报告", "I'll remind you about the
/// dentist tomorrow"): a `project` memory in the character's voice, dated when a date is
/// said. Only promises of the character's own doing count, not wishes or questions.
fn promise(sentence: &str, day: NaiveDate, found: &mut Found) {
    const ZH_DOINGS: &[&str] = &[
        "提醒", "陪", "帮", "告诉", "问问", "问你", "记得", "叫你", "监督", "检查",
    ];
    const EN_LEADS: &[&str] = &[
        "i'll",
        "i will",
        "i'm going to",
        "i am going to",
        "i promise to",
    ];
    let lang = text::lang_of(sentence);
    let lower = sentence.to_lowercase();
    let tag_question = ["okay?", "ok?", "alright?", "好吗？", "好不好？", "好吗?"]
        .iter()
        .any(|t| lower.trim_end().ends_with(t));
    if sentence.trim_end().ends_with(['?', '？']) && !tag_question {
        return;
    }
    let said = match lang {
        Lang::Zh => {
            let Some(i) = sentence.find('我') else {
                return;
            };
            let rest = &sentence[i..];
            if rest.starts_with("我们") || !ZH_DOINGS.iter().any(|d| rest.contains(d)) {
                return;
            }
            sentence
        }
        Lang::En => {
            let lower = sentence.to_ascii_lowercase().replace('’', "'");
            let Some((start, _)) = text::find_any(&lower, EN_LEADS) else {
                return;
            };
            let to_user = ["you", "your", "my answers", "my replies"]
                .iter()
                .any(|w| text::find_word(&lower, w).is_some());
            if !to_user {
                return;
            }
            &sentence[start..]
        }
    };
    let dated = when::find(said, day);
    let restated = match &dated {
        Some(w) => w.restate_all(said),
        None => said.to_string(),
    };
    let clause = restated
        .trim()
        .trim_end_matches(['。', '.', '!', '！', '~', '～', '哈', '哦', '啦', '呀'])
        .trim_start_matches(['好', '呀', '的', '，', ',', ' ', '嗯']);
    let summary = match lang {
        Lang::Zh => format!("我答应用户：{}", clause.replace('你', "用户")),
        Lang::En => format!("I promised the user: {}", you_to_them(clause)),
    };
    let keywords = keywords_of(clause);
    found.memories.push(ExtractedMemory {
        summary,
        memory_type: MemoryType::Project,
        keywords,
        importance: Signal::Deadline.importance(),
        confidence: CONFIDENCE_PLAIN,
        event_time: dated.map(|w| w.timestamp()),
        sensitive: false,
        sensitive_category: None,
        pinned: false,
    });
}

/// "you" / "your" → "them" / "their": the user, in the character's own sentence.
fn you_to_them(text: &str) -> String {
    text.split(' ')
        .map(|w| {
            let (core, rest) = w.split_at(
                w.find(|c: char| !c.is_alphanumeric() && c != '\'')
                    .unwrap_or(w.len()),
            );
            let swapped = match core.to_ascii_lowercase().as_str() {
                "you" => "them",
                "your" => "their",
                "yours" => "theirs",
                "yourself" => "themselves",
                "you're" => "they're",
                _ => core,
            };
            format!("{swapped}{rest}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The sentence where the user says how they themselves feel, strongly, as a history memory:
/// "I'm so nervous about the exam" counts; "You look so happy!" and "Thanks!" do not.
fn emotional_memory(turn: &Turn, day: NaiveDate) -> Option<ExtractedMemory> {
    let (sentence, label, _) = text::sentences(&turn.content)
        .into_iter()
        .filter(|s| about_self(s))
        .filter_map(|s| emotion::detect(s).map(|(l, i)| (s, l, i)))
        .filter(|(_, l, i)| LIFE_FEELINGS.contains(&l.as_str()) && *i >= EMOTIONAL_MEMORY_MIN)
        .max_by(|a, b| a.2.total_cmp(&b.2))?;
    let lang = text::lang_of(sentence);
    Some(ExtractedMemory {
        keywords: vec![label],
        summary: text::third_person(text::cut_chars(sentence.trim(), 200), lang),
        memory_type: MemoryType::History,
        importance: Signal::Emotional.importance(),
        confidence: CONFIDENCE_PLAIN,
        event_time: Some(if turn.ts.ms() > 0 {
            turn.ts
        } else {
            Timestamp::from_date(day)
        }),
        sensitive: false,
        sensitive_category: None,
        pinned: false,
    })
}

/// Whether a sentence speaks of the user in the first person.
fn about_self(sentence: &str) -> bool {
    match text::lang_of(sentence) {
        // Not a sentence without a subject ("工作好累，快撑不住了"): measured, such feelings
        // crowd answers end to end (docs/BENCHMARKS.md, "fifth round").
        Lang::Zh => sentence.replace("我们", "").contains('我'),
        Lang::En => {
            let lower = sentence.to_ascii_lowercase().replace('’', "'");
            ["i", "i'm", "i've", "i'd", "i'll", "me", "my", "myself"]
                .iter()
                .any(|w| text::find_word(&lower, w).is_some())
        }
    }
}

/// A few keywords of a summary: its longest content words (Latin), whole, or the head of a
/// run of Chinese (a run is a clause, not a word: its first [`CJK_KEYWORD_CHARS`]). A Latin
/// word cut short is no word: "infrastructu" was shown as a diary topic and missed the
/// question's "infrastructure".
fn keywords_of(summary: &str) -> Vec<String> {
    let mut words: Vec<&str> = summary
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4 || w.chars().any(text::is_cjk))
        .filter(|w| !crate::retrieval::stopwords::is_english_stopword(&w.to_lowercase()))
        .collect();
    crate::order::sort_by(&mut words, |a, b| b.chars().count().cmp(&a.chars().count()));
    words.truncate(3);
    words
        .into_iter()
        .map(|w| {
            if w.chars().any(text::is_cjk) {
                text::cut_chars(w, CJK_KEYWORD_CHARS).to_string()
            } else {
                w.to_string()
            }
        })
        .collect()
}

/// How much of a run of Chinese a keyword keeps.
const CJK_KEYWORD_CHARS: usize = 12;

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Everything found so far, before merging.
#[derive(Default)]
struct Found {
    pkg: Vec<(&'static str, String)>,
    entities: Vec<EntityOp>,
    memories: Vec<ExtractedMemory>,
    emotions: Vec<EmotionSnippet>,
}

impl Found {
    /// Merges repeats: one PKG update per key (list items deduplicated in order, a regular
    /// field's last value), one entity op per name, one memory per summary.
    fn finish(self) -> Extraction {
        let mut pkg_updates: Vec<PkgUpdate> = Vec::new();
        for (key, value) in self.pkg {
            let multi = item_limit(key).is_some();
            match pkg_updates.iter_mut().find(|u| u.key == key) {
                Some(u) if multi => {
                    if let serde_json::Value::Array(items) = &mut u.value {
                        if !items
                            .iter()
                            .any(|i| i.as_str().is_some_and(|s| s.eq_ignore_ascii_case(&value)))
                        {
                            items.push(value.into());
                        }
                    }
                }
                Some(u) => u.value = value.into(),
                None => pkg_updates.push(PkgUpdate {
                    key: key.to_string(),
                    value: if multi {
                        serde_json::json!([value])
                    } else {
                        value.into()
                    },
                }),
            }
        }
        let mut entity_ops: Vec<EntityOp> = Vec::new();
        for op in self.entities {
            let name = op.name.clone().unwrap_or_default();
            match entity_ops.iter_mut().find(|o| {
                o.name
                    .as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(&name))
            }) {
                Some(existing) => {
                    let titles = existing.title.get_or_insert_with(Vec::new);
                    for t in op.title.unwrap_or_default() {
                        if !titles.contains(&t) {
                            titles.push(t);
                        }
                    }
                }
                None => entity_ops.push(op),
            }
        }
        let mut memories: Vec<ExtractedMemory> = Vec::new();
        for m in self.memories {
            match memories.iter_mut().find(|e| e.summary == m.summary) {
                Some(e) => {
                    e.importance = e.importance.max(m.importance);
                    e.pinned |= m.pinned;
                }
                None => memories.push(m),
            }
        }
        Extraction {
            entity_ops,
            pkg_updates,
            memories,
            emotions: self.emotions,
        }
    }
}

/// What `text` says after `name` (where a person's news would be); empty when the name is
/// not in it as written.
fn after_name<'a>(text: &'a str, name: &str) -> &'a str {
    text.find(name)
        .and_then(|at| text.get(at + name.len()..))
        .unwrap_or_default()
}

/// What the language rules write into while reading one sentence.
pub(crate) struct Sink<'a> {
    /// The day the sentence was said.
    pub day: NaiveDate,
    /// Inside "remember …": everything found is top importance.
    pub remember: bool,
    confidence: f64,
    found: &'a mut Found,
    memories_before: usize,
}

impl Sink<'_> {
    pub fn pkg(&mut self, key: &'static str, value: &str) {
        let value = value.trim();
        if !value.is_empty() {
            self.found.pkg.push((key, value.to_string()));
        }
    }

    pub fn person(&mut self, name: &str, title: &str) {
        self.found.entities.push(EntityOp {
            op: OpKind::Add,
            id: None,
            name: Some(name.trim().to_string()),
            alias: None,
            title: Some(vec![title.to_string()]),
            remark: None,
        });
    }

    pub fn memory(
        &mut self,
        signal: Signal,
        memory_type: MemoryType,
        summary: String,
        keywords: Vec<String>,
    ) {
        self.memory_at(signal, memory_type, summary, keywords, None);
    }

    pub fn memory_at(
        &mut self,
        signal: Signal,
        memory_type: MemoryType,
        summary: String,
        keywords: Vec<String>,
        event_time: Option<Timestamp>,
    ) {
        let importance = if self.remember {
            Signal::Remember.importance()
        } else {
            signal.importance()
        };
        let mut keywords: Vec<String> = keywords
            .into_iter()
            .filter(|k| !k.trim().is_empty())
            .collect();
        keywords.dedup();
        self.found.memories.push(ExtractedMemory {
            summary,
            memory_type,
            keywords,
            importance,
            confidence: self.confidence,
            event_time,
            sensitive: false,
            sensitive_category: None,
            pinned: false,
        });
    }

    /// News of someone close ("我老婆小雅怀孕了", "my brother Tom just got engaged"): the
    /// sentence as a `history` memory of today, unless the sentence already made a memory
    /// other than the person's relation.
    pub fn news(&mut self, said: String) {
        let only_relations = self
            .found
            .memories
            .get(self.memories_before..)
            .unwrap_or_default()
            .iter()
            .all(|m| m.memory_type == MemoryType::Relationship);
        if only_relations {
            let keywords = keywords_of(&said);
            let today = Timestamp::from_date(self.day);
            self.memory_at(
                Signal::Relation,
                MemoryType::History,
                said,
                keywords,
                Some(today),
            );
        }
    }

    /// Whether this sentence has yielded no memory so far.
    pub fn nothing_yet(&self) -> bool {
        self.found.memories.len() == self.memories_before
    }

    /// Marks the memory just added as sensitive: a password the user gave (credentials).
    pub fn last_sensitive(&mut self) {
        if let Some(m) = self.found.memories.last_mut() {
            m.sensitive = true;
            m.sensitive_category = Some(crate::sensitive::Category::Credentials);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
