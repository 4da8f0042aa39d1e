//! Rules for English statements ("call me Annie", "my sister Anna", "I'm allergic to
//! peanuts", …). Matching runs on an ASCII-lowercased copy with the same byte offsets, so
//! names keep the case the user wrote.

mod people;
mod requests;
mod tastes;

use super::lexicon::{self, Circle, STYLE_INTENTS};
use super::{after_name, keywords_of, Signal, Sink};
use crate::memory::MemoryType;
use crate::text::{capitalize_first, clause, find_word, list_items, third_person, tidy_item, Lang};
use crate::time::when;
use people::*;
use requests::*;
use tastes::*;

const STOPS: &[&str] = &[
    "because", "but", "since", "although", "though", "when", "if", "so", "which", "as", "unless",
    "whenever", "while", "and then",
];

/// Words that cannot start a liked thing or a name.
const NOT_OBJECTS: &[&str] = &[
    "it", "that", "this", "you", "him", "her", "them", "those", "these", "what", "how", "when",
    "where", "me", "us", "there", "my", "i", "your", "his", "their", "our", "being", "to be",
    "a lot",
];

/// `(trigger, body)`: "remember that …" / "don't forget …" and what follows.
pub(super) fn remember(sentence: &str) -> (Option<&'static str>, &str) {
    const TRIGGERS: &[&str] = &[
        "remember that",
        "remember",
        "don't forget that",
        "don't forget",
        "do not forget",
        "never forget",
        "keep in mind that",
        "keep in mind",
        "make a note that",
        "note that",
    ];
    const FILLERS: &[&str] = &[
        "please", "hey", "oh", "and", "also", "btw", "just", "so", "ok", "okay", "always",
    ];
    let lower = sentence.to_ascii_lowercase().replace('’', "'");
    let mut at = 0;
    loop {
        let rest = lower[at..].trim_start_matches([' ', ',', '!']);
        at = lower.len() - rest.len();
        match FILLERS.iter().find(|f| {
            rest.starts_with(*f) && !rest[f.len()..].starts_with(|c: char| c.is_ascii_alphabetic())
        }) {
            Some(f) => at += f.len(),
            None => break,
        }
    }
    for t in TRIGGERS {
        if lower[at..].starts_with(t)
            && !lower[at + t.len()..].starts_with(|c: char| c.is_ascii_alphabetic())
        {
            let body_at = at + t.len();
            let body = sentence
                .get(body_at..)
                .unwrap_or("")
                .trim_start_matches([' ', ':', ',', '-']);
            let first = body
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if body.len() < 3
                || [
                    "when", "how", "what", "if", "who", "me", "me?", "it", "it?", "to", "you",
                    "your", "you're", "yourself",
                ]
                .contains(&first.as_str())
            {
                return (None, sentence);
            }
            return (Some(t), body);
        }
    }
    (None, sentence)
}

pub(super) fn rules(body: &str, sink: &mut Sink) {
    let s = body.replace('’', "'");
    let s = s.as_str();
    let l = s.to_ascii_lowercase();
    let question = s.trim_end().ends_with('?');
    secret(s, &l, sink);
    nickname(s, &l, sink);
    name(s, &l, sink);
    let styled = style(&l, sink);
    constraints(s, &l, styled, sink);
    let appointment = !question && appointment(s, &l, sink);
    let mut liked = favorite(s, &l, sink);
    liked |= hobbies(s, &l, sink);
    if !liked && !question {
        likes(s, &l, sink);
        if sink.nothing_yet() {
            into_now(s, &l, sink);
        }
    }
    let news = relations(s, &l, sink);
    if !question {
        profile(s, &l, sink);
        if !appointment {
            decision(s, &l, sink);
            if news {
                sink.news(third_person(s.trim(), Lang::En));
            }
        }
    }
}

/// Byte offsets just after each word-bounded occurrence of `trigger` in `l`.
fn after_all(l: &str, trigger: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = find_word(&l[from..], trigger).map(|i| i + from) {
        out.push(i + trigger.len());
        from = i + trigger.len();
    }
    out
}

fn first_after(l: &str, triggers: &[&str]) -> Option<(usize, usize)> {
    triggers
        .iter()
        .filter_map(|t| find_word(l, t).map(|i| (i, i + t.len())))
        .min()
}

fn strip_quotes(s: &str) -> &str {
    s.trim()
        .trim_matches(|c: char| "\"'“”‘’".contains(c))
        .trim()
}
