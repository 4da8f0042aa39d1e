//! The detector's word lists, and [`Matcher`]: every list searched in one pass over a text.
//!
//! Each list is one `|`-separated string (one word a line here, joined by `concat!`): an
//! array of `&str` would add 8 bytes of pointer and length per word to the wasm builds, which
//! compress badly (the npm package has a 600 KiB gzip budget). [`in_list`] looks a word up.

use super::Category;
use std::sync::OnceLock;

/// What a trigger needs after it to be a disclosure.
#[derive(Clone, Copy)]
pub(super) enum Want {
    /// "password is X": a connector, then a token that is not an ordinary word.
    SecretEn,
    /// "login: X": like [`Want::SecretEn`], and the value holds a digit or a symbol.
    SecretEnStrict,
    /// "密码是X": a connector, then a value with Latin letters, digits or Chinese numerals.
    SecretZh,
    /// At least this many digits.
    Digits(usize),
    /// [`Want::Digits`] told as the trigger's value, after a trigger that is often public (a
    /// bare "code": `rules::a_secret_code`).
    ToldDigits(usize),
    /// A token of six or more letters and digits, with a digit (passport E12345678).
    IdToken,
    /// A sum of money.
    Amount,
    /// A house number (English: any digit; Chinese: 号, 栋, 单元, 室 …).
    Place,
    /// A messenger id: `@name`, or five or more characters with a digit or `_`.
    Handle,
    /// A social network's handle: `@name`, or five or more letters, digits, `_` and `#` (Discord's
    /// `name#1234`) that start with a letter and hold a digit, `_` or `#`. Not a measurement or a
    /// year after the network's name ("Instagram recommends 1080px", "Twitter in 2015-2021"),
    /// nor a link's path ("discord.com/hc/en-us/articles/3600…").
    SocialHandle,
}

pub(super) struct KeywordRule {
    pub category: Category,
    /// Trigger words, `|`-separated.
    pub words: &'static str,
    pub want: Want,
}

pub(super) const KEYWORD_RULES: &[KeywordRule] = &[
    KeywordRule {
        category: Category::Credentials,
        words: concat!(
            "password|",
            "passwords|",
            "passwd|",
            "pwd|",
            "passcode|",
            "passphrase|",
            "pass phrase|",
            "wifi key|",
            "seed phrase|",
            "recovery phrase|",
            "mnemonic phrase|",
            "api key|",
            "api token|",
            "access token|",
            "auth token|",
            "bearer token|",
            "secret key|",
            "private key"
        ),
        want: Want::SecretEn,
    },
    KeywordRule {
        category: Category::Credentials,
        words: concat!(
            "login|",
            "log-in|",
            "credentials|",
            "username and password|",
            "user name and password"
        ),
        want: Want::SecretEnStrict,
    },
    KeywordRule {
        category: Category::Credentials,
        words: concat!("密码|", "密钥|", "秘钥|", "助记词"),
        want: Want::SecretZh,
    },
    KeywordRule {
        category: Category::Credentials,
        words: concat!(
            "pin|",
            "pin code|",
            "pin number|",
            "security code|",
            "verification code|",
            "one-time code|",
            "one time code|",
            "otp|",
            "cvv|",
            "cvc|",
            "door code|",
            "gate code|",
            "alarm code|",
            "unlock code|",
            "lock code|",
            "safe combination|",
            "lock combination|",
            "recovery code|",
            "backup code|",
            "combination|",
            "验证码|",
            "pin码|",
            "门禁码|",
            "安全码"
        ),
        want: Want::Digits(3),
    },
    KeywordRule {
        category: Category::Credentials,
        words: "code",
        want: Want::ToldDigits(3),
    },
    KeywordRule {
        category: Category::GovernmentId,
        words: concat!(
            "ssn|",
            "social security number|",
            "social security no|",
            "passport number|",
            "passport no|",
            "passport #|",
            "driver's license number|",
            "drivers license number|",
            "driver license number|",
            "driving licence number|",
            "driver's license|",
            "drivers license|",
            "driving licence|",
            "license number|",
            "licence number|",
            "national id|",
            "id number|",
            "id card number|",
            "tax id|",
            "national insurance number|",
            "身份证号码|",
            "身份证号|",
            "身份证|",
            "护照号码|",
            "护照号|",
            "护照|",
            "驾驶证号|",
            "驾照号|",
            "社保卡号|",
            "社保号|",
            "医保卡号"
        ),
        want: Want::IdToken,
    },
    KeywordRule {
        category: Category::Finance,
        words: concat!(
            "bank account|",
            "account number|",
            "account no|",
            "routing number|",
            "sort code|",
            "iban|",
            "card number|",
            "credit card|",
            "debit card|",
            "bank card"
        ),
        want: Want::Digits(6),
    },
    KeywordRule {
        category: Category::Finance,
        words: concat!(
            "银行卡号|",
            "银行卡|",
            "银行账号|",
            "银行账户|",
            "卡号|",
            "账号|",
            "账户|",
            "信用卡"
        ),
        want: Want::Digits(8),
    },
    KeywordRule {
        category: Category::Finance,
        words: concat!(
            "salary|",
            "income|",
            "i make|",
            "i earn|",
            "paycheck|",
            "wage|",
            "wages|",
            "i owe|",
            "owe|",
            "owes|",
            "debt|",
            "debts|",
            "mortgage|",
            "loan|",
            "loans|",
            "net worth|",
            "savings|",
            "工资|",
            "月薪|",
            "年薪|",
            "薪水|",
            "薪资|",
            "收入|",
            "存款|",
            "存了|",
            "积蓄|",
            "到手|",
            "税后|",
            "税前|",
            "欠|",
            "负债|",
            "贷款|",
            "房贷|",
            "车贷|",
            "网贷|",
            "欠款|",
            "外债"
        ),
        want: Want::Amount,
    },
    KeywordRule {
        category: Category::Finance,
        words: concat!("my credit score|", "信用分|", "芝麻分"),
        want: Want::Digits(3),
    },
    KeywordRule {
        category: Category::PreciseLocation,
        words: concat!(
            "my address|",
            "home address|",
            "mailing address|",
            "address is|",
            "i live at|",
            "we live at|",
            "live at|",
            "lives at|",
            "apartment|",
            "apt|",
            "住址|",
            "地址|",
            "门牌号|",
            "家住|",
            "我家在|",
            "住在"
        ),
        want: Want::Place,
    },
    KeywordRule {
        category: Category::Contact,
        words: concat!(
            "phone number|",
            "phone no|",
            "cell number|",
            "mobile number|",
            "my number|",
            "call me at|",
            "text me at|",
            "reach me at|",
            "call me on|",
            "text me on|",
            "reach me on|",
            "my cell|",
            "my mobile|",
            "whatsapp|",
            "手机号码|",
            "手机号|",
            "手机|",
            "电话号码|",
            "电话|",
            "qq号|",
            "qq"
        ),
        want: Want::Digits(5),
    },
    KeywordRule {
        category: Category::Contact,
        words: concat!("微信号|", "微信|", "wechat id|", "wechat"),
        want: Want::Handle,
    },
    KeywordRule {
        category: Category::Contact,
        words: concat!(
            "insta|",
            "instagram|",
            "twitter|",
            "tiktok|",
            "snapchat|",
            "telegram|",
            "discord"
        ),
        want: Want::SocialHandle,
    },
];

/// Kinds of code that are public, said right before "code" (see `rules::a_secret_code`).
pub(super) const PUBLIC_CODE_KINDS: &str = concat!(
    "zip|",
    "postal|",
    "post|",
    "area|",
    "country|",
    "dialing|",
    "status|",
    "error|",
    "exit|",
    "return|",
    "response|",
    "http|",
    "hex|",
    "color|",
    "colour|",
    "source|",
    "promo|",
    "promotional|",
    "coupon|",
    "discount|",
    "referral|",
    "voucher|",
    "commodity|",
    "procedure|",
    "goods|",
    "product|",
    "tariff|",
    "customs|",
    "hs|",
    "cn|",
    "type|",
    "unit|",
    "course|",
    "class|",
    "airport|",
    "dress|",
    "qr|",
    "bar|",
    "morse|",
    "genetic|",
    "sample|",
    "example"
);

/// What follows 密码 when it names a thing, not a password: 密码箱 (a combination suitcase),
/// 密码锁, 密码学 (cryptography), 密码子 (a codon), 密码本, 密码器, 密码机, 密码盘, 密码门.
pub(super) const NOT_A_PASSWORD_AFTER: &[char] =
    &['箱', '锁', '学', '子', '本', '器', '机', '盘', '门'];

/// Words that may sit between a connector and the value ("my PIN is now 4821").
pub(super) const FILLER_WORDS: &str = concat!(
    "now|",
    "still|",
    "just|",
    "actually|",
    "literally|",
    "currently|",
    "always|",
    "simply"
);

/// Words that follow "password is" when it describes the password instead of stating it.
pub(super) const NOT_A_SECRET: &str = concat!(
    "a|",
    "an|",
    "the|",
    "too|",
    "very|",
    "so|",
    "not|",
    "no|",
    "weak|",
    "strong|",
    "wrong|",
    "incorrect|",
    "invalid|",
    "expired|",
    "safe|",
    "secure|",
    "insecure|",
    "long|",
    "short|",
    "same|",
    "different|",
    "correct|",
    "right|",
    "changed|",
    "reset|",
    "new|",
    "old|",
    "easy|",
    "hard|",
    "simple|",
    "complicated|",
    "complex|",
    "compromised|",
    "leaked|",
    "stolen|",
    "lost|",
    "forgotten|",
    "required|",
    "needed|",
    "case|",
    "what|",
    "which|",
    "something|",
    "anything|",
    "nothing|",
    "my|",
    "your|",
    "his|",
    "her|",
    "their|",
    "our|",
    "its|",
    "it|",
    "this|",
    "that|",
    "these|",
    "those|",
    "written|",
    "saved|",
    "stored|",
    "on|",
    "in|",
    "at|",
    "for|",
    "with|",
    "of|",
    "to|",
    "from|",
    "hidden|",
    "private|",
    "secret|",
    "unknown|",
    "encrypted|",
    "protected|",
    "public|",
    "shared|",
    "set|",
    "there|",
    "here|",
    "and|",
    "or|",
    "but|",
    "if|",
    "because|",
    "based|",
    "made|",
    "mine|",
    "yours|",
    "like|",
    "about|",
    "really|",
    "pretty|",
    "kinda|",
    "kind|",
    "sort|",
    "super|",
    "way|",
    "getting|",
    "being|",
    "been|",
    "due|",
    "going|",
    "also|",
    "all|",
    "ok|",
    "okay|",
    "fine|",
    "good|",
    "bad|",
    "terrible|",
    "awful|",
    "great|",
    "stupid|",
    "dumb|",
    "obvious|",
    "predictable|",
    "guessable|",
    "unique|",
    "random|",
    "numbers|",
    "letters|",
    "characters|",
    "lowercase|",
    "uppercase|",
    "empty|",
    "blank|",
    "none|",
    "null|",
    "needs|",
    "must|",
    "should|",
    "will|",
    "can|",
    "could|",
    "would|",
    "has|",
    "had|",
    "was|",
    "is|",
    "are"
);

pub(super) const ZH_CONNECTORS: &str = concat!(
    "设置成|",
    "设置为|",
    "改成|",
    "改为|",
    "设成|",
    "设为|",
    "换成|",
    "是|",
    "为|",
    "：|",
    ":|",
    "=|",
    "叫"
);

pub(super) const ZH_NUMERALS: &str = "零〇一二三四五六七八九十两幺百千";

/// Terms that are a disclosure wherever they stand.
pub(super) const STRONG_TERMS: &[(Category, &str)] = &[
    (
        Category::Health,
        concat!(
            "diagnosed with|",
            "diagnosis of|",
            "hiv|",
            "antidepressant|",
            "antidepressants|",
            "antipsychotic|",
            "antipsychotics|",
            "mood stabilizer|",
            "mood stabilizers|",
            "chemotherapy|",
            "chemo|",
            "radiation therapy|",
            "suicidal|",
            "suicide attempt|",
            "self-harm|",
            "self harm|",
            "kill myself|",
            "killing myself|",
            "end my life|",
            "cutting myself|",
            "miscarriage|",
            "miscarried|",
            "psychiatrist|",
            "psychiatric|",
            "std|",
            "stds|",
            "sti|",
            "stis|",
            "relapsed|",
            "anxiety disorder|",
            "panic disorder|",
            "eating disorder|",
            "bipolar disorder|",
            "schizophrenia|",
            "schizophrenic|",
            "anorexia|",
            "anorexic|",
            "bulimia|",
            "bulimic|",
            "leukemia|",
            "lymphoma|",
            "epilepsy|",
            "epileptic|",
            "hepatitis|",
            "multiple sclerosis|",
            "parkinson's|",
            "alzheimer's|",
            "alzheimers|",
            "borderline personality|",
            "herpes|",
            "syphilis|",
            "gonorrhea|",
            "chlamydia|",
            "sertraline|",
            "zoloft|",
            "fluoxetine|",
            "prozac|",
            "escitalopram|",
            "lexapro|",
            "citalopram|",
            "paroxetine|",
            "paxil|",
            "venlafaxine|",
            "effexor|",
            "bupropion|",
            "wellbutrin|",
            "quetiapine|",
            "seroquel|",
            "olanzapine|",
            "risperidone|",
            "aripiprazole|",
            "abilify|",
            "xanax|",
            "alprazolam|",
            "lorazepam|",
            "ativan|",
            "clonazepam|",
            "klonopin|",
            "diazepam|",
            "valium|",
            "adderall|",
            "ritalin|",
            "methylphenidate|",
            "antiretroviral|",
            "antiretrovirals|",
            "truvada|",
            "methadone|",
            "suboxone|",
            "insulin|",
            "抑郁症|",
            "抑郁障碍|",
            "抑郁倾向|",
            "安眠药|",
            "焦虑症|",
            "焦虑障碍|",
            "惊恐发作|",
            "惊恐障碍|",
            "恐慌症|",
            "双相情感障碍|",
            "双相障碍|",
            "躁郁症|",
            "精神分裂|",
            "创伤后应激|",
            "进食障碍|",
            "厌食症|",
            "暴食症|",
            "多动症|",
            "自闭症|",
            "孤独症|",
            "艾滋|",
            "性病|",
            "梅毒|",
            "淋病|",
            "尖锐湿疣|",
            "乙肝|",
            "丙肝|",
            "肝炎|",
            "癌症|",
            "肺癌|",
            "肝癌|",
            "胃癌|",
            "乳腺癌|",
            "肠癌|",
            "宫颈癌|",
            "卵巢癌|",
            "前列腺癌|",
            "胰腺癌|",
            "食道癌|",
            "食管癌|",
            "鼻咽癌|",
            "甲状腺癌|",
            "血癌|",
            "骨癌|",
            "皮肤癌|",
            "淋巴癌|",
            "白血病|",
            "淋巴瘤|",
            "肿瘤|",
            "化疗|",
            "放疗|",
            "糖尿病|",
            "癫痫|",
            "老年痴呆|",
            "阿尔茨海默|",
            "帕金森|",
            "不孕|",
            "不育|",
            "小产|",
            "打胎|",
            "堕胎|",
            "做人流|",
            "胎停|",
            "自杀|",
            "自残|",
            "轻生|",
            "割腕|",
            "精神科|",
            "心理医生|",
            "心理咨询|",
            "抗抑郁|",
            "舍曲林|",
            "氟西汀|",
            "百忧解|",
            "帕罗西汀|",
            "艾司西酞普兰|",
            "文拉法辛|",
            "安非他酮|",
            "碳酸锂|",
            "喹硫平|",
            "奥氮平|",
            "阿普唑仑|",
            "劳拉西泮|",
            "氯硝西泮|",
            "地西泮|",
            "胰岛素|",
            "戒毒|",
            "吸毒|",
            "酗酒|",
            "戒酒|",
            "确诊|",
            "诊断出|",
            "诊断为"
        ),
    ),
    (
        Category::Sexuality,
        concat!(
            "came out as|",
            "come out as|",
            "coming out as|",
            "came out to my|",
            "come out to my|",
            "coming out to my|",
            "came out of the closet|",
            "in the closet|",
            "sexual orientation|",
            "gender identity|",
            "sex life|",
            "sexual partner|",
            "sexual partners|",
            "sexually active|",
            "同性恋|",
            "双性恋|",
            "跨性别|",
            "变性|",
            "出柜|",
            "性取向|",
            "无性恋|",
            "泛性恋|",
            "性生活|",
            "性伴侣|",
            "性关系|",
            "约炮|",
            "是gay|",
            "是les|",
            "是拉拉|",
            "是弯的|",
            "是个拉拉|",
            "是个gay|",
            "是个les"
        ),
    ),
];

/// Case-sensitive terms (the lowercase forms are ordinary words: "aids", "prep").
pub(super) const STRONG_CASED_TERMS: &str = concat!("AIDS|", "PrEP");

/// 男同 / 女同 are orientation, not 男同学 (a classmate) or 女同事 (a colleague).
pub(super) const ZH_ORIENTATION_SHORT: &str = concat!("男同|", "女同");
pub(super) const ZH_ORIENTATION_NOT_AFTER: &[char] = &['学', '事', '胞', '伴', '志', '桌'];

/// What can 流产 (miscarry) besides a pregnancy: a plan, a deal, a project.
pub(super) const ZH_PLANS: &str = concat!(
    "项目|", "计划|", "方案|", "谈判|", "合作|", "交易|", "会议|", "改革|", "提案"
);

/// English health terms that are also everyday topics: a disclosure only with a person and a
/// disclosure verb in the sentence, or right after a possessive ("my depression").
pub(super) const PERSONAL_HEALTH_TERMS: &str = concat!(
    "depression|",
    "clinical depression|",
    "depressive|",
    "bipolar|",
    "ptsd|",
    "adhd|",
    "ocd|",
    "autism|",
    "autistic|",
    "panic attacks|",
    "panic attack|",
    "tumor|",
    "tumour|",
    "diabetes|",
    "diabetic|",
    "seizures|",
    "dementia|",
    "infertility|",
    "infertile|",
    "ivf|",
    "abortion|",
    "addiction|",
    "alcoholic|",
    "alcoholism|",
    "overdose|",
    "overdosed|",
    "therapist|",
    "mental illness|",
    "lithium|",
    "rehab"
);

/// Therapists of the body, said right before "therapist": not mental health.
pub(super) const BODY_THERAPISTS: &str = concat!(
    "massage|",
    "yoga|",
    "sports|",
    "physical|",
    "occupational|",
    "speech|",
    "respiratory|",
    "dental|",
    "beauty"
);

/// "… is a therapist": said of someone's job, before "a" or "an".
pub(super) const IS_A_JOB: &str = concat!(
    "i'm|", "im|", "am|", "is|", "was|", "as|", "she's|", "he's|", "become|", "became|", "be"
);

/// Matched in the original case: "Cancer" capitalized is usually the star sign.
pub(super) const PERSONAL_HEALTH_CASED: &str = "cancer";

pub(super) const PERSON_WORDS: &str = concat!(
    "i|",
    "i'm|",
    "im|",
    "i've|",
    "i'd|",
    "i'll|",
    "me|",
    "my|",
    "myself|",
    "he|",
    "he's|",
    "him|",
    "his|",
    "she|",
    "she's|",
    "her|",
    "they|",
    "they're|",
    "their|",
    "them|",
    "we|",
    "we're|",
    "our|",
    "us|",
    "you|",
    "you're|",
    "your|",
    "mom|",
    "mum|",
    "dad|",
    "mother|",
    "father|",
    "sister|",
    "brother|",
    "wife|",
    "husband|",
    "son|",
    "daughter|",
    "friend|",
    "boyfriend|",
    "girlfriend|",
    "partner|",
    "grandma|",
    "grandpa|",
    "grandmother|",
    "grandfather|",
    "aunt|",
    "uncle|",
    "cousin|",
    "kid|",
    "child|",
    "doctor"
);

pub(super) const DISCLOSURE_WORDS: &str = concat!(
    "have|",
    "has|",
    "had|",
    "having|",
    "diagnosed|",
    "suffer|",
    "suffers|",
    "suffered|",
    "suffering|",
    "struggle|",
    "struggles|",
    "struggled|",
    "struggling|",
    "living with|",
    "lives with|",
    "live with|",
    "battling|",
    "fighting|",
    "beat|",
    "survived|",
    "survivor|",
    "taking|",
    "take|",
    "takes|",
    "took|",
    "prescribed|",
    "positive|",
    "treated|",
    "treatment|",
    "recovering|",
    "recovery|",
    "relapse|",
    "relapsed|",
    "died|",
    "passed away|",
    "caught|",
    "contracted|",
    "tested|",
    "see a|",
    "seeing a|",
    "sees a|",
    "went to|",
    "going to|",
    "go to|",
    "says|",
    "said"
);

/// Health terms that are a disclosure by themselves, about someone whoever it is ("Sarah was
/// diagnosed with …").
pub(super) const HEALTH_DISCLOSURE_PHRASES: &str = "diagnosed with";

/// First words of a sentence whose subject went unsaid, as chat drops "I" ("Started chemo last
/// week", "Been on Xanax for years", "Tested positive in May"): verbs only, as a noun first
/// ("Treatment usually involves …") starts a sentence about nobody.
pub(super) const UNSAID_SUBJECT_STARTS: &str = concat!(
    "started|",
    "starting|",
    "finished|",
    "stopped|",
    "got|",
    "getting|",
    "been|",
    "was|",
    "am|",
    "just|",
    "still|",
    "on|",
    "off|",
    "currently|",
    "recently|",
    "have|",
    "has|",
    "had|",
    "having|",
    "diagnosed|",
    "suffering|",
    "struggling|",
    "living|",
    "battling|",
    "fighting|",
    "taking|",
    "took|",
    "prescribed|",
    "tested|",
    "caught|",
    "contracted|",
    "relapsed|",
    "recovering|",
    "seeing|",
    "went|",
    "came|",
    "coming"
);

pub(super) const POSSESSIVES: &str = concat!("my|", "his|", "her|", "their|", "our|", "your");

/// Orientation words: a disclosure after a copula or a possessive ("I'm gay", "my gay friend").
pub(super) const ORIENTATION_TERMS: &str = concat!(
    "gay|",
    "lesbian|",
    "bisexual|",
    "bi|",
    "homosexual|",
    "transgender|",
    "trans|",
    "pansexual|",
    "asexual|",
    "queer|",
    "non-binary|",
    "nonbinary"
);

pub(super) const ORIENTATION_LEADS: &str = concat!(
    "i'm|", "im|", "i|", "am|", "is|", "are|", "was|", "were|", "he's|", "she's|", "they're|",
    "we're|", "being|", "as|", "my|", "his|", "her|", "their|", "our"
);

pub(super) const STREET_SUFFIXES: &str = concat!(
    "street|",
    "st|",
    "road|",
    "rd|",
    "avenue|",
    "ave|",
    "boulevard|",
    "blvd|",
    "lane|",
    "ln|",
    "drive|",
    "dr|",
    "court|",
    "ct|",
    "way|",
    "place|",
    "pl|",
    "terrace|",
    "close|",
    "crescent|",
    "highway|",
    "hwy|",
    "parkway|",
    "square|",
    "sq"
);

/// Chinese street words before a house number (建国路88号).
pub(super) const ZH_STREET_CHARS: &[char] = &['路', '街', '道', '巷', '弄', '里', '村'];

/// Prefixes of API keys and tokens, with the shortest believable rest after them.
pub(super) const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 20),
    ("sk_live_", 16),
    ("sk_test_", 16),
    ("rk_live_", 16),
    ("ghp_", 20),
    ("gho_", 20),
    ("ghu_", 20),
    ("ghs_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("glpat-", 16),
    ("xoxb-", 10),
    ("xoxp-", 10),
    ("xoxa-", 10),
    ("xoxs-", 10),
    ("AIza", 30),
    ("AKIA", 16),
    ("hpo_", 64),
];

/// Words in PKG field names that make the field sensitive whatever its value.
pub(super) const KEY_WORDS: &[(Category, &str)] = &[
    (
        Category::Credentials,
        concat!(
            "password|",
            "passcode|",
            "pin|",
            "api key|",
            "密码|",
            "密钥"
        ),
    ),
    (
        Category::GovernmentId,
        concat!(
            "id number|",
            "id card|",
            "identity card|",
            "ssn|",
            "social security|",
            "passport|",
            "driver's license|",
            "drivers license|",
            "driving licence|",
            "national id|",
            "身份证|",
            "护照|",
            "驾照|",
            "驾驶证|",
            "社保"
        ),
    ),
    (
        Category::Finance,
        concat!(
            "bank|",
            "card number|",
            "credit card|",
            "account number|",
            "iban|",
            "salary|",
            "income|",
            "debt|",
            "银行|",
            "卡号|",
            "工资|",
            "收入|",
            "存款|",
            "负债|",
            "薪"
        ),
    ),
    (
        Category::Health,
        concat!(
            "health|",
            "medical|",
            "medication|",
            "medications|",
            "medicine|",
            "diagnosis|",
            "illness|",
            "disease|",
            "mental|",
            "therapy|",
            "健康|",
            "病|",
            "医疗|",
            "用药|",
            "药物|",
            "诊断|",
            "心理"
        ),
    ),
    (
        Category::Sexuality,
        concat!(
            "sexual|",
            "orientation|",
            "gender identity|",
            "性取向|",
            "性向"
        ),
    ),
    (
        Category::PreciseLocation,
        concat!("address|", "street|", "住址|", "地址|", "门牌"),
    ),
    (
        Category::Contact,
        concat!(
            "phone|", "mobile|", "email|", "e-mail|", "wechat|", "qq|", "手机|", "电话|", "邮箱|",
            "微信"
        ),
    ),
];

/// What a pattern of the one-pass search stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tag {
    /// A trigger of `KEYWORD_RULES[i]`.
    Keyword(usize),
    /// A term that is a disclosure wherever it stands.
    Strong(Category),
    /// An English health term that needs a person and a disclosure around it.
    PersonalHealth,
    /// An orientation word that needs a copula or a possessive before it.
    Orientation,
    /// 男同 / 女同 (not 男同学).
    ZhOrientationShort,
    /// 流产 (not of a plan).
    Miscarriage,
    /// [`STRONG_CASED_TERMS`], matched lowercased: a term only in its own case.
    StrongCased,
    /// [`PERSONAL_HEALTH_CASED`], matched lowercased: in its own case, it needs what
    /// [`Tag::PersonalHealth`] needs.
    PersonalHealthCased,
}

/// Many patterns searched in one pass: in buckets by their first character (ASCII by code,
/// others by code modulo [`OTHER_BUCKETS`]), so a text costs one bucket look-up per character
/// plus a comparison per pattern in it. ASCII patterns match on word boundaries, as
/// [`crate::text::find_word`] does.
pub(super) struct Matcher {
    buckets: Vec<Vec<Pattern>>,
}

/// A pattern with its first eight bytes as a number: most patterns of a bucket differ from
/// the text within them, and comparing two numbers is cheaper than comparing two strings
/// (this matcher reads every new memory's text).
#[derive(Clone)]
struct Pattern {
    text: &'static str,
    tag: Tag,
    head: u64,
    mask: u64,
}

/// The first (up to) eight bytes of `bytes` as a little-endian number, zero-padded.
fn head_of(bytes: &[u8]) -> u64 {
    let mut head = [0u8; 8];
    let n = bytes.len().min(8);
    head[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(head)
}

/// Buckets for patterns starting with a non-ASCII character (CJK, mostly).
const OTHER_BUCKETS: usize = 512;

fn bucket_of(c: char) -> usize {
    if c.is_ascii() {
        c as usize
    } else {
        128 + c as usize % OTHER_BUCKETS
    }
}

impl Matcher {
    fn new() -> Self {
        Matcher {
            buckets: vec![Vec::new(); 128 + OTHER_BUCKETS],
        }
    }

    /// Adds `|`-separated patterns.
    fn add(&mut self, patterns: &'static str, tag: Tag) {
        for pattern in patterns.split('|') {
            if let Some(first) = pattern.chars().next() {
                let n = pattern.len().min(8);
                self.buckets[bucket_of(first)].push(Pattern {
                    text: pattern,
                    tag,
                    head: head_of(pattern.as_bytes()),
                    mask: u64::MAX >> (8 * (8 - n)),
                });
            }
        }
    }

    /// Every match in `hay` (ASCII-lowercased): byte offset, pattern and tag, in text order.
    pub fn find_all(&self, hay: &str) -> Vec<(usize, &'static str, Tag)> {
        let mut out = Vec::new();
        let mut previous = ' ';
        for (i, c) in hay.char_indices() {
            // Inside a word no ASCII pattern starting with a letter or digit can begin.
            let inside_word =
                c.is_ascii_alphanumeric() && (previous.is_ascii_alphanumeric() || previous == '\'');
            previous = c;
            if inside_word {
                continue;
            }
            let rest = &hay[i..];
            let head = head_of(rest.as_bytes());
            for p in &self.buckets[bucket_of(c)] {
                if head & p.mask == p.head
                    && rest.starts_with(p.text)
                    && crate::text::is_word_at(hay, i, p.text)
                {
                    out.push((i, p.text, p.tag));
                }
            }
        }
        out
    }
}

/// The two matchers: conversation text, and PKG field names.
pub(super) struct Matchers {
    pub text: Matcher,
    pub keys: Matcher,
}

/// Built once, on first use.
pub(super) fn matchers() -> &'static Matchers {
    static MATCHERS: OnceLock<Matchers> = OnceLock::new();
    MATCHERS.get_or_init(|| {
        let mut text = Matcher::new();
        for (i, rule) in KEYWORD_RULES.iter().enumerate() {
            text.add(rule.words, Tag::Keyword(i));
        }
        for (category, words) in STRONG_TERMS {
            text.add(words, Tag::Strong(*category));
        }
        text.add(PERSONAL_HEALTH_TERMS, Tag::PersonalHealth);
        text.add(ORIENTATION_TERMS, Tag::Orientation);
        text.add(ZH_ORIENTATION_SHORT, Tag::ZhOrientationShort);
        text.add("流产", Tag::Miscarriage);
        // The case-sensitive terms are found lowercased in the same pass, then their case
        // checked (a search of the text per term was a tenth of the detector's time).
        let lowercased = |terms: &str| -> &'static str {
            Box::leak(terms.to_ascii_lowercase().into_boxed_str())
        };
        text.add(lowercased(STRONG_CASED_TERMS), Tag::StrongCased);
        text.add(lowercased(PERSONAL_HEALTH_CASED), Tag::PersonalHealthCased);
        let mut keys = Matcher::new();
        for (category, words) in KEY_WORDS {
            keys.add(words, Tag::Strong(*category));
        }
        Matchers { text, keys }
    })
}

/// Whether `word` is one of the `|`-separated `list`.
pub(super) fn in_list(list: &str, word: &str) -> bool {
    list.split('|').any(|w| w == word)
}
