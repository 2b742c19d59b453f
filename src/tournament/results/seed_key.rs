//! `seed.key`: a results folder's secret [`SeedKey`], from which (with the master seed) every
//! match seed of the folder is drawn (`crate::seed::game_seed`). Made once per arena from the
//! operating system's RNG, in the arena's folder `<output>/<name>`, mode 0600; every results
//! folder of the arena (its run, its shards, an SPRT's folders, a run `--out` elsewhere) keeps a
//! copy, which a resume, `--fresh`, `arena merge` and `arena sprt --decide` read back. So the
//! shards of a run share one key and merge, two runs of one arena can be compared match by
//! match (`arena diff`), and the same arena file with the same `seed.key` replays a run byte for
//! byte; folders of different keys are refused, naming both files. Only the key's id
//! ([`SeedKey::id`]) is written anywhere else (`meta.json`).
//!
//! The file is 64 hex digits and a newline. A finished temporary file is put in place only if
//! the name is free, so two shards starting at once agree on one key, and no reader ever sees
//! half a key.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::corrupt;
use crate::error::{Error, Result};
use crate::seed::SeedKey;

pub(crate) const SEED_KEY_FILE: &str = "seed.key";

/// Where a folder's key comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeySource<'a> {
    /// The folder's own `seed.key`; a folder without one takes the key of the arena's folder
    /// `home` (`<output>/<name>`, made there if it has none): every folder of one arena on one
    /// machine — its run, its shards, its tests, a run `--out` elsewhere — draws the same seeds.
    Arena { home: &'a Path },
    /// The key in `file` (`--seed-key`: another folder's, to replay its run). A folder that
    /// holds another key is refused, unless `replace` (`--fresh`: its rows go anyway).
    File { file: &'a Path, replace: bool },
}

/// The key of results folder `dir` (made, with `dir`, if need be), from `source`.
pub(crate) fn folder_key(dir: &Path, source: KeySource<'_>) -> Result<SeedKey> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    match source {
        KeySource::File { file, replace } => {
            let key = read_key_file(file)?.ok_or_else(|| {
                Error::Usage(format!("--seed-key `{}`: no such file", file.display()))
            })?;
            if replace {
                replace_key(dir, &key)?;
            } else {
                install_key(dir, &key, file)?;
            }
            Ok(key)
        }
        KeySource::Arena { home } => {
            if let Some(key) = read_key(dir)? {
                return Ok(key);
            }
            std::fs::create_dir_all(home).map_err(|e| Error::write(home, e))?;
            let key = key_in(home)?;
            install_key(dir, &key, &home.join(SEED_KEY_FILE))?;
            Ok(key)
        }
    }
}

/// The key in `dir`'s `seed.key`, or `None` when it has none.
pub(crate) fn read_key(dir: &Path) -> Result<Option<SeedKey>> {
    read_key_file(&dir.join(SEED_KEY_FILE))
}

/// The key in the file `path` (written as `seed.key` is), or `None` when there is no such file.
fn read_key_file(path: &Path) -> Result<Option<SeedKey>> {
    let path = path.to_path_buf();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::read(&path, e)),
    };
    let hex = text.trim_end_matches('\n');
    let bytes: Option<Vec<u8>> = (hex.len() == 64)
        .then(|| (0..32).map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()).collect())
        .flatten();
    match bytes.and_then(|b| <[u8; 32]>::try_from(b).ok()) {
        Some(bytes) => Ok(Some(SeedKey::from_bytes(bytes))),
        None => Err(corrupt(
            &path,
            None,
            "is not a seed key (64 hex digits, as arena writes it); put back the folder's \
             seed.key, or remove it and rerun with --fresh to play every match with a new key",
        )),
    }
}

/// The key of `dir`, made there if it has none.
fn key_in(dir: &Path) -> Result<SeedKey> {
    if let Some(key) = read_key(dir)? {
        return Ok(key);
    }
    let key = SeedKey::generate().map_err(|e| Error::write(dir.join(SEED_KEY_FILE), e))?;
    // Another process may have put its key first: the one on disk is the folder's.
    Ok(place_key(dir, &key)?.unwrap_or(key))
}

/// Puts `key` in `dir`'s `seed.key` unless it has one already, which must then be `key` (`from`
/// names where `key` came from, for the error).
pub(crate) fn install_key(dir: &Path, key: &SeedKey, from: &Path) -> Result<()> {
    match place_key(dir, key)? {
        Some(there) if there != *key => Err(other_key(&dir.join(SEED_KEY_FILE), &there, from, key)),
        _ => Ok(()),
    }
}

/// Puts `key` in `dir`'s `seed.key` if the name is free (renameat2's RENAME_NOREPLACE, or
/// link(2)); else returns the key already there.
fn place_key(dir: &Path, key: &SeedKey) -> Result<Option<SeedKey>> {
    let path = dir.join(SEED_KEY_FILE);
    match key_file(dir, key)?.persist_noclobber(&path) {
        Ok(_) => Ok(None),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => match read_key(dir)? {
            Some(there) => Ok(Some(there)),
            None => Err(corrupt(&path, None, "vanished while it was being made")),
        },
        Err(e) => Err(Error::write(&path, e.error)),
    }
}

/// Makes `key` the key of `dir`, whatever was there (`arena sprt --decide` writes a folder made
/// of the ranges' games wholly anew).
pub(crate) fn replace_key(dir: &Path, key: &SeedKey) -> Result<()> {
    if read_key(dir).ok().flatten().as_ref() == Some(key) {
        return Ok(());
    }
    let path = dir.join(SEED_KEY_FILE);
    let tmp = key_file(dir, key)?;
    tmp.persist(&path).map(drop).map_err(|e| Error::write(&path, e.error))
}

/// A temporary file in `dir` holding `key` as `seed.key` does, mode 0600 (written and on disk).
fn key_file(dir: &Path, key: &SeedKey) -> Result<tempfile::NamedTempFile> {
    let text: String = key.as_bytes().iter().map(|b| format!("{b:02x}")).collect::<String>() + "\n";
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{SEED_KEY_FILE}."))
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(dir)
        .map_err(|e| Error::write(dir.join(SEED_KEY_FILE), e))?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| Error::write(tmp.path(), e))?;
    Ok(tmp)
}

/// The error for a folder whose key (`there`, in `path`) is not `key` (from `from`).
pub(crate) fn other_key(path: &Path, there: &SeedKey, from: &Path, key: &SeedKey) -> Error {
    corrupt(
        path,
        None,
        format!(
            "holds seed key {}, but `{}` holds key {}: the folders of one run (its shards, its \
             ranges of pairs, their merge) share one seed.key; copy the run's seed.key to every \
             machine before starting its shards",
            there.id(),
            from.display(),
            key.id()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_of_one_arena_share_its_key_and_keep_it_private() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("results/t");
        let arena = KeySource::Arena { home: &home };
        let key = folder_key(&home, arena).unwrap();
        let path = home.join(SEED_KEY_FILE);
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap().len(), 65);
        assert_eq!(folder_key(&home, arena).unwrap(), key, "read back, not made anew");
        // A shard, and a folder elsewhere: the arena's key, copied in.
        let shard = home.join("shard-1-of-2");
        assert_eq!(folder_key(&shard, arena).unwrap(), key);
        assert_eq!(read_key(&shard).unwrap(), Some(key.clone()));
        let elsewhere = root.path().join("after");
        assert_eq!(folder_key(&elsewhere, arena).unwrap(), key);
        let copy = elsewhere.join(SEED_KEY_FILE);
        assert_eq!(std::fs::metadata(&copy).unwrap().permissions().mode() & 0o777, 0o600);
        // Another arena: another key.
        let other_home = root.path().join("results/u");
        let other = folder_key(&other_home, KeySource::Arena { home: &other_home }).unwrap();
        assert_ne!(other, key);
        // No temporary file is left behind.
        let names: Vec<_> =
            std::fs::read_dir(&home).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{names:?}");

        // Another key where one is: refused, naming both; with --fresh, replaced.
        let other_file = other_home.join(SEED_KEY_FILE);
        let refused = KeySource::File { file: &other_file, replace: false };
        let message = folder_key(&elsewhere, refused).unwrap_err().to_string();
        assert!(message.contains("after/seed.key") && message.contains("u/seed.key"), "{message}");
        assert!(message.contains(&other.id()) && message.contains(&key.id()), "{message}");
        let replaced = KeySource::File { file: &other_file, replace: true };
        assert_eq!(folder_key(&elsewhere, replaced).unwrap(), other);
        assert_eq!(read_key(&elsewhere).unwrap(), Some(other));

        std::fs::write(&path, "not a key\n").unwrap();
        let message = read_key(&home).unwrap_err().to_string();
        assert!(message.contains("t/seed.key") && message.contains("not a seed key"), "{message}");
    }

    #[test]
    fn shards_starting_together_agree_on_one_key() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("t");
        let keys: Vec<SeedKey> = std::thread::scope(|s| {
            let handles: Vec<_> = (1..=8)
                .map(|k| {
                    let dir = home.join(format!("shard-{k}-of-8"));
                    let home = &home;
                    s.spawn(move || folder_key(&dir, KeySource::Arena { home }).unwrap())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
    }
}
