//! Seccomp filters for what Landlock and the namespaces leave open, built once per process with
//! `seccompiler` and installed by each bot just before its program starts. Three filters, as
//! each gives its calls one answer:
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
//! - pretended, answering 0 without doing anything: `flock` and the `fcntl` lock commands. A
//!   lock on a file two bots may read (`/etc/hostname`) is a channel between them; no bot
//!   holds one, so none waits for another's (a single program, which is what a bot is, never
//!   waits for itself);
//! - answered `ENOSYS`: `clone3`, whose flags sit in memory a filter cannot read; the C
//!   library then uses `clone`, whose flags it can.
//!
//! A system call of another architecture (32-bit calls from a 64-bit bot) kills the bot: the
//! filters only know the native numbers (and, on x86-64, the x32 ones, which they refuse too).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The filters, or why this machine cannot have them.
pub(super) fn filters() -> Result<&'static [BpfProgram], &'static str> {
    static FILTERS: OnceLock<Result<Vec<BpfProgram>, String>> = OnceLock::new();
    FILTERS.get_or_init(build).as_ref().map(Vec::as_slice).map_err(String::as_str)
}

/// Rules of one filter: system call, the conditions under which it matches (none: always).
type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn build() -> Result<Vec<BpfProgram>, String> {
    // SAFETY: PR_GET_SECCOMP only reads this thread's mode.
    #[allow(unsafe_code)]
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 {
        return Err("the kernel has no seccomp".into());
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
    let error = |e: seccompiler::BackendError| e.to_string();
    let dword = |arg, op, value: libc::c_int| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value as u64).map_err(error)
    };
    let rule = |conditions| SeccompRule::new(conditions).map_err(error);
    let add = |rules: &mut Rules, call: libc::c_long, when: Vec<SeccompRule>| {
        rules.insert(call, when.clone());
        if arch == TargetArch::x86_64 {
            // The same call through the x32 ABI.
            rules.insert(call | 0x4000_0000, when);
        }
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
    ] {
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
