//! Strength, decay and reinforcement (SPEC §2.2).
//!
//! Strength is never stored: it is computed from the stored importance, access count and
//! last-access time at the instant of the read, so decay cannot compound.

use super::{Memory, MemoryType};
use crate::time::Timestamp;

/// Per-type decay rates.
#[derive(Debug, Clone, PartialEq)]
pub struct DecayConfig {
    /// Base decay rate λ per hour.
    pub lambda_per_hour: f64,
    /// How many times slower the `slow_types` decay.
    pub slow_factor: f64,
    /// Types that describe who the user is rather than what happened: they fade slowly.
    pub slow_types: Vec<MemoryType>,
}

impl Default for DecayConfig {
    fn default() -> Self {
        DecayConfig {
            lambda_per_hour: 0.001,
            slow_factor: 4.0,
            slow_types: vec![
                MemoryType::Profile,
                MemoryType::Constraint,
                MemoryType::Relationship,
            ],
        }
    }
}

impl DecayConfig {
    /// λ for memories of type `t`.
    pub fn lambda_for(&self, t: MemoryType) -> f64 {
        if self.slow_types.contains(&t) && self.slow_factor > 0.0 {
            self.lambda_per_hour / self.slow_factor
        } else {
            self.lambda_per_hour
        }
    }
}

/// Decay resistance built by use: `1 + ln(1 + access_count) × 0.3`.
pub fn resistance(access_count: u32) -> f64 {
    1.0 + (1.0 + f64::from(access_count)).ln() * 0.3
}

/// The least strength of a pinned memory: the bottom of the active tier, so a pin keeps a
/// memory in retrieval (the archive tier is left out) however little it was used.
pub const PINNED_MIN_STRENGTH: f64 = 0.4;

/// `importance × exp(−λ/R × hours since last access)` at `now`. A pinned memory does not
/// decay: its strength is its importance, at least [`PINNED_MIN_STRENGTH`].
pub fn strength(m: &Memory, now: Timestamp, cfg: &DecayConfig) -> f64 {
    if m.pinned {
        return m.importance.max(PINNED_MIN_STRENGTH);
    }
    let rate = cfg.lambda_for(m.memory_type) / resistance(m.access_count);
    m.importance * (-rate * now.hours_since(m.last_accessed_at)).exp()
}

/// Days until strength halves, for a memory accessed `access_count` times.
pub fn half_life_days(access_count: u32, lambda_per_hour: f64) -> f64 {
    std::f64::consts::LN_2 * resistance(access_count) / lambda_per_hour / 24.0
}

/// Strength bands: what retrieval considers (archive only when asked for explicitly).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    Core,
    Active,
    Background,
    Archive,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Core => "core",
            Tier::Active => "active",
            Tier::Background => "background",
            Tier::Archive => "archive",
        }
    }
}

/// core ≥ 0.7, active ≥ 0.4, background ≥ 0.2, archive below.
pub fn tier(strength: f64) -> Tier {
    if strength >= 0.7 {
        Tier::Core
    } else if strength >= 0.4 {
        Tier::Active
    } else if strength >= 0.2 {
        Tier::Background
    } else {
        Tier::Archive
    }
}

/// Share of the way to 1 that one retrieval moves a memory's importance (SPEC §2.2). The D1
/// store writes it into its `Write::Touch` statement, so the rate exists once.
pub const ACCESS_BOOST: f64 = 0.05;

/// The importance after one retrieval: `i + (1 − i) × ACCESS_BOOST`. Stores apply exactly this
/// for `Write::Touch`.
pub fn boosted_importance(importance: f64) -> f64 {
    importance + (1.0 - importance) * ACCESS_BOOST
}

/// Retrieval returned `m` at `now`.
pub fn reinforce_on_access(m: &mut Memory, now: Timestamp) {
    m.access_count = m.access_count.saturating_add(1);
    m.last_accessed_at = now;
    m.importance = boosted_importance(m.importance);
}

/// The same fact was met again with importance `new_importance`: importance becomes the
/// running average over all encounters, so one outlier reading cannot cement or sink it.
pub fn reinforce_on_encounter(m: &mut Memory, new_importance: f64, now: Timestamp) {
    let seen = f64::from(m.encounter_count.max(1));
    let reading = new_importance.clamp(0.0, 1.0);
    m.importance = (m.importance * seen + reading) / (seen + 1.0);
    m.encounter_count = m.encounter_count.max(1).saturating_add(1);
    m.updated_at = now;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS_PER_DAY;

    fn memory(memory_type: MemoryType, importance: f64, access_count: u32) -> Memory {
        Memory {
            confidence: 0.9,
            importance,
            source: "conversation".into(),
            access_count,
            ..Memory::new("mem_1", memory_type, "User likes tea", Timestamp(0))
        }
    }

    #[test]
    fn half_life_table_matches_the_model() {
        let lambda = DecayConfig::default().lambda_per_hour;
        for (accesses, days) in [(0, 29.0), (5, 44.0), (20, 55.0), (100, 69.0)] {
            let got = half_life_days(accesses, lambda);
            assert!((got - days).abs() <= 1.0, "{accesses} accesses: {got} days");
        }
    }

    #[test]
    fn strength_halves_after_one_half_life() {
        let cfg = DecayConfig::default();
        let m = memory(MemoryType::Preference, 0.8, 5);
        let half = half_life_days(5, cfg.lambda_per_hour);
        let later = Timestamp((half * MS_PER_DAY as f64) as i64);
        assert!((strength(&m, later, &cfg) - 0.4).abs() < 1e-3);
    }

    #[test]
    fn a_pinned_memory_does_not_decay_out_of_retrieval() {
        let cfg = DecayConfig::default();
        let faint = memory(MemoryType::History, 0.25, 0);
        let years = Timestamp(3 * 365 * MS_PER_DAY);
        assert_eq!(tier(strength(&faint, years, &cfg)), Tier::Archive);
        let pinned = Memory {
            pinned: true,
            ..faint
        };
        assert_eq!(strength(&pinned, years, &cfg), PINNED_MIN_STRENGTH);
        assert_eq!(tier(strength(&pinned, years, &cfg)), Tier::Active);
        let strong = Memory {
            importance: 0.9,
            ..pinned
        };
        assert_eq!(strength(&strong, years, &cfg), 0.9);
    }

    #[test]
    fn strength_is_a_pure_function_of_the_instant() {
        let cfg = DecayConfig::default();
        let m = memory(MemoryType::History, 0.6, 3);
        let t = Timestamp(40 * MS_PER_DAY);
        assert_eq!(strength(&m, t, &cfg), strength(&m, t, &cfg));
        assert_eq!(strength(&m, Timestamp(0), &cfg), 0.6);
        // Reading at an earlier instant (clock skew) never exceeds importance.
        assert_eq!(strength(&m, Timestamp(-MS_PER_DAY), &cfg), 0.6);
    }

    #[test]
    fn a_year_untouched_is_archive() {
        let cfg = DecayConfig::default();
        let m = memory(MemoryType::Preference, 1.0, 0);
        assert_eq!(
            tier(strength(&m, Timestamp(365 * MS_PER_DAY), &cfg)),
            Tier::Archive
        );
        assert_eq!(tier(strength(&m, Timestamp(0), &cfg)), Tier::Core);
    }

    #[test]
    fn slow_types_decay_four_times_slower() {
        let cfg = DecayConfig::default();
        let fast = memory(MemoryType::Preference, 1.0, 0);
        let slow = memory(MemoryType::Profile, 1.0, 0);
        let (t, t4) = (Timestamp(10 * MS_PER_DAY), Timestamp(40 * MS_PER_DAY));
        assert!((strength(&fast, t, &cfg) - strength(&slow, t4, &cfg)).abs() < 1e-12);
        for kind in [MemoryType::Constraint, MemoryType::Relationship] {
            assert_eq!(cfg.lambda_for(kind), cfg.lambda_per_hour / 4.0);
        }
        assert_eq!(cfg.lambda_for(MemoryType::Style), cfg.lambda_per_hour);
    }

    #[test]
    fn tier_boundaries() {
        let cases = [
            (0.7, Tier::Core),
            (0.69, Tier::Active),
            (0.4, Tier::Active),
            (0.39, Tier::Background),
            (0.2, Tier::Background),
            (0.19, Tier::Archive),
        ];
        for (s, want) in cases {
            assert_eq!(tier(s), want, "{s}");
        }
        assert_eq!(Tier::Background.as_str(), "background");
    }

    #[test]
    fn access_reinforces_and_slows_decay() {
        let cfg = DecayConfig::default();
        let mut m = memory(MemoryType::Preference, 0.5, 0);
        let before = strength(&m, Timestamp(30 * MS_PER_DAY), &cfg);
        reinforce_on_access(&mut m, Timestamp(MS_PER_DAY));
        assert_eq!(m.access_count, 1);
        assert_eq!(m.last_accessed_at, Timestamp(MS_PER_DAY));
        assert!((m.importance - 0.525).abs() < 1e-12);
        assert!(strength(&m, Timestamp(30 * MS_PER_DAY), &cfg) > before);
        assert_eq!(boosted_importance(1.0), 1.0);
    }

    #[test]
    fn encounters_average_importance() {
        let mut m = memory(MemoryType::Preference, 0.9, 0);
        reinforce_on_encounter(&mut m, 0.3, Timestamp(5));
        assert!((m.importance - 0.6).abs() < 1e-12);
        assert_eq!(m.encounter_count, 2);
        assert_eq!(m.updated_at, Timestamp(5));
        reinforce_on_encounter(&mut m, 0.6, Timestamp(6));
        assert!((m.importance - 0.6).abs() < 1e-12);
        assert_eq!(m.encounter_count, 3);
        assert_eq!(m.last_accessed_at, Timestamp(0));
    }
}
