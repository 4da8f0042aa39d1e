//! Who the user is and who is in their life: names, nicknames, secrets, relations, profile.

use super::*;

/// Capitalized words that are not names.
pub(super) const NOT_NAMES: &[&str] = &[
    "I",
    "The",
    "He",
    "She",
    "We",
    "They",
    "It",
    "This",
    "That",
    "And",
    "But",
    "So",
    "My",
    "Is",
    "Was",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Today",
    "Tomorrow",
    "Yesterday",
    "Who",
    "What",
    "Lol",
    "Haha",
    "Oh",
    "Yes",
    "No",
    "Also",
    "Too",
];

/// One or two capitalized words at the start of `rest` that could be a name.
pub(super) fn name_at(rest: &str, allow_lowercase: bool) -> Option<String> {
    let words: Vec<&str> = rest
        .split_whitespace()
        .take(3)
        .map(|w| w.trim_end_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let ok = |w: &&str, first: bool| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_alphabetic() || c == '-' || c == '\'')
            && (w.starts_with(|c: char| c.is_uppercase()) || (first && allow_lowercase))
            && !NOT_NAMES.contains(w)
    };
    // "Sara's birthday": the name is Sara.
    let words: Vec<&str> = words
        .iter()
        .map(|w| w.strip_suffix("'s").unwrap_or(w))
        .collect();
    let first = words.first().filter(|w| ok(w, true))?;
    let raw_first = rest.split_whitespace().next().unwrap_or("");
    let mut name = first.to_string();
    if raw_first.len() == first.len() {
        if let Some(second) = words.get(1).filter(|w| ok(w, false)) {
            name = format!("{name} {second}");
        }
    }
    Some(name)
}

pub(super) fn secret(s: &str, l: &str, sink: &mut Sink) {
    const TRIGGERS: &[(&str, bool)] = &[
        ("secret phrase is", false),
        ("secret code is", false),
        ("code word is", false),
        ("codeword is", false),
        ("secret word is", false),
        ("safe word is", false),
        ("passphrase is", true),
        ("password is", true),
    ];
    for (t, sensitive) in TRIGGERS {
        let Some(i) = find_word(l, t) else { continue };
        let phrase = strip_quotes(clause(&s[i + t.len()..], &[], &[',']));
        if phrase.is_empty() {
            continue;
        }
        let summary = if *sensitive {
            format!("The user's password is \"{phrase}\"")
        } else {
            format!("The user's secret phrase with me is \"{phrase}\"")
        };
        sink.memory(
            Signal::Secret,
            MemoryType::Relationship,
            summary,
            vec!["secret phrase".into(), phrase.into()],
        );
        if *sensitive {
            sink.last_sensitive();
        }
        return;
    }
}

pub(super) fn nickname(s: &str, l: &str, sink: &mut Sink) {
    const NOT_NICKS: &[&str] = &[
        "back",
        "when",
        "if",
        "tomorrow",
        "later",
        "tonight",
        "anytime",
        "at",
        "on",
        "after",
        "before",
        "now",
        "sometime",
        "and",
        "or",
        "please",
        "a",
        "an",
        "the",
        "crazy",
        "old",
        "whenever",
        "once",
        "asap",
        "maybe",
        "soon",
        "about",
        "to",
        "with",
        "up",
        "out",
        "in",
        "by",
        "so",
        "again",
        "sometimes",
        "what",
        "by",
        "anything",
        "whatever",
    ];
    let mut found = None;
    for end in after_all(l, "call me") {
        let before = l[..end - "call me".len()].trim_end();
        if before.ends_with("don't") || before.ends_with("not") || before.ends_with("never") {
            continue;
        }
        let first = l[end..]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches(|c: char| !c.is_alphanumeric());
        if NOT_NICKS.contains(&first) {
            continue;
        }
        found = name_at(&s[end..], true).or(found);
    }
    for t in [
        "i go by",
        "my nickname is",
        "everyone calls me",
        "my friends call me",
        "people call me",
    ] {
        if let Some(i) = find_word(l, t) {
            found = found.or_else(|| name_at(&s[i + t.len()..], true));
        }
    }
    if let Some(nick) = found {
        sink.pkg("Nickname", &nick);
        sink.memory(
            Signal::Identity,
            MemoryType::Profile,
            format!("The user likes to be called {nick}"),
            vec![nick, "nickname".into()],
        );
    }
}

/// Words "I'm" takes that are not names ("I'm Chinese", "I'm Fine").
const NOT_NAMES_AFTER_IM: &[&str] = &[
    "Chinese",
    "American",
    "English",
    "British",
    "Canadian",
    "Japanese",
    "Korean",
    "French",
    "German",
    "Indian",
    "Mexican",
    "Spanish",
    "Italian",
    "Australian",
    "Irish",
    "Asian",
    "Christian",
    "Muslim",
    "Jewish",
    "Catholic",
    "Buddhist",
    "Fine",
    "Good",
    "Okay",
    "Ok",
    "Sorry",
    "Here",
    "Back",
    "Home",
    "Done",
    "So",
    "Not",
    "Just",
    "Really",
    "Still",
    "Also",
];

/// "Hi! I'm Sophie", "I'm Kenji btw": a capitalized word after "I'm" that ends the clause.
fn introduced_name(s: &str, l: &str) -> Option<String> {
    for end in after_all(l, "i'm").into_iter().chain(after_all(l, "i am")) {
        let rest = s[end..].trim_start();
        let word: String = rest
            .chars()
            .take_while(|c| c.is_alphabetic() || *c == '-')
            .collect();
        let after = rest[word.len()..].trim_start().to_ascii_lowercase();
        let ends = after.is_empty()
            || after.starts_with([',', '.', '!', ';'])
            || ["btw", "by the way", "and ", "nice to"]
                .iter()
                .any(|a| after.starts_with(a));
        if word.len() >= 2
            && word.starts_with(|c: char| c.is_uppercase())
            && !NOT_NAMES.contains(&word.as_str())
            && !NOT_NAMES_AFTER_IM.contains(&word.as_str())
            && ends
        {
            return Some(word);
        }
    }
    None
}

pub(super) fn name(s: &str, l: &str, sink: &mut Sink) {
    if let Some(n) = introduced_name(s, l) {
        return record_name(n, sink);
    }
    const NOT: &[&str] = &[
        "not", "a", "the", "what", "actually", "kind", "pretty", "hard", "long", "short", "weird",
        "spelled", "too",
    ];
    let Some((_, end)) = first_after(
        l,
        &[
            "my name is",
            "my name's",
            "i'm called",
            "i am called",
            "the name's",
        ],
    ) else {
        return;
    };
    let first = l[end..].split_whitespace().next().unwrap_or("");
    if NOT.contains(&first) {
        return;
    }
    if let Some(n) = name_at(&s[end..], true) {
        record_name(n, sink);
    }
}

fn record_name(n: String, sink: &mut Sink) {
    sink.pkg("Name", &n);
    sink.memory(
        Signal::Identity,
        MemoryType::Profile,
        format!("The user's name is {n}"),
        vec![n, "name".into()],
    );
}

/// Records the people `s` names with their relation to the user; true when it also tells
/// news of one of them (see [`is_news`]).
pub(super) fn relations(s: &str, l: &str, sink: &mut Sink) -> bool {
    let mut news = false;
    let mut taken: Vec<(usize, usize)> = Vec::new();
    const MODIFIERS: &[&str] = &[
        "older", "younger", "little", "big", "twin", "new", "old", "dear", "baby", "step", "best",
    ];
    for &(word, title, circle) in lexicon::EN_RELATIONS {
        for end in after_all(l, word) {
            let start = end - word.len();
            if taken.iter().any(|&(a, b)| start >= a && start < b) {
                continue;
            }
            taken.push((start, end));
            let mut before = l[..start].trim_end();
            while let Some(m) = MODIFIERS
                .iter()
                .find(|m| before.ends_with(**m) && word != "best friend")
            {
                before = before[..before.len() - m.len()].trim_end();
            }
            let mine = before.ends_with(" my") || before == "my";
            let named_after = |rest: &str| {
                let rest_l = rest.to_ascii_lowercase();
                let skip = [
                    "'s name is ",
                    ", ",
                    " named ",
                    " called ",
                    " whose name is ",
                    " ",
                ]
                .iter()
                .find(|p| rest_l.starts_with(**p))
                .map_or(0, |p| p.len());
                name_at(&rest[skip..], false)
            };
            let introduced = before.ends_with(" a")
                && (l[end..].starts_with(" named ") || l[end..].starts_with(" called "));
            let name = if mine || introduced {
                named_after(&s[end..])
            } else {
                None
            };
            let name = name.or_else(|| {
                // "Anna is my sister", "Anna, my sister,"
                let b = if before.ends_with(" is my") {
                    Some(&s[..before.len() - " is my".len()])
                } else {
                    before.strip_suffix(", my").map(|b| &s[..b.len()])
                };
                b.and_then(|b| b.split_whitespace().last())
                    .and_then(|w| name_at(w, false))
            });
            let told = match &name {
                Some(n) => after_name(&s[end..], n),
                None => &s[end..],
            };
            news |= (mine || name.is_some()) && is_news(told);
            match name {
                Some(n) => {
                    sink.person(&n, title);
                    match circle {
                        Circle::Friend => sink.pkg("Important Friends", &n),
                        Circle::Family | Circle::Other => sink.pkg("Other Important People", &n),
                        Circle::Pet => {}
                    }
                    sink.memory(
                        Signal::Relation,
                        MemoryType::Relationship,
                        format!("{n} is the user's {title}"),
                        vec![n.clone(), title.into()],
                    );
                }
                None if mine && circle == Circle::Family => {
                    sink.person(&capitalize_first(word), title);
                }
                None => {}
            }
        }
    }
    news
}

/// Whether the rest of a person's clause tells what happened to them or what they keep doing
/// ("just got engaged", "keeps taking credit for my work", "turned 90"), not who they are
/// ("is a nurse", "is my sister").
fn is_news(told: &str) -> bool {
    const ADVERBS: &[&str] = &[
        "just", "finally", "recently", "also", "always", "still", "really", "totally", "never",
    ];
    const DID: &[&str] = &[
        "got", "gets", "keeps", "kept", "broke", "lost", "won", "took", "came", "went", "left",
        "gave", "quit", "fell", "made", "bought", "found", "became", "began", "ran",
    ];
    const STATES: &[&str] = &["pregnant", "sick", "ill", "engaged", "married", "been"];
    let clause = told
        .split([',', '.', ';', '!', '?'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let mut words = clause
        .split_whitespace()
        .skip_while(|w| ADVERBS.contains(w));
    let (Some(verb), next) = (words.next(), words.next().unwrap_or_default()) else {
        return false;
    };
    match verb {
        "is" | "was" | "has" | "had" | "'s" => {
            STATES.contains(&next) || next.ends_with("ing") || next.ends_with("ed")
        }
        _ => DID.contains(&verb) || (verb.len() > 4 && verb.ends_with("ed")),
    }
}

pub(super) fn profile(s: &str, l: &str, sink: &mut Sink) {
    const JOB_ENDINGS: &[&str] = &[
        "er", "or", "ist", "ian", "ant", "ent", "nurse", "chef", "doctor", "student", "engineer",
        "artist", "lawyer",
    ];
    const NOT_JOBS: &[&str] = &[
        "fan",
        "lover",
        "bit",
        "little",
        "lot",
        "number",
        "person",
        "other",
        "sucker",
        "beginner",
        "member",
        "killer",
        "vegetarian",
        "vegan",
        "pescatarian",
    ];
    const FACTS: &[&str] = &[
        "i work as",
        "i work at",
        "i work for",
        "i live in",
        "i'm from",
        "i am from",
        "i'm originally from",
        "i am originally from",
        "i'm scared of",
        "i'm afraid of",
        "i'm terrified of",
        "i was born in",
        "i grew up in",
        "i'm studying",
        "i study",
        "my birthday is",
        "my birthday's",
    ];
    // Every fact of the sentence: "I grew up in Ohio but I live in Seattle now".
    let mut facts = 0;
    let mut from = 0;
    while let Some((start, end)) = first_after(&l[from..], FACTS).map(|(a, b)| (a + from, b + from))
    {
        from = end;
        let what = tidy_item(clause(&s[end..], STOPS, &[]));
        if !what.is_empty() && what.split_whitespace().count() <= 6 {
            let signal = if l[start..].starts_with("my birthday") {
                Signal::Identity
            } else {
                Signal::Preference
            };
            let said = third_person(&format!("{} {what}", &s[start..end]), Lang::En);
            let mut keywords = vec![what];
            if signal == Signal::Identity {
                keywords.push("birthday".into());
            }
            sink.memory(signal, MemoryType::Profile, said, keywords);
            facts += 1;
        }
    }
    // The job said after where and when: "I work night shifts at a hospital as a nurse".
    if facts == 0 && find_word(l, "i work").is_some() {
        if let Some((_, end)) = first_after(l, &["as a", "as an"]) {
            let what = tidy_item(clause(&s[end..], STOPS, &[]));
            if (1..=3).contains(&what.split_whitespace().count()) {
                let article = if l[..end].ends_with("an") { "an" } else { "a" };
                let said = format!("The user works as {article} {what}");
                sink.memory(Signal::Preference, MemoryType::Profile, said, vec![what]);
                facts += 1;
            }
        }
    }
    if facts > 0 {
        return;
    }
    // How the user lives, in the words people use for it: "I'm a night owl".
    const TRAITS: &[&str] = &[
        "night owl",
        "early bird",
        "morning person",
        "night person",
        "introvert",
        "extrovert",
        "homebody",
        "workaholic",
    ];
    for t in TRAITS {
        let said = ["i'm a ", "i'm an ", "i am a ", "i am an "]
            .iter()
            .any(|p| l.contains(&format!("{p}{t}")));
        if said {
            let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            sink.memory(
                Signal::Preference,
                MemoryType::Profile,
                format!("The user is {article} {t}"),
                vec![(*t).into()],
            );
            return;
        }
    }
    // "I'm 27", "I am 34 years old".
    if let Some((_, end)) = first_after(l, &["i'm", "i am"]) {
        let rest = l[end..].trim_start();
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let after = rest[digits.len()..].trim_start();
        let age_said = after.is_empty()
            || after.starts_with(|c: char| !c.is_alphanumeric())
            || ["years", "yo", "btw", "now", "this year", "and ", "but "]
                .iter()
                .any(|w| after.starts_with(w));
        if digits.parse::<u32>().is_ok_and(|n| (5..=110).contains(&n)) && age_said {
            sink.memory(
                Signal::Preference,
                MemoryType::Profile,
                format!("The user is {digits} years old"),
                vec![digits, "age".into()],
            );
            return;
        }
    }
    if let Some((start, end)) = first_after(l, &["i'm a", "i am a", "i'm an", "i am an"]) {
        let what = tidy_item(clause(&s[end..], STOPS, &[]));
        let last = what
            .split_whitespace()
            .last()
            .unwrap_or("")
            .to_ascii_lowercase();
        let words = what.split_whitespace().count();
        if (1..=3).contains(&words)
            && JOB_ENDINGS.iter().any(|e| last.ends_with(e))
            && !NOT_JOBS.contains(&last.as_str())
        {
            let said = third_person(&format!("{} {what}", &s[start..end]), Lang::En);
            sink.memory(Signal::Preference, MemoryType::Profile, said, vec![what]);
            return;
        }
    }
    if let Some((_, end)) = first_after(l, &["i'm", "i am"]) {
        let rest = l[end..].trim_start();
        if let Some(n) = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| (3..=120).contains(n))
        {
            if rest.contains("years old") {
                sink.memory(
                    Signal::Preference,
                    MemoryType::Profile,
                    format!("The user is {n} years old"),
                    vec![format!("{n} years old")],
                );
            }
        }
    }
}
