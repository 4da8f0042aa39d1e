use super::material::{keep_safe_sentences, without_sensitive_sentences};
use super::rules::{is_resident_id, luhn};
use super::*;
use serde::Deserialize;

#[derive(Deserialize)]
struct Labelled {
    sensitive: Vec<Item>,
    benign: Vec<String>,
    second_sensitive: Vec<Item>,
    second_benign: Vec<String>,
    known_misses: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    text: String,
    category: Category,
    #[serde(default)]
    any_category: bool,
}

fn labelled() -> Labelled {
    serde_json::from_str(include_str!("../../tests/data/sensitivity_set.json"))
        .expect("the labelled list parses")
}

/// Precision and recall on the labelled list (tests/data/sensitivity_set.json), printed with
/// `--nocapture`; every item must be judged right.
#[test]
fn the_labelled_list_is_judged_right() {
    let list = labelled();
    let sensitive: Vec<&Item> = list
        .sensitive
        .iter()
        .chain(&list.second_sensitive)
        .collect();
    let benign: Vec<&String> = list.benign.iter().chain(&list.second_benign).collect();
    let mut missed = Vec::new();
    let mut wrong_category = Vec::new();
    for item in &sensitive {
        let found = detect(&item.text);
        if found.is_empty() {
            missed.push(item.text.as_str());
        } else if !item.any_category && !found.iter().any(|f| f.category == item.category) {
            wrong_category.push((item.text.as_str(), found[0].category));
        }
    }
    let false_alarms: Vec<(&str, Vec<Finding>)> = benign
        .iter()
        .map(|t| (t.as_str(), detect(t)))
        .filter(|(_, f)| !f.is_empty())
        .collect();
    let found_known_misses = list
        .known_misses
        .iter()
        .filter(|m| !detect(&m.text).is_empty())
        .count();
    // The known misses count against recall.
    let tp = sensitive.len() - missed.len() + found_known_misses;
    let all_sensitive = sensitive.len() + list.known_misses.len();
    let precision = tp as f64 / (tp + false_alarms.len()).max(1) as f64;
    let recall = tp as f64 / all_sensitive as f64;
    println!(
        "sensitivity detector on its own labelled lists: {all_sensitive} sensitive, {} benign; \
         precision {precision:.3}, recall {recall:.3}, wrong category {}",
        benign.len(),
        wrong_category.len()
    );
    assert!(missed.is_empty(), "missed: {missed:#?}");
    assert!(
        wrong_category.is_empty(),
        "wrong category: {wrong_category:#?}"
    );
    assert!(false_alarms.is_empty(), "false alarms: {false_alarms:#?}");
}

#[test]
fn values_are_the_secret_itself() {
    let text = "Please remember this: my password is hunter2xyz, don't tell anyone.";
    let f = &detect(text)[0];
    assert_eq!(f.category, Category::Credentials);
    assert_eq!(&text[f.value.clone().unwrap()], "hunter2xyz");
    let text = "我的银行卡密码是621345，千万别告诉别人。";
    let f = &detect(text)[0];
    assert_eq!(&text[f.value.clone().unwrap()], "621345");
    let text = "My password's \"correct horse battery staple\"";
    let f = &detect(text)[0];
    assert_eq!(
        &text[f.value.clone().unwrap()],
        "correct horse battery staple"
    );
}

#[test]
fn check_digits() {
    assert!(is_resident_id("110101199003074514"));
    assert!(!is_resident_id("110101199003074515"), "wrong check digit");
    assert!(!is_resident_id("110101199013074510"), "month 13");
    assert!(luhn("4111111111111111"));
    assert!(!luhn("4111111111111112"));
    // A number that fails its check digit is not an id on its own, only after a trigger.
    assert!(detect("号码 110101199003074515").is_empty());
    assert_eq!(
        category_of("身份证号是110101199003074515"),
        Some(Category::GovernmentId)
    );
}

#[test]
fn pkg_keys_by_kind() {
    for (key, want) in [
        ("Address", Some(Category::PreciseLocation)),
        ("Home Address", Some(Category::PreciseLocation)),
        ("ID Number", Some(Category::GovernmentId)),
        ("身份证号", Some(Category::GovernmentId)),
        ("Health", Some(Category::Health)),
        ("病史", Some(Category::Health)),
        ("Bank Account", Some(Category::Finance)),
        ("Phone", Some(Category::Contact)),
        ("Hobbies", None),
        ("Shopping", None),
        ("Hometown", None),
        ("Favorite Books", None),
        ("Nickname", None),
        ("Allergies", None),
    ] {
        assert_eq!(key_category(key), want, "{key}");
    }
}

#[test]
fn material_keeps_the_safe_sentences_of_a_turn() {
    let kept = keep_safe_sentences(&[
        "Please remember this: my password is hunter2xyz, don't tell anyone. I went hiking \
         at Mount Tai today.",
        "Got it. hunter2xyz is safe with me! How was the hike?",
        "我的银行卡密码是621345，千万别告诉别人。今天去爬山了。",
    ]);
    assert_eq!(kept[0], "I went hiking at Mount Tai today.");
    assert_eq!(kept[1], "Got it. How was the hike?", "the echo goes too");
    assert_eq!(kept[2], "今天去爬山了。");
    assert_eq!(
        without_sensitive_sentences("我去年被确诊了抑郁症。"),
        "",
        "nothing safe is left"
    );
    let plain = "I like tea. 我喜欢茶。";
    assert_eq!(without_sensitive_sentences(plain), plain);
}

#[test]
fn categories_round_trip_by_name() {
    for c in Category::ALL {
        assert_eq!(Category::parse(c.as_str()), Some(c));
        assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
    }
    assert_eq!(Category::parse("medical"), None);
}

#[test]
fn judge_never_downgrades_a_mark() {
    assert_eq!(
        judge(true, None, "I like tea"),
        Some(Category::Other),
        "an operator's mark stands"
    );
    assert_eq!(
        judge(true, Some(Category::Health), "my password is hunter2xyz"),
        Some(Category::Health)
    );
    assert_eq!(
        judge(false, None, "my password is hunter2xyz"),
        Some(Category::Credentials)
    );
    assert_eq!(judge(false, None, "I like tea"), None);
}

/// Street addresses are read over bytes: a non-ASCII character ends a word as it did when
/// characters were decoded, wherever it sits.
#[test]
fn a_street_address_beside_non_ascii_text_keeps_its_span() {
    for (text, address) in [
        ("寄到42 Elm Street吧", "42 Elm Street"),
        ("Café 7 Rue Street—thanks", "7 Rue Street"),
        (
            "住址：1600 Pennsylvania Avenue，谢谢",
            "1600 Pennsylvania Avenue",
        ),
    ] {
        let found = detect(text);
        let spans: Vec<&str> = found
            .iter()
            .filter(|f| f.category == Category::PreciseLocation)
            .map(|f| &text[f.span.clone()])
            .collect();
        assert!(spans.contains(&address), "{text}: {spans:?}");
    }
}

/// Terms that are sensitive only in their own case, found in the matcher's lowercased pass.
#[test]
fn cased_terms_count_in_their_own_case_only() {
    for (text, health) in [
        ("I've been on PrEP since March.", true),
        ("He was diagnosed with AIDS in 1998", true),
        ("My mom has cancer.", true),
        ("Meal prep on Sundays saves me time.", false),
        ("My grandpa wears hearing aids.", false),
        ("I'm a Cancer, so I'm a bit moody.", false),
        ("We read about cancer in class.", false),
        ("The PREP school and the AIDSfree campaign", false),
    ] {
        let found = detect(text);
        assert_eq!(
            found.iter().any(|f| f.category == Category::Health),
            health,
            "{text}: {found:?}"
        );
    }
}

/// A latitude and a longitude are two decimals on their own; a list of such decimals (a pasted
/// array, a table of readings) is data.
#[test]
fn a_coordinate_pair_is_a_place_and_a_list_of_decimals_is_not() {
    let places = |text: &str| {
        detect(text)
            .into_iter()
            .filter(|f| f.category == Category::PreciseLocation)
            .map(|f| text[f.span].to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        places("Meet me at 39.9042, 116.4074 tomorrow"),
        ["39.9042, 116.4074"]
    );
    assert_eq!(
        places("from 39.9042, 116.4074 to 31.2304,121.4737"),
        ["39.9042, 116.4074", "31.2304,121.4737"]
    );
    assert!(places("array([0.0088, 0.0177, 0.0265, 0.0354])").is_empty());
    assert!(places("readings: 12.3456, 45.6789, 78.9012").is_empty());
}

/// A house number is followed by its street's words with spaces between: a numbered list's
/// item or a step's number before a capitalised name is not an address.
#[test]
fn a_numbered_item_is_not_an_address() {
    let places = |text: &str| {
        detect(text)
            .into_iter()
            .filter(|f| f.category == Category::PreciseLocation)
            .count()
    };
    assert_eq!(places("Send it to 1600 Pennsylvania Avenue please"), 1);
    assert_eq!(places("寄到42 Elm Street吧"), 1);
    assert_eq!(
        places("1. **Yosemite Valley Lodge Food Court**: open late"),
        0
    );
    assert_eq!(places("**Method 3: Google Drive**"), 0);
    assert_eq!(places("Step 2 - Memory Lane"), 0);
}

/// An English health or sexuality term discloses someone's only in a sentence about someone:
/// a person word, a first word whose subject chat leaves unsaid, or a disclosure phrase. The
/// benign ones are sentences of the kind read on LongMemEval_S turns (docs/SECURITY.md).
#[test]
fn a_health_or_sexuality_term_about_nobody_is_not_a_disclosure() {
    let health = |text: &str| {
        detect(text)
            .iter()
            .any(|f| matches!(f.category, Category::Health | Category::Sexuality))
    };
    for text in [
        "I'm on Lexapro.",
        "My sister has schizophrenia.",
        "Started chemo last week, feeling rough.",
        "Tested positive for HIV in May.",
        "Been on Xanax for years.",
        "Sarah was diagnosed with lymphoma.",
        "She has an STD and hasn't told him.",
        "AIDS took my uncle in 1994.",
        "我朋友有HIV，别说出去",
        "I think I have chlamydia?",
        "Came out as bisexual last year.",
        "I've been questioning my gender identity.",
        "I've been seeing a therapist since the divorce.",
        "My therapist says I should journal.",
        "If you struggle, talk to a professional, such as a therapist.",
    ] {
        assert!(health(text), "{text}");
    }
    for text in [
        "Chemotherapy can cause nausea and hair loss.",
        "Some STIs, such as syphilis, can lead to birth defects.",
        "std_data = std(data);",
        "Remarks: Oil @ std lev",
        "Music therapy can reduce agitation in Alzheimer's disease.",
        "AIDS was first described in 1981.",
        "I have a mix of alkaline and lithium-ion batteries to recycle.",
        "I have a set of depression-era glassware to insure.",
        "A book on the intersection of gender identity, race, and sexual orientation.",
        "Schools should address bullying based on gender identity.",
        "I'm a therapist, people come to me for help with dating.",
        "My sister is a therapist and she has a busy week.",
        "Do you have tips on how I can choose a good massage therapist?",
    ] {
        assert!(!health(text), "{text}: {:?}", detect(text));
    }
}

/// After a social network's name, a handle is a name (`@name`, letters with a digit, `_` or
/// `#`, a profile's link), not a number, a year or a help page's path read on LongMemEval_S
/// turns (docs/SECURITY.md).
#[test]
fn a_social_handle_is_a_name_not_a_number_or_a_link_path() {
    let contact = |text: &str| detect(text).iter().any(|f| f.category == Category::Contact);
    for text in [
        "my insta is lingfei_2024",
        "find me on Instagram (@thetoyhunter)",
        "add me on Discord: lingfei#2024",
        "Support me on Twitter: <https://twitter.com/rrehmanxd>",
        "twitter.com/rmacd\\_zety",
        "Telegram: https://t.me/Sim2K",
        "加我微信号 lingfei-2024",
    ] {
        assert!(contact(text), "{text}");
    }
    for text in [
        "Instagram recommends 1080px x 1350px for feed posts",
        "He was CEO of Twitter in 2015-2021",
        "I deleted the Instagram app during my 10-day break",
        "I'll schedule the Twitter chat for Wednesday at 11:30 am",
        "see discord.com/hc/en-us/articles/360047132851-Enabling-Your-Community-Server",
        "a dataset of Twitter posts about COVID-19",
    ] {
        assert!(!contact(text), "{text}: {:?}", detect(text));
    }
}

/// A bare "code" is a secret when its digits are told as its value; zip, status and goods
/// codes, names in source text and titles are not (LongMemEval_S turns, docs/SECURITY.md).
#[test]
fn a_bare_code_is_a_secret_only_when_told_as_one() {
    let credentials = |text: &str| {
        detect(text)
            .iter()
            .any(|f| f.category == Category::Credentials)
    };
    for text in [
        "ok so the code for my phone is 0412",
        "the code is 7319, don't forget",
        "code: 4821",
        "The code was 5566 last time",
    ] {
        assert!(credentials(text), "{text}");
    }
    for text in [
        "My zip code is 29651",
        "I'm in zip code 30309",
        "if response.status_code == 200:",
        "\"code\": 200,",
        "a blue with a hex code of #545B70",
        "customs purposes under goods code: 8700000000",
        "WASD Code 104 is a compact keyboard",
        "The code filters the data to only include 2012",
    ] {
        assert!(!credentials(text), "{text}: {:?}", detect(text));
    }
}

#[test]
fn a_health_term_listed_after_a_possessive_is_a_disclosure() {
    // Users' sentences on LongMemEval_S turns that the possessive two words back missed.
    let health = |text: &str| detect(text).iter().any(|f| f.category == Category::Health);
    for text in [
        "I'm not sure if I'm ready to talk about my anxiety and PTSD with others yet.",
        "it's been helpful to talk through my anxiety and depression",
        "my stress or ADHD makes it hard",
        "my depression",
    ] {
        assert!(health(text), "{text}");
    }
    for text in [
        "The Great Depression and PTSD research are both covered in the course",
        "my house and the Great Depression era furniture",
        "I read a book about anxiety and depression",
    ] {
        assert!(!health(text), "{text}: {:?}", detect(text));
    }
}

#[test]
fn a_credit_score_told_with_its_number_is_finance() {
    let finance = |text: &str| detect(text).iter().any(|f| f.category == Category::Finance);
    for text in [
        "My credit score is 750.",
        "My credit score is around 750, and I saved 20%",
        "我的芝麻分是720",
    ] {
        assert!(finance(text), "{text}");
    }
    for text in [
        "I'd like to understand how my credit score is calculated.",
        "Credit scores range from 300 to 850.",
    ] {
        assert!(!finance(text), "{text}: {:?}", detect(text));
    }
}
