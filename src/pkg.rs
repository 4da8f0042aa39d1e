//! The Personal Knowledge Graph and its merge-update rules (SPEC §2.1, seed "Update Rules").
//!
//! [`merge_updates`] is pure: it computes what a `PUT /api/pkg` request changes without
//! touching the PKG, so the engine can turn the result into per-field store writes and
//! [`apply_merge`] can replay it on an in-memory copy. [`field_writes`] adds each written
//! field's source links (docs/LIFECYCLE.md, "Source links").
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::error::{Error, Result};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A PKG field's value: a string, a list of strings, or a boolean (registration flags only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PkgValue {
    Flag(bool),
    List(Vec<String>),
    Text(String),
}

/// The PKG: field name → value, in the order fields were first set.
pub type Pkg = IndexMap<String, PkgValue>;

/// One stored PKG field: its value and the conversation turns its value was drawn from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PkgField {
    pub key: String,
    pub value: PkgValue,
    /// Ids of the turns that stated the current value (a dream's links; at most
    /// [`crate::memory::MAX_SOURCE_TURNS`]). Empty for a value set through the API.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_turns: Vec<String>,
}

/// Field name → the turns its value was drawn from; fields without links are absent.
pub type PkgSources = IndexMap<String, Vec<String>>;

/// The values of stored fields, in their order.
pub fn values(fields: &[PkgField]) -> Pkg {
    fields
        .iter()
        .map(|f| (f.key.clone(), f.value.clone()))
        .collect()
}

/// The links of stored fields that have any, in the fields' order.
pub fn sources(fields: &[PkgField]) -> PkgSources {
    fields
        .iter()
        .filter(|f| !f.source_turns.is_empty())
        .map(|f| (f.key.clone(), f.source_turns.clone()))
        .collect()
}

/// One item of `PUT /api/pkg/{npcid}`: `{"key", "value"}`; value is a string or an array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PkgUpdate {
    pub key: String,
    pub value: serde_json::Value,
}

/// The result of merging updates into a PKG: the fields to write and the keys applied.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PkgMerge {
    /// Final values of the fields whose value changed, in order of first appearance.
    pub changes: Vec<(String, PkgValue)>,
    /// `updated_fields`: keys applied, in request order, without repeats.
    pub updated_fields: Vec<String>,
    /// New keys left out because the PKG holds [`MAX_FIELDS`] fields: the API refuses the
    /// request ([`PkgMerge::refuse_over_cap`]), the dream drops them.
    pub over_cap: Vec<String>,
}

impl PkgMerge {
    /// The API's answer to a merge that would pass [`MAX_FIELDS`]: a 400 naming the cap.
    pub fn refuse_over_cap(&self) -> Result<()> {
        match self.over_cap.first() {
            None => Ok(()),
            Some(key) => Err(Error::invalid(format!(
                "a PKG holds at most {MAX_FIELDS} fields: {key:?} would be one more"
            ))),
        }
    }
}

/// Registration flags: part of the PKG view, changed only through the NPC admin route.
pub const PROTECTED_FIELDS: [&str; 2] = ["voice_registered", "face_registered"];

/// Multi-value fields and their item limits.
pub const MULTI_VALUE_LIMITS: [(&str, usize); 9] = [
    ("Nickname", 5),
    ("Important Friends", 10),
    ("Other Important People", 10),
    ("Important Appointments", 10),
    ("Favorite Books", 10),
    ("Favorite Movies", 10),
    ("Favorite Sports", 10),
    ("Hobbies", 10),
    ("Entertainment and Leisure", 10),
];

/// Regular (single-value) strings are cut to this many Unicode scalar values.
pub const MAX_TEXT_CHARS: usize = 1024;

/// Field names longer than this (Unicode scalar values) are rejected.
pub const MAX_KEY_CHARS: usize = 128;

/// Fields one PKG holds at most (registration flags not counted): every retrieval renders
/// each field as a candidate, so the count is bounded like every other input.
pub const MAX_FIELDS: usize = 256;

/// The field that is written once and then never overwritten by a merge.
pub const NAME_FIELD: &str = "Name";

/// The item limit of a multi-value field, or `None` for a regular field.
pub fn item_limit(key: &str) -> Option<usize> {
    MULTI_VALUE_LIMITS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, n)| *n)
}

/// Splits a comma-separated multi-value string on `,` `，` `、`, trims the parts and drops
/// empty ones.
pub fn split_values(text: &str) -> Vec<String> {
    text.split([',', '，', '、'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Merges `updates` into `current` by SPEC §2.1, without modifying it.
///
/// Items are applied in order, each seeing the effect of the ones before it. Decisions the
/// seed leaves open:
/// - Keys are trimmed; a key that is empty after trimming is ignored. Keys are otherwise
///   case-sensitive (`hobbies` is a regular field, `Hobbies` a multi-value one).
/// - Items ignored because of their key (empty, protected) are not validated, so a client
///   sending `{"key": "voice_registered", "value": true}` gets a silent no-op, not a 400.
///   Every other item must carry a string, a number (taken as its text) or an array of those.
/// - Multi-value items are trimmed, cut to [`MAX_TEXT_CHARS`], and compared case-insensitively
///   (the newest spelling wins). An update with no items left after splitting (`""`, `[]`,
///   `" , "`) appends nothing: the field is unchanged and the key is not in `updated_fields`.
/// - Regular values are trimmed and then cut; an empty string overwrites (it clears the field).
/// - A key applied with an unchanged value is listed in `updated_fields` but has no `changes`.
pub fn merge_updates(current: &Pkg, updates: &[PkgUpdate]) -> Result<PkgMerge> {
    if updates.is_empty() {
        return Err(Error::invalid("updates cannot be empty"));
    }
    let mut working = current.clone();
    let mut updated_fields: Vec<String> = Vec::new();
    let mut changed_keys: Vec<String> = Vec::new();

    let mut over_cap: Vec<String> = Vec::new();

    for (index, update) in updates.iter().enumerate() {
        let key = update.key.trim();
        if key.is_empty() || PROTECTED_FIELDS.contains(&key) {
            continue;
        }
        check_key(key, &format!("updates[{index}].key"))?;
        let parts = value_parts(&update.value).ok_or_else(|| {
            Error::invalid(format!(
                "updates[{index}].value must be a string or an array of strings"
            ))
        })?;
        if key == NAME_FIELD && working.get(NAME_FIELD).is_some_and(is_set) {
            continue;
        }
        let new_value = match item_limit(key) {
            Some(limit) => {
                let items: Vec<String> = parts.iter().flat_map(|p| split_values(p)).collect();
                if items.is_empty() {
                    continue;
                }
                let existing = working.get(key).map(list_items).unwrap_or_default();
                PkgValue::List(append_items(existing, items, limit))
            }
            None => PkgValue::Text(regular_text(&update.value, &parts)),
        };
        if !working.contains_key(key) && field_count(&working) >= MAX_FIELDS {
            push_unique(&mut over_cap, key);
            continue;
        }
        if working.get(key) != Some(&new_value) {
            working.insert(key.to_owned(), new_value);
            push_unique(&mut changed_keys, key);
        }
        push_unique(&mut updated_fields, key);
    }

    let changes = changed_keys
        .into_iter()
        .filter_map(|key| {
            let value = working.get(&key)?.clone();
            (current.get(&key) != Some(&value)).then_some((key, value))
        })
        .collect();
    Ok(PkgMerge {
        changes,
        updated_fields,
        over_cap,
    })
}

/// Fields that count against [`MAX_FIELDS`] (not the registration flags).
fn field_count(pkg: &Pkg) -> usize {
    pkg.keys()
        .filter(|k| !PROTECTED_FIELDS.contains(&k.as_str()))
        .count()
}

/// A field name (trimmed, non-empty): at most [`MAX_KEY_CHARS`] characters and no control
/// characters (C0, DEL, C1: a newline in a key would forge lines where fields are rendered
/// as "key: value"). `what` names it in the error.
fn check_key(key: &str, what: &str) -> Result<()> {
    if key.chars().count() > MAX_KEY_CHARS {
        return Err(Error::invalid(format!(
            "{what} must be at most {MAX_KEY_CHARS} characters"
        )));
    }
    if key.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "{what} must not contain control characters"
        )));
    }
    Ok(())
}

/// Checks a stored PKG as a whole (an import): at most [`MAX_FIELDS`] fields, each one the
/// merge rules could have written: a trimmed key that passes the key rules and is not a
/// registration flag, a multi-value field as a list within its item limit (or a string),
/// a regular field as a string; every text at most [`MAX_TEXT_CHARS`] characters. `sources`
/// may link only fields of `pkg`, each to turn ids as a dream stores them.
pub fn validate_stored(pkg: &Pkg, sources: &PkgSources, what: &str) -> Result<()> {
    for (key, ids) in sources {
        if !pkg.contains_key(key) {
            return Err(Error::invalid(format!(
                "{what}_source_turns[{key:?}] links a field the PKG does not have"
            )));
        }
        crate::memory::check_source_turns(ids, format_args!("{what}_source_turns[{key:?}]"))?;
    }
    if field_count(pkg) > MAX_FIELDS {
        return Err(Error::invalid(format!(
            "{what} has more than {MAX_FIELDS} fields"
        )));
    }
    for (key, value) in pkg {
        let at = format!("{what}[{key:?}]");
        if key.trim() != key || key.is_empty() || PROTECTED_FIELDS.contains(&key.as_str()) {
            return Err(Error::invalid(format!(
                "{at}: the key must be trimmed, non-empty and not a registration flag"
            )));
        }
        check_key(key, &at)?;
        let too_long = |t: &String| t.chars().count() > MAX_TEXT_CHARS;
        let fits = match (item_limit(key), value) {
            (_, PkgValue::Text(t)) => !too_long(t),
            (Some(limit), PkgValue::List(items)) => {
                items.len() <= limit && !items.iter().any(too_long)
            }
            (None, PkgValue::List(_)) | (_, PkgValue::Flag(_)) => false,
        };
        if !fits {
            return Err(Error::invalid(format!(
                "{at} must be text of at most {MAX_TEXT_CHARS} characters (a multi-value field: \
                 a list within its item limit)"
            )));
        }
    }
    Ok(())
}

/// The fields a merge writes, each with its links, in the order the merge applied them.
///
/// `links[i]` are the turns that stated `updates[i]` (a dream's provenance; empty or short
/// for the API). A field's links are the turns that stated its current value: a regular
/// field whose value a merge replaced starts over (the old turns stated the old value), a
/// multi-value field keeps its links and gains the new ones, without repeats and up to
/// [`crate::memory::MAX_SOURCE_TURNS`] (the first kept, as for memories). A field is written
/// when its value or its links changed, so re-dreaming the same turns writes nothing.
pub fn field_writes(
    current: &[PkgField],
    merge: &PkgMerge,
    updates: &[PkgUpdate],
    links: &[Vec<String>],
) -> Vec<PkgField> {
    let mut out = Vec::new();
    for key in &merge.updated_fields {
        let old = current.iter().find(|f| &f.key == key);
        let changed = merge.changes.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let Some(value) = changed.or(old.map(|f| &f.value)) else {
            continue;
        };
        let old_links = old.map(|f| f.source_turns.as_slice()).unwrap_or_default();
        let replaced = changed.is_some() && item_limit(key).is_none();
        let mut source_turns = if replaced {
            Vec::new()
        } else {
            old_links.to_vec()
        };
        for (update, more) in updates.iter().zip(links) {
            if update.key.trim() == key {
                crate::memory::merge_source_turns(&mut source_turns, more);
            }
        }
        if changed.is_some() || source_turns != old_links {
            out.push(PkgField {
                key: key.clone(),
                value: value.clone(),
                source_turns,
            });
        }
    }
    out
}

/// Applies a merge: new keys are appended, existing keys keep their place.
pub fn apply_merge(pkg: &mut Pkg, merge: &PkgMerge) {
    for (key, value) in &merge.changes {
        pkg.insert(key.clone(), value.clone());
    }
}

/// The `GET /api/pkg` shape: the stored fields, then the two registration flags.
pub fn pkg_view(mut fields: Pkg, voice_registered: bool, face_registered: bool) -> Pkg {
    for key in PROTECTED_FIELDS {
        fields.shift_remove(key);
    }
    fields.insert(
        PROTECTED_FIELDS[0].to_owned(),
        PkgValue::Flag(voice_registered),
    );
    fields.insert(
        PROTECTED_FIELDS[1].to_owned(),
        PkgValue::Flag(face_registered),
    );
    fields
}

/// The value's strings: a string or number alone, or each item of an array of those.
fn value_parts(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::Array(items) => items.iter().map(scalar_text).collect(),
        other => scalar_text(other).map(|s| vec![s]),
    }
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A regular field's new text: a lone string as given, an array joined with `, `.
fn regular_text(value: &Value, parts: &[String]) -> String {
    let text = if value.is_array() {
        parts
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        parts.concat().trim().to_owned()
    };
    cut_chars(&text, MAX_TEXT_CHARS)
}

/// Appends `items` to `existing`: an item already present (case-insensitively) moves to the
/// end with the new spelling; then only the latest `limit` items are kept.
fn append_items(mut list: Vec<String>, items: Vec<String>, limit: usize) -> Vec<String> {
    for item in items {
        let item = cut_chars(&item, MAX_TEXT_CHARS);
        let folded = item.to_lowercase();
        list.retain(|old| old.to_lowercase() != folded);
        list.push(item);
    }
    let excess = list.len().saturating_sub(limit);
    list.drain(..excess);
    list
}

/// A stored value read as a multi-value list (a stray string is split like an update).
fn list_items(value: &PkgValue) -> Vec<String> {
    match value {
        PkgValue::List(items) => items.clone(),
        PkgValue::Text(text) => split_values(text),
        PkgValue::Flag(_) => Vec::new(),
    }
}

fn is_set(value: &PkgValue) -> bool {
    match value {
        PkgValue::Text(text) => !text.trim().is_empty(),
        PkgValue::List(items) => items.iter().any(|i| !i.trim().is_empty()),
        PkgValue::Flag(_) => true,
    }
}

/// The first `max` Unicode scalar values of `text`.
pub fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((byte, _)) => text.get(..byte).unwrap_or(text).to_owned(),
        None => text.to_owned(),
    }
}

fn push_unique(keys: &mut Vec<String>, key: &str) {
    if !keys.iter().any(|k| k == key) {
        keys.push(key.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn up(key: &str, value: Value) -> PkgUpdate {
        PkgUpdate {
            key: key.into(),
            value,
        }
    }

    fn list(items: &[&str]) -> PkgValue {
        PkgValue::List(items.iter().map(|s| s.to_string()).collect())
    }

    fn merged(current: &Pkg, updates: &[PkgUpdate]) -> (Pkg, Vec<String>) {
        let merge = merge_updates(current, updates).unwrap();
        let mut pkg = current.clone();
        apply_merge(&mut pkg, &merge);
        (pkg, merge.updated_fields)
    }

    #[test]
    fn splits_on_ascii_and_chinese_separators() {
        assert_eq!(
            split_values(" Swimming,Painting，读书、 跑步 ,, "),
            ["Swimming", "Painting", "读书", "跑步"]
        );
        assert!(split_values(" , ，、").is_empty());
    }

    #[test]
    fn empty_updates_are_rejected() {
        let err = merge_updates(&Pkg::new(), &[]).unwrap_err();
        assert_eq!(err, Error::invalid("updates cannot be empty"));
    }

    #[test]
    fn seed_example_appends_string_and_array_values() {
        let (pkg, fields) = merged(
            &Pkg::new(),
            &[
                up("Hobbies", json!("Swimming,Painting")),
                up("Favorite Books", json!(["Three-Body Problem", "Solitude"])),
            ],
        );
        assert_eq!(fields, ["Hobbies", "Favorite Books"]);
        assert_eq!(pkg["Hobbies"], list(&["Swimming", "Painting"]));
        assert_eq!(
            pkg["Favorite Books"],
            list(&["Three-Body Problem", "Solitude"])
        );
    }

    #[test]
    fn present_value_moves_to_end_and_latest_n_are_kept() {
        let mut pkg = Pkg::new();
        pkg.insert("Nickname".into(), list(&["A", "B", "C", "D", "E"]));
        let (pkg, _) = merged(&pkg, &[up("Nickname", json!("b, F"))]);
        assert_eq!(pkg["Nickname"], list(&["C", "D", "E", "b", "F"]));
    }

    #[test]
    fn regular_fields_overwrite_join_arrays_and_cut_by_chars() {
        let mut pkg = Pkg::new();
        pkg.insert("City".into(), PkgValue::Text("Berlin".into()));
        let long = "猫".repeat(MAX_TEXT_CHARS + 5);
        let (pkg, fields) = merged(
            &pkg,
            &[
                up("City", json!("Bangkok")),
                up("Jobs", json!(["teacher", " ", "writer"])),
                up("Bio", json!(long)),
                up("Age", json!(30)),
            ],
        );
        assert_eq!(fields, ["City", "Jobs", "Bio", "Age"]);
        assert_eq!(pkg["City"], PkgValue::Text("Bangkok".into()));
        assert_eq!(pkg["Jobs"], PkgValue::Text("teacher, writer".into()));
        assert_eq!(pkg["Bio"], PkgValue::Text("猫".repeat(MAX_TEXT_CHARS)));
        assert_eq!(pkg["Age"], PkgValue::Text("30".into()));
        assert_eq!(pkg.get_index(0).unwrap().0, "City");
    }

    #[test]
    fn ignored_keys_are_not_reported() {
        let mut pkg = Pkg::new();
        pkg.insert("Name".into(), PkgValue::Text("Xiao Ming".into()));
        let (after, fields) = merged(
            &pkg,
            &[
                up("", json!("x")),
                up("   ", json!("x")),
                up("voice_registered", json!(true)),
                up("face_registered", json!("yes")),
                up("Name", json!("Someone Else")),
                up("Hobbies", json!("")),
            ],
        );
        assert!(fields.is_empty());
        assert_eq!(after, pkg);
    }

    #[test]
    fn name_is_set_once_even_within_one_request() {
        let (pkg, fields) = merged(
            &Pkg::new(),
            &[up("Name", json!("Xiao Ming")), up("Name", json!("Other"))],
        );
        assert_eq!(fields, ["Name"]);
        assert_eq!(pkg["Name"], PkgValue::Text("Xiao Ming".into()));
    }

    #[test]
    fn repeated_keys_are_listed_once_and_changes_hold_the_final_value() {
        let merge = merge_updates(
            &Pkg::new(),
            &[
                up("Hobbies", json!("Reading")),
                up("City", json!("Paris")),
                up("Hobbies", json!(["Running"])),
            ],
        )
        .unwrap();
        assert_eq!(merge.updated_fields, ["Hobbies", "City"]);
        assert_eq!(
            merge.changes,
            [
                ("Hobbies".to_string(), list(&["Reading", "Running"])),
                ("City".to_string(), PkgValue::Text("Paris".into())),
            ]
        );
    }

    #[test]
    fn unchanged_value_is_applied_without_a_change() {
        let mut pkg = Pkg::new();
        pkg.insert("City".into(), PkgValue::Text("Paris".into()));
        let merge = merge_updates(&pkg, &[up("City", json!(" Paris "))]).unwrap();
        assert_eq!(merge.updated_fields, ["City"]);
        assert!(merge.changes.is_empty());
    }

    #[test]
    fn bad_values_and_keys_name_the_index() {
        for bad in [
            json!(null),
            json!({"a": 1}),
            json!(true),
            json!(["ok", {"b": 2}]),
        ] {
            let err = merge_updates(
                &Pkg::new(),
                &[
                    up("City", json!("x")),
                    up("Hobbies", json!("y")),
                    up("Bio", bad),
                ],
            )
            .unwrap_err();
            assert_eq!(
                err,
                Error::invalid("updates[2].value must be a string or an array of strings")
            );
        }
        let err = merge_updates(&Pkg::new(), &[up(&"k".repeat(129), json!("v"))]).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(m) if m.starts_with("updates[0].key")));
        assert!(merge_updates(&Pkg::new(), &[up(&"键".repeat(128), json!("v"))]).is_ok());
    }

    /// Issue 18, item 10: C0 controls (and DEL, C1) in keys were stored.
    #[test]
    fn control_characters_in_keys_are_refused() {
        for key in ["Bad\nKey", "a\u{0}b", "tab\tkey", "del\u{7f}", "c1\u{85}x"] {
            let err = merge_updates(&Pkg::new(), &[up(key, json!("v"))]).unwrap_err();
            assert_eq!(
                err,
                Error::invalid("updates[0].key must not contain control characters"),
                "{key:?}"
            );
        }
        // Surrounding whitespace is trimmed as before, inner spaces and Unicode are fine.
        assert!(merge_updates(&Pkg::new(), &[up(" 最喜欢的 颜色 ", json!("蓝"))]).is_ok());
    }

    #[test]
    fn new_fields_beyond_the_cap_are_left_out_and_named() {
        let mut full = Pkg::new();
        for i in 0..MAX_FIELDS {
            full.insert(format!("F{i}"), PkgValue::Text("x".into()));
        }
        full.insert("voice_registered".into(), PkgValue::Flag(true));
        let merge = merge_updates(&full, &[up("F1", json!("y")), up("New", json!("z"))]).unwrap();
        assert_eq!(merge.updated_fields, ["F1"]);
        assert_eq!(merge.over_cap, ["New"]);
        assert!(merge.refuse_over_cap().is_err());
        assert!(
            validate_stored(&full, &PkgSources::new(), "pkg").is_err(),
            "a flag is not a stored field"
        );
        full.shift_remove("voice_registered");
        assert!(validate_stored(&full, &PkgSources::new(), "pkg").is_ok());
        full.insert("one more".into(), PkgValue::Text("x".into()));
        assert!(validate_stored(&full, &PkgSources::new(), "pkg").is_err());
    }

    fn field(key: &str, value: PkgValue, links: &[&str]) -> PkgField {
        PkgField {
            key: key.into(),
            value,
            source_turns: links.iter().map(|l| l.to_string()).collect(),
        }
    }

    fn links(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|l| l.to_string()).collect()
    }

    /// The writes of merging `updates` (each stated by the turns beside it) into `current`.
    fn writes(current: &[PkgField], updates: &[(PkgUpdate, &[&str])]) -> Vec<PkgField> {
        let (updates, stated): (Vec<PkgUpdate>, Vec<Vec<String>>) =
            updates.iter().map(|(u, l)| (u.clone(), links(l))).unzip();
        let merge = merge_updates(&values(current), &updates).unwrap();
        field_writes(current, &merge, &updates, &stated)
    }

    #[test]
    fn a_dreamt_value_links_to_its_turns_and_the_same_turns_again_write_nothing() {
        let current = [field("Hobbies", list(&["Swimming"]), &["t1"])];
        let got = writes(
            &current,
            &[
                (up("Hobbies", json!("Painting")), &["t2"]),
                (up("City", json!("Hangzhou")), &["t3", "t4"]),
            ],
        );
        assert_eq!(
            got,
            [
                field("Hobbies", list(&["Swimming", "Painting"]), &["t1", "t2"]),
                field("City", PkgValue::Text("Hangzhou".into()), &["t3", "t4"]),
            ]
        );
        // Re-dreaming the same turns: same value, same links, nothing to write.
        let again = writes(&got, &[(up("Hobbies", json!("Painting")), &["t2"])]);
        assert!(again.is_empty(), "{again:?}");
        // A new turn restating a value links to it too (as a reinforced memory does).
        let restated = writes(&got, &[(up("City", json!("Hangzhou")), &["t9"])]);
        assert_eq!(
            restated,
            [field(
                "City",
                PkgValue::Text("Hangzhou".into()),
                &["t3", "t4", "t9"]
            )]
        );
    }

    #[test]
    fn a_replaced_value_drops_the_links_of_the_old_one_and_links_are_capped() {
        let current = [
            field("City", PkgValue::Text("Berlin".into()), &["t1"]),
            field("Hobbies", list(&["Swimming"]), &["t1"]),
        ];
        // Through the API (stated by no turn): the list keeps its links, the city has none.
        let api = [up("City", json!("Paris")), up("Hobbies", json!("Chess"))];
        let merge = merge_updates(&values(&current), &api).unwrap();
        assert_eq!(
            field_writes(&current, &merge, &api, &[]),
            [
                field("City", PkgValue::Text("Paris".into()), &[]),
                field("Hobbies", list(&["Swimming", "Chess"]), &["t1"]),
            ]
        );
        // By a dream: the new value's turns only.
        let got = writes(&current, &[(up("City", json!("Paris")), &["t2"])]);
        assert_eq!(
            got,
            [field("City", PkgValue::Text("Paris".into()), &["t2"])]
        );
        // At most MAX_SOURCE_TURNS, the first ones kept.
        let many: Vec<String> = (0..70).map(|i| format!("t{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let got = writes(&[], &[(up("Hobbies", json!("Go")), &many)]);
        assert_eq!(got[0].source_turns.len(), crate::memory::MAX_SOURCE_TURNS);
        assert_eq!(got[0].source_turns[0], "t0");
    }

    #[test]
    fn stored_links_must_name_fields_and_turn_ids() {
        let mut pkg = Pkg::new();
        pkg.insert("City".into(), PkgValue::Text("Paris".into()));
        let linked = |key: &str, ids: Vec<String>| PkgSources::from([(key.to_string(), ids)]);
        assert!(validate_stored(&pkg, &linked("City", links(&["turn_1"])), "pkg").is_ok());
        for bad in [
            linked("Job", links(&["turn_1"])),
            linked("City", links(&["turn 1"])),
            linked("City", links(&["turn_1", "turn_1"])),
            linked("City", (0..65).map(|i| format!("turn_{i}")).collect()),
        ] {
            let err = validate_stored(&pkg, &bad, "pkg").unwrap_err();
            assert!(
                matches!(&err, Error::InvalidInput(m) if m.starts_with("pkg_source_turns")),
                "{err:?}"
            );
        }
    }

    #[test]
    fn view_appends_flags_after_fields() {
        let mut pkg = Pkg::new();
        pkg.insert("Name".into(), PkgValue::Text("Xiao Ming".into()));
        pkg.insert("voice_registered".into(), PkgValue::Flag(false));
        let view = pkg_view(pkg, true, false);
        let keys: Vec<_> = view.keys().map(String::as_str).collect();
        assert_eq!(keys, ["Name", "voice_registered", "face_registered"]);
        assert_eq!(view["voice_registered"], PkgValue::Flag(true));
        assert_eq!(
            serde_json::to_value(&view).unwrap(),
            json!({"Name": "Xiao Ming", "voice_registered": true, "face_registered": false})
        );
    }
}
