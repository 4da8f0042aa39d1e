//! The persisted file format: a small versioned envelope around the core's snapshots.
//!
//! ```text
//! "HIPPOPKG"  8 bytes magic
//! u16 LE      format version (readers refuse a newer major version than they know)
//! sections    repeated: 4-byte ASCII tag, u64 LE length, that many bytes
//! ```
//! Readers skip sections whose tag they do not know, so a later version can add sections
//! (e.g. a vector index) and still be read by this one.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

pub const MAGIC: &[u8; 8] = b"HIPPOPKG";
pub const FORMAT_VERSION: u16 = 1;

/// The core store's own snapshot (`MemoryStore::snapshot`), which carries its own version.
pub const STORE_SECTION: [u8; 4] = *b"STOR";
/// The vector index's snapshot (`MemoryVectorIndex::snapshot`), also self-versioned.
pub const VECTORS_SECTION: [u8; 4] = *b"VECS";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub tag: [u8; 4],
    pub bytes: Vec<u8>,
}

pub fn encode(sections: &[Section]) -> Vec<u8> {
    let body = sections.iter().fold(0usize, |n, s| {
        n.saturating_add(12).saturating_add(s.bytes.len())
    });
    let mut out = Vec::with_capacity(MAGIC.len().saturating_add(2).saturating_add(body));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    for section in sections {
        out.extend_from_slice(&section.tag);
        let len = u64::try_from(section.bytes.len()).unwrap_or(u64::MAX);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&section.bytes);
    }
    out
}

/// The sections of a persisted file, or why it cannot be read.
pub fn decode(bytes: &[u8]) -> Result<Vec<Section>, String> {
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
        let (tag, after_tag) = split(rest, 4).ok_or("truncated section tag")?;
        let (len, after_len) = split(after_tag, 8).ok_or("truncated section length")?;
        let len = u64::from_le_bytes(len.first_chunk().copied().unwrap_or_default());
        let len = usize::try_from(len).map_err(|_| "section too large")?;
        let (body, after_body) = split(after_len, len).ok_or("truncated section")?;
        sections.push(Section {
            tag: tag.first_chunk().copied().unwrap_or_default(),
            bytes: body.to_vec(),
        });
        rest = after_body;
    }
    Ok(sections)
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
        assert_eq!(decode(&encoded).unwrap(), sample());
        assert_eq!(
            find(&decode(&encoded).unwrap(), STORE_SECTION),
            Some(&b"store bytes"[..])
        );
    }

    #[test]
    fn unknown_sections_are_kept_for_the_reader_to_skip() {
        let decoded = decode(&encode(&sample())).unwrap();
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
        let mut newer = encoded.clone();
        newer[8..10].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        assert!(decode(&newer).unwrap_err().contains("newer"));
    }
}
