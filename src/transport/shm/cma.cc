#include "transport/shm/cma.h"

#include <mpi.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cerrno>

namespace osprey::shm::cma {
namespace {

constexpr std::size_t kIovBatch = 1024;  // IOV_MAX on Linux

using Fn = ssize_t (*)(pid_t, const iovec*, unsigned long, const iovec*, unsigned long,
                       unsigned long);

// Moves all bytes, resuming after partial transfers and splitting long iovec lists.
Status transfer(Fn fn, pid_t pid, const iovec* local, std::size_t nlocal, const iovec* remote,
                std::size_t nremote) {
  std::size_t li = 0, ri = 0, loff = 0, roff = 0;
  iovec lv[kIovBatch], rv[kIovBatch];
  while (li < nlocal && ri < nremote) {
    // Build one batch from the current positions.
    std::size_t nl = 0, nr = 0, lbytes = 0, rbytes = 0;
    for (std::size_t i = li; i < nlocal && nl < kIovBatch; ++i, ++nl) {
      const std::size_t off = i == li ? loff : 0;
      lv[nl] = {static_cast<char*>(local[i].iov_base) + off, local[i].iov_len - off};
      lbytes += lv[nl].iov_len;
    }
    for (std::size_t i = ri; i < nremote && nr < kIovBatch; ++i, ++nr) {
      const std::size_t off = i == ri ? roff : 0;
      rv[nr] = {static_cast<char*>(remote[i].iov_base) + off, remote[i].iov_len - off};
      rbytes += rv[nr].iov_len;
    }
    ssize_t done = fn(pid, lv, nl, rv, nr, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      return Err(MPI_ERR_RMA_RANGE, "osprey: cross-memory attach to the target failed");
    }
    if (done == 0 && std::min(lbytes, rbytes) > 0)
      return Err(MPI_ERR_RMA_RANGE, "osprey: cross-memory attach moved no bytes");
    // Advance both cursors by `done` bytes.
    std::size_t left = static_cast<std::size_t>(done);
    while (left > 0 && li < nlocal) {
      const std::size_t avail = local[li].iov_len - loff;
      if (left < avail) {
        loff += left;
        break;
      }
      left -= avail;
      ++li;
      loff = 0;
    }
    left = static_cast<std::size_t>(done);
    while (left > 0 && ri < nremote) {
      const std::size_t avail = remote[ri].iov_len - roff;
      if (left < avail) {
        roff += left;
        break;
      }
      left -= avail;
      ++ri;
      roff = 0;
    }
    // Skip empty entries.
    while (li < nlocal && local[li].iov_len == loff)
      ++li, loff = 0;
    while (ri < nremote && remote[ri].iov_len == roff)
      ++ri, roff = 0;
  }
  return kOk;
}

}  // namespace

void allow_attach() {
#ifdef PR_SET_PTRACER
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // EINVAL without Yama: ignored
#endif
}

bool probe(pid_t pid, const void* remote, std::size_t nbytes) {
  char buf[64];
  if (nbytes > sizeof buf) nbytes = sizeof buf;
  iovec l{buf, nbytes}, r{const_cast<void*>(remote), nbytes};
  return process_vm_readv(pid, &l, 1, &r, 1, 0) == static_cast<ssize_t>(nbytes);
}

Status write(pid_t pid, const iovec* local, std::size_t nlocal, const iovec* remote,
             std::size_t nremote) {
  return transfer(process_vm_writev, pid, local, nlocal, remote, nremote);
}

Status read(pid_t pid, const iovec* local, std::size_t nlocal, const iovec* remote,
            std::size_t nremote) {
  return transfer(process_vm_readv, pid, local, nlocal, remote, nremote);
}

Status write(pid_t pid, void* remote, const void* local, std::size_t n) {
  iovec l{const_cast<void*>(local), n}, r{remote, n};
  return write(pid, &l, 1, &r, 1);
}

Status read(pid_t pid, const void* remote, void* local, std::size_t n) {
  iovec l{local, n}, r{const_cast<void*>(remote), n};
  return read(pid, &l, 1, &r, 1);
}

}  // namespace osprey::shm::cma
