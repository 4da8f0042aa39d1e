//! Stable sorting with one copy of the sort code in a build: every `sort_by` call site with its
//! own element type and comparator instantiates the whole standard sort again (7 KB of wasm
//! each; the npm package has a 600 KiB gzip budget). [`sort_by`] sorts indices with a
//! comparator behind a `dyn`, the same instantiation for every caller, then moves the items.
//! For the same reason, entries leave a small `BTreeMap` through [`remove_where`].

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Removes the entries `gone` picks from `map` by inserting the others into it again.
/// `BTreeMap::remove` and `retain` instantiate the map's rebalancing code for each key and value
/// type (~4.5 KB of wasm each); insertion and iteration are there already. For the small maps
/// of a store (an NPC's entities and diary days, the tokens): an insert per kept entry.
pub fn remove_where<K: Ord, V>(map: &mut BTreeMap<K, V>, mut gone: impl FnMut(&K, &V) -> bool) {
    for (key, value) in std::mem::take(map) {
        if !gone(&key, &value) {
            map.insert(key, value);
        }
    }
}

/// Sorts `items` stably by `compare`, as `slice::sort_by` does.
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    let order = stable_order(items.len(), &|a, b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        order
            .into_iter()
            .filter_map(|i| slots.get_mut(i).and_then(Option::take)),
    );
}

/// The indices `0..n` in the stable order `compare` gives them.
pub fn stable_order(n: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_where_keeps_the_other_entries_in_order() {
        let mut map: BTreeMap<String, u32> = (0..50).map(|i| (format!("k{i:02}"), i)).collect();
        remove_where(&mut map, |key, value| key == "k07" || value % 10 == 3);
        let kept: Vec<u32> = map.values().copied().collect();
        let want: Vec<u32> = (0..50).filter(|i| *i != 7 && i % 10 != 3).collect();
        assert_eq!(kept, want);
        assert!(map.keys().zip(map.keys().skip(1)).all(|(a, b)| a < b));
        remove_where(&mut map, |_, _| false);
        assert_eq!(map.len(), want.len());
        remove_where(&mut map, |_, _| true);
        assert!(map.is_empty());
    }

    #[test]
    fn sorts_stably_like_the_standard_sort() {
        let mut items: Vec<(u8, &str)> = vec![(2, "a"), (1, "b"), (2, "c"), (0, "d"), (1, "e")];
        let mut want = items.clone();
        want.sort_by_key(|x| x.0);
        sort_by(&mut items, |x, y| x.0.cmp(&y.0));
        assert_eq!(items, want);
        let mut empty: Vec<u8> = Vec::new();
        sort_by(&mut empty, u8::cmp);
        assert!(empty.is_empty());
    }
}
