//! 用户喜欢什么: favourites, hobbies, likes and dislikes.

use super::*;

/// "我最喜欢的书是《三体》"; "我的偶像是刘德华".
pub(super) fn favorite(s: &str, sink: &mut Sink) -> bool {
    if let Some((_, rest)) = after_me(s, "的偶像是").into_iter().next() {
        let idol = strip_quotes(clause(rest, STOPS, &[]));
        if idol.chars().count() >= 2 && !idol.contains("什么") && !idol.contains('谁') {
            sink.memory(
                Signal::Preference,
                MemoryType::Preference,
                format!("用户的偶像是{idol}"),
                vec![idol.into(), "偶像".into()],
            );
            return true;
        }
    }
    // "詹姆斯是我偶像": the idol named first.
    for t in ["是我的偶像", "是我偶像"] {
        let Some(i) = s.find(t) else { continue };
        let idol = strip_quotes(last_clause(&s[..i]));
        if (2..=8).contains(&idol.chars().count()) && !idol.starts_with(NOT_OBJECTS) {
            sink.memory(
                Signal::Preference,
                MemoryType::Preference,
                format!("用户的偶像是{idol}"),
                vec![idol.into(), "偶像".into()],
            );
        }
        break;
    }
    // "我是湖人的球迷", "我是周杰伦的粉丝": who or what the user follows.
    for fan in ["球迷", "铁粉", "粉丝", "歌迷", "影迷"] {
        for (_, rest) in after_me(s, "是") {
            let Some(of) = clause(rest, STOPS, &[]).split_once(fan).map(|(of, _)| of) else {
                continue;
            };
            let of = strip_quotes(of.trim_end_matches('的').trim_start_matches(['个', '一']));
            if !(2..=8).contains(&of.chars().count()) || of.starts_with(NOT_OBJECTS) {
                continue;
            }
            if fan == "球迷" {
                sink.pkg("Favorite Sports", of);
            }
            sink.memory(
                Signal::Preference,
                MemoryType::Preference,
                format!("用户是{of}的{fan}"),
                vec![of.into(), fan.into()],
            );
            return true;
        }
    }
    for t in ["最喜欢的", "最爱的"] {
        for (_, rest) in after_me(s, t) {
            let Some((what, value)) = rest.split_once('是') else {
                continue;
            };
            let value = strip_quotes(clause(value, STOPS, &[]));
            let what = what.trim();
            if value.is_empty() || what.chars().count() > 6 || value.contains("什么") {
                continue;
            }
            let field = if what.contains('书') || what.contains("小说") {
                Some("Favorite Books")
            } else if what.contains("电影") || what.ends_with('片') {
                Some("Favorite Movies")
            } else if what.contains("运动") || what.contains("体育") {
                Some("Favorite Sports")
            } else if lexicon::ZH_ENTERTAINMENT.iter().any(|e| what.contains(e))
                || what.contains('剧')
            {
                Some("Entertainment and Leisure")
            } else {
                None
            };
            if let Some(field) = field {
                sink.pkg(field, value);
            }
            sink.memory(
                Signal::Preference,
                MemoryType::Preference,
                format!("用户最喜欢的{what}是{value}"),
                vec![value.into(), what.into()],
            );
            return true;
        }
    }
    false
}

pub(super) fn hobbies(s: &str, sink: &mut Sink) -> bool {
    const TRIGGERS: &[&str] = &[
        "我的兴趣爱好是",
        "我的爱好是",
        "我的兴趣是",
        "我爱好是",
        "我的爱好有",
        "我平时喜欢",
        "我业余时间喜欢",
        "我业余喜欢",
        "我空闲时喜欢",
        "我周末喜欢",
        "我闲暇时喜欢",
    ];
    for t in TRIGGERS {
        let Some(i) = s.find(t) else { continue };
        let items = objects(&s[i + t.len()..]);
        if items.is_empty() {
            continue;
        }
        for item in &items {
            sink.pkg("Hobbies", item);
        }
        sink.memory(
            Signal::Preference,
            MemoryType::Preference,
            format!("用户的爱好是{}", items.join("和")),
            items,
        );
        return true;
    }
    false
}

/// "她做的饺子" → "饺子": what someone made or did is the liked thing, not the person.
fn made_by_someone(item: &str) -> &str {
    match item
        .strip_prefix(['他', '她'])
        .and_then(|rest| rest.split_once('的'))
    {
        Some((made, thing)) if made.chars().count() <= 2 && !thing.is_empty() => thing,
        _ => item,
    }
}

/// The liked things of a clause, tidied, without pronouns and questions.
pub(super) fn objects(rest: &str) -> Vec<String> {
    list_items(clause(rest, STOPS, &['、']))
        .iter()
        .map(|i| tidy_item(made_by_someone(i)))
        .filter(|i| {
            let n = i.chars().count();
            (1..=12).contains(&n)
                && !i.starts_with(NOT_OBJECTS)
                && !i.contains("什么")
                && i.chars().any(|c| text::is_cjk(c) || c.is_alphanumeric())
        })
        .collect()
}

pub(super) fn likes(s: &str, sink: &mut Sink) {
    const TRIGGERS: &[(&str, bool)] = &[
        ("喜欢上了", true),
        ("喜欢上", true),
        ("爱上了", true),
        ("迷上了", true),
        ("迷上", true),
        ("喜欢", true),
        ("热爱", true),
        ("爱", true),
        ("讨厌", false),
        ("受不了", false),
    ];
    let mut seen_at = Vec::new();
    for (t, positive) in TRIGGERS {
        for (adverbs, rest) in after_me(s, t) {
            let at = s.len() - rest.len();
            if seen_at.iter().any(|&(a, b)| at > a && at <= b)
                || (*t == "爱" && rest.starts_with(['好', '人', '情', '心']))
            {
                continue;
            }
            seen_at.push((at - t.len(), at));
            let negated = adverbs.contains('不') || adverbs.contains('没');
            // "我以前喜欢…现在不了": a liking of the past, not of now.
            let past = ["以前", "曾经", "原来", "小时候"]
                .iter()
                .any(|p| adverbs.contains(p));
            let liked = *positive != negated;
            let items: Vec<String> = objects(rest)
                .iter()
                .map(|i| text::third_person(i, Lang::Zh))
                .collect();
            if items.is_empty() {
                continue;
            }
            if liked && !past {
                for item in &items {
                    classify_liked(item, s, sink);
                }
            }
            let what = items.join("和");
            let summary = if past {
                let now_not = ["现在不", "现在没", "不了", "戒了", "不玩了", "不再"]
                    .iter()
                    .any(|n| s.contains(n));
                format!(
                    "用户以前{}{what}{}",
                    if liked { "喜欢" } else { "不喜欢" },
                    if now_not { "，现在不了" } else { "" }
                )
            } else if let Some(called) = what.strip_prefix("别人叫用户") {
                // "我不喜欢别人叫我全名": about how to address the user.
                format!("用户{}被叫{called}", if liked { "喜欢" } else { "不喜欢" })
            } else {
                format!("用户{}{what}", if liked { "喜欢" } else { "不喜欢" })
            };
            sink.memory(Signal::Preference, MemoryType::Preference, summary, items);
        }
    }
}

/// Habits and pastimes said without "喜欢": "我每天早上都会去公园跑步", "我在学吉他",
/// "我最近开始练瑜伽了", "我周末一般宅家打游戏".
pub(super) fn habits(s: &str, sink: &mut Sink) -> bool {
    const MARKERS: &[&str] = &[
        "每天",
        "每周",
        "每个周末",
        "每晚",
        "每次",
        "经常",
        "平时",
        "一般",
        "周末",
        "在学",
        "开始学",
        "开始练",
        "在练",
        "学了",
        "练了",
        "坚持",
    ];
    let Some(clause_start) = s.find('我') else {
        return false;
    };
    let body = &s[clause_start..];
    // "他老是让我周末加班": the habit is someone else's doing to the user.
    let object = names_someone_else(last_clause(&s[..clause_start]));
    if !MARKERS.iter().any(|m| body.contains(m)) || s.contains('吗') || object {
        return false;
    }
    let said = text::third_person(tidy_item(clause(body, STOPS, &[])).as_str(), Lang::Zh);
    // "我不太会做饭": what the user does not do is no pastime of theirs.
    let negated = said.contains('不') || said.contains('没');
    let (said, keywords) = match activity_in(body) {
        Some((item, field)) if !negated => {
            sink.pkg(field, &item);
            // "每天晚上都会看一会儿书再睡" names its pastime ("看书") only in passing: say it.
            let said = if said.contains(item.as_str()) {
                said
            } else {
                format!("{said}（{item}）")
            };
            (said, vec![item])
        }
        Some((item, _)) => (said, vec![item]),
        // A habit that is no known pastime ("我周末一般去图书馆自习", the user's own, not a
        // plan) is still how the user lives; only a pastime goes into the PKG.
        None if MARKERS.iter().any(|m| said.contains(m))
            && clause_about_me(clause(body, STOPS, &[]))
            && !["决定", "打算", "准备", "计划", "想"]
                .iter()
                .any(|d| said.contains(d))
            && said.chars().filter(|c| text::is_cjk(*c)).count() >= 6 =>
        {
            let keywords = keywords_of(&said);
            (said, keywords)
        }
        None => return false,
    };
    sink.memory(Signal::Preference, MemoryType::Preference, said, keywords);
    true
}

/// Instruments: learning or playing one is a hobby.
const INSTRUMENTS: &[&str] = &[
    "吉他",
    "钢琴",
    "小提琴",
    "尤克里里",
    "架子鼓",
    "古筝",
    "二胡",
];

/// The first pastime named in `text`, and the PKG field it belongs to.
fn activity_in(text: &str) -> Option<(String, &'static str)> {
    const READING: &[(&str, &str)] = &[
        ("看一会儿书", "看书"),
        ("看书", "看书"),
        ("读书", "读书"),
        ("做蛋糕", "做蛋糕"),
    ];
    let hobbies = lexicon::zh_sports()
        .chain(lexicon::ZH_HOBBIES)
        .chain(INSTRUMENTS)
        .map(|w| (*w, *w, "Hobbies"));
    let pastimes = lexicon::ZH_ENTERTAINMENT
        .iter()
        .map(|w| (*w, *w, "Entertainment and Leisure"));
    let reading = READING
        .iter()
        .map(|(w, as_hobby)| (*w, *as_hobby, "Hobbies"));
    hobbies
        .chain(pastimes)
        .chain(reading)
        .filter_map(|(said, item, field)| text.find(said).map(|i| (i, said.len(), item, field)))
        .min_by_key(|(i, len, _, _)| (*i, usize::MAX - len))
        .map(|(_, _, item, field)| (item.to_string(), field))
}

/// Files a liked thing under the PKG field it belongs to, if any.
pub(super) fn classify_liked(item: &str, sentence: &str, sink: &mut Sink) {
    if let (Some(a), Some(b)) = (item.find('《'), item.find('》')) {
        let title = &item[a + '《'.len_utf8()..b];
        let movie = sentence.contains("电影") || sentence.contains('片') || sentence.contains("剧");
        sink.pkg(
            if movie {
                "Favorite Movies"
            } else {
                "Favorite Books"
            },
            title,
        );
    } else if let Some(sport) = lexicon::zh_sports().find(|sp| item.contains(**sp)) {
        sink.pkg("Favorite Sports", sport);
        // Swimming is a doing; "打篮球" too; "篮球" alone or "看NBA" is a liking.
        let doing = item.starts_with(lexicon::ZH_ACTIVITY_VERBS) && !item.starts_with('看')
            || lexicon::ZH_SPORT_DOINGS.contains(sport);
        if doing {
            sink.pkg("Hobbies", sport);
        }
    } else if let Some(game) = item.strip_prefix('玩').filter(|g| g.chars().count() >= 2) {
        sink.pkg("Entertainment and Leisure", game);
    } else if lexicon::ZH_ENTERTAINMENT.iter().any(|e| item.contains(e)) {
        sink.pkg("Entertainment and Leisure", item);
    } else if lexicon::ZH_HOBBIES.contains(&item)
        || ((2..=4).contains(&item.chars().count())
            && !item.contains('的')
            && item.starts_with(lexicon::ZH_ACTIVITY_VERBS))
    {
        sink.pkg("Hobbies", item);
    } else if let Some((pastime, field)) = activity_in(item) {
        // "在周末去咖啡馆看书": a known pastime inside what is liked.
        sink.pkg(field, &pastime);
    }
}

/// What the user is into these days, said as doing it ("我最近在追《繁花》", "我在玩塞尔达"):
/// a `preference` memory and an `Entertainment and Leisure` item. Watching, reading or
/// listening counts only for a title in 《》 ("在看" alone may be a doctor).
pub(super) fn into_now(s: &str, sink: &mut Sink) -> bool {
    const DOING: &[(&str, bool)] = &[
        ("在追", true),
        ("在玩", true),
        ("在刷", true),
        ("在看", false),
        ("在读", false),
        ("在听", false),
    ];
    for (t, show_or_game) in DOING {
        let Some((adverbs, rest)) = after_me(s, t).into_iter().next() else {
            continue;
        };
        let object = tidy_item(clause(rest, STOPS, &[]));
        // A title is what 《》 enclose; else the last of "Switch上的塞尔达".
        let titled = object
            .split_once('《')
            .and_then(|(_, t)| t.split_once('》'));
        let title = match titled {
            Some((title, _)) => title,
            None => object.rsplit('的').next().unwrap_or(&object),
        }
        .trim()
        .to_string();
        let titled = titled.is_some();
        if title.chars().count() < 2 || !(titled || *show_or_game) {
            continue;
        }
        sink.pkg("Entertainment and Leisure", &title);
        let said = text::third_person(&format!("我{adverbs}{t}{object}"), Lang::Zh);
        sink.memory(
            Signal::Preference,
            MemoryType::Preference,
            said,
            vec![title],
        );
        return true;
    }
    false
}

/// Something the user stopped doing ("我现在不玩原神了", "我已经不追星了"): a `preference`
/// memory that says so, never a current liking.
pub(super) fn stopped(s: &str, sink: &mut Sink) -> bool {
    const PARTICLES: &[char] = &['啊', '呀', '吧', '呢', '哦', '啦', '嘛', '呗', '哈'];
    let Some(said) = s
        .split(['，', ',', '。', '！', '!', '；'])
        .map(|c| c.trim().trim_end_matches(PARTICLES))
        .find(|c| {
            let Some(me) = c.find('我') else {
                return false;
            };
            c.ends_with('了')
                && !c.ends_with("不了")
                && c[me..].contains('不')
                && clause_about_me(c)
        })
    else {
        return false;
    };
    let said = text::third_person(said, Lang::Zh);
    if said.chars().filter(|c| text::is_cjk(*c)).count() < 6 {
        return false;
    }
    let keywords = keywords_of(&said);
    sink.memory(Signal::Preference, MemoryType::Preference, said, keywords);
    true
}
