/* Which (operation, datatype) pairs accumulates accept, and what they compute, judged against
 * the host MPI's own reduction kernels: for every predefined operation and datatype,
 * MPI_Reduce_local (the host) says whether the pair is defined and what `target op origin`
 * is; MPI_Accumulate and MPI_Fetch_and_op into the right neighbour must accept exactly the
 * same pairs and leave exactly the same data bytes. MPI_REPLACE and MPI_NO_OP, which only RMA
 * has, must apply to every type. (MPICH's own RMA is no oracle: it returns success for pairs
 * it cannot apply, such as MPI_MAXLOC on MPI_CHAR, and then hangs in the unlock.)
 *
 * Where the host rejects a pair, osprey rejects it too with MPI_ERR_OP. The host is not asked
 * where MPICH 4.0.2 computes nonsense or aborts, and osprey's own answer is checked instead
 * (docs/NOTES.md): logical operations on floating types (MPICH leaves Fortran reals
 * unchanged and aborts in MPI_LAND and MPI_LOR on C floats; osprey gives 1 or 0), and
 * MPI_REAL16 and MPI_COMPLEX32 (MPICH's MPI_REAL16 sum of 1 and 2 is not 3 in any format;
 * osprey computes in IEEE quad precision, gfortran's real(16)). */
#include "common.h"

static const struct {
  MPI_Op op;
  const char* name;
} ops[] = {{MPI_SUM, "MPI_SUM"},         {MPI_PROD, "MPI_PROD"},     {MPI_MAX, "MPI_MAX"},
           {MPI_MIN, "MPI_MIN"},         {MPI_LAND, "MPI_LAND"},     {MPI_LOR, "MPI_LOR"},
           {MPI_LXOR, "MPI_LXOR"},       {MPI_BAND, "MPI_BAND"},     {MPI_BOR, "MPI_BOR"},
           {MPI_BXOR, "MPI_BXOR"},       {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
           {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"}};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

enum { SLOT = 64 };

/* Values every type can hold meaningfully: small integers, or the same as floating point,
 * written through the type's own C representation. */
static void fill(void* buf, MPI_Datatype t, int v) {
  memset(buf, 0, SLOT);
  int combiner, ni, na, nd;
  MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  int size;
  MPI_Type_size(t, &size);
  if (t == MPI_FLOAT || t == MPI_REAL || t == MPI_REAL4) {
    *(float*)buf = (float)v;
  } else if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_REAL8) {
    *(double*)buf = v;
  } else if (t == MPI_LONG_DOUBLE) {
    *(long double*)buf = v;
  } else if (t == MPI_C_BOOL || t == MPI_CXX_BOOL) {
    *(unsigned char*)buf = v != 0; /* a C or C++ bool holds 0 or 1 only */
  } else if (t == MPI_REAL16) {
    *(__float128*)buf = v;
  } else if (t == MPI_C_FLOAT_COMPLEX || t == MPI_C_COMPLEX || t == MPI_CXX_FLOAT_COMPLEX ||
             t == MPI_COMPLEX || t == MPI_COMPLEX8 || t == MPI_2REAL) {
    ((float*)buf)[0] = (float)v, ((float*)buf)[1] = (float)(v + 1);
  } else if (t == MPI_C_DOUBLE_COMPLEX || t == MPI_CXX_DOUBLE_COMPLEX || t == MPI_DOUBLE_COMPLEX ||
             t == MPI_COMPLEX16 || t == MPI_2DOUBLE_PRECISION) {
    ((double*)buf)[0] = v, ((double*)buf)[1] = v + 1;
  } else if (t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_CXX_LONG_DOUBLE_COMPLEX ||
             t == MPI_COMPLEX32) {
    if (t == MPI_COMPLEX32)
      ((__float128*)buf)[0] = v, ((__float128*)buf)[1] = v + 1;
    else
      ((long double*)buf)[0] = v, ((long double*)buf)[1] = v + 1;
  } else if (t == MPI_FLOAT_INT) {
    ((struct {
      float v;
      int i;
    }*)buf)
        ->v = (float)v,
 ((struct {
   float v;
   int i;
 }*)buf)
        ->i = v;
  } else if (t == MPI_DOUBLE_INT) {
    ((struct {
      double v;
      int i;
    }*)buf)
        ->v = v,
 ((struct {
   double v;
   int i;
 }*)buf)
        ->i = v;
  } else if (t == MPI_LONG_DOUBLE_INT) {
    ((struct {
      long double v;
      int i;
    }*)buf)
        ->v = v;
    ((struct {
      long double v;
      int i;
    }*)buf)
        ->i = v;
  } else if (t == MPI_LONG_INT) {
    ((struct {
      long v;
      int i;
    }*)buf)
        ->v = v,
 ((struct {
   long v;
   int i;
 }*)buf)
        ->i = v;
  } else if (t == MPI_SHORT_INT) {
    ((struct {
      short v;
      int i;
    }*)buf)
        ->v = (short)v,
 ((struct {
   short v;
   int i;
 }*)buf)
        ->i = v;
  } else if (t == MPI_2INT || t == MPI_2INTEGER) {
    ((int*)buf)[0] = v, ((int*)buf)[1] = v;
  } else {
    /* Integers, logicals, bytes and characters of any size: little-endian small value. */
    *(unsigned char*)buf = (unsigned char)v;
  }
  (void)size;
}

/* Pairs where osprey's answer is checked instead of the host's; `value`: what target 5 op
 * origin 3 gives, as a double (NaN: whether it is accepted only). */
static int own_answer(MPI_Datatype t, MPI_Op op, double* value) {
  const int real = t == MPI_FLOAT || t == MPI_DOUBLE || t == MPI_LONG_DOUBLE || t == MPI_REAL ||
                   t == MPI_DOUBLE_PRECISION || t == MPI_REAL4 || t == MPI_REAL8 || t == MPI_REAL16;
  /* MPICH's reduction asserts on these; osprey applies them as MPICH's accumulates do. */
  if (real && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) && !t_host_is_openmpi()) {
    *value = op == MPI_LXOR ? 0.0 : 1.0;
    return 1;
  }
  if (t == MPI_REAL16 && (op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN)) {
    *value = op == MPI_SUM ? 8 : op == MPI_PROD ? 15 : op == MPI_MAX ? 5 : 3;
    return 1;
  }
  if (t == MPI_COMPLEX32 && (op == MPI_SUM || op == MPI_PROD)) {
    *value = __builtin_nan("");
    return 1;
  }
  return 0;
}

static double as_double(const void* buf, MPI_Datatype t) {
  if (t == MPI_FLOAT || t == MPI_REAL || t == MPI_REAL4) return *(const float*)buf;
  if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_REAL8) return *(const double*)buf;
  if (t == MPI_REAL16) return (double)*(const __float128*)buf;
  return (double)*(const long double*)buf;
}

/* Whether two elements hold the same data. x87 long doubles are 10 bytes in 16: the other six
 * are padding that each compiled store may leave differently. */
static int same_value(const void* a, const void* b, MPI_Datatype t) {
  if (t == MPI_LONG_DOUBLE || t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_CXX_LONG_DOUBLE_COMPLEX ||
      t == MPI_LONG_DOUBLE_INT) {
    const int parts = t == MPI_LONG_DOUBLE ? 1 : 2;
    for (int k = 0; k < parts; k++) {
      const int len = (t == MPI_LONG_DOUBLE_INT && k == 1) ? (int)sizeof(int) : 10;
      if (memcmp((const char*)a + 16 * k, (const char*)b + 16 * k, (size_t)len)) return 0;
    }
    return 1;
  }
  return t_same_data(a, b, 1, t);
}

static int cls_of(int rc) {
  int c = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  char* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(2 * SLOT, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int right = (t_rank + 1) % t_size;
  int accepted = 0;
  for (int t = 0; t < T_NTYPES; t++) {
    const MPI_Datatype type = t_types[t].type;
    for (int o = 0; o < NOPS; o++) {
      const int rma_only = ops[o].op == MPI_REPLACE || ops[o].op == MPI_NO_OP;
      unsigned char a[SLOT], b[SLOT], want[SLOT], got[SLOT], fetched[SLOT], cur[SLOT];
      fill(a, type, 5); /* the target's value */
      fill(b, type, 3); /* the origin's */
      memcpy(want, a, SLOT);
      int host = MPI_SUCCESS;
      double ext_value = 0;
      const int ext = own_answer(type, ops[o].op, &ext_value);
      if (ops[o].op == MPI_REPLACE)
        memcpy(want, b, SLOT);
      else if (!rma_only && !ext)
        host = cls_of(MPI_Reduce_local(b, want, 1, type, ops[o].op));
      /* Accumulate and fetch_and_op into the neighbour's slot under an exclusive lock. */
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
      MPI_OK(MPI_Put(a, 1, type, right, 0, 1, type, win));
      MPI_OK(MPI_Put(a, 1, type, right, SLOT, 1, type, win));
      MPI_OK(MPI_Win_flush(right, win));
      const int acc = cls_of(MPI_Accumulate(b, 1, type, right, 0, 1, type, ops[o].op, win));
      const int fop = cls_of(MPI_Fetch_and_op(b, fetched, type, right, SLOT, ops[o].op, win));
      MPI_OK(MPI_Win_flush(right, win));
      MPI_OK(MPI_Get(got, 1, type, right, 0, 1, type, win));
      MPI_OK(MPI_Get(cur, 1, type, right, SLOT, 1, type, win));
      MPI_OK(MPI_Win_unlock(right, win));
      const char* what = t_types[t].name;
      const char* op = ops[o].name;
      CHECK(acc == host, "MPI_Accumulate(%s, %s): class %d, the host's reduction says %d", what, op,
            acc, host);
      CHECK(fop == host, "MPI_Fetch_and_op(%s, %s): class %d, the host's reduction says %d", what,
            op, fop, host);
      if (host != MPI_SUCCESS) continue;
      accepted++;
      if (ext) {
        if (ext_value == ext_value)
          CHECK(as_double(got, type) == ext_value && as_double(cur, type) == ext_value,
                "%s on %s gave %g, want %g", op, what, as_double(got, type), ext_value);
        continue;
      }
      CHECK(same_value(got, want, type),
            "MPI_Accumulate(%s, %s) computed other bytes than "
            "the host's reduction",
            what, op);
      CHECK(same_value(cur, want, type),
            "MPI_Fetch_and_op(%s, %s) computed other bytes than "
            "the host's reduction",
            what, op);
      CHECK(same_value(fetched, a, type), "MPI_Fetch_and_op(%s, %s) fetched a wrong value", what,
            op);
    }
  }
  CHECK(accepted > 2 * T_NTYPES, "only %d pairs accepted", accepted);
  if (t_rank == 0) printf("op_type_matrix: %d (op, type) pairs agree with the host\n", accepted);
  MPI_OK(MPI_Win_free(&win));
  return t_finish("op_type_matrix");
}
