//! Which database an NPC lives in: a pure function of its npcid (docs/SCALING.md).
//!
//! The key is the first 8 bytes of SHA-256(npcid); jump consistent hashing (Lamping & Veach,
//! 2014) turns it into a shard index. Growing from `n` to `n + 1` shards moves only the NPCs
//! whose index becomes `n` (about 1 in `n + 1`), and moves them all to the new shard: the
//! migration copies exactly those. Pins (npcid → shard) override the hash, for an NPC that
//! is being moved or must stay put. Changing any of this moves NPCs: golden tests guard it.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The binding every deployment has; alone, it is today's single-database deployment.
pub const DEFAULT_SHARD: &str = "DB";

/// The stable 64-bit routing key of an npcid.
pub fn shard_key(npcid: &str) -> u64 {
    let digest = Sha256::digest(npcid.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// Jump consistent hash of `key` into `0..shards` (`shards` ≥ 1).
pub fn jump(key: u64, shards: usize) -> usize {
    let mut key = key;
    let (mut b, mut j): (i64, i64) = (-1, 0);
    while j < shards as i64 {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b.wrapping_add(1) as f64) * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b.max(0) as usize
}

/// The shards (binding names, in order: the index is the position) and the pins.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardMap {
    names: Vec<String>,
    pins: BTreeMap<String, usize>,
}

impl Default for ShardMap {
    fn default() -> Self {
        ShardMap::single()
    }
}

impl ShardMap {
    /// One shard, [`DEFAULT_SHARD`]: every NPC in it.
    pub fn single() -> ShardMap {
        ShardMap {
            names: vec![DEFAULT_SHARD.to_string()],
            pins: BTreeMap::new(),
        }
    }

    /// From the Worker's vars: `shards` a comma-separated list of D1 bindings that starts
    /// with [`DEFAULT_SHARD`] (which also keeps the deployment-wide settings); `pins` a JSON
    /// object `{"npcid": "binding", …}`. Unset or blank `shards`: [`Self::single`]. Errors
    /// name the variable and what is wrong.
    pub fn parse(shards: Option<&str>, pins: Option<&str>) -> Result<ShardMap, String> {
        let mut map = ShardMap::single();
        if let Some(list) = shards.map(str::trim).filter(|s| !s.is_empty()) {
            let names: Vec<String> = list.split(',').map(|n| n.trim().to_string()).collect();
            if names.first().map(String::as_str) != Some(DEFAULT_SHARD) {
                return Err(format!(
                    "HIPPO_SHARDS must start with {DEFAULT_SHARD} (it keeps the deployment's \
                     settings), got {list:?}"
                ));
            }
            for (i, name) in names.iter().enumerate() {
                let valid =
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid {
                    return Err(format!(
                        "HIPPO_SHARDS: {name:?} is not a binding name (letters, digits, _)"
                    ));
                }
                if names[..i].contains(name) {
                    return Err(format!("HIPPO_SHARDS lists {name} twice"));
                }
            }
            map.names = names;
        }
        if let Some(json) = pins.map(str::trim).filter(|s| !s.is_empty()) {
            let pins: BTreeMap<String, String> = crate::json::parse(json).map_err(|e| {
                format!("HIPPO_SHARD_MAP must be a JSON object {{\"npcid\": \"binding\"}}: {e}")
            })?;
            for (npcid, name) in pins {
                let index = map.index_of(&name).ok_or_else(|| {
                    format!("HIPPO_SHARD_MAP pins {npcid:?} to {name}, which HIPPO_SHARDS does not list")
                })?;
                map.pins.insert(npcid, index);
            }
        }
        Ok(map)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The binding names, index order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The shard of `npcid`: its pin, else the hash.
    pub fn shard_of(&self, npcid: &str) -> usize {
        match self.pins.get(npcid) {
            Some(&index) => index,
            None => jump(shard_key(npcid), self.names.len()),
        }
    }

    /// The binding name of `npcid`'s shard.
    pub fn name_of(&self, npcid: &str) -> &str {
        &self.names[self.shard_of(npcid)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("npc-{i}")).collect()
    }

    /// Stored NPCs are found by these values: a change here strands them in the wrong shard.
    /// The expected values come from a separate Python implementation (hashlib's SHA-256 and
    /// the paper's loop), not from this code.
    #[test]
    fn routing_is_stable_across_releases() {
        assert_eq!(shard_key("npc-0"), 0x9782_92ad_9dcc_0fc1);
        let two: Vec<usize> = ids(12).iter().map(|id| jump(shard_key(id), 2)).collect();
        assert_eq!(two, [0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0]);
        let eight: Vec<usize> = ids(12).iter().map(|id| jump(shard_key(id), 8)).collect();
        assert_eq!(eight, [4, 4, 5, 1, 1, 3, 6, 2, 5, 5, 1, 5]);
    }

    #[test]
    fn growing_moves_only_to_the_new_shard_and_about_its_share() {
        let all = ids(20_000);
        for n in 1..8 {
            let mut moved = 0usize;
            for id in &all {
                let (before, after) = (jump(shard_key(id), n), jump(shard_key(id), n + 1));
                if before != after {
                    assert_eq!(after, n, "{id} moved from {before} to an old shard {after}");
                    moved += 1;
                }
            }
            let share = moved as f64 / all.len() as f64;
            let want = 1.0 / (n + 1) as f64;
            assert!((share - want).abs() < 0.02, "{n}→{}: {share} moved", n + 1);
        }
    }

    #[test]
    fn shards_fill_evenly() {
        let mut counts = [0usize; 4];
        for id in ids(20_000) {
            counts[jump(shard_key(&id), 4)] += 1;
        }
        for c in counts {
            assert!((4_500..5_500).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn one_binding_is_the_default() {
        for (shards, pins) in [(None, None), (Some(""), None), (Some(" DB "), Some(" "))] {
            let map = ShardMap::parse(shards, pins).unwrap();
            assert_eq!(map, ShardMap::single());
            assert!(ids(100).iter().all(|id| map.shard_of(id) == 0));
        }
    }

    #[test]
    fn pins_override_the_hash() {
        let map = ShardMap::parse(Some("DB,DB_1,DB_2"), None).unwrap();
        let id = ids(100)
            .into_iter()
            .find(|id| map.shard_of(id) == 2)
            .unwrap();
        let pinned =
            ShardMap::parse(Some("DB,DB_1,DB_2"), Some(&format!("{{\"{id}\":\"DB\"}}"))).unwrap();
        assert_eq!(pinned.shard_of(&id), 0);
        assert_eq!(pinned.name_of(&id), "DB");
        assert_eq!(pinned.shard_of("npc-other"), map.shard_of("npc-other"));
    }

    #[test]
    fn mistakes_are_named() {
        for (shards, pins, needle) in [
            (Some("DB_1,DB"), None, "must start with DB"),
            (Some("DB,DB_1,DB_1"), None, "twice"),
            (Some("DB,,DB_1"), None, "not a binding name"),
            (Some("DB,my-db"), None, "not a binding name"),
            (
                Some("DB,DB_1"),
                Some("[1]"),
                "HIPPO_SHARD_MAP must be a JSON object",
            ),
            (Some("DB,DB_1"), Some(r#"{"a":"DB_9"}"#), "does not list"),
            (None, Some(r#"{"a":"DB_1"}"#), "does not list"),
        ] {
            let err = ShardMap::parse(shards, pins).unwrap_err();
            assert!(err.contains(needle), "{shards:?} {pins:?}: {err}");
        }
    }
}
