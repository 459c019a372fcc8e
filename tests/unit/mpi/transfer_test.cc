// A message gathered from (or scattered into) a list of pieces, cut into messages of a remote
// piece each: each side cuts its own pieces at the same offsets, so that whatever the two
// lists, the bytes arrive in order, each message a piece long but the last.
#include "transport/am/transfer.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "progress/engine.h"
#include "progress/slot_rider.h"

namespace osprey::am {
namespace {

// Pieces of `buf` of the given lengths, each `gap` bytes after the one before.
std::vector<Piece> pieces_of(std::vector<unsigned char>& buf, const std::vector<std::size_t>& lens,
                             std::size_t gap) {
  std::vector<Piece> out;
  std::size_t at = gap;
  for (std::size_t n : lens) {
    out.push_back({buf.data() + at, n});
    at += n + gap;
  }
  return out;
}

std::size_t total(const std::vector<std::size_t>& lens) {
  std::size_t n = 0;
  for (std::size_t l : lens)
    n += l;
  return n;
}

void finish(Transfer& x) {
  while (!x.test()) {
  }
}

// The bytes of `lens` pieces (with gaps of 3) sent cut at `piece`, received as plain messages:
// each is a piece long but the last, and together they are the pieces' bytes in order.
void check_send(const std::vector<std::size_t>& lens, std::size_t piece) {
  const std::size_t bytes = total(lens);
  std::vector<unsigned char> src(bytes + 3 * (lens.size() + 1));
  for (std::size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<unsigned char>(i * 7 + 1);
  const std::vector<Piece> ps = pieces_of(src, lens, 3);
  std::vector<unsigned char> want;
  for (const Piece& p : ps)
    want.insert(want.end(), static_cast<const unsigned char*>(p.p),
                static_cast<const unsigned char*>(p.p) + p.n);
  Transfer x = Transfer::send(MPI_COMM_SELF, 0, 21, ps.data(), static_cast<int>(ps.size()), piece);
  std::vector<unsigned char> got;
  for (std::size_t at = 0; at < bytes; at += piece) {
    std::vector<unsigned char> msg(piece + 1);
    MPI_Status st;
    MPI_Recv(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, 0, 21, MPI_COMM_SELF, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    EXPECT_EQ(static_cast<std::size_t>(n), std::min(piece, bytes - at));
    got.insert(got.end(), msg.begin(), msg.begin() + n);
  }
  finish(x);
  EXPECT_EQ(got, want);
  int more = 0;
  MPI_Iprobe(0, 21, MPI_COMM_SELF, &more, MPI_STATUS_IGNORE);
  EXPECT_FALSE(more) << "more messages than pieces";
}

// Plain messages of `piece` bytes received into `lens` pieces (gaps of 5) cut at `piece`: the
// pieces hold the bytes in order and the gaps stay untouched.
void check_receive(const std::vector<std::size_t>& lens, std::size_t piece) {
  const std::size_t bytes = total(lens);
  std::vector<unsigned char> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    data[i] = static_cast<unsigned char>(i * 13 + 5);
  std::vector<unsigned char> into(bytes + 5 * (lens.size() + 1), 0xee);
  std::vector<unsigned char> want = into;
  const std::vector<Piece> ps = pieces_of(into, lens, 5);
  std::size_t from = 0;
  for (const Piece& p : ps) {
    const std::size_t at =
        static_cast<std::size_t>(static_cast<const unsigned char*>(p.p) - into.data());
    for (std::size_t i = 0; i < p.n; ++i)
      want[at + i] = data[from++];
  }
  Transfer x =
      Transfer::receive(MPI_COMM_SELF, 0, 22, ps.data(), static_cast<int>(ps.size()), piece);
  for (std::size_t at = 0; at < bytes; at += piece)
    MPI_Send(data.data() + at, static_cast<int>(std::min(piece, bytes - at)), MPI_BYTE, 0, 22,
             MPI_COMM_SELF);
  finish(x);
  EXPECT_EQ(into, want);
}

// Pieces shorter than, as long as and longer than a message; a cut inside a piece, on a
// piece's end, and a piece of nothing.
TEST(Transfer, PiecesCutIntoMessagesOfOneRemotePieceInOrder) {
  const std::vector<std::vector<std::size_t>> lists = {
      {8192}, {100, 7936, 50}, {3000, 3000, 3000, 3000}, {7936, 7936}, {1, 0, 20000, 7}};
  for (const auto& lens : lists) {
    for (std::size_t piece : {std::size_t{7936}, std::size_t{1000}, std::size_t{3000}}) {
      SCOPED_TRACE(testing::Message()
                   << "pieces " << lens.size() << " total " << total(lens) << " piece " << piece);
      check_send(lens, piece);
      check_receive(lens, piece);
    }
  }
}

// A receive the engine is blocked on rides in the endpoint's next slot test (one host call for
// both): it completes there, its transfer then completes without a host call of its own, and
// a transfer that moves or goes away takes the watch with it, so no slot test ever writes to
// a request that is no longer there.
TEST(Transfer, WatchedReceiveCompletesInTheSlotTestAndIsForgottenWhenItsTransferEnds) {
  const bool threads = progress::concurrent_threads.load();
  progress::set_concurrent(false);  // watching is for one thread in the engine at a time
  std::vector<unsigned char> data(64), into(64, 0);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<unsigned char>(i * 3 + 1);
  {
    Transfer x = Transfer::receive(MPI_COMM_SELF, 0, 23, into.data(), into.size());
    watch(x.pending());
    EXPECT_EQ(take_watched(), x.pending());
    EXPECT_EQ(take_watched(), nullptr) << "taking the watch forgets it";
    MPI_Send(data.data(), static_cast<int>(data.size()), MPI_BYTE, 0, 23, MPI_COMM_SELF);
    MPI_Request slot;  // a request slot nothing arrives for
    MPI_Irecv(nullptr, 0, MPI_BYTE, 0, 24, MPI_COMM_SELF, &slot);
    MPI_Status st;
    for (int i = 0; i < 1000 && x.pending(); ++i) {
      watch(x.pending());
      EXPECT_FALSE(progress::test_slot(&slot, &st, take_watched()));
    }
    EXPECT_EQ(x.pending(), nullptr) << "the slot test completed the watched receive";
    EXPECT_TRUE(x.test());
    EXPECT_EQ(into, data);
    MPI_Cancel(&slot);
    MPI_Wait(&slot, MPI_STATUS_IGNORE);
  }
  {
    const Piece whole{into.data(), into.size()};
    Transfer x = Transfer::receive(MPI_COMM_SELF, 0, 25, &whole, 1, 16);  // in messages
    watch(x.pending());
    Transfer y = std::move(x);
    EXPECT_EQ(take_watched(), nullptr) << "a transfer that moved";
    watch(y.pending());
    y.cancel();
    EXPECT_EQ(take_watched(), nullptr) << "a transfer cancelled";
    Transfer z = Transfer::receive(MPI_COMM_SELF, 0, 26, into.data(), into.size());
    watch(z.pending());
  }
  EXPECT_EQ(take_watched(), nullptr) << "a transfer destroyed";
  progress::set_concurrent(threads);
}

}  // namespace
}  // namespace osprey::am
