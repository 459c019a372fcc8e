/* Dynamic windows: several regions per rank attached, addressed by absolute address, put and
 * get into each, detached and replaced over many rounds; an access to detached memory fails
 * with MPI_ERR_RMA_RANGE and touches nothing. */
#include "common.h"

enum { REGIONS = 4, ROUNDS = 40, WORDS = 16 };

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int64_t* region[REGIONS];
  MPI_Aint* addr = malloc(sizeof(MPI_Aint) * (size_t)(t_size * REGIONS));
  const int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;

  for (int round = 0; round < ROUNDS; round++) {
    for (int k = 0; k < REGIONS; k++) {
      region[k] = calloc(WORDS, sizeof(int64_t));
      MPI_OK(MPI_Win_attach(win, region[k], WORDS * (MPI_Aint)sizeof(int64_t)));
    }
    MPI_Aint mine[REGIONS];
    for (int k = 0; k < REGIONS; k++)
      MPI_Get_address(region[k], &mine[k]);
    MPI_Allgather(mine, REGIONS, MPI_AINT, addr, REGIONS, MPI_AINT, MPI_COMM_WORLD);

    MPI_OK(MPI_Win_fence(0, win));
    int64_t v[REGIONS][WORDS]; /* origin buffers stay untouched until the fence */
    for (int k = 0; k < REGIONS; k++) {
      for (int i = 0; i < WORDS; i++)
        v[k][i] = round * 1000000 + t_rank * 10000 + k * 100 + i;
      MPI_OK(MPI_Put(v[k], WORDS, MPI_INT64_T, right, addr[right * REGIONS + k], WORDS, MPI_INT64_T,
                     win));
    }
    MPI_OK(MPI_Win_fence(0, win));
    for (int k = 0; k < REGIONS; k++)
      for (int i = 0; i < WORDS; i++)
        CHECK(region[k][i] == round * 1000000 + left * 10000 + k * 100 + i,
              "round %d region %d word %d: %lld", round, k, i, (long long)region[k][i]);
    /* Get the middle of region 2 at the left neighbour with an offset address. */
    int64_t g[4];
    MPI_OK(MPI_Get(g, 4, MPI_INT64_T, left,
                   addr[left * REGIONS + 2] + 3 * (MPI_Aint)sizeof(int64_t), 4, MPI_INT64_T, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 4; i++)
      CHECK(g[i] == round * 1000000 + ((left + t_size - 1) % t_size) * 10000 + 2 * 100 + 3 + i,
            "round %d get word %d: %lld", round, i, (long long)g[i]);

    /* Region 0 goes away everywhere; accessing it must fail and write nothing. A target on the
     * message path finds out when the request arrives, so the error may come from the fence
     * that completes the access instead of the call. */
    MPI_OK(MPI_Win_detach(win, region[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    int put_rc[2] = {MPI_SUCCESS, MPI_SUCCESS};
    int64_t junk[WORDS]; /* origin buffer: untouched until the fence */
    if (t_size > 1) {
      memset(junk, 0x5a, sizeof junk);
      put_rc[0] =
          MPI_Put(junk, WORDS, MPI_INT64_T, right, addr[right * REGIONS], WORDS, MPI_INT64_T, win);
      /* Straddling the end of an attached region fails too. */
      put_rc[1] = MPI_Put(junk, 2, MPI_INT64_T, right,
                          addr[right * REGIONS + 1] + (WORDS - 1) * (MPI_Aint)sizeof(int64_t), 2,
                          MPI_INT64_T, win);
    }
    const int fence_rc = MPI_Win_fence(0, win);
    for (int k = 0; k < 2 && t_size > 1; k++) {
      int cls = -1;
      MPI_Error_class(put_rc[k] != MPI_SUCCESS ? put_rc[k] : fence_rc, &cls);
      CHECK(cls == MPI_ERR_RMA_RANGE, "put %d to detached memory: rc %d, fence rc %d", k, put_rc[k],
            fence_rc);
    }
    if (t_size == 1) MPI_OK(fence_rc);
    for (int i = 0; i < WORDS; i++)
      CHECK(region[0][i] == round * 1000000 + left * 10000 + i, "detached region was written");
    for (int k = 1; k < REGIONS; k++)
      MPI_OK(MPI_Win_detach(win, region[k]));
    for (int k = 0; k < REGIONS; k++)
      free(region[k]);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

  /* One array attached as two halves: the memory is attached, so put, accumulate and
   * get_accumulate ranges that span both halves are valid. */
  enum { H = 32 };
  int64_t* arr = calloc(2 * H, sizeof(int64_t));
  MPI_OK(MPI_Win_attach(win, arr + H, H * (MPI_Aint)sizeof(int64_t)));
  MPI_OK(MPI_Win_attach(win, arr, H * (MPI_Aint)sizeof(int64_t)));
  MPI_Aint a0;
  MPI_Get_address(arr, &a0);
  MPI_Allgather(&a0, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
  const MPI_Aint mid = addr[right] + (H - 4) * (MPI_Aint)sizeof(int64_t);
  int64_t v8[8], r8[8];
  for (int i = 0; i < 8; i++)
    v8[i] = 1000 * t_rank + i;
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Put(v8, 8, MPI_INT64_T, right, mid, 8, MPI_INT64_T, win));
  MPI_OK(MPI_Win_flush(right, win));
  MPI_OK(MPI_Accumulate(v8, 8, MPI_INT64_T, right, mid, 8, MPI_INT64_T, MPI_SUM, win));
  MPI_OK(MPI_Win_flush(right, win));
  MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, r8, 8, MPI_INT64_T, right, mid, 8, MPI_INT64_T,
                            MPI_NO_OP, win));
  MPI_OK(MPI_Win_flush(right, win));
  for (int i = 0; i < 8; i++)
    CHECK(r8[i] == 2 * v8[i], "spanning access word %d: %lld", i, (long long)r8[i]);
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < 8; i++)
    CHECK(arr[H - 4 + i] == 2 * (1000 * left + i), "spanning word %d: %lld", i,
          (long long)arr[H - 4 + i]);
  MPI_OK(MPI_Win_detach(win, arr));
  MPI_OK(MPI_Win_detach(win, arr + H));
  MPI_OK(MPI_Win_free(&win));
  free(arr);
  free(addr);
  return t_finish("dynamic_windows");
}
