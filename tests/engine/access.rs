//! Tenant scope and tokens: one NPC never sees another's records.

use super::*;

#[test]
fn one_npc_never_sees_another() {
    let w = world();
    npc(&w, "alice", json!({"Nickname": "Ally"}));
    npc(&w, "bob", json!({}));
    add(
        &w,
        "alice",
        json!([{"summary": "Alice's secret phrase is blue falcon", "type": "other"}]),
    );
    let seen = retrieve(
        &w,
        "bob",
        json!({"query": "secret phrase blue falcon Ally", "max_results": 10}),
    );
    assert!(seen.is_empty(), "bob saw {seen:?}");
    let listed = run(w.hippo.list_memories("bob", ListMemoriesQuery::default())).unwrap();
    assert_eq!(listed.count, 0);
}

#[test]
fn tokens_resolve_expire_and_revoke() {
    let w = world();
    npc(&w, "t", json!({}));
    let issued = run(w.hippo.issue_token("t", json(json!({"ttl_seconds": 60})))).unwrap();
    assert_eq!(run(w.hippo.resolve_token(&issued.token)).unwrap(), "t");
    assert_eq!(
        run(w.hippo.resolve_token(&format!("Bearer {}", issued.token))).unwrap(),
        "t"
    );
    assert_eq!(
        run(w.hippo.resolve_token(&format!("bearer   {}", issued.token))).unwrap(),
        "t"
    );
    for bad in [
        "",
        "Bearer",
        "Basic abc",
        "hpo_wrong",
        &format!("Token {}", issued.token),
    ] {
        assert!(
            matches!(run(w.hippo.resolve_token(bad)), Err(Error::Unauthorized(_))),
            "{bad:?}"
        );
    }
    // Only the hash is stored.
    let stored = String::from_utf8(w.store.snapshot().unwrap()).unwrap_or_default();
    assert!(!stored.contains(&issued.token));
    w.clock.advance_hours(1.0);
    assert!(matches!(
        run(w.hippo.resolve_token(&issued.token)),
        Err(Error::Unauthorized(_))
    ));
    let forever = run(w.hippo.issue_token("t", TokenRequest::default())).unwrap();
    run(w.hippo.revoke_token("t", &forever.token_id)).unwrap();
    assert!(matches!(
        run(w.hippo.resolve_token(&forever.token)),
        Err(Error::Unauthorized(_))
    ));
    assert!(matches!(
        run(w.hippo.revoke_token("t", "tok_nope")),
        Err(Error::NotFound(_))
    ));
    let kept = run(w.hippo.issue_token("t", TokenRequest::default())).unwrap();
    run(w.hippo.delete_npc("t")).unwrap();
    assert!(matches!(
        run(w.hippo.resolve_token(&kept.token)),
        Err(Error::Unauthorized(_))
    ));
}
