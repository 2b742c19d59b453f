//! The code that runs in a sandboxed bot's processes before its program starts. It runs in a
//! process that shares the spawner's memory (`super::spawner`, as root), or after `fork` in a
//! copy of the spawner or, where there is none, of a multi-threaded arena, so it only makes
//! system calls on what the parent prepared: no allocation, no lock, no Rust I/O, no variable
//! written (the memory may be the spawner's and every other bot's relay's).
//!
//! With namespaces, a bot is three processes:
//!
//! - the **relay** (arena's child, started by the spawner for arena or forked by arena itself;
//!   leader of the bot's process group, outside the bot's namespaces): joins its slot's network
//!   namespace (and, unprivileged, first the slot's user namespace, `super::slots`), creates the
//!   bot's own PID and mount namespaces (and its IPC namespace, unless its spawner's is shared:
//!   `super::spawner`), starts the init, waits until the bot's program has started, then only
//!   waits:
//!   for the bot's exit status, which it then ends with (so arena sees the bot's exit as
//!   before), or for end of file on the *lifeline*, which means arena died, or for the bot's
//!   OOM event, and then kills the init;
//! - the **init** (PID 1 of the bot's PID namespace): starts the bot, reaps every orphan of the
//!   namespace, passes `SIGTERM` on to all of it, stops and continues it between its turns when
//!   arena writes on the control pipe (the kernel signals it, `O_ASYNC`), reports the bot's exit
//!   status to the relay and exits. When it exits, however it exits, the kernel kills everything
//!   left in the namespace, `setsid` and double forks included. It dies with the relay
//!   (`PR_SET_PDEATHSIG`);
//! - the **bot** (PID 2): joins its cgroups (the relay and the init stay out of them:
//!   [`Plan::join_cgroups`] says why), confines itself (resource limits, its own uid when arena
//!   is root, no new privileges, no capabilities, Landlock, seccomp) and `exec`s the program.
//!
//! With a mount namespace the relay also makes the bot's view of the filesystem before it starts
//! the init ([`View`]): everything read-only, its private directory bound read-write at `/tmp`,
//! the cgroup hierarchies hidden; the init mounts a `/proc` of the bot's own PID namespace.
//!
//! The init and the bot are started with `clone(CLONE_VM)` on stacks of their own, sharing the
//! relay's memory (the bot with `CLONE_VFORK`, until its `exec`): copying a copy of arena's
//! address space twice more would cost more than the rest of the sandbox together. They only
//! read what the relay holds, and the relay only waits meanwhile. (The relay of a root arena
//! shares the spawner's memory the same way, from the start.) `errno` is one variable for all
//! the processes that share a memory: an error number read here may, rarely, be another's, so
//! nothing here but an error message depends on it (the relay handles no signal, so its reads
//! are never interrupted; the init's loop asks whether the bot exists instead).
//!
//! The spawn returns as soon as the relay has started the init (the relay then closes the
//! standard library's error pipe): the bot sets itself up while arena goes on, starting the other
//! bots of the match. A failure before that is the spawn's error. A failure after it (a
//! confinement refused, an `exec` that fails) reaches the relay as an error number on the
//! *ready* pipe; the relay passes it on through the *startup* pipe, which arena reads when the
//! bot is gone before answering, and exits.
//!
//! Without namespaces only the bot's confinement runs, in the one process arena spawns, and the
//! standard library runs the program.

#![allow(unsafe_code)]

use std::ffi::{CString, c_char, c_void};
use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;

use super::super::options::Rlimits;

/// The stack of the init and of the bot until its `exec`: they only make system calls.
const STACK_SIZE: usize = 256 * 1024;

/// One mapping for the stacks of a bot's init and bot (and of its relay, where the relay shares
/// the spawner's memory), each above a guard page (a stack that overflowed would fault rather
/// than write over the next).
pub(super) struct Stacks(*mut u8);

impl Stacks {
    /// The bot's stack, until its `exec`.
    pub(super) const BOT: usize = 0;
    /// The init's.
    pub(super) const INIT: usize = 1;
    /// The relay's, where the spawner starts it sharing its memory (unused by a forked relay).
    pub(super) const RELAY: usize = 2;
    const COUNT: usize = 3;
    const GUARD: usize = 4096;

    /// Maps them (only system calls: a forked relay maps its own).
    pub(super) fn new() -> io::Result<Stacks> {
        let each = Self::GUARD + STACK_SIZE;
        // SAFETY: a fresh anonymous mapping, and its own pages made inaccessible.
        unsafe {
            let stacks = libc::mmap(
                std::ptr::null_mut(),
                Self::COUNT * each,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if stacks == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            for k in 0..Self::COUNT {
                let guard = stacks.cast::<u8>().add(k * each).cast();
                if libc::mprotect(guard, Self::GUARD, libc::PROT_NONE) == -1 {
                    let error = io::Error::last_os_error();
                    libc::munmap(stacks, Self::COUNT * each);
                    return Err(error);
                }
            }
            Ok(Stacks(stacks.cast()))
        }
    }

    /// The top of stack `k` (stacks grow down).
    pub(super) fn top(&self, k: usize) -> usize {
        self.0 as usize + (k + 1) * (Self::GUARD + STACK_SIZE)
    }
}

/// What a bot's processes do between `fork` and `exec`, prepared by the parent.
#[derive(Clone, Debug)]
pub(in crate::bot::external) struct Plan {
    /// `None`: no namespaces, no relay and init.
    pub(in crate::bot::external) namespaces: Option<Namespaces>,
    /// The read end of arena's lifeline pipe.
    pub(in crate::bot::external) lifeline: RawFd,
    /// The write end of the bot's startup pipe.
    pub(in crate::bot::external) startup: RawFd,
    /// `tasks` of the bot's cgroups, open for writing (`super::cgroup` says why not
    /// `cgroup.procs`).
    pub(in crate::bot::external) cgroup_tasks: Vec<RawFd>,
    /// The Landlock ruleset to enforce.
    pub(in crate::bot::external) ruleset: Option<RawFd>,
    /// An eventfd the kernel signals when the bot's `memory` cgroup runs out: the relay then
    /// ends the whole bot at once (the OOM killer alone would kill one of its processes and
    /// leave the others waiting for it).
    pub(in crate::bot::external) oom_event: Option<RawFd>,
    /// The read end of the bot's control pipe, on which arena asks the init to stop
    /// ([`PAUSE`]) or continue ([`RESUME`]) the bot's processes.
    pub(in crate::bot::external) control: Option<RawFd>,
    /// The write end of the pipe on which the init acknowledges each stop ([`PAUSE`]) or
    /// continue ([`RESUME`]), once it has signalled every process (arena waits for a stop's: a
    /// stop done late is CPU stolen).
    pub(in crate::bot::external) pause_ack: Option<RawFd>,
    /// A unix socket on which the relay sends arena a descriptor of the bot's private tmpfs
    /// once it is mounted, when nothing charges its pages to the bot (no `memory` cgroup):
    /// arena then counts what the bot holds there in its memory ([`report_tmpfs`]).
    pub(in crate::bot::external) tmpfs_report: Option<RawFd>,
    /// The access the bot's own `/proc` gets in its ruleset (in its view).
    pub(in crate::bot::external) proc_access: u64,
    /// The seccomp program to install (none: none here, or the spawner's is inherited).
    pub(in crate::bot::external) seccomp: Option<&'static seccompiler::BpfProgram>,
    /// The filter a bot in a network namespace adds (`super::seccomp::no_network_program`).
    pub(in crate::bot::external) no_network: Option<&'static seccompiler::BpfProgram>,
    /// `RLIMIT_NPROC` for the bot (in its own user namespace only).
    pub(in crate::bot::external) max_processes: Option<u64>,
    /// Empty the bot's capability sets and bounding set.
    pub(in crate::bot::external) drop_capabilities: bool,
    /// arena runs as root: a failure to drop capabilities is fatal.
    pub(in crate::bot::external) root: bool,
    /// The program, its arguments and its environment, for the bot's own `exec`.
    pub(in crate::bot::external) image: Option<Arc<Image>>,
    /// The bot's view of the filesystem, made in its mount namespace.
    pub(in crate::bot::external) view: Option<View>,
    /// The user the bot runs as (a root arena's bots).
    pub(in crate::bot::external) user: Option<BotUser>,
    /// Set by the spawner for a relay that shares its memory (`None`: the relay has its own).
    pub(in crate::bot::external) shared: Option<Shared>,
    /// Set by a spawner whose bounding set holds at most [`SPAWNER_BOUNDING_SET`] (every
    /// process it starts inherits it): the bot drops what is left of that without reading the
    /// rest of the set, one capability at a time.
    pub(in crate::bot::external) bounding_set_emptied: bool,
    /// Set by a spawner, whose signals are all at their default action and none blocked (every
    /// process it starts inherits them): the relay need not set them so again.
    pub(in crate::bot::external) signals_default: bool,
}

/// What the spawner gives a relay that shares its memory (`clone(CLONE_VM)`: no copy of the
/// spawner's page tables, no copy of a page written, nothing to unmap at its end): the stacks of
/// its init and its bot, and `gone`, the write end of a pipe that the relay and the init hold
/// until they exit and the bot until its `exec`. The spawner keeps the stacks and the plan until
/// that pipe reads end of file.
#[derive(Clone, Copy, Debug)]
pub(in crate::bot::external) struct Shared {
    pub(in crate::bot::external) init_stack: usize,
    pub(in crate::bot::external) bot_stack: usize,
    pub(in crate::bot::external) gone: RawFd,
}

/// `RLIMIT_SIGPENDING` of a sandboxed bot: the signals queued to its processes at once, which the
/// kernel also counts for arena's user, under arena's own limit, across all of arena's bots.
const BOT_QUEUED_SIGNALS: libc::rlim_t = 16;

/// An unprivileged user of a root arena's bot: a uid and gid of its own (no supplementary
/// groups), and, when its uid cannot reach its own files through the folders' modes,
/// `CAP_DAC_READ_SEARCH` (reading without the modes' consent: Landlock still decides what).
#[derive(Clone, Copy, Debug)]
pub(in crate::bot::external) struct BotUser {
    pub(in crate::bot::external) uid: libc::uid_t,
    pub(in crate::bot::external) gid: libc::gid_t,
    pub(in crate::bot::external) read_search: bool,
}

/// A bot's view of the filesystem, made by the relay in the bot's mount namespace: every mount
/// read-only (no write, mode, owner, time or extended attribute of a file outside its private
/// directory, and no access time another bot could read), its private directory bound
/// read-write at `at` (`/tmp` for a bot; its own path for a job's workspace), `/sys/fs/cgroup`
/// under an empty read-only tmpfs (no other bot's counters), its working directory `cwd`. The
/// init then mounts a `/proc` of the bot's PID namespace over the machine's.
///
/// What of the machine's `/tmp` the bot may read (its own files in a test's temporary folder)
/// stays where it is: each such path is first bound onto a mount point at the same place in the
/// private directory (`keep`: the path, the mount point), which then goes to `/tmp` with them.
///
/// What is the same for every bot (every mount private, read-only and `nosuid`, the cgroups
/// hidden) the spawner makes once, as root, in a mount namespace of its own, the *template*
/// ([`View::make_template`]): a bot's namespace is then a copy of it (`from_template`), to
/// which its relay adds only its private directory; the template itself is no bot's.
///
/// A bot's private directory is no folder on disk but a tmpfs of its own ([`Tmpfs`]) that the
/// relay mounts at `at` (where the machine allows it; not a job's workspace): `private` is then
/// unused, `keep` binds paths relative to the machine's `/tmp` onto mount points in the tmpfs.
#[derive(Clone, Debug)]
pub(in crate::bot::external) struct View {
    pub(in crate::bot::external) private: CString,
    pub(in crate::bot::external) at: CString,
    pub(in crate::bot::external) cwd: CString,
    pub(in crate::bot::external) hide_cgroups: bool,
    pub(in crate::bot::external) keep: Vec<(CString, CString)>,
    /// The private directory is a tmpfs mounted by the relay (`None`: `private`, bound).
    pub(in crate::bot::external) tmpfs: Option<Tmpfs>,
    /// The relay's mount namespace is a copy of the spawner's template (set by the spawner).
    pub(in crate::bot::external) from_template: bool,
}

/// A bot's private tmpfs: mounted `nosuid,nodev` by its relay in the bot's own mount namespace
/// (no other namespace sees it), its pages charged to the bot's `memory` cgroup (the writer's)
/// as root, else counted by arena through a descriptor the relay sends it (`Plan::tmpfs_report`),
/// gone with the namespace when the bot's last process is and arena has closed that descriptor
/// (nothing for arena to remove).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::bot::external) struct Tmpfs {
    /// The mount's options: its size, and its root's mode and owner (the bot's user).
    pub(in crate::bot::external) options: CString,
    /// What the bot's Landlock ruleset allows beneath it (the parent cannot name it: the bot
    /// adds the rule in its view, as for its `/proc`).
    pub(in crate::bot::external) access: u64,
    /// The mount points of `keep` to make in it, folders that hold them first: the path, and
    /// whether it is a folder (else an empty file).
    pub(in crate::bot::external) make: Vec<(CString, bool)>,
}

/// Whether there is a `/sys/fs/cgroup` for a view to hide, looked up once per process (arena
/// asks for every bot). (Here, not in `support`: the spawner asks it, and a slot holds a
/// spawner.)
pub(super) fn hides_cgroups() -> bool {
    static HIDES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HIDES.get_or_init(|| std::path::Path::new("/sys/fs/cgroup").is_dir())
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const AT_RECURSIVE: libc::c_uint = 0x8000;

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

impl View {
    /// Makes the view in the calling process's (new, unshared) mount namespace.
    ///
    /// From the template, only the private directory (with what it keeps of `/tmp`) is bound:
    /// a bind inherits the read-only and `nosuid` flags of the template's mount it comes from,
    /// and the private directory's own mount is then made writable, as without it.
    ///
    /// # Safety
    ///
    /// In a forked child that has its own mount namespace.
    pub(super) unsafe fn make(&self) -> io::Result<()> {
        let null = std::ptr::null::<c_char>();
        // SAFETY: mount system calls on NUL-terminated paths; they change this namespace only.
        unsafe {
            if !self.from_template {
                make_private()?;
            }
            let bind = libc::MS_BIND | libc::MS_REC;
            if let Some(tmpfs) = &self.tmpfs {
                // `keep`'s entries are named relative to the machine's `/tmp`, this process's
                // working directory, which the tmpfs then covers (but not for it).
                check(libc::chdir(self.at.as_ptr()))?;
                let flags = libc::MS_NOSUID | libc::MS_NODEV;
                let options = tmpfs.options.as_ptr().cast();
                check(libc::mount(
                    c"arena-bot".as_ptr(),
                    self.at.as_ptr(),
                    c"tmpfs".as_ptr(),
                    flags,
                    options,
                ))?;
                for (path, folder) in &tmpfs.make {
                    if *folder {
                        check(libc::mkdir(path.as_ptr(), 0o755))?;
                    } else {
                        let created =
                            libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC;
                        let fd = libc::open(path.as_ptr(), created, 0o644);
                        check(fd)?;
                        libc::close(fd);
                    }
                }
            }
            for (entry, mount_point) in &self.keep {
                check(libc::mount(entry.as_ptr(), mount_point.as_ptr(), null, bind, null.cast()))?;
            }
            if self.tmpfs.is_none() {
                let (private, at) = (self.private.as_ptr(), self.at.as_ptr());
                check(libc::mount(private, at, null, bind, null.cast()))?;
            }
            if !self.from_template {
                seal(self.hide_cgroups)?;
            }
            set_mount_attr(&self.at, 0, 0, MOUNT_ATTR_RDONLY)?;
            check(libc::chdir(self.cwd.as_ptr()))
        }
    }

    /// Makes the spawner's template: a mount namespace of its own where every mount is
    /// private, read-only and `nosuid`, and the cgroup hierarchies are hidden (`hide_cgroups`).
    /// Mounts the machine makes later do not reach it (each bot's view then lacks them too).
    ///
    /// # Safety
    ///
    /// In the single-threaded spawner, as root.
    pub(super) unsafe fn make_template(hide_cgroups: bool) -> io::Result<()> {
        // SAFETY: this process's own mount namespace.
        unsafe {
            check(libc::unshare(libc::CLONE_NEWNS))?;
            make_private()?;
            seal(hide_cgroups)
        }
    }
}

/// Makes every mount of this namespace private: nothing mounted here reaches another namespace,
/// or the other way round.
///
/// # Safety
///
/// In a process with a mount namespace of its own.
unsafe fn make_private() -> io::Result<()> {
    let null = std::ptr::null::<c_char>();
    // SAFETY: a NUL-terminated path; it changes this namespace only.
    check(unsafe {
        libc::mount(null, c"/".as_ptr(), null, libc::MS_REC | libc::MS_PRIVATE, null.cast())
    })
}

/// Hides the cgroup hierarchies (`hide_cgroups`): detaches what is mounted at `/sys/fs/cgroup`
/// (with every hierarchy mounted under it) and puts an empty read-only tmpfs there; then makes
/// every mount read-only and `nosuid`.
///
/// Detached rather than only covered: each bot's mount namespace is a copy of every mount of
/// the template, and its end frees them, so the hierarchies a bot could never reach were a
/// dozen of the template's 21 mounts on a cgroup v1 machine, copied and freed for every bot.
///
/// # Safety
///
/// In a process with a mount namespace of its own.
unsafe fn seal(hide_cgroups: bool) -> io::Result<()> {
    // SAFETY: mount system calls on NUL-terminated strings; they change this namespace only.
    unsafe {
        if hide_cgroups {
            // Until nothing is mounted there (`EINVAL`); a few stacked mounts at most.
            for _ in 0..8 {
                if libc::umount2(c"/sys/fs/cgroup".as_ptr(), libc::MNT_DETACH) != 0 {
                    break;
                }
            }
            let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            let options = c"size=4k,mode=555";
            check(libc::mount(
                c"none".as_ptr(),
                c"/sys/fs/cgroup".as_ptr(),
                c"tmpfs".as_ptr(),
                flags,
                options.as_ptr().cast(),
            ))?;
        }
        set_mount_attr(c"/", AT_RECURSIVE, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0)
    }
}

/// `mount_setattr(2)` of the mount at `path`.
///
/// # Safety
///
/// Any process; it changes its mount namespace's mounts.
unsafe fn set_mount_attr(
    path: &std::ffi::CStr,
    flags: libc::c_uint,
    set: u64,
    clear: u64,
) -> io::Result<()> {
    let attr = MountAttr { attr_set: set, attr_clr: clear, propagation: 0, userns_fd: 0 };
    // SAFETY: a NUL-terminated path and an attribute structure of the size given.
    let result = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags,
            &raw const attr,
            size_of::<MountAttr>(),
        )
    };
    check(result as libc::c_int)
}

/// Overwrites this process's command line (arena's, in a forked copy) with zeros, so that
/// `/proc/PID/cmdline` shows nothing of it.
///
/// # Safety
///
/// In a forked child: the memory is this process's own copy.
unsafe fn wipe_command_line() {
    let mut stat = [0u8; 1024];
    // SAFETY: a read of /proc into a local buffer, then zeros written over the command line's
    // own pages, whose bounds the kernel gave.
    unsafe {
        let fd = libc::open(c"/proc/self/stat".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return;
        }
        let n = read_retrying(fd, stat.as_mut_ptr().cast(), stat.len());
        libc::close(fd);
        let Ok(n) = usize::try_from(n) else { return };
        // `pid (comm) state ...`: field 3 follows the last `)`; arg_start and arg_end are the
        // fields 48 and 49.
        let Some(close) = stat[..n].iter().rposition(|&b| b == b')') else { return };
        let mut fields = stat[close + 1..n].split(|&b| b == b' ').filter(|f| !f.is_empty());
        let mut number = |k: usize| -> Option<usize> {
            let field = fields.nth(k)?;
            field.iter().try_fold(0usize, |acc, &d| {
                d.is_ascii_digit().then(|| acc * 10 + usize::from(d - b'0'))
            })
        };
        // After the `)`, field 3 is the first: field 48 is the 46th after it.
        let (Some(start), Some(end)) = (number(45), number(0)) else { return };
        if start != 0 && end > start {
            std::ptr::write_bytes(start as *mut u8, 0, end - start);
        }
    }
}

/// Adds to `ruleset` a rule giving `access` beneath `path` in the bot's view (its own `/proc`,
/// its private tmpfs: the parent could not name them).
///
/// # Safety
///
/// In the bot, in its view, before it enforces `ruleset`.
unsafe fn allow_beneath(ruleset: RawFd, path: &std::ffi::CStr, access: u64) -> io::Result<()> {
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    #[repr(C, packed)]
    struct PathBeneath {
        allowed_access: u64,
        parent_fd: i32,
    }
    // SAFETY: an O_PATH open of a NUL-terminated path, a rule structure of the kernel's layout,
    // and a close of the descriptor opened here.
    unsafe {
        let dir = libc::open(path.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC);
        check(dir)?;
        let rule = PathBeneath { allowed_access: access, parent_fd: dir };
        let added = libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            LANDLOCK_RULE_PATH_BENEATH,
            &raw const rule,
            0,
        );
        libc::close(dir);
        check(added as libc::c_int)
    }
}

/// Mounts a `/proc` of the calling process's PID namespace over `/proc`.
///
/// # Safety
///
/// In the first process of a new PID namespace, in a mount namespace of its own.
unsafe fn mount_own_proc() -> io::Result<()> {
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    // SAFETY: NUL-terminated strings.
    check(unsafe {
        libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, std::ptr::null())
    })
}

/// The namespaces of a bot.
#[derive(Clone, Debug)]
pub(in crate::bot::external) struct Namespaces {
    /// The `CLONE_NEW*` flags to unshare.
    pub(in crate::bot::external) unshare: libc::c_int,
    /// A user namespace to join first (an unprivileged arena's slot's, owned by arena's user:
    /// the relay, a process of that user outside it, has every capability in it).
    pub(in crate::bot::external) join_userns: Option<RawFd>,
    /// A network namespace to join then.
    pub(in crate::bot::external) join_netns: Option<RawFd>,
}

/// What `execve` needs, as C strings and the null-terminated arrays pointing into them.
#[derive(Debug)]
pub(in crate::bot::external) struct Image {
    program: CString,
    _strings: Vec<CString>,
    argv: Vec<*const c_char>,
    envp: Vec<*const c_char>,
}

// SAFETY: the pointers point into the `CString`s the image owns, which it never changes.
unsafe impl Send for Image {}
// SAFETY: as above; nothing is ever written through them.
unsafe impl Sync for Image {}

impl Image {
    /// The image of `program` with `args` (including `argv[0]`) and `env` (`NAME=value`).
    /// `None` if a string holds a NUL byte.
    pub(in crate::bot::external) fn new(
        program: &std::ffi::OsStr,
        args: &[&std::ffi::OsStr],
        env: &[(std::ffi::OsString, std::ffi::OsString)],
    ) -> Option<Image> {
        use std::os::unix::ffi::OsStrExt;
        let c = |bytes: &[u8]| CString::new(bytes).ok();
        let program = c(program.as_bytes())?;
        let args: Vec<CString> = args.iter().map(|a| c(a.as_bytes())).collect::<Option<_>>()?;
        let vars: Vec<CString> = env
            .iter()
            .map(|(k, v)| c(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect::<Option<_>>()?;
        Some(Image::from_strings(program, args, vars))
    }

    /// The image of `program` with `args` (including `argv[0]`) and `vars` (`NAME=value`).
    pub(super) fn from_strings(program: CString, args: Vec<CString>, vars: Vec<CString>) -> Image {
        let pointers = |strings: &[CString]| -> Vec<*const c_char> {
            strings.iter().map(|s| s.as_ptr()).chain(std::iter::once(std::ptr::null())).collect()
        };
        let (argv, envp) = (pointers(&args), pointers(&vars));
        let mut strings = args;
        strings.extend(vars);
        Image { program, _strings: strings, argv, envp }
    }

    /// The program, the arguments and the environment.
    pub(super) fn strings(&self) -> (&CString, &[CString], &[CString]) {
        let (args, vars) = self._strings.split_at(self.argv.len() - 1);
        (&self.program, args, vars)
    }
}

/// What the relay hands the init and the bot (on the relay's stack, which outlives them both).
struct Handover<'a> {
    plan: &'a Plan,
    limits: &'a Rlimits,
    status: (RawFd, RawFd),
    ready: (RawFd, RawFd),
    bot_stack: *mut c_void,
}

impl Plan {
    /// Runs in the process arena forked. Without namespaces, confines it and returns, and the
    /// standard library runs the program. With namespaces, returns only with an error.
    ///
    /// # Safety
    ///
    /// Only in a freshly forked child, before `exec`.
    pub(in crate::bot::external) unsafe fn run(&self, limits: &Rlimits) -> io::Result<()> {
        let (Some(namespaces), Some(_)) = (&self.namespaces, &self.image) else {
            // SAFETY: the caller's contract.
            return unsafe { self.confine_bot(limits) };
        };
        // SAFETY: in a forked child (the caller's contract): signal dispositions, descriptors,
        // memory mappings and the namespaces of this process are ours to change.
        unsafe {
            // (A spawner set them so for all its relays at its start.)
            if !self.signals_default {
                default_signals();
            }
            // The init's stop and continue signal waits until it can handle it (the init starts
            // with this mask): its default action would end it.
            block_pause_signal(libc::SIG_BLOCK);
            // (The kernel lets only a process that shares its memory with no other join a user
            // namespace: a relay sharing a spawner's memory, as root or in its slot's spawner's
            // user namespace, never has one to join.)
            if let Some(userns) = namespaces.join_userns {
                check(libc::setns(userns, libc::CLONE_NEWUSER))?;
            }
            if let Some(netns) = namespaces.join_netns {
                check(libc::setns(netns, libc::CLONE_NEWNET))?;
            }
            check(libc::unshare(namespaces.unshare))?;
            // The kernel's OOM killer picks the bots before any other process (raising one's
            // own score needs no privilege; the bot's processes inherit it). (In the template's
            // read-only `/proc` the spawner did it for every relay.)
            // (A relay sharing the spawner's memory shares its score, which the spawner set: the
            // bot raises its own.)
            if self.shared.is_none() && !self.view.as_ref().is_some_and(|v| v.from_template) {
                let _ = write_file(c"/proc/self/oom_score_adj", b"1000");
            }
            // The init, which the bot sees, shares this copy of the spawner's (or arena's) memory:
            // the command line (arena's, with its seed among its flags, in a copy of arena) is
            // wiped from it, and nothing else of it can be read (a process that is not dumpable
            // keeps its environment and memory to root). The spawner did both for the relays
            // that share its memory.
            if self.shared.is_none() {
                wipe_command_line();
                libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
            }
            if let Some(view) = &self.view {
                view.make()?;
                // Before the init exists (no copy of the socket reaches the bot), and so before
                // the spawn returns in arena.
                if let Some(report) = self.tmpfs_report {
                    report_tmpfs(report, &view.at)?;
                }
            }
            let (init_stack, bot_stack) = match self.shared {
                Some(shared) => (shared.init_stack as *mut c_void, shared.bot_stack as *mut c_void),
                None => {
                    let stacks = Stacks::new()?;
                    (
                        stacks.top(Stacks::INIT) as *mut c_void,
                        stacks.top(Stacks::BOT) as *mut c_void,
                    )
                }
            };
            let handover =
                Handover { plan: self, limits, status: pipe()?, ready: pipe()?, bot_stack };
            let arg = (&raw const handover).cast_mut().cast();
            let init = libc::clone(init_main, init_stack, libc::CLONE_VM | libc::SIGCHLD, arg);
            if init == -1 {
                return Err(io::Error::last_os_error());
            }
            libc::close(handover.status.1);
            libc::close(handover.ready.1);
            // The standard library's error pipe is among these: the spawn in arena returns.
            // The control pipe is the init's alone (it has its copy).
            close_all_but([
                handover.status.0,
                handover.ready.0,
                self.lifeline,
                self.startup,
                self.oom_event.unwrap_or(self.lifeline),
                self.gone().unwrap_or(self.lifeline),
            ]);
            // End of file: the bot exec'd (its end is close-on-exec). An error number: it could
            // not, and the init is ending.
            let mut errno: libc::c_int = 0;
            let n =
                read_retrying(handover.ready.0, (&raw mut errno).cast(), size_of::<libc::c_int>());
            if n == size_of::<libc::c_int>() as isize {
                libc::write(self.startup, (&raw const errno).cast(), size_of::<libc::c_int>());
                reap(init);
                libc::_exit(127);
            }
            libc::close(self.startup);
            relay_bot(init, handover.status.0, self.lifeline, self.oom_event, self.gone())
        }
    }

    /// Moves the bot into its cgroups, and raises its OOM score where the relay's is not its.
    ///
    /// The bot joins them itself, not its relay: the relay and the init stay out of the bot's
    /// `memory` cgroup, so that its OOM killer picks among the bot's own processes only (it
    /// would kill every process sharing the memory of the one it picked: with a relay that
    /// shares the spawner's, every other bot's relay and init), and out of its `pids` cgroup,
    /// which counts the bot's processes only.
    ///
    /// # Safety
    ///
    /// In the bot, before its confinement.
    unsafe fn join_cgroups(&self) -> io::Result<()> {
        // SAFETY: writes to prepared descriptors; this process's own attribute.
        unsafe {
            for &fd in &self.cgroup_tasks {
                // `0` moves the writer's thread: the bot (its one thread), and so everything
                // it starts.
                check(libc::write(fd, b"0".as_ptr().cast(), 1) as libc::c_int)?;
            }
            // A relay sharing a root arena's spawner's memory shares its OOM score (arena's; the
            // spawner does not raise it: the kernel's OOM killer would kill every process
            // sharing the memory of one it picked). The bot's own is raised here, its alone
            // (`CLONE_VFORK`). (A slot's spawner raised its own, which its relays, inits and
            // bots share: it serves one bot at a time, the one the OOM killer would then end.
            // Its bot could not write its score: the file is root's while the bot shares the
            // spawner's memory, which is not dumpable.)
            if self.shared.is_some() && self.root {
                write_file(c"/proc/self/oom_score_adj", b"1000")?;
            }
        }
        Ok(())
    }

    /// The write end of the spawner's `gone` pipe, for a relay that shares its memory.
    fn gone(&self) -> Option<RawFd> {
        self.shared.map(|shared| shared.gone)
    }

    /// The bot's own confinement, just before `exec`.
    ///
    /// # Safety
    ///
    /// Only in a freshly forked child, before `exec`.
    unsafe fn confine_bot(&self, limits: &Rlimits) -> io::Result<()> {
        limits.apply()?;
        // SAFETY: system calls on this process's own attributes and on prepared descriptors.
        unsafe {
            if let Some(n) = self.max_processes {
                let limit = libc::rlimit { rlim_cur: n, rlim_max: n };
                check(libc::setrlimit(libc::RLIMIT_NPROC, &limit))?;
            }
            // The kernel counts message queues, locked shared memory and queued signals per user
            // at each level of user namespaces up to the machine's, where every bot of an
            // unprivileged arena is arena's user: what one bot takes there, another running at
            // the same time cannot, and sees. No bot gets any of the first two, and few queued
            // signals, so that all bots at once stay below arena's own limit (docs/security.md).
            for (resource, n) in [
                (libc::RLIMIT_MSGQUEUE, 0),
                (libc::RLIMIT_MEMLOCK, 0),
                (libc::RLIMIT_SIGPENDING, BOT_QUEUED_SIGNALS),
            ] {
                let limit = libc::rlimit { rlim_cur: n, rlim_max: n };
                check(libc::setrlimit(resource, &limit))?;
            }
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            if self.drop_capabilities {
                let dropped = drop_capabilities(self.user.as_ref(), self.bounding_set_emptied);
                if self.root {
                    dropped?;
                }
            }
            if let Some(ruleset) = self.ruleset {
                if let Some(view) = &self.view {
                    allow_beneath(ruleset, c"/proc", self.proc_access)?;
                    if let Some(tmpfs) = &view.tmpfs {
                        allow_beneath(ruleset, &view.at, tmpfs.access)?;
                    }
                }
                check(libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0) as libc::c_int)?;
            }
            for program in [self.seccomp, self.no_network].into_iter().flatten() {
                if seccompiler::apply_filter(program).is_err() {
                    return Err(io::Error::last_os_error());
                }
            }
            // Whatever arena had open stays out of the bot (Rust opens everything close-on-exec;
            // this covers what a library might not).
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC);
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        }
        Ok(())
    }
}

/// Tries to create namespaces with `flags` (and write the id maps, and make `view`, with its
/// `/proc`) in a throw-away child.
pub(super) fn probe(
    flags: libc::c_int,
    id_maps: Option<(&[u8], &[u8])>,
    view: Option<&View>,
) -> io::Result<()> {
    // SAFETY: the child only makes system calls on prepared data and exits.
    unsafe {
        match libc::fork() {
            -1 => Err(io::Error::last_os_error()),
            0 => {
                let mut result = check(libc::unshare(flags));
                if let (Ok(()), Some((uid_map, gid_map))) = (&result, id_maps) {
                    result = write_file(c"/proc/self/setgroups", b"deny")
                        .and_then(|()| write_file(c"/proc/self/uid_map", uid_map))
                        .and_then(|()| write_file(c"/proc/self/gid_map", gid_map));
                }
                if let (Ok(()), Some(view)) = (&result, view) {
                    result = view.make();
                }
                if result.is_ok() && flags & libc::CLONE_NEWPID != 0 {
                    // The namespace's first process must be able to start (and mount its /proc).
                    result = match libc::fork() {
                        -1 => Err(io::Error::last_os_error()),
                        0 => {
                            let mounted = if view.is_some() { mount_own_proc() } else { Ok(()) };
                            libc::_exit(mounted.err().and_then(|e| e.raw_os_error()).unwrap_or(0))
                        }
                        pid => {
                            let mut status = 0;
                            libc::waitpid(pid, &mut status, 0);
                            match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
                                (true, 0) => Ok(()),
                                (true, errno) => Err(io::Error::from_raw_os_error(errno)),
                                _ => Err(io::Error::other("the probe was killed")),
                            }
                        }
                    };
                }
                libc::_exit(result.err().and_then(|e| e.raw_os_error()).unwrap_or(0).min(255))
            }
            pid => {
                let mut status = 0;
                while libc::waitpid(pid, &mut status, 0) == -1 {
                    if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                        return Err(io::Error::last_os_error());
                    }
                }
                match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
                    (true, 0) => Ok(()),
                    (true, errno) => Err(io::Error::from_raw_os_error(errno)),
                    _ => Err(io::Error::other("the probe was killed")),
                }
            }
        }
    }
}

/// What arena writes on a bot's control pipe to stop every process of the bot (between its
/// turns); the init, which the kernel signals when arena writes, stops everything else in the
/// bot's PID namespace.
pub(in crate::bot::external) const PAUSE: u8 = b'S';
/// What continues them (at the start of its turn).
pub(in crate::bot::external) const RESUME: u8 = b'C';

/// The signal the kernel sends the init when arena writes on the control pipe (`F_SETSIG`).
const PAUSE_SIGNAL: libc::c_int = libc::SIGUSR1;
/// Where the init keeps the control pipe's read end (non-blocking), for its signal handler: a
/// number rather than a variable, since the memory is shared (with the relay, and with the
/// spawner and every other bot's relay and init when they share the spawner's).
const CONTROL_FD: RawFd = 0;
/// Where the init keeps the write end of the acknowledgement pipe (`Plan::pause_ack`).
const ACK_FD: RawFd = 1;

/// Blocks (`SIG_BLOCK`) or unblocks (`SIG_UNBLOCK`) [`PAUSE_SIGNAL`].
///
/// # Safety
///
/// In a process of the sandbox.
unsafe fn block_pause_signal(how: libc::c_int) {
    // SAFETY: this thread's own signal mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, PAUSE_SIGNAL);
        libc::sigprocmask(how, &set, std::ptr::null_mut());
    }
}

/// The init's handler of [`PAUSE_SIGNAL`]: reads every request waiting on the control pipe,
/// stops or continues every other process of the namespace as the last one says, and
/// acknowledges it with what it did. Signals that came together are one delivery, and requests
/// that came together one action: the last request is always the one acted on. (`kill(-1)`
/// reaches a process being forked too: the fork starts again once its parent continues, so no
/// new process escapes a stop.)
extern "C" fn init_pause(_: libc::c_int) {
    let mut buf = [0u8; 64];
    let mut last = None;
    // SAFETY: read, kill and write are async-signal-safe; -1 from a namespace's init is
    // everything else in it.
    unsafe {
        loop {
            let n = libc::read(CONTROL_FD, buf.as_mut_ptr().cast(), buf.len());
            let Ok(n @ 1..) = usize::try_from(n) else { break };
            last = Some(buf[n - 1]);
        }
        let Some(request) = last else { return };
        let to = if request == PAUSE { libc::SIGSTOP } else { libc::SIGCONT };
        libc::kill(-1, to);
        // What it did: arena waits for a stop's acknowledgement only.
        libc::write(ACK_FD, (&raw const request).cast(), 1);
    }
}

/// Makes the control pipe (`control`) signal the init when arena writes on it, at
/// [`CONTROL_FD`], with the acknowledgement pipe (`ack`) at [`ACK_FD`], and acts on what arena
/// wrote before. [`PAUSE_SIGNAL`] is still blocked: it is handled from the caller's unblocking.
///
/// # Safety
///
/// In the init, whose descriptors [`CONTROL_FD`] and [`ACK_FD`] are free.
unsafe fn take_control(control: RawFd, ack: RawFd) {
    // SAFETY: the init's own descriptors.
    unsafe {
        libc::dup2(control, CONTROL_FD);
        libc::dup2(ack, ACK_FD);
        libc::close(control);
        libc::close(ack);
        libc::fcntl(CONTROL_FD, libc::F_SETOWN, libc::getpid());
        // `F_SETSIG` (the libc crate does not name it).
        const F_SETSIG: libc::c_int = 10;
        libc::fcntl(CONTROL_FD, F_SETSIG, PAUSE_SIGNAL);
        libc::fcntl(CONTROL_FD, libc::F_SETFL, libc::O_NONBLOCK | libc::O_ASYNC);
        init_pause(PAUSE_SIGNAL);
    }
}

/// The relay, once the bot's program runs: closes everything but its status pipe, the lifeline,
/// the OOM event and the spawner's `gone` pipe, and ends as the bot ended.
///
/// # Safety
///
/// Only in the relay process.
unsafe fn relay_bot(
    init: libc::pid_t,
    status_r: RawFd,
    lifeline: RawFd,
    oom_event: Option<RawFd>,
    gone: Option<RawFd>,
) -> ! {
    // SAFETY: the relay's own descriptors and signals.
    unsafe {
        close_all_but([
            status_r,
            lifeline,
            oom_event.unwrap_or(lifeline),
            gone.unwrap_or(lifeline),
        ]);
        // The end of a match sends SIGTERM to the group: the init passes it on; the relay
        // must stay to report the exit.
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        let mut reported: Option<libc::c_int> = None;
        loop {
            let mut fds = [
                libc::pollfd { fd: status_r, events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: lifeline, events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: oom_event.unwrap_or(-1), events: libc::POLLIN, revents: 0 },
            ];
            if libc::poll(fds.as_mut_ptr(), 3, -1) < 0 {
                continue;
            }
            if fds[1].revents != 0 || fds[2].revents != 0 {
                // arena is gone, or the bot ran out of memory: so is the bot.
                libc::kill(init, libc::SIGKILL);
                break;
            }
            if fds[0].revents != 0 {
                let mut status: libc::c_int = 0;
                let n = read_retrying(status_r, (&raw mut status).cast(), size_of::<libc::c_int>());
                if n == size_of::<libc::c_int>() as isize {
                    reported = Some(status);
                }
                break;
            }
        }
        let init_status = reap(init);
        end_as(reported.unwrap_or(init_status))
    }
}

/// Waits for the init to be gone; its wait status.
///
/// # Safety
///
/// Only in the relay process.
unsafe fn reap(init: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    // SAFETY: waiting for a child of this process. (`errno` is shared with the init, whose
    // memory this is: whether the init still exists decides, not the error number.)
    unsafe {
        while libc::waitpid(init, &mut status, 0) != init {
            if libc::kill(init, 0) == -1 {
                break;
            }
        }
    }
    status
}

/// `read` until it is not interrupted.
///
/// # Safety
///
/// `buf` holds `len` bytes.
unsafe fn read_retrying(fd: RawFd, buf: *mut c_void, len: usize) -> isize {
    loop {
        // SAFETY: the caller's contract.
        let n = unsafe { libc::read(fd, buf, len) };
        if n >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return n;
        }
    }
}

/// The init's entry point (`clone`d by the relay, sharing its memory, on a stack of its own).
extern "C" fn init_main(arg: *mut c_void) -> libc::c_int {
    // SAFETY: `arg` is the relay's `Handover`, alive as long as the relay.
    let handover = unsafe { &*arg.cast::<Handover<'_>>() };
    let (status_w, ready_w) = (handover.status.1, handover.ready.1);
    // SAFETY: the init's own descriptors; the bot shares the memory until its `exec`, during
    // which the init is suspended (`CLONE_VFORK`).
    unsafe {
        die_with_relay(status_w);
        if handover.plan.view.is_some() {
            if let Err(e) = mount_own_proc() {
                report_error(ready_w, e);
                libc::_exit(126);
            }
        }
        // The bot needs its standard streams, the ready pipe and its rulesets; the init, the
        // status pipe. (The standard library's error pipe is among the others: the spawn in
        // arena returns.)
        let plan = handover.plan;
        let ruleset = plan.ruleset.unwrap_or(0);
        let pause = plan.control.zip(plan.pause_ack);
        let (control, ack) = pause.unwrap_or((0, 0));
        let gone = plan.gone().unwrap_or(0);
        let keep = [0, 1, 2, status_w, ready_w, ruleset, control, ack, gone];
        close_all_but(keep.into_iter().chain(plan.cgroup_tasks.iter().copied()));
        let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD;
        let bot = libc::clone(bot_main, handover.bot_stack, flags, arg);
        if bot == -1 {
            report_error(ready_w, io::Error::last_os_error());
            libc::_exit(126);
        }
        libc::close(ready_w);
        // The bot has run its `exec` (`CLONE_VFORK`): nothing of the plan is read after this.
        init(bot, status_w, pause, plan.gone())
    }
}

/// The bot's entry point (`clone`d by the init): confines itself and runs the program.
extern "C" fn bot_main(arg: *mut c_void) -> libc::c_int {
    // SAFETY: `arg` is the relay's `Handover`, alive as long as the relay.
    let handover = unsafe { &*arg.cast::<Handover<'_>>() };
    let plan = handover.plan;
    // SAFETY: the bot's own descriptors and attributes, then `exec` of prepared strings.
    unsafe {
        libc::close(handover.status.1);
        let error = match (
            plan.join_cgroups().and_then(|()| plan.confine_bot(handover.limits)),
            &plan.image,
        ) {
            (Err(e), _) => e,
            (Ok(()), Some(image)) => {
                libc::execve(image.program.as_ptr(), image.argv.as_ptr(), image.envp.as_ptr());
                io::Error::last_os_error()
            }
            (Ok(()), None) => io::Error::from_raw_os_error(libc::EINVAL),
        };
        report_error(handover.ready.1, error);
        libc::_exit(127)
    }
}

/// Tells the relay why the bot will not run.
///
/// # Safety
///
/// `ready_w` is the ready pipe's write end.
unsafe fn report_error(ready_w: RawFd, error: io::Error) {
    let errno: libc::c_int = error.raw_os_error().unwrap_or(libc::EPERM);
    // SAFETY: a write of a local integer.
    unsafe {
        libc::write(ready_w, (&raw const errno).cast(), size_of::<libc::c_int>());
    }
}

/// The init's `SIGTERM` handler: passes the signal on to the whole namespace (and continues
/// what is stopped, to act on it).
extern "C" fn pass_term_on(_: libc::c_int) {
    // SAFETY: kill is async-signal-safe; -1 from a namespace's init is everything else in it.
    unsafe {
        libc::kill(-1, libc::SIGTERM);
        libc::kill(-1, libc::SIGCONT);
    }
}

/// The init of the bot's PID namespace: reaps everything, reports the bot's exit status.
///
/// # Safety
///
/// Only in the init process.
unsafe fn init(
    bot: libc::pid_t,
    status_w: RawFd,
    pause: Option<(RawFd, RawFd)>,
    gone: Option<RawFd>,
) -> ! {
    // SAFETY: the init's own descriptors and signals.
    unsafe {
        let (control, ack) = pause.unwrap_or((status_w, status_w));
        close_all_but([status_w, control, ack, gone.unwrap_or(status_w)]);
        if let Some((control, ack)) = pause {
            take_control(control, ack);
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = pass_term_on as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = init_pause as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        action.sa_flags = libc::SA_RESTART;
        libc::sigaction(PAUSE_SIGNAL, &action, std::ptr::null_mut());
        block_pause_signal(libc::SIG_UNBLOCK);
        loop {
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, libc::__WALL);
            if pid == bot {
                libc::write(status_w, (&raw const status).cast(), size_of::<libc::c_int>());
                // Exiting kills whatever is left in the namespace.
                libc::_exit(0);
            }
            // Interrupted, or no child left: the bot's existence decides (`errno` is shared
            // with the relay).
            if pid == -1 && libc::kill(bot, 0) == -1 {
                libc::_exit(0);
            }
        }
    }
}

/// Ends the relay the way the bot ended: the same exit code, or the same signal.
///
/// # Safety
///
/// Only in the relay process.
unsafe fn end_as(status: libc::c_int) -> ! {
    // SAFETY: the relay's own signals and exit.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            // No core file of the relay (a copy of arena) for a bot's crash.
            libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
            libc::signal(signal, libc::SIG_DFL);
            let mut only: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut only);
            libc::sigaddset(&mut only, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 125 })
    }
}

/// Makes the init die with the relay (`SIGKILL` when it exits), and at once if it already has:
/// then `status_w` has no reader left. (`getppid` cannot tell: from inside the new PID
/// namespace the relay has no pid.)
///
/// # Safety
///
/// In the init process.
unsafe fn die_with_relay(status_w: RawFd) {
    // SAFETY: this process's own attribute, and a poll of its own descriptor.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        let mut fd = libc::pollfd { fd: status_w, events: libc::POLLOUT, revents: 0 };
        if libc::poll(&mut fd, 1, 0) == 1 && fd.revents & libc::POLLERR != 0 {
            libc::_exit(1);
        }
    }
}

/// Every signal back to its default action (arena's handlers write to arena's pipes), and none
/// blocked. By the system call itself: the C library refuses to touch its own two (32 and 33),
/// which its `posix_spawn` leaves ignored in the process it starts (the spawner), and an ignored
/// signal stays ignored through `exec`, into the bot.
///
/// # Safety
///
/// In a forked child, or in the spawner at its start.
pub(super) unsafe fn default_signals() {
    // `SIG_DFL`, no flags, an empty mask: all zeros, in the kernel's `struct sigaction` of every
    // architecture (with or without a restorer field).
    let action = [0u64; 4];
    // SAFETY: this process's own dispositions and mask.
    unsafe {
        for signal in 1..=64 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                let sigset_size = 8usize;
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    signal,
                    action.as_ptr(),
                    std::ptr::null::<u64>(),
                    sigset_size,
                );
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    }
}

/// Closes every descriptor but `keep`, standard streams included.
///
/// # Safety
///
/// In a forked child that needs none of the others.
pub(super) unsafe fn close_all_but(keep: impl IntoIterator<Item = RawFd>) {
    let mut sorted = [0 as RawFd; 16];
    let mut n = 0;
    for (slot, fd) in sorted.iter_mut().zip(keep) {
        *slot = fd;
        n += 1;
    }
    sorted[..n].sort_unstable();
    let mut from: u32 = 0;
    for &fd in &sorted[..n] {
        let fd = fd as u32;
        if fd > from {
            // SAFETY: closing descriptors of this process.
            unsafe { libc::syscall(libc::SYS_close_range, from, fd - 1, 0u32) };
        }
        from = fd + 1;
    }
    // SAFETY: as above.
    unsafe { libc::syscall(libc::SYS_close_range, from, u32::MAX, 0u32) };
}

/// Switches to the bot's own user: no supplementary group, its gid, its uid.
///
/// # Safety
///
/// In a forked child, as root.
unsafe fn become_user(user: &BotUser) -> io::Result<()> {
    // SAFETY: this process's own credentials.
    unsafe {
        check(libc::setgroups(0, std::ptr::null()))?;
        check(libc::setresgid(user.gid, user.gid, user.gid))?;
        check(libc::setresuid(user.uid, user.uid, user.uid))
    }
}

/// Drops from this process's bounding set every capability but those of `kept` (bits of the
/// first 32): only those still in it, since each drop is a new set of credentials for the kernel
/// to make and free (about 2 us each, and a root bot's set holds 41). The spawner, as root, drops
/// all but `CAP_DAC_READ_SEARCH` once for every bot ([`empty_spawner_bounding_set`]).
///
/// # Safety
///
/// Any process; it changes its own credentials.
unsafe fn drop_bounding_set(kept: u32) -> io::Result<()> {
    let mut cap = 0;
    // SAFETY: this process's own bounding set.
    unsafe {
        // Until the kernel says the number is no capability; 1: it is in the set.
        loop {
            match libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) {
                1 if cap >= 32 || kept & (1 << cap) == 0 => {
                    check(libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0))?;
                }
                0 | 1 => {}
                _ => return Ok(()),
            }
            cap += 1;
        }
    }
}

/// `CAP_DAC_READ_SEARCH`, the one capability a bot may keep (`BotUser::read_search`).
const CAP_DAC_READ_SEARCH: u32 = 2;

/// What a spawner leaves in its bounding set ([`empty_spawner_bounding_set`]), as bits of the
/// first 32 capabilities.
const SPAWNER_BOUNDING_SET: u32 = 1 << CAP_DAC_READ_SEARCH;

/// The spawner's bounding set, as root (or in a slot's user namespace): every capability but
/// `CAP_DAC_READ_SEARCH` (the one a bot may keep) dropped once, so that no bot's start reads and
/// drops them one by one (`Plan::bounding_set_emptied`). The relays and inits keep their own
/// capabilities (the bounding set only limits what an `exec` or a `capset` may gain, and they
/// do neither); the bot drops the rest of its sets as before.
pub(super) fn empty_spawner_bounding_set() -> io::Result<()> {
    // SAFETY: this process's own bounding set.
    unsafe { drop_bounding_set(SPAWNER_BOUNDING_SET) }
}

/// Empties the capability sets and the bounding set, locks root out of regaining them at
/// `exec`, and switches to the bot's own `user` when it has one. A user whose `read_search` is
/// set keeps `CAP_DAC_READ_SEARCH` alone, as an ambient capability that survives the `exec`.
///
/// # Safety
///
/// In a forked child.
unsafe fn drop_capabilities(user: Option<&BotUser>, bounding_set_emptied: bool) -> io::Result<()> {
    const SECBIT_NOROOT: libc::c_ulong = 1 << 0;
    const SECBIT_NOROOT_LOCKED: libc::c_ulong = 1 << 1;
    const SECBIT_NO_SETUID_FIXUP: libc::c_ulong = 1 << 2;
    const SECBIT_NO_SETUID_FIXUP_LOCKED: libc::c_ulong = 1 << 3;
    const SECBIT_KEEP_CAPS_LOCKED: libc::c_ulong = 1 << 5;
    const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let read_search = user.is_some_and(|u| u.read_search);
    let kept: u32 = if read_search { 1 << CAP_DAC_READ_SEARCH } else { 0 };
    // SAFETY: this process's own capabilities and credentials.
    unsafe {
        if bounding_set_emptied {
            // Only what the spawner left can be in it: about 40 reads of the set spared.
            let left = SPAWNER_BOUNDING_SET & !kept;
            for cap in (0..32).filter(|cap| left & (1 << cap) != 0) {
                check(libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0))?;
            }
        } else {
            drop_bounding_set(kept)?;
        }
        check(libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))?;
        // `NO_SETUID_FIXUP`: the switch to the bot's uid below leaves the capabilities alone, so
        // the `capset` after it can still keep the one the bot is to keep.
        let bits = SECBIT_NOROOT
            | SECBIT_NOROOT_LOCKED
            | SECBIT_NO_SETUID_FIXUP
            | SECBIT_NO_SETUID_FIXUP_LOCKED
            | SECBIT_KEEP_CAPS_LOCKED;
        check(libc::prctl(libc::PR_SET_SECUREBITS, bits, 0, 0, 0))?;
        if let Some(user) = user {
            become_user(user)?;
        }
        let header = Header { version: CAPABILITY_VERSION_3, pid: 0 };
        let data = [
            Data { effective: kept, permitted: kept, inheritable: kept },
            Data { effective: 0, permitted: 0, inheritable: 0 },
        ];
        check(libc::syscall(libc::SYS_capset, &header, data.as_ptr()) as libc::c_int)?;
        if read_search {
            let raise = libc::PR_CAP_AMBIENT_RAISE as libc::c_ulong;
            check(libc::prctl(libc::PR_CAP_AMBIENT, raise, CAP_DAC_READ_SEARCH, 0, 0))?;
        }
        Ok(())
    }
}

/// Sends arena, on `report`, a descriptor of the tmpfs just mounted at `at` (`O_PATH`: it can
/// `fstatfs` it, not read what is in it), then closes `report`. arena counts the tmpfs's used
/// blocks in the bot's memory: a tmpfs's pages belong to no process, so `/proc` would not show
/// them. The descriptor keeps the tmpfs until arena closes it at the bot's end.
///
/// # Safety
///
/// In the relay, in the bot's mount namespace; allocates nothing (it may share the spawner's
/// memory).
unsafe fn report_tmpfs(report: RawFd, at: &std::ffi::CStr) -> io::Result<()> {
    // SAFETY: a NUL-terminated path; descriptors this process holds.
    unsafe {
        let fd = libc::open(at.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC);
        check(fd)?;
        let sent = super::fd_passing::send(report, &[0], &[fd]);
        libc::close(fd);
        libc::close(report);
        sent
    }
}

/// A pipe, both ends close-on-exec.
///
/// # Safety
///
/// Any process.
unsafe fn pipe() -> io::Result<(RawFd, RawFd)> {
    let mut fds = [0; 2];
    // SAFETY: a two-element array for pipe2.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    Ok((fds[0], fds[1]))
}

/// Writes `data` to the file at `path` in one write (what `/proc` id maps require).
///
/// # Safety
///
/// Any process.
pub(super) unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: a NUL-terminated path, a buffer of the given length.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        check(fd)?;
        let written = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        if written != data.len() as isize {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result == -1 { Err(io::Error::last_os_error()) } else { Ok(()) }
}
