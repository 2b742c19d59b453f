//! The code that runs in a sandboxed bot's forked processes before its program starts. It runs
//! after `fork` in a copy of a multi-threaded arena, so it only makes system calls on what the
//! parent prepared: no allocation, no lock, no Rust I/O.
//!
//! With namespaces, a bot is three processes:
//!
//! - the **relay** (the process arena spawns, leader of the bot's process group, outside the
//!   bot's namespaces): joins the bot's cgroups, creates its namespaces, forks the init, waits
//!   until the bot's program has started, then only waits: for the bot's exit status, which it
//!   then ends with (so arena sees the bot's exit as before), or for end of file on the
//!   *lifeline*, which means arena died, and then kills the init;
//! - the **init** (PID 1 of the bot's PID namespace): forks the bot, reaps every orphan of the
//!   namespace, passes `SIGTERM` on to all of it, reports the bot's exit status to the relay and
//!   exits with it. When it exits, however it exits, the kernel kills everything left in the
//!   namespace, `setsid` and double forks included. It dies with the relay (`PR_SET_PDEATHSIG`),
//!   which is single-threaded, so the parent-death signal fires when the relay dies;
//! - the **bot** (PID 2): confines itself (resource limits, no new privileges, no capabilities,
//!   Landlock) and returns to the standard library, which runs the program.
//!
//! A failure before the relay forks is reported as the spawn's error by the standard library; a
//! failure of the bot's confinement or `exec` too, since the bot still holds the standard
//! library's error pipe, and the relay and init close their copies only once the bot has
//! exec'd or died.
//!
//! Without namespaces only the bot's confinement runs, in the one process arena spawns.

#![allow(unsafe_code)]

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::spawn::Rlimits;

/// What a bot's processes do between `fork` and `exec`, prepared by the parent.
#[derive(Clone, Debug)]
pub(in crate::bot::external) struct Plan {
    /// `None`: no namespaces, no relay and init.
    pub(in crate::bot::external) namespaces: Option<Namespaces>,
    /// The read end of arena's lifeline pipe.
    pub(in crate::bot::external) lifeline: RawFd,
    /// `cgroup.procs` of the bot's cgroups, open for writing.
    pub(in crate::bot::external) cgroup_procs: Vec<RawFd>,
    /// The Landlock ruleset to enforce.
    pub(in crate::bot::external) ruleset: Option<RawFd>,
    /// The seccomp filter to install.
    pub(in crate::bot::external) seccomp: Option<&'static [seccompiler::sock_filter]>,
    /// `RLIMIT_NPROC` for the bot (in its own user namespace only).
    pub(in crate::bot::external) max_processes: Option<u64>,
    /// Empty the bot's capability sets and bounding set.
    pub(in crate::bot::external) drop_capabilities: bool,
    /// arena runs as root: a failure to drop capabilities is fatal.
    pub(in crate::bot::external) root: bool,
}

/// The namespaces of a bot.
#[derive(Clone, Debug)]
pub(in crate::bot::external) struct Namespaces {
    /// The `CLONE_NEW*` flags to unshare.
    pub(in crate::bot::external) unshare: libc::c_int,
    /// A network namespace to join first.
    pub(in crate::bot::external) join_netns: Option<RawFd>,
    /// `uid_map` and `gid_map` contents, with a new user namespace.
    pub(in crate::bot::external) id_maps: Option<(Vec<u8>, Vec<u8>)>,
}

impl Plan {
    /// Runs in the process arena forked: returns (to `exec`) in the bot's process only.
    ///
    /// # Safety
    ///
    /// Only in a freshly forked child, before `exec`.
    pub(in crate::bot::external) unsafe fn run(&self, limits: &Rlimits) -> io::Result<()> {
        let Some(namespaces) = &self.namespaces else {
            // SAFETY: the caller's contract.
            return unsafe { self.confine_bot(limits) };
        };
        // SAFETY: in a forked child (the caller's contract): signal dispositions, descriptors
        // and the namespaces of this process are ours to change.
        unsafe {
            default_signals();
            for &fd in &self.cgroup_procs {
                // `0` moves the writer: the relay, and so everything it forks.
                check(libc::write(fd, b"0".as_ptr().cast(), 1) as libc::c_int)?;
            }
            if let Some(netns) = namespaces.join_netns {
                check(libc::setns(netns, libc::CLONE_NEWNET))?;
            }
            check(libc::unshare(namespaces.unshare))?;
            if let Some((uid_map, gid_map)) = &namespaces.id_maps {
                write_file(c"/proc/self/setgroups", b"deny")?;
                write_file(c"/proc/self/uid_map", uid_map)?;
                write_file(c"/proc/self/gid_map", gid_map)?;
            }
            let (status_r, status_w) = pipe()?;
            let (ready_r, ready_w) = pipe()?;
            match libc::fork() {
                -1 => Err(io::Error::last_os_error()),
                0 => {
                    libc::close(status_r);
                    libc::close(ready_r);
                    die_with_relay(status_w);
                    match libc::fork() {
                        -1 => libc::_exit(126),
                        0 => {
                            libc::close(status_w);
                            // `ready_w` closes when the program starts (close-on-exec).
                            self.confine_bot(limits)
                        }
                        bot => {
                            libc::close(ready_w);
                            init(bot, status_w)
                        }
                    }
                }
                init_pid => {
                    libc::close(status_w);
                    libc::close(ready_w);
                    relay_bot(init_pid, status_r, ready_r, self.lifeline)
                }
            }
        }
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
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            if self.drop_capabilities {
                let dropped = drop_capabilities();
                if self.root {
                    dropped?;
                }
            }
            if let Some(ruleset) = self.ruleset {
                check(libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0) as libc::c_int)?;
            }
            if let Some(filter) = self.seccomp {
                if seccompiler::apply_filter(filter).is_err() {
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

/// Tries to create namespaces with `flags` (and write the id maps) in a throw-away child.
pub(super) fn probe(flags: libc::c_int, id_maps: Option<(&[u8], &[u8])>) -> io::Result<()> {
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
                if result.is_ok() && flags & libc::CLONE_NEWPID != 0 {
                    // The namespace's first process must be able to start.
                    result = match libc::fork() {
                        -1 => Err(io::Error::last_os_error()),
                        0 => libc::_exit(0),
                        pid => {
                            let mut status = 0;
                            libc::waitpid(pid, &mut status, 0);
                            Ok(())
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

/// The relay: once the bot's program has started, closes everything but its status pipe and the
/// lifeline, and ends as the bot ended.
///
/// # Safety
///
/// Only in the relay process.
unsafe fn relay_bot(init: libc::pid_t, status_r: RawFd, ready_r: RawFd, lifeline: RawFd) -> ! {
    // SAFETY: the relay's own descriptors and signals.
    unsafe {
        // End of file: the bot exec'd (its end is close-on-exec) or died.
        let mut byte = 0u8;
        while libc::read(ready_r, (&raw mut byte).cast(), 1) != 0 {
            if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break;
            }
        }
        // The standard library's error pipe is among these: its reader in arena now returns.
        close_all_but(&[status_r, lifeline]);
        // The end of a match sends SIGTERM to the group: the init passes it on; the relay
        // must stay to report the exit.
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        let mut reported: Option<libc::c_int> = None;
        loop {
            let mut fds = [
                libc::pollfd { fd: status_r, events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: lifeline, events: libc::POLLIN, revents: 0 },
            ];
            if libc::poll(fds.as_mut_ptr(), 2, -1) < 0 {
                continue;
            }
            if fds[1].revents != 0 {
                // arena is gone: so is the bot.
                libc::kill(init, libc::SIGKILL);
                break;
            }
            if fds[0].revents != 0 {
                let mut status: libc::c_int = 0;
                let n = libc::read(status_r, (&raw mut status).cast(), size_of::<libc::c_int>());
                if n == size_of::<libc::c_int>() as isize {
                    reported = Some(status);
                } else if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                break;
            }
        }
        let mut init_status = 0;
        while libc::waitpid(init, &mut init_status, 0) == -1
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
        end_as(reported.unwrap_or(init_status))
    }
}

/// Set by the init's `SIGTERM` handler, which passes the signal on itself.
static TERM_SEEN: AtomicBool = AtomicBool::new(false);

extern "C" fn pass_term_on(_: libc::c_int) {
    TERM_SEEN.store(true, Ordering::Relaxed);
    // SAFETY: kill is async-signal-safe; -1 from a namespace's init is everything else in it.
    unsafe {
        libc::kill(-1, libc::SIGTERM);
    }
}

/// The init of the bot's PID namespace: reaps everything, reports the bot's exit status.
///
/// # Safety
///
/// Only in the init process.
unsafe fn init(bot: libc::pid_t, status_w: RawFd) -> ! {
    // SAFETY: the init's own descriptors and signals.
    unsafe {
        close_all_but(&[status_w]);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = pass_term_on as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        loop {
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, libc::__WALL);
            if pid == bot {
                libc::write(status_w, (&raw const status).cast(), size_of::<libc::c_int>());
                // Exiting kills whatever is left in the namespace.
                libc::_exit(0);
            }
            if pid == -1 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
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

/// Every signal back to its default action (arena's handlers write to arena's pipes).
///
/// # Safety
///
/// In a forked child.
unsafe fn default_signals() {
    // SAFETY: this process's own dispositions.
    unsafe {
        for signal in 1..libc::SIGRTMIN() {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
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
unsafe fn close_all_but(keep: &[RawFd]) {
    let mut sorted = [0 as RawFd; 4];
    let n = keep.len().min(sorted.len());
    sorted[..n].copy_from_slice(&keep[..n]);
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

/// Empties the capability sets and the bounding set, and locks root out of regaining them at
/// `exec` (a root bot keeps uid 0, with the file access of uid 0 that Landlock restricts, but no
/// privilege: no module loading, no clock setting, no raw I/O).
///
/// # Safety
///
/// In a forked child.
unsafe fn drop_capabilities() -> io::Result<()> {
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
    // SAFETY: this process's own capabilities.
    unsafe {
        let mut cap = 0;
        // Until the kernel says the number is no capability.
        while libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) >= 0 {
            check(libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0))?;
            cap += 1;
        }
        check(libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))?;
        let bits = SECBIT_NOROOT
            | SECBIT_NOROOT_LOCKED
            | SECBIT_NO_SETUID_FIXUP
            | SECBIT_NO_SETUID_FIXUP_LOCKED
            | SECBIT_KEEP_CAPS_LOCKED;
        check(libc::prctl(libc::PR_SET_SECUREBITS, bits, 0, 0, 0))?;
        let header = Header { version: CAPABILITY_VERSION_3, pid: 0 };
        let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
        check(libc::syscall(libc::SYS_capset, &header, data.as_ptr()) as libc::c_int)
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
unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
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
