//! Descriptors passed over unix sockets (`SCM_RIGHTS`), without allocating: arena sends the
//! spawner each relay's descriptors, and a relay that shares its spawner's memory sends arena
//! its tmpfs. One sender and one receiver serve both, with a control buffer on the stack sized
//! for [`MAX_FDS`].

// Socket messages are built with the C library's macros over raw buffers.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::RawFd;

/// The most descriptors one message carries.
pub(super) const MAX_FDS: usize = 32;

/// The control buffer's size: room for one `SCM_RIGHTS` message of [`MAX_FDS`] descriptors.
const CONTROL: usize = space(MAX_FDS);

/// A control buffer, aligned as the `cmsghdr` written into it.
#[repr(C, align(8))]
struct Control([u8; CONTROL]);

/// `CMSG_SPACE` for `fds` descriptors.
const fn space(fds: usize) -> usize {
    // SAFETY: a size computation.
    unsafe { libc::CMSG_SPACE((fds * size_of::<RawFd>()) as u32) as usize }
}

/// Sends `bytes` and `fds` (at most [`MAX_FDS`]) as one message.
///
/// # Safety
///
/// Any process: it allocates nothing.
pub(super) unsafe fn send(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<()> {
    if fds.len() > MAX_FDS {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let mut control = Control([0; CONTROL]);
    let mut iov = libc::iovec { iov_base: bytes.as_ptr().cast_mut().cast(), iov_len: bytes.len() };
    // SAFETY: a message header over local buffers of the sizes given; the control message is
    // written within `control`, which holds CMSG_SPACE of MAX_FDS descriptors.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if !fds.is_empty() {
            msg.msg_control = control.0.as_mut_ptr().cast();
            msg.msg_controllen = space(fds.len()) as _;
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(size_of_val(fds) as u32) as _;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg).cast(), fds.len());
        }
        if libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Receives one message into `buf` and its descriptors (close-on-exec) into `fds`: its length
/// and their number. A message or its descriptors cut short is answered as `(1, 0)`, its
/// descriptors closed: to the spawner, a question (arena then starts the relay itself).
pub(super) fn receive(
    socket: RawFd,
    buf: &mut [u8],
    fds: &mut [RawFd; MAX_FDS],
) -> io::Result<(usize, usize)> {
    let mut control = Control([0; CONTROL]);
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    // SAFETY: as in `send`; the received descriptors are copied out of `control`, at most
    // MAX_FDS of them.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.0.as_mut_ptr().cast();
        msg.msg_controllen = CONTROL as _;
        let n = libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut count = 0;
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                let k = (data / size_of::<RawFd>()).min(MAX_FDS - count);
                std::ptr::copy_nonoverlapping(
                    libc::CMSG_DATA(cmsg).cast::<RawFd>(),
                    fds[count..].as_mut_ptr(),
                    k,
                );
                count += k;
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
        if msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
            for &fd in &fds[..count] {
                libc::close(fd);
            }
            return Ok((1, 0));
        }
        Ok((n as usize, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    fn socket_pair() -> (OwnedFd, OwnedFd) {
        super::super::spawner::socket_pair().unwrap()
    }

    #[test]
    fn bytes_and_every_descriptor_up_to_the_most_cross_whole() {
        for count in [0, 1, 2, MAX_FDS] {
            let (a, b) = socket_pair();
            let pipes: Vec<(OwnedFd, OwnedFd)> =
                (0..count).map(|_| nix::unistd::pipe().unwrap()).collect();
            let writers: Vec<RawFd> = pipes.iter().map(|(_, w)| w.as_raw_fd()).collect();
            // SAFETY: a socket and descriptors this test owns.
            unsafe { send(a.as_raw_fd(), b"plan", &writers).unwrap() };
            let mut buf = [0u8; 16];
            let mut fds = [-1; MAX_FDS];
            let (n, got) = receive(b.as_raw_fd(), &mut buf, &mut fds).unwrap();
            assert_eq!((&buf[..n], got), (&b"plan"[..], count));
            for (i, &fd) in fds[..got].iter().enumerate() {
                // SAFETY: a descriptor just received, owned here.
                let writer = unsafe { OwnedFd::from_raw_fd(fd) };
                // Each received descriptor is the matching pipe's writer: a byte written through
                // it comes out of that pipe.
                nix::unistd::write(&writer, &[i as u8]).unwrap();
                let mut byte = [0u8; 1];
                nix::unistd::read(&pipes[i].0, &mut byte).unwrap();
                assert_eq!(byte[0], i as u8);
            }
        }
    }

    #[test]
    fn more_descriptors_than_the_most_are_refused_before_sending() {
        let (a, _b) = socket_pair();
        let many = vec![a.as_raw_fd(); MAX_FDS + 1];
        // SAFETY: a socket this test owns.
        let sent = unsafe { send(a.as_raw_fd(), b"x", &many) };
        assert_eq!(sent.unwrap_err().raw_os_error(), Some(libc::EINVAL));
    }
}
