//! An isolate's decoded copy of NPCs' vectors, valid for one generation number each.
//!
//! Every change of an NPC's vectors bumps its generation in D1. A reader trusts its copy only
//! at the generation D1 reports; a writer that sees its bump land exactly one past its copy
//! (nobody else wrote in between) applies its own change to the copy instead of dropping it,
//! so a single isolate (local dev, a busy production isolate) rarely re-reads the BLOBs.

use hippo::ports::VectorItem;
use hippo::retrieval::embed::dot;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Vectors an isolate keeps, over all NPCs (1 KiB each at 256 dimensions). Past this the
/// cache starts over with the NPC being read (simple, and bounded); an NPC with more vectors
/// than this is read from D1 on every query.
pub const CAPACITY: usize = 20_000;

/// `values` scaled to unit length (all zeros stays all zeros).
pub fn unit(mut values: Vec<f32>) -> Vec<f32> {
    let norm = dot(&values, &values).sqrt();
    if norm > 0.0 {
        values.iter_mut().for_each(|v| *v /= norm);
    }
    values
}

/// One NPC's vectors, scaled to unit length (cosine is then one dot product).
#[derive(Debug, Clone, Default)]
pub struct Space {
    pub items: Vec<VectorItem>,
    by_id: HashMap<String, usize>,
}

impl Space {
    pub fn new(items: Vec<VectorItem>) -> Self {
        let mut space = Space::default();
        space.upsert(items);
        space
    }

    pub fn upsert(&mut self, items: Vec<VectorItem>) {
        for mut item in items {
            item.values = unit(std::mem::take(&mut item.values));
            match self.by_id.get(&item.id) {
                Some(&at) => self.items[at] = item,
                None => {
                    self.by_id.insert(item.id.clone(), self.items.len());
                    self.items.push(item);
                }
            }
        }
    }

    pub fn delete(&mut self, ids: &[String]) {
        for id in ids {
            if let Some(at) = self.by_id.remove(id) {
                self.items.swap_remove(at);
                if let Some(moved) = self.items.get(at) {
                    self.by_id.insert(moved.id.clone(), at);
                }
            }
        }
    }
}

/// A change a writer made, to replay on the cached copy.
pub enum Change<'a> {
    Upsert(&'a [VectorItem]),
    Delete(&'a [String]),
    Clear,
}

thread_local! {
    static CACHE: RefCell<HashMap<String, (i64, Rc<Space>)>> = RefCell::new(HashMap::new());
}

/// The cached vectors of `npcid` if they are at `generation`.
pub fn get(npcid: &str, generation: i64) -> Option<Rc<Space>> {
    CACHE.with(|c| {
        c.borrow()
            .get(npcid)
            .filter(|(g, _)| *g == generation)
            .map(|(_, s)| s.clone())
    })
}

pub fn put(npcid: &str, generation: i64, space: Rc<Space>) {
    if space.items.len() > CAPACITY {
        return;
    }
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        cache.remove(npcid);
        let held: usize = cache.values().map(|(_, s)| s.items.len()).sum();
        if held + space.items.len() > CAPACITY {
            cache.clear();
        }
        cache.insert(npcid.to_string(), (generation, space));
    });
}

/// How many NPCs the cache holds and how many vectors they have in all (the memory probe of
/// the test build).
#[cfg(feature = "test-hooks")]
pub fn size() -> (usize, usize) {
    CACHE.with(|c| {
        let cache = c.borrow();
        (
            cache.len(),
            cache.values().map(|(_, s)| s.items.len()).sum(),
        )
    })
}

/// After a write that moved the generation to `new_generation`: replay `change` on the copy
/// if the copy was exactly one behind, else forget the copy.
pub fn after_write(npcid: &str, new_generation: i64, change: Change) {
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        let Some((generation, space)) = cache.get_mut(npcid) else {
            return;
        };
        if *generation + 1 != new_generation {
            cache.remove(npcid);
            return;
        }
        let space = Rc::make_mut(space);
        match change {
            Change::Upsert(items) => space.upsert(items.to_vec()),
            Change::Delete(ids) => space.delete(ids),
            Change::Clear => *space = Space::default(),
        }
        *generation = new_generation;
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::memory::{Collection, MemoryType};

    #[test]
    fn dot_and_unit() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let naive: f32 = a.iter().map(|x| x * x).sum();
        assert_eq!(dot(&a, &a), naive);
        let u = unit(vec![3.0, 4.0]);
        assert_eq!(u, vec![0.6, 0.8]);
        assert_eq!(unit(vec![0.0, 0.0]), vec![0.0, 0.0]);
    }

    /// An item whose direction encodes `v` (stored unit-length: `values[1] / values[0] == v`).
    fn item(id: &str, v: f32) -> VectorItem {
        VectorItem {
            id: id.into(),
            collection: Collection::Memory,
            memory_type: MemoryType::Other,
            values: vec![2.0, 2.0 * v],
        }
    }

    fn ids(space: &Space) -> Vec<(&str, f32)> {
        let mut out: Vec<(&str, f32)> = space
            .items
            .iter()
            .map(|i| {
                let norm = (i.values[0].powi(2) + i.values[1].powi(2)).sqrt();
                assert!((norm - 1.0).abs() < 1e-6, "stored unit-length");
                (
                    i.id.as_str(),
                    (i.values[1] / i.values[0] * 100.0).round() / 100.0,
                )
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }

    #[test]
    fn space_upserts_replace_and_deletes_keep_the_index_right() {
        let mut s = Space::new(vec![item("a", 1.0), item("b", 2.0), item("c", 3.0)]);
        s.upsert(vec![item("b", 20.0), item("d", 4.0)]);
        s.delete(&["a".into(), "zzz".into()]);
        assert_eq!(ids(&s), [("b", 20.0), ("c", 3.0), ("d", 4.0)]);
        // The index still finds every survivor after swap_remove moved one.
        s.upsert(vec![item("d", 40.0)]);
        s.delete(&["c".into()]);
        assert_eq!(ids(&s), [("b", 20.0), ("d", 40.0)]);
    }

    #[test]
    fn the_cache_holds_at_most_capacity_vectors() {
        let many = |n: usize| {
            Rc::new(Space::new(
                (0..n).map(|i| item(&i.to_string(), 1.0)).collect(),
            ))
        };
        put("big", 1, many(CAPACITY + 1));
        assert!(get("big", 1).is_none(), "bigger than the cache: not kept");
        put("a", 1, many(CAPACITY / 2));
        put("b", 1, many(CAPACITY / 2));
        assert!(get("a", 1).is_some() && get("b", 1).is_some());
        put("c", 1, many(10));
        assert!(get("c", 1).is_some());
        assert!(get("a", 1).is_none(), "the cache started over");
    }

    #[test]
    fn a_copy_follows_its_own_writes_and_drops_on_a_gap() {
        put("n1", 5, Rc::new(Space::new(vec![item("a", 1.0)])));
        assert!(get("n1", 4).is_none());
        after_write("n1", 6, Change::Upsert(&[item("b", 2.0)]));
        assert_eq!(ids(&get("n1", 6).unwrap()), [("a", 1.0), ("b", 2.0)]);
        after_write("n1", 7, Change::Delete(&["a".to_string()]));
        assert_eq!(ids(&get("n1", 7).unwrap()), [("b", 2.0)]);
        // Another isolate wrote generation 8: our write lands at 9, the copy is stale.
        after_write("n1", 9, Change::Clear);
        assert!(get("n1", 9).is_none());
    }
}
