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

use hippo::store::Sink;
use std::ops::Range;

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

/// A section written by a function (its tag, then the function), so a snapshot streams into
/// the saved bytes instead of being built whole first (at 100k memories the store section
/// alone is ~40 MB).
pub type Written<'a> = ([u8; 4], &'a dyn Fn(&mut dyn Sink) -> Result<(), String>);

/// The bytes a file starts with: magic and format version.
pub fn file_header() -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out
}

/// The bytes before a section's body: its tag and the body's length.
pub fn section_header(tag: [u8; 4], len: usize) -> Vec<u8> {
    let mut out = tag.to_vec();
    out.extend_from_slice(&u64::try_from(len).unwrap_or(u64::MAX).to_le_bytes());
    out
}

/// A file of these sections, in memory (tests, and small files).
pub fn encode(sections: &[Section]) -> Vec<u8> {
    let mut out = file_header();
    for section in sections {
        out.extend_from_slice(&encode_section(section.tag, &section.bytes));
    }
    out
}

/// One section as appended after the others.
pub fn encode_section(tag: [u8; 4], bytes: &[u8]) -> Vec<u8> {
    let mut out = section_header(tag, bytes.len());
    out.extend_from_slice(bytes);
    out
}

/// Where each section of a file is, read without copying the file (it may be a JS array).
#[derive(Debug, PartialEq)]
pub struct Table {
    pub sections: Vec<SectionAt>,
    /// A `LOGR` section at the end was cut short (an append that never completed).
    pub torn: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SectionAt {
    pub tag: [u8; 4],
    pub body: Range<usize>,
}

impl Table {
    /// The body of the first section with this tag.
    pub fn find(&self, tag: [u8; 4]) -> Option<Range<usize>> {
        self.sections
            .iter()
            .find(|s| s.tag == tag)
            .map(|s| s.body.clone())
    }
}

/// The sections of a file of `len` bytes, reading only headers through `read` (which gives
/// the bytes of a range inside the file), or why it cannot be read.
pub fn table(len: usize, read: &dyn Fn(Range<usize>) -> Vec<u8>) -> Result<Table, String> {
    let header = MAGIC.len().saturating_add(2);
    if len < MAGIC.len() || read(0..MAGIC.len()) != MAGIC.as_slice() {
        return Err("not a Hippo storage file (bad magic)".into());
    }
    if len < header {
        return Err("truncated header".into());
    }
    let version = read(MAGIC.len()..header);
    let version = u16::from_le_bytes(version.first_chunk().copied().unwrap_or_default());
    if version > FORMAT_VERSION {
        return Err(format!(
            "storage format version {version} is newer than this package reads ({FORMAT_VERSION}); upgrade hippo"
        ));
    }
    let mut sections: Vec<SectionAt> = Vec::new();
    let mut at = header;
    while at < len {
        let Some(section) = section_at(at, len, read) else {
            // Only an append can be cut short: the snapshot is written whole or not at all.
            let rest = len.saturating_sub(at);
            let tag = read(at..at.saturating_add(4).min(len));
            let log_tail = version >= 2 && (rest < 4 || tag == b"LOGR");
            if log_tail && sections.iter().any(|s| s.tag == STORE_SECTION) {
                return Ok(Table {
                    sections,
                    torn: true,
                });
            }
            return Err("truncated section".into());
        };
        at = section.body.end;
        sections.push(section);
    }
    Ok(Table {
        sections,
        torn: false,
    })
}

fn section_at(at: usize, len: usize, read: &dyn Fn(Range<usize>) -> Vec<u8>) -> Option<SectionAt> {
    let body_start = at.checked_add(SECTION_OVERHEAD).filter(|end| *end <= len)?;
    let head = read(at..body_start);
    let (tag, size) = head.split_first_chunk::<4>()?;
    let size = usize::try_from(u64::from_le_bytes(*size.first_chunk::<8>()?)).ok()?;
    let body_end = body_start.checked_add(size).filter(|end| *end <= len)?;
    Some(SectionAt {
        tag: *tag,
        body: body_start..body_end,
    })
}

/// A decoded file: its sections, and whether a `LOGR` section at the end was cut short.
#[derive(Debug, PartialEq)]
pub struct Decoded {
    pub sections: Vec<Section>,
    pub torn: bool,
}

/// The sections of a file in memory, or why it cannot be read.
pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let read = |range: Range<usize>| bytes.get(range).unwrap_or_default().to_vec();
    let table = table(bytes.len(), &read)?;
    Ok(Decoded {
        sections: table
            .sections
            .into_iter()
            .map(|s| Section {
                tag: s.tag,
                bytes: read(s.body),
            })
            .collect(),
        torn: table.torn,
    })
}

/// The bytes of the first section with this tag.
pub fn find(sections: &[Section], tag: [u8; 4]) -> Option<&[u8]> {
    sections
        .iter()
        .find(|s| s.tag == tag)
        .map(|s| s.bytes.as_slice())
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
        file.extend_from_slice(&encode_section(record.tag, &record.bytes));
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
        other.extend_from_slice(&encode_section(*b"NEXT", &[1, 2, 3]));
        assert!(decode(&other[..other.len() - 1]).is_err());
    }
}
