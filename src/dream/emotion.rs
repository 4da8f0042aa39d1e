//! A lexicon-based emotion detector for Chinese and English, with negation and intensifiers.
//!
//! Each cue word carries a label and a base weight; an intensifier just before it ("特别",
//! "really") scales it up, a softener ("有点", "a bit") down; a negation before a positive cue
//! ("不开心", "not happy") turns it into sadness at lower weight, before a negative cue
//! ("不难过", "not worried") it cancels the cue. Exclamation marks add a little. The strongest
//! label wins; below [`MIN_INTENSITY`] there is no emotion.

use crate::text::{is_cjk, Lang};

/// Weaker signals than this are not an emotion.
pub const MIN_INTENSITY: f64 = 0.3;

struct Cue {
    word: &'static str,
    label: &'static str,
    weight: f64,
}

const fn cue(word: &'static str, label: &'static str, weight: f64) -> Cue {
    Cue {
        word,
        label,
        weight,
    }
}

const JOY: &str = "joy";
const SADNESS: &str = "sadness";
const ANGER: &str = "anger";
const FEAR: &str = "fear";
const SURPRISE: &str = "surprise";
const GRATITUDE: &str = "gratitude";
const DISGUST: &str = "disgust";
/// Every label [`detect`] gives.
pub const LABELS: [&str; 7] = [JOY, SADNESS, ANGER, FEAR, SURPRISE, GRATITUDE, DISGUST];

/// A word that says a feeling: a label, or a word [`detect`] reads one in ("excited",
/// "开心").
pub fn is_feeling(word: &str) -> bool {
    LABELS.contains(&word) || detect(word).is_some()
}

const ZH_CUES: &[Cue] = &[
    cue("开心", JOY, 0.6),
    cue("高兴", JOY, 0.6),
    cue("快乐", JOY, 0.6),
    cue("兴奋", JOY, 0.7),
    cue("激动", JOY, 0.7),
    cue("幸福", JOY, 0.7),
    cue("满足", JOY, 0.5),
    cue("太好了", JOY, 0.7),
    cue("哈哈", JOY, 0.4),
    cue("爽", JOY, 0.5),
    cue("难过", SADNESS, 0.7),
    cue("伤心", SADNESS, 0.7),
    cue("失落", SADNESS, 0.6),
    cue("沮丧", SADNESS, 0.6),
    cue("郁闷", SADNESS, 0.5),
    cue("心碎", SADNESS, 0.9),
    cue("想哭", SADNESS, 0.8),
    cue("哭了", SADNESS, 0.7),
    cue("孤独", SADNESS, 0.6),
    cue("寂寞", SADNESS, 0.6),
    cue("绝望", SADNESS, 0.9),
    cue("崩溃", SADNESS, 0.8),
    cue("生气", ANGER, 0.7),
    cue("愤怒", ANGER, 0.8),
    cue("气死", ANGER, 0.8),
    cue("火大", ANGER, 0.7),
    cue("恼火", ANGER, 0.6),
    cue("烦死", ANGER, 0.7),
    cue("烦躁", ANGER, 0.5),
    cue("害怕", FEAR, 0.7),
    cue("担心", FEAR, 0.6),
    cue("焦虑", FEAR, 0.7),
    cue("紧张", FEAR, 0.5),
    cue("恐惧", FEAR, 0.8),
    cue("不安", FEAR, 0.5),
    cue("压力好大", FEAR, 0.7),
    cue("压力很大", FEAR, 0.7),
    cue("惊讶", SURPRISE, 0.5),
    cue("震惊", SURPRISE, 0.7),
    cue("没想到", SURPRISE, 0.4),
    cue("谢谢", GRATITUDE, 0.4),
    cue("感谢", GRATITUDE, 0.5),
    cue("感激", GRATITUDE, 0.6),
    cue("恶心", DISGUST, 0.6),
    // Everyday ways of saying how the day felt ("心情特别差", "好委屈", "快撑不住了").
    cue("心情很好", JOY, 0.6),
    cue("心情超好", JOY, 0.7),
    cue("心情特别好", JOY, 0.7),
    cue("心情不错", JOY, 0.5),
    cue("感动", JOY, 0.6),
    cue("期待", JOY, 0.5),
    cue("心情差", SADNESS, 0.6),
    cue("心情不好", SADNESS, 0.6),
    cue("心情很差", SADNESS, 0.6),
    cue("心情特别差", SADNESS, 0.7),
    cue("心情超差", SADNESS, 0.7),
    cue("心情好差", SADNESS, 0.7),
    cue("委屈", SADNESS, 0.7),
    cue("难受", SADNESS, 0.6),
    cue("痛苦", SADNESS, 0.8),
    cue("失望", SADNESS, 0.6),
    cue("后悔", SADNESS, 0.6),
    cue("心累", SADNESS, 0.6),
    cue("撑不住", SADNESS, 0.7),
    cue("舍不得", SADNESS, 0.5),
    cue("累死", SADNESS, 0.6),
    cue("好累", SADNESS, 0.5),
    cue("太累", SADNESS, 0.5),
    cue("无语", ANGER, 0.4),
    cue("烦人", ANGER, 0.5),
    cue("好烦", ANGER, 0.6),
    cue("慌死", FEAR, 0.7),
    cue("好慌", FEAR, 0.6),
    cue("😭", SADNESS, 0.7),
    cue("😢", SADNESS, 0.6),
    cue("💔", SADNESS, 0.8),
    cue("😡", ANGER, 0.7),
    cue("😤", ANGER, 0.5),
    cue("🎉", JOY, 0.5),
];

const EN_CUES: &[Cue] = &[
    cue("happy", JOY, 0.6),
    cue("glad", JOY, 0.5),
    cue("excited", JOY, 0.7),
    cue("thrilled", JOY, 0.8),
    cue("delighted", JOY, 0.7),
    cue("overjoyed", JOY, 0.9),
    cue("awesome", JOY, 0.35),
    cue("wonderful", JOY, 0.35),
    cue("proud", JOY, 0.6),
    cue("sad", SADNESS, 0.6),
    cue("upset", SADNESS, 0.6),
    cue("unhappy", SADNESS, 0.6),
    cue("depressed", SADNESS, 0.8),
    cue("lonely", SADNESS, 0.6),
    cue("heartbroken", SADNESS, 0.9),
    cue("miserable", SADNESS, 0.8),
    cue("devastated", SADNESS, 0.9),
    cue("crying", SADNESS, 0.7),
    cue("cried", SADNESS, 0.7),
    cue("angry", ANGER, 0.7),
    cue("furious", ANGER, 0.9),
    cue("mad", ANGER, 0.6),
    cue("pissed", ANGER, 0.7),
    cue("annoyed", ANGER, 0.5),
    cue("frustrated", ANGER, 0.6),
    cue("scared", FEAR, 0.7),
    cue("afraid", FEAR, 0.6),
    cue("worried", FEAR, 0.6),
    cue("anxious", FEAR, 0.7),
    cue("nervous", FEAR, 0.5),
    cue("terrified", FEAR, 0.9),
    cue("stressed", FEAR, 0.6),
    cue("surprised", SURPRISE, 0.5),
    cue("shocked", SURPRISE, 0.7),
    cue("amazed", SURPRISE, 0.6),
    cue("thank you", GRATITUDE, 0.4),
    cue("thanks", GRATITUDE, 0.4),
    cue("grateful", GRATITUDE, 0.6),
    cue("disgusted", DISGUST, 0.7),
    cue("disgusting", DISGUST, 0.6),
    cue("gross", DISGUST, 0.5),
    cue("exhausted", SADNESS, 0.6),
    cue("disappointed", SADNESS, 0.6),
    cue("hurt", SADNESS, 0.5),
];

const ZH_INTENSIFIERS: [&str; 12] = [
    "非常", "特别", "超级", "十分", "极其", "真的", "好", "很", "太", "超", "真", "挺",
];
const ZH_SOFTENERS: [&str; 4] = ["有点", "有些", "稍微", "一点"];
const ZH_NEGATIONS: [&str; 3] = ["不", "没", "别"];

const EN_INTENSIFIERS: [&str; 9] = [
    "very",
    "really",
    "so",
    "extremely",
    "super",
    "incredibly",
    "totally",
    "truly",
    "too",
];
const EN_SOFTENERS: [&str; 5] = ["bit", "little", "slightly", "somewhat", "kinda"];
const EN_NEGATIONS: [&str; 8] = [
    "not", "never", "no", "don't", "isn't", "wasn't", "aren't", "didn't",
];

const INTENSIFY: f64 = 1.35;
const SOFTEN: f64 = 0.6;
const NEGATED_POSITIVE: f64 = 0.7;

/// The dominant emotion of `text` and its intensity (0..1), if any.
pub fn detect(text: &str) -> Option<(String, f64)> {
    let lang = crate::text::lang_of(text);
    let mut scores: Vec<(&'static str, f64)> = Vec::new();
    let mut add = |label: &'static str, w: f64| match scores.iter_mut().find(|(l, _)| *l == label) {
        Some((_, s)) => *s = s.max(w) + w.min(*s) * 0.3,
        None => scores.push((label, w)),
    };
    match lang {
        Lang::Zh => zh_scores(text, &mut add),
        Lang::En => en_scores(text, &mut add),
    }
    // English cues also count inside Chinese text and vice versa ("今天好happy").
    if lang == Lang::Zh && text.chars().any(|c| c.is_ascii_alphabetic()) {
        en_scores(text, &mut add);
    }
    if lang == Lang::En && text.chars().any(is_cjk) {
        zh_scores(text, &mut add);
    }
    let exclaims = text.chars().filter(|c| matches!(c, '!' | '！')).count();
    let (label, score) = scores.into_iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let intensity = (score + 0.08 * exclaims.min(3) as f64).min(1.0);
    (intensity >= MIN_INTENSITY).then(|| (label.to_string(), round2(intensity)))
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn is_positive(label: &str) -> bool {
    matches!(label, JOY | GRATITUDE | SURPRISE)
}

/// The weight of a cue after the modifiers found in the text just before it.
fn modified(
    cue: &Cue,
    negated: bool,
    intensified: bool,
    softened: bool,
) -> Option<(&'static str, f64)> {
    let mut w = cue.weight;
    if intensified {
        w *= INTENSIFY;
    }
    if softened {
        w *= SOFTEN;
    }
    match (negated, is_positive(cue.label)) {
        (false, _) => Some((cue.label, w.min(1.0))),
        (true, true) if cue.label == JOY => Some((SADNESS, (w * NEGATED_POSITIVE).min(1.0))),
        (true, _) => None,
    }
}

fn zh_scores(text: &str, add: &mut impl FnMut(&'static str, f64)) {
    for cue in ZH_CUES {
        let mut from = 0;
        while let Some(i) = text[from..].find(cue.word).map(|i| i + from) {
            from = i + cue.word.len();
            // The three characters before the cue: "我不太开心", "别担心", "好开心".
            let window: String = {
                let before: Vec<char> = text[..i].chars().collect();
                before[before.len().saturating_sub(3)..].iter().collect()
            };
            // "特别" holds a "别" that negates nothing: drop intensifiers before looking.
            let bare = ZH_INTENSIFIERS
                .iter()
                .fold(window.clone(), |w, i| w.replace(i, ""));
            let negated = ZH_NEGATIONS.iter().any(|n| bare.contains(n));
            let intensified = ZH_INTENSIFIERS.iter().any(|w| window.contains(w));
            let softened = ZH_SOFTENERS.iter().any(|w| window.contains(w));
            if let Some((label, w)) = modified(cue, negated, intensified && !negated, softened) {
                add(label, w);
            }
        }
    }
}

fn en_scores(text: &str, add: &mut impl FnMut(&'static str, f64)) {
    let lower = text.to_ascii_lowercase().replace('’', "'");
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_alphabetic() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    for k in 0..words.len() {
        for cue in EN_CUES {
            let parts: Vec<&str> = cue.word.split(' ').collect();
            if words[k..].len() < parts.len() || words[k..k + parts.len()] != parts[..] {
                continue;
            }
            let before = &words[k.saturating_sub(3)..k];
            let negated = before
                .iter()
                .any(|b| EN_NEGATIONS.contains(b) || b.ends_with("n't"));
            let intensified = before.iter().any(|b| EN_INTENSIFIERS.contains(b));
            let softened = before.iter().any(|b| EN_SOFTENERS.contains(b));
            if let Some((label, weight)) = modified(cue, negated, intensified && !negated, softened)
            {
                add(label, weight);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str) -> Option<String> {
        detect(text).map(|(l, _)| l)
    }

    fn intensity(text: &str) -> f64 {
        detect(text).map_or(0.0, |(_, i)| i)
    }

    #[test]
    fn finds_labels_in_both_languages() {
        assert_eq!(label("今天考试过了，我好开心！").as_deref(), Some("joy"));
        assert_eq!(label("我有点担心明天的面试").as_deref(), Some("fear"));
        assert_eq!(label("I'm so angry at my boss").as_deref(), Some("anger"));
        assert_eq!(
            label("My dog died and I feel heartbroken").as_deref(),
            Some("sadness")
        );
        assert_eq!(label("明天下午三点看牙医"), None);
        assert_eq!(label("The meeting is at noon"), None);
    }

    #[test]
    fn everyday_feelings_of_a_day() {
        assert_eq!(label("我今天心情特别差").as_deref(), Some("sadness"));
        assert_eq!(label("今天心情很好").as_deref(), Some("joy"));
        assert_eq!(label("被老板骂了，好委屈").as_deref(), Some("sadness"));
        assert_eq!(
            label("每天加班，感觉快撑不住了").as_deref(),
            Some("sadness")
        );
        assert_eq!(label("分手了💔").as_deref(), Some("sadness"));
        assert_eq!(
            label("I'm exhausted after the move").as_deref(),
            Some("sadness")
        );
        // A mood word without its feeling is no feeling.
        assert_eq!(label("心情这种东西"), None);
    }

    #[test]
    fn negation_flips_or_cancels() {
        assert_eq!(label("我今天不开心").as_deref(), Some("sadness"));
        assert_eq!(label("I'm not happy with it").as_deref(), Some("sadness"));
        assert_eq!(label("我不难过"), None);
        assert_eq!(label("I'm not worried at all"), None);
        assert!(intensity("不开心") < intensity("开心"));
    }

    #[test]
    fn intensifiers_and_softeners_scale() {
        assert!(intensity("我特别难过") > intensity("我难过"));
        assert!(intensity("I'm a bit sad today") < intensity("I'm sad today"));
        assert!(intensity("I'm really excited!!!") > intensity("I'm excited"));
        assert!(intensity("我特别难过！！！") <= 1.0);
    }
}
