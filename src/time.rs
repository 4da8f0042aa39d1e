//! Time as the core sees it: milliseconds since the Unix epoch, shown as RFC 3339.
//!
//! The core never reads a clock itself (that is the [`crate::ports::Clock`] port); it only
//! converts and compares instants, so every rule is testable at a fixed "now".

use chrono::{DateTime, NaiveDate, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub const MS_PER_HOUR: i64 = 3_600_000;
pub const MS_PER_DAY: i64 = 24 * MS_PER_HOUR;

/// An instant, in milliseconds since the Unix epoch (UTC). Serialized as RFC 3339.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn from_ms(ms: i64) -> Self {
        Timestamp(ms)
    }

    pub fn ms(self) -> i64 {
        self.0
    }

    /// RFC 3339 with millisecond precision and a `Z` suffix, e.g. `2026-04-08T10:00:00.000Z`.
    pub fn to_rfc3339(self) -> String {
        self.datetime().to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// Parses RFC 3339 (any offset), or a bare `YYYY-MM-DD` (midnight UTC).
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Ok(dt) = DateTime::parse_from_rfc3339(text) {
            return Some(Timestamp(dt.timestamp_millis()));
        }
        let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
        Some(Self::from_date(date))
    }

    pub fn from_date(date: NaiveDate) -> Self {
        let dt = date.and_hms_opt(0, 0, 0).expect("midnight exists");
        Timestamp(Utc.from_utc_datetime(&dt).timestamp_millis())
    }

    pub fn datetime(self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0)
            .single()
            .unwrap_or_default()
    }

    /// The UTC calendar date of this instant.
    pub fn date(self) -> NaiveDate {
        self.datetime().date_naive()
    }

    /// The date as `YYYY-MM-DD`.
    pub fn date_string(self) -> String {
        self.date().format("%Y-%m-%d").to_string()
    }

    pub fn plus_days(self, days: i64) -> Self {
        Timestamp(self.0.saturating_add(days.saturating_mul(MS_PER_DAY)))
    }

    /// Hours elapsed from `earlier` to `self` (never negative).
    pub fn hours_since(self, earlier: Timestamp) -> f64 {
        ((self.0 - earlier.0).max(0)) as f64 / MS_PER_HOUR as f64
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Millis(i64),
        }
        match Raw::deserialize(d)? {
            Raw::Text(t) => Timestamp::parse(&t)
                .ok_or_else(|| serde::de::Error::custom(format!("invalid timestamp: {t:?}"))),
            Raw::Millis(ms) => Ok(Timestamp(ms)),
        }
    }
}

/// Parses `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trip() {
        let t = Timestamp::parse("2026-04-08T10:30:00+08:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-04-08T02:30:00.000Z");
        assert_eq!(Timestamp::parse(&t.to_rfc3339()), Some(t));
    }

    #[test]
    fn bare_date_is_midnight_utc() {
        let t = Timestamp::parse("2026-04-08").unwrap();
        assert_eq!(t.date_string(), "2026-04-08");
        assert_eq!(t.to_rfc3339(), "2026-04-08T00:00:00.000Z");
        assert!(Timestamp::parse("yesterday").is_none());
    }
}
