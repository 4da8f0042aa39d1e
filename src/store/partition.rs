//! A coarse partition of one NPC's vectors for conflict resolution's nearest-neighbour
//! look-up ([`crate::ports::VectorFilter::near`]), which runs once per new memory: an
//! exact scan there made filling a store quadratic.
//!
//! The vectors of each kind (collection and memory type) are split into cells, each around a
//! centroid (a copy of one of its vectors' int8 codes, sampled evenly). A look-up scores the
//! centroids, then only the rows of the [`PROBES`] closest cells: a few `√n` rows instead of
//! `n`. A kind is partitioned from [`MIN_ROWS`] rows (below that all its rows are scanned:
//! exact answers for a few hundred rows); vectors added later join their closest cell when
//! the next look-up runs, and the centroids are chosen again each time the kind has grown
//! [`REBUILD_GROWTH`] times, so a cell holds `√n`-ish rows as the store grows.
//!
//! What it can miss: a vector closer to the query than the `top_k`-th found, in a cell whose
//! centroid is not among the closest [`PROBES`]. Near-duplicates (cosine ≥ 0.85) share a cell
//! or a neighbouring one with the query; conflict resolution also reads the lexical index,
//! which finds a restatement sharing the rarer words.

use super::int8::{dot_i8, Query};
use crate::memory::{Collection, MemoryType};

/// A kind of vector: what a conflict look-up filters by.
pub type Kind = (Collection, MemoryType);

/// Rows of one kind from which the kind is partitioned.
pub const MIN_ROWS: usize = 512;
/// Cells a look-up scans.
pub const PROBES: usize = 8;
/// How many times a kind grows before its centroids are chosen again.
const REBUILD_GROWTH: usize = 4;

/// Where a row is: not yet placed (added since the last look-up of its kind), or in a cell.
const UNPLACED: u32 = u32::MAX;

/// The rows and codes a partition reads, owned by the vector space.
pub trait Rows {
    fn dim(&self) -> usize;
    /// How many rows there are (slots `0..count`).
    fn count(&self) -> usize;
    fn kind(&self, slot: usize) -> Kind;
    fn codes(&self, slot: usize) -> &[i8];
}

#[derive(Debug, Clone, Default)]
struct Group {
    /// Rows of this kind, placed or not.
    rows: usize,
    /// Rows when the centroids were chosen (0: not partitioned).
    built_at: usize,
    /// One centroid's codes per cell, `dim` each, with their scale over norm.
    centroids: Vec<i8>,
    weights: Vec<f32>,
    cells: Vec<Vec<u32>>,
    unplaced: Vec<u32>,
}

/// The partition of one vector space: per kind, its cells; per row, its cell.
#[derive(Debug, Clone, Default)]
pub struct Partition {
    /// A few kinds (collections × types): a list, not a map (less code in the wasm).
    groups: Vec<(Kind, Group)>,
    cell_of: Vec<u32>,
}

impl Partition {
    fn group(&mut self, kind: Kind) -> &mut Group {
        let at = match self.groups.iter().position(|(k, _)| *k == kind) {
            Some(at) => at,
            None => {
                self.groups.push((kind, Group::default()));
                self.groups.len() - 1
            }
        };
        &mut self.groups[at].1
    }

    /// A new row at `slot` (the next one).
    pub fn added(&mut self, slot: usize, kind: Kind) {
        debug_assert_eq!(slot, self.cell_of.len());
        self.cell_of.push(UNPLACED);
        let group = self.group(kind);
        group.rows += 1;
        group.unplaced.push(slot as u32);
    }

    /// The row at `slot` changes (new codes, maybe a new kind): it is placed again.
    pub fn replaced(&mut self, slot: usize, old: Kind, new: Kind) {
        self.detach(slot, old);
        let group = self.group(new);
        group.rows += 1;
        group.unplaced.push(slot as u32);
    }

    /// The row at `slot` is removed and the last row (`last`, of kind `moved`) takes its slot.
    pub fn removed(&mut self, slot: usize, kind: Kind, last: usize, moved: Kind) {
        self.detach(slot, kind);
        if slot != last {
            let cell = self.cell_of[last];
            let group = self.group(moved);
            let list = match cell {
                UNPLACED => &mut group.unplaced,
                c => &mut group.cells[c as usize],
            };
            if let Some(entry) = list.iter_mut().find(|s| **s == last as u32) {
                *entry = slot as u32;
            }
            self.cell_of[slot] = cell;
        }
        self.cell_of.pop();
    }

    fn detach(&mut self, slot: usize, kind: Kind) {
        let cell = std::mem::replace(&mut self.cell_of[slot], UNPLACED);
        let group = self.group(kind);
        group.rows = group.rows.saturating_sub(1);
        let list = match cell {
            UNPLACED => &mut group.unplaced,
            c => &mut group.cells[c as usize],
        };
        if let Some(at) = list.iter().position(|s| *s == slot as u32) {
            list.swap_remove(at);
        }
    }

    /// The rows of `kind` a look-up for `query` scans, in no particular order. A kind below
    /// [`MIN_ROWS`] gives every one of its rows (the exact scan, which reads no other kind's
    /// rows: a rare type among 100k memories cost a scan of all of them per new memory).
    /// Places what was added since the last look-up first.
    pub fn probe(&mut self, rows: &impl Rows, kind: Kind, query: &[i8]) -> Vec<u32> {
        let Some(at) = self.groups.iter().position(|(k, _)| *k == kind) else {
            return Vec::new();
        };
        let group = &mut self.groups[at].1;
        if group.rows < MIN_ROWS {
            // Never built, every row is unplaced; built and shrunk since, some are in cells.
            let mut slots = Vec::with_capacity(group.rows);
            slots.extend_from_slice(&group.unplaced);
            for cell in &group.cells {
                slots.extend_from_slice(cell);
            }
            return slots;
        }
        if group.built_at == 0 || group.rows >= group.built_at * REBUILD_GROWTH {
            build(group, &mut self.cell_of, rows, kind);
        }
        for slot in std::mem::take(&mut group.unplaced) {
            let cell = closest(group, rows.dim(), rows.codes(slot as usize), 1)[0];
            group.cells[cell].push(slot);
            self.cell_of[slot as usize] = cell as u32;
        }
        // Sized once: growing it cell by cell reallocated a few times per look-up.
        let cells = closest(group, rows.dim(), query, PROBES);
        let mut slots = Vec::with_capacity(cells.iter().map(|&c| group.cells[c].len()).sum());
        for cell in cells {
            slots.extend_from_slice(&group.cells[cell]);
        }
        slots
    }
}

/// Chooses `√(2n)` centroids among the kind's rows, evenly spaced, and places every row.
fn build(group: &mut Group, cell_of: &mut [u32], rows: &impl Rows, kind: Kind) {
    let mut slots: Vec<u32> = Vec::new();
    for slot in 0..rows.count() {
        if rows.kind(slot) == kind {
            slots.push(slot as u32);
        }
    }
    let count = ((2 * slots.len()) as f64).sqrt().ceil().max(1.0) as usize;
    let dim = rows.dim();
    group.centroids.clear();
    group.weights.clear();
    for i in 0..count {
        let slot = slots[i * slots.len() / count] as usize;
        let codes = rows.codes(slot);
        group.centroids.extend_from_slice(codes);
        // Over the centroid's norm, so that cells compare by cosine.
        let own = dot_i8(codes, codes) as f32;
        group
            .weights
            .push(if own > 0.0 { 1.0 / own.sqrt() } else { 0.0 });
    }
    group.cells.clear();
    for _ in 0..count {
        group.cells.push(Vec::new());
    }
    group.unplaced.clear();
    for &slot in &slots {
        let cell = closest(group, dim, rows.codes(slot as usize), 1)[0];
        group.cells[cell].push(slot);
        cell_of[slot as usize] = cell as u32;
    }
    group.rows = slots.len();
    group.built_at = slots.len();
}

/// The `n` cells whose centroids score best against `codes`, in no particular order (a scan
/// ranks their rows itself); ties keep the first cell. `n` is small: the worst kept is
/// replaced, nothing is sorted (less code in the wasm).
fn closest(group: &Group, dim: usize, codes: &[i8], n: usize) -> Vec<usize> {
    let mut best: Vec<(f32, usize)> = Vec::with_capacity(n);
    debug_assert_eq!(
        codes.len(),
        dim,
        "a look-up's codes are of the space's dimension"
    );
    let mut dots = vec![0; group.weights.len()];
    Query::new(codes).dot_rows(&group.centroids, &mut dots);
    for (cell, (dot, w)) in dots.iter().zip(&group.weights).enumerate() {
        let score = *dot as f32 * w;
        if best.len() < n {
            best.push((score, cell));
            continue;
        }
        let mut worst = 0;
        for (i, kept) in best.iter().enumerate() {
            if kept.0 < best[worst].0 {
                worst = i;
            }
        }
        if best.get(worst).is_some_and(|kept| score > kept.0) {
            best[worst] = (score, cell);
        }
    }
    let mut cells = Vec::with_capacity(n);
    for (_, cell) in best {
        cells.push(cell);
    }
    cells
}
