//! A coarse partition of one NPC's vectors for conflict resolution's nearest-neighbour
//! look-up ([`crate::ports::VectorFilter::near`]), which runs once per new memory: an
//! exact scan there made filling a store quadratic.
//!
//! The vectors of each kind (collection and memory type) are split into cells, each around a
//! centroid: int8 codes first copied from rows sampled evenly, then moved to the mean of
//! their rows by [`REFINE_ROUNDS`] rounds of k-means over a sample. A look-up scores the
//! centroids, then only the rows of the [`PROBES`] closest cells: a few `√n` rows instead of
//! `n`. A kind is partitioned from [`MIN_ROWS`] rows (below that all its rows are scanned:
//! exact answers for a few hundred rows); vectors added later join their closest cell when
//! the next look-up runs, and the centroids are chosen again each time the kind has grown
//! [`REBUILD_GROWTH`] times, so a cell holds `√n`-ish rows as the store grows.
//!
//! What it can miss: a vector closer to the query than the `top_k`-th found, in a cell whose
//! centroid is not among the closest [`PROBES`]. Near-duplicates (cosine ≥ 0.85) share a cell
//! or a neighbouring one with the query; conflict resolution also reads the lexical index,
//! which finds a restatement sharing the rarer words. `hippo-bench near` measures the share
//! of the exact answer a look-up finds (docs/BENCHMARKS.md).

use super::int8::{dot_i8, Query};
use crate::memory::{Collection, MemoryType};

/// A kind of vector: what a conflict look-up filters by.
pub type Kind = (Collection, MemoryType);

/// Rows of one kind from which the kind is partitioned.
pub const MIN_ROWS: usize = 512;
/// Cells a look-up scans.
pub const PROBES: usize = 6;
/// Rounds of k-means that move the sampled centroids when a kind's cells are built.
const REFINE_ROUNDS: usize = 2;
/// Rows per cell the refinement rounds place (the last placement places every row).
const REFINE_SAMPLE: usize = 16;
/// How many times a kind grows before its centroids are chosen again.
const REBUILD_GROWTH: usize = 4;
/// Rows from which the space is laid out in cell order (below, its codes fit a core's cache).
const LAYOUT_MIN_ROWS: usize = 2048;
/// The rows are laid out again once one in this many is out of its cell's run.
const LAYOUT_STRAYS: usize = 8;

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
    /// Rows added, moved or given new cells since the rows were last laid out in cell order.
    strays: usize,
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
        self.strays += 1;
        let group = self.group(kind);
        group.rows += 1;
        group.unplaced.push(slot as u32);
    }

    /// The row at `slot` changes (new codes, maybe a new kind): it is placed again.
    pub fn replaced(&mut self, slot: usize, old: Kind, new: Kind) {
        self.detach(slot, old);
        self.strays += 1;
        let group = self.group(new);
        group.rows += 1;
        group.unplaced.push(slot as u32);
    }

    /// The row at `slot` is removed and the last row (`last`, of kind `moved`) takes its slot.
    pub fn removed(&mut self, slot: usize, kind: Kind, last: usize, moved: Kind) {
        self.detach(slot, kind);
        if slot != last {
            self.strays += 1;
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

    /// The rows of `kind` a look-up for `query` scans, in no particular order
    /// ([`Partition::probe_each`] for one look-up).
    #[cfg(test)]
    pub fn probe(&mut self, rows: &impl Rows, kind: Kind, query: &[i8]) -> Vec<u32> {
        let mut slots = Vec::new();
        for (cell, _) in self.probe_each(rows, kind, &[query]) {
            slots.extend_from_slice(&cell);
        }
        slots
    }

    /// The rows of `kind` each of `queries` scans, grouped so that a batch of look-ups reads
    /// each row once: every group is a list of slots (one cell's, in cell order) with the
    /// queries that scan it. A kind below [`MIN_ROWS`] is one group of all its rows, for
    /// every query (the exact scan, which reads no other kind's rows: a rare type among 100k
    /// memories cost a scan of all of them per new memory). Places what was added since the
    /// last look-up first.
    pub fn probe_each(
        &mut self,
        rows: &impl Rows,
        kind: Kind,
        queries: &[&[i8]],
    ) -> Vec<(Vec<u32>, Vec<usize>)> {
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
            return vec![(slots, (0..queries.len()).collect())];
        }
        if group.built_at == 0 || group.rows >= group.built_at * REBUILD_GROWTH {
            build(group, &mut self.cell_of, rows, kind);
            self.strays += group.rows;
        }
        for slot in std::mem::take(&mut group.unplaced) {
            let cell = closest(group, rows.dim(), rows.codes(slot as usize), 1)[0];
            group.cells[cell].push(slot);
            self.cell_of[slot as usize] = cell as u32;
        }
        let mut asking: Vec<Vec<usize>> = vec![Vec::new(); group.cells.len()];
        for (q, query) in queries.iter().enumerate() {
            for cell in closest(group, rows.dim(), query, PROBES) {
                asking[cell].push(q);
            }
        }
        let mut probed = Vec::new();
        for (cell, which) in asking.into_iter().enumerate() {
            if !which.is_empty() {
                probed.push((group.cells[cell].clone(), which));
            }
        }
        probed
    }

    /// Whether enough rows are out of their cell's run that the space should lay its rows
    /// out again ([`Partition::lay_out`]).
    pub fn wants_layout(&self, count: usize) -> bool {
        count >= LAYOUT_MIN_ROWS && self.strays * LAYOUT_STRAYS >= count
    }

    /// The slots in cell order — each kind's cells in turn, then its unplaced rows — after
    /// renumbering itself to that order: the space moves the row at `order[i]` to slot `i`,
    /// so each cell's rows are adjacent and a look-up reads a few runs of memory.
    pub fn lay_out(&mut self) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.cell_of.len());
        for (_, group) in &mut self.groups {
            for list in group.cells.iter_mut().chain([&mut group.unplaced]) {
                for slot in list {
                    order.push(*slot);
                    *slot = (order.len() - 1) as u32;
                }
            }
        }
        debug_assert_eq!(order.len(), self.cell_of.len(), "every row is in one list");
        self.cell_of = order
            .iter()
            .map(|&old| self.cell_of[old as usize])
            .collect();
        self.strays = 0;
        order
    }
}

/// Chooses `√(2n)` centroids among the kind's rows, evenly spaced, moves them to the middle of
/// their rows ([`REFINE_ROUNDS`] rounds over a sample), and places every row.
fn build(group: &mut Group, cell_of: &mut [u32], rows: &impl Rows, kind: Kind) {
    build_refined(group, cell_of, rows, kind, REFINE_ROUNDS);
}

fn build_refined(
    group: &mut Group,
    cell_of: &mut [u32],
    rows: &impl Rows,
    kind: Kind,
    rounds: usize,
) {
    let mut slots: Vec<u32> = Vec::new();
    for slot in 0..rows.count() {
        if rows.kind(slot) == kind {
            slots.push(slot as u32);
        }
    }
    let count = ((2 * slots.len()) as f64).sqrt().ceil().max(1.0) as usize;
    group.centroids.clear();
    group.weights.clear();
    for i in 0..count {
        let slot = slots[i * slots.len() / count] as usize;
        let codes = rows.codes(slot);
        group.centroids.extend_from_slice(codes);
        group.weights.push(weight(codes));
    }
    group.cells.clear();
    for _ in 0..count {
        group.cells.push(Vec::new());
    }
    group.unplaced.clear();
    // Lloyd's rounds of k-means on about REFINE_SAMPLE rows per cell: evenly sampled centroids
    // can sit at the edge of their rows, and a look-up then needs more cells for the same
    // answer (`hippo-bench near`: 8 sampled cells found 77% of the exact hits on LongMemEval's
    // turns, 6 refined ones 82%).
    let step = (slots.len() / (REFINE_SAMPLE * count)).max(1);
    let sample: Vec<u32> = slots.iter().step_by(step).copied().collect();
    for _ in 0..rounds {
        place(group, cell_of, rows, &sample);
        recenter(group, rows);
    }
    place(group, cell_of, rows, &slots);
    group.rows = slots.len();
    group.built_at = slots.len();
}

/// A centroid's weight: over its norm, so that cells compare by cosine.
fn weight(codes: &[i8]) -> f32 {
    let own = dot_i8(codes, codes) as f32;
    if own > 0.0 {
        1.0 / own.sqrt()
    } else {
        0.0
    }
}

/// Empties the cells and puts each of `slots` in its closest one.
fn place(group: &mut Group, cell_of: &mut [u32], rows: &impl Rows, slots: &[u32]) {
    for cell in &mut group.cells {
        cell.clear();
    }
    for &slot in slots {
        let cell = closest(group, rows.dim(), rows.codes(slot as usize), 1)[0];
        group.cells[cell].push(slot);
        cell_of[slot as usize] = cell as u32;
    }
}

/// Moves each cell's centroid to the mean of its rows' codes, scaled back to int8 (the
/// direction is what a cosine compares); an empty cell keeps its centroid.
fn recenter(group: &mut Group, rows: &impl Rows) {
    let dim = rows.dim();
    let mut sum = vec![0i32; dim];
    for (cell, members) in group.cells.iter().enumerate() {
        if members.is_empty() {
            continue;
        }
        sum.fill(0);
        for &slot in members {
            for (total, &code) in sum.iter_mut().zip(rows.codes(slot as usize)) {
                *total += i32::from(code);
            }
        }
        let largest = sum.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0);
        if largest == 0 {
            continue;
        }
        let scale = 127.0 / largest as f32;
        let centroid = &mut group.centroids[cell * dim..(cell + 1) * dim];
        for (code, &total) in centroid.iter_mut().zip(&sum) {
            *code = (total as f32 * scale).round() as i8;
        }
        group.weights[cell] = weight(centroid);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::int8::quantize;

    const KIND: Kind = (Collection::Memory, MemoryType::Profile);

    struct Table {
        dim: usize,
        codes: Vec<Vec<i8>>,
    }

    impl Rows for Table {
        fn dim(&self) -> usize {
            self.dim
        }
        fn count(&self) -> usize {
            self.codes.len()
        }
        fn kind(&self, _: usize) -> Kind {
            KIND
        }
        fn codes(&self, slot: usize) -> &[i8] {
            &self.codes[slot]
        }
    }

    /// Rows around `topics` centres (what a store of memories on a few subjects looks like
    /// to an embedder), from a fixed-seed generator; each topic's rows arrive together, so
    /// evenly spaced samples pick centroids without regard to where the rows lie.
    fn topical(topics: usize, per_topic: usize, dim: usize, spread: f32) -> Table {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f32 / (1u64 << 53) as f32 - 0.5
        };
        let mut codes = Vec::new();
        for _ in 0..topics {
            let centre: Vec<f32> = (0..dim).map(|_| next()).collect();
            for _ in 0..per_topic {
                let row: Vec<f32> = centre.iter().map(|c| c + spread * next()).collect();
                codes.push(quantize(&row).codes);
            }
        }
        Table { dim, codes }
    }

    fn cosine(a: &[i8], b: &[i8]) -> f32 {
        dot_i8(a, b) as f32 * weight(a) * weight(b)
    }

    /// The share of each query's 8 most similar rows (by cosine over the codes) that are in
    /// the cells it probes.
    fn recall(table: &Table, partition: &mut Partition, queries: &[usize]) -> f64 {
        let (mut found, mut wanted) = (0, 0);
        for &q in queries {
            let query = &table.codes[q];
            let mut exact: Vec<(f32, usize)> = (0..table.count())
                .filter(|&s| s != q)
                .map(|s| (cosine(query, &table.codes[s]), s))
                .collect();
            exact.sort_by(|a, b| b.0.total_cmp(&a.0));
            let probed = partition.probe(table, KIND, query);
            for &(_, slot) in exact.iter().take(8) {
                wanted += 1;
                found += usize::from(probed.contains(&(slot as u32)));
            }
        }
        found as f64 / wanted as f64
    }

    fn built(table: &Table, rounds: usize) -> Partition {
        let mut partition = Partition::default();
        for slot in 0..table.count() {
            partition.added(slot, KIND);
        }
        let group = &mut partition.groups[0].1;
        build_refined(group, &mut partition.cell_of, table, KIND, rounds);
        partition
    }

    #[test]
    fn refined_centroids_find_more_of_the_exact_neighbours_than_sampled_ones() {
        // 200 topics, 3,000 rows, 78 cells: a topic's rows are spread over several cells
        // around sampled centroids (0.64 of the exact neighbours probed when measured) and
        // gathered by the refined ones (0.86).
        let table = topical(200, 15, 64, 1.0);
        let queries: Vec<usize> = (0..table.count()).step_by(37).collect();
        let sampled = recall(&table, &mut built(&table, 0), &queries);
        let refined = recall(&table, &mut built(&table, REFINE_ROUNDS), &queries);
        assert!(
            refined > sampled + 0.1 && refined > 0.8,
            "refined {refined:.3}, sampled {sampled:.3}"
        );
        // Every row is placed exactly once, whatever the rounds moved.
        let partition = built(&table, REFINE_ROUNDS);
        let group = &partition.groups[0].1;
        let mut placed: Vec<u32> = group.cells.iter().flatten().copied().collect();
        placed.sort_unstable();
        assert_eq!(placed, (0..table.count() as u32).collect::<Vec<_>>());
        for (slot, &cell) in partition.cell_of.iter().enumerate() {
            assert!(group.cells[cell as usize].contains(&(slot as u32)));
        }
    }
}
