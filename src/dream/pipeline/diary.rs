//! The diary stage: today's entry from the day's material, and the window roll into `prior`.
//!
//! The material is the day's turns without their sensitive sentences (and echoes of the
//! secrets in them), for the LLM and the built-in summarizer alike; what an LLM writes is
//! checked again, and any sentence the detector flags is left out of the entry.

use super::{commit, port, Scan};
use crate::api::DiaryReport;
use crate::conversation::Turn;
use crate::diary::{put_daily, Diary, DiaryEntry};
use crate::dream::{llm, summarize};
use crate::engine::Hippo;
use crate::ports::{Write, WriteBatch};
use crate::sensitive::material::{keep_safe_sentences, without_sensitive_sentences};

/// Longest daily entry, in characters.
pub const DAILY_MAX_CHARS: usize = 800;
/// Longest `prior`, in characters.
pub const PRIOR_MAX_CHARS: usize = 4_000;
/// How far back (in log entries before the watermark) a re-dream looks for the earlier
/// material of the same day.
pub const DAY_LOOKBACK: u64 = 500;

pub(super) async fn run(
    hippo: &Hippo,
    npcid: &str,
    scan: &Scan,
    dry_run: bool,
) -> Result<DiaryReport, String> {
    let store = &hippo.ports().store;
    let material = safe_material(day_material(hippo, npcid, scan).await?);
    let date = scan.today.format("%Y-%m-%d").to_string();
    let written = match &hippo.ports().llm {
        Some(model) => {
            let prompt = llm::prompts::diary(scan.today, &material, DAILY_MAX_CHARS);
            let answer = model
                .complete(&prompt.system, &prompt.messages)
                .await
                .map_err(port("LLM failed"))?;
            llm::parse::parse_diary(&answer, DAILY_MAX_CHARS)
                .map_err(|e| format!("LLM output rejected: {e}"))?
        }
        None => summarize::summarize_day(&material, DAILY_MAX_CHARS),
    };
    let mut text = without_sensitive_sentences(&written);
    if text.is_empty() {
        text = summarize::summarize_day(&material, DAILY_MAX_CHARS);
    }
    let (prior, dailies) = store.diary(npcid).await.map_err(port("store"))?;
    let window = scan.npc.settings.diary_window as usize;
    let roll = put_daily(
        &Diary { prior, dailies },
        DiaryEntry {
            date: date.clone(),
            summary: text.clone(),
        },
        window,
    );
    let mut batch = WriteBatch::new();
    batch.push(Write::PutDaily {
        entry: DiaryEntry {
            date: date.clone(),
            summary: text.clone(),
        },
    });
    if !roll.overflow.is_empty() {
        let merged = match &hippo.ports().llm {
            Some(model) => {
                let prompt =
                    llm::prompts::prior_merge(&roll.diary.prior, &roll.overflow, PRIOR_MAX_CHARS);
                let answer = model
                    .complete(&prompt.system, &prompt.messages)
                    .await
                    .map_err(port("LLM failed"))?;
                let merged = llm::parse::parse_prior(&answer, PRIOR_MAX_CHARS)
                    .map_err(|e| format!("LLM output rejected: {e}"))?;
                without_sensitive_sentences(&merged)
            }
            None => summarize::merge_prior(&roll.diary.prior, &roll.overflow, PRIOR_MAX_CHARS),
        };
        for old in &roll.overflow {
            // Today's entry can only overflow when the window is full of later dates.
            if old.date != date {
                batch.push(Write::DeleteDaily {
                    date: old.date.clone(),
                });
            }
        }
        if roll.overflow.iter().any(|o| o.date == date) {
            batch
                .writes
                .retain(|w| !matches!(w, Write::PutDaily { .. }));
        }
        batch.push(Write::SetPrior { prior: merged });
    }
    if !dry_run && !commit(hippo, npcid, batch).await? {
        return Err("the diary changed while dreaming".into());
    }
    Ok(DiaryReport {
        date,
        diary_text: text,
        prior_merged: !roll.overflow.is_empty(),
        overflow_count: roll.overflow.len(),
        dry_run,
    })
}

/// The material without its sensitive sentences; entries with nothing safe left are dropped.
fn safe_material(material: Vec<Turn>) -> Vec<Turn> {
    let safe = keep_safe_sentences(
        &material
            .iter()
            .map(|t| t.content.as_str())
            .collect::<Vec<_>>(),
    );
    material
        .into_iter()
        .zip(safe)
        .filter(|(_, text)| !text.is_empty())
        .map(|(turn, content)| Turn { content, ..turn })
        .collect()
}

/// Today's material: the new entries, after the earlier entries of today that a previous
/// dream already consumed (so a re-dream rewrites the day from all of it).
async fn day_material(hippo: &Hippo, npcid: &str, scan: &Scan) -> Result<Vec<Turn>, String> {
    let watermark = scan.npc.watermark;
    let mut material = Vec::new();
    if watermark > 0 {
        let from = watermark.saturating_sub(DAY_LOOKBACK);
        let earlier = hippo
            .ports()
            .store
            .turns(npcid, from, DAY_LOOKBACK as usize)
            .await
            .map_err(port("store"))?;
        material.extend(
            earlier
                .into_iter()
                .filter(|t| t.seq <= watermark && t.ts.date() == scan.today),
        );
    }
    material.extend(scan.new.iter().cloned());
    Ok(material)
}
