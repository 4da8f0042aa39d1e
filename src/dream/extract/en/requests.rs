//! What the user asks for and plans: style, constraints, appointments, decisions.

use super::*;

pub(super) fn style(l: &str, sink: &mut Sink) -> bool {
    if [" he ", " she ", " his ", " her "]
        .iter()
        .any(|p| l.contains(p))
    {
        return false;
    }
    let mut any = false;
    for intent in STYLE_INTENTS {
        if intent.en.iter().any(|t| find_word(l, t).is_some()) {
            sink.memory(
                Signal::Preference,
                MemoryType::Style,
                intent.summary_en.into(),
                vec![intent.keyword_en.into()],
            );
            any = true;
        }
    }
    any
}

/// "Don't worry", "never give up": encouragement, not a rule for the character.
const ENCOURAGEMENTS: &[&str] = &[
    "worry",
    "know",
    "forget",
    "be ",
    "give up",
    "hesitate",
    "let ",
    "stress",
    "feel ",
    "mind",
    "think",
    "get ",
    "stop believing",
    "lose",
    "ever ",
];

pub(super) fn constraints(s: &str, l: &str, styled: bool, sink: &mut Sink) {
    if let Some((_, end)) = first_after(
        l,
        &[
            "i'm allergic to",
            "i am allergic to",
            "i'm very allergic to",
            "i have an allergy to",
            "i'm severely allergic to",
        ],
    ) {
        let items = objects(&s[end..]);
        if !items.is_empty() {
            let mut keywords = items.clone();
            keywords.push("allergy".into());
            sink.memory(
                Signal::Constraint,
                MemoryType::Constraint,
                format!("The user is allergic to {}", items.join(" and ")),
                keywords,
            );
        }
    } else if let Some(i) = find_word(l, "allergy") {
        // "I have a peanut allergy"
        if let Some((_, end)) = first_after(&l[..i], &["i have a", "i have an"]) {
            let what = s[end..i].trim();
            if !what.is_empty() && what.split_whitespace().count() <= 3 {
                sink.memory(
                    Signal::Constraint,
                    MemoryType::Constraint,
                    format!("The user is allergic to {what}"),
                    vec![what.into(), "allergy".into()],
                );
            }
        }
    }
    const CANT: &[&str] = &[
        "i can't eat",
        "i cannot eat",
        "i can't have",
        "i don't eat",
        "i do not eat",
        "i can't drink",
        "i don't drink",
        "i never eat",
    ];
    if let Some((start, end)) = first_after(l, CANT) {
        let what = tidy_item(clause(&s[end..], STOPS, &[',']));
        if !what.is_empty() && what.split_whitespace().count() <= 6 {
            let said = third_person(
                &format!(
                    "{}{}",
                    &s[start..end],
                    if what.is_empty() {
                        String::new()
                    } else {
                        format!(" {what}")
                    }
                ),
                Lang::En,
            );
            sink.memory(Signal::Constraint, MemoryType::Constraint, said, vec![what]);
        }
    }
    const DIETS: &[&str] = &[
        "vegetarian",
        "vegan",
        "lactose intolerant",
        "gluten-free",
        "diabetic",
        "pescatarian",
    ];
    for d in DIETS {
        if ["i'm ", "i am ", "i'm a ", "i am a "]
            .iter()
            .any(|p| find_word(l, &format!("{p}{d}")).is_some())
        {
            sink.memory(
                Signal::Constraint,
                MemoryType::Constraint,
                format!("The user is {d}"),
                vec![(*d).into()],
            );
        }
    }
    if styled {
        return;
    }
    let mut lead = l.trim_start();
    for filler in [
        "please ",
        "pls ",
        "and ",
        "also ",
        "from now on, ",
        "from now on ",
        "just ",
    ] {
        lead = lead.strip_prefix(filler).unwrap_or(lead);
    }
    for t in ["don't ", "do not ", "never ", "stop ", "avoid "] {
        if let Some(rest) = lead.strip_prefix(t) {
            let at = s.len() - rest.len();
            let what = tidy_item(clause(&s[at..], STOPS, &[]));
            if what.split_whitespace().count() >= 1
                && what.len() >= 3
                && !ENCOURAGEMENTS
                    .iter()
                    .any(|e| what.to_ascii_lowercase().starts_with(e))
            {
                // "call me sweetie" → "call them sweetie"; "you" stays the character.
                let what_said = possessives(&what);
                let summary = match t.trim() {
                    "stop" | "avoid" => format!("The user asks you to {t}{what_said}"),
                    _ => format!("The user asks you not to {what_said}"),
                };
                // How the user wants to be called is a preference, not a rule.
                let lower_what = what.to_ascii_lowercase();
                let memory_type = if ["call me", "calling me"]
                    .iter()
                    .any(|c| lower_what.starts_with(c))
                {
                    MemoryType::Preference
                } else {
                    MemoryType::Constraint
                };
                sink.memory(Signal::Constraint, memory_type, summary, keywords_of(&what));
            }
            return;
        }
    }
}

pub(super) const EVENT_CUES: &[&str] = &[
    "appointment",
    "meeting",
    "exam",
    "test",
    "interview",
    "deadline",
    "due",
    "dentist",
    "doctor",
    "flight",
    "party",
    "wedding",
    "concert",
    "trip",
    "class",
    "lesson",
    "game",
    "match",
    "surgery",
    "checkup",
    "check-up",
    "dinner",
    "lunch",
    "presentation",
    "have to",
    "need to",
    "have a",
    "have an",
    "got a",
    "plan to",
    "leaving",
    "fly",
    "visit",
    "submit",
    "hand in",
    "birthday",
    "anniversary",
    "moving",
    "move",
    "visiting",
    "visit",
    "coming",
    "flying",
    "graduation",
    "recital",
    "starts",
    "start",
    "married",
    "kindergarten",
    "marathon",
    "camping",
    "remind me",
];

/// Words that make a dated sentence a hypothesis or a habit rather than an event.
const NOT_EVENTS: &[&str] = &[
    "if", "usually", "every", "always", "whenever", "would", "decided", "decide", "plan to",
    "planning",
];

/// Past forms that say a dated event happened.
fn said_as_done(l: &str) -> bool {
    l.split(|c: char| !c.is_ascii_alphabetic() && c != '\'')
        .any(|w| {
            (w.len() > 4 && w.ends_with("ed") && !["need", "feed", "speed", "seed"].contains(&w))
                || [
                    "was", "were", "had", "got", "went", "did", "broke", "made", "met", "took",
                    "came", "left", "lost", "won", "ate", "saw", "gave", "found", "told", "fell",
                ]
                .contains(&w)
        })
}

pub(super) fn appointment(s: &str, l: &str, sink: &mut Sink) -> bool {
    let Some(w) = when::find(s, sink.day) else {
        return false;
    };
    if find_word(l, "my birthday").is_some() || NOT_EVENTS.iter().any(|c| find_word(l, c).is_some())
    {
        return false;
    }
    let about_user = ["i", "i'm", "i've", "we", "we're", "my", "me"]
        .iter()
        .any(|p| find_word(l, p).is_some());
    let last_day = w.end.unwrap_or(w.date);
    if about_user && (last_day < sink.day || (w.date <= sink.day && said_as_done(l))) {
        // Something that happened, dated: the whole sentence, as said.
        let said = third_person(crate::text::cut_chars(&w.restate_all(s), 200), Lang::En);
        sink.memory_at(
            Signal::Emotional,
            MemoryType::History,
            capitalize_first(&said),
            keywords_of(&w.strip(s)),
            Some(w.timestamp()),
        );
        return true;
    }
    let future_form = [
        "i'm",
        "we're",
        "i'll",
        "going to",
        "is coming",
        "are coming",
        "i have",
        "we have",
    ]
    .iter()
    .any(|f| l.contains(f));
    if w.date < sink.day || !(EVENT_CUES.iter().any(|c| find_word(l, c).is_some()) || future_form) {
        return false;
    }
    let stripped = w.strip(s);
    let mut said = clause(&stripped, STOPS, &[]).to_string();
    loop {
        let trimmed = said.trim_end();
        let cut = [
            "on", "at", "by", "for", "this", "next", "the", "in", "is", "are",
        ]
        .iter()
        .find(|t| trimmed.to_ascii_lowercase().ends_with(&format!(" {t}")));
        match cut {
            Some(t) => said = trimmed[..trimmed.len() - t.len()].trim_end().to_string(),
            None => break,
        }
    }
    let said = said
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_string();
    let lower = said.to_ascii_lowercase();
    const LEADS: &[&str] = &[
        "i have a ",
        "i have an ",
        "i've got a ",
        "i've got an ",
        "i got a ",
        "i have ",
        "i'm going to ",
        "i am going to ",
        "i need to ",
        "i have to ",
        "i will ",
        "i'll ",
        "i'm gonna ",
        "my ",
        "we have a ",
        "we're going to ",
        "there's a ",
        "i plan to ",
    ];
    let core = LEADS
        .iter()
        .find(|p| lower.starts_with(**p))
        .map_or(said.as_str(), |p| &said[p.len()..])
        .to_string();
    let core = tidy_item(&core);
    // "I'm so stressed about moving" cut at "so" (read as "therefore") leaves "I'm": then
    // the whole clause up to its punctuation is what is planned.
    let only_subject = core.split_whitespace().all(|w| {
        [
            "i", "i'm", "im", "we", "we're", "it", "it's", "i've", "we've",
        ]
        .contains(&w.to_ascii_lowercase().as_str())
    });
    let core = if only_subject {
        tidy_item(clause(&stripped, &[], &[]))
    } else {
        core
    };
    if core.len() < 3 {
        return false;
    }
    let label = w.label();
    let restated = w.restate(s);
    let restated_l = restated.to_ascii_lowercase();
    let first_person = ["i ", "i'", "my ", "we "]
        .iter()
        .any(|p| restated_l.starts_with(p));
    let summary = if first_person {
        third_person(&restated, Lang::En)
    } else {
        format!("The user's plan: {restated}")
    };
    // A reminder asked for or a chore owed ("remind me to call grandma tomorrow", "I still
    // need to buy groceries tomorrow") is an everyday to-do: a dated project memory, not one
    // of the user's important appointments, unless it names an event or a deadline.
    const TO_DO: &[&str] = &[
        "remind me",
        "don't let me forget",
        "make sure i",
        "need to",
        "have to",
        "got to",
        "gotta",
    ];
    // The named events of `EVENT_CUES` (its nouns, before the verb phrases).
    let event = EVENT_CUES[..EVENT_CUES.iter().position(|c| *c == "have to").unwrap_or(0)]
        .iter()
        .any(|c| find_word(l, c).is_some());
    let deadline_said = ["submit", "hand in", "by "].iter().any(|c| l.contains(c));
    if !TO_DO.iter().any(|r| l.contains(r)) || event || deadline_said {
        sink.pkg("Important Appointments", &format!("{label} {core}"));
    }
    let deadline = ["deadline", "due", "submit", "hand in"]
        .iter()
        .any(|c| lower.contains(c));
    let keywords = vec![
        core,
        if deadline {
            "deadline".into()
        } else {
            "appointment".into()
        },
    ];
    sink.memory_at(
        Signal::Deadline,
        MemoryType::Project,
        capitalize_first(&summary),
        keywords,
        Some(w.timestamp()),
    );
    true
}

pub(super) fn decision(s: &str, l: &str, sink: &mut Sink) {
    const TRIGGERS: &[&str] = &[
        "i decided to",
        "i've decided to",
        "i have decided to",
        "i plan to",
        "i'm planning to",
        "i am planning to",
        "i made up my mind to",
        // A goal being worked on: "I'm trying to cut back on caffeine".
        "i'm trying to",
        "i am trying to",
        // Weighing it: "I'm thinking about learning Japanese this year".
        "i'm thinking about",
        "i'm thinking of",
        "i am thinking about",
        "i'm considering",
    ];
    let Some((start, end)) = first_after(l, TRIGGERS) else {
        return;
    };
    let what = tidy_item(clause(&s[end..], STOPS, &[]));
    if what.split_whitespace().count() >= 1 && what.len() >= 3 {
        let said = third_person(&format!("{} {what}", &s[start..end]), Lang::En);
        let keywords = keywords_of(&what);
        sink.memory(Signal::Decision, MemoryType::Project, said, keywords);
    }
}
