//! Pins and the session brief (issue 16) through the engine over in-memory ports.

mod common;

use common::*;
use hippo::api::*;
use hippo::brief::count_tokens;
use hippo::Error;
use proptest::prelude::*;
use serde_json::json;

fn brief(w: &World, npcid: &str, body: serde_json::Value) -> BriefResponse {
    run(w.hippo.brief(npcid, json(body))).unwrap()
}

fn ids(b: &BriefResponse) -> Vec<&str> {
    b.items.iter().map(|i| i.id.as_str()).collect()
}

/// One NPC with a bit of everything, including secrets the brief must never show.
fn seeded() -> World {
    let w = world();
    npc(
        &w,
        "u1",
        json!({"Name": "小明", "Nickname": ["明明"], "Hobbies": ["爬山"],
               "Address": "北京市朝阳区建国路88号"}),
    );
    run(w.hippo.apply_entity_ops(
        "u1",
        json(json!({"ops": [{"op": "add", "name": "小红", "title": ["同学"]}]})),
    ))
    .unwrap();
    add(
        &w,
        "u1",
        json!([
            {"summary": "用户对花生过敏", "type": "constraint", "importance": 0.85},
            {"summary": "用户喜欢喝乌龙茶", "type": "preference"},
            {"summary": "用户的银行卡密码是 123456", "type": "other", "importance": 0.99},
            {"summary": "用户下周去杭州出差", "type": "project", "importance": 0.7},
        ]),
    );
    w
}

#[test]
fn the_brief_says_who_the_user_is_first_and_never_what_is_sensitive() {
    let w = seeded();
    let b = brief(&w, "u1", json!({"max_tokens": 400}));
    assert_eq!(b.lang, hippo::brief::Lang::Zh);
    assert!(
        b.text
            .starts_with("【用户】\n- Name: 小明\n- Nickname: 明明"),
        "{}",
        b.text
    );
    assert!(b.text.contains("【注意】\n- 用户对花生过敏"), "{}", b.text);
    assert!(b.text.contains("小红 (同学)"), "{}", b.text);
    assert!(
        b.text.contains("乌龙茶") && b.text.contains("杭州"),
        "{}",
        b.text
    );
    for secret in ["123456", "密码", "建国路", "Address"] {
        assert!(!b.text.contains(secret), "{secret} in {}", b.text);
    }
    assert_eq!(b.tokens, count_tokens(&b.text));
    assert!(b.tokens <= 400);
    // Every item is listed once, in the text's order.
    let listed = ids(&b);
    assert_eq!(listed[0], "pkg:Name");
    let mut unique = listed.clone();
    unique.dedup();
    assert_eq!(unique.len(), listed.len());
    // English headings on request; a read changes nothing, so it repeats exactly.
    let en = brief(&w, "u1", json!({"max_tokens": 400, "lang": "en"}));
    assert!(en.text.starts_with("About the user:\n"), "{}", en.text);
    assert_eq!(brief(&w, "u1", json!({"max_tokens": 400})), b);
}

#[test]
fn a_query_adds_what_is_relevant_without_reinforcing_it() {
    let w = seeded();
    add(
        &w,
        "u1",
        json!([{"summary": "用户的猫叫咪咪，最近生病了", "type": "history", "importance": 0.3}]),
    );
    let before = run(w.hippo.list_memories("u1", Default::default())).unwrap();
    let b = brief(
        &w,
        "u1",
        json!({"max_tokens": 300, "query": "猫生病了怎么办"}),
    );
    assert!(
        b.text.contains("【与话题相关】\n- 用户的猫叫咪咪"),
        "{}",
        b.text
    );
    let after = run(w.hippo.list_memories("u1", Default::default())).unwrap();
    assert_eq!(before, after, "a brief must not reinforce what it reads");
}

#[test]
fn pinned_memories_always_have_a_place_and_survive_decay() {
    let w = seeded();
    let faint = add(
        &w,
        "u1",
        json!([{"summary": "用户的第一只狗叫旺财", "type": "history", "importance": 0.25}]),
    );
    let faint_id = faint.results[0].id.clone();
    let many: Vec<serde_json::Value> = (0..40)
        .map(|i| json!({"summary": format!("用户第{i}次提到喜欢的电影 movie{i}"), "type": "preference", "importance": 0.9}))
        .collect();
    add(&w, "u1", json!(many));
    // Two years on, the faint memory is archive tier (retrieval keeps it only when it
    // matches about as well as the best item) and out of the brief.
    w.clock.set(t("2028-04-08T10:00:00Z"));
    let tier = |w: &World| {
        let list = run(w.hippo.list_memories("u1", Default::default())).unwrap();
        let m = list.memories.iter().find(|m| m.memory.id == faint_id);
        m.map(|m| m.tier.clone()).unwrap()
    };
    assert_eq!(tier(&w), "archive");
    let small = json!({"max_tokens": 120});
    assert!(!ids(&brief(&w, "u1", small.clone())).contains(&faint_id.as_str()));
    // Pinned: retrieved again, and in a small brief ahead of 40 stronger memories.
    let pinned = run(w
        .hippo
        .update_memory("u1", &faint_id, json(json!({"pinned": true}))))
    .unwrap();
    assert!(pinned.memory.memory.pinned);
    assert_eq!(pinned.memory.tier, "active");
    let b = brief(&w, "u1", small);
    assert!(b.text.contains("旺财"), "{}", b.text);
    assert!(b
        .items
        .iter()
        .any(|i| i.id == faint_id && i.section == hippo::brief::Section::Pinned));
    assert!(b.tokens <= 120);
    // Unpinned, it fades again (the searches above reinforced it, so give it time).
    run(w
        .hippo
        .update_memory("u1", &faint_id, json(json!({"pinned": false}))))
    .unwrap();
    w.clock.set(t("2030-04-08T10:00:00Z"));
    assert_eq!(tier(&w), "archive");
}

#[test]
fn a_pinned_fact_stays_pinned_when_repeated_or_replaced() {
    let w = seeded();
    let r = add(
        &w,
        "u1",
        json!([{"summary": "用户住在上海", "type": "profile", "pinned": true}]),
    );
    let id = r.results[0].id.clone();
    let again = add(
        &w,
        "u1",
        json!([{"summary": "用户住在上海", "type": "profile"}]),
    );
    assert_eq!(again.results[0].action, "reinforced");
    let list = run(w.hippo.list_memories("u1", Default::default())).unwrap();
    assert!(list
        .memories
        .iter()
        .any(|m| m.memory.id == id && m.memory.pinned));
}

#[test]
fn saying_remember_this_pins_what_the_dream_extracts_from_that_turn() {
    let w = world();
    npc(&w, "d1", json!({}));
    run(w.hippo.append_conversation(
        "d1",
        json(json!({"session_id": "s1", "turns": [
            {"role": "user", "content": "我喜欢爬山。"},
            {"role": "assistant", "content": "爬山很棒！"},
            {"role": "user", "content": "我对芒果过敏，记住这件事！"},
            {"role": "user", "content": "Remember this: my sister Anna is a nurse."},
        ]})),
    ))
    .unwrap();
    let report = run(w.hippo.dream("d1", false)).unwrap();
    let extracted = report.extractions.unwrap().memories;
    let pinned: Vec<&str> = extracted
        .iter()
        .filter(|m| m.pinned)
        .map(|m| m.summary.as_str())
        .collect();
    assert!(pinned.iter().any(|s| s.contains("芒果")), "{extracted:?}");
    assert!(pinned.iter().any(|s| s.contains("Anna")), "{extracted:?}");
    assert!(!pinned.iter().any(|s| s.contains("爬山")), "{extracted:?}");
    assert!(!extracted.iter().any(|m| m.summary.contains("这件事")));
    let list = run(w.hippo.list_memories("d1", Default::default())).unwrap();
    let stored = |needle: &str| {
        list.memories
            .iter()
            .find(|m| m.memory.summary.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not stored"))
            .memory
            .pinned
    };
    assert!(stored("芒果") && !stored("爬山"));
    let b = brief(&w, "d1", json!({"max_tokens": 200}));
    assert!(b.text.contains("芒果"), "{}", b.text);
}

#[test]
fn the_diary_part_is_the_last_days_of_the_per_day_diary() {
    let w = world();
    npc(&w, "d2", json!({}));
    let days = ["2026-04-02", "2026-04-03", "2026-04-05", "2026-04-07"];
    let turns: Vec<serde_json::Value> = days
        .iter()
        .enumerate()
        .map(|(i, d)| {
            json!({"role": "user", "ts": format!("{d}T20:00:00Z"),
                             "content": format!("今天我去了第{i}家咖啡馆，喝了拿铁。")})
        })
        .collect();
    run(w
        .hippo
        .append_conversation("d2", json(json!({"session_id": "s", "turns": turns}))))
    .unwrap();
    run(w.hippo.dream("d2", false)).unwrap();
    let diary_ids = |b: &BriefResponse| -> Vec<String> {
        b.items
            .iter()
            .filter(|i| i.section == hippo::brief::Section::Diary)
            .map(|i| i.id.clone())
            .collect()
    };
    // The newest three days, newest first, by the ids of their diary records.
    let b = brief(&w, "d2", json!({"max_tokens": 2000}));
    assert_eq!(
        diary_ids(&b),
        ["diary_2026-04-07", "diary_2026-04-05", "diary_2026-04-03"],
        "{}",
        b.text
    );
    assert!(
        b.text.contains("【最近的日记】\n- 2026-04-07: "),
        "{}",
        b.text
    );
    // A day the admin marks sensitive leaves the brief (the diary window's copy of it too).
    run(w
        .hippo
        .update_memory("d2", "diary_2026-04-07", json(json!({"sensitive": true}))))
    .unwrap();
    let b = brief(&w, "d2", json!({"max_tokens": 2000}));
    assert_eq!(
        diary_ids(&b),
        ["diary_2026-04-05", "diary_2026-04-03", "diary_2026-04-02"]
    );
}

#[test]
fn the_brief_is_read_by_the_character_as_memory_retrieval_is() {
    // Explicit bidi formatting and control characters are removed from what the character
    // reads (docs/SECURITY.md), in the brief as in memory_retrieval.
    let w = world();
    npc(&w, "c1", json!({"Name": "Ann\u{202E}eve"}));
    add(
        &w,
        "c1",
        json!([{"summary": "The user likes \u{2066}green\u{2069} tea\u{0007}", "type": "preference"}]),
    );
    let b = brief(&w, "c1", json!({"max_tokens": 200}));
    assert!(b.text.contains("Name: Anneve"), "{}", b.text);
    assert!(b.text.contains("The user likes green tea"), "{}", b.text);
    assert!(
        !b.text
            .chars()
            .any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{0007}')),
        "{:?}",
        b.text
    );
}

#[test]
fn brief_input_errors() {
    let w = seeded();
    for body in [
        json!({"max_tokens": 0}),
        json!({"max_tokens": 40000}),
        json!({"lang": "fr"}),
    ] {
        let err = run(w.hippo.brief("u1", json(body.clone()))).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{body}: {err:?}");
    }
    let err = run(w.hippo.brief("nobody", json(json!({})))).unwrap_err();
    assert!(matches!(err, Error::NotFound(_)), "{err:?}");
    let err = run(w.hippo.brief("bad id!", json(json!({})))).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
    let err = serde_json::from_value::<BriefRequest>(json!({"max_token": 5})).unwrap_err();
    assert!(err.to_string().contains("unknown field"), "{err}");
    // The default budget.
    assert_eq!(brief(&w, "u1", json!({})).max_tokens, 500);
}

const WORDS: &[&str] = &[
    "花生",
    "过敏",
    "喜欢",
    "爬山",
    "乌龙茶",
    "密码",
    "coffee",
    "mountain",
    "allergic",
    "sister",
    "Anna",
    "杭州",
    "出差",
    "deadline",
    "tomorrow",
    "电影",
    "书",
    "猫",
    "dog",
    "walk",
];

/// Whether `text` shows the memory whose summary ends in ` #<n>`: the summary not followed by
/// another digit (the summary "过敏 #1" is not shown by a line "…过敏 #17").
fn shows(text: &str, summary: &str) -> bool {
    text.match_indices(summary)
        .any(|(at, _)| !text[at + summary.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

#[test]
fn a_summary_is_shown_only_where_its_number_ends() {
    // The case proptest found: a secret "过敏 #1" beside a shown "…花生coffee过敏 #17".
    assert!(!shows("- allergic书花生coffee过敏 #17\n", "过敏 #1"));
    assert!(shows("- 过敏 #1\n- 过敏 #17", "过敏 #1"));
    assert!(shows("- 过敏 #1", "过敏 #1"));
}

fn text_of(picks: &[usize], lang_mix: bool) -> String {
    picks
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let w = WORDS[p % WORDS.len()];
            if lang_mix && i % 2 == 1 {
                format!(" {w}")
            } else {
                w.to_string()
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// For random states (profile, people, memories of every type, pinned or not, sensitive
    /// or not, diary days) and random budgets, the brief never exceeds its budget by its own
    /// count, never shows a sensitive memory, and is the same when asked twice.
    #[test]
    fn the_budget_is_never_exceeded(
        name in proptest::collection::vec(0usize..20, 1..4),
        memories in proptest::collection::vec(
            (proptest::collection::vec(0usize..20, 1..30), 0usize..8, any::<bool>(), any::<bool>(), 0.0f64..1.0),
            0..25),
        people in proptest::collection::vec(proptest::collection::vec(0usize..20, 1..3), 0..5),
        max_tokens in 1u64..400,
        query in proptest::option::of(proptest::collection::vec(0usize..20, 1..4)),
    ) {
        let w = world();
        npc(&w, "p", json!({"Name": text_of(&name, false), "Hobbies": [text_of(&name, true)]}));
        let ops: Vec<serde_json::Value> = people
            .iter()
            .map(|p| json!({"op": "add", "name": text_of(p, false)}))
            .collect();
        if !ops.is_empty() {
            run(w.hippo.apply_entity_ops("p", json(json!({"ops": ops})))).unwrap();
        }
        let types = ["preference", "style", "profile", "history", "project", "constraint",
                     "relationship", "other"];
        let mut secrets = Vec::new();
        for (i, (words, ty, pinned, sensitive, importance)) in memories.iter().enumerate() {
            let summary = format!("{} #{i}", text_of(words, i % 2 == 0));
            if *sensitive {
                secrets.push(summary.clone());
            }
            add(&w, "p", json!([{"summary": summary, "type": types[*ty], "pinned": pinned,
                                  "sensitive": sensitive, "importance": importance}]));
        }
        let mut body = json!({"max_tokens": max_tokens});
        if let Some(q) = &query {
            body["query"] = json!(text_of(q, true));
        }
        let b = brief(&w, "p", body.clone());
        prop_assert!(b.tokens <= max_tokens as usize, "{} > {max_tokens}", b.tokens);
        prop_assert_eq!(b.tokens, count_tokens(&b.text));
        for s in &secrets {
            prop_assert!(!shows(&b.text, s), "{s} in {}", b.text);
        }
        prop_assert_eq!(brief(&w, "p", body), b);
    }
}
