//! The in-memory vector index: a scan per NPC over int8-quantised vectors, the best of which
//! are rescored, with a compact binary snapshot (the npm package persists it beside the store
//! snapshot). Its per-NPC [`VectorSpace`] is also what the Worker's D1 vector index keeps in
//! each isolate.
//!
//! Quantisation (measured in docs/BENCHMARKS.md, "Retrieval latency"): each vector is kept as
//! one byte per dimension plus its scale (`value ≈ code × scale`) and its norm, a quarter of
//! the f32 bytes. A query is quantised the same way and scanned with integer dot products
//! (SIMD where the build has it); the [`RESCORE_FACTOR`] × `top_k` best are then rescored with
//! the query's f32 values against the stored codes, which removes the query's share of the
//! rounding, and the `top_k` best of those are returned with that score.

use super::int8::{dot_f32_i8, quantize, Quantized, Query};
use super::partition::{Kind, Partition, Rows};
use super::Sink;
use crate::error::PortError;
use crate::memory::{Collection, MemoryType};
use crate::ports::*;
use crate::retrieval::embed::dot;
use async_trait::async_trait;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

/// How many candidates per asked-for result the integer scan keeps for rescoring.
pub const RESCORE_FACTOR: usize = 4;
/// The smallest shortlist rescored, whatever `top_k` (small `top_k`s gain most from it).
const RESCORE_MIN: usize = 32;

/// One NPC's vectors, laid out for a fast scan: codes in fixed blocks of rows (`dim` per
/// slot), scales and norms beside them, metadata beside those, and ids only cloned for the top
/// hits. All of one dimension (the first vector's).
#[derive(Debug, Default, Clone)]
pub struct VectorSpace {
    dim: usize,
    ids: Vec<Box<str>>,
    meta: Vec<(Collection, MemoryType)>,
    /// The norm of each vector as it was given (cosine's denominator).
    norms: Vec<f32>,
    scales: Vec<f32>,
    /// `scale / norm` of each row (0 for a zero vector): what the scan multiplies its integer
    /// dot product by, so it divides nothing per row.
    weights: Vec<f32>,
    codes: CodeRows,
    /// Foldhash, not the standard SipHash: a fill looks ids up here several times per new
    /// memory, and a layout renumbers every row.
    slot_of: foldhash::HashMap<Box<str>, u32>,
    /// Cells of each kind for [`VectorSpace::query_near`], kept in step with the rows.
    partition: Partition,
}

impl Rows for VectorSpace {
    fn dim(&self) -> usize {
        self.dim
    }

    fn count(&self) -> usize {
        self.ids.len()
    }

    fn kind(&self, slot: usize) -> Kind {
        self.meta[slot]
    }

    fn codes(&self, slot: usize) -> &[i8] {
        self.row(slot)
    }
}

impl VectorSpace {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Inserts or replaces the item with its id; an item of another dimension is refused.
    pub fn upsert(&mut self, item: VectorItem) -> PortResult<()> {
        let norm = dot(&item.values, &item.values).sqrt();
        let quantized = quantize(&item.values);
        self.put(
            item.id,
            (item.collection, item.memory_type),
            norm,
            quantized,
        )
    }

    fn put(
        &mut self,
        id: String,
        meta: (Collection, MemoryType),
        norm: f32,
        q: Quantized,
    ) -> PortResult<()> {
        if self.ids.is_empty() {
            self.dim = q.codes.len();
            self.codes = CodeRows::new(self.dim);
        } else if q.codes.len() != self.dim {
            return Err(PortError::Backend(format!(
                "vector of dimension {} in an index of dimension {}",
                q.codes.len(),
                self.dim
            )));
        }
        match self.slot_of.get(id.as_str()) {
            Some(&slot) => {
                let slot = slot as usize;
                self.partition.replaced(slot, self.meta[slot], meta);
                self.meta[slot] = meta;
                self.norms[slot] = norm;
                self.scales[slot] = q.scale;
                self.weights[slot] = weight(q.scale, norm);
                self.codes.row_mut(slot).copy_from_slice(&q.codes);
            }
            None => {
                let slot = u32::try_from(self.ids.len())
                    .map_err(|_| PortError::Backend("vector index is full".into()))?;
                let id: Box<str> = id.into();
                self.slot_of.insert(id.clone(), slot);
                self.partition.added(slot as usize, meta);
                self.ids.push(id);
                self.meta.push(meta);
                self.norms.push(norm);
                self.scales.push(q.scale);
                self.weights.push(weight(q.scale, norm));
                self.codes.push(&q.codes);
            }
        }
        Ok(())
    }

    /// Removes the item with this id, if any.
    pub fn remove(&mut self, id: &str) {
        let Some(slot) = self.slot_of.remove(id) else {
            return;
        };
        let slot = slot as usize;
        let last = self.ids.len() - 1;
        self.partition
            .removed(slot, self.meta[slot], last, self.meta[last]);
        if slot != last {
            // Move the last slot into the hole.
            self.codes.move_last_to(slot);
            self.ids.swap(slot, last);
            self.meta.swap(slot, last);
            self.norms.swap(slot, last);
            self.scales.swap(slot, last);
            self.weights.swap(slot, last);
            self.renumber(slot);
        }
        self.ids.pop();
        self.meta.pop();
        self.norms.pop();
        self.scales.pop();
        self.weights.pop();
        self.codes.pop();
    }

    fn row(&self, slot: usize) -> &[i8] {
        self.codes.row(slot)
    }

    /// The `top_k` best cosines among the slots the filter keeps: best first, ties by id.
    /// A query of another dimension finds nothing.
    pub fn query(&self, vector: &[f32], top_k: usize, filter: &VectorFilter) -> Vec<(String, f32)> {
        let Some(q) = self.quantize_query(vector, top_k) else {
            return Vec::new();
        };
        self.scan(vector, &q, top_k, filter)
    }

    /// [`VectorSpace::query`] for conflict resolution: for one collection and one type, the
    /// best among that kind's rows only — every one of a small kind, those of the cells
    /// closest to the query of a large one (see [`super::partition`]); otherwise the exact
    /// query.
    pub fn query_near(
        &mut self,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> Vec<(String, f32)> {
        self.query_near_each(&[vector], top_k, filter)
            .pop()
            .unwrap_or_default()
    }

    /// [`VectorSpace::query_near`] for each of `vectors` (one answer each, in order), each
    /// answered as alone. The look-ups share the work of reading rows: a probed cell's rows
    /// are read once, a few at a time, and scored for every look-up that probes the cell (a
    /// call of 100 new memories probes each row ~7 times on real turns, LongMemEval_S at
    /// 100k; the scoring is the same work either way, docs/BENCHMARKS.md).
    pub fn query_near_each(
        &mut self,
        vectors: &[&[f32]],
        top_k: usize,
        filter: &VectorFilter,
    ) -> Vec<Vec<(String, f32)>> {
        let ([collection], [memory_type]) =
            (filter.collections.as_slice(), filter.types.as_slice())
        else {
            return vectors
                .iter()
                .map(|v| self.query(v, top_k, filter))
                .collect();
        };
        let kind = (*collection, *memory_type);
        if self.partition.wants_layout(self.len()) {
            self.lay_out();
        }
        // The look-ups that can find something, with their codes and shortlists.
        let mut asked = Vec::new();
        let mut lists = Vec::new();
        for (at, vector) in vectors.iter().enumerate() {
            if let Some(q) = self.quantize_query(vector, top_k) {
                lists.push(Shortlist::new(vector, &q, top_k, filter));
                asked.push((at, q));
            }
        }
        let codes: Vec<&[i8]> = asked.iter().map(|(_, q)| q.codes.as_slice()).collect();
        let mut partition = std::mem::take(&mut self.partition);
        let probed = partition.probe_each(self, kind, &codes);
        self.partition = partition;
        let queries: Vec<Query> = codes.iter().map(|c| Query::new(c)).collect();
        let kinds = KindMask::new(filter);
        for (slots, which) in &probed {
            self.scan_runs(&runs_of(slots), &queries, which, &mut lists, &kinds);
        }
        let mut answers = Vec::new();
        answers.resize_with(vectors.len(), Vec::new);
        for ((at, _), list) in asked.into_iter().zip(lists) {
            answers[at] = self.rescored_list(vectors[at], list, top_k);
        }
        answers
    }

    /// Moves the rows to the partition's cell order. Scattered over the space, a probed
    /// cell's rows were each a likely cache miss; laid out, a near look-up among 30k–100k
    /// rows takes 35–40% less time (docs/BENCHMARKS.md, "Writes: rows laid out by cell").
    /// In place, a cycle of the permutation at a time: a copy would double the codes' memory.
    fn lay_out(&mut self) {
        let mut order = self.partition.lay_out();
        let mut held = (vec![0; self.dim], vec![0; self.dim]);
        for start in 0..order.len() {
            // Each swap puts the row slot `at` takes in place (marked by pointing at itself);
            // the cycle's last takes the first's.
            let mut at = start;
            loop {
                let next = order[at] as usize;
                order[at] = at as u32;
                if next == start {
                    break;
                }
                self.swap_rows(at, next, &mut held);
                at = next;
            }
        }
        for slot in 0..self.ids.len() {
            self.renumber(slot);
        }
    }

    /// Points the id at `slot` to it (its row has moved there).
    fn renumber(&mut self, slot: usize) {
        if let Some(entry) = self.slot_of.get_mut(&self.ids[slot]) {
            *entry = slot as u32;
        }
    }

    fn swap_rows(&mut self, a: usize, b: usize, (row_a, row_b): &mut (Vec<i8>, Vec<i8>)) {
        self.ids.swap(a, b);
        self.meta.swap(a, b);
        self.norms.swap(a, b);
        self.scales.swap(a, b);
        self.weights.swap(a, b);
        row_a.copy_from_slice(self.codes.row(a));
        row_b.copy_from_slice(self.codes.row(b));
        self.codes.row_mut(a).copy_from_slice(row_b);
        self.codes.row_mut(b).copy_from_slice(row_a);
    }

    /// The cosine of `vector` with each of `ids` this space holds, best first: each row
    /// rescored as any query's shortlist is. Every row is kept, so there is no integer scan
    /// to shortlist them (quantising the query and scanning were a third of the call).
    pub fn similarities(&self, vector: &[f32], ids: &[String]) -> Vec<(String, f32)> {
        let qnorm = dot(vector, vector).sqrt();
        if vector.len() != self.dim || qnorm == 0.0 || !qnorm.is_finite() {
            return Vec::new();
        }
        let mut hits = Vec::with_capacity(ids.len());
        for id in ids {
            let Some(&slot) = self.slot_of.get(id.as_str()) else {
                continue;
            };
            // A zero vector's weight is 0: it is never a hit (as in a scan).
            if self.weights[slot as usize] > 0.0 {
                hits.push(self.rescored(vector, qnorm, slot as usize));
            }
        }
        ranked(hits, ids.len())
    }

    /// The cosine of the query's f32 values with a row's codes, as a hit.
    fn rescored(&self, vector: &[f32], qnorm: f32, slot: usize) -> Hit<&str> {
        Hit {
            score: dot_f32_i8(vector, self.row(slot)) * self.scales[slot]
                / (self.norms[slot] * qnorm),
            id: &self.ids[slot],
        }
    }

    /// The query's codes, or `None` when it can find nothing.
    fn quantize_query(&self, vector: &[f32], top_k: usize) -> Option<Quantized> {
        if vector.len() != self.dim || top_k == 0 {
            return None;
        }
        let qnorm = dot(vector, vector).sqrt();
        if qnorm == 0.0 || !qnorm.is_finite() {
            return None;
        }
        Some(quantize(vector))
    }

    /// The `top_k` best of every row the filter keeps, by an integer scan and a rescored
    /// shortlist.
    fn scan(
        &self,
        vector: &[f32],
        q: &Quantized,
        top_k: usize,
        filter: &VectorFilter,
    ) -> Vec<(String, f32)> {
        let mut lists = [Shortlist::new(vector, q, top_k, filter)];
        let every_row = [(0, self.len())];
        self.scan_runs(
            &every_row,
            &[Query::new(&q.codes)],
            &[0],
            &mut lists,
            &KindMask::new(filter),
        );
        let [list] = lists;
        self.rescored_list(vector, list, top_k)
    }

    /// Scores the rows of `runs` (first slot, count) for each of the queries `which` names,
    /// into their shortlists, a few rows at a time: a piece stays in the core's cache while
    /// every query scores it, and the kernel's loop over a piece's rows stays tight. Laid out,
    /// a probed cell's rows are one run.
    fn scan_runs(
        &self,
        runs: &[(usize, usize)],
        queries: &[Query],
        which: &[usize],
        lists: &mut [Shortlist],
        kinds: &KindMask,
    ) {
        /// Rows read at a time: 12 KB of codes at 384 dimensions.
        const PIECE: usize = 32;
        let mut dots = [0i32; PIECE];
        for &(mut first, count) in runs {
            let end = first + count;
            while first < end {
                let in_block = CodeRows::BLOCK - (first & (CodeRows::BLOCK - 1));
                let rows = (end - first).min(in_block).min(PIECE);
                let codes = self.codes.run(first, rows);
                for &q in which {
                    queries[q].dot_rows(codes, &mut dots[..rows]);
                    self.offer_all(first, &dots[..rows], &mut lists[q], kinds);
                }
                first += rows;
            }
        }
    }

    /// Offers the rows from `first` on, with these integer dot products, to a shortlist.
    /// Scores are scaled dot products over norms, comparable across slots; a zero vector's
    /// weight is 0 and it is never kept.
    fn offer_all(&self, first: usize, dots: &[i32], list: &mut Shortlist, kinds: &KindMask) {
        let weights = &self.weights[first..first + dots.len()];
        for (i, (&dot, &weight)) in dots.iter().zip(weights).enumerate() {
            let score = dot as f32 * weight;
            // Most rows fail this one comparison, so the rest of the work is rare.
            if score >= list.bar && weight > 0.0 && kinds.keeps(self.meta[first + i]) {
                list.offer(first + i, score);
            }
        }
    }

    /// A shortlist rescored with the query's own values: its `top_k` best.
    fn rescored_list(&self, vector: &[f32], list: Shortlist, top_k: usize) -> Vec<(String, f32)> {
        let qnorm = dot(vector, vector).sqrt();
        let hits = list
            .best
            .into_iter()
            .map(|h| self.rescored(vector, qnorm, h.id))
            .collect();
        ranked(hits, top_k)
    }
}

/// Consecutive slots as runs (first slot, count).
fn runs_of(slots: &[u32]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &slot in slots {
        match runs.last_mut() {
            Some((first, count)) if *first + *count == slot as usize => *count += 1,
            _ => runs.push((slot as usize, 1)),
        }
    }
    runs
}

/// An integer scan's best rows so far for one query: a bounded heap, worst on top.
struct Shortlist {
    best: BinaryHeap<Hit<usize>>,
    size: usize,
    /// What a row's score must reach to be offered: the worst kept once the heap is full;
    /// until then, with a floor, what a row whose rescored cosine reaches the floor scores.
    bar: f32,
}

impl Shortlist {
    fn new(vector: &[f32], q: &Quantized, top_k: usize, filter: &VectorFilter) -> Self {
        let size = top_k.saturating_mul(RESCORE_FACTOR).max(RESCORE_MIN);
        let bar = filter.floor.map_or(f32::NEG_INFINITY, |floor| {
            floor_score(vector, dot(vector, vector).sqrt(), q, floor)
        });
        Self {
            best: BinaryHeap::with_capacity(size + 1),
            size,
            bar,
        }
    }

    /// Keeps the row if it is better than the worst kept, or above the floor while there is
    /// room. A tie on score goes to the smaller slot, so what is kept does not depend on the
    /// order rows are offered in (a batch of look-ups reads cells in another order).
    fn offer(&mut self, slot: usize, score: f32) {
        let hit = Hit { score, id: slot };
        if self.best.len() < self.size {
            if score > self.bar {
                self.best.push(hit);
            }
        } else if let Some(mut worst) = self.best.peek_mut() {
            // Full: the new hit takes the worst one's place, one sift down (a pop and a push
            // sifted twice; a retrieval at 10k offers thousands of rows).
            if hit < *worst {
                *worst = hit;
            }
        }
        if self.best.len() == self.size {
            self.bar = self.best.peek().map_or(self.bar, |worst| worst.score);
        }
    }
}

/// The `top_k` best of rescored `hits`, best first (ties by id).
fn ranked(mut hits: Vec<Hit<&str>>, top_k: usize) -> Vec<(String, f32)> {
    // Through the one shared sort: each `sort` instantiation costs the npm wasm ~1 KB.
    crate::order::sort_by(&mut hits, Hit::cmp);
    hits.truncate(top_k);
    hits.into_iter()
        .map(|h| (h.id.to_string(), h.score))
        .collect()
}

/// What a scan's filter keeps, as a table by collection and type: one look-up per row.
struct KindMask([[bool; MemoryType::ALL.len()]; Collection::ALL.len()]);

impl KindMask {
    fn new(filter: &VectorFilter) -> Self {
        let mut table = [[false; MemoryType::ALL.len()]; Collection::ALL.len()];
        for collection in Collection::ALL {
            for memory_type in MemoryType::ALL {
                table[collection as usize][memory_type as usize] = (filter.collections.is_empty()
                    || filter.collections.contains(&collection))
                    && (filter.types.is_empty() || filter.types.contains(&memory_type));
            }
        }
        Self(table)
    }

    fn keeps(&self, (collection, memory_type): Kind) -> bool {
        self.0[collection as usize][memory_type as usize]
    }
}

/// The integer score below which a row's rescored cosine with the query is below `floor`.
///
/// A score times `q.scale / qnorm` is the cosine of the quantised query with the row's codes;
/// the rescored cosine uses the query's own values, and the two differ by at most
/// `‖q − q̂‖ · ‖r̂‖ / (‖q‖ · ‖r‖)` (Cauchy–Schwarz), where `‖r̂‖ ≤ 1.5 ‖r‖` for any dimension up to
/// 127² (each code is off by at most half a step). So the floor less that margin, in score
/// units, drops nothing the floor keeps; a small slack covers float rounding.
fn floor_score(vector: &[f32], qnorm: f32, q: &Quantized, floor: f32) -> f32 {
    let error: f32 = vector
        .iter()
        .zip(&q.codes)
        .map(|(v, c)| (v - f32::from(*c) * q.scale).powi(2))
        .sum::<f32>()
        .sqrt();
    let margin = 1.5 * error / qnorm + 1e-3;
    (floor - margin) * qnorm / q.scale
}

/// `scale / norm`: 0 for a zero vector (a scan never keeps it).
fn weight(scale: f32, norm: f32) -> f32 {
    if norm > 0.0 {
        scale / norm
    } else {
        0.0
    }
}

/// Rows of codes in blocks of [`CodeRows::BLOCK`] rows. One flat `Vec` doubles as it grows,
/// so at 100k vectors it held up to twice the codes and, while it moved, three times (wasm
/// memory never shrinks back); blocks grow by one block and never move.
#[derive(Debug, Default, Clone)]
struct CodeRows {
    dim: usize,
    rows: usize,
    blocks: Vec<Vec<i8>>,
}

impl CodeRows {
    const BLOCK_BITS: u32 = 10;
    const BLOCK: usize = 1 << Self::BLOCK_BITS;

    fn new(dim: usize) -> Self {
        Self {
            dim,
            ..Self::default()
        }
    }

    fn at(&self, slot: usize) -> (usize, std::ops::Range<usize>) {
        let start = (slot & (Self::BLOCK - 1)) * self.dim;
        (slot >> Self::BLOCK_BITS, start..start + self.dim)
    }

    fn row(&self, slot: usize) -> &[i8] {
        let (block, range) = self.at(slot);
        &self.blocks[block][range]
    }

    /// The codes of `count` consecutive rows from `first`, all in `first`'s block.
    fn run(&self, first: usize, count: usize) -> &[i8] {
        let (block, range) = self.at(first);
        &self.blocks[block][range.start..range.start + count * self.dim]
    }

    fn row_mut(&mut self, slot: usize) -> &mut [i8] {
        let (block, range) = self.at(slot);
        &mut self.blocks[block][range]
    }

    fn push(&mut self, codes: &[i8]) {
        if self.rows & (Self::BLOCK - 1) == 0 {
            self.blocks.push(Vec::with_capacity(Self::BLOCK * self.dim));
        }
        if let Some(block) = self.blocks.last_mut() {
            block.extend_from_slice(codes);
        }
        self.rows += 1;
    }

    /// Copies the last row over `slot` (a removal's swap); [`CodeRows::pop`] then drops it.
    fn move_last_to(&mut self, slot: usize) {
        // Through a copy: the two rows may be in different blocks (removals are rare).
        let last = self.row(self.rows - 1).to_vec();
        self.row_mut(slot).copy_from_slice(&last);
    }

    fn pop(&mut self) {
        self.rows -= 1;
        let keep = (self.rows & (Self::BLOCK - 1)) * self.dim;
        if keep == 0 {
            self.blocks.pop();
        } else if let Some(block) = self.blocks.last_mut() {
            block.truncate(keep);
        }
    }
}

/// A scored entry, ordered best first: higher score, then smaller id.
struct Hit<I> {
    score: f32,
    id: I,
}

impl<I: Ord> Ord for Hit<I> {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.id.cmp(&other.id))
    }
}

impl<I: Ord> PartialOrd for Hit<I> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<I: Ord> PartialEq for Hit<I> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<I: Ord> Eq for Hit<I> {}

/// A brute-force vector index in memory, partitioned by NPC.
#[derive(Debug, Default)]
pub struct MemoryVectorIndex {
    npcs: RefCell<BTreeMap<String, VectorSpace>>,
    generation: Cell<u64>,
}

impl MemoryVectorIndex {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// How many vectors the NPC has (tests count deletions with it).
    pub fn count(&self, npcid: &str) -> usize {
        self.npcs.borrow().get(npcid).map_or(0, VectorSpace::len)
    }

    /// Whether the NPC has a vector with this id (tests check which records have one).
    pub fn has(&self, npcid: &str, id: &str) -> bool {
        self.npcs
            .borrow()
            .get(npcid)
            .is_some_and(|space| space.slot_of.contains_key(id))
    }

    fn bump(&self) {
        self.generation.set(self.generation.get() + 1);
    }

    /// What `f` answers from the NPC's vectors (a near query places new rows, hence `mut`);
    /// nothing for an NPC without any.
    fn with_space<T: Default>(&self, npcid: &str, f: impl FnOnce(&mut VectorSpace) -> T) -> T {
        self.npcs
            .borrow_mut()
            .get_mut(npcid)
            .map(f)
            .unwrap_or_default()
    }
}

#[async_trait(?Send)]
impl VectorIndex for MemoryVectorIndex {
    async fn upsert(&self, npcid: &str, items: Vec<VectorItem>) -> PortResult<()> {
        let mut npcs = self.npcs.borrow_mut();
        let space = npcs.entry(npcid.to_string()).or_default();
        let result = items.into_iter().try_for_each(|item| space.upsert(item));
        drop(npcs);
        self.bump();
        result
    }

    async fn query(
        &self,
        npcid: &str,
        vector: &[f32],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<(String, f32)>> {
        Ok(self.with_space(npcid, |space| match filter.near {
            true => space.query_near(vector, top_k, filter),
            false => space.query(vector, top_k, filter),
        }))
    }

    async fn query_each(
        &self,
        npcid: &str,
        vectors: &[&[f32]],
        top_k: usize,
        filter: &VectorFilter,
    ) -> PortResult<Vec<Vec<(String, f32)>>> {
        let mut answers = self.with_space(npcid, |space| match filter.near {
            true => space.query_near_each(vectors, top_k, filter),
            false => vectors
                .iter()
                .map(|v| space.query(v, top_k, filter))
                .collect(),
        });
        answers.resize_with(vectors.len(), Vec::new);
        Ok(answers)
    }

    async fn similarities(
        &self,
        npcid: &str,
        vector: &[f32],
        ids: &[String],
    ) -> PortResult<Vec<(String, f32)>> {
        Ok(self.with_space(npcid, |space| space.similarities(vector, ids)))
    }

    async fn delete(&self, npcid: &str, ids: &[String]) -> PortResult<()> {
        if let Some(space) = self.npcs.borrow_mut().get_mut(npcid) {
            for id in ids {
                space.remove(id);
            }
        }
        self.bump();
        Ok(())
    }

    async fn delete_npc(&self, npcid: &str) -> PortResult<()> {
        // Emptied, not removed: the id stays in the map with an empty space (nothing of it is
        // in a snapshot, so it is gone at the next open). A `BTreeMap::remove` of this large
        // value cost the npm wasm 1.3 KB of its gzip budget (docs/BENCHMARKS.md).
        if let Some(space) = self.npcs.borrow_mut().get_mut(npcid) {
            *space = VectorSpace::default();
        }
        self.bump();
        Ok(())
    }

    fn score_error(&self, dim: usize) -> Option<f32> {
        Some(rescored_error(dim))
    }
}

/// [`VectorIndex::score_error`] of a [`VectorSpace`]'s scores (a rescored row: the query's f32
/// values against the stored codes). Each code is within half a step of its value (the step is
/// the largest |value| ÷ 127, so nothing is clamped), so the stored vector `v` moves by at most
/// `step / 2 · √dim ≤ |v| · √dim / 254`, and a cosine by at most `√dim / 254` (0.077 at 384
/// dimensions); the slack covers the float sums' rounding.
pub fn rescored_error(dim: usize) -> f32 {
    (dim as f32).sqrt() / 254.0 + 1e-3
}

mod snapshot;

#[cfg(test)]
mod tests;
