/* A dynamic window whose regions are detached and new ones attached between epochs, often at
 * the address the last one had: node peers remember the shared region their last put or get
 * resolved to and reach it without reading its attach table again while the table is
 * unchanged, so a region remembered past its detach would take the data meant for the next.
 * Each kind of region comes twice in a row (MPI_Alloc_mem memory, whole pages that move into
 * shared memory at attach, a small heap block that stays private), so the allocator hands the
 * same address back; under lock_all, fence and PSCW in turn, every origin puts rows into its
 * slot at every target, then gets them back and checks them, and every owner checks every slot
 * before it detaches and frees the region. The puts and gets of an epoch go to one region, so
 * the first is resolved and the rest take the remembered one. */
#include "common.h"

enum { ROUNDS = 36, ROWS = 8, ROW = 4, KINDS = 3, SYNCS = 3 };
enum { ALLOC_MEM, PAGES, SMALL };
enum { LOCK_ALL, FENCE, PSCW };

static long value(int owner, int origin, int r, int i, int round) {
  return (long)owner * 1000003L + (long)origin * 10007L + r * 101L + i * 13L + round * 7L + 1;
}

static void open_epoch(int sync, MPI_Group others, MPI_Win win) {
  if (sync == LOCK_ALL) {
    MPI_OK(MPI_Win_lock_all(0, win));
  } else if (sync == FENCE) {
    MPI_OK(MPI_Win_fence(0, win));
  } else {
    MPI_OK(MPI_Win_post(others, 0, win));
    MPI_OK(MPI_Win_start(others, 0, win));
  }
}

static void close_epoch(int sync, MPI_Win win) {
  if (sync == LOCK_ALL) {
    MPI_OK(MPI_Win_unlock_all(win));
  } else if (sync == FENCE) {
    MPI_OK(MPI_Win_fence(0, win));
  } else {
    MPI_OK(MPI_Win_complete(win));
    MPI_OK(MPI_Win_wait(win));
  }
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const size_t slot = (size_t)ROWS * ROW, longs = slot * (size_t)t_size, page = 4096;
  const size_t page_bytes = (longs * sizeof(long) + page - 1) / page * page;
  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Group world, others;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_excl(world, 1, &t_rank, &others);
  MPI_Aint* addr = malloc(sizeof(MPI_Aint) * (size_t)t_size);
  long* out = malloc(longs * sizeof(long)); /* this origin's rows toward each target */
  long* back = malloc(longs * sizeof(long));
  for (int round = 0; round < ROUNDS; round++) {
    const int kind = round / 2 % KINDS, sync = round / (2 * KINDS) % SYNCS;
    long* mem = NULL;
    size_t bytes = longs * sizeof(long);
    if (kind == ALLOC_MEM) {
      MPI_OK(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &mem));
    } else if (kind == PAGES) {
      bytes = page_bytes;
      CHECK(posix_memalign((void**)&mem, page, bytes) == 0, "no memory");
    } else {
      mem = malloc(bytes);
    }
    for (size_t i = 0; i < longs; i++)
      mem[i] = -1;
    MPI_OK(MPI_Win_attach(win, mem, (MPI_Aint)bytes));
    MPI_Aint mine;
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);

    for (int target = 0; target < t_size; target++)
      for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < ROW; i++)
          out[(size_t)target * slot + (size_t)r * ROW + (size_t)i] =
              value(target, t_rank, r, i, round);
    for (size_t i = 0; i < longs; i++)
      back[i] = -2;
    for (int phase = 0; phase < 2; phase++) {
      open_epoch(sync, others, win);
      for (int k = 1; k <= t_size; k++) {
        const int target = (t_rank + k) % t_size;
        if (sync == PSCW && target == t_rank) continue;
        for (int r = 0; r < ROWS; r++) {
          const size_t at = (size_t)t_rank * slot + (size_t)r * ROW;
          const MPI_Aint disp = addr[target] + (MPI_Aint)(at * sizeof(long));
          const size_t mine_at = (size_t)target * slot + (size_t)r * ROW;
          if (phase == 0)
            MPI_OK(MPI_Put(out + mine_at, ROW, MPI_LONG, target, disp, ROW, MPI_LONG, win));
          else
            MPI_OK(MPI_Get(back + mine_at, ROW, MPI_LONG, target, disp, ROW, MPI_LONG, win));
        }
      }
      close_epoch(sync, win);
    }
    for (int target = 0; target < t_size; target++) {
      if (sync == PSCW && target == t_rank) continue;
      for (size_t i = 0; i < slot; i++) {
        const size_t at = (size_t)target * slot + i;
        CHECK(back[at] == out[at],
              "round %d (kind %d, sync %d): got %ld back from rank %d at %zu, want %ld", round,
              kind, sync, back[at], target, i, out[at]);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int origin = 0; origin < t_size; origin++)
      for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < ROW; i++) {
          const long want =
              sync == PSCW && origin == t_rank ? -1 : value(t_rank, origin, r, i, round);
          const long got = mem[(size_t)origin * slot + (size_t)r * ROW + (size_t)i];
          CHECK(got == want, "round %d (kind %d, sync %d): origin %d row %d [%d] is %ld, want %ld",
                round, kind, sync, origin, r, i, got, want);
        }
    MPI_Barrier(MPI_COMM_WORLD); /* no origin reads this region any more */
    MPI_OK(MPI_Win_detach(win, mem));
    if (kind == ALLOC_MEM)
      MPI_OK(MPI_Free_mem(mem));
    else
      free(mem);
  }
  MPI_Group_free(&others);
  MPI_Group_free(&world);
  MPI_OK(MPI_Win_free(&win));
  free(addr);
  free(out);
  free(back);
  return t_finish("dynamic_reattach");
}
