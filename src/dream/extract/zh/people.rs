//! 用户是谁、生活里有谁: names, nicknames, secrets, relations, profile.

use super::*;

/// Words that end a Chinese name (time words; their characters also occur in names).
pub(super) const NAME_STOP_WORDS: &[&str] = &[
    "今天", "明天", "昨天", "后天", "前天", "今年", "明年", "去年", "今晚", "明晚", "最近", "现在",
    "刚才", "以前", "以后",
];

/// Characters that end a Chinese name: verbs, particles, adverbs, punctuation.
pub(super) const NAME_STOPS: &str = "说是在和跟与也都很又要会给带叫去来的了们还就约才刚最非真太已正把被让对向从到过着呢吗吧啊呀哦他她它特超挺好每一有没不能可这那应帮竟居突经常总想得，。！？、,.!? ";

/// Common surnames: a name given right after a relation word without "叫" must start with
/// one of these or a name prefix (小, 老, 阿), so "我老婆怀孕了" names nobody.
pub(super) const SURNAMES: &str = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤欧司上诸东慕";
pub(super) const NAME_PREFIXES: &str = "小老阿大";

pub(super) fn looks_like_name(name: &str) -> bool {
    name.starts_with(|c: char| {
        c.is_ascii_alphabetic() || SURNAMES.contains(c) || NAME_PREFIXES.contains(c)
    })
}

/// A name at the start of `rest`: a Latin word, or two to `max` Chinese characters that no
/// dictionary word covers ("小红下周要来" → 小红: 下周 is a word). After an explicit "叫",
/// `called`, a dictionary word of two or three characters may be the name itself (叫明明).
pub(super) fn name_at(rest: &str, max: usize) -> Option<String> {
    name_after(rest, max, false)
}

pub(super) fn name_after(rest: &str, max: usize, called: bool) -> Option<String> {
    let rest = rest.trim_start();
    let latin: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == '\'' || *c == '-')
        .collect();
    if latin.len() >= 2 {
        return Some(latin);
    }
    let words = segment(rest);
    let mut name = String::new();
    for w in &words {
        let c = w.text.chars().next().unwrap_or(' ');
        let stop_word = NAME_STOP_WORDS
            .iter()
            .any(|s| rest[w.start..].starts_with(s));
        if w.known()
            || stop_word
            || !text::is_cjk(c)
            || NAME_STOPS.contains(c)
            || name.chars().count() == max
        {
            break;
        }
        name.push(c);
    }
    if name.chars().count() >= 2 {
        return Some(name);
    }
    let first = words.first().filter(|w| w.known() && called)?;
    let next = words.get(1);
    let ends =
        next.is_none_or(|n| n.known() || !text::is_cjk(n.text.chars().next().unwrap_or(' ')));
    ((2..=3).contains(&first.text.chars().count()) && name.is_empty() && ends)
        .then(|| first.text.to_string())
}

pub(super) fn secret(s: &str, sink: &mut Sink) {
    for (word, sensitive) in [
        ("暗号", false),
        ("口令", false),
        ("密语", false),
        ("密码", true),
    ] {
        let Some(i) = s.find(word) else { continue };
        let rest = s[i + word.len()..].trim_start_matches(['是', '：', ':', '为', ' ', '就']);
        let phrase = strip_quotes(clause(rest, &[], &[]));
        if phrase.is_empty() || phrase.contains('吗') || phrase.contains("什么") {
            continue;
        }
        let summary = if sensitive {
            format!("用户的密码是“{phrase}”")
        } else {
            format!("用户和我的{word}是“{phrase}”")
        };
        sink.memory(
            Signal::Secret,
            MemoryType::Relationship,
            summary,
            vec![word.into(), phrase.into()],
        );
        if sensitive {
            sink.last_sensitive();
        }
        return;
    }
}

pub(super) fn nickname(s: &str, sink: &mut Sink) {
    let mut found: Option<String> = None;
    let mut from = 0;
    while let Some(i) = s[from..].find("叫我").map(|i| i + from) {
        from = i + "叫我".len();
        let before = &s[..i];
        let other_speaker = before.ends_with(|c: char| "他她它谁们妈爸人".contains(c));
        if other_speaker || before.ends_with("不要") || before.ends_with('别') {
            continue;
        }
        let rest = &s[from..];
        if rest.starts_with(|c: char| {
            "去来起吃做帮别不过回出进上下看听写买拿给多少一快慢早晚等带陪睡跟和把的了".contains(c)
        }) {
            continue;
        }
        found = name_at(rest, 4);
    }
    for t in [
        "我的外号是",
        "我的小名是",
        "我的昵称是",
        "我的绰号是",
        "我小名叫",
        "我的网名是",
        "我外号叫",
    ] {
        if let Some(i) = s.find(t) {
            found = found.or_else(|| name_at(&s[i + t.len()..], 4));
        }
    }
    if let Some(nick) = found {
        sink.pkg("Nickname", &nick);
        sink.memory(
            Signal::Identity,
            MemoryType::Profile,
            format!("用户喜欢被叫{nick}"),
            vec![nick, "称呼".into()],
        );
    }
}

pub(super) fn name(s: &str, sink: &mut Sink) {
    for t in ["我的名字是", "我的名字叫", "我名字叫", "我名叫", "我叫"] {
        let Some(i) = s.find(t) else { continue };
        let rest = &s[i + t.len()..];
        if rest.starts_with(|c: char| "了过着他她你它们去来起做".contains(c)) {
            return;
        }
        if let Some(n) = name_at(rest, 3) {
            sink.pkg("Name", &n);
            sink.memory(
                Signal::Identity,
                MemoryType::Profile,
                format!("用户的名字是{n}"),
                vec![n, "名字".into()],
            );
        }
        return;
    }
}

pub(super) fn relations(s: &str, sink: &mut Sink) {
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let step = rest.chars().next().map_or(1, char::len_utf8);
        let Some(&(word, title, circle)) = lexicon::ZH_RELATIONS
            .iter()
            .find(|(w, _, _)| rest.starts_with(w))
        else {
            i += step;
            continue;
        };
        let before = &s[..i];
        let after = &rest[word.len()..];
        i += word.len();
        let mine = [
            "我的",
            "我有个",
            "我有一个",
            "我有一位",
            "我最好的",
            "我的好",
            "我",
        ]
        .iter()
        .any(|p| before.ends_with(p));
        let name = if let Some(b) = before.strip_suffix("是我的") {
            // "小红是我的同学": the name is the end of what comes before.
            let chars: Vec<char> = b
                .chars()
                .rev()
                .take_while(|c| text::is_cjk(*c) && !NAME_STOPS.contains(*c))
                .take(3)
                .collect();
            (chars.len() >= 2).then(|| chars.into_iter().rev().collect())
        } else if mine {
            let after = after.trim_start_matches(['，', ',']);
            match ["名叫", "叫做", "叫"]
                .iter()
                .find_map(|p| after.strip_prefix(p))
            {
                Some(called) => name_after(called, 3, true),
                None => name_at(after, 3).filter(|n| looks_like_name(n)),
            }
        } else {
            continue;
        };
        match name {
            Some(n) if n != title => {
                sink.person(&n, title);
                match circle {
                    Circle::Friend => sink.pkg("Important Friends", &n),
                    Circle::Family | Circle::Other => sink.pkg("Other Important People", &n),
                    Circle::Pet => {}
                }
                let summary = format!("{n}是用户的{title}");
                sink.memory(
                    Signal::Relation,
                    MemoryType::Relationship,
                    summary,
                    vec![n.clone(), title.into()],
                );
            }
            _ if circle == Circle::Family && mine => sink.person(title, title),
            _ => {}
        }
    }
}

pub(super) fn profile(s: &str, sink: &mut Sink) {
    const JOBS: &[&str] = &[
        "师", "员", "生", "家", "者", "工", "手", "医生", "护士", "会计", "老板", "人",
    ];
    for (_, rest) in after_me(s, "是") {
        let what = clause(rest, STOPS, &[]);
        let what = ["一名", "一个", "一位", "个", "名"]
            .iter()
            .find_map(|p| what.strip_prefix(p))
            .unwrap_or(what);
        let what = tidy_item(what);
        if (2..=10).contains(&what.chars().count())
            && JOBS.iter().any(|j| what.ends_with(j))
            && !what.starts_with(NOT_OBJECTS)
        {
            sink.memory(
                Signal::Preference,
                MemoryType::Profile,
                format!("用户是{what}"),
                vec![what],
            );
            return;
        }
    }
    for (t, done) in [
        ("住在", "住在"),
        ("来自", "来自"),
        ("老家在", "老家在"),
        ("老家是", "老家是"),
        ("今年", "今年"),
    ] {
        for (_, rest) in after_me(s, t) {
            let what = tidy_item(clause(rest, STOPS, &[]));
            if (1..=12).contains(&what.chars().count()) && (t != "今年" || what.ends_with('岁'))
            {
                sink.memory(
                    Signal::Preference,
                    MemoryType::Profile,
                    format!("用户{done}{what}"),
                    vec![what],
                );
                return;
            }
        }
    }
    for (_, rest) in after_me(s, "在") {
        let what = clause(rest, STOPS, &[]);
        for verb in ["工作", "上班", "上学", "读书", "读大学", "实习"] {
            if let Some(place) = what
                .strip_suffix(verb)
                .filter(|p| (2..=12).contains(&p.chars().count()))
            {
                sink.memory(
                    Signal::Preference,
                    MemoryType::Profile,
                    format!("用户在{place}{verb}"),
                    vec![place.into(), verb.into()],
                );
                return;
            }
        }
    }
    for t in ["我的生日是", "我生日是", "我的生日在", "我生日在"] {
        if let Some(i) = s.find(t) {
            let day = tidy_item(clause(&s[i + t.len()..], STOPS, &[]));
            if !day.is_empty() {
                sink.memory(
                    Signal::Identity,
                    MemoryType::Profile,
                    format!("用户的生日是{day}"),
                    vec![day, "生日".into()],
                );
            }
            return;
        }
    }
}
