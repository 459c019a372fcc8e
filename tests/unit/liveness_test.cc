// A wait on node-shared memory that a dead peer would have updated ends the process with a
// message naming the peer, instead of spinning forever (progress/liveness.h): the peer here is
// a forked process that dies holding a window's exclusive lock.
#include "progress/liveness.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <new>

#include "rma/shm_lock.h"
#include "transport/shm/attach_table.h"

namespace osprey::progress {
namespace {

TEST(LivenessDeathTest, AWaitForADeadLockHolderEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  void* mem = mmap(nullptr, sizeof(shm::LockWords), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* words = new (mem) shm::LockWords{};
  EXPECT_EXIT(
      {
        const pid_t peer = fork();
        if (peer == 0) {
          rma::shm_lock::lock_exclusive(*words, nullptr);
          _exit(0);  // dies holding the lock
        }
        waitpid(peer, nullptr, 0);
        watch_peer(peer, 5);
        rma::shm_lock::lock_exclusive(*words, nullptr);  // waits for the dead holder
        std::fprintf(stderr, "still running: the lock was granted\n");
        _exit(0);
      },
      ::testing::ExitedWithCode(70), "rank 5 \\(process [0-9]+\\) on this node has exited");
  munmap(mem, sizeof(shm::LockWords));
}

// A peer that dies while it changes its attach table (sequence number odd): a reader checking
// an access against that table ends the process instead of waiting for the even number.
TEST(LivenessDeathTest, AReaderOfADeadWritersAttachTableEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::size_t bytes = 2 * sizeof(shm::AttachTableHeader);
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* headers = new (mem) shm::AttachTableHeader[2]{};
  EXPECT_EXIT(
      {
        const pid_t peer = fork();
        if (peer == 0) {
          headers[1].seq.fetch_add(1);  // begins a change, and dies in it
          _exit(0);
        }
        waitpid(peer, nullptr, 0);
        watch_peer(peer, 3);
        shm::AttachTables tables;
        tables.init(headers, 2, 0);
        shm::AttachLookup at;
        (void)tables.find(1, 0x1000, 0x1008, &at);  // waits for an even number
        std::fprintf(stderr, "still running: the table was read\n");
        _exit(0);
      },
      ::testing::ExitedWithCode(70), "rank 3 \\(process [0-9]+\\) on this node has exited");
  munmap(mem, bytes);
}

TEST(Liveness, LivingPeersPassTheCheck) {
  const pid_t peer = fork();
  if (peer == 0) {
    pause();
    _exit(0);
  }
  watch_peer(peer, 1);
  EXPECT_TRUE(process_alive(peer));
  check_peers();  // returns: the peer lives
  unwatch_peer(peer);
  kill(peer, SIGKILL);
  waitpid(peer, nullptr, 0);
  EXPECT_FALSE(process_alive(peer));
  check_peers();  // no longer watched: nothing to report
}

}  // namespace
}  // namespace osprey::progress
