//! The MCP tools over the engine (issue 16): access rules, one NPC per call, sensitive items
//! for tokens. The transports are tested with the official SDK client (tests/worker,
//! tests/npm).

mod common;

use common::*;
use hippo::mcp::{tools, Caller};
use hippo::ports::Scope;
use hippo::Error;
use serde_json::{json, Value};

fn token(npcid: &str, scopes: &[Scope]) -> Caller {
    Caller::Token {
        npcid: npcid.into(),
        scopes: scopes.to_vec(),
    }
}

fn call(w: &World, caller: &Caller, name: &str, args: Value) -> Result<Value, Error> {
    run(w.hippo.call_tool(caller, name, args)).map(|out| serde_json::to_value(out).unwrap())
}

fn seeded() -> World {
    let w = world();
    for npcid in ["a", "b"] {
        run(w.hippo.upsert_npc(
            npcid,
            json(json!({"pkg": {"Name": "小明", "Address": "北京市朝阳区建国路88号"}})),
        ))
        .unwrap();
    }
    w
}

#[test]
fn tools_are_listed_by_scope() {
    let names = |c: &Caller| -> Vec<String> {
        tools(c)
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(&Caller::Admin),
        [
            "remember",
            "recall",
            "get_profile",
            "brief",
            "list_memories",
            "update_memory",
            "forget",
            "dream"
        ]
    );
    assert_eq!(names(&token("a", &[Scope::Retrieval])), ["recall"]);
    assert_eq!(
        names(&token("a", &[Scope::Read])),
        ["recall", "get_profile", "brief", "list_memories"]
    );
    // The admin names the NPC; a token's NPC is implied.
    let admin = tools(&Caller::Admin);
    assert!(admin[1]["inputSchema"]["required"]
        .as_array()
        .unwrap()
        .contains(&json!("npcid")));
    let read = tools(&token("a", &[Scope::Read]));
    assert_eq!(read[0]["inputSchema"]["required"], json!(["query"]));
}

#[test]
fn scopes_and_the_bound_npc_are_enforced() {
    let w = seeded();
    let reader = token("a", &[Scope::Read, Scope::Retrieval]);
    let writer = token("a", &[Scope::Read, Scope::Write]);
    let fact = json!({"fact": "用户喜欢乌龙茶", "type": "preference"});
    // A token without write never writes, whatever it asks.
    for (name, args) in [
        ("remember", fact.clone()),
        ("forget", json!({"all": true, "confirm": "a"})),
        ("dream", json!({})),
        ("update_memory", json!({"id": "x", "pinned": true})),
    ] {
        let err = call(&w, &reader, name, args).unwrap_err();
        assert!(matches!(err, Error::Unauthorized(_)), "{name}: {err:?}");
    }
    let retrieval_only = token("a", &[Scope::Retrieval]);
    assert!(matches!(
        call(&w, &retrieval_only, "get_profile", json!({})),
        Err(Error::Unauthorized(_))
    ));
    // Another NPC than the token's is refused; the admin must name one.
    assert!(matches!(
        call(
            &w,
            &writer,
            "remember",
            json!({"npcid": "b", "fact": "x", "type": "other"})
        ),
        Err(Error::Unauthorized(_))
    ));
    assert!(matches!(
        call(&w, &Caller::Admin, "recall", json!({"query": "茶"})),
        Err(Error::InvalidInput(_))
    ));
    let added = call(&w, &writer, "remember", fact).unwrap();
    assert_eq!(added["results"][0]["action"], "inserted");
    let hits = call(&w, &reader, "recall", json!({"query": "乌龙茶"})).unwrap();
    assert!(hits["memories"][0]["summary"]
        .as_str()
        .unwrap()
        .contains("乌龙茶"));
    // Nothing leaked into NPC b.
    let b = call(
        &w,
        &Caller::Admin,
        "recall",
        json!({"npcid": "b", "query": "乌龙茶"}),
    )
    .unwrap();
    assert!(b["memories"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| !m["summary"].as_str().unwrap().contains("乌龙茶")));
    // Malformed arguments are input errors.
    for (name, args) in [
        ("recall", json!({})),
        ("recall", json!({"query": "x", "bogus": 1})),
        (
            "remember",
            json!({"fact": "x", "turn": {"role": "user", "content": "y"}}),
        ),
        ("recall", json!("not an object")),
        ("remember", json!({"npcid": 5, "fact": "x"})),
    ] {
        let err = call(&w, &writer, name, args.clone()).unwrap_err();
        assert!(
            matches!(err, Error::InvalidInput(_)),
            "{name} {args}: {err:?}"
        );
    }
}

#[test]
fn sensitive_items_are_invisible_to_tokens_and_marked_for_the_admin() {
    let w = seeded();
    let writer = token("a", &[Scope::Read, Scope::Write, Scope::Retrieval]);
    let secret = call(
        &w,
        &Caller::Admin,
        "remember",
        json!({"npcid": "a", "fact": "用户的银行卡密码是 654321", "type": "other"}),
    )
    .unwrap();
    let secret_id = secret["results"][0]["id"].as_str().unwrap().to_string();
    let shown = |v: &Value| v.to_string().contains("654321");
    assert!(!shown(
        &call(&w, &writer, "recall", json!({"query": "银行卡密码"})).unwrap()
    ));
    assert!(!shown(
        &call(&w, &writer, "list_memories", json!({})).unwrap()
    ));
    assert!(!shown(&call(&w, &writer, "brief", json!({})).unwrap()));
    let profile = call(&w, &writer, "get_profile", json!({})).unwrap();
    assert_eq!(profile["pkg"]["Name"], "小明");
    assert!(profile["pkg"].get("Address").is_none(), "{profile}");
    // A token cannot touch what it cannot see.
    for (name, args) in [
        (
            "update_memory",
            json!({"id": secret_id, "sensitive": false}),
        ),
        ("update_memory", json!({"id": secret_id, "pinned": true})),
        ("forget", json!({"id": secret_id})),
    ] {
        let err = call(&w, &writer, name, args).unwrap_err();
        assert!(matches!(err, Error::NotFound(_)), "{name}: {err:?}");
    }
    // recall is memory_retrieval's answer, for the admin too; the admin's list shows it,
    // marked.
    let admin = json!({"npcid": "a", "query": "银行卡密码"});
    assert!(!shown(&call(&w, &Caller::Admin, "recall", admin).unwrap()));
    let listed = call(&w, &Caller::Admin, "list_memories", json!({"npcid": "a"})).unwrap();
    let marked = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == secret_id.as_str())
        .unwrap();
    assert_eq!(marked["sensitive"], true);
    let full = call(&w, &Caller::Admin, "get_profile", json!({"npcid": "a"})).unwrap();
    assert!(full["pkg"]["Address"].is_string());
}

#[test]
fn a_dream_report_shows_a_token_nothing_sensitive() {
    let w = seeded();
    let writer = token("a", &[Scope::Read, Scope::Write]);
    let turn = "Please remember this: my password is hunter2xyz, don't tell anyone. \
                I went hiking at Mount Tai today.";
    call(
        &w,
        &writer,
        "remember",
        json!({"turn": {"role": "user", "content": turn}, "session_id": "s"}),
    )
    .unwrap();
    let report = call(&w, &writer, "dream", json!({})).unwrap();
    assert!(!report.to_string().contains("hunter2xyz"), "{report}");
    assert!(report.to_string().contains("Mount Tai"), "{report}");
    // What the token was not shown is stored, marked, for the admin.
    let listed = call(&w, &Caller::Admin, "list_memories", json!({"npcid": "a"})).unwrap();
    let secret = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["summary"].as_str().unwrap().contains("hunter2xyz"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(secret["sensitive"], true);
}

#[test]
fn forget_all_needs_the_npcid_as_confirmation() {
    let w = seeded();
    let writer = token("a", &[Scope::Read, Scope::Write]);
    for fact in ["用户喜欢猫", "用户周末去游泳", "用户在学西班牙语"] {
        call(
            &w,
            &writer,
            "remember",
            json!({"fact": fact, "type": "preference"}),
        )
        .unwrap();
    }
    call(
        &w,
        &Caller::Admin,
        "remember",
        json!({"npcid": "b", "fact": "用户喜欢狗", "type": "preference"}),
    )
    .unwrap();
    for args in [
        json!({"all": true}),
        json!({"all": true, "confirm": "yes"}),
        json!({"all": true, "confirm": "b"}),
        json!({}),
    ] {
        let err = call(&w, &writer, "forget", args.clone()).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{args}: {err:?}");
    }
    let count = |npcid: &str| {
        call(&w, &Caller::Admin, "list_memories", json!({"npcid": npcid})).unwrap()["count"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(count("a"), 3);
    let done = call(&w, &writer, "forget", json!({"all": true, "confirm": "a"})).unwrap();
    assert_eq!(done["deleted"], 3);
    assert_eq!(count("a"), 0);
    assert_eq!(count("b"), 1, "another NPC's memories stay");
    // The profile stays.
    let profile = call(&w, &writer, "get_profile", json!({})).unwrap();
    assert_eq!(profile["pkg"]["Name"], "小明");
}

#[test]
fn remember_a_turn_then_dream_pins_what_was_asked() {
    let w = seeded();
    let writer = token("a", &[Scope::Read, Scope::Write]);
    call(
        &w,
        &writer,
        "remember",
        json!({"turn": {"role": "user", "content": "我对芒果过敏，记住这件事！"}, "session_id": "s"}),
    )
    .unwrap();
    let dream = call(&w, &writer, "dream", json!({})).unwrap();
    assert_eq!(dream["report"]["skipped"], false);
    let list = call(&w, &writer, "list_memories", json!({})).unwrap();
    let mango = list["memories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["summary"].as_str().unwrap().contains("芒果"))
        .expect("extracted");
    assert_eq!(mango["pinned"], true);
    let id = mango["id"].as_str().unwrap();
    let unpinned = call(
        &w,
        &writer,
        "update_memory",
        json!({"id": id, "pinned": false}),
    )
    .unwrap();
    assert_eq!(unpinned["memory"]["pinned"], false);
}
