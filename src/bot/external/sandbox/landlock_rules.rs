//! A bot's Landlock ruleset, built in the parent (the child only enforces it): read and execute
//! the system (programs, libraries, interpreters and their standard libraries, `/etc`), read
//! `/proc` and `/sys`, read and write a few harmless devices, read the bot's own files, and do
//! anything in its private directory; everything else of the filesystem is denied, and so are
//! signals and abstract unix sockets outside the bot's own domain, and, without `network`, TCP.
//!
//! The system folders are opened once per process (the descriptors are `O_PATH`, close-on-exec,
//! and closed in every bot's processes); a bot's ruleset only adds its own paths.
//!
//! A folder that lies, once its symbolic links are resolved, beneath a system folder whose rule
//! allows at least as much gets no rule of its own: `/bin` where it links to `/usr/bin`, and the
//! usual `PATH` folders (`/usr/local/bin`, `/usr/bin`, ...). A rule allows its access on
//! everything the kernel reaches through its folder, and the kernel checks an access by walking
//! from the file up to the root of the bot's view (a recursive bind of arena's, so the same
//! folders above the same folders), so every walk through such a folder passes through the
//! system folder above it, whose rule already allows the access. Fewer rules are fewer system
//! calls at each bot's start (each rule also costs the `landlock` crate an `fstat`).
//!
//! A root arena's bot runs as a user of its own, which the modes keep from `/etc`'s secrets;
//! one that keeps `CAP_DAC_READ_SEARCH` (to reach its own files through folders only root may
//! search) reads past the modes, so it gets `/etc` entry by entry, the secrets left out
//! (Landlock cannot subtract a file from a folder it allows). Those entries are opened once per
//! process too.
//!
//! In its own view (a mount namespace) a bot's `/proc` is a new mount, which the rule on the
//! machine's `/proc` does not reach (Landlock does not look at the mount points that a mount
//! covers): the bot adds a rule for its `/proc` itself, before it enforces the ruleset.

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetError, Scope, make_bitflags,
};

/// The newest ABI whose rights arena asks for; older kernels get what they support.
const ABI: landlock::ABI = landlock::ABI::V6;

/// Folders every bot may read and execute from, when they exist.
const SYSTEM_DIRS: &[&str] =
    &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store"];

/// Folders every bot may read (not execute from).
const INFO_DIRS: &[&str] = &["/proc", "/sys"];

/// Devices every bot may read and write.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// What a bot that reads past the modes must not read in `/etc`: password hashes, sudo rules,
/// host keys, private keys.
const ROOT_SECRETS: &[&str] = &[
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "sudoers",
    "sudoers.d",
    "ssh",
    "security",
    "ssl/private",
    "pki",
    "machine-id",
];

fn read_dir() -> BitFlags<AccessFs> {
    make_bitflags!(AccessFs::{ReadFile | ReadDir | Execute})
}

fn read_file() -> BitFlags<AccessFs> {
    make_bitflags!(AccessFs::{ReadFile | Execute})
}

fn device() -> BitFlags<AccessFs> {
    make_bitflags!(AccessFs::{ReadFile | WriteFile | Truncate | IoctlDev})
}

/// The system paths of every ruleset, opened once: `/etc` whole, and as root its entries but
/// the secrets.
pub(super) struct SystemPaths {
    rules: Vec<(PathFd, BitFlags<AccessFs>)>,
    /// The folders of `rules` with their access, by their paths with symbolic links resolved:
    /// what they cover.
    covering: Vec<(PathBuf, BitFlags<AccessFs>)>,
    etc: Option<PathFd>,
    etc_without_secrets: Vec<(PathFd, BitFlags<AccessFs>)>,
    /// The folders of bots' `PATH`s, each opened the first time a bot's rules name it (`None`:
    /// it needs no rule, as it could not be opened or a system folder's rule covers it), so that
    /// a bot's start opens only its own files.
    path_folders: Mutex<Vec<(PathBuf, Option<Rule>)>>,
}

impl SystemPaths {
    /// Opens what exists of the system paths (as root, `/etc`'s entries but the secrets too).
    pub(super) fn open(root: bool) -> SystemPaths {
        let mut rules = Vec::new();
        let mut covering: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
        let mut add = |path: &Path, access: BitFlags<AccessFs>| {
            let canonical = std::fs::canonicalize(path).ok();
            if canonical.as_deref().is_some_and(|at| covered(&covering, at, access)) {
                return;
            }
            if let Ok(fd) = PathFd::new(path) {
                let is_dir = path.is_dir();
                let access = if is_dir { access } else { access & AccessFs::from_file(ABI) };
                if let Some(at) = canonical.filter(|_| is_dir) {
                    covering.push((at, access));
                }
                rules.push((fd, access));
            }
        };
        for dir in SYSTEM_DIRS {
            add(Path::new(dir), read_dir());
        }
        for dir in INFO_DIRS {
            add(Path::new(dir), make_bitflags!(AccessFs::{ReadFile | ReadDir}));
        }
        for dev in DEVICES {
            add(Path::new(dev), device());
        }
        let etc_without_secrets = if root {
            let entries = etc_without_secrets(Path::new("/etc"));
            let access = |path: &Path| {
                if path.is_dir() { read_dir() } else { read_dir() & AccessFs::from_file(ABI) }
            };
            entries.iter().filter_map(|p| Some((PathFd::new(p).ok()?, access(p)))).collect()
        } else {
            Vec::new()
        };
        SystemPaths {
            rules,
            covering,
            etc: PathFd::new("/etc").ok(),
            etc_without_secrets,
            path_folders: Mutex::new(Vec::new()),
        }
    }
}

/// Whether a rule of `covering` (folders by their resolved paths) allows at least `access` on
/// everything beneath `canonical` (a resolved path).
fn covered(
    covering: &[(PathBuf, BitFlags<AccessFs>)],
    canonical: &Path,
    access: BitFlags<AccessFs>,
) -> bool {
    covering
        .iter()
        .any(|(folder, allowed)| canonical.starts_with(folder) && allowed.contains(access))
}

/// The entries of `etc`, with those named in [`ROOT_SECRETS`] left out (and, for a secret
/// below an entry, that entry opened entry by entry in turn).
fn etc_without_secrets(etc: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut names: Vec<String> =
            entries.flatten().filter_map(|e| e.file_name().into_string().ok()).collect();
        names.sort();
        for name in names {
            let relative = format!("{prefix}{name}");
            if ROOT_SECRETS.contains(&relative.as_str()) {
                continue;
            }
            let has_secret_below =
                ROOT_SECRETS.iter().any(|s| s.starts_with(&format!("{relative}/")));
            if has_secret_below {
                walk(&dir.join(&name), &format!("{relative}/"), out);
            } else {
                out.push(dir.join(&name));
            }
        }
    }
    let mut out = Vec::new();
    walk(etc, "", &mut out);
    out
}

/// The ruleset of one bot, as a descriptor for the child to enforce (`None`: the kernel has no
/// Landlock). `path_folders` are the folders of its `PATH` (read and execute), `own` its own
/// files and folders (the same); `private` its private directory (`None`: a tmpfs the bot adds itself, with
/// [`private_access`]); `read_search`: the bot reads past the modes, so it gets `/etc` without
/// its secrets.
pub(super) fn ruleset(
    path_folders: &[PathBuf],
    own: &[PathBuf],
    private: Option<&Path>,
    network: bool,
    read_search: bool,
    system: &SystemPaths,
) -> std::io::Result<Option<OwnedFd>> {
    let private = private.map(PathFd::new).transpose().map_err(std::io::Error::other)?;
    build(path_folders, own, private, network, read_search, system).map_err(std::io::Error::other)
}

/// The access a bot's private directory gets when the bot adds its rule itself (a tmpfs in its
/// view): all the ruleset handles on a kernel of Landlock ABI `kernel_abi` (a rule may not
/// allow what the ruleset does not handle).
pub(super) fn private_access(kernel_abi: i32) -> u64 {
    (AccessFs::from_all(ABI) & AccessFs::from_all(landlock::ABI::from(kernel_abi))).bits()
}

/// The access a bot's `/proc` gets (added by the bot in its own view).
pub(super) fn proc_access() -> u64 {
    make_bitflags!(AccessFs::{ReadFile | ReadDir}).bits()
}

fn build(
    path_folders: &[PathBuf],
    own: &[PathBuf],
    private: Option<PathFd>,
    network: bool,
    read_search: bool,
    system: &SystemPaths,
) -> Result<Option<OwnedFd>, RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ABI))?
        .scope(Scope::from_all(ABI))?;
    if !network {
        // No rule allows a port: no TCP bind or connect at all.
        ruleset = ruleset.handle_access(AccessNet::from_all(ABI))?;
    }
    let mut created = ruleset.create()?;
    for (fd, access) in &system.rules {
        created = created.add_rule(PathBeneath::new(fd.as_fd(), *access))?;
    }
    if read_search {
        for (fd, access) in &system.etc_without_secrets {
            created = created.add_rule(PathBeneath::new(fd.as_fd(), *access))?;
        }
    } else if let Some(etc) = &system.etc {
        created = created.add_rule(PathBeneath::new(etc.as_fd(), read_dir()))?;
    }
    {
        let mut opened = system.path_folders.lock().unwrap_or_else(PoisonError::into_inner);
        for path in path_folders {
            let at = match opened.iter().position(|(known, _)| known == path) {
                Some(at) => at,
                None => {
                    let canonical = std::fs::canonicalize(path).ok();
                    let rule =
                        if canonical.is_some_and(|at| covered(&system.covering, &at, read_dir())) {
                            None
                        } else {
                            open_readable(path)
                        };
                    opened.push((path.clone(), rule));
                    opened.len() - 1
                }
            };
            if let Some((fd, access)) = &opened[at].1 {
                created = created.add_rule(PathBeneath::new(fd.as_fd(), *access))?;
            }
        }
    }
    for path in own {
        if let Some((fd, access)) = open_readable(path) {
            created = created.add_rule(PathBeneath::new(fd, access))?;
        }
    }
    if let Some(private) = private {
        created = created.add_rule(PathBeneath::new(private, AccessFs::from_all(ABI)))?;
    }
    Ok(created.into())
}

/// A path opened for a rule, and the access the rule allows beneath it.
type Rule = (PathFd, BitFlags<AccessFs>);

/// `path` opened for a rule that lets a bot read and execute it (`None`: it cannot be opened).
fn open_readable(path: &Path) -> Option<Rule> {
    let fd = PathFd::new(path).ok()?;
    // What was opened, not the path looked up again: it may have changed in between.
    let is_dir = nix::sys::stat::fstat(fd.as_fd())
        .is_ok_and(|stat| stat.st_mode & libc::S_IFMT == libc::S_IFDIR);
    Some((fd, if is_dir { read_dir() } else { read_file() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_beneath_a_system_folder_gets_no_rule_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let at = |p: &str| dir.path().join(p);
        std::fs::create_dir_all(at("system/bin")).unwrap();
        std::fs::create_dir_all(at("own/bin")).unwrap();
        std::os::unix::fs::symlink(at("system/bin"), at("linked")).unwrap();
        let system_folder = std::fs::canonicalize(at("system")).unwrap();
        let system = SystemPaths {
            rules: vec![(PathFd::new(&system_folder).unwrap(), read_dir())],
            covering: vec![(system_folder, read_dir())],
            etc: None,
            etc_without_secrets: Vec::new(),
            path_folders: Mutex::new(Vec::new()),
        };
        let folders = [at("system/bin"), at("linked"), at("system"), at("own/bin")];
        ruleset(&folders, &[], None, true, false, &system).unwrap();
        let opened = system.path_folders.lock().unwrap();
        let with_rule: Vec<bool> = folders
            .iter()
            .map(|f| opened.iter().find(|(p, _)| p == f).expect("looked up").1.is_some())
            .collect();
        // Beneath the system folder (through a link too), or the folder itself: no rule; a
        // folder elsewhere: its own.
        assert_eq!(with_rule, [false, false, false, true]);
        // Only a rule that allows as much covers: `/proc`'s (no execution) covers no program.
        let proc = vec![(PathBuf::from("/proc"), make_bitflags!(AccessFs::{ReadFile | ReadDir}))];
        assert!(!covered(&proc, Path::new("/proc/self"), read_dir()));
        assert!(covered(&proc, Path::new("/proc/self"), AccessFs::ReadFile.into()));
    }

    #[test]
    fn the_system_rules_cover_no_folder_twice() {
        // On a machine whose `/bin` links to `/usr/bin`, it would be covered by `/usr`.
        let system = SystemPaths::open(false);
        for (i, (folder, access)) in system.covering.iter().enumerate() {
            let others: Vec<_> = system
                .covering
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, c)| c.clone())
                .collect();
            assert!(!covered(&others, folder, *access), "{folder:?} is covered by {others:?}");
        }
    }

    #[test]
    fn root_sees_etc_without_its_secrets() {
        let etc = tempfile::tempdir().unwrap();
        for dir in ["ssl/certs", "ssl/private", "ssh", "python3"] {
            std::fs::create_dir_all(etc.path().join(dir)).unwrap();
        }
        for file in ["passwd", "shadow", "hosts"] {
            std::fs::write(etc.path().join(file), "").unwrap();
        }
        let names: Vec<String> = etc_without_secrets(etc.path())
            .iter()
            .map(|p| p.strip_prefix(etc.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["hosts", "passwd", "python3", "ssl/certs"]);
    }
}
