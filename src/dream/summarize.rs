//! The built-in summarizer: an extractive diary line for a day of conversation, and a bounded
//! merge of overflowing dailies into `prior`.
//!
//! Salience of a sentence = who said it (the user's own words weigh most, a session summary
//! more still) × how informative it is (very short acknowledgements weigh nothing) + the
//! importance of what the extractor finds in it + how strongly it was felt. The most salient
//! sentences that fit the bound are kept and shown in the order they were said.

use crate::conversation::{EntryKind, Role, Turn};
use crate::diary::DiaryEntry;
use crate::dream::emotion;
use crate::dream::extract::{extract, Signal};
use crate::dream::text::{self, cut_chars, Lang};

/// Words that make a diary sentence worth keeping when `prior` must shrink.
const SALIENT_CUES: &[&str] = &[
    "过敏",
    "生日",
    "暗号",
    "记住",
    "名字",
    "叫",
    "喜欢",
    "讨厌",
    "朋友",
    "妈妈",
    "爸爸",
    "约",
    "面试",
    "考试",
    "工作",
    "搬",
    "allerg",
    "birthday",
    "secret",
    "remember",
    "name",
    "call",
    "like",
    "love",
    "hate",
    "friend",
    "mother",
    "father",
    "sister",
    "brother",
    "appointment",
    "interview",
    "exam",
    "job",
    "moved",
    "wedding",
];

/// Acknowledgements and greetings: never diary material.
const FILLERS: &[&str] = &[
    "嗯",
    "好的",
    "好",
    "哈哈",
    "哈哈哈",
    "谢谢",
    "你好",
    "在吗",
    "晚安",
    "早安",
    "ok",
    "okay",
    "yes",
    "no",
    "hi",
    "hello",
    "thanks",
    "thank you",
    "lol",
    "sure",
    "bye",
    "good night",
    "cool",
];

struct Candidate {
    order: usize,
    text: String,
    score: f64,
}

/// Today's diary line from the day's turns (and session summaries), at most `max_chars`
/// characters, in the conversation's language.
pub fn summarize_day(turns: &[Turn], max_chars: usize) -> String {
    let lang = text::dominant_lang(turns.iter().map(|t| t.content.as_str()));
    let mut candidates = Vec::new();
    for turn in turns {
        for sentence in text::sentences(&turn.content) {
            let score = salience(turn, sentence);
            if score > 0.0 {
                let rendered = render(turn, sentence, lang);
                candidates.push(Candidate {
                    order: candidates.len(),
                    text: rendered,
                    score,
                });
            }
        }
    }
    let (opening, separator, closing) = match lang {
        Lang::Zh => ("今天和用户聊了：", "；", "。"),
        Lang::En => ("Talked with the user today: ", "; ", "."),
    };
    if candidates.is_empty() {
        let quiet = match lang {
            Lang::Zh => "今天和用户简单聊了几句。",
            Lang::En => "Had a short chat with the user today.",
        };
        return cut_chars(quiet, max_chars).to_string();
    }
    // A tight bound has no room for the opening words.
    let opening = if opening.chars().count() * 3 > max_chars {
        ""
    } else {
        opening
    };
    let budget = max_chars.saturating_sub(opening.chars().count() + closing.chars().count());
    let chosen = choose(candidates, budget, separator.chars().count());
    let body = chosen.join(separator);
    let line = format!("{opening}{body}{closing}");
    cut_chars(&line, max_chars).to_string()
}

/// Merges overflowing dailies (oldest first) into `prior`, one `date: text` line per day,
/// keeping the most salient sentences within `max_chars`.
pub fn merge_prior(prior: &str, overflow: &[DiaryEntry], max_chars: usize) -> String {
    let mut lines: Vec<(String, String)> = prior
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match l.split_once(": ") {
            Some((date, rest)) if crate::time::parse_date(date).is_some() => {
                (date.to_string(), rest.to_string())
            }
            _ => (String::new(), l.trim().to_string()),
        })
        .collect();
    let mut sorted: Vec<&DiaryEntry> = overflow.iter().collect();
    sorted.sort_by(|a, b| a.date.cmp(&b.date));
    lines.extend(
        sorted
            .iter()
            .map(|e| (e.date.clone(), e.summary.trim().to_string())),
    );
    let render = |lines: &[(String, String)]| -> String {
        lines
            .iter()
            .filter(|(_, t)| !t.is_empty())
            .map(|(d, t)| {
                if d.is_empty() {
                    t.clone()
                } else {
                    format!("{d}: {t}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let whole = render(&lines);
    if whole.chars().count() <= max_chars {
        return whole;
    }
    // Too long: score every sentence, keep the best that fit, in their original order.
    let mut scored: Vec<(usize, usize, String, f64)> = Vec::new();
    let total = lines.len().max(1);
    for (line_no, (_, body)) in lines.iter().enumerate() {
        for sentence in text::sentences(body) {
            let recency = 0.2 * (line_no + 1) as f64 / total as f64;
            scored.push((
                line_no,
                scored.len(),
                sentence.to_string(),
                diary_salience(sentence) + recency,
            ));
        }
    }
    let mut order: Vec<usize> = (0..scored.len()).collect();
    order.sort_by(|&a, &b| scored[b].3.total_cmp(&scored[a].3).then(a.cmp(&b)));
    let mut kept = vec![false; scored.len()];
    let mut kept_lines: Vec<(String, String)> = Vec::new();
    for i in order {
        kept[i] = true;
        let trial = rebuild(&lines, &scored, &kept);
        if render(&trial).chars().count() <= max_chars {
            kept_lines = trial;
        } else {
            kept[i] = false;
        }
    }
    let merged = render(&kept_lines);
    if merged.is_empty() {
        cut_chars(&whole, max_chars).to_string()
    } else {
        merged
    }
}

/// The dated lines holding only the kept sentences.
fn rebuild(
    lines: &[(String, String)],
    scored: &[(usize, usize, String, f64)],
    kept: &[bool],
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (line_no, (date, _)) in lines.iter().enumerate() {
        let body: String = scored
            .iter()
            .zip(kept)
            .filter(|((l, ..), k)| *l == line_no && **k)
            .map(|((_, _, s, _), _)| s.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if !body.is_empty() {
            out.push((date.clone(), body));
        }
    }
    out
}

fn diary_salience(sentence: &str) -> f64 {
    let lower = sentence.to_lowercase();
    let cue = if SALIENT_CUES.iter().any(|c| lower.contains(c)) {
        0.4
    } else {
        0.0
    };
    let feeling = emotion::detect(sentence).map_or(0.0, |(_, i)| i * 0.5);
    let digits = if sentence.chars().any(|c| c.is_ascii_digit()) {
        0.1
    } else {
        0.0
    };
    0.3 + cue + feeling + digits
}

/// How much a sentence deserves a place in the diary (0 = never).
fn salience(turn: &Turn, sentence: &str) -> f64 {
    let bare = sentence
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    if bare.is_empty() || FILLERS.contains(&bare.as_str()) {
        return 0.0;
    }
    let units = info_units(sentence);
    let informative = match units {
        0..=2 => 0.1,
        3..=5 => 0.6,
        6..=40 => 1.0,
        _ => 0.8,
    };
    let speaker = match (turn.kind, turn.role) {
        (EntryKind::Summary, _) => 1.5,
        (_, Some(Role::User)) => 1.0,
        _ => 0.4,
    };
    let found = if turn.role == Some(Role::User) {
        let probe = Turn {
            content: sentence.to_string(),
            ..turn.clone()
        };
        extract(&[probe], turn.ts.date())
            .memories
            .iter()
            .map(|m| m.importance)
            .fold(0.0, f64::max)
    } else {
        0.0
    };
    let feeling = emotion::detect(sentence).map_or(0.0, |(_, i)| i);
    // Questions ask; the diary keeps what was said.
    let asked = if sentence.ends_with(['?', '？']) {
        0.2
    } else {
        1.0
    };
    let fact = if found >= Signal::General.importance() {
        found
    } else {
        0.0
    };
    speaker * informative * asked * (0.5 + fact + 0.6 * feeling)
}

/// A rough count of information: Chinese characters and Latin words.
fn info_units(sentence: &str) -> usize {
    let cjk = sentence.chars().filter(|c| text::is_cjk(*c)).count();
    let words = sentence
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .count();
    cjk + words
}

/// A sentence as the character writes it in its diary: the user in the third person.
fn render(turn: &Turn, sentence: &str, lang: Lang) -> String {
    let sentence = sentence
        .trim()
        .trim_end_matches(['。', '.', '！', '!', '；', ';', '~', '…']);
    match (turn.role, lang) {
        (Some(Role::User), _) => text::third_person(sentence, text::lang_of(sentence)),
        (_, Lang::Zh) => sentence.replace('你', "用户"),
        (_, Lang::En) => sentence
            .split(' ')
            .map(|w| match w.to_ascii_lowercase().as_str() {
                "you" => "the user",
                "your" => "the user's",
                _ => w,
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The best candidates whose texts fit `budget` characters with separators, in said order.
fn choose(mut candidates: Vec<Candidate>, budget: usize, separator: usize) -> Vec<String> {
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.order.cmp(&b.order)));
    let mut chosen: Vec<Candidate> = Vec::new();
    let mut used = 0;
    for c in candidates {
        if chosen.iter().any(|k| similar(&k.text, &c.text)) {
            continue;
        }
        let cost = c.text.chars().count() + if chosen.is_empty() { 0 } else { separator };
        if used + cost <= budget {
            used += cost;
            chosen.push(c);
        } else if chosen.is_empty() && budget > 1 {
            // Even the best sentence is too long: keep its start.
            let cut = format!("{}…", cut_chars(&c.text, budget - 1));
            chosen.push(Candidate { text: cut, ..c });
            break;
        }
    }
    chosen.sort_by_key(|c| c.order);
    chosen.into_iter().map(|c| c.text).collect()
}

/// Near-duplicates: most character bigrams shared.
fn similar(a: &str, b: &str) -> bool {
    let grams = |s: &str| -> std::collections::HashSet<(char, char)> {
        let chars: Vec<char> = s
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect();
        chars.windows(2).map(|w| (w[0], w[1])).collect()
    };
    let (ga, gb) = (grams(a), grams(b));
    let smaller = ga.len().min(gb.len());
    smaller > 0 && ga.intersection(&gb).count() as f64 / smaller as f64 > 0.8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dream::extract::tests::user;

    fn assistant(content: &str) -> Turn {
        Turn {
            role: Some(Role::Assistant),
            ..user(content)
        }
    }

    #[test]
    fn keeps_the_salient_sentences_within_the_bound() {
        let turns = [
            user("嗯"),
            user("今天天气一般。"),
            user("我对花生过敏，记住哦。"),
            assistant("好的，我记住了。"),
            user("明天下午三点我要去看牙医，有点紧张。"),
            user("哈哈"),
        ];
        let line = summarize_day(&turns, 60);
        assert!(line.chars().count() <= 60, "{line}");
        assert!(line.starts_with("今天"), "{line}");
        assert!(line.contains("用户对花生过敏"), "{line}");
        assert!(line.contains("看牙医"), "{line}");
        assert!(!line.contains("哈哈"), "{line}");
        // Said order is kept.
        assert!(line.find("花生").unwrap() < line.find("牙医").unwrap());
    }

    #[test]
    fn writes_in_the_conversation_language() {
        let line = summarize_day(
            &[
                user("I'm allergic to peanuts."),
                assistant("Noted, you are allergic to peanuts."),
            ],
            200,
        );
        assert!(line.starts_with("Talked with the user today"), "{line}");
        assert!(line.contains("The user is allergic to peanuts"), "{line}");
    }

    #[test]
    fn a_tight_bound_still_gives_a_bounded_line() {
        let line = summarize_day(
            &[user(
                "I have a dentist appointment on May 8 at 3pm and I am really nervous about it.",
            )],
            30,
        );
        assert!(line.chars().count() <= 30, "{line}");
        assert!(line.contains("dentist") || line.contains("…"), "{line}");
        assert_eq!(
            summarize_day(&[user("ok"), user("嗯")], 100),
            "Had a short chat with the user today."
        );
    }

    #[test]
    fn merge_prior_keeps_everything_that_fits() {
        let overflow = [DiaryEntry {
            date: "2026-04-01".into(),
            summary: "Talked about hiking.".into(),
        }];
        assert_eq!(
            merge_prior("2026-03-30: Met the user.", &overflow, 200),
            "2026-03-30: Met the user.\n2026-04-01: Talked about hiking."
        );
    }

    #[test]
    fn merge_prior_drops_the_least_salient_when_over_the_bound() {
        let overflow = [
            DiaryEntry {
                date: "2026-04-02".into(),
                summary: "The weather was grey. The user is allergic to peanuts.".into(),
            },
            DiaryEntry {
                date: "2026-04-01".into(),
                summary: "We chatted a bit. Nothing else happened that day.".into(),
            },
        ];
        let merged = merge_prior("2026-03-30: The user's birthday is May 3.", &overflow, 90);
        assert!(merged.chars().count() <= 90, "{merged}");
        assert!(merged.contains("allergic to peanuts"), "{merged}");
        assert!(merged.contains("birthday is May 3"), "{merged}");
        assert!(!merged.contains("Nothing else happened"), "{merged}");
        // Oldest first.
        assert!(merged.find("2026-03-30").unwrap() < merged.find("2026-04-02").unwrap());
    }
}
