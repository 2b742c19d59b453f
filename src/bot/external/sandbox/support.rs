//! What this machine offers the sandbox, found out once per process: the Landlock ABI, whether
//! PID, network and mount namespaces can be created and how (as root, or in a user namespace),
//! whether a bot's read-only view of the filesystem can be made, whether per-bot cgroups can be
//! made, and the system paths every bot may read. It also holds the slots bots take.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

use super::Missing;
use super::cgroup::Roots;
use super::child::{Namespaces, View};
use super::landlock_rules::SystemPaths;
use super::slots::Slots;

/// What the sandbox can use here.
pub(super) struct Support {
    /// 0 without Landlock.
    pub(super) landlock_abi: i32,
    pub(super) root: bool,
    namespaces: Result<Isolation, String>,
    /// Whether a bot's read-only view (a mount namespace) can be made.
    view: Result<(), String>,
    /// Whether a bot's private directory can be a tmpfs mounted in its view (a machine may
    /// allow bind mounts and refuse a tmpfs; its bots then keep a folder on disk).
    tmpfs: bool,
    cgroups: Result<Roots, String>,
    pub(super) system: SystemPaths,
    pub(super) slots: Slots,
}

/// How a bot gets its PID namespace and its (lack of) network.
enum Isolation {
    /// arena may create namespaces itself (root): PID, IPC and mount namespaces per bot, and a
    /// network namespace with nothing but a loopback that is down per slot (creating one per bot
    /// costs milliseconds).
    Privileged { netns: Result<(), String> },
    /// Each slot gets a user namespace (mapping only arena's own user) and a network namespace
    /// it owns, made once ([`super::slots::Slot::user_namespaces`]); a bot's relay joins them
    /// and makes the bot's PID, IPC and mount namespaces inside. `RLIMIT_NPROC` then counts the
    /// bot's processes alone (no two bots are in one slot at once).
    User { uid_map: Vec<u8>, gid_map: Vec<u8> },
}

/// The support, probed on first use.
pub(super) fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(Support::probe)
}

/// The read end of the lifeline: a pipe whose write end only arena holds, so it reads end of
/// file when arena dies, however it dies. Each bot's supervisor waits on it.
pub(super) fn lifeline() -> RawFd {
    static LIFELINE: OnceLock<(OwnedFd, OwnedFd)> = OnceLock::new();
    LIFELINE
        .get_or_init(|| {
            nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
                .expect("a pipe can be created (arena has file descriptors left)")
        })
        .0
        .as_raw_fd()
}

impl Support {
    fn probe() -> Support {
        let root = nix::unistd::geteuid().is_root();
        let namespaces = isolation(root);
        let view = match &namespaces {
            Ok(isolation) => probe_view(isolation),
            Err(e) => Err(e.clone()),
        };
        let tmpfs = view.is_ok() && namespaces.as_ref().is_ok_and(probe_tmpfs);
        Support {
            landlock_abi: landlock_abi(),
            root,
            namespaces,
            view,
            tmpfs,
            cgroups: Roots::create(),
            system: SystemPaths::open(root),
            slots: Slots::default(),
        }
    }

    /// The namespaces a bot of `slot` joins, made the first time a bot of the slot needs them:
    /// an unprivileged arena's slot's user namespace, and the slot's network namespace unless
    /// the bot may use the `network` (as root only where network namespaces can be made).
    pub(super) fn slot_namespaces(
        &self,
        slot: &mut super::slots::Slot,
        network: bool,
    ) -> std::io::Result<(Option<RawFd>, Option<RawFd>)> {
        Ok(match &self.namespaces {
            Ok(Isolation::Privileged { netns: Ok(()) }) if !network => (None, Some(slot.netns()?)),
            Ok(Isolation::User { uid_map, gid_map }) => {
                let (userns, netns) = slot.user_namespaces(uid_map, gid_map)?;
                (Some(userns), (!network).then_some(netns))
            }
            _ => (None, None),
        })
    }

    /// Whether bots get their read-only view of the filesystem.
    pub(super) fn has_view(&self) -> bool {
        self.view.is_ok()
    }

    /// Whether a bot may get a tmpfs of its own as its private directory.
    pub(super) fn private_tmpfs(&self) -> bool {
        self.tmpfs
    }

    pub(super) fn cgroups(&self) -> Option<&Roots> {
        self.cgroups.as_ref().ok()
    }

    /// Whether `RLIMIT_NPROC` counts a bot's processes alone: in a user namespace of its own,
    /// and not as root (whose processes the kernel never counts).
    pub(super) fn nproc_limits_the_bot(&self) -> bool {
        matches!(self.namespaces, Ok(Isolation::User { .. })) && !self.root
    }

    /// The namespaces a bot's relay joins (`userns`, `netns`: its slot's, from
    /// [`Support::slot_namespaces`]) and creates.
    pub(super) fn child_namespaces(
        &self,
        userns: Option<RawFd>,
        netns: Option<RawFd>,
    ) -> Option<Namespaces> {
        let mount = if self.view.is_ok() { libc::CLONE_NEWNS } else { 0 };
        self.namespaces.as_ref().ok().map(|_| Namespaces {
            unshare: libc::CLONE_NEWPID | libc::CLONE_NEWIPC | mount,
            join_userns: userns,
            join_netns: netns,
        })
    }

    fn network_namespace(&self) -> Result<(), String> {
        match &self.namespaces {
            Ok(Isolation::Privileged { netns }) => netns.clone(),
            Ok(Isolation::User { .. }) => Ok(()),
            Err(e) => Err(e.clone()),
        }
    }

    /// What a bot with these settings would run without.
    pub(super) fn missing(&self, network: bool) -> Vec<Missing> {
        let mut missing = Vec::new();
        let abi = self.landlock_abi;
        if abi < 3 {
            missing.push(Missing {
                feature: "Landlock ABI 3",
                reason: if abi == 0 {
                    "the kernel has no Landlock (Linux 6.2 or later, with `lsm=...,landlock`)"
                        .into()
                } else {
                    format!("the kernel offers ABI {abi}")
                },
                consequence: "the bot can read and write every file its user can",
            });
        }
        if let Err(reason) = &self.namespaces {
            missing.push(Missing {
                feature: "PID namespace",
                reason: reason.clone(),
                consequence: if abi >= 6 {
                    "processes that leave the bot's process group can outlive a kill -9 of arena"
                } else {
                    "the bot can signal other processes of its user, and processes that leave its process group can outlive a kill -9 of arena"
                },
            });
        }
        if let (Ok(_), Err(reason)) = (&self.namespaces, &self.view) {
            missing.push(Missing {
                feature: "read-only view",
                reason: reason.clone(),
                consequence: "the bot can change the modes, times and extended attributes of files it may read (its opponent's program among them), and sees every process in /proc",
            });
        }
        if !network {
            if let Err(reason) = self.network_namespace() {
                missing.push(Missing {
                    feature: "network namespace",
                    reason,
                    consequence: if abi >= 4 {
                        "only TCP is denied (by Landlock): the bot can use UDP"
                    } else {
                        "the bot can use the network"
                    },
                });
            }
        }
        if let Err(reason) = super::seccomp::program() {
            missing.push(Missing {
                feature: "seccomp filter",
                reason: reason.to_string(),
                consequence: "the bot can reach services outside the sandbox through unix sockets",
            });
        }
        let user_cap = self.nproc_limits_the_bot();
        if let (Err(reason), false) = (&self.cgroups, user_cap) {
            missing.push(Missing {
                feature: "process cap",
                reason: if self.root {
                    format!("{reason}, and RLIMIT_NPROC does not apply to root")
                } else {
                    format!("{reason}, and no user namespace for RLIMIT_NPROC")
                },
                consequence: "a fork bomb is not contained",
            });
        }
        missing
    }
}

/// The Landlock ABI the kernel offers (0: none).
fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute, a zero size and this flag the call only returns the ABI.
    #[allow(unsafe_code)]
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(abi).unwrap_or(0).max(0)
}

/// How bots can be given namespaces, tried in a throw-away child.
fn isolation(root: bool) -> Result<Isolation, String> {
    let privileged = if root {
        match super::child::probe(libc::CLONE_NEWPID | libc::CLONE_NEWIPC, None, None) {
            Ok(()) => {
                let netns = super::slots::new_netns().map(drop).map_err(|e| e.to_string());
                return Ok(Isolation::Privileged { netns });
            }
            Err(e) => format!("as root: {e}; "),
        }
    } else {
        String::new()
    };
    let uid = nix::unistd::geteuid().as_raw();
    let gid = nix::unistd::getegid().as_raw();
    let maps = (format!("{uid} {uid} 1\n").into_bytes(), format!("{gid} {gid} 1\n").into_bytes());
    let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNET | libc::CLONE_NEWIPC;
    let probed = super::child::probe(flags, Some((&maps.0, &maps.1)), None)
        .and_then(|()| super::slots::new_user_and_netns(&maps.0, &maps.1).map(drop));
    match probed {
        Ok(()) => Ok(Isolation::User { uid_map: maps.0, gid_map: maps.1 }),
        Err(e) => Err(format!("{privileged}in a user namespace: {e}")),
    }
}

/// Whether a bot's view can be made: in a throw-away child with the namespaces a bot gets, the
/// view of a private directory (`/tmp` itself) and its own `/proc`.
fn probe_view(isolation: &Isolation) -> Result<(), String> {
    let (flags, maps) = isolation.probe_namespaces(libc::CLONE_NEWPID | libc::CLONE_NEWNS);
    let view = probe_view_over_tmp(super::child::hides_cgroups(), None);
    super::child::probe(flags, maps, Some(&view)).map_err(|e| format!("a mount namespace: {e}"))
}

/// Whether a small tmpfs can be mounted over `/tmp` in a mount namespace of its own (in a user
/// namespace of its own, not as root), as a bot's relay mounts its private one.
fn probe_tmpfs(isolation: &Isolation) -> bool {
    let tmpfs = super::child::Tmpfs {
        options: CString::from(c"size=4k,mode=700"),
        access: 0,
        make: vec![],
    };
    let view = probe_view_over_tmp(false, Some(tmpfs));
    let (flags, maps) = isolation.probe_namespaces(libc::CLONE_NEWNS);
    super::child::probe(flags, maps, Some(&view)).is_ok()
}

/// A user namespace's uid and gid maps, as written to `uid_map` and `gid_map`.
type IdMaps<'a> = (&'a [u8], &'a [u8]);

impl Isolation {
    /// What a probe's throw-away child unshares to try `flags` as a bot's relay would: in a
    /// user namespace of its own (with these id maps) unless arena is root.
    fn probe_namespaces(&self, flags: libc::c_int) -> (libc::c_int, Option<IdMaps<'_>>) {
        match self {
            Isolation::Privileged { .. } => (flags, None),
            Isolation::User { uid_map, gid_map } => {
                (libc::CLONE_NEWUSER | flags, Some((uid_map.as_slice(), gid_map.as_slice())))
            }
        }
    }
}

/// A probe's view: the machine's `/tmp` as the private directory (or a `tmpfs` over it).
fn probe_view_over_tmp(hide_cgroups: bool, tmpfs: Option<super::child::Tmpfs>) -> View {
    View {
        private: CString::from(c"/tmp"),
        at: CString::from(c"/tmp"),
        cwd: CString::from(c"/"),
        hide_cgroups,
        keep: Vec::new(),
        tmpfs,
        from_template: false,
    }
}
