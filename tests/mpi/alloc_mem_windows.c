/* MPI_Alloc_mem returns node-shared memory, and windows created over it are reached by node
 * peers with loads, stores and CPU atomics. Here every other rank's window memory comes from
 * MPI_Alloc_mem (with and without info hints), the rest from malloc, so one window mixes
 * mapped, cross-memory attach and (on mixed runs) message-path targets. Every rank puts a
 * pattern into its slot at every target and gets it back, and all ranks race multi-element
 * int64 and long double sums, fetch_and_ops and a compare-and-swap counter on the same
 * elements of every target: no update may be lost. On one node the peers' allocations must be
 * mapped (counted in /proc/self/maps). Dynamic windows over MPI_Alloc_mem memory and
 * MPI_Alloc_mem without any window work too. */
#include "common.h"

enum { SLOT = 4096, NACC = 64, ITERS = 300, HOT = 20000 };

/* Byte layout: a slot per origin, NACC int64 sums, NACC long double sums, a CAS counter. */
static MPI_Aint slot_off(int o) {
  return (MPI_Aint)o * SLOT;
}
static MPI_Aint acc_off(void) {
  return (MPI_Aint)t_size * SLOT;
}
static MPI_Aint ld_off(void) {
  return acc_off() + NACC * 8;
}
static MPI_Aint cas_off(void) {
  return ld_off() + NACC * (MPI_Aint)sizeof(long double);
}
static MPI_Aint cplx_off(void) {
  return cas_off() + 16;
}
static MPI_Aint win_bytes(void) {
  return cplx_off() + (MPI_Aint)sizeof(long double _Complex);
}

static int uses_alloc_mem(int r) {
  return r % 2 == 0;
}

/* Lines of this process's mappings of MPI_Alloc_mem memory (osprey's memfd name). */
static int alloc_mem_mappings(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[512];
  int n = 0;
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, "osprey-alloc-mem")) n++;
  if (f) fclose(f);
  return n;
}

static void run(int dynamic) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true"); /* any hint: must be accepted */
  char* mem;
  if (uses_alloc_mem(t_rank))
    MPI_OK(MPI_Alloc_mem(win_bytes(), t_rank % 4 ? info : MPI_INFO_NULL, &mem));
  else
    mem = malloc((size_t)win_bytes());
  memset(mem, 0, (size_t)win_bytes());
  MPI_Win win;
  MPI_Aint* addrs = calloc((size_t)t_size, sizeof(MPI_Aint));
  if (dynamic) {
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_attach(win, mem, win_bytes()));
    MPI_Aint mine;
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
  } else {
    MPI_OK(MPI_Win_create(mem, win_bytes(), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  const char* tr = getenv("OSPREY_TRANSPORT");
  if (!dynamic && !(tr && !strcmp(tr, "am")) && t_one_node(MPI_COMM_WORLD)) {
    int peers = 0;
    for (int r = 0; r < t_size; r++)
      peers += r != t_rank && uses_alloc_mem(r);
    const int own = uses_alloc_mem(t_rank);
    CHECK(alloc_mem_mappings() == own + peers,
          "%d mappings of MPI_Alloc_mem memory, want %d (own %d + peers %d)", alloc_mem_mappings(),
          own + peers, own, peers);
  }
#define DISP(t, off) ((dynamic ? addrs[t] : 0) + (off))
  unsigned char* src = malloc(SLOT);
  unsigned char* got = malloc(SLOT);
  int64_t ones[NACC];
  long double lds[NACC];
  for (int i = 0; i < NACC; i++)
    ones[i] = 1, lds[i] = 0.5L;
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int t = 0; t < t_size; t++) {
    t_fill(src, SLOT, t_rank, t, dynamic);
    MPI_OK(MPI_Put(src, SLOT, MPI_BYTE, t, DISP(t, slot_off(t_rank)), SLOT, MPI_BYTE, win));
    MPI_OK(MPI_Win_flush(t, win));
    MPI_OK(MPI_Get(got, SLOT, MPI_BYTE, t, DISP(t, slot_off(t_rank)), SLOT, MPI_BYTE, win));
    MPI_OK(MPI_Win_flush(t, win));
    CHECK(!memcmp(got, src, SLOT), "got back a different slot from rank %d (%s)", t,
          dynamic ? "dynamic" : "create");
  }
  int64_t cas_wins = 0, fops = 0;
  for (int it = 0; it < ITERS; it++) {
    const int t = (it + t_rank) % t_size;
    const int n = 1 + (it * 7) % NACC;
    MPI_OK(
        MPI_Accumulate(ones, n, MPI_INT64_T, t, DISP(t, acc_off()), n, MPI_INT64_T, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(lds, n, MPI_LONG_DOUBLE, t, DISP(t, ld_off()), n, MPI_LONG_DOUBLE,
                          MPI_SUM, win));
    const int64_t k = 1000;
    int64_t old;
    MPI_OK(MPI_Fetch_and_op(&k, &old, MPI_INT64_T, t, DISP(t, acc_off() + 8 * (it % NACC)), MPI_SUM,
                            win));
    fops++;
    /* CAS increment: retry until this rank's increment lands. */
    int64_t cur = 0;
    for (;;) {
      const int64_t next = cur + 1;
      int64_t seen;
      MPI_OK(MPI_Compare_and_swap(&next, &cur, &seen, MPI_INT64_T, t, DISP(t, cas_off()), win));
      MPI_OK(MPI_Win_flush(t, win));
      if (seen == cur) break;
      cur = seen;
    }
    cas_wins++;
  }
  /* Single-element long double complex sums (32 bytes: no CPU atomic, so lock stripes, which
   * every rank must key alike whatever address it maps the memory at), all ranks on rank 0. */
  const long double _Complex half = 0.5L;
  for (int it = 0; it < HOT; it++)
    MPI_OK(MPI_Accumulate(&half, 1, MPI_C_LONG_DOUBLE_COMPLEX, 0, DISP(0, cplx_off()), 1,
                          MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  t_sync_own(win);
  /* What every target must hold: each origin's slot, and the sums of everyone's updates. */
  int64_t want_i[NACC] = {0}, want_cas = 0;
  long double want_ld[NACC] = {0};
  for (int o = 0; o < t_size; o++)
    for (int it = 0; it < ITERS; it++) {
      if ((it + o) % t_size != t_rank) continue;
      const int n = 1 + (it * 7) % NACC;
      for (int i = 0; i < n; i++)
        want_i[i] += 1, want_ld[i] += 0.5L;
      want_i[it % NACC] += 1000;
      want_cas++;
    }
  for (int o = 0; o < t_size; o++) {
    t_fill(src, SLOT, o, t_rank, dynamic);
    CHECK(!memcmp(mem + slot_off(o), src, SLOT), "slot of rank %d differs", o);
  }
  for (int i = 0; i < NACC; i++) {
    int64_t v;
    long double l;
    memcpy(&v, mem + acc_off() + 8 * i, 8);
    memcpy(&l, mem + ld_off() + (MPI_Aint)sizeof(long double) * i, sizeof l);
    CHECK(v == want_i[i], "int64 sum %d is %lld, want %lld", i, (long long)v, (long long)want_i[i]);
    CHECK(l == want_ld[i], "long double sum %d is %Lg, want %Lg", i, l, want_ld[i]);
  }
  if (t_rank == 0) {
    long double _Complex z;
    memcpy(&z, mem + cplx_off(), sizeof z);
    CHECK(__real__ z == 0.5L * HOT * t_size && __imag__ z == 0, "complex sum %Lg%+Lgi, want %Lg",
          __real__ z, __imag__ z, 0.5L * HOT * t_size);
  }
  int64_t c;
  memcpy(&c, mem + cas_off(), 8);
  CHECK(c == want_cas, "CAS counter %lld, want %lld", (long long)c, (long long)want_cas);
  (void)fops;
  (void)cas_wins;
  MPI_Barrier(MPI_COMM_WORLD);
  if (dynamic) MPI_OK(MPI_Win_detach(win, mem));
  MPI_OK(MPI_Win_free(&win));
  if (uses_alloc_mem(t_rank))
    MPI_OK(MPI_Free_mem(mem));
  else
    free(mem);
  MPI_Info_free(&info);
  free(addrs);
  free(src);
  free(got);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  /* Without any window, and many at once. */
  void* p[40];
  for (int i = 0; i < 40; i++) {
    MPI_OK(MPI_Alloc_mem(1000 + i, MPI_INFO_NULL, &p[i]));
    memset(p[i], i, 1000 + (size_t)i);
  }
  for (int i = 0; i < 40; i++) {
    const unsigned char* b = p[i];
    CHECK(b[0] == i && b[999 + i] == i, "MPI_Alloc_mem memory %d lost its contents", i);
    MPI_OK(MPI_Free_mem(p[i]));
  }
  run(0);
  run(1);
  run(0);
  return t_finish("alloc_mem_windows");
}
