/* Helpers for osprey's MPI tests: plain MPI, no osprey headers. Every check aborts the whole
 * job with a message on the first wrong value. */
#ifndef OSPREY_TEST_COMMON_H
#define OSPREY_TEST_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_rank, t_size;

#define CHECK(cond, ...)                                                                         \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", t_rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                              \
      fprintf(stderr, "\n");                                                                     \
      fflush(stderr);                                                                            \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    }                                                                                            \
  } while (0)

#define MPI_OK(call)                                    \
  do {                                                  \
    int rc_ = (call);                                   \
    if (rc_ != MPI_SUCCESS) {                           \
      char msg_[MPI_MAX_ERROR_STRING];                  \
      int len_ = 0;                                     \
      MPI_Error_string(rc_, msg_, &len_);               \
      CHECK(0, "%s returned %d: %s", #call, rc_, msg_); \
    }                                                   \
  } while (0)

/* Expects `call` to fail with error class `cls` (the window or communicator must have
 * MPI_ERRORS_RETURN). */
#define EXPECT_CLASS(cls, call)                                                                  \
  do {                                                                                           \
    int rc_ = (call), c_ = -1;                                                                   \
    if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &c_);                                           \
    CHECK(rc_ != MPI_SUCCESS && c_ == (cls), "%s: want error class %d (%s), got rc %d class %d", \
          #call, (cls), #cls, rc_, c_);                                                          \
  } while (0)

/* Whether the host MPI is Open MPI, whose reductions accept other (operation, datatype) pairs
 * than MPICH's (osprey follows the host's). */
static inline int t_host_is_openmpi(void) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  return strstr(v, "Open MPI") != NULL;
}

static inline void t_init(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t_size);
}

/* MPI_Init_thread asking for MPI_THREAD_MULTIPLE, which the test needs. */
static inline void t_init_multiple(int* argc, char*** argv) {
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t_size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
}

static inline int t_finish(const char* name) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) printf("%s: OK (%d ranks)\n", name, t_size);
  MPI_Finalize();
  return 0;
}

/* The window's info key osprey_path (which paths serve it) into path, "" if absent; whether it
 * was there. */
static inline int t_win_path(MPI_Win win, char path[MPI_MAX_INFO_VAL + 1]) {
  MPI_Info info;
  int flag = 0;
  path[0] = '\0';
  MPI_Win_get_info(win, &info);
  MPI_Info_get(info, "osprey_path", MPI_MAX_INFO_VAL, path, &flag);
  MPI_Info_free(&info);
  if (!flag) path[0] = '\0';
  return flag;
}

/* Whether osprey moved the page holding p into a shared memory file in place (MPI_Win_create
 * and MPI_Win_attach memory): its mapping's name in /proc/self/maps says. */
static inline int t_moved_in_place(const void* p) {
  FILE* f = fopen("/proc/self/maps", "r");
  CHECK(f, "no /proc/self/maps");
  char line[512];
  int moved = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (unsigned long)p >= lo && (unsigned long)p < hi)
      moved = strstr(line, "osprey-win-create") != NULL;
  }
  fclose(f);
  return moved;
}

/* The byte that origin o writes at byte index i of the slot it owns at target t in epoch e. */
static inline unsigned char t_pattern(int o, int t, size_t i, int e) {
  uint32_t x = (uint32_t)(o * 131 + t * 31 + e * 7919) ^ (uint32_t)(i * 2654435761u);
  x ^= x >> 13;
  return (unsigned char)(x * 0x9E3779B1u >> 24);
}

static inline void t_fill(void* buf, size_t n, int o, int t, int e) {
  unsigned char* b = (unsigned char*)buf;
  for (size_t i = 0; i < n; i++)
    b[i] = t_pattern(o, t, i, e);
}

/* Compares the data bytes (holes excluded) of `count` elements of `type` at a and b. */
static inline int t_same_data(const void* a, const void* b, int count, MPI_Datatype type) {
  int size = 0;
  MPI_Pack_size(count, type, MPI_COMM_SELF, &size);
  char* pa = (char*)malloc((size_t)size + 1);
  char* pb = (char*)malloc((size_t)size + 1);
  int posa = 0, posb = 0;
  MPI_Pack(a, count, type, pa, size, &posa, MPI_COMM_SELF);
  MPI_Pack(b, count, type, pb, size, &posb, MPI_COMM_SELF);
  int same = posa == posb && memcmp(pa, pb, (size_t)posa) == 0;
  free(pa);
  free(pb);
  return same;
}

/* Every predefined datatype a C program can name. */
struct t_type {
  MPI_Datatype type;
  const char* name;
};
#define T_TYPE(t) \
  { t, #t }
__attribute__((unused)) static const struct t_type t_types[] = {
    T_TYPE(MPI_CHAR),
    T_TYPE(MPI_SIGNED_CHAR),
    T_TYPE(MPI_UNSIGNED_CHAR),
    T_TYPE(MPI_BYTE),
    T_TYPE(MPI_WCHAR),
    T_TYPE(MPI_SHORT),
    T_TYPE(MPI_UNSIGNED_SHORT),
    T_TYPE(MPI_INT),
    T_TYPE(MPI_UNSIGNED),
    T_TYPE(MPI_LONG),
    T_TYPE(MPI_UNSIGNED_LONG),
    T_TYPE(MPI_LONG_LONG_INT),
    T_TYPE(MPI_LONG_LONG),
    T_TYPE(MPI_UNSIGNED_LONG_LONG),
    T_TYPE(MPI_FLOAT),
    T_TYPE(MPI_DOUBLE),
    T_TYPE(MPI_LONG_DOUBLE),
    T_TYPE(MPI_INT8_T),
    T_TYPE(MPI_INT16_T),
    T_TYPE(MPI_INT32_T),
    T_TYPE(MPI_INT64_T),
    T_TYPE(MPI_UINT8_T),
    T_TYPE(MPI_UINT16_T),
    T_TYPE(MPI_UINT32_T),
    T_TYPE(MPI_UINT64_T),
    T_TYPE(MPI_C_BOOL),
    T_TYPE(MPI_C_FLOAT_COMPLEX),
    T_TYPE(MPI_C_COMPLEX),
    T_TYPE(MPI_C_DOUBLE_COMPLEX),
    T_TYPE(MPI_C_LONG_DOUBLE_COMPLEX),
    T_TYPE(MPI_AINT),
    T_TYPE(MPI_OFFSET),
    T_TYPE(MPI_COUNT),
    T_TYPE(MPI_PACKED),
    T_TYPE(MPI_FLOAT_INT),
    T_TYPE(MPI_DOUBLE_INT),
    T_TYPE(MPI_LONG_INT),
    T_TYPE(MPI_SHORT_INT),
    T_TYPE(MPI_2INT),
    T_TYPE(MPI_LONG_DOUBLE_INT),
    T_TYPE(MPI_CXX_BOOL),
    T_TYPE(MPI_CXX_FLOAT_COMPLEX),
    T_TYPE(MPI_CXX_DOUBLE_COMPLEX),
    T_TYPE(MPI_CXX_LONG_DOUBLE_COMPLEX),
    T_TYPE(MPI_INTEGER),
    T_TYPE(MPI_REAL),
    T_TYPE(MPI_DOUBLE_PRECISION),
    T_TYPE(MPI_COMPLEX),
    T_TYPE(MPI_DOUBLE_COMPLEX),
    T_TYPE(MPI_LOGICAL),
    T_TYPE(MPI_CHARACTER),
    T_TYPE(MPI_2INTEGER),
    T_TYPE(MPI_2REAL),
    T_TYPE(MPI_2DOUBLE_PRECISION),
    T_TYPE(MPI_INTEGER1),
    T_TYPE(MPI_INTEGER2),
    T_TYPE(MPI_INTEGER4),
    T_TYPE(MPI_INTEGER8),
    T_TYPE(MPI_REAL4),
    T_TYPE(MPI_REAL8),
    T_TYPE(MPI_REAL16),
    T_TYPE(MPI_COMPLEX8),
    T_TYPE(MPI_COMPLEX16),
    T_TYPE(MPI_COMPLEX32),
};
#define T_NTYPES ((int)(sizeof t_types / sizeof t_types[0]))

/* The four window flavors, created over `bytes` per rank; *base receives the local memory. */
enum t_flavor { T_ALLOCATE, T_SHARED, T_CREATE, T_DYNAMIC, T_NFLAVORS };
__attribute__((unused)) static const char* const t_flavor_names[] = {"allocate", "allocate_shared",
                                                                     "create", "dynamic"};

struct t_win {
  MPI_Win win;
  enum t_flavor flavor;
  char* base;
  void* user_mem;  /* create/dynamic: memory we own */
  MPI_Aint* addrs; /* dynamic: each rank's attached base address */
};

/* The ranks of `comm` that osprey sees on this rank's node: the host's shared-memory split. With
 * MPICH's simulated nodes (MPIR_CVAR_NUM_CLIQUES, MPIR_CVAR_ODD_EVEN_CLIQUES) the host split
 * follows them; with osprey's own (OSPREY_VIRTUAL_NODES=k: world rank i in pretend node i % k)
 * osprey's MPI_Comm_split_type does. Collective over comm. */
static inline MPI_Comm t_node_comm(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  return node;
}

/* Whether osprey sees every rank of `comm` on one node. Collective over comm. */
static inline int t_one_node(MPI_Comm comm) {
  int size, node_size;
  MPI_Comm node = t_node_comm(comm);
  MPI_Comm_size(comm, &size);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  int all = node_size == size, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, comm);
  return every;
}

/* Creates the window; returns 0 (and creates nothing) for an allocate_shared window whose ranks
 * span nodes, after checking that osprey refused it with MPI_ERR_RMA_SHARED. */
static inline int t_win_create(struct t_win* w, enum t_flavor f, MPI_Aint bytes, int disp_unit,
                               MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  memset(w, 0, sizeof *w);
  w->flavor = f;
  switch (f) {
    case T_ALLOCATE:
      MPI_OK(MPI_Win_allocate(bytes, disp_unit, MPI_INFO_NULL, comm, &w->base, &w->win));
      break;
    case T_SHARED:
      if (!t_one_node(comm)) {
        MPI_Errhandler old;
        MPI_Comm_get_errhandler(comm, &old);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        EXPECT_CLASS(MPI_ERR_RMA_SHARED, MPI_Win_allocate_shared(bytes, disp_unit, MPI_INFO_NULL,
                                                                 comm, &w->base, &w->win));
        MPI_Comm_set_errhandler(comm, old);
        MPI_Errhandler_free(&old);
        return 0;
      }
      MPI_OK(MPI_Win_allocate_shared(bytes, disp_unit, MPI_INFO_NULL, comm, &w->base, &w->win));
      break;
    case T_CREATE:
      w->user_mem = malloc(bytes > 0 ? (size_t)bytes : 1);
      w->base = (char*)w->user_mem;
      MPI_OK(MPI_Win_create(w->base, bytes, disp_unit, MPI_INFO_NULL, comm, &w->win));
      break;
    case T_DYNAMIC:
      w->user_mem = malloc(bytes > 0 ? (size_t)bytes : 1);
      w->base = (char*)w->user_mem;
      MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w->win));
      MPI_OK(MPI_Win_attach(w->win, w->base, bytes));
      w->addrs = (MPI_Aint*)malloc(sizeof(MPI_Aint) * (size_t)size);
      MPI_Aint mine;
      MPI_Get_address(w->base, &mine);
      MPI_Allgather(&mine, 1, MPI_AINT, w->addrs, 1, MPI_AINT, comm);
      break;
    default:
      break;
  }
  return 1;
}

/* MPI_Win_sync for a rank that reads, or has just stored to, its own window memory outside any
 * epoch: MPI-3.1 11.5.4 allows the call only within a passive target epoch (MPICH's own RMA
 * rejects it elsewhere with MPI_ERR_RMA_SYNC), so it runs in a shared lock epoch on this rank.
 * No other rank may be accessing this rank's memory meanwhile. */
static inline void t_sync_own(MPI_Win win) {
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t_rank, 0, win));
  MPI_OK(MPI_Win_sync(win));
  MPI_OK(MPI_Win_unlock(t_rank, win));
}

/* The target displacement of byte offset `off` in rank r's window (in disp units). */
static inline MPI_Aint t_disp(const struct t_win* w, int r, MPI_Aint off, int disp_unit) {
  if (w->flavor == T_DYNAMIC) return w->addrs[r] + off;
  return off / disp_unit;
}

/* Freeing a dynamic window detaches its memory (MPI-3.1 11.2.4); a detach here would need the
 * other ranks to be done with it first. */
static inline void t_win_free(struct t_win* w) {
  MPI_OK(MPI_Win_free(&w->win));
  free(w->user_mem);
  free(w->addrs);
}

#endif
