//! Replays every saved fuzz input through the same checks the fuzz targets run: the crashes
//! `make fuzz` found (`fuzz/regressions/<target>/`) and the committed seeds
//! (`fuzz/seeds/<target>/`, written by `scripts/fuzz-seeds.mjs`: extreme numbers, dates and
//! time units), in a debug build, where integer overflow panics.

mod fuzz_checks;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    for kind in ["regressions", "seeds"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz")
            .join(kind)
            .join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let data = std::fs::read(entry.path()).expect("readable input");
            check(&data);
        }
    }
}

#[test]
fn fuzz_regressions_replay_cleanly() {
    replay("pkg_updates", fuzz_checks::pkg_updates);
    replay("retrieval_request", fuzz_checks::retrieval_request);
    replay("conversation_append", fuzz_checks::conversation_append);
    replay("tokenizer", fuzz_checks::tokenizer);
    replay("time_expression", fuzz_checks::time_expression);
    replay("llm_output", fuzz_checks::llm_output);
    replay("http_request", fuzz_checks::http_requests);
}

#[test]
fn checks_accept_ordinary_inputs() {
    fuzz_checks::pkg_updates(
        br#"{"updates":[{"key":"Hobbies","value":"a,b,c"},{"key":"Name","value":"x"}]}"#,
    );
    fuzz_checks::retrieval_request(br#"{"query":"hi","max_results":"99"}"#);
    fuzz_checks::conversation_append(
        br#"{"session_id":"s","turns":[{"role":"user","content":"hi"}]}"#,
    );
    fuzz_checks::tokenizer("我对花生过敏, I'm allergic to peanuts! ４月８日".as_bytes());
    fuzz_checks::time_expression("上周 and 3 days ago".as_bytes());
    fuzz_checks::http_requests(
        "retrieve f\n\n{\"query\":\"what did I drink last week\"}\x1eput_pkg\n\n{\"updates\":[{\"key\":\"City\",\"value\":\"Chengdu\"}]}\x1edream f\ndry_run=1\n"
            .as_bytes(),
    );
    fuzz_checks::llm_output(br#"```json
{"entity_ops":[{"op":"add","name":"Anna","title":["sister"]}],"pkg_updates":[],"memories":[{"summary":"The user has a sister, Anna","type":"relationship","importance":0.6,"confidence":0.9}]}
```"#);
}
