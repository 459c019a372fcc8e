#include "datatype/flatten.h"

#include <vector>

namespace osprey::dt {
namespace {

struct Flat {
  std::vector<Block> blocks;
  Category cat = Category::kNone;
  Repr repr = Repr::kNone;
  uint32_t elem_size = 0;
};

void add_block(Flat& f, MPI_Aint off, MPI_Aint len) {
  if (len == 0) return;
  if (!f.blocks.empty()) {
    Block& last = f.blocks.back();
    if (last.off + last.len == off) {
      last.len += len;
      return;
    }
  }
  f.blocks.push_back({off, len});
}

void merge_kind(Flat& into, const Flat& child) {
  if (child.cat == Category::kNone) return;
  if (into.cat == Category::kNone) {
    into.cat = child.cat;
    into.repr = child.repr;
    into.elem_size = child.elem_size;
  } else if (into.repr != child.repr || into.cat != child.cat) {
    into.cat = Category::kMixed;
    into.repr = Repr::kNone;
    into.elem_size = 0;
  }
}

// Appends `child` shifted by `shift` bytes. Only data that is appended makes the basic type
// of the whole: a member repeated zero times (or of no data) is not part of the type map.
void append(Flat& into, const Flat& child, MPI_Aint shift) {
  for (const Block& b : child.blocks)
    add_block(into, shift + b.off, b.len);
  if (!child.blocks.empty()) merge_kind(into, child);
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0, ext = 0;
  PMPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

Status flatten_into(MPI_Datatype t, Flat& out);

// Flattens one child type of a constructor and frees it if the host handed us a new handle.
Status child_flat(MPI_Datatype t, Flat& out) {
  Status s = flatten_into(t, out);
  int ni, na, nd, comb;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  if (comb != MPI_COMBINER_NAMED) PMPI_Type_free(&t);
  return s;
}

Status flatten_subarray(const std::vector<int>& ints, MPI_Datatype old, Flat& out) {
  const int nd = ints[0];
  const int* sizes = &ints[1];
  const int* subs = &ints[1 + nd];
  const int* starts = &ints[1 + 2 * nd];
  const bool c_order = ints[1 + 3 * nd] == MPI_ORDER_C;
  Flat child;
  OSPREY_TRY(child_flat(old, child));
  const MPI_Aint ext = extent_of(old);
  // Byte stride of each dimension in memory order.
  std::vector<MPI_Aint> stride(static_cast<size_t>(nd));
  MPI_Aint s = ext;
  for (int k = 0; k < nd; ++k) {
    const int d = c_order ? nd - 1 - k : k;
    stride[static_cast<size_t>(d)] = s;
    s *= sizes[d];
  }
  for (int d = 0; d < nd; ++d)
    if (subs[d] == 0) return kOk;
  std::vector<int> idx(static_cast<size_t>(nd), 0);
  for (;;) {
    MPI_Aint off = 0;
    for (int d = 0; d < nd; ++d)
      off += static_cast<MPI_Aint>(starts[d] + idx[static_cast<size_t>(d)]) *
             stride[static_cast<size_t>(d)];
    append(out, child, off);
    // Advance the fastest-varying dimension first.
    int k = 0;
    for (; k < nd; ++k) {
      const int d = c_order ? nd - 1 - k : k;
      if (++idx[static_cast<size_t>(d)] < subs[d]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
    if (k == nd) break;
  }
  return kOk;
}

Status flatten_into(MPI_Datatype t, Flat& out) {
  if (const TypeInfo* p = predefined(t)) {
    Flat k;
    k.blocks = p->blocks;
    k.cat = p->cat;
    k.repr = p->repr;
    k.elem_size = p->elem_size;
    append(out, k, 0);
    return kOk;
  }
  int ni = 0, na = 0, nd = 0, comb = 0;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  if (comb == MPI_COMBINER_NAMED)
    return Err(MPI_ERR_TYPE, "osprey: this predefined datatype cannot be used in RMA");
  std::vector<int> ints(static_cast<size_t>(ni));
  std::vector<MPI_Aint> aints(static_cast<size_t>(na));
  std::vector<MPI_Datatype> types(static_cast<size_t>(nd));
  PMPI_Type_get_contents(t, ni, na, nd, ints.data(), aints.data(), types.data());

  auto free_types = [&](size_t from) {
    for (size_t i = from; i < types.size(); ++i) {
      int a, b, c, k;
      PMPI_Type_get_envelope(types[i], &a, &b, &c, &k);
      if (k != MPI_COMBINER_NAMED) PMPI_Type_free(&types[i]);
    }
  };

  switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: {
      Flat child;
      Status s = child_flat(types[0], child);
      if (!s.ok()) return s;
      append(out, child, 0);
      return kOk;
    }
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_HVECTOR_INTEGER: {
      const MPI_Aint ext = extent_of(types[0]);
      Flat child;
      OSPREY_TRY(child_flat(types[0], child));
      const int count = ints[0];
      const int bl = comb == MPI_COMBINER_CONTIGUOUS ? 1 : ints[1];
      MPI_Aint stride_bytes = 0;
      if (comb == MPI_COMBINER_VECTOR)
        stride_bytes = static_cast<MPI_Aint>(ints[2]) * ext;
      else if (comb == MPI_COMBINER_HVECTOR)
        stride_bytes = aints[0];
      else if (comb == MPI_COMBINER_HVECTOR_INTEGER)
        stride_bytes = ints[2];
      else
        stride_bytes = ext;
      for (int i = 0; i < count; ++i)
        for (int j = 0; j < bl; ++j)
          append(out, child, i * stride_bytes + j * ext);
      return kOk;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_INTEGER:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
      const MPI_Aint ext = extent_of(types[0]);
      Flat child;
      OSPREY_TRY(child_flat(types[0], child));
      const int count = ints[0];
      const bool block = comb == MPI_COMBINER_INDEXED_BLOCK || comb == MPI_COMBINER_HINDEXED_BLOCK;
      for (int i = 0; i < count; ++i) {
        const int bl = block ? ints[1] : ints[1 + i];
        MPI_Aint disp = 0;
        switch (comb) {
          case MPI_COMBINER_INDEXED:
            disp = static_cast<MPI_Aint>(ints[1 + count + i]) * ext;
            break;
          case MPI_COMBINER_INDEXED_BLOCK:
            disp = static_cast<MPI_Aint>(ints[2 + i]) * ext;
            break;
          case MPI_COMBINER_HINDEXED_INTEGER:
            disp = ints[1 + count + i];
            break;
          default:
            disp = aints[static_cast<size_t>(i)];
            break;
        }
        for (int j = 0; j < bl; ++j)
          append(out, child, disp + j * ext);
      }
      return kOk;
    }
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_STRUCT_INTEGER: {
      const int count = ints[0];
      for (int i = 0; i < count; ++i) {
        const MPI_Aint ext = extent_of(types[static_cast<size_t>(i)]);
        Flat child;
        Status s = flatten_into(types[static_cast<size_t>(i)], child);
        if (!s.ok()) {
          free_types(0);
          return s;
        }
        const MPI_Aint disp =
            comb == MPI_COMBINER_STRUCT ? aints[static_cast<size_t>(i)] : ints[1 + count + i];
        for (int j = 0; j < ints[1 + i]; ++j)
          append(out, child, disp + j * ext);
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

}  // namespace

Status flatten(MPI_Datatype t, TypeInfo& out) {
  Flat f;
  OSPREY_TRY(flatten_into(t, f));
  out.blocks = std::move(f.blocks);
  out.cat = f.cat;
  out.repr = f.repr;
  out.elem_size = f.elem_size;
  MPI_Aint covered = 0;
  for (const Block& b : out.blocks)
    covered += b.len;
  if (covered != out.size)
    return Err(MPI_ERR_TYPE, "osprey: datatype layout does not add up to its size");
  return kOk;
}

}  // namespace osprey::dt
