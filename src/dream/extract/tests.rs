use super::*;
use crate::conversation::EntryKind;

pub(crate) fn user(content: &str) -> Turn {
    Turn {
        id: "t".into(),
        seq: 1,
        session_id: None,
        turn_index: None,
        kind: EntryKind::Turn,
        role: Some(Role::User),
        content: content.into(),
        ts: Timestamp::parse("2026-04-09T10:00:00Z").unwrap(),
        emotion: None,
    }
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 4, 9).unwrap()
}

fn run(text: &str) -> Extraction {
    extract(&[user(text)], today())
}

fn assistant(content: &str) -> Turn {
    Turn {
        role: Some(Role::Assistant),
        ..user(content)
    }
}

fn memory<'a>(x: &'a Extraction, needle: &str) -> &'a ExtractedMemory {
    x.memories
        .iter()
        .find(|m| m.summary.contains(needle))
        .unwrap_or_else(|| panic!("no memory with {needle:?} in {:?}", x.memories))
}

#[test]
fn nickname_yields_pkg_and_a_profile_memory() {
    let x = run("以后叫我阿澈就好");
    assert_eq!(
        x.pkg_updates,
        vec![PkgUpdate {
            key: "Nickname".into(),
            value: serde_json::json!(["阿澈"])
        }]
    );
    let m = memory(&x, "阿澈");
    assert_eq!(
        (m.summary.as_str(), m.memory_type),
        ("用户喜欢被叫阿澈", MemoryType::Profile)
    );
}

#[test]
fn assistant_turns_state_no_facts_about_the_user() {
    let x = extract(
        &[assistant("叫我小助手就好，我喜欢下棋。My name is Hippo.")],
        today(),
    );
    assert_eq!(x, Extraction::default());
}

#[test]
fn importance_follows_the_signal_table() {
    let remember = memory(&run("Remember that I'm allergic to peanuts."), "peanuts").importance;
    let constraint = memory(&run("I'm allergic to peanuts."), "peanuts").importance;
    let deadline = memory(&run("明天下午三点看牙医"), "看牙医").importance;
    let preference = memory(&run("我喜欢下棋"), "下棋").importance;
    let decision = memory(&run("I decided to learn Spanish."), "Spanish").importance;
    assert!(
        remember > constraint
            && constraint > deadline
            && deadline > preference
            && preference > decision
    );
    assert_eq!(remember, Signal::Remember.importance());
}

#[test]
fn feeling_raises_importance_and_leaves_a_snippet() {
    let calm = memory(&run("我下周一要去面试"), "面试").importance;
    let x = run("我下周一要去面试，特别紧张！");
    assert!(memory(&x, "面试").importance > calm);
    assert_eq!(x.emotions.len(), 1);
    assert_eq!(x.emotions[0].label, "fear");
    assert!(x.emotions[0].intensity > 0.5);
}

#[test]
fn a_strong_feeling_alone_becomes_a_history_memory() {
    let x = run("I feel really lonely tonight.");
    let m = memory(&x, "lonely");
    assert_eq!(m.memory_type, MemoryType::History);
    assert_eq!(
        m.event_time.map(|t| t.date_string()).as_deref(),
        Some("2026-04-09")
    );
}

#[test]
fn hedged_statements_are_less_trusted() {
    assert!(
        memory(&run("I think I'm allergic to shellfish."), "shellfish").confidence
            < memory(&run("I'm allergic to shellfish."), "shellfish").confidence
    );
}

#[test]
fn appointments_carry_their_time_and_resolve_against_the_turn_day() {
    let mut turn = user("明天下午三点看牙医");
    turn.ts = Timestamp::parse("2026-05-01T09:00:00Z").unwrap();
    let x = extract(&[turn], today());
    let m = memory(&x, "看牙医");
    assert_eq!(
        m.event_time.map(|t| t.to_rfc3339()).as_deref(),
        Some("2026-05-02T15:00:00.000Z")
    );
    assert_eq!(
        x.pkg_updates[0].value,
        serde_json::json!(["2026-05-02 15:00 看牙医"])
    );
}

#[test]
fn a_dated_event_names_its_subject_first() {
    // Seen failing before: "用户2026-04-09我们去爬山了".
    let x = run("今天我们去爬山了，特别开心！");
    memory(&x, "用户和同伴2026-04-09去爬山了");
    let x = run("今天我去游泳了");
    memory(&x, "用户2026-04-09去游泳了");
}

#[test]
fn repeats_across_turns_merge() {
    let x = extract(
        &[
            user("我的同学小红很可爱"),
            user("我的同学小红明天来"),
            user("我喜欢游泳"),
            user("我喜欢游泳"),
        ],
        today(),
    );
    assert_eq!(x.entity_ops.len(), 1);
    assert_eq!(
        x.memories
            .iter()
            .filter(|m| m.summary == "用户喜欢游泳")
            .count(),
        1
    );
    let friends = x
        .pkg_updates
        .iter()
        .find(|u| u.key == "Important Friends")
        .unwrap();
    assert_eq!(friends.value, serde_json::json!(["小红"]));
}

#[test]
fn passwords_are_sensitive_secret_phrases_are_not() {
    assert!(memory(&run("My password is hunter2"), "hunter2").sensitive);
    assert!(!memory(&run("我们的暗号是天王盖地虎"), "天王盖地虎").sensitive);
}

#[test]
fn a_possessive_ends_a_name() {
    let x = run("My daughter Sara's birthday is next Friday.");
    assert_eq!(x.entity_ops[0].name.as_deref(), Some("Sara"));
}

#[test]
fn encouragement_and_vague_intentions_are_not_memories() {
    assert!(run("Don't worry, you'll be fine!").memories.is_empty());
    assert!(run("Don't give up on your dreams.").memories.is_empty());
    assert!(run("I'm gonna make it happen.").memories.is_empty());
    assert!(run("You look so happy in that photo!").memories.is_empty());
}

#[test]
fn a_pin_request_pins_what_its_turn_says_and_is_no_memory_itself() {
    for said in [
        "我对花生过敏。记住这件事！",
        "记住这件事：我对花生过敏。",
        "Remember this: I'm allergic to peanuts.",
        "I'm allergic to peanuts, please remember this.",
    ] {
        let x = run(said);
        assert_eq!(x.memories.len(), 1, "{said}: {:?}", x.memories);
        let m = &x.memories[0];
        assert!(m.pinned, "{said}: {m:?}");
        assert!(m.summary.contains("花生") || m.summary.contains("peanuts"));
        assert_eq!(m.importance, Signal::Remember.importance());
    }
}

#[test]
fn only_the_turn_with_the_request_is_pinned() {
    let x = extract(
        &[user("我喜欢爬山。"), user("我对花生过敏，记住这个。")],
        today(),
    );
    assert!(!memory(&x, "爬山").pinned, "{:?}", x.memories);
    assert!(memory(&x, "花生").pinned, "{:?}", x.memories);
    // Naming a thing is not a request about the turn; a plain "remember" is not a pin.
    let song = run("Remember this song? I like jazz.");
    assert!(
        song.memories.iter().all(|m| !m.pinned),
        "{:?}",
        song.memories
    );
    let plain = run("Remember that I'm allergic to peanuts.");
    assert!(plain.memories.iter().all(|m| !m.pinned));
}
