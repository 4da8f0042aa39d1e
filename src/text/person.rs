//! First person → third person: what the user said, as a summary says it ("I'm allergic
//! to peanuts" → "The user is allergic to peanuts", "我对花生过敏" → "用户对花生过敏").

use super::Lang;

/// First person → "the user", for summaries of what the user said.
pub fn third_person(text: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => third_person_zh(text),
        Lang::En => third_person_en(text),
    }
}

fn third_person_zh(text: &str) -> String {
    // "我们" (we) stays: the user and someone else; every other "我" is the user, and "你"
    // (said to the character) is the character, "我" in a summary.
    let mut out = String::with_capacity(text.len() + 8);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let plural = chars.get(i + 1) == Some(&'们');
        if c == '我' && !plural {
            out.push_str("用户");
        } else if c == '你' && !plural {
            out.push('我');
        } else {
            out.push(c);
        }
    }
    out.trim_end_matches(['。', '！', '!', '.', '~'])
        .to_string()
}

/// Words after a first "I" that do not take an -s in the third person.
const MODALS: [&str; 12] = [
    "can", "could", "will", "would", "should", "must", "might", "may", "did", "had", "used",
    "never",
];

fn third_person_en(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut subject_named = false;
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let (core, punct) = split_trailing_punct(w);
        let lower = core.to_ascii_lowercase();
        let next = words.get(i + 1).map(|n| split_trailing_punct(n).0);
        let subject = |named: &mut bool| -> String {
            if *named {
                "they".into()
            } else {
                *named = true;
                "the user".into()
            }
        };
        let replaced: Option<String> = match lower.as_str() {
            "i'm" | "i’m" => Some(
                if subject_named {
                    "they're"
                } else {
                    "the user is"
                }
                .into(),
            ),
            "i've" | "i’ve" => Some(
                if subject_named {
                    "they've"
                } else {
                    "the user has"
                }
                .into(),
            ),
            "i'll" | "i’ll" => Some(format!("{} will", subject(&mut subject_named))),
            "i'd" | "i’d" => Some(format!("{} would", subject(&mut subject_named))),
            "i" => {
                let first = !subject_named;
                let s = subject(&mut subject_named);
                // "How do I feel" → "How does the user feel": an auxiliary before "I" agrees
                // with the new subject, and the verb after stays bare.
                let inverted = out.last().and_then(|prev| {
                    let agreed = third_person_auxiliary(prev, first)?;
                    Some((out.len() - 1, agreed))
                });
                if let Some((k, agreed)) = inverted {
                    out[k] = agreed;
                    out.push(s + punct);
                    i += 1;
                    continue;
                }
                match next {
                    Some(_) if first => {
                        // "I really appreciate" → "the user really appreciates".
                        let mut parts = vec![s];
                        let mut k = i + 1;
                        while k + 1 < words.len() && is_adverb(split_trailing_punct(words[k]).0) {
                            parts.push(words[k].to_string());
                            k += 1;
                        }
                        parts.push(conjugate_third(words[k]) + split_trailing_punct(words[k]).1);
                        i = k;
                        Some(parts.join(" "))
                    }
                    Some(v) if v.eq_ignore_ascii_case("am") => {
                        i += 1;
                        Some(format!("{s} are"))
                    }
                    Some(v) if v.eq_ignore_ascii_case("was") => {
                        i += 1;
                        Some(format!("{s} were"))
                    }
                    _ => Some(s),
                }
            }
            "my" => Some(if subject_named { "their" } else { "the user's" }.into()),
            "me" => Some("them".into()),
            "myself" => Some("themselves".into()),
            "mine" => Some("theirs".into()),
            _ => None,
        };
        match replaced {
            Some(r) => out.push(r + if lower == "i" { "" } else { punct }),
            None => out.push(w.to_string()),
        }
        i += 1;
    }
    let mut s = out.join(" ");
    s = s.trim_end_matches(['.', '!', '~']).to_string();
    capitalize_first(&s)
}

/// An auxiliary that can open a question before "I", agreeing with the new subject: "the
/// user" (`singular`: "do" → "does", "am" → "is") or "they" ("am" → "are"); `None` for any
/// other word.
fn third_person_auxiliary(word: &str, singular: bool) -> Option<String> {
    let lower = word.to_ascii_lowercase();
    let agreed = match (lower.as_str(), singular) {
        ("do", true) => "does",
        ("don't", true) => "doesn't",
        ("have", true) => "has",
        ("am", true) => "is",
        ("am", false) => "are",
        ("was", false) => "were",
        (w, _)
            if MODALS.contains(&w)
                || ["do", "don't", "have", "does", "was", "can't", "won't"].contains(&w) =>
        {
            return Some(word.to_string())
        }
        _ => return None,
    };
    Some(if word.starts_with(|c: char| c.is_ascii_uppercase()) {
        capitalize_first(agreed)
    } else {
        agreed.to_string()
    })
}

fn split_trailing_punct(w: &str) -> (&str, &str) {
    let core = w.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
    (core, &w[core.len()..])
}

/// Past forms (and other words) that stay as they are after "the user".
const UNCHANGED: &[&str] = &[
    "went",
    "felt",
    "saw",
    "made",
    "had",
    "did",
    "got",
    "took",
    "came",
    "ran",
    "said",
    "thought",
    "told",
    "found",
    "gave",
    "knew",
    "left",
    "met",
    "bought",
    "brought",
    "began",
    "wrote",
    "put",
    "set",
    "sent",
    "spent",
    "kept",
    "lost",
    "won",
    "ate",
    "drove",
    "flew",
    "heard",
    "paid",
    "sat",
    "slept",
    "spoke",
    "stood",
    "taught",
    "understood",
    "woke",
    "wore",
    "built",
    "caught",
    "chose",
    "fell",
    "fought",
    "forgot",
    "grew",
    "held",
    "hurt",
    "led",
    "meant",
    "rode",
    "sang",
    "shot",
    "sold",
    "swam",
    "threw",
    "became",
    "drew",
    "read",
    "let",
    "cut",
    "hit",
    "quit",
    "just",
    "also",
    "still",
    "always",
    "never",
    "often",
    "even",
    "only",
    "really",
    "usually",
    "sometimes",
    "recently",
    "finally",
    "actually",
    "totally",
    "definitely",
    "absolutely",
    "truly",
    "kind",
    "sort",
    "too",
    "mean",
    "got",
];

fn is_adverb(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    (w.ends_with("ly") && w.len() > 3 && w != "fly" && w != "reply" && w != "apply")
        || [
            "just",
            "also",
            "still",
            "always",
            "never",
            "often",
            "even",
            "only",
            "usually",
            "sometimes",
            "finally",
            "actually",
            "totally",
            "definitely",
            "absolutely",
            "truly",
        ]
        .contains(&w.as_str())
}

/// The third-person singular of a verb after "I": am → is, have → has, like → likes.
fn conjugate_third(verb: &str) -> String {
    let (core, _) = split_trailing_punct(verb);
    let lower = core.to_ascii_lowercase();
    match lower.as_str() {
        "am" => return "is".into(),
        "was" => return "was".into(),
        "have" => return "has".into(),
        "do" => return "does".into(),
        "go" => return "goes".into(),
        "don't" | "don’t" => return "doesn't".into(),
        "haven't" | "haven’t" => return "hasn't".into(),
        "'m" => return "is".into(),
        _ => {}
    }
    if MODALS.contains(&lower.as_str())
        || UNCHANGED.contains(&lower.as_str())
        || lower.ends_with("ed")
        || lower.contains('\'')
        || !lower.chars().all(|c| c.is_ascii_alphabetic())
    {
        return core.to_string();
    }
    if lower.ends_with('y')
        && !lower.ends_with("ay")
        && !lower.ends_with("ey")
        && !lower.ends_with("oy")
    {
        format!("{}ies", &core[..core.len() - 1])
    } else if ["s", "sh", "ch", "x", "z", "o"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        format!("{core}es")
    } else {
        format!("{core}s")
    }
}

pub fn capitalize_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_first_person() {
        assert_eq!(third_person("我对花生过敏。", Lang::Zh), "用户对花生过敏");
        assert_eq!(
            third_person("我很喜欢跟你聊天", Lang::Zh),
            "用户很喜欢跟我聊天"
        );
        assert_eq!(
            third_person("I have a cat and I love my cat.", Lang::En),
            "The user has a cat and they love their cat"
        );
        assert_eq!(
            third_person("I'm allergic to peanuts", Lang::En),
            "The user is allergic to peanuts"
        );
        assert_eq!(
            third_person("I watch movies", Lang::En),
            "The user watches movies"
        );
        assert_eq!(
            third_person("I study at night", Lang::En),
            "The user studies at night"
        );
    }

    #[test]
    fn an_auxiliary_before_i_agrees_with_the_user() {
        assert_eq!(
            third_person("How do I feel about moving?", Lang::En),
            "How does the user feel about moving?"
        );
        assert_eq!(
            third_person("Am I too late", Lang::En),
            "Is the user too late"
        );
        assert_eq!(
            third_person("Why can't I sleep and why don't I eat", Lang::En),
            "Why can't the user sleep and why don't they eat"
        );
    }
}
