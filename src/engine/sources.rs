//! The turns a retrieved item came from (`include_sources` of the search route; see
//! docs/LIFECYCLE.md, "Source links"): each item's links, read back as the quotes the dream
//! kept of those turns — never the log's raw words, which may hold what the sensitivity
//! detector removed.

use super::Hippo;
use crate::api::protocol::truncate_summary;
use crate::api::SourceTurn;
use crate::conversation::{EntryKind, Role, Turn};
use crate::dream::records::content_record_id;
use crate::error::Result;
use crate::retrieval::query::split_speaker;
use crate::retrieval::rank::Ranked;
use crate::sensitive;

/// Source turns one item lists at most: its first links (a diary day links to up to 64
/// turns; the admin listing of the record shows them all).
pub const MAX_SOURCES_PER_ITEM: usize = 5;

impl Hippo {
    /// For each of `ranked`, the turns it came from that are still kept, in link order.
    /// Without `include_sensitive`, a quote that is marked sensitive or that the detector
    /// flags is left out, as memory_retrieval leaves such items out.
    pub(super) async fn sources(
        &self,
        npcid: &str,
        ranked: &[Ranked],
        include_sensitive: bool,
    ) -> Result<Vec<Vec<SourceTurn>>> {
        fn links(r: &Ranked) -> impl Iterator<Item = &String> {
            r.candidate.source_turns.iter().take(MAX_SOURCES_PER_ITEM)
        }
        let mut wanted: Vec<String> = Vec::new();
        for id in ranked.iter().flat_map(links) {
            if !wanted.contains(id) {
                wanted.push(id.clone());
            }
        }
        // Small lists (at most 50 items of 5 links): searched in place, no map type of their
        // own in the wasm builds.
        let quotes = self.quotes(npcid, &wanted, include_sensitive).await?;
        Ok(ranked
            .iter()
            .map(|r| {
                links(r)
                    .filter_map(|id| quotes.iter().find(|q| &q.turn_id == id).cloned())
                    .collect()
            })
            .collect())
    }

    /// The kept quotes of the turns of `ids` that have one.
    async fn quotes(
        &self,
        npcid: &str,
        ids: &[String],
        include_sensitive: bool,
    ) -> Result<Vec<SourceTurn>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let store = &self.ports.store;
        let turns = store.turns_by_id(npcid, ids).await?;
        let record_ids: Vec<String> = turns
            .iter()
            .map(|t| content_record_id(npcid, t.seq))
            .collect();
        let records = store.memories_by_id(npcid, &record_ids).await?;
        let now = self.now();
        let mut out = Vec::new();
        for (turn, record_id) in turns.into_iter().zip(record_ids) {
            // Nothing of the turn was kept (a secret only), or it expired or was deleted.
            let Some(record) = records.iter().find(|m| m.id == record_id) else {
                continue;
            };
            // The record of this very turn, still live.
            if *record.source_turns != [turn.id.clone()] || record.is_expired(now) {
                continue;
            }
            let (_, text) = split_speaker(&record.summary);
            if !include_sensitive && (record.sensitive || sensitive::category_of(text).is_some()) {
                continue;
            }
            out.push(SourceTurn {
                role: role(&turn).to_string(),
                ts: turn.ts,
                text: truncate_summary(text),
                turn_id: turn.id,
            });
        }
        Ok(out)
    }
}

fn role(turn: &Turn) -> &'static str {
    match (turn.kind, turn.role) {
        (EntryKind::Summary, _) => "summary",
        (_, Some(Role::User)) => "user",
        _ => "assistant",
    }
}
