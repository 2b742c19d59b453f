//! The seccomp filter for what Landlock and the namespaces leave open, built once per process and
//! installed by each bot just before its program starts. `seccompiler` builds it as three
//! filters, as each gives its calls one answer, which are then chained into one program (the
//! kernel checks, converts and compiles each filter a process installs, and runs each one on
//! every system call: one program costs a bot about a third of what three did at its start):
//!
//! - refused with `EPERM`:
//!   - `socket` of any family but IPv4, IPv6 and netlink (which the bot's network namespace
//!     keeps to itself): `AF_UNIX`, because Landlock (up to ABI 7) does not control connecting
//!     to a unix socket by its path, and through one a bot could ask a service outside the
//!     sandbox to act for it (systemd's and D-Bus's sockets run commands, Docker's starts
//!     containers); `AF_VSOCK`, which reaches the host of a virtual machine and every other
//!     machine on it; and the rest (`socketpair`, the unnamed pair programs use among their own
//!     processes, stays);
//!   - `unshare` and `clone` with `CLONE_NEWUSER`: a nested user namespace would give the bot
//!     every capability inside it, and the kernel's less travelled code behind them;
//!   - `io_uring_setup`: io_uring opens and connects sockets without the calls the filter sees;
//!   - `keyctl`, `add_key`, `request_key`: the kernel keyrings of the session arena runs in;
//!   - `fcntl(F_SETLEASE)`, `fcntl(F_NOTIFY)`, `inotify_add_watch`, `fanotify_init`: being told
//!     when another process opens or changes a file both bots may read is a channel between
//!     them;
//!   - `perf_event_open`: the machine's performance counters;
//!   - System V IPC (`shmget`, `shmat`, `shmdt`, `shmctl`, `semget`, `semop`, `semtimedop`,
//!     `semctl`, `msgget`, `msgsnd`, `msgrcv`, `msgctl`) and POSIX message queues (`mq_open`,
//!     `mq_unlink`, `mq_timedsend`, `mq_timedreceive`, `mq_notify`, `mq_getsetattr`): objects
//!     named by a number or a name anyone may guess, which outlive their maker. With them
//!     refused, the bots of a spawner share one IPC namespace it made once (empty, and kept
//!     so), instead of each bot making and freeing one of its own, which cost about 0.2 ms of
//!     CPU a bot (docs/security.md). No language runtime arena runs needs them (POSIX shared
//!     memory and semaphores are files and futexes, not these calls);
//! - pretended, answering 0 without doing anything: `flock` and the `fcntl` lock commands. A
//!   lock on a file two bots may read (`/etc/hostname`) is a channel between them; no bot
//!   holds one, so none waits for another's (a single program, which is what a bot is, never
//!   waits for itself);
//! - answered `ENOSYS`: `clone3`, whose flags sit in memory a filter cannot read; the C
//!   library then uses `clone`, whose flags it can.
//!
//! A system call of another architecture (32-bit calls from a 64-bit bot) kills the bot: the
//! filters only know the native numbers (and, on x86-64, the x32 ones, which they refuse too).
//!
//! A bot in a network namespace (its slot's, which the slot's next bots join) gets a second,
//! small filter ([`no_network_program`]; installed once by the spawner that starts such bots,
//! which they inherit, else by the bot), as what it makes there can outlive it:
//! - `socket` of IPv4, IPv6 and netlink refused with `EPERM`. With its loopback down an IP
//!   socket reaches nothing, but each datagram it sends bumps the namespace's counters
//!   (`OutNoRoutes` in `/proc/net/snmp`), which the slot's next bot reads;
//! - `bind` refused, and `setsockopt` of `SO_PASSCRED` and `SO_PASSPIDFD` (with which a unix
//!   socket that sends or connects takes a name of the kernel's choosing): a socket lives
//!   while a descriptor of it does, and one sent (`SCM_RIGHTS`) into its own pair's queue
//!   outlives every process of the bot until the kernel's unix garbage collector frees it
//!   (seconds later, measured); named (an abstract unix name, a netlink port), it is seen by
//!   the slot's next bot, which could not bind that name. With IP and netlink refused, `bind`
//!   only served such names.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The program to install (the filters chained into one), or why this machine cannot have it.
pub(super) fn program() -> Result<&'static BpfProgram, &'static str> {
    static PROGRAM: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    PROGRAM.get_or_init(|| chain(build()?)).as_ref().map_err(String::as_str)
}

/// The filter a bot in a network namespace adds to [`program`]: no IPv4, IPv6 or netlink socket,
/// no `bind`, no `SO_PASSCRED` or `SO_PASSPIDFD`: nothing named in the namespace.
pub(super) fn no_network_program() -> Result<&'static BpfProgram, &'static str> {
    static PROGRAM: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            let arch = arch()?;
            let mut rules = Rules::new();
            let equal = |arg, value: libc::c_int| {
                SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value as u64)
                    .map_err(|e| e.to_string())
            };
            let rule = |conditions| SeccompRule::new(conditions).map_err(|e| e.to_string());
            let families = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];
            let when =
                families.map(|f| rule(vec![equal(0, f)?])).into_iter().collect::<Result<_, _>>()?;
            add(&mut rules, arch, libc::SYS_socket, when);
            add(&mut rules, arch, libc::SYS_bind, Vec::new());
            let when = [libc::SO_PASSCRED, SO_PASSPIDFD]
                .map(|option| rule(vec![equal(1, libc::SOL_SOCKET)?, equal(2, option)?]))
                .into_iter()
                .collect::<Result<_, _>>()?;
            add(&mut rules, arch, libc::SYS_setsockopt, when);
            let errno = SeccompAction::Errno(libc::EPERM as u32);
            let filter = SeccompFilter::new(rules, SeccompAction::Allow, errno, arch)
                .map_err(|e| e.to_string())?;
            BpfProgram::try_from(filter).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(String::as_str)
}

/// The System V IPC and POSIX message-queue calls, all refused: a bot has no IPC object at all,
/// so its spawner's one IPC namespace stays empty for every bot it starts.
pub(super) const SYSTEM_V_AND_MESSAGE_QUEUES: [libc::c_long; 18] = [
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmdt,
    libc::SYS_shmctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
];

/// `SO_PASSPIDFD` (Linux 6.5), which the `libc` crate may not name on every target.
const SO_PASSPIDFD: libc::c_int = 76;

/// `BPF_RET | BPF_K`: return the constant.
const RETURN: u16 = 0x06;
/// `BPF_JMP | BPF_JA`: jump forward by the constant.
const JUMP: u16 = 0x05;
/// The longest program the kernel takes (`BPF_MAXINSNS`).
const MAX_INSTRUCTIONS: usize = 4096;

/// One program that answers as the filters installed one after another would, given that no
/// system call matches two of them (what one filter does not answer, it allows): each filter's
/// "allow" becomes a jump to the next filter's first instruction, and the last one's stays.
fn chain(filters: Vec<BpfProgram>) -> Result<BpfProgram, String> {
    let allow: u32 = SeccompAction::Allow.into();
    let count = filters.len();
    let mut program = Vec::with_capacity(filters.iter().map(Vec::len).sum());
    for (k, filter) in filters.into_iter().enumerate() {
        let len = filter.len();
        for (i, mut instruction) in filter.into_iter().enumerate() {
            if k + 1 < count && instruction.code == RETURN && instruction.k == allow {
                // Classic BPF jumps forward only, from the next instruction on.
                instruction =
                    seccompiler::sock_filter { code: JUMP, jt: 0, jf: 0, k: (len - i - 1) as u32 };
            }
            program.push(instruction);
        }
    }
    if program.len() > MAX_INSTRUCTIONS {
        return Err(format!("a seccomp program of {} instructions", program.len()));
    }
    Ok(program)
}

/// Rules of one filter: system call, the conditions under which it matches (none: always).
type Rules = BTreeMap<i64, Vec<SeccompRule>>;

/// This machine's architecture for seccomp, if the kernel has seccomp.
fn arch() -> Result<TargetArch, String> {
    // SAFETY: PR_GET_SECCOMP only reads this thread's mode.
    #[allow(unsafe_code)]
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 {
        return Err("the kernel has no seccomp".into());
    }
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp filter for {}", std::env::consts::ARCH))
}

/// Adds `call` with `when` to `rules`, and the same call through the x32 ABI on x86-64.
fn add(rules: &mut Rules, arch: TargetArch, call: libc::c_long, when: Vec<SeccompRule>) {
    rules.insert(call, when.clone());
    if arch == TargetArch::x86_64 {
        rules.insert(call | 0x4000_0000, when);
    }
}

fn build() -> Result<Vec<BpfProgram>, String> {
    let arch = arch()?;
    let error = |e: seccompiler::BackendError| e.to_string();
    let dword = |arg, op, value: libc::c_int| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value as u64).map_err(error)
    };
    let rule = |conditions| SeccompRule::new(conditions).map_err(error);
    let add = |rules: &mut Rules, call: libc::c_long, when: Vec<SeccompRule>| {
        add(rules, arch, call, when);
    };
    let new_user = libc::CLONE_NEWUSER;
    let user_namespace =
        || rule(vec![dword(0, SeccompCmpOp::MaskedEq(new_user as u64), new_user)?]);
    let fcntl_of = |commands: &[libc::c_int]| -> Result<Vec<SeccompRule>, String> {
        commands.iter().map(|&c| rule(vec![dword(1, SeccompCmpOp::Eq, c)?])).collect()
    };

    let mut refused = Rules::new();
    let other_family = rule(vec![
        dword(0, SeccompCmpOp::Ne, libc::AF_INET)?,
        dword(0, SeccompCmpOp::Ne, libc::AF_INET6)?,
        dword(0, SeccompCmpOp::Ne, libc::AF_NETLINK)?,
    ])?;
    add(&mut refused, libc::SYS_socket, vec![other_family]);
    add(&mut refused, libc::SYS_unshare, vec![user_namespace()?]);
    add(&mut refused, libc::SYS_clone, vec![user_namespace()?]);
    add(&mut refused, libc::SYS_fcntl, fcntl_of(&[libc::F_SETLEASE, libc::F_NOTIFY])?);
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_inotify_add_watch,
        libc::SYS_fanotify_init,
        libc::SYS_perf_event_open,
    ]
    .into_iter()
    .chain(SYSTEM_V_AND_MESSAGE_QUEUES)
    {
        add(&mut refused, call, Vec::new());
    }

    let mut pretended = Rules::new();
    add(&mut pretended, libc::SYS_flock, Vec::new());
    let locks = [libc::F_SETLK, libc::F_SETLKW, libc::F_OFD_SETLK, libc::F_OFD_SETLKW];
    add(&mut pretended, libc::SYS_fcntl, fcntl_of(&locks)?);

    let mut missing = Rules::new();
    add(&mut missing, libc::SYS_clone3, Vec::new());

    [(refused, libc::EPERM as u32), (pretended, 0), (missing, libc::ENOSYS as u32)]
        .into_iter()
        .map(|(rules, errno)| {
            let filter =
                SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno), arch)
                    .map_err(error)?;
            BpfProgram::try_from(filter).map_err(error)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `calls` on a thread of its own under `program` (no new privileges first, as a
    /// relay does), so the test's other threads stay unfiltered.
    fn under_filter<T: Send + 'static>(
        program: &'static BpfProgram,
        calls: impl FnOnce() -> T + Send + 'static,
    ) -> T {
        std::thread::spawn(move || {
            // SAFETY: this thread's own attributes.
            #[allow(unsafe_code)]
            unsafe {
                assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
            }
            seccompiler::apply_filter(program).expect("installed");
            calls()
        })
        .join()
        .unwrap()
    }

    /// The error of a system call that returned `result`, if it failed.
    fn errno(result: impl Into<libc::c_long>) -> Option<i32> {
        if result.into() == -1 { std::io::Error::last_os_error().raw_os_error() } else { None }
    }

    /// The chained program, installed on a thread of its own, answers each of the three
    /// filters' calls with that filter's answer (a lock another process holds is pretended
    /// taken), and lets the rest through.
    #[test]
    fn the_chained_program_answers_each_filters_calls_as_that_filter_does() {
        let program = program().expect("seccomp on the test machine");
        let separate = build().unwrap();
        assert_eq!(program.len(), separate.iter().map(Vec::len).sum::<usize>());
        let allow: u32 = SeccompAction::Allow.into();
        let last = separate.last().unwrap().len();
        let returns_allow = |p: &[seccompiler::sock_filter]| {
            p.iter().filter(|i| i.code == RETURN && i.k == allow).count()
        };
        // Only the last filter's own "allow"s remain.
        assert_eq!(returns_allow(program), returns_allow(&program[program.len() - last..]));
        // Held here: a real lock on another open of the file fails (`EWOULDBLOCK`).
        let held = tempfile::NamedTempFile::new().unwrap();
        let file = std::fs::File::open(held.path()).unwrap();
        {
            use std::os::fd::AsRawFd;
            // SAFETY: locks on this test's own file.
            #[allow(unsafe_code)]
            unsafe {
                assert_eq!(libc::flock(held.as_file().as_raw_fd(), libc::LOCK_EX), 0);
                let unfiltered = libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB);
                assert_eq!(unfiltered, -1, "the lock is held");
            }
        }
        let answers = under_filter(program, move || {
            use std::os::fd::AsRawFd;
            // SAFETY: system calls whose results are only compared (the sockets opened are
            // closed, the lock is on a file of this test).
            #[allow(unsafe_code)]
            unsafe {
                let socket = |family| {
                    let fd = libc::socket(family, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
                    if fd >= 0 {
                        libc::close(fd);
                    }
                    errno(fd)
                };
                let flock = libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB);
                [
                    socket(libc::AF_UNIX),
                    socket(libc::AF_INET),
                    errno(flock),
                    errno(libc::syscall(libc::SYS_clone3, std::ptr::null::<u8>(), 0)),
                    errno(libc::syscall(libc::SYS_keyctl, 0, 0, 0, 0, 0)),
                    errno(libc::getpid()),
                ]
            }
        });
        assert_eq!(
            answers,
            [Some(libc::EPERM), None, None, Some(libc::ENOSYS), Some(libc::EPERM), None]
        );
    }

    /// Under the program every System V IPC and POSIX message-queue call is refused before the
    /// kernel looks at its arguments (`EPERM`, where unfiltered these arguments give other
    /// errors or succeed), so no bot makes an object in the IPC namespace its spawner's bots
    /// share; a queue made here unfiltered shows the calls work otherwise.
    #[test]
    fn the_program_refuses_every_system_v_and_message_queue_call() {
        // SAFETY: a private queue this test makes and removes.
        #[allow(unsafe_code)]
        let unfiltered = unsafe {
            let queue = libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600);
            if queue >= 0 {
                libc::msgctl(queue, libc::IPC_RMID, std::ptr::null_mut());
            }
            errno(queue)
        };
        assert_eq!(unfiltered, None, "a queue can be made unfiltered");
        let program = program().expect("seccomp on the test machine");
        let answers = under_filter(program, || {
            // SAFETY: each call's answer is only compared; refused, none does anything, and
            // allowed, none of these arguments names an object.
            #[allow(unsafe_code)]
            unsafe {
                let mut answers: Vec<Option<i32>> = SYSTEM_V_AND_MESSAGE_QUEUES
                    .iter()
                    .map(|&call| errno(libc::syscall(call, 0, 0, 0, 0, 0, 0)))
                    .collect();
                answers.push(errno(libc::msgget(libc::IPC_PRIVATE, libc::IPC_CREAT | 0o600)));
                answers.push(errno(libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600)));
                answers
            }
        });
        assert_eq!(answers, vec![Some(libc::EPERM); SYSTEM_V_AND_MESSAGE_QUEUES.len() + 2]);
    }

    /// Installed on a thread of its own, the slot's filter refuses what could name a socket in
    /// the slot's network namespace (an abstract unix name on a socketpair socket, a netlink
    /// port, the kernel's own name for a socket passing credentials) and lets socketpair be.
    #[test]
    fn the_slot_filter_leaves_no_way_to_name_a_socket() {
        let program = no_network_program().expect("seccomp on the test machine");
        let answers = under_filter(program, || {
            // SAFETY: system calls on sockets this thread opens and closes.
            #[allow(unsafe_code)]
            unsafe {
                let mut pair: [libc::c_int; 2] = [0; 2];
                let made = libc::socketpair(
                    libc::AF_UNIX,
                    libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                    0,
                    pair.as_mut_ptr(),
                );
                let mut name: libc::sockaddr_un = std::mem::zeroed();
                name.sun_family = libc::AF_UNIX as libc::sa_family_t;
                name.sun_path[1] = b'a' as libc::c_char;
                let length = (std::mem::size_of::<libc::sa_family_t>() + 2) as libc::socklen_t;
                let bind = libc::bind(pair[0], (&raw const name).cast(), length);
                let on: libc::c_int = 1;
                let passcred = libc::setsockopt(
                    pair[0],
                    libc::SOL_SOCKET,
                    libc::SO_PASSCRED,
                    (&raw const on).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                );
                let netlink =
                    libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 2);
                for fd in [pair[0], pair[1], netlink] {
                    if fd >= 0 {
                        libc::close(fd);
                    }
                }
                [errno(made), errno(bind), errno(passcred), errno(netlink)]
            }
        });
        assert_eq!(answers, [None, Some(libc::EPERM), Some(libc::EPERM), Some(libc::EPERM)]);
    }
}
