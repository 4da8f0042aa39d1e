//! Time as the core sees it: milliseconds since the Unix epoch, shown as RFC 3339.
//!
//! The core never reads a clock itself (that is the [`crate::ports::Clock`] port); it only
//! converts and compares instants, so every rule is testable at a fixed "now".
#![deny(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

pub mod calendar;
pub mod names;
pub mod phrase;
pub mod when;

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, SecondsFormat, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub const MS_PER_HOUR: i64 = 3_600_000;
pub const MS_PER_DAY: i64 = 24 * MS_PER_HOUR;

/// An instant, in milliseconds since the Unix epoch (UTC). Serialized as RFC 3339.
///
/// Instants lie in [`Timestamp::MIN`] ..= [`Timestamp::MAX`], the years RFC 3339 can write
/// (0000–9999): input outside is refused when it is parsed, and arithmetic saturates at the
/// bounds, so no instant ever fails to print or to convert into a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// 0000-01-01T00:00:00.000Z.
    pub const MIN: Timestamp = Timestamp(-62_167_219_200_000);
    /// 9999-12-31T23:59:59.999Z.
    pub const MAX: Timestamp = Timestamp(253_402_300_799_999);

    /// `ms` moved into [`Timestamp::MIN`] ..= [`Timestamp::MAX`] (a clock far off, a sum
    /// past the end).
    pub fn from_ms(ms: i64) -> Self {
        Timestamp(ms.clamp(Self::MIN.0, Self::MAX.0))
    }

    /// `ms` if it is in range: what a caller's number may be.
    pub fn checked_from_ms(ms: i64) -> Option<Self> {
        (Self::MIN.0..=Self::MAX.0)
            .contains(&ms)
            .then_some(Timestamp(ms))
    }

    pub fn ms(self) -> i64 {
        self.0
    }

    /// This instant moved into range (see [`Timestamp::from_ms`]).
    pub fn clamped(self) -> Self {
        Self::from_ms(self.0)
    }

    /// RFC 3339 with millisecond precision and a `Z` suffix, e.g. `2026-04-08T10:00:00.000Z`.
    pub fn to_rfc3339(self) -> String {
        self.datetime().to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    /// Parses RFC 3339 (any offset), or a bare `YYYY-MM-DD` (midnight UTC); `None` for
    /// anything else, and for an instant outside the years 0000–9999 (an offset can push one
    /// out).
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Ok(dt) = DateTime::parse_from_rfc3339(text) {
            return Self::checked_from_ms(dt.timestamp_millis());
        }
        Self::checked_from_ms(midnight_ms(parse_ymd(text)?))
    }

    /// Midnight UTC of `date`, saturating at the range's ends.
    pub fn from_date(date: NaiveDate) -> Self {
        Self::from_ms(midnight_ms(date))
    }

    /// The instant as a chrono value (every in-range instant has one; an out-of-range one is
    /// clamped first).
    pub fn datetime(self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.clamped().0).unwrap_or_default()
    }

    /// The UTC calendar date of this instant.
    pub fn date(self) -> NaiveDate {
        self.datetime().date_naive()
    }

    /// The date as `YYYY-MM-DD`.
    pub fn date_string(self) -> String {
        date_text(self.date())
    }

    /// `days` later (earlier if negative), saturating at the range's ends.
    pub fn plus_days(self, days: i64) -> Self {
        self.plus_ms(days.saturating_mul(MS_PER_DAY))
    }

    /// `ms` later (earlier if negative), saturating at the range's ends.
    pub fn plus_ms(self, ms: i64) -> Self {
        Self::from_ms(self.0.saturating_add(ms))
    }

    /// Hours elapsed from `earlier` to `self` (never negative).
    pub fn hours_since(self, earlier: Timestamp) -> f64 {
        (self.0.saturating_sub(earlier.0).max(0)) as f64 / MS_PER_HOUR as f64
    }
}

/// Milliseconds of midnight UTC of any chrono date (all of them fit an `i64`).
fn midnight_ms(date: NaiveDate) -> i64 {
    date.and_time(NaiveTime::MIN).and_utc().timestamp_millis()
}

/// On the wire: an RFC 3339 string (see `to_rfc3339`).
#[cfg(feature = "contract")]
impl schemars::JsonSchema for Timestamp {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339, e.g. \"2026-04-08T10:00:00.000Z\" (years 0000-9999)."
        })
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
            Other(serde::de::IgnoredAny),
        }
        let out_of_range = || {
            serde::de::Error::custom(
                "timestamp out of range (years 0000-9999, milliseconds -62167219200000 to \
                 253402300799999)",
            )
        };
        match Raw::deserialize(d)? {
            Raw::Text(t) => Timestamp::parse(&t).ok_or_else(|| {
                if DateTime::parse_from_rfc3339(t.trim()).is_ok() {
                    out_of_range()
                } else {
                    serde::de::Error::custom(format!(
                        "invalid timestamp: {:?}",
                        crate::text::cut_chars(&t, 64).to_owned()
                    ))
                }
            }),
            Raw::Millis(ms) => Timestamp::checked_from_ms(ms).ok_or_else(out_of_range),
            Raw::Other(_) => Err(serde::de::Error::custom(
                "a timestamp is RFC 3339 text or whole milliseconds since the epoch",
            )),
        }
    }
}

/// Whether the words at byte span `(start, end)` of `text` are all that a pair of quotation
/// or title marks holds: “星期五” (Robinson Crusoe's Friday), 《明天》, "Friday" name
/// something; they date nothing. Quoted speech that holds a date says more ("“明天见”").
pub fn quoted(text: &str, (start, end): (usize, usize)) -> bool {
    let before = text.get(..start).unwrap_or_default();
    let after = text.get(end..).unwrap_or_default();
    [("“", "”"), ("「", "」"), ("《", "》"), ("\"", "\"")]
        .iter()
        .any(|(open, close)| before.ends_with(open) && after.starts_with(close))
}

/// Parses `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    parse_ymd(text.trim())
}

// Dates are written and read here rather than by chrono's strftime-style `format` and
// `parse_from_str`: those interpret their format string at run time, so every item of the
// language (names of months, RFC 2822, time zones …) is compiled in, ~10 KB gzip of the npm
// wasm for three fixed formats. The answers are chrono's (see the tests).

/// `date` as chrono's `%Y-%m-%d` writes it: `2026-04-08`; a year outside 0–9999 with its
/// sign (`+10000-01-01`, `-0001-01-01`). That is chrono's `Display` of a date.
pub fn date_text(date: NaiveDate) -> String {
    date.to_string()
}

/// `date`'s month as chrono's `%Y-%m` writes it: `2026-04`.
pub fn month_text(date: NaiveDate) -> String {
    let year = date.year();
    if (0..10_000).contains(&year) {
        format!("{year:04}-{:02}", date.month())
    } else {
        format!("{year:+05}-{:02}", date.month())
    }
}

/// `instant` as chrono's `%Y-%m-%d %H:%M` writes it: `2026-04-08 10:30`.
pub fn minute_text(instant: DateTime<Utc>) -> String {
    format!(
        "{} {:02}:{:02}",
        instant.date_naive(),
        instant.hour(),
        instant.minute()
    )
}

/// What chrono's `NaiveDate::parse_from_str(text, "%Y-%m-%d")` accepts, and the same date:
/// whitespace before each number; the year as up to four digits, or any number of digits
/// after a `+` or `-`; month and day as one or two digits; nothing after the day.
pub fn parse_ymd(text: &str) -> Option<NaiveDate> {
    let text = text.trim_start();
    let (year, rest) = match text.as_bytes().first() {
        Some(b'-') => {
            let (n, rest) = leading_number(text.get(1..)?, usize::MAX)?;
            (n.checked_neg()?, rest)
        }
        Some(b'+') => leading_number(text.get(1..)?, usize::MAX)?,
        _ => leading_number(text, 4)?,
    };
    let (month, rest) = leading_number(rest.strip_prefix('-')?.trim_start(), 2)?;
    let (day, rest) = leading_number(rest.strip_prefix('-')?.trim_start(), 2)?;
    if !rest.is_empty() {
        return None;
    }
    NaiveDate::from_ymd_opt(
        i32::try_from(year).ok()?,
        u32::try_from(month).ok()?,
        u32::try_from(day).ok()?,
    )
}

/// The number that the first 1 to `max_digits` ASCII digits of `text` write, and the rest.
fn leading_number(text: &str, max_digits: usize) -> Option<(i64, &str)> {
    let digits = text
        .bytes()
        .take(max_digits)
        .take_while(u8::is_ascii_digit)
        .count();
    let (number, rest) = text.split_at_checked(digits)?;
    let mut value: i64 = 0;
    for digit in number.bytes() {
        value = value
            .checked_mul(10)?
            .checked_add(i64::from(digit.checked_sub(b'0')?))?;
    }
    (digits > 0).then_some((value, rest))
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
    fn instants_outside_the_years_0000_to_9999_are_refused_or_clamped() {
        // Refused where a caller's value is parsed: a number, or text an offset pushes out.
        for bad in [
            "253402300800000",
            "-62167219200001",
            "9223372036854775807",
            "-9223372036854775808",
            "\"9999-12-31T23:59:59-01:00\"",
            "\"0000-01-01T00:00:00+01:00\"",
        ] {
            let err = serde_json::from_str::<Timestamp>(bad).unwrap_err();
            assert!(err.to_string().contains("out of range"), "{bad}: {err}");
        }
        for bad in ["1e308", "-0.5", "\"+262143-01-01\"", "\"99999-01-01\""] {
            assert!(serde_json::from_str::<Timestamp>(bad).is_err(), "{bad}");
        }
        let max: Timestamp = serde_json::from_str("253402300799999").unwrap();
        assert_eq!(max.to_rfc3339(), "9999-12-31T23:59:59.999Z");
        let min: Timestamp = serde_json::from_str("\"0000-01-01\"").unwrap();
        assert_eq!(min, Timestamp::MIN);
        // Clamped where the core computes one.
        assert_eq!(Timestamp::MAX.plus_days(1), Timestamp::MAX);
        assert_eq!(Timestamp::MIN.plus_days(i64::MIN), Timestamp::MIN);
        assert_eq!(Timestamp(i64::MAX).to_rfc3339(), "9999-12-31T23:59:59.999Z");
        assert_eq!(Timestamp(i64::MIN).date_string(), "0000-01-01");
        let far = NaiveDate::MAX;
        assert_eq!(Timestamp::from_date(far), Timestamp::MAX);
        assert_eq!(
            Timestamp(i64::MAX).hours_since(Timestamp(i64::MIN)),
            i64::MAX as f64 / 3.6e6
        );
    }

    /// chrono's answer, which `parse_ymd` replaces.
    fn chrono_ymd(text: &str) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
    }

    #[test]
    fn dates_parse_as_chrono_parses_them() {
        for text in [
            "2026-04-08",
            "2026-4-8",
            " 2026- 4-\t8",
            "2026-04-08 ",
            "2026-04-08x",
            "02026-04-08",
            "+2026-04-08",
            "-2026-04-08",
            "+002026-04-08",
            "-0-01-01",
            "+-1-01-01",
            "-+1-01-01",
            "+262143-12-31",
            "+262144-01-01",
            "-262144-01-01",
            "-262145-01-01",
            "+99999999999999999999-01-01",
            "-9223372036854775808-01-01",
            "2026-13-01",
            "2026-00-10",
            "2026-02-29",
            "2024-02-29",
            "2026-04-31",
            "2026-04-001",
            "2026-004-01",
            "2026--04-08",
            "2026-04",
            "2026",
            "",
            " ",
            "-",
            "+",
            "2026-04-",
            "\u{3000}2026-04-08",
            "２０２６-04-08",
            "2026-04-0８",
            "1-1-1",
            "0000-01-01",
            "9999-12-31",
        ] {
            assert_eq!(parse_ymd(text), chrono_ymd(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5_000))]

        #[test]
        fn date_like_text_parses_as_chrono_parses_it(
            text in "[ \t]{0,2}[+-]{0,2}[0-9]{0,7}[ ]?-{0,2}[ \t]?[0-9]{0,3}-?[ ]?[0-9]{0,3}[ x]?"
        ) {
            proptest::prop_assert_eq!(parse_ymd(&text), chrono_ymd(&text), "{:?}", text);
        }

        #[test]
        fn near_dates_parse_as_chrono_parses_them(
            text in "[ \t]?[+-]?[0-9]{1,6}-[ ]?[01]?[0-9]-[ \t]?[0-3]?[0-9][x ]?"
        ) {
            proptest::prop_assert_eq!(parse_ymd(&text), chrono_ymd(&text), "{:?}", text);
        }

        #[test]
        fn any_text_parses_as_chrono_parses_it(text in "\\PC{0,14}") {
            proptest::prop_assert_eq!(parse_ymd(&text), chrono_ymd(&text), "{:?}", text);
        }

        #[test]
        fn dates_are_written_as_chrono_writes_them(day in 0..191_000_000_i64, minute in 0..1440_i64) {
            let date = NaiveDate::MIN.checked_add_signed(chrono::TimeDelta::try_days(day).unwrap()).unwrap();
            proptest::prop_assert_eq!(date_text(date), date.format("%Y-%m-%d").to_string());
            proptest::prop_assert_eq!(month_text(date), date.format("%Y-%m").to_string());
            let instant = date.and_hms_opt(0, 0, 0).unwrap().and_utc()
                .checked_add_signed(chrono::TimeDelta::try_minutes(minute).unwrap()).unwrap();
            proptest::prop_assert_eq!(minute_text(instant), instant.format("%Y-%m-%d %H:%M").to_string());
        }
    }

    #[test]
    fn bare_date_is_midnight_utc() {
        let t = Timestamp::parse("2026-04-08").unwrap();
        assert_eq!(t.date_string(), "2026-04-08");
        assert_eq!(t.to_rfc3339(), "2026-04-08T00:00:00.000Z");
        assert!(Timestamp::parse("yesterday").is_none());
    }
}
