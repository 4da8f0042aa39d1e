//! Generated memories and queries for the latency benchmark: one NPC's mixed Chinese and
//! English facts (preferences, people, plans, history), from templates and word lists with a
//! fixed-seed PRNG so every run measures the same data.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// xorshift64*.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const ZH_NAMES: &[&str] = &[
    "小红", "阿明", "老王", "李华", "张伟", "小美", "阿杰", "陈静", "王芳", "刘洋",
];
const EN_NAMES: &[&str] = &[
    "Alex", "Maria", "Tom", "Priya", "Kenji", "Sara", "Liam", "Chloe", "Omar", "Nina",
];
const ZH_FOODS: &[&str] = &[
    "火锅",
    "小笼包",
    "麻辣烫",
    "寿司",
    "牛肉面",
    "奶茶",
    "茉莉花茶",
    "烤鸭",
    "饺子",
    "拿铁",
];
const EN_FOODS: &[&str] = &[
    "ramen",
    "tacos",
    "green tea",
    "pizza",
    "dumplings",
    "espresso",
    "curry",
    "pho",
    "bagels",
    "matcha",
];
const ZH_PLACES: &[&str] = &[
    "杭州", "成都", "西湖", "北京", "上海", "大理", "厦门", "青岛", "苏州", "长沙",
];
const EN_PLACES: &[&str] = &[
    "Kyoto",
    "Lisbon",
    "the lake house",
    "Berlin",
    "Seattle",
    "the climbing gym",
    "Paris",
    "Vancouver",
    "the library",
    "Brooklyn",
];
const ZH_HOBBIES: &[&str] = &[
    "跑步",
    "摄影",
    "弹吉他",
    "画画",
    "看电影",
    "下围棋",
    "爬山",
    "读小说",
    "做饭",
    "游泳",
];
const EN_HOBBIES: &[&str] = &[
    "pottery",
    "chess",
    "rock climbing",
    "baking sourdough",
    "reading mystery novels",
    "painting",
    "cycling",
    "yoga",
    "birdwatching",
    "playing piano",
];
const ZH_TIMES: &[&str] = &[
    "昨天",
    "上周",
    "周末",
    "上个月",
    "去年",
    "今天早上",
    "前天晚上",
    "最近",
];
const EN_TIMES: &[&str] = &[
    "yesterday",
    "last week",
    "on Sunday",
    "last month",
    "last year",
    "this morning",
    "recently",
];
const ZH_FEELINGS: &[&str] = &[
    "很开心",
    "有点累",
    "压力很大",
    "特别兴奋",
    "有些紧张",
    "很放松",
];
const EN_FEELINGS: &[&str] = &[
    "excited", "tired", "stressed", "relaxed", "nervous", "proud",
];

/// One generated memory: summary and keywords.
pub fn memory(rng: &mut Rng) -> (String, Vec<String>) {
    let zh = rng.below(10) < 6;
    let (text, keywords): (String, Vec<&str>) = if zh {
        let (n, f, p, h, t, e) = (
            rng.pick(ZH_NAMES),
            rng.pick(ZH_FOODS),
            rng.pick(ZH_PLACES),
            rng.pick(ZH_HOBBIES),
            rng.pick(ZH_TIMES),
            rng.pick(ZH_FEELINGS),
        );
        match rng.below(6) {
            0 => (
                format!("用户喜欢吃{f}，尤其是{p}那家店的"),
                vec![f, "饮食", "偏好"],
            ),
            1 => (format!("用户{t}和{n}一起去{p}{h}，{e}"), vec![n, p]),
            2 => (format!("用户的朋友{n}最近在学{h}"), vec![n, h, "朋友"]),
            3 => (
                format!("用户计划{t}去{p}出差，顺便看望{n}"),
                vec![p, "出差"],
            ),
            4 => (
                format!("用户说自己{h}已经坚持三年了，每周两次"),
                vec![h, "爱好"],
            ),
            _ => (format!("用户对{f}过敏，吃了会不舒服"), vec![f, "过敏"]),
        }
    } else {
        let (n, f, p, h, t, e) = (
            rng.pick(EN_NAMES),
            rng.pick(EN_FOODS),
            rng.pick(EN_PLACES),
            rng.pick(EN_HOBBIES),
            rng.pick(EN_TIMES),
            rng.pick(EN_FEELINGS),
        );
        match rng.below(6) {
            0 => (
                format!("The user loves {f} and orders it whenever they visit {p}"),
                vec![f, "food"],
            ),
            1 => (
                format!("The user went to {p} with {n} {t} and felt {e}"),
                vec![n, p],
            ),
            2 => (
                format!("{n} is the user's colleague who is into {h}"),
                vec![n, "colleague"],
            ),
            3 => (
                format!("The user is planning a trip to {p} to see {n} {t}"),
                vec![p, "trip"],
            ),
            4 => (
                format!(
                    "The user has been {h} every weekend to relax; 用户说这让他{}",
                    rng.pick(ZH_FEELINGS)
                ),
                vec![h, "hobby"],
            ),
            _ => (
                format!("The user prefers short answers and hates long explanations about {h}"),
                vec!["style"],
            ),
        }
    };
    (text, keywords.into_iter().map(str::to_string).collect())
}

/// A question a user might ask about such memories.
pub fn query(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => format!("我喜欢吃什么？{}还记得吗", rng.pick(ZH_FOODS)),
        1 => format!("我{}和谁去了{}", rng.pick(ZH_TIMES), rng.pick(ZH_PLACES)),
        2 => format!("{}最近在忙什么", rng.pick(ZH_NAMES)),
        3 => "我对什么过敏".to_string(),
        4 => format!("What do I like to eat at {}?", rng.pick(EN_PLACES)),
        5 => format!(
            "Who did I go to {} with {}?",
            rng.pick(EN_PLACES),
            rng.pick(EN_TIMES)
        ),
        6 => format!("What is {} into these days?", rng.pick(EN_NAMES)),
        _ => format!("我的爱好{}是多久开始的 hobby", rng.pick(ZH_HOBBIES)),
    }
}

/// A memory as `add_memories` takes it: the text and keywords, everything else defaulted.
pub fn input(
    summary: String,
    keywords: Vec<String>,
    memory_type: hippo::memory::MemoryType,
) -> hippo::memory::MemoryInput {
    hippo::memory::MemoryInput {
        summary,
        memory_type: memory_type.as_str().to_string(),
        keywords,
        confidence: None,
        importance: None,
        source: None,
        event_time: None,
        expires_at: None,
        sensitive: false,
        sensitive_category: None,
        pinned: false,
    }
}

/// Instant every latency benchmark measures at (a fixed clock: strengths and time words
/// resolve the same in every run).
pub const NOW: &str = "2026-04-08T12:00:00Z";
/// The NPC the latency benchmarks import.
pub const NPCID: &str = "bench";

/// The NPC of the latency benchmarks at `size` memories, as an export document, and
/// `queries` questions. `hippo-bench latency` and `make bench-npm` draw the same document
/// (same seed, same order). Besides the memories it holds what a lived-in NPC has and every
/// retrieval ranks too: PKG fields, relationship entities and two weeks of diary.
pub fn document(size: usize, queries: usize) -> (hippo::api::NpcExport, Vec<String>) {
    use hippo::api::{EXPORT_FORMAT, EXPORT_VERSION};
    use hippo::diary::{Diary, DiaryEntry};
    use hippo::memory::{Memory, MemoryType};
    use hippo::pkg::PkgValue;
    use hippo::relationship::Entity;
    use hippo::time::Timestamp;

    let now = Timestamp::parse(NOW).expect("valid");
    let mut rng = Rng::new(0x5eed + size as u64);
    let memories = (0..size)
        .map(|i| {
            let (summary, keywords) = memory(&mut rng);
            let updated_at = now.plus_days(-(rng.below(400) as i64));
            Memory {
                keywords,
                source: "long_term_memory".into(),
                ..Memory::new(
                    format!("m{i:06}"),
                    MemoryType::ALL[i % MemoryType::ALL.len()],
                    summary,
                    updated_at,
                )
            }
        })
        .collect();
    let query_texts = (0..queries).map(|_| query(&mut rng)).collect();
    let mut pkg = hippo::pkg::Pkg::new();
    pkg.insert("Name".into(), PkgValue::Text("李华".into()));
    pkg.insert("Nickname".into(), PkgValue::Text("Lee".into()));
    pkg.insert(
        "Hobbies".into(),
        PkgValue::List(ZH_HOBBIES.iter().take(4).map(|s| s.to_string()).collect()),
    );
    pkg.insert(
        "Favorite Food".into(),
        PkgValue::Text(format!("{}, {}", ZH_FOODS[0], EN_FOODS[2])),
    );
    pkg.insert(
        "Occupation".into(),
        PkgValue::Text("software engineer".into()),
    );
    let relationship = ZH_NAMES
        .iter()
        .chain(EN_NAMES)
        .enumerate()
        .map(|(i, name)| {
            let entity = Entity {
                name: name.to_string(),
                alias: Vec::new(),
                title: vec![["friend", "colleague", "cousin"][i % 3].to_string()],
                remark: format!("met in {}", EN_PLACES[i % EN_PLACES.len()]),
                source_turns: Vec::new(),
            };
            (format!("entity_{:03}", i + 1), entity)
        })
        .collect();
    let dailies = (1..=14)
        .map(|d| DiaryEntry {
            date: now.plus_days(-d).date_string(),
            summary: format!(
                "聊了{}和{}，the user talked about {}",
                ZH_FOODS[d as usize % ZH_FOODS.len()],
                ZH_PLACES[d as usize % ZH_PLACES.len()],
                EN_HOBBIES[d as usize % EN_HOBBIES.len()]
            ),
        })
        .collect();
    let document = hippo::api::NpcExport {
        format: EXPORT_FORMAT.into(),
        version: EXPORT_VERSION,
        npc: hippo::npc::Npc::new(NPCID, now),
        pkg,
        pkg_source_turns: Default::default(),
        relationship,
        diary: Diary {
            prior: String::new(),
            dailies,
        },
        turns: Vec::new(),
        memories,
    };
    (document, query_texts)
}
