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

/// Panics when `said` yields a memory of type `kind`.
fn assert_no_memory_of(said: &str, kind: MemoryType) {
    let x = run(said);
    assert!(
        x.memories.iter().all(|m| m.memory_type != kind),
        "{said}: {:?}",
        x.memories
    );
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

/// `(name, titles)` of the entities found.
fn people(x: &Extraction) -> Vec<(String, Vec<String>)> {
    x.entity_ops
        .iter()
        .map(|e| {
            (
                e.name.clone().unwrap_or_default(),
                e.title.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn pkg_items(x: &Extraction, key: &str) -> Vec<String> {
    x.pkg_updates
        .iter()
        .filter(|u| u.key == key)
        .flat_map(|u| match &u.value {
            serde_json::Value::Array(items) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            v => vec![v.as_str().unwrap_or_default().to_string()],
        })
        .collect()
}

#[test]
fn chinese_people_named_in_the_common_relation_forms() {
    for (text, name, title) in [
        // A relation word opening a clause names the user's own.
        ("邻居老周昨天帮我修了水管", "老周", "邻居"),
        // "X是我最好的…": modifiers between 是我 and the relation.
        ("阿明是我最好的哥们", "阿明", "哥们"),
        // A possessive chain that opens with 我.
        ("我舅妈家的表弟叫小东", "小东", "表弟"),
        ("我们公司的小赵人很好", "小赵", "同事"),
        // A doubled given name, and a prefixed name one character long.
        ("我妹妹豆豆考上大学了", "豆豆", "妹妹"),
        ("我教练老孙让我多练腿", "老孙", "教练"),
    ] {
        let x = run(text);
        assert!(
            people(&x).contains(&(name.into(), vec![title.into()])),
            "{text}: {:?}",
            people(&x)
        );
    }
    // The classmate's mother is not the user's.
    let x = run("我同学的妈妈是医生");
    assert!(
        !people(&x).iter().any(|(n, _)| n == "妈妈"),
        "{:?}",
        people(&x)
    );
}

#[test]
fn reminders_and_reported_plans_are_not_appointments() {
    // An everyday to-do is a dated project memory, not an important appointment.
    let x = run("明天提醒我取快递");
    assert!(pkg_items(&x, "Important Appointments").is_empty());
    assert_eq!(memory(&x, "快递").memory_type, MemoryType::Project);
    let x = run("remind me to buy milk tomorrow");
    assert!(pkg_items(&x, "Important Appointments").is_empty());
    for chore in [
        "I still need to fix the bike tomorrow.",
        "明天还得修自行车。",
    ] {
        let x = run(chore);
        assert!(
            pkg_items(&x, "Important Appointments").is_empty(),
            "{chore}: {x:?}"
        );
        assert!(
            x.memories
                .iter()
                .any(|m| m.memory_type == MemoryType::Project),
            "{chore}"
        );
    }
    // A reminder about a real appointment is still one.
    let x = run("remind me about my dentist appointment tomorrow");
    assert_eq!(pkg_items(&x, "Important Appointments").len(), 1);
    // Someone else's plan, reported.
    let x = run("小周说她周六要去看画展");
    assert!(x.pkg_updates.is_empty() && x.memories.is_empty(), "{x:?}");
}

#[test]
fn events_done_today_or_last_week_are_dated_history() {
    let x = run("今天被房东催房租了");
    let m = memory(&x, "房东");
    assert_eq!(m.memory_type, MemoryType::History);
    let x = run("上周三我去面试了");
    let m = memory(&x, "面试");
    assert_eq!(m.memory_type, MemoryType::History);
    assert_eq!(
        m.event_time.map(|t| t.date()),
        NaiveDate::from_ymd_opt(2026, 4, 1)
    );
    // A year is no event date.
    let x = run("我女儿叫乐乐，今年三岁了");
    assert!(x
        .memories
        .iter()
        .all(|m| m.memory_type != MemoryType::History));
}

#[test]
fn fears_studies_and_called_names() {
    assert_eq!(
        memory(&run("我超级怕蛇"), "怕蛇").memory_type,
        MemoryType::Profile
    );
    let x = run("别叫我小朋友");
    let m = memory(&x, "小朋友");
    assert_eq!(m.memory_type, MemoryType::Preference);
    let x = run("please don't call me buddy");
    let m = memory(&x, "buddy");
    assert_eq!(m.memory_type, MemoryType::Preference);
    assert!(!m.summary.contains(" me "), "{}", m.summary);
}

#[test]
fn english_ages_past_likings_and_every_fact_of_a_sentence() {
    assert!(memory(&run("I'm 41 now"), "41")
        .summary
        .contains("years old"));
    let x = run("I used to like jazz");
    let m = memory(&x, "jazz");
    assert!(m.summary.contains("used to"), "{}", m.summary);
    let x = run("I can't stand loud music");
    assert!(memory(&x, "loud music").summary.contains("can't stand"));
    assert_eq!(
        memory(&run("I'm afraid of heights"), "heights").memory_type,
        MemoryType::Profile
    );
    let x = run("pls stop calling me champ");
    assert_eq!(memory(&x, "champ").memory_type, MemoryType::Preference);
    let x = run("I was born in Lyon and I live in Paris");
    memory(&x, "Lyon");
    memory(&x, "Paris");
}

#[test]
fn a_feeling_of_today_is_the_day_not_an_appointment() {
    // Was an `Important Appointments` item "今天 非常开心" and a project memory.
    let e = extract(
        &[user("我今天非常开心，一直在和朋友们一起踢足球！")],
        today(),
    );
    assert!(
        e.pkg_updates
            .iter()
            .all(|u| u.key != "Important Appointments"),
        "{:?}",
        e.pkg_updates
    );
    let m = e
        .memories
        .iter()
        .find(|m| m.summary.contains("踢足球"))
        .expect("the day is remembered");
    assert_eq!(m.memory_type, MemoryType::History, "{m:?}");
    // A plan for today with a feeling about it is still a plan.
    let plan = extract(&[user("今天晚上要去看演唱会，好开心！")], today());
    assert!(
        plan.memories
            .iter()
            .any(|m| m.memory_type == MemoryType::Project),
        "{:?}",
        plan.memories
    );
}

#[test]
fn news_of_someone_close_is_a_history_memory_beside_the_relation() {
    for (said, news) in [
        ("我老婆小雅怀孕了！", "用户老婆小雅怀孕了"),
        ("我外婆今年九十岁了，身体还很硬朗", "用户外婆今年九十岁了"),
        ("我室友阿杰天天打游戏到凌晨三点", "阿杰天天打游戏"),
        (
            "my brother Tom just got engaged!!",
            "The user's brother Tom just got engaged",
        ),
        (
            "My coworker Raj keeps taking credit for my work",
            "Raj keeps taking credit",
        ),
    ] {
        let x = run(said);
        let m = memory(&x, news);
        assert_eq!(m.memory_type, MemoryType::History, "{said}");
        assert_eq!(m.event_time, Some(Timestamp::from_date(today())), "{said}");
        assert!(
            x.memories
                .iter()
                .any(|m| m.memory_type == MemoryType::Relationship)
                || !x.entity_ops.is_empty(),
            "{said}: the person is still recorded"
        );
    }
    // Who someone is, what they are like, or a plan of theirs is not news.
    for said in [
        "my sister Anna is a nurse",
        "Anna is my sister",
        "我妈妈做饭特别好吃",
        "小红是我的同学",
        "My college roommate Ben is visiting next weekend",
    ] {
        assert_no_memory_of(said, MemoryType::History);
    }
}

#[test]
fn jobs_upbringing_fears_traits_goals_and_birthdays_said_in_everyday_words() {
    for (said, summary, kind) in [
        (
            "我在一家互联网公司做运营",
            "用户在一家互联网公司做运营",
            MemoryType::Profile,
        ),
        ("我小时候在农村长大", "用户在农村长大", MemoryType::Profile),
        ("我有点恐高，不敢坐过山车", "用户恐高", MemoryType::Profile),
        (
            "I'm a night owl, usually up till 2am",
            "The user is a night owl",
            MemoryType::Profile,
        ),
        ("my birthday's on June 2nd", "June 2nd", MemoryType::Profile),
        (
            "I'm trying to cut back on caffeine",
            "The user is trying to cut back on caffeine",
            MemoryType::Project,
        ),
    ] {
        let x = run(said);
        let m = memory(&x, summary);
        assert_eq!(m.memory_type, kind, "{said}: {:?}", x.memories);
    }
    // A workplace is needed before 做: "我在家做饭" is no job.
    assert!(run("我在家做饭").memories.is_empty());
}

#[test]
fn what_the_user_is_into_these_days_and_habits_without_a_known_pastime() {
    let x = run("I've been watching Severance lately and it's wild");
    assert_eq!(pkg_items(&x, "Entertainment and Leisure"), ["Severance"]);
    assert_eq!(memory(&x, "Severance").memory_type, MemoryType::Preference);
    let x = run("我最近在追《漫长的季节》，太好看了");
    assert_eq!(pkg_items(&x, "Entertainment and Leisure"), ["漫长的季节"]);
    assert_eq!(memory(&x, "漫长的季节").memory_type, MemoryType::Preference);
    // Neither a title nor a pastime: nothing the user is into.
    assert!(run("I'm watching my weight these days")
        .pkg_updates
        .is_empty());
    // The pastime, not where or how often it is done.
    let x = run("I play piano at church every Sunday");
    assert_eq!(pkg_items(&x, "Hobbies"), ["piano"]);
    let x = run("I've been into running, like 4x a week");
    assert_eq!(pkg_items(&x, "Hobbies"), ["running"]);
    // A job said after where and when.
    let x = run("I work weekends at a bakery as a cashier");
    assert_eq!(
        memory(&x, "works as a cashier").memory_type,
        MemoryType::Profile
    );
    // A habit of the user's with no known pastime is a preference, without a PKG item; a
    // habit of someone the user names is not the user's.
    let x = run("我平时都在公司食堂吃午饭");
    assert_eq!(memory(&x, "食堂").memory_type, MemoryType::Preference);
    assert!(x.pkg_updates.is_empty());
    assert_no_memory_of("我的同事老张经常开会迟到", MemoryType::Preference);
}

#[test]
fn an_appointment_said_with_so_as_an_intensifier_keeps_what_is_planned() {
    // "so" also ends a clause ("…, so I stayed in"); cut there the plan was just "I'm".
    let x = run("I'm so nervous about my interview on Friday");
    let items = pkg_items(&x, "Important Appointments");
    assert!(
        items.len() == 1 && items[0].starts_with("2026-04-10") && items[0].contains("interview"),
        "{items:?}"
    );
}

#[test]
fn chinese_everyday_forms_people_idols_things_stopped_and_plans_without_a_subject() {
    // The one the user did something with is theirs, and the news is kept.
    let x = run("我跟老公吵架了，心情很差");
    assert!(
        x.entity_ops
            .iter()
            .any(|e| e.name.as_deref() == Some("老公")),
        "{x:?}"
    );
    assert_eq!(memory(&x, "吵架").memory_type, MemoryType::History);
    // …unless the news ends the relation.
    let x = run("我和女朋友分手了");
    assert!(x.entity_ops.is_empty(), "{:?}", x.entity_ops);
    // What someone made is the liked thing.
    let x = run("我最爱她做的红烧肉");
    assert_eq!(memory(&x, "红烧肉").memory_type, MemoryType::Preference);
    let x = run("我的偶像是周杰伦，听他的歌长大的");
    assert_eq!(memory(&x, "周杰伦").memory_type, MemoryType::Preference);
    // Stopped doing: a preference that says so.
    let x = run("我已经不打篮球了，膝盖不好");
    let m = memory(&x, "不打篮球");
    assert_eq!(m.memory_type, MemoryType::Preference);
    // A plan after a time word, with the subject dropped, is the user's.
    let x = run("下周打算去杭州出差");
    let m = memory(&x, "杭州");
    assert_eq!(m.memory_type, MemoryType::Project);
    assert_eq!(
        m.event_time.map(|t| t.date().to_string()).as_deref(),
        Some("2026-04-13")
    );
}

#[test]
fn a_chinese_liking_said_with_when_and_a_pastime_inside_what_is_liked() {
    // A time word between 我 and 喜欢 still makes the liking the user's.
    let x = run("我晚上喜欢去江边散步");
    assert_eq!(memory(&x, "散步").memory_type, MemoryType::Preference);
    // The known pastime inside a longer liked thing is the hobby.
    let x = run("我喜欢周末去书店看书");
    assert_eq!(pkg_items(&x, "Hobbies"), ["看书"]);
    // A habit names its pastime in the memory, not only in the keywords.
    let x = run("我平时午休的时候都会看一会儿书");
    assert_eq!(memory(&x, "看书").memory_type, MemoryType::Preference);
}

/// Panics unless `said` yields a memory of type `kind` whose summary holds every one of `terms`.
fn assert_memory(said: &str, kind: MemoryType, terms: &[&str]) {
    let x = run(said);
    assert!(
        x.memories
            .iter()
            .any(|m| m.memory_type == kind && terms.iter().all(|t| m.summary.contains(t))),
        "{said}: no {kind:?} with {terms:?} in {:?}",
        x.memories
    );
}

#[test]
fn chinese_sentences_without_a_subject_are_the_users() {
    // "吉他" holds a 他 that is nobody.
    let x = run("最近在学吉他，手指头都磨破了哈哈");
    assert_eq!(pkg_items(&x, "Hobbies"), vec!["吉他"]);
    memory(&x, "吉他");
    assert_memory("前天手机丢了，烦死了", MemoryType::History, &["手机"]);
    // A feeling with no subject and no date is not kept on its own: measured, such memories
    // crowd answers end to end (docs/BENCHMARKS.md, "fifth round").
    assert_no_memory_of(
        "工作好累，每天都加班到十点，感觉快撑不住了",
        MemoryType::History,
    );
    assert_memory(
        "我今天心情特别差，因为考试没考好",
        MemoryType::History,
        &["考试"],
    );
    // Someone else's doing to the user is no habit of theirs.
    assert_no_memory_of("他老是让我周末加班", MemoryType::Preference);
}

#[test]
fn chinese_profile_in_everyday_words() {
    assert_memory(
        "我是做设计的，在一家广告公司上班",
        MemoryType::Profile,
        &["设计"],
    );
    assert_memory("我今年27了，属牛的", MemoryType::Profile, &["27"]);
    assert_memory("我还在读高三，天天刷题", MemoryType::Profile, &["高三"]);
    assert_memory("我刚搬到深圳，还不太习惯", MemoryType::Profile, &["深圳"]);
    assert_memory(
        "我比较内向，不太喜欢人多的地方",
        MemoryType::Profile,
        &["内向"],
    );
    assert_memory("我不会游泳", MemoryType::Profile, &["不会游泳"]);
    assert_memory(
        "我乳糖不耐受，喝牛奶会拉肚子",
        MemoryType::Constraint,
        &["乳糖"],
    );
    assert_memory("我戒烟三个月了！", MemoryType::Profile, &["戒烟"]);
    assert_memory("我才不喜欢吃甜的呢", MemoryType::Preference, &["甜", "不"]);
    // What happens without it is not what is off the table.
    assert_no_memory_of("我每天都要喝一杯美式，不喝就没精神", MemoryType::Constraint);
    // "我宅在家里" is where, not who.
    assert!(run("我宅在家里看书")
        .memories
        .iter()
        .all(|m| m.summary != "用户宅"));
}

#[test]
fn chinese_fans_idols_wishes_and_plans_with_their_day() {
    let x = run("我是湖人的球迷，詹姆斯是我偶像");
    assert_eq!(pkg_items(&x, "Favorite Sports"), vec!["湖人"]);
    memory(&x, "湖人的球迷");
    memory(&x, "偶像是詹姆斯");
    assert_memory("其实我一直想去冰岛看极光", MemoryType::Project, &["冰岛"]);
    // A bare "我想去…" is the next minute, not a wish.
    assert_no_memory_of("我想去吃饭", MemoryType::Project);
    assert_memory("我在考虑要不要养只猫", MemoryType::Project, &["猫"]);
    let x = run("五一打算跟闺蜜去厦门玩");
    let appointments = pkg_items(&x, "Important Appointments");
    assert!(
        appointments
            .iter()
            .any(|a| a.starts_with("2026-05-01") && a.contains("厦门")),
        "{appointments:?}"
    );
    // A plan for a month is not yet an appointment.
    let x = run("我打算下个月换工作");
    assert!(pkg_items(&x, "Important Appointments").is_empty());
    memory(&x, "换工作");
}

#[test]
fn chinese_relations_by_where_they_are_from_and_nephews() {
    let x = run("我大学室友王磊下个月结婚，请我当伴郎");
    assert_eq!(pkg_items(&x, "Important Friends"), vec!["王磊"]);
    let x = run("我们家狗狗豆豆昨天生病了");
    assert!(x
        .entity_ops
        .iter()
        .any(|e| e.name.as_deref() == Some("豆豆")));
    let x = run("我侄子下周末满月");
    assert!(x
        .entity_ops
        .iter()
        .any(|e| e.name.as_deref() == Some("侄子")));
}

#[test]
fn asking_for_help_to_remember_is_a_request() {
    let x = run("你帮我记一下，我的车停在B2层C区");
    let m = memory(&x, "B2");
    assert!(m.pinned || m.importance >= Signal::Remember.importance());
}

#[test]
fn an_outing_told_as_done_is_history_not_a_plan() {
    // A MADial memory: the New Year party was read as the next one, a plan to ask about.
    for said in [
        "在元旦晚会上，我和同班同学们一起制作了彩纸灯笼和剪纸，感到非常开心。",
        "周六我们去爬山了，好累。",
        "I went hiking on Saturday with my sister.",
    ] {
        let x = run(said);
        assert!(
            x.memories
                .iter()
                .all(|m| m.memory_type != MemoryType::Project),
            "{said}: {:?}",
            x.memories
        );
        let m = x
            .memories
            .iter()
            .find(|m| m.memory_type == MemoryType::History)
            .unwrap_or_else(|| panic!("{said}: {:?}", x.memories));
        assert!(m.event_time.is_some_and(|t| t.date() < today()), "{m:?}");
        let diary = crate::dream::summarize::summarize_day(&[user(said)], None, 300);
        assert!(
            !diary.contains("到时候") && !diary.contains("I'll ask"),
            "{diary}"
        );
    }
    // Told on the holiday itself, with the date's clause saying nothing of it being done
    // (and "晚会" holding a 会 of the future).
    let new_year = NaiveDate::from_ymd_opt(2022, 1, 1).unwrap();
    let said = "在元旦晚会上，Bart和同班同学们一起制作了彩纸灯笼和剪纸，感到非常开心。";
    let x = extract(&[user(said)], new_year);
    assert!(
        x.memories
            .iter()
            .any(|m| m.memory_type == MemoryType::History && m.summary.contains("彩纸灯笼")),
        "{:?}",
        x.memories
    );
    assert!(x
        .memories
        .iter()
        .all(|m| m.memory_type != MemoryType::Project));
}

#[test]
fn parents_said_together_are_two_relations_of_the_user() {
    // "爸爸妈妈" was 爸爸 named 妈妈: "妈妈是用户的爸爸".
    for (said, pair) in [
        ("爸爸妈妈带我去了动物园", ["爸爸", "妈妈"]),
        ("我爸爸妈妈都是老师", ["爸爸", "妈妈"]),
        ("爷爷奶奶来看我了", ["爷爷", "奶奶"]),
    ] {
        let x = run(said);
        let names: Vec<_> = x.entity_ops.iter().filter_map(|e| e.name.clone()).collect();
        assert_eq!(names, pair, "{said}: {:?}", x.entity_ops);
        for e in &x.entity_ops {
            assert_eq!(
                e.title.as_deref(),
                Some(&[e.name.clone().unwrap()][..]),
                "{e:?}"
            );
        }
        assert!(
            x.memories.iter().all(|m| !m.summary.contains("是用户的")),
            "{said}: {:?}",
            x.memories
        );
    }
    // A relation opening a clause with a name is still that person.
    let x = run("表哥Oliver来看我了");
    assert_eq!(x.entity_ops[0].name.as_deref(), Some("Oliver"));
}

#[test]
fn a_long_english_word_is_kept_whole_as_a_keyword() {
    // Keywords were cut at 12 characters, so "infrastructure" was kept as "infrastructu":
    // not a word in the diary's topics ("Talked with John today about … infrastructu"), and
    // no longer the term the word in a question becomes.
    let x = run("I decided to run for office again to fix our city's infrastructure.");
    let m = memory(&x, "infrastructure");
    assert!(
        m.keywords.iter().any(|k| k == "infrastructure"),
        "{:?}",
        m.keywords
    );
    assert!(m.keywords.iter().all(|k| !k.is_empty() && k.len() <= 64));
    // A run of Chinese is still cut: a clause is no keyword.
    assert_eq!(
        keywords_of("用户说周末和朋友们一起去海边冲浪还有潜水"),
        ["用户说周末和朋友们一起去"]
    );
}

#[test]
fn keywords_are_content_words() {
    // "Here's a pic from when we met up" had the keywords "Here", "from" and "when": function
    // words, which no question's terms match, shown in the diary's topics ("… about wanted,
    // transitioning, Here and school").
    let keywords = keywords_of("Here's a pic from when we met up at the lake");
    assert_eq!(keywords, ["lake"]);
    let keywords = keywords_of("The user wanted to tell you about their school event");
    for function_word in ["about", "their"] {
        assert!(!keywords.iter().any(|k| k == function_word), "{keywords:?}");
    }
}
