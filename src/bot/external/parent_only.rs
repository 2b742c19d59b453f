//! Descriptors only arena's own process may hold, such as the lock on a results folder.
//!
//! A child forked from arena holds a copy of every descriptor until it execs, and close-on-exec
//! does nothing before that. A sandboxed bot's child spends that time setting up namespaces,
//! which on a busy kernel can take a while (`unshare` of a network namespace waits on RCU); a
//! lock it holds then outlives a killed arena, and the next run on the folder is refused as if
//! another were still running. Such a child closes these descriptors before anything else.
//! Closing its copy leaves the parent's lock in place: a `flock` lives until the last copy of
//! its open file description is closed.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, Ordering};

/// More than arena ever holds at once (one lock per results folder being written).
const SLOTS: usize = 64;

static FDS: [AtomicI32; SLOTS] = [const { AtomicI32::new(-1) }; SLOTS];

/// A descriptor registered as arena's own while this lives. Drop it before closing the
/// descriptor, so a child never closes a number the parent has since given to another file.
#[derive(Debug)]
pub(crate) struct ParentOnly {
    slot: Option<usize>,
}

impl ParentOnly {
    /// Registers `fd`. With every slot taken it goes unregistered: children then keep it until
    /// they exec, as any other descriptor.
    pub(crate) fn register(fd: RawFd) -> ParentOnly {
        let slot = FDS.iter().position(|slot| {
            slot.compare_exchange(-1, fd, Ordering::SeqCst, Ordering::SeqCst).is_ok()
        });
        ParentOnly { slot }
    }
}

impl Drop for ParentOnly {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            FDS[slot].store(-1, Ordering::SeqCst);
        }
    }
}

/// Closes every registered descriptor in this process.
///
/// # Safety
///
/// Only in a child freshly forked from arena, before `exec`: it only loads atomics and makes
/// `close` system calls (async-signal-safe).
#[allow(unsafe_code)]
pub(crate) unsafe fn close_in_child() {
    for slot in &FDS {
        let fd = slot.load(Ordering::SeqCst);
        if fd >= 0 {
            // SAFETY: the caller's contract; the descriptor is this child's copy.
            unsafe { libc::close(fd) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_descriptor_is_closed_in_a_forked_child_and_stays_open_in_the_parent() {
        use std::os::fd::AsRawFd;
        let file = tempfile::tempfile().expect("a temp file");
        let fd = file.as_raw_fd();
        let registered = ParentOnly::register(fd);
        // SAFETY: the child only makes async-signal-safe calls and exits.
        #[allow(unsafe_code)]
        let status = unsafe {
            match libc::fork() {
                0 => {
                    close_in_child();
                    // EBADF: the child's copy is gone.
                    let closed = libc::fcntl(fd, libc::F_GETFD) == -1;
                    libc::_exit(i32::from(!closed));
                }
                pid => {
                    let mut status = 0;
                    libc::waitpid(pid, &mut status, 0);
                    status
                }
            }
        };
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "status {status}");
        // SAFETY: a query on a descriptor this test owns.
        #[allow(unsafe_code)]
        let open = unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1;
        assert!(open, "the parent's descriptor stays open");
        drop(registered);
        assert!(FDS.iter().all(|slot| slot.load(Ordering::SeqCst) != fd), "unregistered on drop");
    }
}
