//! What the user likes and dislikes: favourites, hobbies, likes.

use super::*;

pub(super) fn favorite(s: &str, l: &str, sink: &mut Sink) -> bool {
    for t in [
        "my favorite",
        "my favourite",
        "my all-time favorite",
        "my all time favorite",
    ] {
        let Some(i) = find_word(l, t) else { continue };
        let rest = &l[i + t.len()..];
        let Some((what, value_at)) = [" is ", " are ", " was "]
            .iter()
            .filter_map(|v| {
                rest.find(v)
                    .map(|j| (rest[..j].trim(), i + t.len() + j + v.len()))
            })
            .min_by_key(|(w, _)| w.len())
        else {
            continue;
        };
        let value = strip_quotes(clause(&s[value_at..], STOPS, &[]));
        if what.is_empty() || what.split_whitespace().count() > 3 || value.is_empty() {
            continue;
        }
        let field = match what {
            w if w.contains("book") || w.contains("novel") => Some("Favorite Books"),
            w if w.contains("movie") || w.contains("film") => Some("Favorite Movies"),
            w if w.contains("sport") => Some("Favorite Sports"),
            w if ["show", "series", "game", "anime"]
                .iter()
                .any(|e| w.contains(e)) =>
            {
                Some("Entertainment and Leisure")
            }
            _ => None,
        };
        let items = if what.ends_with('s') {
            list_items(value)
        } else {
            vec![value.to_string()]
        };
        if let Some(field) = field {
            for item in &items {
                sink.pkg(field, strip_quotes(item));
            }
        }
        let verb = if what.ends_with('s') { "are" } else { "is" };
        sink.memory(
            Signal::Preference,
            MemoryType::Preference,
            format!("The user's favorite {what} {verb} {value}"),
            vec![value.into(), what.into()],
        );
        return true;
    }
    false
}

pub(super) fn hobbies(s: &str, l: &str, sink: &mut Sink) -> bool {
    /// Say outright that what follows is a pastime.
    const STRONG: &[&str] = &[
        "my hobbies are",
        "my hobbies include",
        "my hobby is",
        "my hobby's",
        "in my free time i like to",
        "in my free time, i like to",
        "in my spare time i like to",
        "in my spare time, i like to",
        "i'm into",
        "i am into",
        "i'm really into",
        "i'm super into",
        "i've been into",
        "i've been really into",
        "i've been super into",
        "been really into",
        "been super into",
        "been into",
    ];
    /// Say that the user does what follows: a pastime only if it is a known activity.
    const DOING: &[&str] = &[
        "i'm learning how to",
        "i'm learning to",
        "i'm learning",
        "started learning",
        "learning to",
        "i go to",
        "i usually go",
        "i often go",
        "i always go",
        "i go",
        "i usually play",
        "i often play",
        "i play",
        "i listen to",
        "i watch",
    ];
    let (end, strong) = match first_after(l, STRONG) {
        Some((_, end)) => (end, true),
        None => match first_after(l, DOING) {
            Some((_, end)) => (end, false),
            None => return false,
        },
    };
    // When and where it is done go first: "guitar in a small band on weekends" is guitar.
    let items: Vec<String> = items(clause(&s[end..], STOPS, &[',']))
        .iter()
        .flat_map(|i| objects(&strip_when_words(i)))
        .filter(|i| !how_often(i) && (strong || is_activity(i)))
        .collect();
    if items.is_empty() {
        return false;
    }
    for item in &items {
        let lower = item.to_ascii_lowercase();
        if lexicon::EN_ENTERTAINMENT
            .iter()
            .any(|e| find_word(&lower, e).is_some())
        {
            sink.pkg("Entertainment and Leisure", item);
            continue;
        }
        if let Some(sport) = lexicon::EN_SPORTS
            .iter()
            .find(|sp| find_word(&lower, sp).is_some())
        {
            if strong || lower.ends_with("ing") {
                sink.pkg("Favorite Sports", sport);
            }
        }
        sink.pkg("Hobbies", item);
    }
    let summary = if items.len() == 1 {
        format!("The user's hobby is {}", items[0])
    } else {
        format!("The user's hobbies are {}", items.join(" and "))
    };
    sink.memory(Signal::Preference, MemoryType::Preference, summary, items);
    true
}

/// A pastime the word lists know, or a single "-ing" word (swimming, knitting).
fn is_activity(item: &str) -> bool {
    let lower = item.to_ascii_lowercase();
    let known = |list: &[&str]| list.iter().any(|w| find_word(&lower, w).is_some());
    known(lexicon::EN_HOBBIES)
        || known(lexicon::EN_SPORTS)
        || known(lexicon::EN_ENTERTAINMENT)
        || (!lower.contains(' ') && lower.ends_with("ing") && lower.len() > 5)
}

/// "like 3x a week", "twice a month": how often, not what.
fn how_often(item: &str) -> bool {
    let lower = item.to_ascii_lowercase();
    lower.contains(|c: char| c.is_ascii_digit())
        || [" a week", " a day", " a month", " times", "x a "]
            .iter()
            .any(|w| lower.contains(w))
}

/// "swimming on Tuesday nights" → "swimming": when and how often is not the pastime.
fn strip_when_words(item: &str) -> String {
    let lower = item.to_ascii_lowercase();
    let cut = [
        " on ", " every ", " each ", " twice", " once", " in a ", " in the ", " at ", " with ",
        " before ", " after ", " almost ", " most ",
    ]
    .iter()
    .filter_map(|w| lower.find(w))
    .min();
    match cut {
        Some(i) => item[..i].trim().to_string(),
        None => item.to_string(),
    }
}

/// A list split on commas, and on "and" / "or" only between short items: "hiking, chess
/// and jazz" is three things, "creating a safe and inviting place" is one.
fn items(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split([',', '/']) {
        let part = part.trim();
        let part = part
            .strip_prefix("and ")
            .or_else(|| part.strip_prefix("or "))
            .unwrap_or(part);
        let pieces: Vec<&str> = part
            .split(" and ")
            .flat_map(|p| p.split(" or "))
            .map(str::trim)
            .collect();
        if pieces.iter().all(|p| p.split_whitespace().count() <= 3) {
            out.extend(
                pieces
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .map(str::to_string),
            );
        } else if !part.is_empty() {
            out.push(part.to_string());
        }
    }
    out
}

/// Liked things of a clause: list items without pronouns, tidied, at most six words.
pub(super) fn objects(rest: &str) -> Vec<String> {
    items(clause(rest, STOPS, &[',']))
        .iter()
        .map(|i| tidy_item(i))
        .filter(|i| {
            let lower = i.to_ascii_lowercase();
            let words = i.split_whitespace().count();
            (1..=6).contains(&words)
                && !NOT_OBJECTS.iter().any(|p| {
                    lower == *p
                        || lower.starts_with(&format!("{p} "))
                        || lower.starts_with(&format!("{p}'"))
                })
                && !lower.contains(" is ")
                && !lower.contains("'s ")
        })
        .collect()
}

pub(super) fn likes(s: &str, l: &str, sink: &mut Sink) {
    const VERBS: &[(&str, &str, bool)] = &[
        ("like", "likes", true),
        ("love", "loves", true),
        ("enjoy", "enjoys", true),
        ("adore", "adores", true),
        ("prefer", "prefers", true),
        ("hate", "hates", false),
        ("dislike", "dislikes", false),
        ("detest", "detests", false),
        ("can't stand", "can't stand", false),
    ];
    const ADVERBS: &[&str] = &[
        "really",
        "also",
        "absolutely",
        "totally",
        "just",
        "still",
        "actually",
        "definitely",
        "truly",
        "especially",
        "always",
        "do",
        "kinda",
        "genuinely",
        "honestly",
    ];
    const NEGATIONS: &[&str] = &[
        "don't", "do not", "didn't", "never", "not", "can't", "cannot",
    ];
    const FAN_OF: &[&str] = &[
        "i'm a big fan of",
        "i'm a huge fan of",
        "i'm a fan of",
        "i am a big fan of",
        "i am a fan of",
        "i'm obsessed with",
        "i'm passionate about",
        "i'm fond of",
        "i'm crazy about",
    ];
    if let Some((_, end)) = first_after(l, FAN_OF) {
        let items = objects(&s[end..]);
        for item in &items {
            classify_liked(item, false, sink);
        }
        if !items.is_empty() {
            sink.memory(
                Signal::Preference,
                MemoryType::Preference,
                format!("The user likes {}", items.join(" and ")),
                items,
            );
        }
    }
    for (verb, third, positive) in VERBS {
        for end in after_all(l, verb) {
            let before = l[..end - verb.len()].trim_end();
            let mut rest = before;
            let mut negated = false;
            // "I used to love horror movies": a past liking, kept as past.
            let past = rest.ends_with(" used to");
            if past {
                rest = rest.trim_end_matches(" used to").trim_end();
            }
            loop {
                if let Some(n) = NEGATIONS.iter().find(|n| {
                    rest.ends_with(**n)
                        && !rest[..rest.len() - n.len()].ends_with(char::is_alphanumeric)
                }) {
                    negated = true;
                    rest = rest[..rest.len() - n.len()].trim_end();
                } else if let Some(a) = ADVERBS.iter().find(|a| {
                    rest.ends_with(**a)
                        && !rest[..rest.len() - a.len()].ends_with(char::is_alphanumeric)
                }) {
                    rest = rest[..rest.len() - a.len()].trim_end();
                } else {
                    break;
                }
            }
            if !(rest.ends_with(" i") || rest == "i") {
                continue;
            }
            let raw = &s[end..];
            let to_form = raw.trim_start().to_ascii_lowercase().starts_with("to ");
            let items = objects(raw);
            if items.is_empty() {
                continue;
            }
            let liked = *positive != negated;
            if past {
                let what = possessives(&items.join(" and "));
                let summary = format!("The user used to {verb} {what}, not any more");
                sink.memory(Signal::Preference, MemoryType::Preference, summary, items);
                continue;
            }
            if liked {
                for item in &items {
                    classify_liked(item, to_form, sink);
                }
            }
            let what = possessives(&items.join(" and "));
            let summary = match (negated, positive) {
                (false, _) => format!("The user {third} {what}"),
                (true, _) => format!("The user doesn't {verb} {what}"),
            };
            sink.memory(Signal::Preference, MemoryType::Preference, summary, items);
        }
    }
}

pub(super) fn classify_liked(item: &str, to_form: bool, sink: &mut Sink) {
    let lower = item.to_ascii_lowercase();
    let has = |list: &'static [&'static str]| {
        list.iter()
            .find(|w| find_word(&lower, w).is_some())
            .copied()
    };
    // "basketball", "playing basketball"; not "running my own studio".
    let sport = lexicon::EN_SPORTS.iter().find(|sp| {
        lower == **sp
            || ["playing ", "doing ", "going "]
                .iter()
                .any(|v| lower == format!("{v}{sp}"))
    });
    if let Some(sport) = sport {
        sink.pkg("Favorite Sports", sport);
    } else if has(lexicon::EN_ENTERTAINMENT).is_some() {
        sink.pkg("Entertainment and Leisure", item);
    } else if has(lexicon::EN_HOBBIES).is_some()
        || (to_form && lower.split_whitespace().count() <= 2)
        || (!lower.contains(' ') && lower.ends_with("ing") && lower.len() > 4)
    {
        sink.pkg("Hobbies", item);
    }
}

/// "my own studio" → "their own studio": the user's words inside a third-person summary.
pub(super) fn possessives(text: &str) -> String {
    text.split(' ')
        .map(|w| match w.to_ascii_lowercase().as_str() {
            "my" => "their",
            "me" => "them",
            "myself" => "themselves",
            "mine" => "theirs",
            _ => w,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the user is into these days, said as doing it ("I'm reading Dune right now", "I've
/// been watching Severance"): a `preference` memory when what follows is a title (capitalised)
/// or a pastime the word lists know; a show or game by title is also `Entertainment and
/// Leisure`. ("I'm watching my weight" names neither.)
pub(super) fn into_now(s: &str, l: &str, sink: &mut Sink) -> bool {
    const DOING: &[(&str, bool)] = &[
        ("i'm reading", false),
        ("i am reading", false),
        ("i've been reading", false),
        ("i'm listening to", false),
        ("i've been listening to", false),
        ("i'm watching", true),
        ("i am watching", true),
        ("i've been watching", true),
        ("i'm binging", true),
        ("i've been binging", true),
        ("i'm rewatching", true),
        ("i'm playing", true),
        ("i've been playing", true),
    ];
    let Some((start, trigger, show_or_game)) = DOING
        .iter()
        .find_map(|&(t, show_or_game)| find_word(l, t).map(|at| (at, t, show_or_game)))
    else {
        return false;
    };
    // What is being read or watched ends where the sentence moves on or says when.
    let rest = &s[start + trigger.len()..];
    let lower_rest = rest.to_ascii_lowercase();
    let end = [
        " and ",
        " but ",
        " right now",
        " these days",
        " lately",
        " at the moment",
    ]
    .iter()
    .filter_map(|w| lower_rest.find(w))
    .min()
    .unwrap_or(rest.len());
    let Some(item) = objects(&strip_when_words(&rest[..end])).into_iter().next() else {
        return false;
    };
    let title = item.starts_with(|c: char| c.is_ascii_uppercase());
    if !title && !is_activity(&item) {
        return false;
    }
    if title && show_or_game {
        sink.pkg("Entertainment and Leisure", &item);
    }
    let said = third_person(clause(&s[start..], STOPS, &[]), Lang::En);
    sink.memory(
        Signal::Preference,
        MemoryType::Preference,
        capitalize_first(&said),
        vec![item],
    );
    true
}
