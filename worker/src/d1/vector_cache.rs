//! An isolate's decoded copy of NPCs' vectors, valid for one generation number each.
//!
//! Every change of an NPC's vectors bumps its generation in D1. A reader trusts its copy only
//! at the generation D1 reports; a writer that sees its bump land exactly one past its copy
//! (nobody else wrote in between) applies its own change to the copy instead of dropping it,
//! so a single isolate (local dev, a busy production isolate) rarely re-reads the BLOBs.

use hippo::ports::VectorItem;
use hippo::store::VectorSpace;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Vectors an isolate keeps, over all NPCs (1 KiB each at 256 dimensions). Past this the
/// cache starts over with the NPC being read (simple, and bounded); an NPC with more vectors
/// than this is read from D1 on every query.
pub const CAPACITY: usize = 20_000;

/// A change a writer made, to replay on the cached copy.
pub enum Change<'a> {
    Upsert(&'a [VectorItem]),
    Delete(&'a [String]),
    Clear,
}

thread_local! {
    static CACHE: RefCell<HashMap<String, (i64, Rc<VectorSpace>)>> = RefCell::new(HashMap::new());
}

/// The cached vectors of `npcid` if they are at `generation`.
pub fn get(npcid: &str, generation: i64) -> Option<Rc<VectorSpace>> {
    CACHE.with(|c| {
        c.borrow()
            .get(npcid)
            .filter(|(g, _)| *g == generation)
            .map(|(_, s)| s.clone())
    })
}

/// The cached vectors of `npcid` at whatever generation they were last read or written.
pub fn latest(npcid: &str) -> Option<Rc<VectorSpace>> {
    CACHE.with(|c| c.borrow().get(npcid).map(|(_, s)| s.clone()))
}

pub fn put(npcid: &str, generation: i64, space: Rc<VectorSpace>) {
    if space.len() > CAPACITY {
        return;
    }
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        cache.remove(npcid);
        let held: usize = cache.values().map(|(_, s)| s.len()).sum();
        if held + space.len() > CAPACITY {
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
        (cache.len(), cache.values().map(|(_, s)| s.len()).sum())
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
        let replayed = match change {
            Change::Upsert(items) => items.iter().try_for_each(|i| space.upsert(i.clone())),
            Change::Delete(ids) => {
                ids.iter().for_each(|id| space.remove(id));
                Ok(())
            }
            Change::Clear => {
                *space = VectorSpace::default();
                Ok(())
            }
        };
        if replayed.is_err() {
            // A vector of another dimension: the copy would differ from D1's rows.
            cache.remove(npcid);
            return;
        }
        *generation = new_generation;
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::memory::{Collection, MemoryType};
    use hippo::ports::VectorFilter;

    fn item(id: &str, values: &[f32]) -> VectorItem {
        VectorItem {
            id: id.into(),
            collection: Collection::Memory,
            memory_type: MemoryType::Other,
            values: values.to_vec(),
        }
    }

    fn space(items: &[VectorItem]) -> Rc<VectorSpace> {
        let mut space = VectorSpace::default();
        for i in items {
            space.upsert(i.clone()).unwrap();
        }
        Rc::new(space)
    }

    /// The ids a copy holds, sorted.
    fn ids(space: &VectorSpace) -> Vec<String> {
        let mut ids: Vec<String> = space
            .query(&[1.0, 1.0], space.len(), &VectorFilter::default())
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn the_cache_holds_at_most_capacity_vectors() {
        let many = |n: usize| {
            let items: Vec<VectorItem> =
                (0..n).map(|i| item(&i.to_string(), &[1.0, 0.5])).collect();
            space(&items)
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
        put("n1", 5, space(&[item("a", &[1.0, 0.0])]));
        assert!(get("n1", 4).is_none());
        after_write("n1", 6, Change::Upsert(&[item("b", &[0.0, 2.0])]));
        assert_eq!(ids(&get("n1", 6).unwrap()), ["a", "b"]);
        after_write("n1", 7, Change::Delete(&["a".to_string()]));
        assert_eq!(ids(&get("n1", 7).unwrap()), ["b"]);
        // Another isolate wrote generation 8: our write lands at 9, the copy is stale.
        after_write("n1", 9, Change::Clear);
        assert!(get("n1", 9).is_none());
    }

    #[test]
    fn a_copy_refusing_a_replayed_vector_is_dropped() {
        put("n2", 1, space(&[item("a", &[1.0, 0.0])]));
        // D1 took a vector of another dimension; the copy cannot hold it.
        after_write("n2", 2, Change::Upsert(&[item("b", &[1.0, 0.0, 0.0])]));
        assert!(get("n2", 2).is_none() && get("n2", 1).is_none());
    }
}
