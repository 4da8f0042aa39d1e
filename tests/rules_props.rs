//! Property tests for the pure rules: PKG merge-update (SPEC §2.1) and entity ids (SPEC §1).

use hippo::pkg::{
    apply_merge, item_limit, merge_updates, Pkg, PkgUpdate, PkgValue, MAX_TEXT_CHARS,
    PROTECTED_FIELDS,
};
use hippo::relationship::{apply_ops, entity_number, EntityOp, OpKind, Relationships};
use proptest::prelude::*;
use serde_json::{json, Value};

const KEYS: [&str; 9] = [
    "Nickname",
    "Hobbies",
    "Favorite Books",
    "Name",
    "City",
    "Bio",
    "voice_registered",
    "face_registered",
    "",
];

/// Short items from a small pool so duplicates (and case variants) are common.
fn item() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "Reading", "reading", "Running", "读书", "跑步", "🎸", "Go", "Chess", "象棋", "Swim", "a",
        "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
    ])
    .prop_map(str::to_owned)
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::collection::vec(item(), 0..14).prop_map(|items| json!(items)),
        (
            prop::collection::vec(item(), 0..14),
            prop::sample::select(vec![",", "，", "、", " , "])
        )
            .prop_map(|(items, sep)| json!(items.join(sep))),
    ]
}

fn updates() -> impl Strategy<Value = Vec<PkgUpdate>> {
    prop::collection::vec(
        (prop::sample::select(KEYS.to_vec()), value()).prop_map(|(key, value)| PkgUpdate {
            key: key.to_owned(),
            value,
        }),
        1..12,
    )
}

/// A reachable PKG: the result of earlier merges, with the registration flags stored.
fn pkg() -> impl Strategy<Value = Pkg> {
    (updates(), any::<bool>(), any::<bool>()).prop_map(|(ups, voice, face)| {
        let mut pkg = Pkg::new();
        pkg.insert("voice_registered".into(), PkgValue::Flag(voice));
        pkg.insert("face_registered".into(), PkgValue::Flag(face));
        apply_merge(&mut pkg, &merge_updates(&Pkg::new(), &ups).unwrap());
        pkg
    })
}

fn merged(pkg: &Pkg, ups: &[PkgUpdate]) -> Pkg {
    let mut out = pkg.clone();
    apply_merge(&mut out, &merge_updates(pkg, ups).unwrap());
    out
}

/// Long strings of CJK, emoji and accented letters (multi-byte scalar values).
fn long_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['猫', '😀', 'é', 'x', '澈', '🐘']),
        0..2100,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn entity_op(op: OpKind, name: &str) -> EntityOp {
    EntityOp {
        op,
        id: None,
        name: Some(name.to_owned()),
        alias: None,
        title: None,
        remark: None,
    }
}

proptest! {
    #[test]
    fn multi_value_fields_never_exceed_their_limit(pkg in pkg(), ups in updates()) {
        for (key, value) in &merged(&pkg, &ups) {
            if let (Some(limit), PkgValue::List(items)) = (item_limit(key), value) {
                prop_assert!(items.len() <= limit, "{key}: {} items", items.len());
            }
        }
    }

    #[test]
    fn protected_fields_never_change(pkg in pkg(), ups in updates()) {
        let merge = merge_updates(&pkg, &ups).unwrap();
        let after = merged(&pkg, &ups);
        for key in PROTECTED_FIELDS {
            prop_assert_eq!(after.get(key), pkg.get(key));
            prop_assert!(!merge.updated_fields.iter().any(|k| k == key));
        }
    }

    #[test]
    fn a_set_name_never_changes(pkg in pkg(), name in "[A-Za-z澈]{1,8}", ups in updates()) {
        let mut pkg = pkg;
        pkg.insert("Name".into(), PkgValue::Text(name.clone()));
        let after = merged(&pkg, &ups);
        prop_assert_eq!(after.get("Name"), Some(&PkgValue::Text(name)));
    }

    #[test]
    fn applying_the_same_updates_twice_changes_nothing_the_second_time(
        pkg in pkg(),
        ups in updates(),
    ) {
        let once = merged(&pkg, &ups);
        let second = merge_updates(&once, &ups).unwrap();
        prop_assert!(second.changes.is_empty(), "{:?}", second.changes);
        prop_assert_eq!(merged(&once, &ups), once);
    }

    #[test]
    fn regular_strings_are_cut_to_1024_scalar_values(text in long_text()) {
        let ups = [PkgUpdate { key: "Bio".into(), value: json!(text) }];
        let after = merged(&Pkg::new(), &ups);
        let PkgValue::Text(stored) = &after["Bio"] else {
            return Err(TestCaseError::fail("Bio is not text"));
        };
        let want: String = text.chars().take(MAX_TEXT_CHARS).collect();
        prop_assert_eq!(stored, &want);
    }

    #[test]
    fn entity_ids_are_never_reused(names in prop::collection::vec("[a-e]{1,2}", 1..30)) {
        // Add a name and delete it, round after round: each new entity gets a fresh id.
        let (mut entities, mut seq) = (Relationships::new(), 1);
        let mut seen = std::collections::HashSet::new();
        for name in names {
            let ops = [entity_op(OpKind::Add, &name), entity_op(OpKind::Delete, &name)];
            let out = apply_ops(&entities, seq, &ops, true).unwrap();
            let id = out.results[0].1.clone();
            prop_assert!(seen.insert(id.clone()), "{id} reused");
            prop_assert!(entity_number(&id).unwrap() >= seq);
            prop_assert!(out.next_entity_seq > seq);
            (entities, seq) = (out.entities, out.next_entity_seq);
        }
    }
}
