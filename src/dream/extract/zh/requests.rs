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
    // "我乳糖不耐受": an intolerance is kept like an allergy.
    if let Some(i) = s.find("不耐受") {
        let what = last_clause(&s[..i])
            .trim_start_matches('我')
            .trim_start_matches('对');
        if s[..i].contains('我') && (1..=8).contains(&what.chars().count()) {
            sink.memory(
                Signal::Constraint,
                MemoryType::Constraint,
                format!("用户{what}不耐受"),
                vec![what.into(), "不耐受".into()],
            );
        }
    }
    // "我戒烟三个月了": what the user gave up is not to be offered.
    for (_, rest) in after_me(s, "戒") {
        if let Some(habit) = ["烟", "酒", "糖", "咖啡", "奶茶", "游戏"]
            .iter()
            .find(|h| rest.starts_with(**h))
        {
            let said = tidy_item(clause(rest, STOPS, &[]));
            sink.memory(
                Signal::Constraint,
                MemoryType::Profile,
                format!("用户戒{said}"),
                vec![format!("戒{habit}")],
            );
            break;
        }
    }
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
            // "不喝就没精神" says what happens without it, not what is off the table.
            let consequence = what.starts_with(['就', '也', '会', '的', '了', '得', '完']);
            if !what.is_empty() && what.chars().count() <= 12 && !consequence {
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
            // "不要叫我宝宝": how the user wants to be called is a preference.
            let memory_type = if what.starts_with("叫我") {
                MemoryType::Preference
            } else {
                MemoryType::Constraint
            };
            sink.memory(
                Signal::Constraint,
                memory_type,
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

/// A reminder asked for or a chore owed ("提醒我取快递", "明天还得买菜"): what follows is an
/// everyday to-do, unless it names an event.
const ZH_TO_DO: &[&str] = &[
    "提醒我",
    "提醒一下我",
    "叫我记得",
    "还得",
    "得去",
    "必须",
    "需要",
];
/// Events that stay appointments even when the user asks to be reminded of them.
const ZH_EVENTS: &[&str] = &[
    "面试",
    "考试",
    "复查",
    "体检",
    "看病",
    "婚礼",
    "生日",
    "演唱会",
    "比赛",
    "手术",
    "会议",
    "开会",
    "约",
    "航班",
    "飞机",
    "出差",
    "聚会",
    "截止",
    "提交",
];
/// Words that make a dated clause a hypothesis rather than a plan.
const HYPOTHETICAL: &[&str] = &["要是", "如果", "假如", "万一", "的话", "假设"];
/// Words that make a dated clause a habit or a liking rather than an event.
const HABITUAL: &[&str] = &[
    "喜欢", "一般", "通常", "平时", "每", "老是", "总是", "经常", "常常", "天天",
];
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
    // "小林说他周末要去…": someone else's plan, reported.
    let reported = ["说他", "说她", "说他们", "说她们"]
        .iter()
        .any(|r| s.contains(r))
        || s.starts_with(['他', '她']);
    if HYPOTHETICAL.iter().any(|h| s.contains(h))
        || HABITUAL.iter().any(|h| restated.contains(h))
        || decided
        || reported
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
    let last_day = w.end.unwrap_or(w.date);
    // Done today: the date's clause says so ("今天被老板骂了"; tidying drops a final 了 from
    // `core`), unless it is still ahead ("今天要交报告了").
    let date_clause = clause(&bare_said, STOPS, &[]);
    let ahead_cue = ["要", "得", "准备", "打算", "会", "将"]
        .iter()
        .any(|f| date_clause.contains(f));
    // Said as done, or a feeling of today ("我今天非常开心，一直在踢球"): what the day is,
    // not a plan for it.
    let feeling_today = w.date == sink.day && crate::dream::emotion::detect(date_clause).is_some();
    // Or the sentence tells of it as done after the date's clause ("在元旦晚会上，我们一起
    // 制作了彩纸灯笼").
    let said_as_done = ((DONE
        .iter()
        .any(|d| date_clause.contains(d) || core.contains(d))
        || feeling_today)
        && !ahead_cue)
        || w.spans
            .first()
            .is_some_and(|&span| when::told_as_done(s, span));
    // A span ("今年…五岁了") dates no single event.
    let done = last_day < sink.day || (w.end.is_none() && w.date <= sink.day && said_as_done);
    // A finished event needs no cue word ("今天被老板骂了"); a plan does. A short one counts
    // when the sentence says how it felt ("前天手机丢了，烦死了").
    let cjk = core.chars().filter(|c| text::is_cjk(*c)).count();
    let felt = || crate::dream::emotion::detect(s).is_some();
    let said_done = done && (cjk >= 4 || (cjk >= 2 && felt()));
    let verb = segment(&core)
        .iter()
        .any(|word| word.class == WordClass::Verb)
        || EVENT_CUES.iter().any(|c| core.contains(c));
    // A reminder asked for or a chore ("提醒我周五交房租", "明天还得买菜") is an everyday
    // to-do: a dated project memory, not one of the user's important appointments.
    let chore = ZH_TO_DO.iter().any(|r| s.contains(r));
    let to_do = chore && !ZH_EVENTS.iter().any(|e| s.contains(e));
    if !verb && !said_done && !chore {
        return false;
    }
    let summary = if restated.starts_with(|c: char| c.is_ascii_digit()) {
        dated_subject(&restated)
    } else {
        text::third_person(&restated, Lang::Zh)
    };
    if done {
        // What happened, with how it felt and why: the whole sentence.
        let all = w.restate_all(s);
        let said = text::cut_chars(&all, 200);
        let whole = if said.starts_with(|c: char| c.is_ascii_digit()) {
            dated_subject(said)
        } else {
            text::third_person(said, Lang::Zh)
        };
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
    if !to_do {
        sink.pkg("Important Appointments", &format!("{label} {bare}"));
    }
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
    // A wish said with feeling ("我一直想去冰岛", "我好想去日本") is a plan in waiting;
    // a bare "我想去…" is often just the next minute ("我想去吃饭").
    const WISHING: &[&str] = &[
        "一直", "好", "很", "特别", "超", "真的", "非常", "其实", "总",
    ];
    for t in [
        "决定",
        "打算",
        "准备",
        "计划",
        "想好了",
        "在考虑",
        "考虑",
        "想去",
    ] {
        // Chinese drops the subject after a time word: "这周末打算回老家看外婆" is the user's.
        let dropped_subject = || {
            let at = s.find(t)?;
            let before = &s[..at];
            let when_only = before.chars().count() <= 6
                && when::find(before, sink.day)
                    .is_some_and(|w| w.strip(before).trim_matches(['这', '本', ' ']).is_empty());
            when_only.then(|| (before, &s[at + t.len()..]))
        };
        if let Some((adverbs, rest)) = after_me(s, t).into_iter().next().or_else(dropped_subject) {
            if t == "想去" && !WISHING.iter().any(|w| adverbs.contains(w)) {
                return;
            }
            let what = tidy_item(clause(rest, STOPS, &[]));
            if what.chars().count() >= 2 {
                let said = format!("我{adverbs}{t}{what}");
                let dated = when::find(&said, sink.day);
                let summary = text::third_person(
                    &dated.as_ref().map_or(said.clone(), |w| w.restate(&said)),
                    Lang::Zh,
                );
                let keywords = keywords_of(&what);
                // A plan for a day or a weekend ("这周六打算去宜家", "五一打算去厦门") is one of
                // the user's appointments; one for a month or a year ("下个月换工作") is not yet.
                let on_a_day =
                    |w: &when::When| w.end.is_none_or(|end| (end - w.date).num_days() <= 2);
                if let Some(w) = dated
                    .as_ref()
                    .filter(|w| on_a_day(w) && !t.contains("考虑"))
                {
                    let plan = tidy_item(&w.strip(&said));
                    let plan = plan
                        .split_once(t)
                        .map_or(plan.as_str(), |(_, p)| p)
                        .trim_start_matches(['去', '要', '在']);
                    if plan.chars().count() >= 2 {
                        sink.pkg("Important Appointments", &format!("{} {plan}", w.label()));
                    }
                }
                let at = dated.as_ref().map(|w| w.timestamp());
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
