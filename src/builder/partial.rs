//! A partial table's build (`formats/partial.md`): the tables that need none of the withheld
//! ones are built complete into `--dir`; then the table and every table between it and a
//! withheld one are built twice, the withheld tables' captures the best for Red and for Black,
//! into `--dir/partial/red-best` and `--dir/partial/black-best`, beside links to the complete
//! tables they read.

use super::{build, BuildError, BuildOptions, TableReport, Withheld};
use crate::material::Material;
use crate::piece::Color;
use crate::retro::progress::Progress;
use crate::table::{metric_table_path, Metric};
use std::path::Path;

pub use crate::tablebase::partial::partial_dir;

/// The tables `material`'s build reads that a partial build withholds: `without` (canonical),
/// and, if `absent_too`, each table `material` or a table it reads captures into that is not
/// in `dir` in one of `metrics` (a table present is complete and reads only present tables).
pub fn withheld_tables(
    material: Material,
    without: &[Material],
    (absent_too, metrics): (bool, &[Metric]),
    dir: &Path,
) -> Vec<Material> {
    let mut out: Vec<Material> = without.iter().map(Material::canonical).collect();
    if absent_too {
        let mut todo = vec![material.canonical()];
        let mut seen = Vec::new();
        while let Some(m) = todo.pop() {
            for sub in m.captures_into() {
                if out.contains(&sub) || seen.contains(&sub) {
                    continue;
                }
                seen.push(sub);
                if metrics
                    .iter()
                    .all(|&t| metric_table_path(dir, sub, t).exists())
                {
                    continue;
                }
                out.push(sub);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The reports of a partial build: the complete tables, then the tables of each build (Red's
/// best, Black's best).
pub type PartialReports = (Vec<TableReport>, [Vec<TableReport>; 2]);

/// Builds `material` as a partial table without the tables of `withheld` (canonical; see
/// [`withheld_tables`]).
pub fn build_partial(
    material: Material,
    withheld: &[Material],
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<PartialReports, BuildError> {
    if withheld.is_empty() {
        return Err(BuildError::Options(format!(
            "a partial build of {material} withholds no table: name them with --without, or \
             leave supporting tables out of the directory"
        )));
    }
    let needs_withheld = |m: Material| m.supporting().iter().any(|s| withheld.contains(s));
    let complete: Vec<Material> = material
        .supporting_without(withheld)
        .into_iter()
        .filter(|&m| !needs_withheld(m))
        .collect();
    let mut reports: PartialReports = Default::default();
    for &m in &complete {
        reports.0.extend(build(m, opts, progress)?);
    }
    for best_for in Color::ALL {
        let dir = partial_dir(&opts.dir, best_for);
        std::fs::create_dir_all(&dir).map_err(|source| BuildError::Io {
            path: dir.clone(),
            source,
        })?;
        for &m in &complete {
            for &metric in opts.metrics.list() {
                link_table(&opts.dir, &dir, (m, metric))?;
            }
        }
        let side = BuildOptions {
            dir,
            tmp: opts.tmp.join(partial_dir(Path::new(""), best_for)),
            withheld: Some(Withheld {
                materials: withheld.to_vec(),
                best_for,
            }),
            ..opts.clone()
        };
        reports.1[best_for.index()] = build(material, &side, progress)?;
    }
    Ok(reports)
}

/// Puts `material`'s complete table of `metric` in `from` into `to` as a hard link (a copy if
/// the filesystem cannot link), replacing what is there unless it is that very file.
fn link_table(
    from: &Path,
    to: &Path,
    (material, metric): (Material, Metric),
) -> Result<(), BuildError> {
    let (src, dst) = (
        metric_table_path(from, material, metric),
        metric_table_path(to, material, metric),
    );
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| BuildError::Io { path, source }
    };
    let same = |a: &Path, b: &Path| {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    };
    if same(&src, &dst) {
        return Ok(());
    }
    if dst.exists() {
        std::fs::remove_file(&dst).map_err(io(&dst))?;
    }
    if std::fs::hard_link(&src, &dst).is_err() {
        let tmp = dst.with_extension("xqtb.tmp");
        std::fs::copy(&src, &tmp).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &dst).map_err(io(&dst))?;
    }
    Ok(())
}
