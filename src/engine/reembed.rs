//! Re-embedding: every NPC's vectors rebuilt with the configured embedder, which becomes the
//! database's. One page per call so that a Worker stays within its CPU and subrequest limits;
//! the npm package walks every page in one call.

use super::Hippo;
use crate::api::{ReembedReport, ReembedResponse, REEMBED_NPCS_PER_PAGE};
use crate::error::Result;

impl Hippo {
    /// Re-embeds the page of NPCs after `after` (at most `REEMBED_NPCS_PER_PAGE`). The first
    /// page (no `after`) records the configured embedder as the database's; pass `next` until
    /// it is null.
    pub async fn reembed_page(&self, after: Option<&str>) -> Result<ReembedResponse> {
        let embedder = match after {
            None => self.adopt_embedder().await?,
            Some(_) => self.configured_embedder(),
        };
        let page = self.list_npcs(after, REEMBED_NPCS_PER_PAGE).await?;
        let mut vectors: usize = 0;
        for npc in &page.npcs {
            vectors = vectors.saturating_add(self.rebuild_vectors(&npc.npcid).await?);
        }
        Ok(ReembedResponse {
            status: "ok".into(),
            embedder,
            npcs: page.npcs.len(),
            vectors,
            next: page.next,
        })
    }

    /// Re-embeds every NPC, page after page, and sums what was written.
    pub async fn reembed_all(&self) -> Result<ReembedReport> {
        let mut page = self.reembed_page(None).await?;
        let mut vectors = page.vectors;
        while let Some(after) = page.next.take() {
            page = self.reembed_page(Some(&after)).await?;
            vectors = vectors.saturating_add(page.vectors);
        }
        Ok(ReembedReport {
            status: "ok".into(),
            embedder: page.embedder,
            vectors,
        })
    }
}
