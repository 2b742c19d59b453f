//! The spawner: a small process that starts sandboxed bots' relays, so that a bot's start does
//! not copy arena.
//!
//! A relay forked from arena copies arena's page tables, write-protects every page arena has
//! written (arena then copies each page it writes again, for as long as the relay lives: the
//! whole match) and unmaps the copy when the bot ends; a profile of back-to-back pairs put that
//! at about half of the sandbox's start and end. The spawner is arena's own program started
//! afresh once (`posix_spawn` of `/proc/self/exe`, taken over before `main` by [`HOOK`]), so its
//! memory is a few pages: arena sends it each relay's plan and descriptors over a socket
//! (`SCM_RIGHTS`), and it starts the relay with `CLONE_PARENT`, so the relay is arena's own
//! child, the leader of its own process group, exactly as the relay arena forks itself.
//! Everything after that is the same code (`child::Plan::run`).
//!
//! As root the relay does not even copy the spawner: it shares its memory (`clone(CLONE_VM)`, as
//! the init and the bot already shared the relay's), so no page table is copied, no page
//! written afterwards is copied again, and nothing is unmapped when the bot ends (about 0.2 ms
//! a bot; docs/security.md has the figures). The spawner then keeps each relay's plan and
//! stacks until the relay, its init and the bot's `exec` are done with them ([`Relays`]).
//! Another user's relays must each join their slot's user namespace, which the kernel lets only
//! a process that shares its memory with no other do: each slot therefore has a spawner of its
//! own (`ARENA_SANDBOX_SPAWNER=slot`), which joins the slot's user namespace at its start (arena's
//! first request carries it) and then serves as a root arena's spawner does, in that namespace:
//! its relays share its memory, copy its template of the view, and find its bounding set empty.
//! Where one cannot start, arena's spawner forks the slot's relays, each joining the namespace.
//!
//! The spawner dies with arena: it reads end of file on its socket, whose other end only arena
//! holds. It holds no descriptor of a bot after the start. Where it cannot start or answer,
//! arena forks the relay itself, as before.

#![allow(unsafe_code)]

use std::ffi::{CString, c_char, c_int};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::super::options::Rlimits;
use super::child::{BotUser, Image, Namespaces, Plan, Shared, Stacks, Tmpfs, View};
use super::fd_passing::{MAX_FDS, receive, send};

/// The environment variable that makes a fresh arena process the spawner (set to `1`).
const MARKER: &str = "ARENA_SANDBOX_SPAWNER";

/// The largest plan (program, arguments, environment, paths) a request carries; a larger one is
/// started the old way.
const MAX_REQUEST: usize = 256 * 1024;

/// Run by the C library before `main` in every program that links arena (arena, its tests and
/// benches): in the spawner, it serves and never returns.
#[used]
#[unsafe(link_section = ".init_array")]
static HOOK: extern "C" fn(c_int, *const *const c_char, *const *const c_char) = hook;

extern "C" fn hook(_argc: c_int, _argv: *const *const c_char, envp: *const *const c_char) {
    // SAFETY: `envp` is the null-terminated environment the C library passes its constructors.
    let spawner = unsafe {
        let mut var = envp;
        let mut found = None;
        while !var.is_null() && !(*var).is_null() {
            let entry = std::ffi::CStr::from_ptr(*var).to_bytes();
            // Only arena's own variable is compared, and without allocating, in every program
            // that links arena, before its `main`.
            let value = entry.strip_prefix(MARKER.as_bytes()).and_then(|v| v.strip_prefix(b"="));
            found = value.and_then(|value| {
                [(false, false), (true, false), (false, true), (true, true)]
                    .into_iter()
                    .find(|&kind| marker(kind).as_bytes() == value)
            });
            if found.is_some() {
                break;
            }
            var = var.add(1);
        }
        found
    };
    if let Some((in_slot, no_network)) = spawner {
        serve(in_slot, no_network);
    }
}

/// The value of [`MARKER`] for a spawner of a slot (`in_slot`), whose relays' bots all get the
/// slot filter (`no_network`).
fn marker((in_slot, no_network): (bool, bool)) -> &'static str {
    match (in_slot, no_network) {
        (false, false) => "1",
        (true, false) => "slot",
        (false, true) => "1-slot-filter",
        (true, true) => "slot-slot-filter",
    }
}

/// A spawner arena talks to: arena's, or an unprivileged arena's slot's.
pub(in crate::bot::external) struct Spawner {
    socket: Mutex<OwnedFd>,
    process: std::process::Child,
}

/// arena's spawner for bots with the slot filter (`no_network`: in their slot's network
/// namespace), or for those without; each started the first time one is needed.
fn spawner(no_network: bool) -> Option<&'static Spawner> {
    static SPAWNERS: [OnceLock<Option<Spawner>>; 2] = [OnceLock::new(), OnceLock::new()];
    SPAWNERS[usize::from(no_network)].get_or_init(|| Spawner::start(None, no_network)).as_ref()
}

impl Spawner {
    /// Starts a spawner: arena's, or (`userns`) the one of an unprivileged arena's slot, which
    /// first joins the slot's user namespace ([`serve`]); with `no_network`, one that installs
    /// the slot filter on itself and serves only bots that get it.
    fn start(userns: Option<RawFd>, no_network: bool) -> Option<Spawner> {
        // Keeps the hook in the program.
        std::hint::black_box(&HOOK);
        let (ours, theirs) = socket_pair().ok()?;
        let process = std::process::Command::new("/proc/self/exe")
            .env_clear()
            .env(MARKER, marker((userns.is_some(), no_network)))
            .stdin(std::process::Stdio::from(theirs))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            // Out of the terminal's signals: it ends when arena does, by end of file.
            .process_group(0)
            .spawn()
            .ok()?;
        let spawner = Spawner { socket: Mutex::new(ours), process };
        // A first request proves it serves (one shorter than any plan: it answers 0); a slot's
        // carries the user namespace it joins.
        let fds: Vec<RawFd> = userns.into_iter().collect();
        spawner.ask(b"?", &fds).ok().filter(|&answer| answer == 0)?;
        Some(spawner)
    }

    /// The spawner of an unprivileged arena's slot, in the slot's user namespace `userns`: its
    /// relays share its memory, as a root arena's share arena's spawner's (a relay that must
    /// join the user namespace itself cannot). `None`: it could not start; the slot's bots'
    /// relays are then forked by arena's spawner, as before.
    pub(super) fn in_slot(userns: RawFd, no_network: bool) -> Option<Spawner> {
        Spawner::start(Some(userns), no_network)
    }

    /// Sends a request, returns the spawner's answer.
    fn ask(&self, request: &[u8], fds: &[RawFd]) -> io::Result<i32> {
        let socket = self.socket.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the spawner's socket, descriptors the caller holds.
        unsafe { send(socket.as_raw_fd(), request, fds) }?;
        let mut answer = [0u8; 4];
        // SAFETY: a read into a local buffer.
        let n = unsafe { libc::recv(socket.as_raw_fd(), answer.as_mut_ptr().cast(), 4, 0) };
        if n != 4 {
            return Err(if n < 0 {
                io::Error::last_os_error()
            } else {
                io::ErrorKind::BrokenPipe.into()
            });
        }
        Ok(i32::from_ne_bytes(answer))
    }
}

impl Drop for Spawner {
    /// A slot's spawner ends with its slot: end of file on its socket, then it is reaped.
    fn drop(&mut self) {
        let socket = self.socket.get_mut().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: a shutdown of the socket this spawner holds.
        unsafe { libc::shutdown(socket.as_raw_fd(), libc::SHUT_RDWR) };
        let _ = self.process.wait();
    }
}

/// Starts the relay of `plan` through the spawner (`via`, else arena's): its standard streams
/// `stdio`, its working directory `cwd`. `Ok(None)`: no spawner (the caller forks the relay
/// itself); `Ok(Some(pid))`: the relay runs and has started the init; an error: it could not (it
/// is reaped).
pub(in crate::bot::external) fn start_relay(
    plan: &Plan,
    limits: &Rlimits,
    stdio: [RawFd; 3],
    cwd: &std::path::Path,
    via: Option<&Spawner>,
) -> io::Result<Option<libc::pid_t>> {
    let via = match via {
        Some(slot) => Some(slot),
        None => spawner(plan.no_network.is_some()).or_else(|| spawner(false)),
    };
    let Some(spawner) = via else { return Ok(None) };
    let (started_r, started_w) = pipe()?;
    let mut wire = Wire::default();
    for fd in stdio {
        wire.fd(Some(fd));
    }
    wire.fd(Some(started_w.as_raw_fd()));
    wire.bytes(cwd.as_os_str().as_encoded_bytes());
    if !encode(plan, limits, &mut wire)
        || wire.bytes.len() > MAX_REQUEST
        || wire.fds.len() > MAX_FDS
    {
        return Ok(None);
    }
    let pid = match spawner.ask(&wire.bytes, &wire.fds) {
        Ok(pid) if pid > 0 => pid,
        Ok(errno) if errno < 0 => return Err(io::Error::from_raw_os_error(-errno)),
        _ => return Ok(None),
    };
    drop(started_w);
    // End of file: the init runs. An error number: the relay could not set up, and exits.
    let mut errno = [0u8; 4];
    let mut file = std::fs::File::from(started_r);
    match io::Read::read(&mut file, &mut errno) {
        Ok(4) => {
            let mut status = 0;
            // SAFETY: waiting for arena's own child, the relay that failed.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno)))
        }
        _ => Ok(Some(pid)),
    }
}

/// A request being written: bytes, and descriptors referred to by their index.
#[derive(Default)]
struct Wire {
    bytes: Vec<u8>,
    fds: Vec<RawFd>,
}

impl Wire {
    fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_ne_bytes());
    }
    fn opt(&mut self, v: Option<u64>) {
        self.u64(u64::from(v.is_some()));
        self.u64(v.unwrap_or(0));
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.bytes.extend_from_slice(b);
    }
    fn fd(&mut self, fd: Option<RawFd>) {
        let index = fd.map(|fd| {
            self.fds.push(fd);
            self.fds.len() as u64
        });
        self.u64(index.unwrap_or(0));
    }
}

/// Writes `plan` and `limits` to `wire`; `false` if it cannot say them (no image, no namespaces).
fn encode(plan: &Plan, limits: &Rlimits, wire: &mut Wire) -> bool {
    let (Some(namespaces), Some(image)) = (&plan.namespaces, &plan.image) else { return false };
    wire.u64(namespaces.unshare as u32 as u64);
    wire.fd(namespaces.join_userns);
    wire.fd(namespaces.join_netns);
    wire.fd(Some(plan.lifeline));
    wire.fd(Some(plan.startup));
    wire.u64(plan.cgroup_tasks.len() as u64);
    for &fd in &plan.cgroup_tasks {
        wire.fd(Some(fd));
    }
    wire.fd(plan.ruleset);
    wire.fd(plan.oom_event);
    wire.fd(plan.control);
    wire.fd(plan.pause_ack);
    wire.fd(plan.tmpfs_report);
    wire.u64(plan.proc_access);
    wire.u64(u64::from(plan.no_network.is_some()));
    wire.opt(plan.max_processes);
    wire.u64(u64::from(plan.drop_capabilities));
    wire.u64(u64::from(plan.root));
    let (program, args, vars) = image.strings();
    wire.bytes(program.as_bytes());
    for list in [args, vars] {
        wire.u64(list.len() as u64);
        for s in list {
            wire.bytes(s.as_bytes());
        }
    }
    wire.u64(u64::from(plan.view.is_some()));
    if let Some(view) = &plan.view {
        wire.bytes(view.private.as_bytes());
        wire.bytes(view.at.as_bytes());
        wire.bytes(view.cwd.as_bytes());
        wire.u64(u64::from(view.hide_cgroups));
        wire.u64(view.keep.len() as u64);
        for (entry, mount_point) in &view.keep {
            wire.bytes(entry.as_bytes());
            wire.bytes(mount_point.as_bytes());
        }
        wire.u64(u64::from(view.tmpfs.is_some()));
        if let Some(tmpfs) = &view.tmpfs {
            wire.bytes(tmpfs.options.as_bytes());
            wire.u64(tmpfs.access);
            wire.u64(tmpfs.make.len() as u64);
            for (path, folder) in &tmpfs.make {
                wire.bytes(path.as_bytes());
                wire.u64(u64::from(*folder));
            }
        }
    }
    wire.u64(u64::from(plan.user.is_some()));
    if let Some(user) = &plan.user {
        wire.u64(u64::from(user.uid));
        wire.u64(u64::from(user.gid));
        wire.u64(u64::from(user.read_search));
    }
    for v in limits.to_wire() {
        wire.u64(v);
    }
    true
}

/// A request being read.
struct Reader<'a> {
    bytes: &'a [u8],
    fds: &'a [RawFd],
}

impl Reader<'_> {
    fn u64(&mut self) -> Option<u64> {
        let (head, rest) = self.bytes.split_first_chunk::<8>()?;
        self.bytes = rest;
        Some(u64::from_ne_bytes(*head))
    }
    fn opt(&mut self) -> Option<Option<u64>> {
        let (some, v) = (self.u64()?, self.u64()?);
        Some((some != 0).then_some(v))
    }
    fn flag(&mut self) -> Option<bool> {
        Some(self.u64()? != 0)
    }
    fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = usize::try_from(self.u64()?).ok()?;
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head.to_vec())
    }
    fn c(&mut self) -> Option<CString> {
        CString::new(self.bytes()?).ok()
    }
    fn fd(&mut self) -> Option<Option<RawFd>> {
        match usize::try_from(self.u64()?).ok()? {
            0 => Some(None),
            k => Some(Some(*self.fds.get(k - 1)?)),
        }
    }
    fn strings(&mut self) -> Option<Vec<CString>> {
        let n = self.u64()?;
        (0..n).map(|_| self.c()).collect()
    }
}

/// What the relay needs besides its plan.
struct Start {
    stdio: [RawFd; 3],
    started: RawFd,
    cwd: CString,
}

/// `seccomp`: the filter the bot installs (none when the spawner's own is inherited);
/// `filters_network`: the spawner has the slot filter installed on itself, so every bot it
/// serves inherits it (and a plan without it is refused: its bot would get it all the same).
fn decode(
    r: &mut Reader<'_>,
    seccomp: Option<&'static seccompiler::BpfProgram>,
    filters_network: bool,
) -> Option<(Start, Plan, Rlimits)> {
    let stdio = [r.fd()??, r.fd()??, r.fd()??];
    let started = r.fd()??;
    let cwd = r.c()?;
    let unshare = r.u64()? as u32 as c_int;
    let (join_userns, join_netns) = (r.fd()?, r.fd()?);
    let lifeline = r.fd()??;
    let startup = r.fd()??;
    let n = r.u64()?;
    let cgroup_tasks = (0..n).map(|_| r.fd()?).collect::<Option<Vec<_>>>()?;
    let (ruleset, oom_event, control, pause_ack) = (r.fd()?, r.fd()?, r.fd()?, r.fd()?);
    let tmpfs_report = r.fd()?;
    let proc_access = r.u64()?;
    // Built here, in the spawner, before the relay that reads it is started.
    let no_network = match (r.flag()?, filters_network) {
        (true, true) => None,
        (true, false) => Some(super::seccomp::no_network_program().ok()?),
        (false, true) => return None,
        (false, false) => None,
    };
    let max_processes = r.opt()?;
    let (drop_capabilities, root) = (r.flag()?, r.flag()?);
    let program = r.c()?;
    let (args, vars) = (r.strings()?, r.strings()?);
    let image = Image::from_strings(program, args, vars);
    let view = if r.flag()? {
        let (private, at, cwd, hide_cgroups) = (r.c()?, r.c()?, r.c()?, r.flag()?);
        let n = r.u64()?;
        let keep = (0..n).map(|_| Some((r.c()?, r.c()?))).collect::<Option<Vec<_>>>()?;
        let tmpfs = if r.flag()? {
            let (options, access, n) = (r.c()?, r.u64()?, r.u64()?);
            let make = (0..n).map(|_| Some((r.c()?, r.flag()?))).collect::<Option<Vec<_>>>()?;
            Some(Tmpfs { options, access, make })
        } else {
            None
        };
        Some(View { private, at, cwd, hide_cgroups, keep, tmpfs, from_template: false })
    } else {
        None
    };
    let user = if r.flag()? {
        let uid = u32::try_from(r.u64()?).ok()?;
        let gid = u32::try_from(r.u64()?).ok()?;
        Some(BotUser { uid, gid, read_search: r.flag()? })
    } else {
        None
    };
    let mut limits = [0; Rlimits::WIRE];
    for v in &mut limits {
        *v = r.u64()?;
    }
    let plan = Plan {
        namespaces: Some(Namespaces { unshare, join_userns, join_netns }),
        lifeline,
        startup,
        cgroup_tasks,
        ruleset,
        oom_event,
        control,
        pause_ack,
        tmpfs_report,
        proc_access,
        seccomp,
        no_network,
        max_processes,
        drop_capabilities,
        root,
        image: Some(Arc::new(image)),
        view,
        user,
        shared: None,
        bounding_set_emptied: false,
        signals_default: false,
    };
    Some((Start { stdio, started, cwd }, plan, Rlimits::from_wire(limits)))
}

/// The spawner's life: one request at a time, until arena closes the socket (fd 0).
fn serve(in_slot: bool, no_network: bool) -> ! {
    let socket: RawFd = 0;
    // Nothing arena left open without close-on-exec (a descriptor its own parent gave it) stays
    // in the spawner, or in the relays it forks, for arena's whole run.
    // SAFETY: closing this process's own descriptors above its standard streams.
    unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
    // Nothing arena ignores or blocks, nor the two signals `posix_spawn` left ignored, reaches a
    // bot: set once here for every relay, init and bot this process starts.
    // SAFETY: this single-threaded process's own dispositions, before it starts anything.
    unsafe { super::child::default_signals() };
    // A slot's spawner joins the slot's user namespace first (arena's first request carries
    // it), where it has every capability: it then serves as a root arena's spawner does, its
    // relays sharing its memory, in the view's template it makes, its bounding set emptied
    // once. (Its relays' plans name the user namespace too: they are in it already.)
    // SAFETY: geteuid has no precondition.
    let privileged = unsafe { libc::geteuid() } == 0 || (in_slot && join_slot(socket));
    // As root, or in a slot's user namespace, the relays share this process's memory
    // (`Relays::start`), and so whether it is dumpable: not, as each relay made itself (its
    // memory and environment are root's, or arena's user's). (Not arena's spawner of another
    // user: its relays join their slot's user namespace, which the kernel lets only a process
    // that shares its memory with no other do.) They share its OOM score too: arena's, which
    // it keeps (each bot raises its own).
    // The part of the bots' view that is the same for all of them is made once here; the relays
    // inherit this mount namespace, whose `/proc` is then read-only.
    let hide_cgroups = super::child::hides_cgroups();
    // A slot's spawner serves one bot at a time: its relays and inits share the bot's highest
    // OOM score (before the template, whose `/proc` is read-only).
    if in_slot {
        // SAFETY: a write to this process's own attribute.
        let _ = unsafe { super::child::write_file(c"/proc/self/oom_score_adj", b"1000") };
    }
    // SAFETY: this process's own attribute.
    let shares = privileged && unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } == 0;
    // SAFETY: this process's own mount namespace, single-threaded.
    let template = privileged && unsafe { View::make_template(hide_cgroups).is_ok() };
    let program = super::seccomp::program().ok();
    // The spawner installs the bots' filter on itself, once (with `PR_SET_NO_NEW_PRIVS`, which
    // every bot sets anyway): every relay, init and bot inherits it, and no bot pays for the
    // kernel's compiling it (about 0.1 ms). Nothing the spawner, a relay or an init does is
    // refused by it: a relay creates no user namespace (an unprivileged arena's joins its
    // slot's, with `setns`, which the filter allows).
    let inherited = program.is_some_and(|p| seccompiler::apply_filter(p).is_ok());
    let seccomp = if inherited { None } else { program };
    // The same for the slot filter, in a spawner that serves only bots that get it (arena has
    // one spawner for those and one for the others): installing it cost each bot about 0.12 ms
    // (the kernel converts, checks and compiles it, then runs it for every system call number
    // to fill its cache), measured in a profile of bots started 20 ms apart. It refuses no
    // system call the spawner, a relay or an init makes (no IP or netlink socket, no `bind`,
    // no `SO_PASSCRED`). Where it cannot be installed, the spawner does not serve: arena then
    // uses its other spawner, where each bot installs it, as before.
    if no_network {
        let installed = inherited
            && super::seccomp::no_network_program()
                .is_ok_and(|p| seccompiler::apply_filter(p).is_ok());
        if !installed {
            // SAFETY: ending this process before it served anything.
            unsafe { libc::_exit(0) }
        }
    }
    // One IPC namespace for all the bots this spawner starts, made once, in place of one per
    // bot (whose making and freeing, with its message-queue superblock, cost about 0.2 ms of CPU
    // a bot): the filter every one of them inherits refuses every System V and message-queue
    // call, so no bot can put anything in it for another to find, and it hides the machine's
    // objects as a bot's own did. Without the inherited filter each bot keeps its own.
    // SAFETY: this single-threaded process's own namespace.
    let shares_ipc = privileged && inherited && unsafe { libc::unshare(libc::CLONE_NEWIPC) } == 0;
    // A failure leaves each bot to read and drop them all.
    let bounding_set_emptied = privileged && super::child::empty_spawner_bounding_set().is_ok();
    let mut buf = vec![0u8; MAX_REQUEST];
    let mut relays = Relays::default();
    loop {
        relays.wait_for_request(socket);
        let mut fds = [-1 as RawFd; MAX_FDS];
        let (n, nfds) = match receive(socket, &mut buf, &mut fds) {
            Ok((0, _)) | Err(_) => {
                // SAFETY: ending this process.
                unsafe { libc::_exit(0) }
            }
            Ok(got) => got,
        };
        let fds = &fds[..nfds];
        // Shorter than any plan: a question whether it serves (or a message cut short).
        let answer = if n < 8 {
            0
        } else {
            let mut reader = Reader { bytes: &buf[..n], fds };
            match decode(&mut reader, seccomp, no_network) {
                Some((start, mut plan, limits)) => {
                    if let Some(namespaces) = &mut plan.namespaces {
                        if in_slot {
                            namespaces.join_userns = None;
                        }
                        if shares_ipc {
                            namespaces.unshare &= !libc::CLONE_NEWIPC;
                        }
                    }
                    if let Some(view) = &mut plan.view {
                        view.from_template = template && view.hide_cgroups == hide_cgroups;
                    }
                    plan.bounding_set_emptied = bounding_set_emptied;
                    plan.signals_default = true;
                    if shares {
                        relays.start(Box::new(Request { start, plan, limits }))
                    } else {
                        fork_relay(&start, &plan, &limits)
                    }
                }
                None => -libc::EINVAL,
            }
        };
        for &fd in fds {
            // SAFETY: descriptors this process received and no longer needs.
            unsafe { libc::close(fd) };
        }
        // SAFETY: a write of a local integer.
        unsafe { libc::send(socket, (&raw const answer).cast(), 4, libc::MSG_NOSIGNAL) };
    }
}

/// A slot's spawner's start: reads arena's first request, which carries the slot's user
/// namespace, joins it and answers 0 (or an error number, and ends). `true`: joined.
fn join_slot(socket: RawFd) -> bool {
    let mut buf = [0u8; 8];
    let mut fds = [-1 as RawFd; MAX_FDS];
    let joined = match receive(socket, &mut buf, &mut fds) {
        // SAFETY: a descriptor this process received; this single-threaded process's own
        // namespace.
        Ok((n, 1)) if n > 0 => (unsafe { libc::setns(fds[0], libc::CLONE_NEWUSER) }) == 0,
        _ => false,
    };
    for &fd in fds.iter().filter(|&&fd| fd >= 0) {
        // SAFETY: descriptors this process received and no longer needs.
        unsafe { libc::close(fd) };
    }
    let answer: i32 = if joined { 0 } else { -libc::EPERM };
    // SAFETY: a write of a local integer; then, unjoined, the end of this process.
    unsafe {
        libc::send(socket, (&raw const answer).cast(), 4, libc::MSG_NOSIGNAL);
        if !joined {
            libc::_exit(0);
        }
    }
    true
}

/// A relay's plan, kept by the spawner while the relay shares its memory.
struct Request {
    start: Start,
    plan: Plan,
    limits: Rlimits,
}

/// The relays that share the spawner's memory (as root), with what they read of it: their
/// plans and their stacks, kept until their `gone` pipe reads end of file (the relay and its
/// init have exited, the bot has run its `exec`); their stacks then serve the next relays.
#[derive(Default)]
struct Relays {
    running: Vec<(OwnedFd, Box<Request>, Stacks)>,
    spare: Vec<Stacks>,
}

impl Relays {
    /// Waits until arena sends a request (or closes the socket), meanwhile taking back what the
    /// relays that are gone no longer read.
    fn wait_for_request(&mut self, socket: RawFd) {
        loop {
            let mut fds: Vec<libc::pollfd> = std::iter::once(socket)
                .chain(self.running.iter().map(|(gone, ..)| gone.as_raw_fd()))
                .map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 })
                .collect();
            // SAFETY: a poll of descriptors this process holds.
            if unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) } < 0 {
                return;
            }
            // From the end, so that `swap_remove` moves only entries already looked at.
            for k in (0..self.running.len()).rev() {
                if fds[k + 1].revents != 0 {
                    let (_, _, stacks) = self.running.swap_remove(k);
                    self.spare.push(stacks);
                }
            }
            if fds[0].revents != 0 {
                return;
            }
        }
    }

    /// Starts the relay of `request` sharing this process's memory, as arena's child; its pid,
    /// or minus an error number.
    fn start(&mut self, mut request: Box<Request>) -> i32 {
        let error = |e: io::Error| -e.raw_os_error().unwrap_or(libc::EAGAIN);
        let stacks = match self.spare.pop().map_or_else(Stacks::new, Ok) {
            Ok(stacks) => stacks,
            Err(e) => return error(e),
        };
        let (gone_r, gone_w) = match pipe() {
            Ok(ends) => ends,
            Err(e) => {
                self.spare.push(stacks);
                return error(e);
            }
        };
        request.plan.shared = Some(Shared {
            init_stack: stacks.top(Stacks::INIT),
            bot_stack: stacks.top(Stacks::BOT),
            gone: gone_w.as_raw_fd(),
        });
        let arg = (&raw const *request).cast_mut().cast();
        let flags = libc::CLONE_VM | libc::CLONE_PARENT | libc::SIGCHLD;
        // SAFETY: the relay runs on a stack of its own and reads the request, which is kept
        // until it is gone; it only makes system calls (no allocation, no lock).
        let pid = unsafe {
            libc::clone(relay_main, stacks.top(Stacks::RELAY) as *mut libc::c_void, flags, arg)
        };
        drop(gone_w);
        if pid == -1 {
            self.spare.push(stacks);
            return error(io::Error::last_os_error());
        }
        self.running.push((gone_r, request, stacks));
        pid
    }
}

/// The entry point of a relay that shares the spawner's memory.
extern "C" fn relay_main(arg: *mut libc::c_void) -> c_int {
    // SAFETY: `arg` is the spawner's `Request`, kept until this relay and its init are gone.
    let request = unsafe { &*arg.cast::<Request>() };
    // SAFETY: in the child `Relays::start` made.
    unsafe { relay(&request.start, &request.plan, &request.limits) }
}

/// Forks the relay as arena's child; its pid, or minus an error number.
fn fork_relay(start: &Start, plan: &Plan, limits: &Rlimits) -> i32 {
    // SAFETY: a fork of this single-threaded process; the child only runs the relay.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone,
            (libc::CLONE_PARENT | libc::SIGCHLD) as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    };
    match pid {
        -1 => -io::Error::last_os_error().raw_os_error().unwrap_or(libc::EAGAIN),
        0 => {
            // SAFETY: in the relay.
            unsafe { relay(start, plan, limits) }
        }
        pid => pid as i32,
    }
}

/// The relay, in the spawner's child: what `std::process::Command` does in arena's (standard
/// streams, process group, working directory), then the same plan.
///
/// # Safety
///
/// In the child `fork_relay` made.
unsafe fn relay(start: &Start, plan: &Plan, limits: &Rlimits) -> ! {
    // SAFETY: this process's own descriptors, group and directory.
    let result = unsafe {
        let streams = start
            .stdio
            .iter()
            .enumerate()
            .all(|(to, &fd)| libc::dup2(fd, to as c_int) == to as c_int);
        if streams && libc::setpgid(0, 0) == 0 && libc::chdir(start.cwd.as_ptr()) == 0 {
            plan.run(limits)
        } else {
            Err(io::Error::last_os_error())
        }
    };
    let errno: i32 = result.err().and_then(|e| e.raw_os_error()).unwrap_or(libc::EINVAL);
    // SAFETY: a write of a local integer, then the end of this process.
    unsafe {
        libc::write(start.started, (&raw const errno).cast(), 4);
        libc::_exit(127)
    }
}

/// A pair of connected `SOCK_SEQPACKET` unix sockets, close-on-exec.
pub(super) fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: a two-element array for socketpair.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: two fresh descriptors this process owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A pipe, both ends close-on-exec.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_program_run_afresh_becomes_the_spawner_and_answers() {
        // The hook is in every program that links arena, this test binary included: were it
        // not, the program would run its own `main` and never answer.
        for no_network in [false, true] {
            let spawner =
                spawner(no_network).expect("the spawner starts and answers its first question");
            assert_eq!(spawner.ask(b"?", &[]).unwrap(), 0);
        }
    }

    #[test]
    fn a_plan_crosses_the_socket_whole() {
        let c = |s: &str| CString::new(s).unwrap();
        let image = Image::from_strings(
            c("/usr/bin/python3"),
            vec![c("python3"), c("bot.py")],
            vec![c("ARENA_SEED=7"), c("TMPDIR=/tmp")],
        );
        let plan = Plan {
            namespaces: Some(Namespaces {
                unshare: libc::CLONE_NEWPID | libc::CLONE_NEWNS,
                join_userns: Some(39),
                join_netns: Some(40),
            }),
            lifeline: 41,
            startup: 42,
            cgroup_tasks: vec![43, 44],
            ruleset: Some(45),
            oom_event: None,
            control: Some(46),
            pause_ack: Some(47),
            tmpfs_report: Some(48),
            proc_access: 0x1234,
            seccomp: None,
            no_network: super::super::seccomp::no_network_program().ok(),
            max_processes: Some(66),
            drop_capabilities: true,
            root: false,
            image: Some(Arc::new(image)),
            view: Some(View {
                private: c("/tmp/arena-bot-1"),
                at: c("/tmp"),
                cwd: c("/tmp"),
                hide_cgroups: true,
                keep: vec![(c("/tmp/t/bot.py"), c("/tmp/arena-bot-1/t/bot.py"))],
                tmpfs: Some(Tmpfs {
                    options: c("size=1048576,mode=700,uid=60001,gid=60001"),
                    access: 0xabcd,
                    make: vec![(c("/tmp/t"), true), (c("/tmp/t/bot.py"), false)],
                }),
                from_template: false,
            }),
            user: Some(BotUser { uid: 60001, gid: 60001, read_search: true }),
            shared: None,
            bounding_set_emptied: false,
            signals_default: false,
        };
        let limits = Rlimits::from_wire([1, 1 << 30, 1, 5, 0, 0, 0, 0]);
        // What arena sends: the start's descriptors and folder, then the plan.
        let wire_of = |plan: &Plan| {
            let mut wire = Wire::default();
            for fd in [10, 11, 12, 13] {
                wire.fd(Some(fd));
            }
            wire.bytes(b"/tmp");
            assert!(encode(plan, &limits, &mut wire));
            wire
        };
        let wire = wire_of(&plan);
        // The receiver's numbers for the same descriptors differ: each is found by its place.
        let theirs: Vec<RawFd> = wire.fds.iter().map(|fd| fd + 100).collect();
        let mut reader = Reader { bytes: &wire.bytes, fds: &theirs };
        // A spawner with the slot filter installed: its relays' bots inherit it, none installs
        // it again; a plan without it is not its to start.
        let mut inherits = Reader { bytes: &wire.bytes, fds: &theirs };
        let (_, inheriting, _) = decode(&mut inherits, None, true).expect("a whole plan");
        assert!(inheriting.no_network.is_none(), "the bot installs no second copy");
        let without = wire_of(&Plan { no_network: None, ..plan.clone() });
        let mut refused = Reader { bytes: &without.bytes, fds: &theirs };
        assert!(decode(&mut refused, None, true).is_none(), "a plan without the filter");
        let (start, got, got_limits) = decode(&mut reader, None, false).expect("a whole plan");
        assert!(reader.bytes.is_empty(), "nothing left over");
        assert_eq!((start.stdio, start.started, start.cwd), ([110, 111, 112], 113, c("/tmp")));
        let ns = got.namespaces.unwrap();
        assert_eq!(
            (ns.unshare, ns.join_userns, ns.join_netns),
            (libc::CLONE_NEWPID | libc::CLONE_NEWNS, Some(139), Some(140))
        );
        assert_eq!((got.lifeline, got.startup, got.cgroup_tasks), (141, 142, vec![143, 144]));
        assert_eq!(
            (got.ruleset, got.oom_event, got.control, got.pause_ack),
            (Some(145), None, Some(146), Some(147))
        );
        assert_eq!(got.tmpfs_report, Some(148));
        assert_eq!((got.proc_access, got.max_processes), (0x1234, Some(66)));
        assert_eq!(got.no_network.is_some(), plan.no_network.is_some());
        assert_eq!((got.drop_capabilities, got.root), (true, false));
        let image = got.image.unwrap();
        let (program, args, vars) = image.strings();
        assert_eq!(program, &c("/usr/bin/python3"));
        assert_eq!(args, [c("python3"), c("bot.py")]);
        assert_eq!(vars, [c("ARENA_SEED=7"), c("TMPDIR=/tmp")]);
        let view = got.view.unwrap();
        assert_eq!(
            (view.private, view.at, view.cwd),
            (c("/tmp/arena-bot-1"), c("/tmp"), c("/tmp"))
        );
        assert!(view.hide_cgroups);
        assert_eq!(view.keep, vec![(c("/tmp/t/bot.py"), c("/tmp/arena-bot-1/t/bot.py"))]);
        let tmpfs = view.tmpfs.unwrap();
        assert_eq!(
            (tmpfs.options, tmpfs.access),
            (c("size=1048576,mode=700,uid=60001,gid=60001"), 0xabcd)
        );
        assert_eq!(tmpfs.make, vec![(c("/tmp/t"), true), (c("/tmp/t/bot.py"), false)]);
        let user = got.user.unwrap();
        assert_eq!((user.uid, user.gid, user.read_search), (60001, 60001, true));
        assert_eq!(got_limits.to_wire(), limits.to_wire());
        // Cut short anywhere, it is refused rather than half read.
        for cut in [0, 8, wire.bytes.len() / 2, wire.bytes.len() - 1] {
            let mut reader = Reader { bytes: &wire.bytes[..cut], fds: &theirs };
            assert!(decode(&mut reader, None, false).is_none(), "cut at {cut}");
        }
    }
}
