//! Statistics over repeats: median, mean, a 95 % Student-t confidence interval of the mean and
//! the coefficient of variation. docs/METHODOLOGY.md explains the choice.

use serde::{Deserialize, Serialize};

/// A coefficient of variation above this is flagged as noisy in the report.
pub const NOISY_CV: f64 = 0.10;

/// Summary of one metric over the repeats of one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub mean: f64,
    /// 95 % confidence interval of the mean; `None` with fewer than two repeats.
    pub ci: Option<(f64, f64)>,
    /// Sample standard deviation ÷ mean; `None` with fewer than two repeats.
    pub cv: Option<f64>,
}

impl Summary {
    /// Median, mean, 95 % t-interval and CV of any values (logarithms of ratios included).
    pub fn of(values: &[f64]) -> Option<Summary> {
        Summary::of_at(values, ALPHA)
    }

    /// `of`, with a `1 − alpha` interval: claims judged at several looks of a sequential run use
    /// a Bonferroni-corrected level.
    pub fn of_at(values: &[f64], alpha: f64) -> Option<Summary> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
        let (mean, sd) = mean_sd(values);
        if n < 2 {
            return Some(Summary { n, median, mean, ci: None, cv: None });
        }
        // The table at 95 %, which the report's every other interval uses, so they stay as printed.
        let t = if alpha == ALPHA { t95(n - 1) } else { t_quantile(n - 1, alpha) };
        let half = t * sd / (n as f64).sqrt();
        let cv = if mean != 0.0 { Some(sd / mean.abs()) } else { None };
        Some(Summary { n, median, mean, ci: Some((mean - half, mean + half)), cv })
    }

    /// `of` for a measured quantity (time, rate, size, CPU), which cannot be negative, nor can its
    /// mean: the interval stops at 0 (cutting it at a bound the true value cannot cross keeps
    /// its 95 % coverage) instead of showing a negative time.
    pub fn of_measured(values: &[f64]) -> Option<Summary> {
        Summary::of_measured_at(values, ALPHA)
    }

    /// `of_measured` with a `1 − alpha` interval.
    pub fn of_measured_at(values: &[f64], alpha: f64) -> Option<Summary> {
        let mut s = Summary::of_at(values, alpha)?;
        if values.iter().all(|&v| v >= 0.0) {
            s.ci = s.ci.map(|(lo, hi)| (lo.max(0.0), hi));
        }
        Some(s)
    }

    /// The spread of measured values across repeats as their geometric standard deviation
    /// (`exp` of the standard deviation of their logarithms: 1 when every repeat is the same,
    /// 1.5 when a typical repeat is half again or two thirds of the typical one), with the
    /// `1 − alpha` interval of a normal sample's standard deviation (χ² with `n − 1` degrees of
    /// freedom) on the logarithms. `None` with fewer than three positive values: two give an
    /// interval too wide to judge anything. `median` and `mean` are the point value.
    pub fn spread_at(values: &[f64], alpha: f64) -> Option<Summary> {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        if values.len() < 3 || values.iter().any(|&v| v <= 0.0) {
            return None;
        }
        let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
        let n = logs.len();
        let (_, sd) = mean_sd(&logs);
        let df = (n - 1) as f64;
        let chi = ChiSquared::new(df).expect("n >= 3 gives a valid chi-squared");
        let (upper, lower) = (chi.inverse_cdf(1.0 - alpha / 2.0), chi.inverse_cdf(alpha / 2.0));
        let (lo, hi) = ((sd * (df / upper).sqrt()).exp(), (sd * (df / lower).sqrt()).exp());
        let point = sd.exp();
        Some(Summary { n, median: point, mean: point, ci: Some((lo, hi)), cv: None })
    }

    /// `spread_at` from the interquartile range of the logs instead of their standard deviation
    /// (σ ≈ IQR ÷ 1.349 for normal logs), so that one outlier repeat cannot decide it. The
    /// interval is the χ² one with the degrees of freedom the quartiles are worth: the IQR
    /// estimates σ with 37 % of the standard deviation's efficiency, so with 0.37 (n − 1).
    pub fn robust_spread_at(values: &[f64], alpha: f64) -> Option<Summary> {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        if values.len() < 4 || values.iter().any(|&v| v <= 0.0) {
            return None;
        }
        let mut logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
        logs.sort_by(f64::total_cmp);
        let n = logs.len();
        // Quantiles by linear interpolation between order statistics (R's type 7).
        let q = |p: f64| {
            let h = (n - 1) as f64 * p;
            let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
            logs[lo] + (h - lo as f64) * (logs[hi] - logs[lo])
        };
        let sd = (q(0.75) - q(0.25)) / 1.349;
        let df = 0.37 * (n - 1) as f64;
        let chi = ChiSquared::new(df).expect("n >= 4 gives a valid chi-squared");
        let (upper, lower) = (chi.inverse_cdf(1.0 - alpha / 2.0), chi.inverse_cdf(alpha / 2.0));
        let (lo, hi) = ((sd * (df / upper).sqrt()).exp(), (sd * (df / lower).sqrt()).exp());
        let point = sd.exp();
        Some(Summary { n, median: point, mean: point, ci: Some((lo, hi)), cv: None })
    }

    pub fn noisy(&self) -> bool {
        self.cv.is_some_and(|cv| cv > NOISY_CV)
    }
}

/// The error rate of every interval the report shows: 95 % intervals.
pub const ALPHA: f64 = 0.05;

/// The mean and the sample standard deviation (n − 1); the deviation is 0 for fewer than two
/// values.
pub(crate) fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, var.sqrt())
}

/// The two-sided `1 − alpha` quantile of Student's t with `df` degrees of freedom
/// (`t_quantile(df, 0.05)` agrees with `t95` to its three decimals).
pub fn t_quantile(df: usize, alpha: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    if df == 0 {
        return f64::INFINITY;
    }
    let t = StudentsT::new(0.0, 1.0, df as f64).expect("df > 0 is a valid Student's t");
    t.inverse_cdf(1.0 - alpha / 2.0)
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    // Standard table values; past 30 the normal quantile is within 2 %.
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        31..=60 => 2.000,
        _ => 1.960,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_agree_with_the_table_and_widen_for_smaller_alpha() {
        for df in 1..=30 {
            assert!((t_quantile(df, ALPHA) - t95(df)).abs() < 1e-3, "df {df}");
        }
        // Tables: t(0.995, 2) = 9.925, t(0.999, 9) = 4.297.
        assert!((t_quantile(2, 0.01) - 9.925).abs() < 1e-3);
        assert!((t_quantile(9, 0.002) - 4.297).abs() < 1e-3, "{}", t_quantile(9, 0.002));
        let s = Summary::of(&[10.0, 12.0, 14.0]).unwrap();
        let wide = Summary::of_at(&[10.0, 12.0, 14.0], 0.01).unwrap();
        let (lo, hi) = (s.ci.unwrap(), wide.ci.unwrap());
        assert!(hi.0 < lo.0 && hi.1 > lo.1 && (wide.mean, wide.median) == (s.mean, s.median));
        assert_eq!(Summary::of_at(&[10.0, 12.0, 14.0], ALPHA), Some(s));
    }

    #[test]
    fn summary_of_known_values() {
        let s = Summary::of(&[10.0, 12.0, 14.0]).unwrap();
        assert_eq!((s.n, s.median, s.mean), (3, 12.0, 12.0));
        let (lo, hi) = s.ci.unwrap();
        // sd = 2, half-width = 4.303 * 2 / sqrt(3) = 4.969
        assert!((lo - 7.031).abs() < 1e-3 && (hi - 16.969).abs() < 1e-3, "{lo} {hi}");
        assert!((s.cv.unwrap() - 2.0 / 12.0).abs() < 1e-9);
        assert!(s.noisy());
    }

    #[test]
    fn one_value_has_no_interval_and_even_count_median_averages() {
        let s = Summary::of(&[5.0]).unwrap();
        assert_eq!((s.median, s.ci, s.cv), (5.0, None, None));
        assert!(!s.noisy());
        assert_eq!(Summary::of(&[1.0, 2.0, 3.0, 10.0]).unwrap().median, 2.5);
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn intervals_of_measured_values_stop_at_zero() {
        // mean 0.4, sd 0.52: the t interval's lower end would be 0.4 - 1.29 < 0.
        let s = Summary::of_measured(&[0.1, 0.1, 1.0]).unwrap();
        let (lo, hi) = s.ci.unwrap();
        assert_eq!(lo, 0.0);
        assert!((hi - 1.69).abs() < 0.01, "{hi}");
        // Values that may be negative (logarithms of ratios) keep the plain interval.
        assert!(Summary::of(&[0.1, 0.1, 1.0]).unwrap().ci.unwrap().0 < 0.0);
        assert!(Summary::of_measured(&[-0.1, 0.1, 1.0]).unwrap().ci.unwrap().0 < 0.0);
    }

    #[test]
    fn spread_across_repeats_is_a_geometric_sd_with_a_chi_squared_interval() {
        // ln of 1, e and e^2: sd 1, so the point is e; df 2, chi-squared 0.975 and 0.025
        // quantiles 7.378 and 0.0506: sd within [sqrt(2/7.378), sqrt(2/0.0506)] = [0.521, 6.29].
        let e = std::f64::consts::E;
        let s = Summary::spread_at(&[1.0, e, e * e], ALPHA).unwrap();
        assert!((s.median - e).abs() < 1e-9, "{}", s.median);
        let (lo, hi) = s.ci.unwrap();
        assert!((lo.ln() - 0.5207).abs() < 1e-3 && (hi.ln() - 6.287).abs() < 1e-2, "{} {}", lo.ln(), hi.ln());
        // Equal repeats spread by a factor of 1 with no width; a wider level widens the interval.
        assert_eq!(Summary::spread_at(&[2.0; 5], ALPHA).unwrap().ci, Some((1.0, 1.0)));
        let values = [10.0, 12.0, 9.0, 15.0, 11.0, 10.5];
        let (narrow, wide) = (Summary::spread_at(&values, ALPHA).unwrap(), Summary::spread_at(&values, 0.01).unwrap());
        assert!(wide.ci.unwrap().0 < narrow.ci.unwrap().0 && wide.ci.unwrap().1 > narrow.ci.unwrap().1);
        assert!(narrow.ci.unwrap().0 < narrow.median && narrow.median < narrow.ci.unwrap().1);
        // Too few or non-positive values have no spread.
        assert!(Summary::spread_at(&[1.0, 2.0], ALPHA).is_none());
        assert!(Summary::spread_at(&[1.0, 0.0, 2.0], ALPHA).is_none());
    }

    #[test]
    fn steady_values_are_not_noisy() {
        let s = Summary::of(&[100.0, 101.0, 99.0, 100.0]).unwrap();
        assert!(!s.noisy());
    }
}
