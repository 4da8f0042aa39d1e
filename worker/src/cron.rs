//! The Cron Trigger: dream every NPC that has new conversation material.
//!
//! One invocation dreams at most [`MAX_DREAMS`] NPCs and looks at most at [`MAX_SCANNED`]
//! (Worker limits: CPU time, D1 queries per invocation). A cursor in the meta table remembers
//! where it stopped, so the next invocation continues there; past the last NPC it wraps to the
//! first, once per invocation.

use hippo::error::Error;
use hippo::ports::Store;
use hippo::Hippo;
use serde::Serialize;

pub const CURSOR_KEY: &str = "cron.dream.cursor";
pub const MAX_DREAMS: usize = 20;
pub const MAX_SCANNED: usize = 500;
const PAGE: usize = 50;

#[derive(Debug, Default, Serialize, PartialEq)]
pub struct CronSummary {
    pub scanned: usize,
    pub dreamt: usize,
    pub failed: usize,
    /// Where the next invocation starts (`None`: from the first NPC).
    pub cursor: Option<String>,
}

/// One log line per NPC dreamt.
fn log_line(npcid: &str, outcome: &Result<hippo::api::DreamReport, Error>) -> String {
    match outcome {
        Ok(report) => format!(
            "cron dream npc={npcid} skipped={} diary={} entity_ops={} pkg_updates={} error={}",
            report.skipped,
            report
                .diary
                .as_ref()
                .map_or("-".to_string(), |d| d.date.clone()),
            report
                .extractions
                .as_ref()
                .map_or(0, |e| e.entity_ops_count),
            report
                .extractions
                .as_ref()
                .map_or(0, |e| e.pkg_updates_count),
            report.error.as_deref().unwrap_or("none"),
        ),
        Err(err) => format!("cron dream npc={npcid} failed: {err}"),
    }
}

/// Whether the NPC has turns the last dream did not consume.
async fn has_new_material(store: &dyn Store, npc: &hippo::npc::Npc) -> Result<bool, Error> {
    Ok(store.last_seq(&npc.npcid).await? > npc.watermark)
}

pub async fn dream_due(hippo: &Hippo) -> Result<CronSummary, Error> {
    let store = hippo.ports().store.clone();
    let start = store.meta(CURSOR_KEY).await?.filter(|c| !c.is_empty());
    let mut summary = CronSummary::default();
    let mut after = start.clone();
    let mut wrapped = start.is_none();
    'pages: loop {
        let page = store.list_npcs(after.as_deref(), PAGE).await?;
        if page.is_empty() {
            if wrapped {
                after = None; // everything seen: the next run starts from the top
                break;
            }
            wrapped = true;
            after = None;
            continue;
        }
        for npc in page {
            // After wrapping, stop where this invocation began.
            if wrapped && start.as_deref().is_some_and(|s| npc.npcid.as_str() > s) {
                after = start.clone();
                break 'pages;
            }
            after = Some(npc.npcid.clone());
            summary.scanned += 1;
            if has_new_material(&*store, &npc).await? {
                let outcome = hippo.dream(&npc.npcid, false).await;
                worker::console_log!("{}", log_line(&npc.npcid, &outcome));
                summary.dreamt += 1;
                if outcome.is_err() {
                    summary.failed += 1;
                }
            }
            if summary.dreamt >= MAX_DREAMS || summary.scanned >= MAX_SCANNED {
                break 'pages;
            }
        }
    }
    store
        .set_meta(CURSOR_KEY, after.as_deref().unwrap_or(""))
        .await?;
    summary.cursor = after;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hippo::api::{DiaryReport, DreamReport};

    #[test]
    fn log_lines_name_the_npc_and_the_outcome() {
        let report = DreamReport {
            skipped: false,
            diary: Some(DiaryReport {
                date: "2026-04-09".into(),
                diary_text: "x".into(),
                prior_merged: false,
                overflow_count: 0,
                dry_run: false,
            }),
            extractions: None,
            cleanup: None,
            error: Some("llm timed out".into()),
        };
        let line = log_line("npc-1", &Ok(report));
        assert_eq!(
            line,
            "cron dream npc=npc-1 skipped=false diary=2026-04-09 entity_ops=0 pkg_updates=0 error=llm timed out"
        );
        let line = log_line("npc-2", &Err(Error::Busy("a dream is running".into())));
        assert_eq!(line, "cron dream npc=npc-2 failed: a dream is running");
    }
}
