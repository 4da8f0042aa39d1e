//! What a query asks, analysed once: its terms with weights, and whose words it is about.
//!
//! Queries come in two shapes, and both must work:
//! - short questions (memory_retrieval: "用户喜欢什么运动", "What did I say about my sister?");
//! - the dialogue so far, one `Speaker: utterance` per line (a platform that sends the recent
//!   conversation, MADial-Bench). The last lines say what is being talked about now; older lines
//!   are background. Each line's terms weigh [`LINE_DECAY`] less per line back, and the
//!   character's own lines [`CHARACTER_LINE_WEIGHT`] as much as the user's.
//!
//! **Subject**: a memory engine holds what the *user* said, and the character's replies mostly
//! restate it ("Reading the Times on Sundays is a great start!"). A question about the user (I /
//! my / 我 / 用户 / the user's name) prefers the user's own turns; a question about what the
//! character said ("what did you recommend", "你上次推荐的", the character's name) prefers the
//! character's. See [`Subject`].

use super::terms::TextTerms;
use super::tokenize::{is_cjk, normalize, tokenize};
use super::topics::{each, TOPICS};
use std::collections::HashMap;

/// Weight of a line relative to the line after it (dialogue-shaped queries).
pub const LINE_DECAY: f64 = 0.7;
/// Weight of a line spoken by the character, relative to a user line at the same place.
pub const CHARACTER_LINE_WEIGHT: f64 = 0.6;
/// Weight of a query term that is the user's or the character's name.
pub const NAME_TERM_WEIGHT: f64 = 0.3;
/// Longest `Speaker:` prefix recognised at the start of a line, in characters.
const MAX_SPEAKER_CHARS: usize = 24;

/// Who said something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Speaker {
    User,
    Character,
}

/// The speaker label of a stored turn ([`crate::dream::records::chunk_text`]) and the words.
pub fn split_speaker(summary: &str) -> (Option<Speaker>, &str) {
    for (label, speaker) in [
        ("User: ", Some(Speaker::User)),
        ("Assistant: ", Some(Speaker::Character)),
        ("Summary: ", None),
    ] {
        if let Some(text) = summary.strip_prefix(label) {
            return (speaker, text);
        }
    }
    (None, summary)
}

/// The names a query may use for the user and for the character (besides "user" / "用户",
/// "assistant" / "助手"): the PKG's Name and Nickname, the NPC's display name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Names {
    pub user: Vec<String>,
    pub character: Vec<String>,
}

/// Whose words a query is about, and how sure the query is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subject {
    pub speaker: Speaker,
    /// 1 when the query speaks of "I" / "you said" (the user's own voice); less when it only
    /// names someone: a question naming a person ("When did Caroline go hiking?") is answered
    /// by the other party's turn often enough ("Caroline, how was the hike?": 17% of LoCoMo
    /// dev evidence) that the name is weaker evidence of the speaker.
    pub strength: f64,
}

/// [`Subject::strength`] of a subject known only from a name or a label ("user", "用户").
pub const NAMED_SUBJECT_STRENGTH: f64 = 0.33;

/// [`Subject::strength`] of a subject the query speaks as ("I", "my", "你说过").
pub const VOICED_SUBJECT_STRENGTH: f64 = 1.0;

fn by_voice(speaker: Speaker) -> Option<Subject> {
    Some(Subject {
        speaker,
        strength: VOICED_SUBJECT_STRENGTH,
    })
}

fn by_name(speaker: Speaker) -> Option<Subject> {
    Some(Subject {
        speaker,
        strength: NAMED_SUBJECT_STRENGTH,
    })
}

/// A query, analysed.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryAnalysis {
    /// Unique terms in first-seen order: what the lexical index and the corpus statistics are
    /// asked for.
    pub terms: Vec<String>,
    /// Weight of each term (0..1]: the weight of the most recent line that has it.
    pub weights: Vec<f64>,
    /// Whose words the query asks about, if it says.
    pub subject: Option<Subject>,
    /// Adjacent word pairs of the query's last line (phrases), for proximity.
    pub pairs: Vec<(String, String)>,
    /// Whether time words in the query ask for a date range. A one-line question does ("what
    /// did I do last week"); the dialogue so far does not: there "我今天考了满分" says what is
    /// happening now, and what it should recall is older.
    pub time_words_apply: bool,
    /// The weight of each everyday topic ([`super::topics`]) in the query: that of the most
    /// recent line that touches it, 0 for the others.
    pub topics: Vec<f64>,
}

/// One line of the query, with who said it (if it says) and its weight.
struct Line<'a> {
    speaker: Option<Speaker>,
    text: &'a str,
}

fn speaker_of(label: &str, names: &Names) -> Option<Speaker> {
    let label = normalize(label.trim());
    let is = |list: &[String], fixed: &[&str]| {
        fixed.iter().any(|f| label == *f) || list.iter().any(|n| normalize(n.trim()) == label)
    };
    if is(&names.user, &["user", "用户", "me", "我"]) {
        Some(Speaker::User)
    } else if is(&names.character, &["assistant", "助手", "ai", "bot"]) {
        Some(Speaker::Character)
    } else {
        None
    }
}

/// Splits `Speaker: text` when the prefix is short and names someone (a known name or any short
/// label without spaces inside a multi-line dialogue).
fn split_line<'a>(line: &'a str, names: &Names, dialogue: bool) -> Line<'a> {
    let colon = line
        .char_indices()
        .take(MAX_SPEAKER_CHARS + 1)
        .find(|&(_, c)| c == ':' || c == '：');
    if let Some((at, c)) = colon {
        let label = &line[..at];
        let rest = &line[at + c.len_utf8()..];
        let speaker = speaker_of(label, names);
        let plain_label = !label.trim().is_empty() && !label.trim().contains(char::is_whitespace);
        if speaker.is_some() || (dialogue && plain_label) {
            // An unknown label in a dialogue is someone talking to the character: the user.
            return Line {
                speaker: speaker.or(Some(Speaker::User)),
                text: rest,
            };
        }
    }
    Line {
        speaker: None,
        text: line,
    }
}

/// Phrases asking what the character itself said or did (lowercased, NFKC).
const CHARACTER_CUES_EN: &[&str] = &[
    "you said",
    "you say",
    "you told",
    "you tell",
    "you mentioned",
    "you recommended",
    "you recommend",
    "you suggested",
    "you suggest",
    "you gave",
    "you provided",
    "you listed",
    "you shared",
    "you wrote",
    "you explained",
    "you described",
    "you came up with",
    "you remind",
    "your recommendation",
    "your suggestion",
    "your advice",
    "your answer",
    "your response",
    "your list",
    "did you",
];
const CHARACTER_CUES_ZH: &[&str] = &[
    "你说",
    "你提到",
    "你推荐",
    "你建议",
    "你告诉",
    "你讲",
    "你给我",
    "你之前",
    "你上次",
    "你曾",
];
const USER_WORDS_EN: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "me", "my", "mine", "myself",
];

fn contains_word(words: &[&str], list: &[&str]) -> bool {
    words.iter().any(|w| list.contains(w))
}

fn mentions_name(text: &str, names: &[String]) -> bool {
    names.iter().any(|n| {
        let n = normalize(n.trim());
        if n.is_empty() {
            return false;
        }
        if n.chars().any(is_cjk) {
            text.contains(&n)
        } else {
            text.split(|c: char| !c.is_alphanumeric() && c != '\'')
                .any(|w| w == n || w.strip_suffix("'s") == Some(n.as_str()))
        }
    })
}

/// Whose words `text` (one line, spoken by `speaker` if known) asks about.
fn subject_of(text: &str, speaker: Option<Speaker>, names: &Names) -> Option<Subject> {
    let text = normalize(text);
    let padded = format!(" {text} ");
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
        .filter(|w| !w.is_empty())
        .collect();
    let by_user = speaker != Some(Speaker::Character);
    if by_user
        && (CHARACTER_CUES_EN
            .iter()
            .any(|cue| padded.contains(&format!(" {cue} ")))
            || CHARACTER_CUES_ZH.iter().any(|cue| text.contains(cue)))
    {
        return by_voice(Speaker::Character);
    }
    let character_named = mentions_name(&text, &names.character)
        || contains_word(&words, &["assistant"])
        || text.contains("助手");
    let user_named = mentions_name(&text, &names.user)
        || contains_word(&words, &["user"])
        || text.contains("用户");
    match (user_named, character_named) {
        (true, false) => return by_name(Speaker::User),
        (false, true) => return by_name(Speaker::Character),
        _ => {}
    }
    if by_user && (contains_word(&words, USER_WORDS_EN) || text.contains('我')) {
        return by_voice(Speaker::User);
    }
    None
}

/// The query's non-empty lines.
fn lines_of(query: &str) -> Vec<&str> {
    query
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Whether `query` is the dialogue so far (more than one line) rather than one question.
pub fn is_dialogue(query: &str) -> bool {
    lines_of(query).len() > 1
}

/// The line a query asks in now: a dialogue's last line, a one-line question whole. A time
/// phrase in a dialogue's earlier lines belongs to the story so far ("我昨天开始看…" is not a
/// request for yesterday's memories).
pub fn asking_line(query: &str) -> &str {
    lines_of(query).last().copied().unwrap_or("")
}

/// Analyses `query` (see the module docs).
pub fn analyse(query: &str, names: &Names) -> QueryAnalysis {
    let raw = lines_of(query);
    let dialogue = raw.len() > 1;
    let lines: Vec<Line> = raw.iter().map(|l| split_line(l, names, dialogue)).collect();
    let mut terms: Vec<String> = Vec::new();
    let mut weights: Vec<f64> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    let count = lines.len();
    let mut topics = vec![0.0; TOPICS];
    // Newest line first, so a term's weight is that of the most recent line that has it; the
    // terms are then put back in reading order.
    for (back, line) in lines.iter().rev().enumerate() {
        let mut line_weight = LINE_DECAY.powi(back as i32);
        if line.speaker == Some(Speaker::Character) {
            line_weight *= CHARACTER_LINE_WEIGHT;
        }
        let tokens = tokenize(line.text);
        for topic in each(TextTerms::from_tokens(&tokens).topics()) {
            if let Some(w) = topics.get_mut(topic) {
                *w = f64::max(*w, line_weight);
            }
        }
        for term in tokens {
            match position.get(&term) {
                Some(&i) => weights[i] = weights[i].max(line_weight),
                None => {
                    position.insert(term.clone(), terms.len());
                    terms.push(term);
                    weights.push(line_weight);
                }
            }
        }
    }
    // Reading order (first occurrence), which single-line queries always had.
    let first_seen = |t: &str| {
        lines
            .iter()
            .enumerate()
            .find(|(_, l)| tokenize(l.text).iter().any(|x| x == t))
            .map_or(count, |(i, _)| i)
    };
    let keys: Vec<usize> = terms.iter().map(|t| first_seen(t)).collect();
    // Through the one shared sort of indices (src/order.rs: package size).
    let order = crate::order::stable_order(terms.len(), &|a, b| keys[a].cmp(&keys[b]));
    let terms_ordered: Vec<String> = order.iter().map(|&i| terms[i].clone()).collect();
    // A name says whose words are wanted (the subject below), not what they are about: "Sam"
    // would otherwise match the PKG's "Name: Sam" and every turn addressed to Sam.
    let name_terms: std::collections::HashSet<String> = names
        .user
        .iter()
        .chain(&names.character)
        .flat_map(|n| tokenize(n))
        .collect();
    let weights_ordered: Vec<f64> = order
        .iter()
        .map(|&i| {
            if name_terms.contains(&terms[i]) {
                weights[i] * NAME_TERM_WEIGHT
            } else {
                weights[i]
            }
        })
        .collect();

    let last_user = lines
        .iter()
        .rev()
        .find(|l| l.speaker != Some(Speaker::Character))
        .or(lines.last());
    let subject = last_user.and_then(|l| subject_of(l.text, l.speaker, names));
    let last_words: Vec<String> = lines
        .last()
        .map(|l| {
            tokenize(l.text)
                .into_iter()
                .filter(|t| !t.chars().any(is_cjk))
                .collect()
        })
        .unwrap_or_default();
    let pairs = last_words
        .windows(2)
        .filter(|w| w[0] != w[1])
        .map(|w| (w[0].clone(), w[1].clone()))
        .collect();
    QueryAnalysis {
        terms: terms_ordered,
        weights: weights_ordered,
        subject,
        pairs,
        time_words_apply: !dialogue,
        topics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names {
            user: vec!["Caroline".into()],
            character: vec!["Melanie".into(), "灵绯".into()],
        }
    }

    #[test]
    fn a_one_line_query_keeps_its_terms_in_order_at_full_weight() {
        let q = analyse("What books do I like to read?", &Names::default());
        assert_eq!(q.terms, ["book", "like", "read"]);
        assert_eq!(q.weights, [1.0, 1.0, 1.0]);
        assert_eq!(q.subject.map(|s| s.speaker), Some(Speaker::User));
        assert_eq!(q.subject.map(|s| s.strength), Some(1.0));
    }

    #[test]
    fn older_lines_and_the_characters_lines_weigh_less() {
        let q = analyse(
            "Bart: 我喜欢踢足球\nAssistant: 足球很好玩\nBart: 今天考试满分",
            &Names::default(),
        );
        let w = |t: &str| q.weights[q.terms.iter().position(|x| x == t).unwrap()];
        assert_eq!(w("满分"), 1.0);
        assert!(
            (w("足球") - LINE_DECAY * LINE_DECAY).abs() < 1e-9,
            "the user's line two back"
        );
        assert!(w("玩") < w("足球"), "the character's line weighs less");
        assert!(
            q.terms.iter().position(|t| t == "足球") < q.terms.iter().position(|t| t == "满分")
        );
    }

    #[test]
    fn subject_follows_pronouns_names_and_cues() {
        let n = names();
        let s = |q: &str| analyse(q, &n).subject.map(|s| s.speaker);
        assert_eq!(s("What did I say about my sister?"), Some(Speaker::User));
        assert_eq!(
            s("What did you recommend for my trip?"),
            Some(Speaker::Character)
        );
        assert_eq!(
            s("Can you remind me what you said about Paris?"),
            Some(Speaker::Character)
        );
        assert_eq!(s("When did Caroline go hiking?"), Some(Speaker::User));
        assert_eq!(s("What did Melanie paint?"), Some(Speaker::Character));
        assert_eq!(s("用户喜欢什么运动"), Some(Speaker::User));
        assert_eq!(s("你上次推荐的那本书叫什么"), Some(Speaker::Character));
        assert_eq!(s("灵绯喜欢什么"), Some(Speaker::Character));
        assert_eq!(s("weather in Paris"), None);
    }

    #[test]
    fn a_colon_inside_a_sentence_is_not_a_speaker() {
        let q = analyse("Remember this: my password", &Names::default());
        assert!(q.terms.contains(&"rememb".to_string()));
    }

    #[test]
    fn a_query_asks_in_its_last_line() {
        assert_eq!(
            asking_line("User: I started it yesterday\nMe: nice\nUser: and now? \n"),
            "User: and now?"
        );
        assert_eq!(
            asking_line(" what did I do yesterday? "),
            "what did I do yesterday?"
        );
        assert_eq!(asking_line("\n\n"), "");
    }

    #[test]
    fn a_dialogue_is_more_than_one_line() {
        assert!(is_dialogue("User: hi\nMelanie: hello"));
        assert!(!is_dialogue("  what did I eat?\n\n"));
        assert!(!is_dialogue(""));
    }
}
