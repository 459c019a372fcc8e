/* Predefined window attributes, groups, info (with osprey_version), names, user attributes
 * with delete callbacks, and user error handlers, on every flavor. */
#include "common.h"

static int deleted = 0;
static void* freed_base; /* the base and size the window being freed had */
static MPI_Aint freed_size;
/* Runs inside MPI_Win_free, where the window's attributes can still be read (as in MPICH). */
static int delete_fn(MPI_Win w, int keyval, void* val, void* extra) {
  (void)keyval, (void)extra;
  CHECK(*(int*)val == 42, "attribute value");
  void* base = NULL;
  MPI_Aint* size = NULL;
  int flag = 0;
  MPI_OK(MPI_Win_get_attr(w, MPI_WIN_BASE, &base, &flag));
  CHECK(flag && base == freed_base, "delete callback: MPI_WIN_BASE %p want %p", base, freed_base);
  MPI_OK(MPI_Win_get_attr(w, MPI_WIN_SIZE, &size, &flag));
  CHECK(flag && *size == freed_size, "delete callback: MPI_WIN_SIZE %ld want %ld", (long)*size,
        (long)freed_size);
  MPI_Group g;
  int n = 0;
  MPI_OK(MPI_Win_get_group(w, &g));
  MPI_Group_size(g, &n);
  CHECK(n == t_size, "delete callback: group of %d", n);
  MPI_Group_free(&g);
  MPI_Info info;
  MPI_OK(MPI_Win_get_info(w, &info));
  MPI_Info_free(&info);
  /* No RMA call takes a window in MPI_Win_free (MPI_ERR_WIN through MPI_COMM_WORLD's handler),
   * not even a lock of a target locked before or a put after a fence epoch. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int peer = (t_rank + 1) % t_size;
  int v = 0, cls = MPI_SUCCESS, rc = MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_WIN, "delete callback: MPI_Win_lock gave class %d",
        cls);
  rc = MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, w);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_WIN, "delete callback: MPI_Put gave class %d", cls);
  rc = MPI_Win_unlock(peer, w);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_WIN, "delete callback: MPI_Win_unlock gave class %d",
        cls);
  rc = MPI_Win_flush(peer, w);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_WIN, "delete callback: MPI_Win_flush gave class %d",
        cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  deleted++;
  return MPI_SUCCESS;
}

static int handler_calls = 0;
static MPI_Win handler_win;
static void handler(MPI_Win* w, int* code, ...) {
  int cls;
  MPI_Error_class(*code, &cls);
  CHECK(*w == handler_win, "handler got another window");
  CHECK(cls == MPI_ERR_RANK, "handler got class %d", cls);
  handler_calls++;
}

static void info_value(MPI_Info info, const char* key, char* out, int* flag) {
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, out, flag);
}

int main(int argc, char** argv) {
  t_init(&argc, &argv);
  const int models_want = MPI_WIN_UNIFIED;
  for (int f = 0; f < T_NFLAVORS; f++) {
    struct t_win w;
    const MPI_Aint bytes = 40 + 8 * t_rank;
    const int du = f == T_DYNAMIC ? 1 : 4;
    if (!t_win_create(&w, (enum t_flavor)f, bytes, du, MPI_COMM_WORLD)) continue;
    void* base;
    MPI_Aint* size;
    int *disp, *flavor, *model, flag;
    MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag, "no base");
    CHECK(f == T_DYNAMIC ? base == MPI_BOTTOM : base == w.base, "%s base", t_flavor_names[f]);
    MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_SIZE, &size, &flag));
    CHECK(flag && *size == (f == T_DYNAMIC ? 0 : bytes), "%s size %ld", t_flavor_names[f],
          (long)*size);
    MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_DISP_UNIT, &disp, &flag));
    CHECK(flag && *disp == du, "%s disp unit %d", t_flavor_names[f], *disp);
    MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    const int want_flavor[] = {MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                               MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_DYNAMIC};
    CHECK(flag && *flavor == want_flavor[f], "%s flavor %d", t_flavor_names[f], *flavor);
    MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == models_want, "%s model %d", t_flavor_names[f], *model);

    MPI_Group g, wg;
    int cmp;
    MPI_OK(MPI_Win_get_group(w.win, &wg));
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "window group differs");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    MPI_Info info;
    char val[MPI_MAX_INFO_VAL + 1];
    MPI_OK(MPI_Win_get_info(w.win, &info));
    info_value(info, "osprey_version", val, &flag);
    CHECK(flag && strncmp(val, "osprey", 6) == 0, "no osprey_version in window info");
    info_value(info, "accumulate_ordering", val, &flag);
    CHECK(flag && strcmp(val, "rar,raw,war,waw") == 0, "default ordering: %s", val);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Info_set(info, "accumulate_ops", "same_op");
    MPI_OK(MPI_Win_set_info(w.win, info));
    MPI_Info_free(&info);
#ifdef MPICH_VERSION
    {
      /* A handle that names no info object is refused with MPI_ERR_INFO (errors returned
       * everywhere: the host reports the bad handle on MPI_COMM_WORLD or MPI_COMM_SELF first).
       * MPICH's handles are integers; this one has an object kind no info has. */
      const MPI_Info bogus = (MPI_Info)0x12345;
      MPI_Errhandler weh;
      MPI_Win_get_errhandler(w.win, &weh);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
      MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
      EXPECT_CLASS(MPI_ERR_INFO, MPI_Win_set_info(w.win, bogus));
      MPI_Win_set_errhandler(w.win, weh);
      MPI_Errhandler_free(&weh);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
      MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    }
#endif
    MPI_OK(MPI_Win_get_info(w.win, &info));
    info_value(info, "accumulate_ordering", val, &flag);
    CHECK(flag && strcmp(val, "none") == 0, "ordering after set_info: %s", val);
    info_value(info, "accumulate_ops", val, &flag);
    CHECK(flag && strcmp(val, "same_op") == 0, "ops after set_info: %s", val);
    MPI_Info_free(&info);
    /* Every hint echoes what the program set last, as MPICH answers: defaults first (equal
     * sizes are no promise of same_size), then each value set, whatever the window's layout. */
    static const char* const keys[] = {"no_locks", "same_size", "same_disp_unit",
                                       "alloc_shared_noncontig"};
    static const char* const values[] = {"false", "true", "false"};
    for (int v = 0; v < 3; v++) {
      MPI_OK(MPI_Win_get_info(w.win, &info));
      for (int k = 0; k < 4; k++) {
        info_value(info, keys[k], val, &flag);
        const char* want = v == 0 ? "false" : values[v - 1];
        CHECK(flag && strcmp(val, want) == 0, "%s: %s is '%s', want '%s'", t_flavor_names[f],
              keys[k], flag ? val : "(absent)", want);
      }
      MPI_Info_free(&info);
      MPI_Info_create(&info);
      for (int k = 0; k < 4; k++)
        MPI_Info_set(info, keys[k], values[v]);
      MPI_OK(MPI_Win_set_info(w.win, info));
      MPI_Info_free(&info);
    }

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Win_set_name(w.win, "my window"));
    MPI_OK(MPI_Win_get_name(w.win, name, &len));
    CHECK(strcmp(name, "my window") == 0, "name %s", name);

    int keyval;
    static int value = 42;
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &keyval, NULL));
    MPI_OK(MPI_Win_set_attr(w.win, keyval, &value));
    int* got;
    MPI_OK(MPI_Win_get_attr(w.win, keyval, &got, &flag));
    CHECK(flag && got == &value, "user attribute");

    MPI_Errhandler eh, cur;
    MPI_OK(MPI_Win_create_errhandler(handler, &eh));
    MPI_OK(MPI_Win_set_errhandler(w.win, eh));
    MPI_OK(MPI_Win_get_errhandler(w.win, &cur));
    handler_win = w.win;
    MPI_OK(MPI_Win_fence(0, w.win));
    int v = 0;
    MPI_Put(&v, 1, MPI_INT, t_size + 1, 0, 1, MPI_INT, w.win);
    CHECK(handler_calls == 1, "user error handler not called");
    handler_calls = 0;
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
    MPI_Errhandler_free(&eh);
    MPI_Errhandler_free(&cur);

    deleted = 0;
    void* b = NULL;
    MPI_Aint* sz = NULL;
    MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_BASE, &b, &flag));
    MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_SIZE, &sz, &flag));
    freed_base = b, freed_size = *sz;
    const int peer = (t_rank + 1) % t_size;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w.win));
    MPI_OK(MPI_Win_unlock(peer, w.win));
    MPI_OK(MPI_Win_fence(0, w.win));
    t_win_free(&w);
    CHECK(deleted == 1, "attribute delete callback ran %d times", deleted);
    MPI_Win_free_keyval(&keyval);
  }
  return t_finish("attributes");
}
