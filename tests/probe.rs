use chrono::NaiveDate;
use hippo::conversation::{EntryKind, Role, Turn};
use hippo::dream::extract::extract;
use hippo::time::Timestamp;

#[test]
#[ignore]
fn probe() {
    let today = NaiveDate::from_ymd_opt(2026, 4, 9).unwrap();
    let said_at = Timestamp(Timestamp::from_date(today).ms() + 10 * 3_600_000);
    for line in std::env::var("P").unwrap().split('|') {
        println!(
            "== {line}  emotion={:?}",
            hippo::dream::emotion::detect(line)
        );
        let turn = Turn {
            id: "t".into(),
            seq: 1,
            session_id: None,
            turn_index: None,
            kind: EntryKind::Turn,
            role: Some(Role::User),
            content: line.into(),
            ts: said_at,
            emotion: None,
        };
        let got = extract(&[turn], today);
        for u in &got.pkg_updates {
            println!("   pkg {} {}", u.key, u.value);
        }
        for e in &got.entity_ops {
            println!("   ent {:?} {:?}", e.name, e.title);
        }
        for m in &got.memories {
            println!(
                "   mem {}: {} {:?}",
                m.memory_type.as_str(),
                m.summary,
                m.event_time.map(|t| t.date())
            );
        }
    }
}
