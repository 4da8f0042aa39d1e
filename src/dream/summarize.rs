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
use crate::dream::extract::{extract, ExtractedMemory, Signal};
use crate::memory::MemoryType;
use crate::text::segment::{segment, WordClass};
use crate::text::{self, capitalize_first, cut_chars, Lang};

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

/// Today's diary entry, written by the character in the first person, at most `max_chars`
/// characters, in the conversation's language: what we talked about, what mattered about
/// the user (what the built-in extractor found in the day), how they felt and what I
/// promised. Only what the day's material says; `user_name` (the PKG's nickname or name)
/// is how the character calls the user.
pub fn summarize_day(turns: &[Turn], user_name: Option<&str>, max_chars: usize) -> String {
    let lang = text::dominant_lang(turns.iter().map(|t| t.content.as_str()));
    let day = turns.first().map_or_else(
        || chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default(),
        |t| t.ts.date(),
    );
    let found = extract(turns, day);
    let said_name = found
        .pkg_updates
        .iter()
        .rev()
        .find(|u| u.key == "Nickname" || u.key == "Name")
        .and_then(|u| match &u.value {
            serde_json::Value::Array(items) => items.last().and_then(|v| v.as_str()),
            v => v.as_str(),
        })
        .map(str::to_string);
    let name = said_name
        .or_else(|| user_name.map(str::to_string))
        .unwrap_or_else(|| match lang {
            Lang::Zh => "TA".into(),
            Lang::En => "the user".into(),
        });
    let voice = Voice { lang, name: &name };

    let mut facts: Vec<&ExtractedMemory> = found.memories.iter().collect();
    crate::order::sort_by(&mut facts, |a, b| b.importance.total_cmp(&a.importance));
    // What the name already says, and a person the diary already told of, are not retold.
    let mut told: Vec<&ExtractedMemory> = Vec::new();
    for m in facts {
        let retold = (m.memory_type == MemoryType::Profile && m.summary.contains(name.as_str()))
            || told.iter().any(|t| {
                m.memory_type == MemoryType::Relationship
                    && m.keywords
                        .first()
                        .is_some_and(|k| t.summary.contains(k.as_str()))
            });
        if !retold && told.len() < MAX_FACTS {
            told.push(m);
        }
    }
    let topics = topics(turns, &told, &name, lang);
    let mut parts: Vec<String> = vec![voice.opening(&topics)];
    for m in &told {
        parts.push(voice.fact(m, day));
    }
    if let Some(feeling) = strongest_feeling(turns) {
        parts.push(voice.feeling(&feeling));
    }
    fit(parts, max_chars, lang)
}

/// Most facts one entry tells.
const MAX_FACTS: usize = 4;

/// How the character writes about the user: in its language, calling them by name.
struct Voice<'a> {
    lang: Lang,
    name: &'a str,
}

impl Voice<'_> {
    fn opening(&self, topics: &[String]) -> String {
        let n = self.name;
        match (self.lang, topics) {
            (Lang::Zh, []) => format!("今天和{n}随便聊了聊。"),
            (Lang::Zh, t) => format!("今天和{n}聊了{}。", join(t, "、", "和")),
            (Lang::En, []) => format!("Had a short chat with {n} today."),
            (Lang::En, t) => format!("Talked with {n} today about {}.", join(t, ", ", " and ")),
        }
    }

    /// A summary ("用户对花生过敏", "The user is allergic to peanuts") as the character
    /// writes it, with why it matters to the character.
    fn fact(&self, m: &ExtractedMemory, day: chrono::NaiveDate) -> String {
        let said = self.named(&m.summary);
        let ahead = m.event_time.is_some_and(|t| t.date() >= day);
        let promise = m.summary.starts_with("我答应") || m.summary.starts_with("I promised");
        match (self.lang, m.memory_type) {
            _ if promise => match self.lang {
                Lang::Zh => format!("{said}，可不能忘。"),
                Lang::En => format!("{said}, and I won't forget."),
            },
            (Lang::Zh, MemoryType::Constraint) => format!("{said}，这个我得牢牢记住。"),
            (Lang::En, MemoryType::Constraint) => format!("{said}: I must keep that in mind."),
            (Lang::Zh, MemoryType::Project) if ahead => {
                format!("{said}，到时候要问问{}。", self.name)
            }
            (Lang::En, MemoryType::Project) if ahead => format!("{said}; I'll ask how it goes."),
            (Lang::Zh, _) => format!("{said}。"),
            (Lang::En, _) => format!("{said}."),
        }
    }

    fn feeling(&self, (label, cause): &(String, Option<String>)) -> String {
        let n = self.name;
        let word = feeling_word(label, self.lang);
        match (self.lang, cause) {
            (Lang::Zh, Some(c)) => format!("说到{c}的时候，{n}很{word}。"),
            (Lang::Zh, None) => format!("{n}今天有点{word}。"),
            (Lang::En, Some(c)) => {
                format!("{} sounded {word} talking about {c}.", capitalize_first(n))
            }
            (Lang::En, None) => format!("{} seemed {word} today.", capitalize_first(n)),
        }
    }

    /// "用户" / "The user" → the name.
    fn named(&self, summary: &str) -> String {
        let s = summary.trim_end_matches(['。', '.', '!', '！']);
        match self.lang {
            Lang::Zh => s.replace("用户", self.name),
            Lang::En => {
                let out = s
                    .replace("The user's", &format!("{}'s", self.name))
                    .replace("the user's", &format!("{}'s", self.name))
                    .replace("The user", self.name)
                    .replace("the user", self.name);
                capitalize_first(&out)
            }
        }
    }
}

fn feeling_word(label: &str, lang: Lang) -> &'static str {
    match (lang, label) {
        (Lang::Zh, "joy") => "开心",
        (Lang::Zh, "sadness") => "难过",
        (Lang::Zh, "anger") => "生气",
        (Lang::Zh, "fear") => "紧张",
        (Lang::Zh, "surprise") => "惊讶",
        (Lang::Zh, "gratitude") => "感激",
        (Lang::Zh, _) => "烦",
        (Lang::En, "joy") => "happy",
        (Lang::En, "sadness") => "sad",
        (Lang::En, "anger") => "upset",
        (Lang::En, "fear") => "anxious",
        (Lang::En, "surprise") => "surprised",
        (Lang::En, "gratitude") => "grateful",
        (Lang::En, _) => "bothered",
    }
}

/// "a、b和c" / "a, b and c".
fn join(items: &[String], separator: &str, last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., tail] => format!("{}{last}{tail}", init.join(separator)),
    }
}

/// What the day was about: the keywords of what mattered most, then of the most salient
/// things the user said; at most four.
fn topics(turns: &[Turn], facts: &[&ExtractedMemory], name: &str, lang: Lang) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |t: &str| {
        let t = t.trim();
        let fits = match lang {
            Lang::Zh => (2..=6).contains(&t.chars().count()),
            Lang::En => (3..=30).contains(&t.len()),
        } && t != name
            && !t.contains("用户")
            && !t.to_lowercase().contains("the user")
            && names_a_topic(t);
        if fits && !out.iter().any(|o| o.contains(t) || t.contains(o.as_str())) && out.len() < 4 {
            out.push(t.to_string());
        }
    };
    for m in facts {
        if let Some(k) = m.keywords.first() {
            push(k);
        }
    }
    let mut said: Vec<(f64, &str)> = turns
        .iter()
        .filter(|t| t.role == Some(Role::User) || t.kind == EntryKind::Summary)
        .flat_map(|t| text::sentences(&t.content).into_iter().map(move |s| (t, s)))
        .map(|(t, s)| (salience(t, s), s))
        .filter(|(score, _)| *score > 0.0)
        .collect();
    crate::order::sort_by(&mut said, |a, b| b.0.total_cmp(&a.0));
    for (_, sentence) in said.into_iter().take(6) {
        if let Some(topic) = topic_of(sentence, lang) {
            push(&topic);
        }
    }
    out
}

/// The most telling words of a sentence: its longest noun-like word (Chinese) or its longest
/// content words (English).
fn topic_of(sentence: &str, lang: Lang) -> Option<String> {
    match lang {
        Lang::Zh => segment(sentence)
            .into_iter()
            .filter(|w| matches!(w.class, WordClass::Other | WordClass::Place))
            .filter(|w| !TOPIC_STOP_ZH.contains(&w.text) && names_a_topic(w.text))
            .max_by_key(|w| w.text.chars().count())
            .map(|w| w.text.to_string()),
        Lang::En => sentence
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| {
                w.len() >= 5
                    && !crate::retrieval::stopwords::is_english_stopword(&w.to_lowercase())
                    && names_a_topic(w)
            })
            .filter(|w| !w.contains('\''))
            .max_by_key(|w| w.len())
            .map(|w| w.to_lowercase()),
    }
}

/// Whether a word can name what a day was about: a feeling has its own sentence in the entry
/// (an emotion label as a topic gave "今天和TA聊了fear"), and a time says when, not what
/// ("Talked with Sam today about … and yesterday").
fn names_a_topic(word: &str) -> bool {
    let lower = word.to_lowercase();
    !emotion::is_feeling(&lower) && !time_word(&lower)
}

/// A word that names a time by itself: "yesterday", "weekend", "tonight", "昨天".
fn time_word(word: &str) -> bool {
    // Any day serves: only whether the word names a period is asked.
    let day = chrono::NaiveDate::from_ymd_opt(2000, 6, 15).unwrap_or_default();
    crate::time::phrase::parse_time_range(word, day).is_some() || TIME_WORDS.contains(&word)
}

/// Parts of a day the time phrases do not date.
const TIME_WORDS: [&str; 9] = [
    "morning",
    "afternoon",
    "evening",
    "night",
    "tonight",
    "weekend",
    "weekends",
    "lately",
    "recently",
];

/// Frequent words that say nothing about a day (function words are known as such to the
/// segmenter's word list: these are the others).
const TOPIC_STOP_ZH: &[&str] = &[
    "时候", "现在", "真的", "知道", "没有", "还是", "就是", "东西", "事情",
];

/// The user's strongest feeling of the day, and what they were talking about then.
fn strongest_feeling(turns: &[Turn]) -> Option<(String, Option<String>)> {
    let (turn, label, _) = turns
        .iter()
        .filter(|t| t.role == Some(Role::User))
        .filter_map(|t| emotion::detect(&t.content).map(|(l, i)| (t, l, i)))
        .filter(|(_, l, i)| *i >= FEELING_MIN && l != "gratitude")
        .max_by(|a, b| a.2.total_cmp(&b.2))?;
    let lang = text::lang_of(&turn.content);
    // A person they spoke of, else the shortest thing found in what they said.
    let found = extract(std::slice::from_ref(turn), turn.ts.date());
    let person = found
        .memories
        .iter()
        .filter(|m| m.memory_type == MemoryType::Relationship)
        .find_map(|m| m.keywords.first().cloned());
    let cause = person
        .or_else(|| {
            found
                .memories
                .iter()
                .filter(|m| m.memory_type != MemoryType::History)
                .filter_map(|m| m.keywords.first())
                .filter(|k| k.chars().count() <= 12 && !k.contains("用户") && names_a_topic(k))
                .min_by_key(|k| k.chars().count())
                .cloned()
        })
        .or_else(|| topic_of(&turn.content, lang));
    Some((label, cause))
}

/// A feeling this strong is worth a line of the diary.
const FEELING_MIN: f64 = 0.5;

/// The parts that fit in `max_chars`, most important first (the opening, then the facts by
/// importance, then the feeling), kept in that order.
fn fit(parts: Vec<String>, max_chars: usize, lang: Lang) -> String {
    let separator = match lang {
        Lang::Zh => "",
        Lang::En => " ",
    };
    let mut out = String::new();
    for part in parts {
        let extra = part.chars().count()
            + if out.is_empty() {
                0
            } else {
                separator.chars().count()
            };
        if out.chars().count() + extra > max_chars {
            continue;
        }
        if !out.is_empty() {
            out.push_str(separator);
        }
        out.push_str(&part);
    }
    if out.is_empty() {
        return cut_chars(
            &match lang {
                Lang::Zh => "今天聊了几句。".to_string(),
                Lang::En => "We chatted a little today.".to_string(),
            },
            max_chars,
        )
        .to_string();
    }
    out
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
    crate::order::sort_by(&mut sorted, |a, b| a.date.cmp(&b.date));
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
    crate::order::sort_by(&mut order, |&a, &b| {
        scored[b].3.total_cmp(&scored[a].3).then(a.cmp(&b))
    });
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
    fn a_diary_in_the_characters_voice_about_the_user() {
        let turns = [
            user("以后叫我阿澈吧，我不喜欢别人叫我全名。"),
            assistant("好的，阿澈～"),
            user("我最近喜欢上了游泳，每周去三次。"),
            user("我的同学小红下周要来杭州找我玩，我们好久没见了，好开心！"),
            user("记住，我对花生过敏。"),
            user("哈哈"),
        ];
        let line = summarize_day(&turns, None, 800);
        // First person, the user by the name they asked for, no quotes of the chat.
        assert!(line.starts_with("今天和阿澈聊了"), "{line}");
        assert!(line.contains("阿澈对花生过敏，这个我得牢牢记住"), "{line}");
        assert!(
            line.contains("小红") && line.contains("2026-04-13"),
            "{line}"
        );
        assert!(line.contains("游泳"), "{line}");
        assert!(line.contains("很开心"), "{line}");
        for quoted in ["哈哈", "好的，阿澈", "叫我", "用户"] {
            assert!(!line.contains(quoted), "{quoted} in {line}");
        }
        // The most important things come first and the entry stays within its bound.
        let short = summarize_day(&turns, None, 40);
        assert!(short.chars().count() <= 40, "{short}");
        assert!(short.contains("花生"), "{short}");
    }

    #[test]
    fn a_diary_topic_is_neither_a_feeling_nor_a_time() {
        // Before: "今天和TA聊了fear。" (the emotional memory's label as a topic), "Talked with
        // Sam today about excited, celebrated and yesterday."
        let opening = |turns: &[Turn]| {
            let line = summarize_day(turns, Some("Sam"), 800);
            let first = line
                .split(['。', '.'])
                .next()
                .unwrap_or_default()
                .to_string();
            (line, first)
        };
        let (line, talked) = opening(&[
            user("I'm so excited, I got the job yesterday!"),
            user("We celebrated last weekend with my family at the lake."),
        ]);
        for not_a_topic in ["excited", "yesterday", "weekend", "joy"] {
            assert!(!talked.contains(not_a_topic), "{not_a_topic}: {line}");
        }
        assert!(
            line.contains("happy"),
            "the feeling keeps its own sentence: {line}"
        );
        // Nor what a feeling was about: "说到生气的时候，TA很生气" (MADial).
        let line = summarize_day(&[user("我今天很生气！")], None, 200);
        assert!(!line.contains("说到生气"), "{line}");
        assert!(line.contains("生气"), "{line}");
        let (line, talked) = opening(&[
            user("昨天我去看了一场音乐会，特别开心！"),
            user("最近工作压力很大，我很焦虑。"),
        ]);
        for not_a_topic in ["fear", "joy", "开心", "焦虑", "昨天", "最近"] {
            assert!(!talked.contains(not_a_topic), "{not_a_topic}: {line}");
        }
        // The word list knows neither 音乐会 nor 压力, so no topic is named; the facts are told.
        assert!(line.contains("音乐会") && line.contains("压力"), "{line}");
    }

    #[test]
    fn a_chinese_diary_names_what_was_talked_about_not_function_words() {
        // Before the word list knew function words, this day was "聊了非常和一直".
        let turns = [
            user("最近一直在和朋友们一起踢足球，非常过瘾！"),
            user("其他的同学也来了，我们玩了一下午。"),
        ];
        let line = summarize_day(&turns, None, 200);
        assert!(line.starts_with("今天和TA聊了"), "{line}");
        let talked = line.split('。').next().unwrap_or_default();
        for filler in ["非常", "一直", "一起", "其他", "一下"] {
            assert!(!talked.contains(filler), "{filler} as a topic: {line}");
        }
        assert!(talked.contains("朋友"), "{line}");
    }

    #[test]
    fn a_name_in_quotes_is_no_day_to_ask_about_and_a_holiday_keeps_its_name() {
        // A MADial day: Robinson Crusoe's Friday was read as next Friday, and the diary
        // planned to ask about "角色“2023-10-13”" then.
        let line = summarize_day(
            &[user(
                "我和朋友一起读了《鲁滨逊漂流记》，还讨论了角色“星期五”的故事情节。",
            )],
            None,
            300,
        );
        assert!(!line.contains("到时候"), "{line}");
        assert!(!line.contains("2026-04-1"), "{line}");
        let line = summarize_day(
            &[user("爸爸妈妈送了我一辆红色遥控跑车作为圣诞礼物，好开心！")],
            None,
            300,
        );
        // A gift given as the holiday's: last Christmas's, nothing to ask about.
        assert!(line.contains("圣诞（2025-12-25）礼物"), "{line}");
        assert!(!line.contains("到时候"), "{line}");
    }

    #[test]
    fn writes_in_the_conversation_language_and_by_the_known_name() {
        let line = summarize_day(
            &[
                user("I'm allergic to peanuts."),
                assistant("Noted, you are allergic to peanuts."),
            ],
            Some("Sam"),
            200,
        );
        assert!(line.starts_with("Talked with Sam today about"), "{line}");
        assert!(line.contains("Sam is allergic to peanuts"), "{line}");
        let quiet = summarize_day(&[user("ok"), user("lol")], None, 100);
        assert_eq!(quiet, "Had a short chat with the user today.");
        assert!(summarize_day(&[user("I have a dentist appointment on May 8 at 3pm and I am really nervous about it.")], None, 30).chars().count() <= 30);
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
