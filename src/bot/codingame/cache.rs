//! The compile cache: one folder per compiled source, named by a hash of everything that decides
//! the result (the source's bytes and name, the language, the compiler's path and version, the
//! flags), so a source is compiled once, whichever run, shard or thread needs it first.
//!
//! A compile writes into a fresh temporary folder beside the cache's entries and renames it into
//! place when it succeeds: an entry that exists is complete, two processes compiling the same
//! source both succeed (the second rename finds the entry there and keeps it), and a compile
//! killed halfway leaves only a temporary folder, removed a day later.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

/// The variable that moves arena's cache; `cg:` builds go into its `cg` folder.
pub(crate) const CACHE_DIR_VAR: &str = "ARENA_CACHE_DIR";

/// Bump to make every cached build stale (a change in how sources are compiled).
const LAYOUT_VERSION: &str = "arena-cg-1";

/// The prefix of compiles in progress (or killed).
const TEMP_PREFIX: &str = ".tmp-";

/// How old a left-over temporary folder must be before it is removed.
const STALE_TEMP: Duration = Duration::from_secs(24 * 3600);

/// The folder of `cg:` builds: `$ARENA_CACHE_DIR/cg`, else `$XDG_CACHE_HOME/arena/cg`, else
/// `~/.cache/arena/cg`. `None` when none of the variables is set.
pub(crate) fn root() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var(CACHE_DIR_VAR) {
        return Some(std::path::absolute(&dir).unwrap_or(dir).join("cg"));
    }
    // The XDG spec ignores relative paths.
    if let Some(dir) = var("XDG_CACHE_HOME").filter(|d| d.is_absolute()) {
        return Some(dir.join("arena").join("cg"));
    }
    var("HOME").map(|home| home.join(".cache").join("arena").join("cg"))
}

/// The hash that names a build.
pub(crate) fn key(parts: &[&[u8]]) -> String {
    let mut hash = Sha256::new();
    hash.update(LAYOUT_VERSION.as_bytes());
    for part in parts {
        // Length-prefixed, so no two different lists hash the same bytes.
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hash.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// A fresh temporary folder in the cache for one compile, after removing stale ones.
pub(crate) fn temp_dir(root: &Path) -> std::io::Result<tempfile::TempDir> {
    std::fs::create_dir_all(root)?;
    remove_stale_temps(root);
    tempfile::Builder::new().prefix(TEMP_PREFIX).tempdir_in(root)
}

/// Moves a finished compile into place as `entry`. Someone else may have put it there first:
/// either copy is complete, so theirs is kept.
pub(crate) fn install(temp: tempfile::TempDir, entry: &Path) -> std::io::Result<()> {
    let path = temp.keep();
    match std::fs::rename(&path, entry) {
        Ok(()) => Ok(()),
        Err(_) if entry.is_dir() => {
            let _ = std::fs::remove_dir_all(&path);
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&path);
            Err(e)
        }
    }
}

/// Writes a small file of the cache whole or not at all (a temporary file renamed into place),
/// so a reader never sees half of it.
pub(crate) fn write_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder)?;
    let mut temp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(folder)?;
    std::io::Write::write_all(&mut temp, contents)?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn remove_stale_temps(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let modified = entry.metadata().and_then(|m| m.modified());
        let age = modified.ok().and_then(|m| now.duration_since(m).ok()).unwrap_or_default();
        if age > STALE_TEMP {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_depends_on_every_part_and_their_boundaries() {
        let a = key(&[b"cpp", b"int main(){}"]);
        assert_eq!(a, key(&[b"cpp", b"int main(){}"]));
        assert_ne!(a, key(&[b"cpp", b"int main(){ }"]));
        assert_ne!(key(&[b"ab", b"c"]), key(&[b"a", b"bc"]));
        assert_eq!(a.len(), 32);
    }

    #[test]
    fn a_second_install_keeps_the_first() {
        let root = tempfile::tempdir().unwrap();
        let entry = root.path().join("cpp-x");
        for content in ["first", "second"] {
            let temp = temp_dir(root.path()).unwrap();
            std::fs::write(temp.path().join("bot"), content).unwrap();
            install(temp, &entry).unwrap();
        }
        assert_eq!(std::fs::read_to_string(entry.join("bot")).unwrap(), "first");
        let left: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary folder is left: {left:?}");
    }
}
