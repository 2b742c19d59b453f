//! Where an arena's relative map paths point: a folder on disk, or the files embedded in the
//! binary for the built-in default arena (so `arena run` works from any folder).

use std::path::{Path, PathBuf};

use crate::game::MapText;

use super::error::Problem;

/// The arena `arena run` plays without a file: Skynet Episode 2's built-in bots.
pub(crate) const DEFAULT_ARENA: &str = include_str!("../../../arenas/default.toml");

/// What the default arena's relative map paths resolve to, so it runs from any folder.
const EMBEDDED_FILES: &[(&str, &str)] = &[
    ("maps/skynet/ep2_01.txt", include_str!("../../../arenas/maps/skynet/ep2_01.txt")),
    ("maps/skynet/ep2_02.txt", include_str!("../../../arenas/maps/skynet/ep2_02.txt")),
    ("maps/skynet/ep2_03.txt", include_str!("../../../arenas/maps/skynet/ep2_03.txt")),
    (
        "maps/skynet/ep2_custom_forum_12nodes.txt",
        include_str!("../../../arenas/maps/skynet/ep2_custom_forum_12nodes.txt"),
    ),
    (
        "maps/skynet/extra_teaching_alpha.txt",
        include_str!("../../../arenas/maps/skynet/extra_teaching_alpha.txt"),
    ),
    (
        "maps/skynet/extra_teaching_default.txt",
        include_str!("../../../arenas/maps/skynet/extra_teaching_default.txt"),
    ),
];

/// Where an arena's relative paths point.
pub enum Files {
    /// Files on disk, relative to this folder.
    Disk(PathBuf),
    /// The files embedded in the binary (for the default arena).
    Embedded,
}

impl Files {
    /// The map at `rel`, named by its file name.
    pub(super) fn read(&self, rel: &str) -> Result<MapText, Problem> {
        match self {
            Files::Disk(base) => {
                let path = base.join(rel);
                let text = crate::game::read_input(&path)
                    .map_err(|source| Problem::CannotRead { path, source })?;
                Ok(MapText { name: map_name(rel), text })
            }
            Files::Embedded => EMBEDDED_FILES
                .iter()
                .find(|(p, _)| *p == rel)
                .map(|(p, text)| MapText { name: map_name(p), text: text.to_string() })
                .ok_or_else(|| Problem::NoEmbeddedFile(rel.to_string())),
        }
    }

    /// The files `pattern` matches, relative to the folder, in order; none is an error.
    pub(super) fn glob(&self, pattern: &str) -> Result<Vec<String>, Problem> {
        let bad = |e: &dyn std::fmt::Display| Problem::BadGlob(e.to_string());
        let found = match self {
            Files::Disk(base) => {
                // The folder is literal text: a `[` or `*` in its name is not part of the pattern.
                let folder =
                    base.to_str().ok_or_else(|| bad(&"the arena's folder is not UTF-8"))?;
                let full = Path::new(&glob::Pattern::escape(folder)).join(pattern);
                let full = full.to_str().ok_or_else(|| bad(&"the pattern is not UTF-8"))?;
                let mut found = Vec::new();
                for entry in glob::glob(full).map_err(|e| bad(&e))? {
                    let path = entry.map_err(|e| bad(&e))?;
                    if path.is_file() {
                        let rel = path.strip_prefix(base).unwrap_or(&path);
                        found.push(rel.to_string_lossy().into_owned());
                    }
                }
                found.sort();
                found
            }
            Files::Embedded => {
                let pattern = glob::Pattern::new(pattern).map_err(|e| bad(&e))?;
                EMBEDDED_FILES
                    .iter()
                    .filter(|(p, _)| pattern.matches(p))
                    .map(|(p, _)| p.to_string())
                    .collect()
            }
        };
        if found.is_empty() {
            let folder = match self {
                Files::Disk(base) if base.as_os_str().is_empty() => Some(PathBuf::from(".")),
                Files::Disk(base) => Some(base.clone()),
                Files::Embedded => None,
            };
            return Err(Problem::GlobMatchesNothing { pattern: pattern.to_string(), folder });
        }
        Ok(found)
    }
}

/// A map's name in results: its file name without folders.
fn map_name(rel: &str) -> String {
    Path::new(rel).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(rel.into())
}
