//! The persisted file format: a small versioned envelope around the core's snapshots.
//!
//! ```text
//! "HIPPOPKG"  8 bytes magic
//! u16 LE      format version (readers refuse a newer major version than they know)
//! sections    repeated: 4-byte ASCII tag, u64 LE length, that many bytes
//! ```
//! Readers skip sections whose tag they do not know, so a later version can add sections
//! (e.g. a vector index) and still be read by this one.
//!
//! Version 2 appends change-log records (`LOGR` sections, see [`super::log`]) after the
//! snapshot. A version 1 reader would skip them and lose those changes, so it must refuse
//! the file: every file is written as version 2. A `LOGR` section cut short at the end of
//! the file is an append that never completed: [`decode`] reports it instead of failing.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

pub const MAGIC: &[u8; 8] = b"HIPPOPKG";
pub const FORMAT_VERSION: u16 = 2;

/// The core store's own snapshot (`MemoryStore::snapshot`), which carries its own version.
pub const STORE_SECTION: [u8; 4] = *b"STOR";
/// The vector index's snapshot (`MemoryVectorIndex::snapshot`), also self-versioned.
pub const VECTORS_SECTION: [u8; 4] = *b"VECS";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub tag: [u8; 4],
    pub bytes: Vec<u8>,
}

/// Bytes a section takes in the file: tag, length, body.
pub const SECTION_OVERHEAD: usize = 12;

pub fn encode(sections: &[Section]) -> Vec<u8> {
    let body = sections.iter().fold(0usize, |n, s| {
        n.saturating_add(SECTION_OVERHEAD)
            .saturating_add(s.bytes.len())
    });
    let mut out = Vec::with_capacity(MAGIC.len().saturating_add(2).saturating_add(body));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    for section in sections {
        out.extend_from_slice(&encode_section(section));
    }
    out
}

/// One section as appended after the others.
pub fn encode_section(section: &Section) -> Vec<u8> {
    let mut out = Vec::with_capacity(SECTION_OVERHEAD.saturating_add(section.bytes.len()));
    out.extend_from_slice(&section.tag);
    let len = u64::try_from(section.bytes.len()).unwrap_or(u64::MAX);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&section.bytes);
    out
}

/// A decoded file: its sections, and whether a `LOGR` section at the end was cut short.
#[derive(Debug, PartialEq)]
pub struct Decoded {
    pub sections: Vec<Section>,
    pub torn: bool,
}

/// The sections of a persisted file, or why it cannot be read.
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let rest = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or("not a Hippo storage file (bad magic)")?;
    let (version, mut rest) = split(rest, 2).ok_or("truncated header")?;
    let version = u16::from_le_bytes(version.first_chunk().copied().unwrap_or_default());
    if version > FORMAT_VERSION {
        return Err(format!(
            "storage format version {version} is newer than this package reads ({FORMAT_VERSION}); upgrade hippo"
        ));
    }
    let mut sections = Vec::new();
    while !rest.is_empty() {
        let Some(section) = next_section(rest) else {
            // Only an append can be cut short: the snapshot is written whole or not at all.
            let log_tail = version >= 2 && (rest.len() < 4 || rest.starts_with(b"LOGR"));
            if log_tail && sections.iter().any(|s: &Section| s.tag == STORE_SECTION) {
                return Ok(Decoded {
                    sections,
                    torn: true,
                });
            }
            return Err("truncated section".into());
        };
        let (section, after) = section;
        sections.push(section);
        rest = after;
    }
    Ok(Decoded {
        sections,
        torn: false,
    })
}

fn next_section(bytes: &[u8]) -> Option<(Section, &[u8])> {
    let (tag, after_tag) = split(bytes, 4)?;
    let (len, after_len) = split(after_tag, 8)?;
    let len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
    let (body, after_body) = split(after_len, len)?;
    let section = Section {
        tag: tag.try_into().ok()?,
        bytes: body.to_vec(),
    };
    Some((section, after_body))
}

/// The bytes of the first section with this tag.
pub fn find(sections: &[Section], tag: [u8; 4]) -> Option<&[u8]> {
    sections
        .iter()
        .find(|s| s.tag == tag)
        .map(|s| s.bytes.as_slice())
}

fn split(bytes: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    (bytes.len() >= n).then(|| bytes.split_at(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Section> {
        vec![
            Section {
                tag: STORE_SECTION,
                bytes: b"store bytes".to_vec(),
            },
            Section {
                tag: *b"NEXT",
                bytes: vec![],
            },
        ]
    }

    #[test]
    fn round_trips_sections_in_order() {
        let encoded = encode(&sample());
        assert!(encoded.starts_with(MAGIC));
        assert_eq!(decode(&encoded).unwrap().sections, sample());
        assert_eq!(
            find(&decode(&encoded).unwrap().sections, STORE_SECTION),
            Some(&b"store bytes"[..])
        );
    }

    #[test]
    fn unknown_sections_are_kept_for_the_reader_to_skip() {
        let decoded = decode(&encode(&sample())).unwrap().sections;
        assert_eq!(find(&decoded, *b"NEXT"), Some(&[][..]));
        assert_eq!(find(&decoded, *b"NONE"), None);
    }

    #[test]
    fn refuses_foreign_truncated_and_newer_files() {
        assert!(decode(b"{\"json\": true}").unwrap_err().contains("magic"));
        let encoded = encode(&sample());
        for cut in [9, 12, 20, encoded.len() - 1] {
            assert!(decode(&encoded[..cut]).is_err(), "cut at {cut}");
        }
        assert!(!decode(&encoded).unwrap().torn);
        let mut newer = encoded.clone();
        newer[8..10].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        assert!(decode(&newer).unwrap_err().contains("newer"));
    }

    #[test]
    fn a_log_record_cut_short_at_the_end_is_reported_torn() {
        let record = Section {
            tag: *b"LOGR",
            bytes: b"a record".to_vec(),
        };
        let mut file = encode(&sample());
        file.extend_from_slice(&encode_section(&record));
        let whole = decode(&file).unwrap();
        assert_eq!(whole.sections.len(), 3);
        assert!(!whole.torn);
        for cut in 1..SECTION_OVERHEAD + record.bytes.len() {
            let decoded = decode(&file[..file.len() - cut]).unwrap();
            assert_eq!(decoded.sections, sample(), "cut {cut}");
            assert!(decoded.torn, "cut {cut}");
        }
        // Another section cut short is damage, not a torn append.
        let mut other = encode(&sample());
        other.extend_from_slice(&encode_section(&Section {
            tag: *b"NEXT",
            bytes: vec![1, 2, 3],
        }));
        assert!(decode(&other[..other.len() - 1]).is_err());
    }
}
