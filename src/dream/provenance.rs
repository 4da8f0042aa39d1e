//! Which turns a derived record came from (docs/LIFECYCLE.md, "Source links").
//!
//! The built-in extractor and an LLM both write memories in their own words, so the link is
//! found the same way for both: the turn of the dream's material that shares the most query
//! terms with the memory (its summary and keywords), preferring what the user said. A memory
//! that shares nothing with any turn gets no link rather than a wrong one. PKG values and
//! people are linked the same way, to a turn that names them ([`Provenance::naming`]).

use crate::conversation::{Role, Turn};
use crate::retrieval::tokenize::tokenize_query;
use std::collections::HashSet;

/// Turns tied for the best overlap beyond this many are not all credited: a memory that
/// matches many turns equally is about none of them in particular.
const MAX_TIED_SOURCES: usize = 3;

/// The ids of the turns in `turns` that `text` most likely came from.
pub fn source_turns(text: &str, turns: &[Turn]) -> Vec<String> {
    Provenance::new(turns).of(text)
}

/// A dream's material, tokenized once, to find the source turns of everything the dream
/// draws from it (memories, PKG values, people).
pub struct Provenance<'a> {
    /// Each turn's distinct terms, whether the user said it, and its id.
    turns: Vec<(HashSet<String>, bool, &'a str)>,
}

impl<'a> Provenance<'a> {
    pub fn new(turns: &'a [Turn]) -> Self {
        Provenance {
            turns: turns
                .iter()
                .map(|t| {
                    let terms = tokenize_query(&t.content).into_iter().collect();
                    (terms, t.role == Some(Role::User), t.id.as_str())
                })
                .collect(),
        }
    }

    /// The turns `text` (a memory's summary and keywords) most likely came from.
    pub fn of(&self, text: &str) -> Vec<String> {
        self.naming(text, "")
    }

    /// The turns a PKG value or a person most likely came from: only a turn that shares a
    /// term with `subject` (the value; the name and aliases) can be the source, and among
    /// those the one sharing most terms with `subject` and `detail` together (the field's
    /// name; titles and remark) is. A subject without terms links nowhere.
    pub fn naming(&self, subject: &str, detail: &str) -> Vec<String> {
        let subject: HashSet<String> = tokenize_query(subject).into_iter().collect();
        if subject.is_empty() {
            return Vec::new();
        }
        let mut terms = subject.clone();
        terms.extend(tokenize_query(detail));
        let scored: Vec<(usize, bool, &str)> = self
            .turns
            .iter()
            .filter(|(said, _, _)| said.iter().any(|w| subject.contains(w)))
            .map(|(said, user, id)| {
                (
                    said.iter().filter(|w| terms.contains(*w)).count(),
                    *user,
                    *id,
                )
            })
            .collect();
        // The user's words first: a fact about the user is what they said, not the reply.
        let best = |user_only: bool| {
            let pool: Vec<&(usize, bool, &str)> = scored
                .iter()
                .filter(|(_, user, _)| *user || !user_only)
                .collect();
            let top = pool.iter().map(|(n, _, _)| *n).max()?;
            let tied: Vec<String> = pool
                .iter()
                .filter(|(n, _, _)| *n == top)
                .map(|(_, _, id)| id.to_string())
                .collect();
            Some(tied)
        };
        let tied = best(true).or_else(|| best(false)).unwrap_or_default();
        if tied.len() > MAX_TIED_SOURCES {
            return Vec::new();
        }
        tied
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::EntryKind;
    use crate::time::Timestamp;

    fn turn(id: &str, role: Role, content: &str) -> Turn {
        Turn {
            id: id.into(),
            seq: 0,
            session_id: None,
            turn_index: None,
            kind: EntryKind::Turn,
            role: Some(role),
            content: content.into(),
            ts: Timestamp(0),
            emotion: None,
        }
    }

    #[test]
    fn a_fact_links_to_the_user_turn_that_stated_it() {
        let turns = [
            turn("a", Role::User, "我妹妹叫林可，在杭州读大学。"),
            turn("b", Role::Assistant, "杭州很美！你妹妹学什么？"),
            turn("c", Role::User, "I adopted a cat named Miso last week."),
        ];
        assert_eq!(
            source_turns("用户的妹妹叫林可，在杭州读大学", &turns),
            ["a"]
        );
        assert_eq!(source_turns("The user has a cat named Miso", &turns), ["c"]);
    }

    #[test]
    fn a_value_or_a_person_links_only_to_a_turn_that_names_it() {
        let turns = [
            turn(
                "a",
                Role::User,
                "My hobby? Hard to say, I like many things.",
            ),
            turn("b", Role::User, "Lately I go swimming every week."),
            turn("c", Role::User, "我的同学小红明天过生日。"),
        ];
        let p = Provenance::new(&turns);
        // The field's name alone ("hobby") is no link: only the value can be.
        assert_eq!(p.naming("swimming", "Hobbies"), ["b"]);
        assert!(p.naming("chess", "Hobbies").is_empty());
        assert_eq!(p.naming("小红", "同学"), ["c"]);
        assert!(p.naming("", "Hobbies").is_empty());
    }

    #[test]
    fn no_shared_words_no_link() {
        let turns = [turn("a", Role::User, "I like tea.")];
        assert!(source_turns("Plans a trip to Norway", &turns).is_empty());
    }

    #[test]
    fn the_reply_is_the_source_when_only_it_matches() {
        let turns = [
            turn("a", Role::User, "Any ideas for the weekend?"),
            turn(
                "b",
                Role::Assistant,
                "I promise to send you the aquarium tickets.",
            ),
        ];
        assert_eq!(
            source_turns("Promised to send the aquarium tickets", &turns),
            ["b"]
        );
    }
}
