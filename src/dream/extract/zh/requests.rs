//! 用户要求什么、计划什么: style, constraints, appointments, decisions.

use super::*;

pub(super) fn style(s: &str, sink: &mut Sink) -> bool {
    if s.contains('他') || s.contains('她') {
        return false;
    }
    let mut any = false;
    for intent in STYLE_INTENTS {
        if intent.zh.iter().any(|t| s.contains(t)) {
            sink.memory(
                Signal::Preference,
                MemoryType::Style,
                intent.summary_zh.into(),
                vec![intent.keyword_zh.into()],
            );
            any = true;
        }
    }
    any
}

pub(super) fn constraints(s: &str, styled: bool, sink: &mut Sink) {
    if let Some(i) = s.find("过敏") {
        let before = &s[..i];
        let start = before
            .rfind("我对")
            .map(|j| j + "我对".len())
            .or_else(|| before.rfind('我').map(|j| j + '我'.len_utf8()));
        if let Some(start) = start {
            let what = before[start..]
                .trim_start_matches(['对'])
                .trim_end_matches(['有', '点', '很', '比', '较', '严', '重'])
                .trim();
            if !what.is_empty() && what.chars().count() <= 12 {
                sink.memory(
                    Signal::Constraint,
                    MemoryType::Constraint,
                    format!("用户对{what}过敏"),
                    vec![what.into(), "过敏".into()],
                );
            }
        }
    }
    for t in ["不能吃", "不吃", "吃不了", "不能喝", "不喝", "忌口"] {
        for (adverbs, rest) in after_me(s, t) {
            let what = tidy_item(clause(rest, STOPS, &[]));
            if !what.is_empty() && what.chars().count() <= 12 {
                sink.memory(
                    Signal::Constraint,
                    MemoryType::Constraint,
                    format!("用户{adverbs}{t}{what}"),
                    vec![what],
                );
            }
        }
    }
    if !after_me(s, "吃素").is_empty() || s.contains("我是素食") {
        sink.memory(
            Signal::Constraint,
            MemoryType::Constraint,
            "用户吃素".into(),
            vec!["素食".into()],
        );
    }
    if styled {
        return;
    }
    // A request, in any clause: "不要用Python", "我吃素，别给我推荐肉菜".
    for part in s.split(['，', ',']) {
        let lead = part.trim_start_matches(|c: char| "请你以后千万还有也 ".contains(c));
        let Some(t) = [
            "不要再",
            "不要用",
            "别再",
            "别用",
            "不要",
            "不许",
            "不准",
            "禁止",
            "别",
            "请勿",
        ]
        .into_iter()
        .find(|t| lead.starts_with(t)) else {
            continue;
        };
        let what = tidy_item(clause(&lead[t.len()..], STOPS, &[]));
        if what.chars().count() >= 2 {
            let keywords = keywords_of(&what);
            sink.memory(
                Signal::Constraint,
                MemoryType::Constraint,
                text::third_person(&format!("用户要求{t}{what}"), Lang::Zh),
                keywords,
            );
        }
    }
}

pub(super) const EVENT_CUES: &[&str] = &[
    "要",
    "得",
    "约",
    "有",
    "去",
    "考",
    "面试",
    "会",
    "交",
    "见",
    "参加",
    "截止",
    "看",
    "复查",
    "体检",
    "飞",
    "出差",
    "聚",
    "婚礼",
    "生日",
    "演唱会",
    "上课",
    "比赛",
    "出发",
    "回",
    "搬家",
    "手术",
];

/// Words that make a dated clause a hypothesis rather than a plan.
const HYPOTHETICAL: &[&str] = &["要是", "如果", "假如", "万一", "的话", "假设"];
/// Words that make a dated clause a habit or a liking rather than an event.
const HABITUAL: &[&str] = &["喜欢", "一般", "通常", "平时", "每"];
/// Words that say a dated event has happened.
const DONE: &[&str] = &["了", "过", "没"];

/// A dated clause: a plan or appointment (→ `Important Appointments` and a `project`
/// memory), or, when its date has passed or it is said as done, an event of the user's
/// life (a `history` memory). Both carry the date as `event_time`.
pub(super) fn appointment(s: &str, sink: &mut Sink) -> bool {
    let Some(w) = when::find(s, sink.day) else {
        return false;
    };
    // The user's own birthday is a profile fact, not an appointment.
    if s.contains("我的生日") || s.contains("我生日") {
        return false;
    }
    let restated = w.restate(s);
    let label = w.label();
    let decided = ["决定", "打算", "准备", "计划"]
        .iter()
        .any(|d| restated.contains(d));
    if HYPOTHETICAL.iter().any(|h| s.contains(h))
        || HABITUAL.iter().any(|h| restated.contains(h))
        || decided
    {
        return false;
    }
    // The clause without its date words, in the third person.
    let bare_said = restated
        .replace(&format!("（{label}）"), "")
        .replace(&label, "");
    let bare = text::third_person(tidy_item(&bare_said).as_str(), Lang::Zh);
    let core = bare
        .trim_start_matches("用户的")
        .trim_start_matches("用户")
        .trim_start_matches(['的', '在', '，', ',', ' '])
        .to_string();
    if core.chars().count() < 2 {
        return false;
    }
    let verb = segment(&core)
        .iter()
        .any(|word| word.class == WordClass::Verb)
        || EVENT_CUES.iter().any(|c| core.contains(c));
    if !verb {
        return false;
    }
    let summary = if restated.starts_with(|c: char| c.is_ascii_digit()) {
        dated_subject(&restated)
    } else {
        text::third_person(&restated, Lang::Zh)
    };
    let last_day = w.end.unwrap_or(w.date);
    let done = last_day < sink.day || (w.date <= sink.day && DONE.iter().any(|d| core.contains(d)));
    if done {
        // What happened, with how it felt and why: the whole sentence.
        let whole = text::third_person(text::cut_chars(&w.restate_all(s), 200), Lang::Zh);
        sink.memory_at(
            Signal::Emotional,
            MemoryType::History,
            whole,
            keywords_of(&core),
            Some(w.timestamp()),
        );
        return true;
    }
    let bare = [
        "有一个",
        "有个",
        "要去",
        "要",
        "得",
        "会",
        "准备",
        "打算",
        "有",
    ]
    .iter()
    .find_map(|v| core.strip_prefix(v))
    .unwrap_or(&core)
    .to_string();
    sink.pkg("Important Appointments", &format!("{label} {bare}"));
    let deadline = ["截止", "交", "提交"].iter().any(|c| core.contains(c));
    let keywords = vec![
        bare.clone(),
        if deadline {
            "截止".into()
        } else {
            "约定".into()
        },
    ];
    sink.memory_at(
        Signal::Deadline,
        MemoryType::Project,
        summary,
        keywords,
        Some(w.timestamp()),
    );
    true
}

pub(super) fn decision(s: &str, sink: &mut Sink) {
    for t in ["决定", "打算", "准备", "计划", "想好了"] {
        if let Some((adverbs, rest)) = after_me(s, t).into_iter().next() {
            let what = tidy_item(clause(rest, STOPS, &[]));
            if what.chars().count() >= 2 {
                let said = format!("我{adverbs}{t}{what}");
                let dated = when::find(&said, sink.day);
                let summary = text::third_person(
                    &dated.as_ref().map_or(said.clone(), |w| w.restate(&said)),
                    Lang::Zh,
                );
                let keywords = keywords_of(&what);
                let at = dated.map(|w| w.timestamp());
                sink.memory_at(Signal::Decision, MemoryType::Project, summary, keywords, at);
            }
            return;
        }
    }
}

/// A clause whose date word became its date ("今天我们去爬山了" → "2026-04-09我们去爬山了"),
/// with its subject put first: "用户2026-04-09去爬山了"; "我们" (the user and others) becomes
/// "用户和同伴", never "用户2026-04-09我们…".
fn dated_subject(restated: &str) -> String {
    let split = restated
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '~' | ':' | ' ')))
        .unwrap_or(restated.len());
    let (date, rest) = restated.split_at(split);
    let rest = text::third_person(rest, Lang::Zh);
    if let Some(after) = rest.strip_prefix("我们") {
        format!("用户和同伴{date}{after}")
    } else if let Some(after) = rest.strip_prefix("用户") {
        format!("用户{date}{after}")
    } else {
        format!("用户{date}{rest}")
    }
}
