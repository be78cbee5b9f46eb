//! A build's progress over its tables ([`Progress::table`]): which of how many it is building,
//! and the time left for all of them. The time left is the plan's estimate of the tables left
//! (`estimate.rs`: constant rates per entry), scaled by how long the tables this run built took
//! against their estimates, so a machine slower or faster than the reference corrects it.

use super::estimate::estimate_table;
use super::{BuildError, BuildOptions, Target};
use crate::retro::progress::{FamilyStatus, Progress};
use std::time::Instant;

/// The tables a run builds, with their estimates, and how the built ones compared.
pub(super) struct Family {
    start: Instant,
    /// The tables to build (not in the directory when the run started) and their estimated
    /// seconds, in build order.
    todo: Vec<(Target, f64)>,
    /// Of the tables this run built: their estimates and their times, summed.
    built: (f64, f64),
}

impl Family {
    /// The tables of `tables` that are not yet in `--dir`, with their estimates.
    pub(super) fn new(tables: &[Target], opts: &BuildOptions) -> Result<Family, BuildError> {
        let mut todo = Vec::new();
        for &t in tables.iter().filter(|t| !t.path(&opts.dir).exists()) {
            todo.push((t, estimate_table(t, opts)?.seconds));
        }
        Ok(Family {
            start: Instant::now(),
            todo,
            built: (0.0, 0.0),
        })
    }

    /// Tells `progress` that `t` starts, if it is one of the tables to build (a table present
    /// at the start that is rebuilt after all is not counted).
    pub(super) fn starting(&self, t: Target, progress: &dyn Progress) {
        if let Some(status) = self.status(t) {
            progress.table(&status);
        }
    }

    /// Where the run stands as `t` starts.
    fn status(&self, t: Target) -> Option<FamilyStatus> {
        let k = self.todo.iter().position(|&(u, _)| u == t)?;
        let (estimated, took) = self.built;
        let scale = if estimated > 0.0 {
            took / estimated
        } else {
            1.0
        };
        let left: f64 = self.todo[k..].iter().map(|&(_, s)| s).sum();
        Some(FamilyStatus {
            table: t.to_string(),
            number: k + 1,
            count: self.todo.len(),
            elapsed: self.start.elapsed().as_secs_f64(),
            left: left * scale,
        })
    }

    /// Records that `t` was built in `seconds`.
    pub(super) fn built(&mut self, t: Target, seconds: f64) {
        if let Some(&(_, estimate)) = self.todo.iter().find(|&&(u, _)| u == t) {
            self.built.0 += estimate;
            self.built.1 += seconds;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Metric;

    fn target(m: &str) -> Target {
        Target {
            material: m.parse().unwrap(),
            metric: Metric::Dtc,
        }
    }

    #[test]
    fn the_time_left_scales_the_estimates_by_the_tables_built() {
        let (a, b, c) = (target("KRK"), target("KNK"), target("KRKN"));
        let mut f = Family {
            start: Instant::now(),
            todo: vec![(a, 10.0), (b, 20.0), (c, 30.0)],
            built: (0.0, 0.0),
        };
        let s = f.status(a).unwrap();
        assert_eq!((s.number, s.count, s.left), (1, 3, 60.0));
        // The first took twice its estimate: the others are expected to as well.
        f.built(a, 20.0);
        let s = f.status(b).unwrap();
        assert_eq!((s.number, s.left), (2, 100.0));
        f.built(b, 10.0);
        // 30 s for 30 estimated: the last as estimated.
        assert_eq!(f.status(c).unwrap().left, 30.0);
        assert_eq!(f.status(target("KCK")), None, "not a table to build");
    }
}
