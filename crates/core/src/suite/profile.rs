//! Profiles: how much work one run does (repeats, a scale on counts and durations, the rows it
//! leaves out, a sequential phase), each checking itself when the suite loads.

use serde::{Deserialize, Serialize};

use super::error::Invalid;
use super::scenario::{FEW_WARMUP_WINDOWS, MIN_WARMUP_WINDOWS};

/// How much work one run does: repeats and a scale on request counts and durations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub repeats: u32,
    /// Multiplies `requests`, `warmup_requests`, `duration_s` and `warmup_s` of every scenario.
    #[serde(default = "one")]
    pub scale: f64,
    /// Caps `connections` (smoke runs stay light).
    #[serde(default)]
    pub max_connections: Option<u32>,
    /// Caps `warmup_until_steady` (at least 2, the windows it compares): a smoke run checks that
    /// each row runs and does not wait for a JVM to settle. The REST service's smoke rows took up
    /// to 8 windows of about a second each, 81 of its 112 s (2-core Intel VM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_warmup_windows: Option<u32>,
    /// Harness repeats are split into this many rounds, each running every harness once with
    /// its share of the repeats, so that harnesses that measure one thing under different
    /// conditions (the realtime lab's TLS, HTTP/2, slow-client and disk runs) share the
    /// machine's drift instead of each getting its own stretch of minutes. Capped at `repeats`.
    #[serde(default = "one_round")]
    pub harness_rounds: u32,
    /// After `repeats`, keep repeating the rows of claims still undecided, one repeat per round,
    /// until each is decided or the limits are reached (`runner`'s sequential phase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_decided: Option<UntilDecided>,
    /// Globs on scenario ids this profile leaves out (protocols' `brief` drops the rows across
    /// network links, whose lossy rows need seconds each). Each must match some scenario;
    /// harness rows are not skipped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
}

/// The limits of a sequential run: at most `max_repeats` repeats of any row, and no new round
/// after `budget_s` seconds of the sequential phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UntilDecided {
    pub max_repeats: u32,
    pub budget_s: f64,
}

fn one_round() -> u32 {
    1
}

impl Profile {
    /// The names `builtin` knows, in the order of their repeats.
    pub const BUILTIN: [&'static str; 3] = ["smoke", "quick", "full"];

    /// The built-in profile of this name (`smoke` 1 repeat at 5 %, `quick` 3, `full` 10).
    pub fn builtin(name: &str) -> Option<Profile> {
        let (repeats, scale) = match name {
            "smoke" => (1, 0.05),
            "quick" => (3, 1.0),
            "full" => (10, 1.0),
            _ => return None,
        };
        Some(Profile {
            repeats,
            scale,
            max_connections: None,
            max_warmup_windows: None,
            harness_rounds: 1,
            until_decided: None,
            skip: vec![],
        })
    }

    /// What is wrong with the profile on its own (that each `skip` glob matches some row is the
    /// suite's to check): the key inside the profile and the message.
    pub fn check(&self) -> Result<(), Invalid> {
        if self.repeats == 0 || self.scale <= 0.0 {
            // The key is the profile itself: the message names both.
            return Err(Invalid::new("", "repeats and scale must be positive"));
        }
        if self.max_warmup_windows.is_some_and(|w| w < MIN_WARMUP_WINDOWS) {
            return Err(Invalid::new("max_warmup_windows", FEW_WARMUP_WINDOWS));
        }
        if let Some(u) = self.until_decided {
            u.check(self.repeats).map_err(|e| Invalid::new("until_decided", e))?;
        }
        if let Err((i, e)) = self.skip_globs() {
            return Err(Invalid::new(format!("skip[{i}]"), format!("`{}` is not a glob: {e}", self.skip[i])));
        }
        Ok(())
    }

    /// The `skip` globs, parsed; or the index of the first that is not a glob, with its error.
    pub fn skip_globs(&self) -> Result<Vec<glob::Pattern>, (usize, glob::PatternError)> {
        self.skip.iter().enumerate().map(|(i, g)| glob::Pattern::new(g).map_err(|e| (i, e))).collect()
    }

    /// Whether the profile leaves out the scenario with this id.
    pub fn skips(&self, id: &str) -> bool {
        // The globs were checked when the suite was parsed; a built-in profile has none.
        self.skip_globs().is_ok_and(|globs| globs.iter().any(|g| g.matches(id)))
    }

    /// How many times claims are judged in a run: once, or at every repeat count from `repeats`
    /// to `until_decided.max_repeats` in a sequential run.
    pub fn looks(&self) -> u32 {
        self.until_decided.map_or(1, |u| u.max_repeats.saturating_sub(self.repeats) + 1)
    }

    /// The error rate of each look's claim intervals: 5 % shared among the looks (Bonferroni),
    /// so the chance that any look's interval misses stays at most 5 % however the run stops.
    pub fn claim_alpha(&self) -> f64 {
        crate::stats::ALPHA / f64::from(self.looks())
    }

    /// The repeats of each harness round: `repeats` split into `harness_rounds` (at most
    /// `repeats`) parts, the larger ones first, as (first repeat, count).
    pub fn harness_rounds(&self) -> Vec<(u32, u32)> {
        let rounds = self.harness_rounds.clamp(1, self.repeats.max(1));
        let (base, extra) = (self.repeats / rounds, self.repeats % rounds);
        let mut first = 1;
        (0..rounds)
            .map(|k| {
                let count = base + u32::from(k < extra);
                let round = (first, count);
                first += count;
                round
            })
            .collect()
    }
}

fn one() -> f64 {
    1.0
}

impl UntilDecided {
    /// Why these limits cannot work after `repeats` repeats, if they cannot.
    pub fn check(&self, repeats: u32) -> Result<(), String> {
        if repeats < 2 {
            return Err(format!(
                "needs at least 2 repeats before it (the profile has {repeats}): one gives no interval"
            ));
        }
        if self.max_repeats <= repeats {
            return Err(format!("max_repeats {} must exceed the profile's {repeats} repeats", self.max_repeats));
        }
        if !(self.budget_s > 0.0 && self.budget_s.is_finite()) {
            return Err(format!("budget_s {} must be a positive number of seconds", self.budget_s));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_names_are_the_builtin_profiles() {
        let repeats: Vec<u32> = Profile::BUILTIN.iter().map(|n| Profile::builtin(n).expect(n).repeats).collect();
        assert_eq!(repeats, [1, 3, 10]);
        assert!(Profile::builtin("brief").is_none());
    }

    #[test]
    fn harness_repeats_split_into_rounds_larger_first() {
        let p = |repeats, harness_rounds| Profile {
            repeats,
            scale: 1.0,
            max_connections: None,
            max_warmup_windows: None,
            harness_rounds,
            until_decided: None,
            skip: vec![],
        };
        assert_eq!(p(10, 1).harness_rounds(), [(1, 10)]);
        assert_eq!(p(10, 3).harness_rounds(), [(1, 4), (5, 3), (8, 3)]);
        assert_eq!(p(2, 5).harness_rounds(), [(1, 1), (2, 1)], "capped at the repeats");
        assert_eq!(p(3, 0).harness_rounds(), [(1, 3)], "zero means one");
    }

    #[test]
    fn a_profile_checks_its_own_numbers_and_globs() {
        let quick = Profile::builtin("quick").unwrap();
        assert_eq!(quick.check(), Ok(()));
        let zero = Profile { repeats: 0, ..quick.clone() };
        assert_eq!(zero.check().unwrap_err(), Invalid::new("", "repeats and scale must be positive"));
        let sequential =
            Profile { until_decided: Some(UntilDecided { max_repeats: 3, budget_s: 60.0 }), ..quick.clone() };
        assert_eq!(sequential.check().unwrap_err().key, "until_decided");
        let one_window = Profile { max_warmup_windows: Some(1), ..quick.clone() };
        assert_eq!(one_window.check().unwrap_err().key, "max_warmup_windows");
        let glob = Profile { skip: vec!["a*".into(), "[".into()], ..quick };
        assert_eq!(glob.check().unwrap_err().key, "skip[1]");
        assert_eq!(Profile::builtin("huge"), None);
    }
}
