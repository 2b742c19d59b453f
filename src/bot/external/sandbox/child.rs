//! The code that runs in a sandboxed bot's forked processes before its program starts. It runs
//! after `fork` in a copy of a multi-threaded arena, so it only makes system calls on what the
//! parent prepared: no allocation, no lock, no Rust I/O.
//!
//! With namespaces, a bot is three processes:
//!
//! - the **relay** (the process arena spawns, leader of the bot's process group, outside the
//!   bot's namespaces): joins the bot's cgroups, creates its namespaces, starts the init, waits
//!   until the bot's program has started, then only waits: for the bot's exit status, which it
//!   then ends with (so arena sees the bot's exit as before), or for end of file on the
//!   *lifeline*, which means arena died, and then kills the init;
//! - the **init** (PID 1 of the bot's PID namespace): starts the bot, reaps every orphan of the
//!   namespace, passes `SIGTERM` on to all of it, reports the bot's exit status to the relay and
//!   exits. When it exits, however it exits, the kernel kills everything left in the namespace,
//!   `setsid` and double forks included. It dies with the relay (`PR_SET_PDEATHSIG`);
//! - the **bot** (PID 2): confines itself (resource limits, no new privileges, no capabilities,
//!   Landlock, seccomp) and `exec`s the program.
//!
//! The init and the bot are started with `clone(CLONE_VM)` on stacks of their own, sharing the
//! relay's memory (the bot with `CLONE_VFORK`, until its `exec`): copying a copy of arena's
//! address space twice more would cost more than the rest of the sandbox together. They only
//! read what the relay holds, and the relay only waits meanwhile.
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

/// What a bot's processes do between `fork` and `exec`, prepared by the parent.
#[derive(Clone, Debug)]
pub(in crate::bot::external) struct Plan {
    /// `None`: no namespaces, no relay and init.
    pub(in crate::bot::external) namespaces: Option<Namespaces>,
    /// The read end of arena's lifeline pipe.
    pub(in crate::bot::external) lifeline: RawFd,
    /// The write end of the bot's startup pipe.
    pub(in crate::bot::external) startup: RawFd,
    /// `cgroup.procs` of the bot's cgroups, open for writing.
    pub(in crate::bot::external) cgroup_procs: Vec<RawFd>,
    /// The Landlock rulesets to enforce (the bot's own, and the one hiding `/etc`'s secrets).
    pub(in crate::bot::external) rulesets: [Option<RawFd>; 2],
    /// The seccomp filter to install.
    pub(in crate::bot::external) seccomp: Option<&'static [seccompiler::sock_filter]>,
    /// `RLIMIT_NPROC` for the bot (in its own user namespace only).
    pub(in crate::bot::external) max_processes: Option<u64>,
    /// Empty the bot's capability sets and bounding set.
    pub(in crate::bot::external) drop_capabilities: bool,
    /// arena runs as root: a failure to drop capabilities is fatal.
    pub(in crate::bot::external) root: bool,
    /// The program, its arguments and its environment, for the bot's own `exec`.
    pub(in crate::bot::external) image: Option<Arc<Image>>,
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
        let pointers = |strings: &[CString]| -> Vec<*const c_char> {
            strings.iter().map(|s| s.as_ptr()).chain(std::iter::once(std::ptr::null())).collect()
        };
        let (argv, envp) = (pointers(&args), pointers(&vars));
        let mut strings = args;
        strings.extend(vars);
        Some(Image { program, _strings: strings, argv, envp })
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
            default_signals();
            for &fd in &self.cgroup_procs {
                // `0` moves the writer: the relay, and so everything it starts.
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
            let stacks = libc::mmap(
                std::ptr::null_mut(),
                2 * STACK_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if stacks == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let handover = Handover {
                plan: self,
                limits,
                status: pipe()?,
                ready: pipe()?,
                bot_stack: stacks.cast::<u8>().add(2 * STACK_SIZE).cast(),
            };
            let init_stack = stacks.cast::<u8>().add(STACK_SIZE).cast();
            let arg = (&raw const handover).cast_mut().cast();
            let init = libc::clone(init_main, init_stack, libc::CLONE_VM | libc::SIGCHLD, arg);
            if init == -1 {
                return Err(io::Error::last_os_error());
            }
            libc::close(handover.status.1);
            libc::close(handover.ready.1);
            // The standard library's error pipe is among these: the spawn in arena returns.
            close_all_but(&[handover.status.0, handover.ready.0, self.lifeline, self.startup]);
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
            relay_bot(init, handover.status.0, self.lifeline)
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
            for ruleset in self.rulesets.iter().flatten() {
                check(libc::syscall(libc::SYS_landlock_restrict_self, *ruleset, 0) as libc::c_int)?;
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

/// The relay, once the bot's program runs: closes everything but its status pipe and the
/// lifeline, and ends as the bot ended.
///
/// # Safety
///
/// Only in the relay process.
unsafe fn relay_bot(init: libc::pid_t, status_r: RawFd, lifeline: RawFd) -> ! {
    // SAFETY: the relay's own descriptors and signals.
    unsafe {
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
        // The bot needs its standard streams, the ready pipe and its rulesets; the init, the
        // status pipe. (The standard library's error pipe is among the others: the spawn in
        // arena returns.)
        let [a, b] = handover.plan.rulesets;
        close_all_but(&[0, 1, 2, status_w, ready_w, a.unwrap_or(0), b.unwrap_or(0)]);
        let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD;
        let bot = libc::clone(bot_main, handover.bot_stack, flags, arg);
        if bot == -1 {
            report_error(ready_w, io::Error::last_os_error());
            libc::_exit(126);
        }
        libc::close(ready_w);
        init(bot, status_w)
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
        let error = match (plan.confine_bot(handover.limits), &plan.image) {
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

/// The init's `SIGTERM` handler: passes the signal on to the whole namespace.
extern "C" fn pass_term_on(_: libc::c_int) {
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
    let mut sorted = [0 as RawFd; 8];
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
