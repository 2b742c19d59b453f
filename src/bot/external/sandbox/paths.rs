//! A sandboxed bot runs in a private directory, not where the user typed its command: its
//! command line's relative paths are made absolute here (against `workdir`, else arena's
//! current directory), so commands keep meaning what they meant, and the files the command
//! names become the files the bot may read.
//!
//! Readable: the program (found through the bot's `PATH` if it has no `/`), every argument that
//! names an existing regular file (not a directory: `.` would open arena's whole directory, the
//! results with it), the `files` of its settings, `workdir`, and the folders of its `PATH` (a
//! version manager's `shims` folder brings its parent: pyenv's shims run pyenv from there).

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::super::options::DEFAULT_PATH;
use super::super::options::ExternalOptions;
use super::super::spawn_error::SpawnError;

/// A command line ready for the sandbox.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::bot::external) struct Resolved {
    /// The program and arguments, paths made absolute.
    pub(in crate::bot::external) command: Vec<String>,
    /// What the bot may read (files and folders).
    pub(in crate::bot::external) readable: Vec<PathBuf>,
    /// Of those, the bot's own (its program, the files its arguments name, `files`, `workdir`),
    /// without the folders of its `PATH`.
    pub(in crate::bot::external) own: Vec<PathBuf>,
}

impl Resolved {
    /// Of what the bot may read, the folders of its `PATH` (and a `shims` folder's parent).
    pub(in crate::bot::external) fn path_folders(&self) -> &[PathBuf] {
        &self.readable[..self.readable.len() - self.own.len()]
    }
}

/// Resolves `command` for a bot with `options`.
pub(super) fn resolve(
    command: &[String],
    options: &ExternalOptions,
) -> Result<Resolved, SpawnError> {
    let (program, args) = command.split_first().ok_or(SpawnError::EmptyCommand)?;
    let cwd = std::env::current_dir()
        .map_err(|e| SpawnError::Sandbox(format!("cannot read arena's current directory: {e}")))?;
    let base = match &options.workdir {
        Some(dir) => cwd.join(dir),
        None => cwd,
    };
    let path_var: OsString = options
        .env
        .get("PATH")
        .map(OsString::from)
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_else(|| DEFAULT_PATH.into());
    resolve_in(program, args, &base, &path_var, options)
}

fn resolve_in(
    program: &str,
    args: &[String],
    base: &Path,
    path_var: &std::ffi::OsStr,
    options: &ExternalOptions,
) -> Result<Resolved, SpawnError> {
    let path_dirs = path_folders(path_var);
    let mut readable = path_dirs.readable.to_vec();
    let from_path = readable.len();
    if options.workdir.is_some() {
        readable.push(base.to_path_buf());
    }
    let not_found = || SpawnError::Run {
        program: program.to_string(),
        workdir: options.workdir.clone(),
        source: std::io::Error::from_raw_os_error(libc::ENOENT),
    };
    let program_path = if program.contains('/') {
        let path = base.join(program);
        if !path.is_file() {
            return Err(not_found());
        }
        path
    } else {
        path_dirs
            .searched
            .iter()
            .map(|d| d.join(program))
            .find(|p| is_executable(p))
            .ok_or_else(not_found)?
    };
    readable.push(program_path.clone());
    let mut resolved = vec![program_path.display().to_string()];
    for arg in args {
        let path = base.join(arg);
        if !arg.is_empty() && !arg.starts_with('-') && path.is_file() {
            resolved.push(path.display().to_string());
            readable.push(path);
        } else {
            resolved.push(arg.clone());
        }
    }
    for file in &options.files {
        let path = base.join(file);
        if !path.exists() {
            return Err(SpawnError::Sandbox(format!(
                "`files` names `{}`, which does not exist",
                path.display()
            )));
        }
        readable.push(path);
    }
    let own = readable[from_path..].to_vec();
    Ok(Resolved { command: resolved, readable, own })
}

/// The folders of a `PATH` value: those searched for a program (absolute, existing, each once,
/// in order), and those the bot may read (the same, and a `shims` folder's parent).
struct PathFolders {
    searched: Vec<PathBuf>,
    readable: Vec<PathBuf>,
}

/// The folders of `path_var`, looked up once per arena process and `PATH` value (as the system
/// folders are opened once): every bot's start looked up each folder again, a dozen path walks
/// of arena's before each sandboxed bot for a folder list that does not change during a run. A
/// folder made after the first bot of that `PATH` is not searched.
fn path_folders(path_var: &std::ffi::OsStr) -> Arc<PathFolders> {
    static KNOWN: Mutex<Vec<(OsString, Arc<PathFolders>)>> = Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, folders)) = known.iter().find(|(value, _)| value == path_var) {
        return Arc::clone(folders);
    }
    let mut searched: Vec<PathBuf> = Vec::new();
    for dir in std::env::split_paths(path_var) {
        if dir.is_absolute() && !searched.contains(&dir) && dir.is_dir() {
            searched.push(dir);
        }
    }
    let mut readable = Vec::new();
    for dir in &searched {
        readable.push(dir.clone());
        if dir.file_name().is_some_and(|n| n == "shims") {
            readable.extend(dir.parent().map(Path::to_path_buf));
        }
    }
    let folders = Arc::new(PathFolders { searched, readable });
    // A few `PATH` values a run (arena's, and a bot's own `env`); a bound all the same.
    if known.len() < 64 {
        known.push((path_var.to_os_string(), Arc::clone(&folders)));
    }
    folders
}

/// Whether a user other than the owner and the group reaches `path` by the modes of its
/// folders and its own: every folder above it searchable by others, the file readable by them
/// (a folder readable and searchable). A root arena's bot runs as such a user.
pub(super) fn reachable_by_others(path: &Path) -> bool {
    let Ok(meta) = path.metadata() else { return true };
    let wanted = if meta.is_dir() { 0o005 } else { 0o004 };
    meta.permissions().mode() & wanted == wanted
        && path
            .ancestors()
            .skip(1)
            .all(|folder| folder.metadata().is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

fn is_executable(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_files_become_absolute_and_readable_but_not_directories_or_flags() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        std::fs::create_dir(base.join("bots")).unwrap();
        std::fs::write(base.join("bots/x.py"), "").unwrap();
        std::fs::write(base.join("-v"), "").unwrap();
        let bin = base.join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("py"), "").unwrap();
        std::fs::set_permissions(bin.join("py"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let args: Vec<String> = ["bots/x.py", "-v", "bots", ".", "7"].map(String::from).to_vec();
        let options = ExternalOptions::default();
        let r = resolve_in("py", &args, base, bin.as_os_str(), &options).unwrap();
        let x = base.join("bots/x.py").display().to_string();
        let py = bin.join("py");
        assert_eq!(
            r.command,
            [
                py.display().to_string(),
                x.clone(),
                "-v".into(),
                "bots".into(),
                ".".into(),
                "7".into()
            ]
        );
        assert_eq!(r.readable, [bin.clone(), py, base.join("bots/x.py")]);
    }

    #[test]
    fn a_program_that_is_nowhere_is_not_found_and_a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let options = ExternalOptions::default();
        let e = resolve_in("nope", &[], dir.path(), dir.path().as_os_str(), &options).unwrap_err();
        assert!(matches!(e, SpawnError::Run { .. }), "{e}");
        let e =
            resolve_in("./nope", &[], dir.path(), dir.path().as_os_str(), &options).unwrap_err();
        assert!(matches!(e, SpawnError::Run { .. }), "{e}");
        std::fs::write(dir.path().join("bot"), "").unwrap();
        let options =
            ExternalOptions { files: vec![PathBuf::from("weights.bin")], ..Default::default() };
        let e = resolve_in("./bot", &[], dir.path(), dir.path().as_os_str(), &options).unwrap_err();
        assert!(e.to_string().contains("weights.bin"), "{e}");
    }

    #[test]
    fn a_folder_named_twice_on_path_is_searched_and_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("py"), "").unwrap();
        std::fs::set_permissions(bin.join("py"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path_var = std::env::join_paths([&bin, &dir.path().join("gone"), &bin]).unwrap();
        let options = ExternalOptions::default();
        for _ in 0..2 {
            let r = resolve_in("py", &[], dir.path(), &path_var, &options).unwrap();
            assert_eq!(r.readable, [bin.clone(), bin.join("py")]);
            assert_eq!(r.path_folders(), std::slice::from_ref(&bin));
        }
    }

    #[test]
    fn a_shims_folder_on_path_brings_its_version_manager() {
        let dir = tempfile::tempdir().unwrap();
        let shims = dir.path().join("pyenv/shims");
        std::fs::create_dir_all(&shims).unwrap();
        std::fs::write(dir.path().join("bot"), "").unwrap();
        let options = ExternalOptions::default();
        let r = resolve_in("./bot", &[], dir.path(), shims.as_os_str(), &options).unwrap();
        assert!(r.readable.contains(&dir.path().join("pyenv")), "{:?}", r.readable);
    }
}
