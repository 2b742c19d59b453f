//! A seccomp filter for what Landlock and the namespaces leave open, built once per process with
//! `seccompiler` and installed by each bot just before its program starts. The calls it refuses
//! fail with `EPERM`:
//!
//! - `socket(AF_UNIX, ...)`: Landlock (up to ABI 7) does not control connecting to a unix socket
//!   by its path, and through one a bot could ask a service outside the sandbox to act for it
//!   (systemd's and D-Bus's sockets run commands, Docker's starts containers). `socketpair`, the
//!   unnamed pair programs use among their own processes, stays;
//! - `io_uring_setup`: io_uring opens and connects sockets without the calls the filter sees;
//! - `keyctl`, `add_key`, `request_key`: the kernel keyrings of the session arena runs in.
//!
//! A system call of another architecture (32-bit calls from a 64-bit bot) kills the bot: the
//! filter only knows the native numbers (and, on x86-64, the x32 ones, which it refuses too).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The filter, or why this machine cannot have it.
pub(super) fn filter() -> Result<&'static BpfProgram, &'static str> {
    static FILTER: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    FILTER.get_or_init(build).as_ref().map_err(String::as_str)
}

fn build() -> Result<BpfProgram, String> {
    // SAFETY: PR_GET_SECCOMP only reads this thread's mode.
    #[allow(unsafe_code)]
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 {
        return Err("the kernel has no seccomp".into());
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
    let unix =
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, libc::AF_UNIX as u64)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(|e| e.to_string())?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut refuse = |call: libc::c_long, when: Vec<SeccompRule>| {
        rules.insert(call, when.clone());
        if arch == TargetArch::x86_64 {
            // The same call through the x32 ABI.
            rules.insert(call | 0x4000_0000, when);
        }
    };
    refuse(libc::SYS_socket, vec![unix]);
    refuse(libc::SYS_io_uring_setup, Vec::new());
    refuse(libc::SYS_keyctl, Vec::new());
    refuse(libc::SYS_add_key, Vec::new());
    refuse(libc::SYS_request_key, Vec::new());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    BpfProgram::try_from(filter).map_err(|e| e.to_string())
}
