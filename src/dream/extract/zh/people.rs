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
    let mut chars = name.chars();
    // A doubled character is a common given name or pet name (婷婷, 朵朵, 乐乐).
    let doubled = chars.next().is_some_and(|c| Some(c) == chars.next());
    doubled
        || name.starts_with(|c: char| {
            c.is_ascii_alphabetic() || SURNAMES.contains(c) || NAME_PREFIXES.contains(c)
        })
}

/// Where the user says whose a relation word is, right before it: "我", "我的", "我最好的",
/// "我家", "我养了一只" …
const MY_LEADS: &[&str] = &[
    "我的",
    "我有个",
    "我有一个",
    "我有一位",
    "我有只",
    "我有一只",
    "我最好的",
    "我的好",
    "我家",
    "我家的",
    "我们家",
    "我们家的",
    // "我大学室友王磊": where the user knows them from.
    "我大学",
    "我大学的",
    "我高中",
    "我高中的",
    "我初中",
    "我初中的",
    "我养的",
    "我养了只",
    "我养了一只",
    "我养了一条",
    // "我跟女朋友吵架了": the one the user did something with is theirs.
    "我跟",
    "我和",
    "我与",
    "我",
];

/// The last clause of `before`: what follows its last punctuation mark.
pub(super) fn last_clause(before: &str) -> &str {
    before
        .rsplit(['，', ',', '。', '！', '？'])
        .next()
        .unwrap_or(before)
}

/// "我姑姑家的表妹", "我们部门新来的经理": a clause that opens with "我" and ends with "的"
/// right before the relation word makes the relation the user's, unless what the "的" hangs
/// on is itself a person ("我同学的妈妈" is the classmate's mother).
fn my_possessive_chain(before: &str) -> bool {
    let clause = last_clause(before);
    let Some(owner) = clause.strip_suffix('的') else {
        return false;
    };
    clause.starts_with('我')
        && !lexicon::ZH_RELATIONS
            .iter()
            .any(|(w, _, _)| owner.ends_with(w))
}

/// "小红是我的同学", "小雨是我最好的朋友": the name before "是我" when only a few modifier
/// characters ("的", "最好的") stand between "是我" and the relation word.
fn name_before_is_mine(before: &str) -> Option<String> {
    let at = before.rfind("是我")?;
    let between = &before[at + "是我".len()..];
    if between.chars().count() > 4 || (!between.is_empty() && !between.ends_with('的')) {
        return None;
    }
    let head = &before[..at];
    let chars: Vec<char> = head
        .chars()
        .rev()
        .take_while(|c| text::is_cjk(*c) && !NAME_STOPS.contains(*c))
        .take(3)
        .collect();
    (chars.len() >= 2).then(|| chars.into_iter().rev().collect())
}

/// "我们班的张伟", "我们公司的小李": a named member of the user's class, dorm or workplace.
fn group_members(s: &str, out: &mut Vec<Mention>) {
    const GROUPS: &[(&str, &str, Circle)] = &[
        ("我们班的", "同学", Circle::Friend),
        ("我们宿舍的", "室友", Circle::Friend),
        ("我们寝室的", "室友", Circle::Friend),
        ("我们公司的", "同事", Circle::Other),
        ("我们部门的", "同事", Circle::Other),
        ("我们单位的", "同事", Circle::Other),
        ("我们组的", "同事", Circle::Other),
    ];
    for &(lead, title, circle) in GROUPS {
        let Some(i) = s.find(lead) else { continue };
        let after = &s[i + lead.len()..];
        if lexicon::ZH_RELATIONS
            .iter()
            .any(|(w, _, _)| after.starts_with(w))
        {
            continue;
        }
        if let Some(n) = name_at(after, 3).filter(|n| looks_like_name(n)) {
            let n = prefixed_name(n);
            let news = is_news(after_name(after, &n));
            out.push(Mention {
                name: Some(n),
                title,
                circle,
                mine: true,
                news,
            });
        }
    }
}

/// A name opened by 小 / 老 / 阿 / 大, or a doubled one, has two characters ("老陈", "豆豆"):
/// "老陈教了我" is 老陈, not 老陈教. A diminutive 儿 may follow ("小鱼儿").
fn prefixed_name(n: String) -> String {
    let chars: Vec<char> = n.chars().collect();
    let short = NAME_PREFIXES.contains(chars[0]) || chars.get(1) == Some(&chars[0]);
    if chars.len() == 3 && short && chars[2] != '儿' {
        chars[..2].iter().collect()
    } else {
        n
    }
}

/// A person the sentence mentions with their relation to the user.
struct Mention {
    name: Option<String>,
    title: &'static str,
    circle: Circle,
    /// Said as the user's own ("我妈", "我的同学"), not merely opening a clause.
    mine: bool,
    /// The clause goes on with news of them ([`is_news`]).
    news: bool,
}

/// A named person with their relation: entity, PKG list, and a relationship memory.
fn record_person(n: &str, title: &str, circle: Circle, sink: &mut Sink) {
    sink.person(n, title);
    match circle {
        Circle::Friend => sink.pkg("Important Friends", n),
        Circle::Family | Circle::Other => sink.pkg("Other Important People", n),
        Circle::Pet => {}
    }
    sink.memory(
        Signal::Relation,
        MemoryType::Relationship,
        format!("{n}是用户的{title}"),
        vec![n.to_string(), title.into()],
    );
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
        "我的英文名是",
        "我的英文名叫",
        "我英文名叫",
        "我英文名是",
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

/// Records the people `s` mentions; true when it also tells news of one of them (see
/// [`is_news`]).
pub(super) fn relations(s: &str, sink: &mut Sink) -> bool {
    let mut news = false;
    for m in mentions(s) {
        news |= m.news;
        match m.name {
            Some(n) => record_person(&n, m.title, m.circle, sink),
            // "我和男朋友分手了": no longer the user's 男朋友, so no entity of that title.
            None if m.circle == Circle::Family
                && m.mine
                && !["分手", "离婚"].iter().any(|w| s.contains(w)) =>
            {
                sink.person(m.title, m.title)
            }
            None => {}
        }
    }
    news
}

/// Whether the rest of a person's clause tells what happened to them or what they keep doing
/// ("怀孕了", "今年九十岁了", "天天打游戏"), not who they are ("是…", "叫…") or what someone
/// said.
fn is_news(told: &str) -> bool {
    let clause = told
        .split(['，', ',', '。', '！', '!', '？', '?', '；', ';'])
        .next()
        .unwrap_or_default()
        .trim();
    !clause.is_empty()
        && !["是", "叫", "的", "说", "和", "跟"]
            .iter()
            .any(|p| clause.starts_with(p))
        && (clause.contains('了')
            || ["天天", "每天", "经常", "总是", "老是"]
                .iter()
                .any(|w| clause.contains(w)))
}

/// The people `s` mentions with their relation to the user, in order.
fn mentions(s: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    group_members(s, &mut out);
    let mut i = 0;
    // Where the last of the user's family words ended: "我爸爸妈妈" is both of theirs.
    let mut family_to = None;
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
        // "同事老王请我吃饭": a relation word opening a clause, followed by a name.
        let opens_clause = last_clause(before).is_empty();
        // "爸爸带我去了动物园": family opening the user's own clause is theirs.
        let family = circle == Circle::Family;
        let mine = MY_LEADS.iter().any(|p| before.ends_with(p))
            || my_possessive_chain(before)
            || (family && (opens_clause || family_to == Some(before.len())));
        family_to = (family && mine).then_some(i);
        let name = if let Some(n) = name_before_is_mine(before) {
            Some(n)
        } else if mine || opens_clause {
            let after = after.trim_start_matches(['，', ',']);
            match ["名叫", "叫做", "叫"]
                .iter()
                .find_map(|p| after.strip_prefix(p))
            {
                Some(called) if mine => name_after(called, 3, true),
                _ => name_at(after, 3)
                    .filter(|n| looks_like_name(n))
                    .map(prefixed_name),
            }
        } else {
            continue;
        };
        // "爸爸妈妈带我去了动物园": two relations, not 爸爸 named 妈妈.
        let name = name.filter(|n| {
            n != title
                && !lexicon::ZH_RELATIONS
                    .iter()
                    .any(|(w, _, _)| w.chars().count() >= 2 && n.starts_with(w))
        });
        let told = match &name {
            Some(n) => after_name(after, n),
            None => after,
        };
        let news = (mine || name.is_some()) && is_news(told);
        out.push(Mention {
            name,
            title,
            circle,
            mine,
            news,
        });
    }
    out
}

pub(super) fn profile(s: &str, sink: &mut Sink) {
    profile_more(s, sink);
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
            // "我是做外卖骑手的" is a trade, said by `profile_more`.
            && !what.starts_with('做')
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
        for verb in [
            "工作",
            "上班",
            "上学",
            "读书",
            "读大学",
            "上大学",
            "读研",
            "念书",
            "实习",
            "长大",
        ] {
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
        // "我在一家互联网公司做运营": a workplace, then the job done there.
        const WORKPLACES: &[&str] = &["公司", "医院", "学校", "银行", "工厂", "单位", "店", "厂"];
        if let Some((place, job)) = what.split_once('做').or_else(|| what.split_once('当')) {
            let job = tidy_item(job);
            if WORKPLACES.iter().any(|w| place.ends_with(w))
                && (2..=12).contains(&place.chars().count())
                && (1..=8).contains(&job.chars().count())
            {
                sink.memory(
                    Signal::Preference,
                    MemoryType::Profile,
                    format!("用户在{place}做{job}"),
                    vec![place.into(), job],
                );
                return;
            }
        }
    }
    // "我有点恐高": the fear of heights has its own word.
    if !after_me(s, "恐高").is_empty() {
        sink.memory(
            Signal::Preference,
            MemoryType::Profile,
            "用户恐高".into(),
            vec!["恐高".into()],
        );
    }
    // "我特别怕黑", "我害怕打雷": a fear is part of who the user is.
    for t in ["害怕", "怕"] {
        // Said of the user in its own clause: "拔智齿，好怕疼" is a feeling about the plan.
        let own_clause = s
            .find(t)
            .is_some_and(|i| last_clause(&s[..i]).starts_with('我'));
        if !own_clause {
            continue;
        }
        if let Some((_, rest)) = after_me(s, t).into_iter().next() {
            let what = tidy_item(clause(rest, STOPS, &[]));
            if (1..=8).contains(&what.chars().count()) && !what.starts_with(NOT_OBJECTS) {
                sink.memory(
                    Signal::Preference,
                    MemoryType::Profile,
                    format!("用户怕{what}"),
                    vec![what],
                );
            }
            break;
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

/// School years a user says they are in ("我还在读高三", "我在读研二").
const GRADES: &[&str] = &[
    "高一",
    "高二",
    "高三",
    "初一",
    "初二",
    "初三",
    "大一",
    "大二",
    "大三",
    "大四",
    "研一",
    "研二",
    "研三",
    "博一",
    "博二",
    "博三",
    "博士",
    "研究生",
    "大学",
    "高中",
    "初中",
    "小学",
];

/// Traits a user says they have ("我比较内向", "我是个路痴").
const TRAITS: &[&str] = &[
    "内向",
    "外向",
    "社恐",
    "慢热",
    "急性子",
    "慢性子",
    "路痴",
    "吃货",
    "夜猫子",
    "宅",
    "话痨",
    "完美主义",
    "单身",
];

/// Doings a user may say they cannot do ("我不会游泳").
const ABILITIES: &[&str] = &[
    "游泳",
    "开车",
    "做饭",
    "骑车",
    "骑自行车",
    "喝酒",
    "唱歌",
    "跳舞",
    "化妆",
    "英语",
    "说英语",
    "打字",
    "滑雪",
    "溜冰",
];

/// Who the user is, in the ways the rules above do not cover: a trade ("我是做设计的"), an age
/// without 岁 ("我今年27了"), a school year, a move ("我刚搬到深圳"), a trait, an inability.
fn profile_more(s: &str, sink: &mut Sink) {
    let dated = when::find(s, sink.day).is_some();
    let mut say = |summary: String, keywords: Vec<String>| {
        sink.memory(Signal::Preference, MemoryType::Profile, summary, keywords);
    };
    if let Some((_, rest)) = after_me(s, "是做").into_iter().next() {
        if let Some(trade) = clause(rest, STOPS, &[]).split('的').next() {
            if (1..=6).contains(&trade.chars().count()) && !trade.starts_with(NOT_OBJECTS) {
                return say(format!("用户是做{trade}的"), vec![trade.to_string()]);
            }
        }
    }
    for (_, rest) in after_me(s, "今年") {
        let age = tidy_item(clause(rest, STOPS, &[]));
        let age = age.trim_end_matches(['了', '岁']);
        let number = age.parse::<u32>().is_ok_and(|n| (1..=120).contains(&n))
            || (!age.is_empty() && age.chars().all(|c| "一二两三四五六七八九十".contains(c)));
        if number && age.chars().count() <= 4 {
            return say(
                format!("用户今年{age}岁"),
                vec![age.to_string(), "年龄".into()],
            );
        }
    }
    for t in ["在读", "读"] {
        for (adverbs, rest) in after_me(s, t) {
            if let Some(grade) = GRADES.iter().find(|g| rest.starts_with(**g)) {
                let adverbs = adverbs.trim_end_matches('在');
                return say(format!("用户{adverbs}在读{grade}"), vec![grade.to_string()]);
            }
        }
    }
    if !dated {
        for t in ["搬到了", "搬到", "搬来了", "搬来", "搬去了", "搬去"] {
            if let Some((_, rest)) = after_me(s, t).into_iter().next() {
                let place = tidy_item(clause(rest, STOPS, &[]));
                if (2..=10).contains(&place.chars().count()) && !place.starts_with(NOT_OBJECTS) {
                    return say(format!("用户搬到了{place}"), vec![place]);
                }
            }
        }
    }
    for t in TRAITS {
        for (adverbs, rest) in after_me(s, t)
            .into_iter()
            .chain(after_me(s, &format!("是个{t}")))
        {
            // "我宅在家里" is where, not who: a trait ends its clause or is said with a degree.
            let ends = rest.is_empty()
                || rest.starts_with(['，', ',', '。', '！', '了', '的', '啊', '呀']);
            if ends {
                return say(format!("用户{adverbs}{t}"), vec![t.to_string()]);
            }
        }
    }
    for (_, rest) in after_me(s, "不会") {
        if let Some(doing) = ABILITIES
            .iter()
            .chain(lexicon::zh_sports())
            .filter(|a| rest.starts_with(**a))
            .max_by_key(|a| a.len())
        {
            return say(format!("用户不会{doing}"), vec![doing.to_string()]);
        }
    }
}
