#include "datatype/flatten.h"

#include "util/small_vec.h"

namespace osprey::dt {
namespace {

// MPI-1's Fortran-integer combiners are gone from MPI-3.0 headers: Open MPI turns their names
// into compile errors, MPICH still defines them (its Fortran bindings may build such types).
#ifdef OPEN_MPI
constexpr int kHvectorInteger = -1001, kHindexedInteger = -1002, kStructInteger = -1003;
#else
constexpr int kHvectorInteger = MPI_COMBINER_HVECTOR_INTEGER;
constexpr int kHindexedInteger = MPI_COMBINER_HINDEXED_INTEGER;
constexpr int kStructInteger = MPI_COMBINER_STRUCT_INTEGER;
#endif

// Decoded blocks live in place up to this many (see small_vec.h).
using Blocks = SmallVec<Block, 4>;

struct Flat {
  Blocks blocks;
  Category cat = Category::kNone;
  Repr repr = Repr::kNone;
  uint16_t ops = 0;
  uint32_t elem_size = 0;
};

// Brings a strided block to its simplest equal form, in place (a fresh type's decode runs this
// per level: passing 48-byte blocks by value cost store-forwarding stalls): runs that touch
// become one run, and an unused inner level gives way to the outer one.
void normalize(Block& b) {
  for (;;) {
    if (b.n1 > 1 && b.s1 == b.len) {  // the inner runs touch
      b.len *= b.n1;
      b.n1 = 1;
      b.s1 = 0;
    }
    if (b.n1 == 1 && b.n2 > 1) {  // the outer level becomes the inner one
      b.n1 = b.n2;
      b.s1 = b.s2;
      b.n2 = 1;
      b.s2 = 0;
      if (b.s1 == b.len) continue;
    }
    if (b.n2 > 1 && b.s2 == b.n1 * b.s1) {  // the outer level continues the inner one
      b.n1 *= b.n2;
      b.n2 = 1;
      b.s2 = 0;
      continue;
    }
    if (b.n1 == 1) b.s1 = 0;
    return;
  }
}

// Appends one strided block after the others, folding it into the last one where the pair is
// one strided block: a run that touches the last, the next run of a stride, the next row of
// rows. So an indexed type whose blocks are evenly spaced decodes as compactly as a vector.
void add_block(Flat& f, const Block& in) {
  if (in.len == 0 || in.n1 == 0 || in.n2 == 0) return;
  Block b = in;
  if (!b.plain()) normalize(b);  // plain blocks (the common case) are normal
  if (f.blocks.empty()) {
    f.blocks.push_back(b);
    return;
  }
  Block& last = f.blocks.back();
  if (b.plain()) {
    if (last.plain() && last.off + last.len == b.off) {
      last.len += b.len;
      return;
    }
    if (last.n2 == 1 && b.len == last.len) {
      if (last.n1 == 1) {
        last.n1 = 2;
        last.s1 = b.off - last.off;
        return;
      }
      if (b.off == last.off + last.n1 * last.s1) {
        ++last.n1;
        return;
      }
    }
  } else if (b.n2 == 1 && b.len == last.len && b.n1 == last.n1 && b.s1 == last.s1) {
    if (last.n2 == 1) {
      last.n2 = 2;
      last.s2 = b.off - last.off;
      normalize(last);
      return;
    }
    if (b.off == last.off + last.n2 * last.s2) {
      ++last.n2;
      return;
    }
  }
  f.blocks.push_back(b);
}

void merge_kind(Flat& into, Category cat, Repr repr, uint16_t ops, uint32_t elem_size) {
  if (cat == Category::kNone) return;
  if (into.cat == Category::kNone) {
    into.cat = cat;
    into.repr = repr;
    into.ops = ops;
    into.elem_size = elem_size;
  } else if (into.repr != repr || into.cat != cat) {
    into.cat = Category::kMixed;
    into.repr = Repr::kNone;
    into.ops = 0;
    into.elem_size = 0;
  } else {
    into.ops &= ops;  // the same element from types the host treats apart
  }
}

void merge_kind(Flat& into, const Flat& child) {
  merge_kind(into, child.cat, child.repr, child.ops, child.elem_size);
}

// Appends `child` shifted by `shift` bytes. Only data that is appended makes the basic type
// of the whole: a member repeated zero times (or of no data) is not part of the type map.
void append(Flat& into, const Flat& child, MPI_Aint shift) {
  for (Block b : child.blocks) {
    b.off += shift;
    add_block(into, b);
  }
  if (!child.blocks.empty()) merge_kind(into, child);
}

// The same, taking child's blocks over when `into` has none yet (no copy, no allocation).
void append(Flat& into, Flat&& child, MPI_Aint shift) {
  if (!into.blocks.empty() || child.blocks.empty()) {
    append(into, static_cast<const Flat&>(child), shift);
    return;
  }
  for (Block& b : child.blocks)
    b.off += shift;
  into.blocks = std::move(child.blocks);
  merge_kind(into, child);
}

// Takes n copies of b, the i-th shifted by i * step, as a level of b if it has one to spare
// (n >= 2); false if b already uses both levels in another way.
bool fold(Block& b, int64_t n, MPI_Aint step) {
  if (b.n1 == 1) {
    b.n1 = n;
    b.s1 = step;
  } else if (b.n2 == 1) {
    b.n2 = n;
    b.s2 = step;
  } else if (b.s2 * b.n2 == step) {
    b.n2 *= n;
  } else {
    return false;
  }
  normalize(b);
  return true;
}

// Makes `f` n copies of itself, the i-th shifted by i * step. A single strided block with a
// level to spare takes the repetition as that level, in place, so decoding costs the
// description; only several blocks (or a block of two levels already) are copied out n times.
void repeat(Flat& f, int64_t n, MPI_Aint step) {
  if (n <= 0) f.blocks.clear();
  if (n <= 1 || f.blocks.empty()) return;
  if (f.blocks.size() == 1 && fold(f.blocks[0], n, step)) return;
  Flat out;
  for (int64_t i = 0; i < n; ++i)
    append(out, f, i * step);
  f.blocks = std::move(out.blocks);
}

// Appends n copies of `child`, the i-th shifted by shift + i * step (an indexed type's block,
// a struct member): a child of one block needs no copy of its list.
void append_repeat(Flat& into, const Flat& child, MPI_Aint shift, int64_t n, MPI_Aint step) {
  if (n <= 0 || child.blocks.empty()) return;
  if (child.blocks.size() == 1) {
    const Block& c = child.blocks[0];
    if (c.plain() && c.len == step) {  // a run of dense elements: one plain block
      add_block(into, Block{c.off + shift, c.len * n});
      merge_kind(into, child);
      return;
    }
    Block b = c;
    if (n == 1 || fold(b, n, step)) {
      b.off += shift;
      add_block(into, b);
      merge_kind(into, child);
      return;
    }
  }
  Flat copy = child;
  repeat(copy, n, step);
  append(into, std::move(copy), shift);
}

MPI_Aint extent_of(MPI_Datatype t) {
  if (const TypeInfo* p = predefined(t)) return p->extent;
  MPI_Aint lb = 0, ext = 0;
  PMPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

}  // namespace

// Where the host has the MPI-4 large-count query it is used for every type: a type built by a
// `_c` constructor can only be read that way, and its counts are moved to where the int
// constructor keeps them.
#if MPI_VERSION >= 4
static int combiner_of(MPI_Datatype t) {
  MPI_Count ni, na, nc, nd;
  int comb = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb);
  return comb;
}

Contents read_contents(MPI_Datatype t) {
  Contents c;
  MPI_Count ni, na, nc, nd;
  PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &c.comb);
  if (c.comb == MPI_COMBINER_NAMED) return c;
  SmallVec<int, 40> ints;
  SmallVec<MPI_Count, 24> counts;
  ints.resize(static_cast<size_t>(ni));
  counts.resize(static_cast<size_t>(nc));
  c.aints.resize(static_cast<size_t>(na));
  c.types.resize(static_cast<size_t>(nd));
  PMPI_Type_get_contents_c(t, ni, na, nc, nd, ints.data(), c.aints.data(), counts.data(),
                           c.types.data());
  c.ints.resize(ints.size());
  for (size_t i = 0; i < ints.size(); ++i)
    c.ints[i] = ints[i];
  if (nc == 0) return c;
  c.large = true;
  const auto n = static_cast<size_t>(counts.empty() ? 0 : counts[0]);
  auto from = [&](size_t a, size_t b) {
    c.ints.resize(b - a);
    for (size_t i = a; i < b; ++i)
      c.ints[i - a] = counts[i];
  };
  auto addresses = [&](size_t a) {
    c.aints.resize(counts.size() - a);
    for (size_t i = a; i < counts.size(); ++i)
      c.aints[i - a] = static_cast<MPI_Aint>(counts[i]);
  };
  switch (c.comb) {
    case MPI_COMBINER_HVECTOR:  // count, blocklength | stride
      from(0, 2);
      addresses(2);
      break;
    case MPI_COMBINER_HINDEXED:  // count, blocklengths | displacements
    case MPI_COMBINER_STRUCT:
      from(0, 1 + n);
      addresses(1 + n);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:  // count, blocklength | displacements
      from(0, 2);
      addresses(2);
      break;
    case MPI_COMBINER_RESIZED:  // | lb, extent
      c.ints.clear();
      addresses(0);
      break;
    case MPI_COMBINER_SUBARRAY: {  // ndims, sizes, subsizes, starts, order
      c.ints.clear();
      c.ints.push_back(ints[0]);
      for (size_t i = 0; i < counts.size(); ++i)
        c.ints.push_back(counts[i]);
      c.ints.push_back(ints[1]);
      break;
    }
    default:  // contiguous, vector, indexed, indexed_block: all counts, in order
      from(0, counts.size());
      break;
  }
  return c;
}
#else
static int combiner_of(MPI_Datatype t) {
  int ni, na, nd, comb = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  return comb;
}

Contents read_contents(MPI_Datatype t) {
  Contents c;
  int ni, na, nd;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &c.comb);
  if (c.comb == MPI_COMBINER_NAMED) return c;
  SmallVec<int, 40> ints;
  ints.resize(static_cast<size_t>(ni));
  c.aints.resize(static_cast<size_t>(na));
  c.types.resize(static_cast<size_t>(nd));
  PMPI_Type_get_contents(t, ni, na, nd, ints.data(), c.aints.data(), c.types.data());
  c.ints.resize(ints.size());
  for (size_t i = 0; i < ints.size(); ++i)
    c.ints[i] = ints[i];
  return c;
}
#endif

namespace {

thread_local bool freeing_returned = false;

// Frees a derived handle a contents query returned. Under MPICH it is the argument's own handle
// with one reference more, a type the program may still use (in another thread, too): its
// cache entry must stay, or a decoding in use there would be released under it.
void free_returned(MPI_Datatype* t) {
  freeing_returned = true;
  PMPI_Type_free(t);
  freeing_returned = false;
}

// Whether the host made a new handle for a constructor argument (which must then be freed):
// predefined types are told by osprey's own table, without asking the host.
bool derived(MPI_Datatype t) {
  return !predefined(t) && combiner_of(t) != MPI_COMBINER_NAMED;
}

Status flatten_into(MPI_Datatype t, Flat& out);

// Flattens one child type of a constructor and frees it if the host handed us a new handle.
Status child_flat(MPI_Datatype t, Flat& out) {
  Status s = flatten_into(t, out);
  if (derived(t)) free_returned(&t);
  return s;
}

Status flatten_subarray(const Ints& ints, MPI_Datatype old, Flat& out) {
  const int nd = static_cast<int>(ints[0]);
  const int64_t* sizes = &ints[1];
  const int64_t* subs = &ints[1 + nd];
  const int64_t* starts = &ints[1 + 2 * nd];
  const bool c_order = ints[static_cast<size_t>(1 + 3 * nd)] == MPI_ORDER_C;
  Flat child;
  OSPREY_TRY(child_flat(old, child));
  const MPI_Aint ext = extent_of(old);
  // Byte stride of each dimension in memory order.
  Aints stride;
  stride.resize(static_cast<size_t>(nd));
  MPI_Aint s = ext;
  for (int k = 0; k < nd; ++k) {
    const int d = c_order ? nd - 1 - k : k;
    stride[static_cast<size_t>(d)] = s;
    s *= sizes[d];
  }
  for (int d = 0; d < nd; ++d)
    if (subs[d] == 0) return kOk;
  // Rows of the fastest dimension, repeated along each slower one: a strided block per level,
  // not a copy per row.
  Flat whole = std::move(child);
  MPI_Aint first = 0;
  for (int k = 0; k < nd; ++k) {
    const auto d = static_cast<size_t>(c_order ? nd - 1 - k : k);
    repeat(whole, subs[d], stride[d]);
    first += static_cast<MPI_Aint>(starts[d]) * stride[d];
  }
  append(out, std::move(whole), first);
  return kOk;
}

Status flatten_contents(Contents& c, Flat& out);

Status flatten_into(MPI_Datatype t, Flat& out) {
  if (const TypeInfo* p = predefined(t)) {
    for (const Block& b : p->blocks)  // plain blocks
      add_block(out, b);
    if (!p->blocks.empty()) merge_kind(out, p->cat, p->repr, p->ops, p->elem_size);
    return kOk;
  }
  Contents c = read_contents(t);
  return flatten_contents(c, out);
}

Status flatten_contents(Contents& c, Flat& out) {
  const int comb = c.comb;
  if (comb == MPI_COMBINER_NAMED)
    return Err(MPI_ERR_TYPE, "osprey: this predefined datatype cannot be used in RMA");
  const Ints& ints = c.ints;
  const Aints& aints = c.aints;
  Types& types = c.types;

  auto free_types = [&](size_t from) {
    for (size_t i = from; i < types.size(); ++i)
      if (derived(types[i])) free_returned(&types[i]);
  };

  switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: {
      Flat child;
      Status s = child_flat(types[0], child);
      if (!s.ok()) return s;
      append(out, std::move(child), 0);
      return kOk;
    }
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case kHvectorInteger: {
      const MPI_Aint ext = extent_of(types[0]);
      Flat child;
      OSPREY_TRY(child_flat(types[0], child));
      const int64_t count = ints[0];
      const int64_t bl = comb == MPI_COMBINER_CONTIGUOUS ? 1 : ints[1];
      MPI_Aint stride_bytes = 0;
      if (comb == MPI_COMBINER_VECTOR)
        stride_bytes = static_cast<MPI_Aint>(ints[2]) * ext;
      else if (comb == MPI_COMBINER_HVECTOR)
        stride_bytes = aints[0];
      else if (comb == kHvectorInteger)
        stride_bytes = ints[2];
      else
        stride_bytes = ext;
      repeat(child, bl, ext);
      repeat(child, count, stride_bytes);
      append(out, std::move(child), 0);
      return kOk;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case kHindexedInteger:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
      const MPI_Aint ext = extent_of(types[0]);
      Flat child;
      OSPREY_TRY(child_flat(types[0], child));
      const int64_t count = ints[0];
      const bool block = comb == MPI_COMBINER_INDEXED_BLOCK || comb == MPI_COMBINER_HINDEXED_BLOCK;
      for (int64_t i = 0; i < count; ++i) {
        const int64_t bl = block ? ints[1] : ints[static_cast<size_t>(1 + i)];
        MPI_Aint disp = 0;
        switch (comb) {
          case MPI_COMBINER_INDEXED:
            disp = ints[static_cast<size_t>(1 + count + i)] * ext;
            break;
          case MPI_COMBINER_INDEXED_BLOCK:
            disp = ints[static_cast<size_t>(2 + i)] * ext;
            break;
          case kHindexedInteger:
            disp = ints[static_cast<size_t>(1 + count + i)];
            break;
          default:
            disp = aints[static_cast<size_t>(i)];
            break;
        }
        append_repeat(out, child, disp, bl, ext);
      }
      return kOk;
    }
    case MPI_COMBINER_STRUCT:
    case kStructInteger: {
      const int64_t count = ints[0];
      for (int64_t i = 0; i < count; ++i) {
        const MPI_Aint ext = extent_of(types[static_cast<size_t>(i)]);
        Flat child;
        Status s = flatten_into(types[static_cast<size_t>(i)], child);
        if (!s.ok()) {
          free_types(0);
          return s;
        }
        const MPI_Aint disp = comb == MPI_COMBINER_STRUCT
                                  ? aints[static_cast<size_t>(i)]
                                  : ints[static_cast<size_t>(1 + count + i)];
        append_repeat(out, child, disp, ints[static_cast<size_t>(1 + i)], ext);
      }
      free_types(0);
      return kOk;
    }
    case MPI_COMBINER_SUBARRAY:
      return flatten_subarray(ints, types[0], out);
    default:
      free_types(0);
      return Err(MPI_ERR_TYPE,
                 "osprey: RMA does not support this datatype constructor (darray or f90 types)");
  }
}

// The decoded blocks and kind into `out`, checked against the size the host reported.
Status finish(const Flat& f, TypeInfo& out) {
  out.blocks.assign(f.blocks.begin(), f.blocks.end());
  out.cat = f.cat;
  out.repr = f.repr;
  out.ops = f.ops;
  out.elem_size = f.elem_size;
  MPI_Aint covered = 0;
  for (const Block& b : out.blocks)
    covered += b.bytes();
  if (covered != out.size)
    return Err(MPI_ERR_TYPE, "osprey: datatype layout does not add up to its size");
  return kOk;
}

}  // namespace

Status flatten(MPI_Datatype t, TypeInfo& out) {
  Flat f;
  OSPREY_TRY(flatten_into(t, f));
  return finish(f, out);
}

Status flatten(Contents& c, TypeInfo& out) {
  Flat f;
  OSPREY_TRY(flatten_contents(c, f));
  return finish(f, out);
}

bool freeing_returned_handle() {
  return freeing_returned;
}

}  // namespace osprey::dt
