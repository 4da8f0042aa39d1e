//! Rules for Chinese statements ("叫我阿澈", "我的同学小红", "我对花生过敏", …).

mod people;
mod requests;
mod tastes;

use super::lexicon::{self, Circle, STYLE_INTENTS};
use super::{after_name, keywords_of, Signal, Sink};
use crate::memory::MemoryType;
use crate::text::segment::{segment, WordClass};
use crate::text::{self, clause, list_items, tidy_item, Lang};
use crate::time::when;
use people::*;
use requests::*;
use tastes::*;

/// Words a sentence may put between "我" and its verb ("我特别喜欢", "我平时也喜欢").
const ADVERBS: &[&str] = &[
    "以前",
    "曾经",
    "从来",
    "原来",
    "小时候",
    "最近",
    "现在",
    "已经",
    "一点也",
    "一点都",
    "不是很",
    "更",
    "其实",
    "真的",
    "平时",
    "从小",
    "一直",
    // When the user does it: "我周末喜欢…", "，周末更喜欢一个人待着".
    "周末",
    "晚上",
    "早上",
    "每天",
    "假期",
    "向来",
    // "我才不喜欢…", "我刚搬到深圳".
    "才",
    "刚刚",
    "刚",
    "本来",
    "非常",
    "特别",
    "超级",
    "比较",
    "不太",
    "不怎么",
    "有点",
    "都",
    "很",
    "真",
    "超",
    "最",
    "也",
    "还",
    "挺",
    "就",
    "不",
    "没",
    "太",
    "好",
];

/// Clause-ending conjunctions.
const STOPS: &[&str] = &[
    "因为",
    "但是",
    "可是",
    "不过",
    "所以",
    "而且",
    "然后",
    "尤其",
    "特别是",
    "但",
];

/// Words that open an object but cannot be a liked thing or a name.
const NOT_OBJECTS: &[char] = &[
    '你', '他', '她', '它', '这', '那', '什', '谁', '哪', '上', '了', '过', '的', '得', '着', '吗',
    '呢', '个',
];

/// `(trigger, body)`: the "记住…" / "别忘了…" request and what follows it.
pub(super) fn remember(sentence: &str) -> (Option<&'static str>, &str) {
    const TRIGGERS: &[&str] = &[
        "千万别忘了",
        "不要忘了",
        "别忘了",
        "不要忘记",
        "别忘记",
        "记住",
        "记得",
        "记下来",
        "记下",
        "记一下",
    ];
    for t in TRIGGERS {
        if let Some(i) = sentence.find(t) {
            let before = &sentence[..i];
            // "我记得…" recalls, it does not ask; a long lead-in is not a request either.
            // "你帮我记一下" asks for help, and is a request.
            let helper = ["帮我", "给我"].iter().any(|h| before.ends_with(h));
            if (before.contains('我') && !helper) || before.chars().count() > 6 {
                continue;
            }
            let body =
                sentence[i + t.len()..].trim_start_matches(['：', ':', '，', ',', ' ', '哦', '了']);
            if body
                .chars()
                .filter(|c| text::is_cjk(*c) || c.is_alphanumeric())
                .count()
                < 2
            {
                return (None, sentence);
            }
            return (Some(t), body);
        }
    }
    (None, sentence)
}

/// Openings of a sentence whose subject Chinese leaves out when it is the speaker: "最近在学
/// 吉他" is "我最近在学吉他".
const DROPPED_SUBJECT_OPENERS: &[&str] = &[
    "最近在",
    "最近开始",
    "最近迷上",
    "最近喜欢",
    "现在在",
    "正在",
    "一直在",
    "刚刚",
    "刚",
    "平时喜欢",
    "在学",
    "在追",
    "在玩",
    "在考虑",
];

/// Whether a Chinese text names a person other than the speaker: a pronoun ("他说", "我们")
/// or "大家"/"别人"; "吉他" and "其他" hold a 他 that is nobody.
fn names_someone_else(text: &str) -> bool {
    let text = ["吉他", "其他", "其它"]
        .iter()
        .fold(text.to_string(), |t, w| t.replace(w, ""));
    ["你", "他", "她", "它", "们", "大家", "别人", "谁"]
        .iter()
        .any(|p| text.contains(p))
}

/// The sentence with "我" put back where Chinese dropped it, if it did.
fn with_subject(s: &str) -> Option<String> {
    let first = s.split(['，', ',', '。', '！', '？']).next().unwrap_or(s);
    let someone = first.contains('我') || names_someone_else(first);
    (!someone && DROPPED_SUBJECT_OPENERS.iter().any(|o| s.starts_with(o))).then(|| format!("我{s}"))
}

pub(super) fn rules(s: &str, sink: &mut Sink) {
    let restored = with_subject(s);
    let s = restored.as_deref().unwrap_or(s);
    let question = s.ends_with('？') || s.ends_with('?') || s.contains('吗');
    secret(s, sink);
    nickname(s, sink);
    name(s, sink);
    let styled = style(s, sink);
    constraints(s, styled, sink);
    let appointment = !question && appointment(s, sink);
    let mut liked = favorite(s, sink);
    liked |= hobbies(s, sink);
    if !liked && !question {
        likes(s, sink);
        if !appointment && sink.nothing_yet() && !stopped(s, sink) && !into_now(s, sink) {
            habits(s, sink);
        }
    }
    let news = relations(s, sink);
    if !question {
        profile(s, sink);
        if !appointment {
            decision(s, sink);
            if news {
                sink.news(text::third_person(s.trim(), Lang::Zh));
            }
        }
    }
}

/// The text after `trigger` with the subject "我" (and adverbs) right before it.
fn after_me<'a>(s: &'a str, trigger: &str) -> Vec<(&'a str, &'a str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = s[from..].find(trigger).map(|i| i + from) {
        from = i + trigger.len();
        if let Some(adverbs) = subject_me(&s[..i]) {
            out.push((adverbs, &s[i + trigger.len()..]));
        }
    }
    out
}

/// If `before` ends with "我" plus adverbs, the adverbs. A clause that continues an "我"
/// clause without repeating the subject counts too ("我喜欢猫，也喜欢狗").
fn subject_me(before: &str) -> Option<&str> {
    let mut rest = before;
    loop {
        let elided = (rest.ends_with('，') || rest.ends_with(',')) && clause_about_me(rest);
        if rest.ends_with('我') || elided {
            return Some(&before[rest.len()..]);
        }
        let adverb = ADVERBS.iter().find(|a| rest.ends_with(**a))?;
        rest = &rest[..rest.len() - adverb.len()];
    }
}

/// Whether the last clause of `text` has the user as its subject ("我喜欢猫，" yes; "我哥哥
/// 叫王强，" no: its subject is the brother).
fn clause_about_me(text: &str) -> bool {
    let body = text.trim_end_matches(['，', ',']);
    let last = body
        .rsplit(['，', ',', '。', '！', '？'])
        .next()
        .unwrap_or(body);
    let Some(after) = last.strip_prefix('我') else {
        return false;
    };
    !after.starts_with(['的', '们'])
        && !lexicon::ZH_RELATIONS
            .iter()
            .any(|(w, _, _)| after.starts_with(w))
}

fn strip_quotes(s: &str) -> &str {
    s.trim()
        .trim_matches(|c: char| "\"'“”‘’「」『』《》".contains(c))
        .trim()
}
