/* Contended accumulates with exact results: every predefined operation on every predefined
 * datatype it applies to, every window flavor. All ranks hammer one target under lock_all;
 * operands are chosen so the final value is order independent and exact. Fetching forms
 * (MPI_Get_accumulate, MPI_Fetch_and_op) are checked for atomicity: the old values that all
 * origins fetched during a SUM of ones must be exactly 0, 1, ..., n-1. */
#include <complex.h>
#include <stddef.h>

#include "common.h"

enum { K = 41, SLOT = 64 };

enum kind { INT, UINT, FLT, F128, CPLX, Q128, LOG, BYTE, PAIR, OPAQUE };

struct ty {
  MPI_Datatype t;
  const char* name;
  enum kind kind;
  int width;    /* bytes of the value (of one part for complex, of the value for pairs) */
  int pairkind; /* pairs: 0 float, 1 double, 2 long, 3 short, 4 int, 5 long double */
};

#define T(t, k, w, p) \
  { t, #t, k, w, p }
static const struct ty types[] = {
    T(MPI_SIGNED_CHAR, INT, 1, 0),
    T(MPI_UNSIGNED_CHAR, UINT, 1, 0),
    T(MPI_SHORT, INT, 2, 0),
    T(MPI_UNSIGNED_SHORT, UINT, 2, 0),
    T(MPI_INT, INT, 4, 0),
    T(MPI_UNSIGNED, UINT, 4, 0),
    T(MPI_LONG, INT, 8, 0),
    T(MPI_UNSIGNED_LONG, UINT, 8, 0),
    T(MPI_LONG_LONG, INT, 8, 0),
    T(MPI_UNSIGNED_LONG_LONG, UINT, 8, 0),
    T(MPI_INT8_T, INT, 1, 0),
    T(MPI_INT16_T, INT, 2, 0),
    T(MPI_INT32_T, INT, 4, 0),
    T(MPI_INT64_T, INT, 8, 0),
    T(MPI_UINT8_T, UINT, 1, 0),
    T(MPI_UINT16_T, UINT, 2, 0),
    T(MPI_UINT32_T, UINT, 4, 0),
    T(MPI_UINT64_T, UINT, 8, 0),
    T(MPI_AINT, INT, 8, 0),
    T(MPI_OFFSET, INT, 8, 0),
    T(MPI_COUNT, INT, 8, 0),
    T(MPI_INTEGER, INT, 4, 0),
    T(MPI_INTEGER1, INT, 1, 0),
    T(MPI_INTEGER2, INT, 2, 0),
    T(MPI_INTEGER4, INT, 4, 0),
    T(MPI_INTEGER8, INT, 8, 0),
    T(MPI_FLOAT, FLT, 4, 0),
    T(MPI_DOUBLE, FLT, 8, 0),
    T(MPI_LONG_DOUBLE, FLT, 16, 0),
    T(MPI_REAL, FLT, 4, 0),
    T(MPI_DOUBLE_PRECISION, FLT, 8, 0),
    T(MPI_REAL4, FLT, 4, 0),
    T(MPI_REAL8, FLT, 8, 0),
    T(MPI_REAL16, F128, 16, 0),
    T(MPI_C_FLOAT_COMPLEX, CPLX, 4, 0),
    T(MPI_C_DOUBLE_COMPLEX, CPLX, 8, 0),
    T(MPI_C_LONG_DOUBLE_COMPLEX, CPLX, 16, 0),
    T(MPI_CXX_FLOAT_COMPLEX, CPLX, 4, 0),
    T(MPI_CXX_DOUBLE_COMPLEX, CPLX, 8, 0),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, CPLX, 16, 0),
    T(MPI_COMPLEX, CPLX, 4, 0),
    T(MPI_DOUBLE_COMPLEX, CPLX, 8, 0),
    T(MPI_COMPLEX8, CPLX, 4, 0),
    T(MPI_COMPLEX16, CPLX, 8, 0),
    T(MPI_COMPLEX32, Q128, 16, 0),
    T(MPI_C_BOOL, LOG, 1, 0),
    T(MPI_CXX_BOOL, LOG, 1, 0),
    T(MPI_LOGICAL, LOG, 4, 0),
    T(MPI_BYTE, BYTE, 1, 0),
    T(MPI_FLOAT_INT, PAIR, 4, 0),
    T(MPI_DOUBLE_INT, PAIR, 8, 1),
    T(MPI_LONG_INT, PAIR, 8, 2),
    T(MPI_SHORT_INT, PAIR, 2, 3),
    T(MPI_2INT, PAIR, 4, 4),
    T(MPI_LONG_DOUBLE_INT, PAIR, 16, 5),
    T(MPI_2INTEGER, PAIR, 4, 4),
    T(MPI_2REAL, PAIR, 4, 6),
    T(MPI_2DOUBLE_PRECISION, PAIR, 8, 7),
    T(MPI_CHAR, OPAQUE, 1, 0),
    T(MPI_WCHAR, OPAQUE, 4, 0),
    T(MPI_CHARACTER, OPAQUE, 1, 0),
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

struct pf {
  float v;
  int i;
};
struct pd {
  double v;
  int i;
};
struct pl {
  long v;
  int i;
};
struct ps {
  short v;
  int i;
};
struct pi {
  int v;
  int i;
};
struct pld {
  long double v;
  int i;
};
struct pff {
  float v;
  float i;
};
struct pdd {
  double v;
  double i;
};

/* A number as the element representation: value (real part), imaginary part, pair index. */
static void encode(const struct ty* ty, void* p, long double v, long double im, int idx) {
  memset(p, 0, 32);
  switch (ty->kind) {
    case INT:
    case UINT:
    case LOG:
    case BYTE:
    case OPAQUE: {
      uint64_t x = (uint64_t)(int64_t)v;
      if (ty->kind == LOG) x = v != 0;
      memcpy(p, &x, (size_t)ty->width); /* little endian: the low bytes */
      break;
    }
    case FLT:
      if (ty->width == 4)
        *(float*)p = (float)v;
      else if (ty->width == 8)
        *(double*)p = (double)v;
      else
        *(long double*)p = v;
      break;
    case F128:
      *(__float128*)p = (__float128)v;
      break;
    case CPLX:
      if (ty->width == 4)
        ((float*)p)[0] = (float)v, ((float*)p)[1] = (float)im;
      else if (ty->width == 8)
        ((double*)p)[0] = (double)v, ((double*)p)[1] = (double)im;
      else
        ((long double*)p)[0] = v, ((long double*)p)[1] = im;
      break;
    case Q128:
      ((__float128*)p)[0] = (__float128)v, ((__float128*)p)[1] = (__float128)im;
      break;
    case PAIR:
      switch (ty->pairkind) {
        case 0:
          ((struct pf*)p)->v = (float)v, ((struct pf*)p)->i = idx;
          break;
        case 1:
          ((struct pd*)p)->v = (double)v, ((struct pd*)p)->i = idx;
          break;
        case 2:
          ((struct pl*)p)->v = (long)v, ((struct pl*)p)->i = idx;
          break;
        case 3:
          ((struct ps*)p)->v = (short)v, ((struct ps*)p)->i = idx;
          break;
        case 4:
          ((struct pi*)p)->v = (int)v, ((struct pi*)p)->i = idx;
          break;
        case 5:
          ((struct pld*)p)->v = v, ((struct pld*)p)->i = idx;
          break;
        case 6:
          ((struct pff*)p)->v = (float)v, ((struct pff*)p)->i = (float)idx;
          break;
        case 7:
          ((struct pdd*)p)->v = (double)v, ((struct pdd*)p)->i = (double)idx;
          break;
      }
      break;
  }
}

static void decode(const struct ty* ty, const void* p, long double* v, long double* im, int* idx) {
  *v = 0;
  *im = 0;
  *idx = 0;
  switch (ty->kind) {
    case INT:
    case UINT:
    case LOG:
    case BYTE:
    case OPAQUE: {
      uint64_t x = 0;
      memcpy(&x, p, (size_t)ty->width);
      if (ty->kind == INT && ty->width < 8 && (x >> (8 * ty->width - 1)) & 1)
        x |= ~(uint64_t)0 << (8 * ty->width);
      *v = ty->kind == INT ? (long double)(int64_t)x : (long double)x;
      if (ty->kind == LOG) *v = x != 0;
      break;
    }
    case FLT:
      *v = ty->width == 4   ? *(const float*)p
           : ty->width == 8 ? *(const double*)p
                            : *(const long double*)p;
      break;
    case F128:
      *v = (long double)*(const __float128*)p;
      break;
    case CPLX:
      if (ty->width == 4)
        *v = ((const float*)p)[0], *im = ((const float*)p)[1];
      else if (ty->width == 8)
        *v = ((const double*)p)[0], *im = ((const double*)p)[1];
      else
        *v = ((const long double*)p)[0], *im = ((const long double*)p)[1];
      break;
    case Q128:
      *v = (long double)((const __float128*)p)[0], *im = (long double)((const __float128*)p)[1];
      break;
    case PAIR:
      switch (ty->pairkind) {
        case 0:
          *v = ((const struct pf*)p)->v, *idx = ((const struct pf*)p)->i;
          break;
        case 1:
          *v = ((const struct pd*)p)->v, *idx = ((const struct pd*)p)->i;
          break;
        case 2:
          *v = ((const struct pl*)p)->v, *idx = ((const struct pl*)p)->i;
          break;
        case 3:
          *v = ((const struct ps*)p)->v, *idx = ((const struct ps*)p)->i;
          break;
        case 4:
          *v = ((const struct pi*)p)->v, *idx = ((const struct pi*)p)->i;
          break;
        case 5:
          *v = ((const struct pld*)p)->v, *idx = ((const struct pld*)p)->i;
          break;
        case 6:
          *v = ((const struct pff*)p)->v, *idx = (int)((const struct pff*)p)->i;
          break;
        case 7:
          *v = ((const struct pdd*)p)->v, *idx = (int)((const struct pdd*)p)->i;
          break;
      }
      break;
  }
}

struct opcase {
  MPI_Op op;
  const char* name;
};
static const struct opcase ops[] = {
    {MPI_SUM, "SUM"},         {MPI_PROD, "PROD"},   {MPI_MAX, "MAX"},       {MPI_MIN, "MIN"},
    {MPI_LAND, "LAND"},       {MPI_LOR, "LOR"},     {MPI_LXOR, "LXOR"},     {MPI_BAND, "BAND"},
    {MPI_BOR, "BOR"},         {MPI_BXOR, "BXOR"},   {MPI_MAXLOC, "MAXLOC"}, {MPI_MINLOC, "MINLOC"},
    {MPI_REPLACE, "REPLACE"}, {MPI_NO_OP, "NO_OP"},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static int allowed(const struct ty* ty, MPI_Op op) {
  const enum kind k = ty->kind;
  if (op == MPI_REPLACE || op == MPI_NO_OP) return 1;
  if (op == MPI_SUM || op == MPI_PROD)
    return k == INT || k == UINT || k == FLT || k == F128 || k == CPLX || k == Q128;
  if (op == MPI_MAX || op == MPI_MIN) return k == INT || k == UINT || k == FLT || k == F128;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) {
    /* Open MPI's reductions give these two Fortran integers no logical operations. */
    if ((ty->t == MPI_INTEGER || ty->t == MPI_INTEGER4) && t_host_is_openmpi()) return 0;
    return k == INT || k == UINT || k == LOG;
  }
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return k == INT || k == UINT || k == BYTE;
  return k == PAIR; /* MAXLOC, MINLOC */
}

/* Operand of origin r at step k, the initial target value, and the exact final value. */
static int is_complex(const struct ty* ty) {
  return ty->kind == CPLX || ty->kind == Q128;
}

static void operand(const struct ty* ty, MPI_Op op, int r, int k, long double* v, long double* im,
                    int* idx) {
  *im = 0;
  *idx = r;
  if (op == MPI_SUM)
    *v = 1, *im = -1;
  else if (op == MPI_PROD && is_complex(ty))
    *v = k < 2 ? 0 : 1, *im = k < 2 ? 1 : 0; /* i, i, 1.. */
  else if (op == MPI_PROD)
    *v = k < 2 ? 2 : 1;
  else if (op == MPI_MAX)
    *v = r * K + k;
  else if (op == MPI_MIN)
    *v = 127 - (r * K + k);
  else if (op == MPI_LAND)
    *v = !(r == t_size - 1 && k == K - 1);
  else if (op == MPI_LOR)
    *v = r == 0 && k == K - 1;
  else if (op == MPI_LXOR)
    *v = 1;
  else if (op == MPI_BAND)
    *v = 0xFF & ~(1 << ((r * K + k) % 7));
  else if (op == MPI_BOR)
    *v = 1 << ((r * K + k) % 7);
  else if (op == MPI_BXOR)
    *v = 1 << (r % 7);
  else if (op == MPI_MAXLOC)
    *v = k + r;
  else if (op == MPI_MINLOC)
    *v = k; /* every origin ties at 0: the smallest index wins */
  else
    *v = r * K + k; /* REPLACE, NO_OP */
}

static void initial(const struct ty* ty, MPI_Op op, long double* v, long double* im, int* idx) {
  *im = 0;
  *idx = 99;
  if (op == MPI_PROD)
    *v = 1;
  else if (op == MPI_MIN)
    *v = 127;
  else if (op == MPI_LAND)
    *v = 1;
  else if (op == MPI_BAND)
    *v = 0xFF;
  else if (op == MPI_MAXLOC)
    *v = -1;
  else if (op == MPI_MINLOC)
    *v = 1000;
  else
    *v = op == MPI_NO_OP ? 77 : 0;
  (void)ty;
}

/* A real value as the type stores it (wrapped into narrow integers). */
static long double stored(const struct ty* ty, long double v) {
  unsigned char canon[32];
  long double out, im;
  int idx;
  encode(ty, canon, v, 0, 0);
  decode(ty, canon, &out, &im, &idx);
  return out;
}

static void check_final(const struct ty* ty, MPI_Op op, const char* opname, const void* p,
                        const char* flavor) {
  long double v = 0, im = 0, want = 0, want_im = 0;
  int idx, want_idx = -1;
  decode(ty, p, &v, &im, &idx);
  const int n = K * t_size;
  if (op == MPI_SUM)
    want = n, want_im = -n;
  else if (op == MPI_PROD) {
    /* Reals: each origin doubles twice. Complex: each origin multiplies by i twice. */
    want = is_complex(ty) ? (t_size % 2 ? -1 : 1) : (1 << (2 * t_size));
  } else if (op == MPI_MAX || op == MPI_MIN) {
    /* Of the initial value and every operand as the type stores them: from 4 ranks on, the
     * larger operands wrap in narrow integers (163 is -93 in a signed char). */
    int ignored;
    initial(ty, op, &want, &want_im, &ignored);
    want = stored(ty, want);
    for (int r = 0; r < t_size; r++)
      for (int k = 0; k < K; k++) {
        long double o, o_im;
        operand(ty, op, r, k, &o, &o_im, &ignored);
        o = stored(ty, o);
        if (op == MPI_MAX ? o > want : o < want) want = o;
      }
  } else if (op == MPI_LAND)
    want = 0;
  else if (op == MPI_LOR)
    want = 1;
  else if (op == MPI_LXOR)
    want = n % 2;
  else if (op == MPI_BAND)
    want = 0xFF & ~0x7F;
  else if (op == MPI_BOR)
    want = 0x7F;
  else if (op == MPI_BXOR) {
    int bits = 0;
    for (int r = 0; r < t_size; r++)
      if (K % 2) bits ^= 1 << (r % 7);
    want = bits;
  } else if (op == MPI_MAXLOC)
    want = K - 1 + t_size - 1, want_idx = t_size - 1;
  else if (op == MPI_MINLOC)
    want = 0, want_idx = 0;
  else if (op == MPI_NO_OP)
    want = 77;
  if (op == MPI_REPLACE && ty->kind == LOG) {
    CHECK(v == 1, "%s %s REPLACE: %Lg", flavor, ty->name, v);
    return;
  }
  if (op == MPI_REPLACE) {
    int ok = 0;
    for (int r = 0; r < t_size; r++)
      ok |= v == stored(ty, r * K + K - 1);
    CHECK(ok, "%s %s %s: REPLACE left %Lg, not any origin's last value", flavor, ty->name, opname,
          v);
    return;
  }
  if (ty->kind == UINT && op == MPI_SUM) want_im = 0;
  if (!is_complex(ty)) want_im = 0;
  /* The expected value as the type stores it (wraps into narrow signed integers). */
  unsigned char canon[32];
  int ignored;
  encode(ty, canon, want, want_im, 0);
  decode(ty, canon, &want, &want_im, &ignored);
  CHECK(v == want && im == want_im, "%s %s %s: got %Lg%+Lgi, want %Lg%+Lgi", flavor, ty->name,
        opname, v, im, want, want_im);
  if (want_idx >= 0)
    CHECK(idx == want_idx, "%s %s %s: index %d, want %d", flavor, ty->name, opname, idx, want_idx);
}

static void run(enum t_flavor f, int target) {
  const int ncases = NTYPES * NOPS;
  struct t_win w;
  if (!t_win_create(&w, f, t_rank == target ? (MPI_Aint)ncases * SLOT : 0, 1, MPI_COMM_WORLD))
    return;
  MPI_Aint tbase = 0;
  if (f == T_DYNAMIC) tbase = w.addrs[target];
  if (t_rank == target)
    for (int ti = 0; ti < NTYPES; ti++)
      for (int oi = 0; oi < NOPS; oi++) {
        long double v, im;
        int idx;
        initial(&types[ti], ops[oi].op, &v, &im, &idx);
        encode(&types[ti], w.base + (ti * NOPS + oi) * SLOT, v, im, idx);
      }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Origin and result buffers belong to their operation until the epoch ends: one each. */
  unsigned char* bufs = malloc((size_t)K * ncases * 32);
  unsigned char* results = malloc((size_t)K * ncases * 32);
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int k = 0; k < K; k++)
    for (int ti = 0; ti < NTYPES; ti++)
      for (int oi = 0; oi < NOPS; oi++) {
        if (!allowed(&types[ti], ops[oi].op)) continue;
        unsigned char* buf = bufs + ((size_t)k * ncases + (size_t)(ti * NOPS + oi)) * 32;
        unsigned char* res = results + ((size_t)k * ncases + (size_t)(ti * NOPS + oi)) * 32;
        long double v, im;
        int idx;
        operand(&types[ti], ops[oi].op, t_rank, k, &v, &im, &idx);
        encode(&types[ti], buf, v, im, idx);
        const MPI_Aint d = tbase + (ti * NOPS + oi) * SLOT;
        /* Alternate the three accumulate forms. */
        switch ((k + ti) % 3) {
          case 0:
            MPI_OK(
                MPI_Accumulate(buf, 1, types[ti].t, target, d, 1, types[ti].t, ops[oi].op, w.win));
            break;
          case 1:
            MPI_OK(MPI_Get_accumulate(buf, 1, types[ti].t, res, 1, types[ti].t, target, d, 1,
                                      types[ti].t, ops[oi].op, w.win));
            break;
          default:
            MPI_OK(MPI_Fetch_and_op(buf, res, types[ti].t, target, d, ops[oi].op, w.win));
            break;
        }
      }
  MPI_OK(MPI_Win_unlock_all(w.win));
  free(bufs);
  free(results);
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == target)
    for (int ti = 0; ti < NTYPES; ti++)
      for (int oi = 0; oi < NOPS; oi++)
        if (allowed(&types[ti], ops[oi].op))
          check_final(&types[ti], ops[oi].op, ops[oi].name, w.base + (ti * NOPS + oi) * SLOT,
                      t_flavor_names[f]);
  t_win_free(&w);
}

/* Atomicity seen through fetched values: n fetch-and-add(1) return exactly 0..n-1. */
static void fetch_permutation(enum t_flavor f, MPI_Datatype type, int width) {
  enum { N = 300 };
  struct t_win w;
  if (!t_win_create(&w, f, 64, 1, MPI_COMM_WORLD)) return;
  memset(w.base, 0, 64);
  MPI_Barrier(MPI_COMM_WORLD);
  const MPI_Aint d = f == T_DYNAMIC ? w.addrs[0] + 8 : 8;
  int64_t* got = malloc(sizeof(int64_t) * N);
  uint64_t one = 1;
  MPI_OK(MPI_Win_lock_all(0, w.win));
  /* Each fetched value lands in its own slot; they are read after the epoch. */
  uint64_t* old = calloc(N, sizeof(uint64_t));
  for (int i = 0; i < N; i++) {
    if (i % 2)
      MPI_OK(MPI_Fetch_and_op(&one, &old[i], type, 0, d, MPI_SUM, w.win));
    else
      MPI_OK(MPI_Get_accumulate(&one, 1, type, &old[i], 1, type, 0, d, 1, type, MPI_SUM, w.win));
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  for (int i = 0; i < N; i++)
    got[i] = (int64_t)old[i];
  free(old);
  int64_t* all = malloc(sizeof(int64_t) * N * (size_t)t_size);
  MPI_Allgather(got, N, MPI_INT64_T, all, N, MPI_INT64_T, MPI_COMM_WORLD);
  char* seen = calloc((size_t)(N * t_size), 1);
  for (int i = 0; i < N * t_size; i++) {
    CHECK(all[i] >= 0 && all[i] < N * t_size, "%s width %d: fetched %lld out of range",
          t_flavor_names[f], width, (long long)all[i]);
    CHECK(!seen[all[i]], "%s width %d: value %lld fetched twice: lost update", t_flavor_names[f],
          width, (long long)all[i]);
    seen[all[i]] = 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (t_rank == 0) {
    uint64_t final = 0;
    memcpy(&final, w.base + 8, (size_t)width);
    CHECK(final == (uint64_t)(N * t_size), "%s: final counter %llu", t_flavor_names[f],
          (unsigned long long) final);
  }
  free(seen);
  free(all);
  free(got);
  t_win_free(&w);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  for (int f = 0; f < T_NFLAVORS; f++) {
    run((enum t_flavor)f, 0);
    run((enum t_flavor)f, t_size - 1);
    fetch_permutation((enum t_flavor)f, MPI_UINT16_T, 2);
    fetch_permutation((enum t_flavor)f, MPI_UINT64_T, 8);
  }
  return t_finish("acc_counters");
}
