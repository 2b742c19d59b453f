//! Sandboxed bots' private directories, made and removed off the path of a bot's start and end:
//! a background thread keeps a few fresh directories ready (making one costs a `mkdir` in the
//! temporary folder, slow on a busy ext4) and removes those of bots that are gone, whatever
//! they left (folders of mode 000 included). A directory goes to one bot only, never to a
//! second one: what a bot left in it (files, modes, times, attributes) would reach the next.
//! These are the bots' of a machine that refuses them a tmpfs in their own mount namespace
//! (and `cg:` compiles' workspaces, made elsewhere): elsewhere a bot gets such a tmpfs, which
//! nothing here makes or removes.
//!
//! Nothing stays behind when arena ends: at `exit` (a normal end, or after Ctrl-C and the like,
//! which end with `std::process::exit`) a handler removes what is ready or waiting for removal;
//! after a `kill -9` the next arena's sweep removes what an arena that no longer runs left.

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

/// How many fresh directories wait for the next bots: a match's two, and two more.
const READY: usize = 4;

/// Where directories wait.
#[derive(Default)]
struct State {
    /// Fresh directories, each with the temporary folder it was made in.
    ready: Vec<(PathBuf, PathBuf)>,
    /// Directories of bots that are gone.
    doomed: Vec<PathBuf>,
    /// The thread is making or removing one now.
    busy: bool,
    /// arena is ending: the thread does nothing more.
    closed: bool,
}

struct Keeper {
    /// The arena process it serves (a forked copy that calls `exit` must not remove its
    /// directories).
    pid: u32,
    state: Mutex<State>,
    /// Wakes the thread (work to do) and `close` (the thread's work is done).
    changed: Condvar,
}

fn keeper() -> Option<&'static Keeper> {
    static KEEPER: OnceLock<Option<&'static Keeper>> = OnceLock::new();
    *KEEPER.get_or_init(|| {
        let keeper: &'static Keeper = Box::leak(Box::new(Keeper {
            pid: std::process::id(),
            state: Mutex::default(),
            changed: Condvar::new(),
        }));
        // Without the handler the thread could leave directories behind: none then.
        if !register_exit_handler() {
            return None;
        }
        let started =
            std::thread::Builder::new().name("arena-bot-dirs".into()).spawn(move || work(keeper));
        started.is_ok().then_some(keeper)
    })
}

impl Keeper {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What every arena's private directories are named after: `arena-bot-<pid>-...`.
const PREFIX: &str = "arena-bot-";

/// The prefix of this arena's private directories: `arena-bot-<pid>-`.
fn prefix() -> String {
    format!("{PREFIX}{}-", std::process::id())
}

/// A bot's fresh private directory, removed (in the background) when dropped.
pub(super) struct Fresh(PathBuf);

impl std::ops::Deref for Fresh {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut self.0));
    }
}

/// A fresh private directory in the temporary folder (arena's, which only its owner may write
/// in), never given before.
pub(super) fn take() -> std::io::Result<Fresh> {
    take_path().map(Fresh)
}

fn take_path() -> std::io::Result<PathBuf> {
    let temp = std::env::temp_dir();
    if let Some(keeper) = keeper() {
        let mut state = keeper.lock();
        if !state.closed {
            // Made for another temporary folder: removed, not used.
            let (fit, other): (Vec<_>, Vec<_>) =
                std::mem::take(&mut state.ready).into_iter().partition(|(_, t)| *t == temp);
            state.doomed.extend(other.into_iter().map(|(dir, _)| dir));
            state.ready = fit;
            let dir = state.ready.pop().map(|(dir, _)| dir);
            // Make the next, or remove the unfit.
            keeper.changed.notify_all();
            if let Some(dir) = dir {
                return Ok(dir);
            }
        }
    }
    make(&temp)
}

/// Removes a bot's private directory (in the background, else at once); call once its
/// processes are gone.
fn give_back(dir: PathBuf) {
    if let Some(keeper) = keeper() {
        let mut state = keeper.lock();
        if !state.closed {
            state.doomed.push(dir);
            keeper.changed.notify_all();
            return;
        }
    }
    remove(&dir);
}

fn make(temp: &Path) -> std::io::Result<PathBuf> {
    Ok(tempfile::Builder::new().prefix(&prefix()).tempdir_in(temp)?.keep())
}

fn remove(dir: &Path) {
    if let Err(e) = remove_tree(dir) {
        tracing::warn!("cannot remove a bot's private directory {}: {e}", dir.display());
    }
}

/// The thread: removes what is doomed, then makes what is missing, until arena ends.
fn work(keeper: &'static Keeper) {
    let mut state = keeper.lock();
    loop {
        if state.closed {
            return;
        }
        if let Some(dir) = state.doomed.pop() {
            state.busy = true;
            drop(state);
            remove(&dir);
            state = keeper.lock();
        } else if state.ready.len() < READY {
            state.busy = true;
            drop(state);
            let temp = std::env::temp_dir();
            let made = make(&temp);
            state = keeper.lock();
            match made {
                // Closed meanwhile: `close` no longer sees it.
                Ok(dir) if state.closed => remove(&dir),
                Ok(dir) => state.ready.push((dir, temp)),
                Err(e) => {
                    // The spawn will make its own, and say why it cannot.
                    tracing::debug!("cannot make a private directory ahead: {e}");
                    state.busy = false;
                    keeper.changed.notify_all();
                    state = keeper.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
                    continue;
                }
            }
        } else {
            state.busy = false;
            keeper.changed.notify_all();
            state = keeper.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        state.busy = false;
        keeper.changed.notify_all();
    }
}

/// Stops the thread and removes, here and now, every directory ready or waiting for removal;
/// later ones are made and removed at once.
pub(super) fn close() {
    let Some(keeper) = keeper() else { return };
    if keeper.pid != std::process::id() {
        return;
    }
    let mut state = keeper.lock();
    state.closed = true;
    keeper.changed.notify_all();
    while state.busy {
        state = keeper.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
    let ready = std::mem::take(&mut state.ready);
    let doomed = std::mem::take(&mut state.doomed);
    drop(state);
    for dir in ready.into_iter().map(|(dir, _)| dir).chain(doomed) {
        remove(&dir);
    }
}

#[allow(unsafe_code)]
fn register_exit_handler() -> bool {
    extern "C" fn at_exit() {
        // A panic must not cross into C.
        let _ = std::panic::catch_unwind(close);
    }
    // SAFETY: registers a function of no arguments that only locks and removes files.
    unsafe { libc::atexit(at_exit) == 0 }
}

/// Removes the private directories that arenas which no longer run left in the temporary
/// folder (a `kill -9` gives an arena no time to remove them; its bots died with it).
#[cfg(target_os = "linux")]
pub(super) fn sweep() {
    sweep_in(&std::env::temp_dir());
}

#[cfg(target_os = "linux")]
fn sweep_in(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        if super::arena_gone(pid) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            // Folders of mode 000 a bot made included.
            let _ = remove_tree(&entry.path());
        }
    }
}

/// Removes a folder and everything in it, first making every folder in it open to its owner
/// (arena, or root): a bot may leave folders of mode 000.
fn remove_tree(path: &Path) -> std::io::Result<()> {
    if std::fs::remove_dir_all(path).is_ok() || !path.exists() {
        return Ok(());
    }
    open_folders(path);
    std::fs::remove_dir_all(path)
}

/// Gives every folder under `path` (itself included) mode 0700, without following links.
fn open_folders(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    if !meta.is_dir() {
        return;
    }
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700));
    for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
        open_folders(&entry.path());
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_directory_goes_to_one_bot_and_is_removed_with_what_it_left() {
        let taken: Vec<Fresh> = (0..2 * READY + 1).map(|_| take().expect("a directory")).collect();
        let dirs: Vec<PathBuf> = taken.iter().map(|d| d.to_path_buf()).collect();
        let distinct: std::collections::BTreeSet<&PathBuf> = dirs.iter().collect();
        assert_eq!(distinct.len(), dirs.len(), "each directory once: {dirs:?}");
        for dir in &dirs {
            assert!(dir.is_dir(), "{}", dir.display());
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.starts_with(&prefix()), "{name}");
            let mode = std::fs::metadata(dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o022, 0, "only its owner writes in it: {mode:o}");
            assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0, "fresh: {}", dir.display());
            // A bot's mess: a folder of mode 000 with a file in it.
            let locked = dir.join("locked");
            std::fs::create_dir(&locked).unwrap();
            std::fs::write(locked.join("secret"), "x").unwrap();
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        }
        drop(taken);
        // The removals are the thread's; they end within a while.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while dirs.iter().any(|d| d.exists()) {
            assert!(std::time::Instant::now() < until, "never removed: {dirs:?}");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_sweep_removes_only_what_arenas_that_no_longer_run_left() {
        let temp = tempfile::tempdir().unwrap();
        let mut gone = std::process::Command::new("true").spawn().expect("true starts");
        let gone_pid = gone.id();
        gone.wait().expect("reaped");
        let dead = temp.path().join(format!("{PREFIX}{gone_pid}-abc"));
        let locked = dead.join("locked");
        std::fs::create_dir_all(&locked).unwrap();
        std::fs::write(locked.join("secret"), "x").unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        let alive = temp.path().join(format!("{}abc", prefix()));
        let other = temp.path().join(format!("{PREFIX}not-a-pid"));
        let unrelated = temp.path().join("someone-else");
        for dir in [&alive, &other, &unrelated] {
            std::fs::create_dir(dir).unwrap();
        }
        sweep_in(temp.path());
        assert!(!dead.exists(), "a dead arena's directory, mode-000 folder and all, is removed");
        for dir in [&alive, &other, &unrelated] {
            assert!(dir.exists(), "{} is kept", dir.display());
        }
    }
}
