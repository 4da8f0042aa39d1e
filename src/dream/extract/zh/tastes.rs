//! 用户喜欢什么: favourites, hobbies, likes and dislikes.

use super::*;

/// "我最喜欢的书是《三体》".
pub(super) fn favorite(s: &str, sink: &mut Sink) -> bool {
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

/// The liked things of a clause, tidied, without pronouns and questions.
pub(super) fn objects(rest: &str) -> Vec<String> {
    list_items(clause(rest, STOPS, &['、']))
        .iter()
        .map(|i| tidy_item(i))
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
        ("喜欢", true),
        ("热爱", true),
        ("爱上了", true),
        ("迷上了", true),
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
            let liked = *positive != negated;
            let items = objects(rest);
            if items.is_empty() {
                continue;
            }
            if liked {
                for item in &items {
                    classify_liked(item, s, sink);
                }
            }
            let verb = if liked { "喜欢" } else { "不喜欢" };
            sink.memory(
                Signal::Preference,
                MemoryType::Preference,
                format!("用户{verb}{}", items.join("和")),
                items,
            );
        }
    }
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
    } else if let Some(sport) = lexicon::ZH_SPORTS.iter().find(|sp| item.contains(**sp)) {
        sink.pkg("Favorite Sports", sport);
    } else if lexicon::ZH_ENTERTAINMENT.iter().any(|e| item.contains(e)) {
        sink.pkg("Entertainment and Leisure", item);
    } else if lexicon::ZH_HOBBIES.contains(&item)
        || (item.chars().count() >= 2 && item.starts_with(lexicon::ZH_ACTIVITY_VERBS))
    {
        sink.pkg("Hobbies", item);
    }
}
