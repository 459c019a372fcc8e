// Window creation for all four flavors: argument agreement, the node segment (control words
// and, for allocate flavors, the window memory), and registration.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "rma/acc_gate.h"
#include "rma/agree.h"
#include "rma/op_table.h"
#include "rma/paths.h"
#include "rma/registry.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"
#include "transport/am/setup_link.h"
#include "transport/shm/user_memory.h"
#include "util/config.h"
#include "util/log.h"

namespace osprey::rma {
namespace {

// Where MPI_Win_allocate memory starts within its first page. Not at the page start: a buffer
// from malloc (large ones start 16 bytes into a page) then sits 16 bytes past the window's
// data modulo 4 KiB, and glibc's memcpy of a get into it stalls on every load that matches a
// just-stored address in its low 12 bits (4K aliasing): 4-256 KiB gets ran 5-16 % slower.
// Half a page away, neither malloc's nor page-aligned buffers come near, in either direction.
// MPI_Win_allocate_shared keeps page starts (MPICH's, which programs may test for).
constexpr std::size_t kAllocatePageOffset = 2048;

// What each node member tells the node root at setup.
struct MemberInit {
  int64_t size;
  int64_t disp_unit;
  uint64_t user_base;
  int32_t pid;
  int32_t comm_rank;
  uint32_t kind;
  int32_t share_fd;
  uint64_t share_off;
  uint64_t share_len;
};

// What the node root tells the members once the segment exists.
struct Announce {
  shm::SegmentName name;
  uint64_t total;
  uint64_t stripes;
  uint64_t stage_bytes;
  int32_t ok;
  int32_t served;  // slots for served operations (served_ops.h)
};

shm::MemKind kind_for(Flavor f) {
  switch (f) {
    case Flavor::kAllocate:
    case Flavor::kShared:
      return shm::MemKind::kSegment;
    case Flavor::kCreate:
      return shm::MemKind::kPrivate;
    case Flavor::kDynamic:
      return shm::MemKind::kDynamic;
  }
  return shm::MemKind::kPrivate;
}

void fill_info(shm::RankInfo& ri, const MemberInit& m, uint64_t data_offset) {
  ri.pid = m.pid;
  ri.comm_rank = m.comm_rank;
  ri.kind = static_cast<shm::MemKind>(m.kind);
  ri.data_offset = data_offset;
  ri.size = static_cast<uint64_t>(m.size);
  ri.disp_unit = m.disp_unit;
  ri.user_base = m.user_base;
  ri.share_fd = m.share_fd;
  ri.share_off = m.share_off;
  ri.share_len = m.share_len;
}

}  // namespace

// Node-level setup over point-to-point messages on the private communicator (tagged with the
// window id, so concurrent creations on communicators that share it cannot mix).
Status Window::setup_segment(int64_t my_size, uint64_t user_base, bool contiguous) {
  const uint32_t nlocal = static_cast<uint32_t>(ci_->node_size());
  const uint32_t me_local = static_cast<uint32_t>(ci_->node_rank());
  const bool with_data = kind_for(flavor_) == shm::MemKind::kSegment;
  const bool dynamic = flavor_ == Flavor::kDynamic;
  const am::SetupLink link(ci_->priv(), setup_tag(id_), progress::poll);
  MemberInit me{my_size,   disp_unit_,
                user_base, static_cast<int32_t>(getpid()),
                rank_,     static_cast<uint32_t>(kind_for(flavor_)),
                -1,        0,
                0};
  shm::user_memory::Region region;
  bool moved = false;
  if (flavor_ == Flavor::kCreate && !force_am_ && nlocal > 1 &&
      shm::user_memory::share_in_place(reinterpret_cast<const void*>(user_base),
                                       static_cast<std::size_t>(my_size), config().share_in_place,
                                       &region, &moved)) {
    if (moved) moved_base_ = region.base;
    me.share_fd = region.fd;
    me.share_off = user_base - region.base;
    me.share_len = region.len;
  } else if (flavor_ == Flavor::kCreate && my_size > 0) {
    // Reached by cross-memory attach, or written by receives of the message path.
    exposed_base_ = user_base;
    exposed_len_ = static_cast<uint64_t>(my_size);
    shm::user_memory::expose(exposed_base_, exposed_len_);
  }

  if (me_local != 0) {
    const int root = ci_->comm_rank_of_local(0);
    link.send(root, &me, sizeof me);
    Announce a{};
    link.receive(root, &a, sizeof a);
    Status s = a.ok ? shm::Segment::attach(a.name, a.total, seg_)
                    : Err(MPI_ERR_NO_MEM, "osprey: the node could not create window memory");
    if (s.ok()) {
      const auto l = shm::SegmentLayout::compute(nlocal, nullptr, contiguous, a.stripes, dynamic,
                                                 nullptr, 0, a.stage_bytes, a.served != 0);
      view_ = shm::SegmentView(seg_.base(), l);
    }
    // 1: the segment is mapped; 2: so is every peer's MPI_Alloc_mem memory.
    const int mapped = s.ok() ? 1 | (map_user_memory() ? 2 : 0) : 0;
    link.send(root, &mapped, sizeof mapped);  // the root unlinks after every answer
    int shared = 0;
    link.receive(root, &shared, sizeof shared);
    if (!s.ok()) return s;
    if (!shared) unmap_user_memory();
    return kOk;
  }

  // Node root: gather members, lay out and create the segment, announce it.
  std::vector<int> peers(nlocal, -1);  // comm ranks of the other node members
  for (uint32_t i = 1; i < nlocal; ++i)
    peers[i] = ci_->comm_rank_of_local(static_cast<int>(i));
  std::vector<MemberInit> members(nlocal);
  members[0] = me;
  link.receive_each(peers, members.data(), sizeof(MemberInit));

  std::vector<uint64_t> sizes(nlocal), offsets(nlocal, 0);
  for (uint32_t i = 0; i < nlocal; ++i)
    sizes[i] = static_cast<uint64_t>(members[i].size);
  const std::size_t stripes = config().lock_stripes;
  // Private memory of node peers is reached by cross-memory attach: accumulates toward it may
  // wait in its owner's staging area (rma/acc_stage.h).
  // Only without the message path (which would run fence's barrier), and at most 1 GiB
  // (entries are found by 32-bit offsets).
  const bool staging = !with_data && nlocal > 1 && !uses_am_;
  const std::size_t stage = staging ? std::min<std::size_t>(config().acc_stage, 1u << 30) : 0;
  // Served operations (served_ops.h): windows over private memory, a slot per pair of node
  // ranks (128 bytes each: 128 KiB at 32 ranks, past which they are left out).
  const bool served = !with_data && nlocal > 1 && nlocal <= 32 && !force_am_;
  const auto l = shm::SegmentLayout::compute(
      nlocal, with_data ? sizes.data() : nullptr, contiguous, stripes, dynamic, offsets.data(),
      flavor_ == Flavor::kAllocate ? kAllocatePageOffset : 0, stage, served);
  Announce a{};
  a.total = l.total;
  a.stripes = stripes;
  a.stage_bytes = stage;
  a.served = served;
  Status s = nlocal == 1 ? shm::Segment::create_private(l.total, seg_)
                         : shm::Segment::create(l.total, seg_, a.name);
  a.ok = s.ok();
  if (s.ok()) {
    view_ = shm::SegmentView(seg_.base(), l);
    auto& h = view_.header();
    h.magic = shm::kSegmentMagic;
    h.nranks = nlocal;
    h.flavor = static_cast<uint32_t>(flavor_);
    for (uint32_t i = 0; i < nlocal; ++i)
      fill_info(view_.info(i), members[i], offsets[i]);
  }
  link.send_each(peers, &a, sizeof a);
  std::vector<int> mapped(nlocal, 1);
  int shared = s.ok() && map_user_memory() ? 1 : 0;
  link.receive_each(peers, mapped.data(), sizeof(int));
  shm::Segment::unlink(a.name);
  for (uint32_t i = 1; i < nlocal; ++i)
    shared &= (mapped[i] & 2) != 0;
  link.send_each(peers, &shared, sizeof shared);
  if (!shared) unmap_user_memory();
  return s;
}

bool Window::map_user_memory() {
  const uint32_t n = static_cast<uint32_t>(ci_->node_size());
  user_maps_.assign(n, UserMap{});
  bool all = true;
  for (uint32_t i = 0; i < n; ++i) {
    const shm::RankInfo& ri = view_.info(i);
    if (ri.share_fd < 0 || i == static_cast<uint32_t>(ci_->node_rank())) continue;
    void* p = shm::user_memory::map_peer(ri.pid, ri.share_fd, ri.share_len);
    if (!p) {
      all = false;
      continue;
    }
    user_maps_[i] = {static_cast<char*>(p), static_cast<std::size_t>(ri.share_len)};
  }
  user_shared_ = all;
  return all;
}

void Window::unmap_user_memory() {
  for (UserMap& m : user_maps_)
    if (m.addr) munmap(m.addr, m.len);
  user_maps_.clear();
  user_shared_ = false;
}

void Window::release_user_memory() {
  if (memory_released_) return;
  memory_released_ = true;
  if (moved_base_) shm::user_memory::release_in_place(moved_base_);
  moved_base_ = 0;
  if (exposed_len_) shm::user_memory::unexpose(exposed_base_, exposed_len_);
  exposed_len_ = 0;
  // Regions a dynamic window still has attached at its end.
  if (flavor_ == Flavor::kDynamic)
    for (const shm::AttachedRegion& r : attach_.own_regions())
      release_attached(r);
}

void Window::setup_fast_targets() {
  const bool segment = flavor_ == Flavor::kAllocate || flavor_ == Flavor::kShared;
  // MPI_Win_create over MPI_Alloc_mem memory that the node shares: its ranks are served like
  // segment memory; ranks over private memory get a size the fast path never fits. A dynamic
  // window's puts and gets take the regions its general path resolved (DynamicTarget), when its
  // node peers' path is the cross-memory one, whose lock and PSCW words the fast path's are.
  const bool dynamic = flavor_ == Flavor::kDynamic && !threads_ && ci_->cma_ok();
  if (force_am_ || (!segment && !dynamic && !(flavor_ == Flavor::kCreate && user_shared_))) return;
  const int n = ci_->node_size(), first = ci_->comm_rank_of_local(0);
  for (int i = 0; i < n; ++i)
    if (ci_->comm_rank_of_local(i) != first + i) return;  // node ranks not contiguous
  fast_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const shm::RankInfo& ri = view_.info(static_cast<uint32_t>(i));
    FastTarget& f = fast_[static_cast<size_t>(i)];
    if (segment) {
      f = {view_.data(ri.data_offset), static_cast<int64_t>(ri.size), ri.disp_unit};
    } else if (user_shared(i)) {
      char* base = i == ci_->node_rank() ? reinterpret_cast<char*>(ri.user_base)
                                         : user_maps_[static_cast<size_t>(i)].addr + ri.share_off;
      f = {base, static_cast<int64_t>(ri.size), ri.disp_unit};
    } else {
      f = {nullptr, -1, ri.disp_unit};
    }
  }
  if (dynamic) dynamic_fast_.resize(static_cast<size_t>(n));
  fast_first_ = first;
  fast_count_ = n;
}

void Window::finish_setup(const Args& a) {
  stripes_ = Stripes(&view_);
  node_rank_ = static_cast<uint32_t>(ci_->node_rank());
  bulk_min_ = bulk_min_elements(static_cast<uint32_t>(ci_->node_size()));
  barrier_ = shm::NodeBarrier(view_.barrier_slots(), static_cast<uint32_t>(ci_->node_size()),
                              static_cast<uint32_t>(ci_->node_rank()));
  central_ = shm::CentralBarrier(view_.central_barrier(), static_cast<uint32_t>(ci_->node_size()));
  switch (a.flavor) {
    case Flavor::kAllocate:
    case Flavor::kShared:
      base_ = view_.data(view_.info(static_cast<uint32_t>(ci_->node_rank())).data_offset);
      break;
    case Flavor::kCreate:
      base_ = a.base;
      break;
    case Flavor::kDynamic:
      base_ = MPI_BOTTOM;
      attach_.init(view_.attach_headers(), static_cast<uint32_t>(ci_->node_size()),
                   static_cast<uint32_t>(ci_->node_rank()));
      peer_regions_.init(static_cast<uint32_t>(ci_->node_size()), threads_);
      break;
  }
  PMPI_Comm_group(ci_->priv(), &group_);
  local_paths_.resize(static_cast<std::size_t>(ci_->node_size()));
  direct_locals_.resize(local_paths_.size());
  for (int i = 0; i < ci_->node_size(); ++i) {
    const std::size_t at = static_cast<std::size_t>(i);
    local_paths_[at] = path_to(i, &view_.info(static_cast<uint32_t>(i)));
    direct_locals_[at] = local_paths_[at] == direct_path();
  }
  remote_path_ = message_path();
  path_name_ = paths_in_use();
  cma_queue_.init(ci_->node_size(), config().cma_queue_limit);
  stage_.init(view_, node_rank_, static_cast<uint32_t>(ci_->node_size()));
  // Served operations only where some go by cross-memory attach: toward this rank's private
  // memory, or from it to a peer's. A window whose memory all moved in place has slots
  // nobody looks at.
  const bool reached =
      flavor_ == Flavor::kDynamic ||
      (flavor_ == Flavor::kCreate && !user_shared(ci_->node_rank()) && ci_->cma_ok() && !force_am_);
  const bool reaches =
      std::find(local_paths_.begin(), local_paths_.end(), cma_path()) != local_paths_.end();
  if (reached || reaches)
    served_.init(
        view_, node_rank_, static_cast<uint32_t>(ci_->node_size()),
        [](void* w, shm::ServeSlot& s) { static_cast<Window*>(w)->apply_served(s); }, this);
  setup_fast_targets();
}

Status Window::create(const Args& a, Window** out) {
  if (a.comm == MPI_COMM_NULL) return Err(MPI_ERR_COMM, "osprey: window on MPI_COMM_NULL");
  Status local = kOk;
  if (a.size < 0)
    local = Err(MPI_ERR_SIZE, "osprey: negative window size");
  else if (a.disp_unit <= 0)
    local = Err(MPI_ERR_DISP, "osprey: displacement unit must be positive");
  else if (a.disp_unit > INT32_MAX)
    local = Err(MPI_ERR_DISP, "osprey: displacement unit does not fit the window attribute");
  else if (a.anchor == MPI_WIN_NULL)
    local = Err(MPI_ERR_INTERN, "osprey: could not create the window handle");

  CommInfo* ci = nullptr;
  OSPREY_TRY(CommInfo::acquire(a.comm, &ci));
  std::unique_ptr<Window> w(new Window);
  w->ci_ = ci;
  w->anchor_ = a.anchor;
  w->flavor_ = a.flavor;
  w->flavor_int_ = static_cast<int>(a.flavor);
  w->rank_ = ci->rank();
  w->nranks_ = ci->size();
  w->size_ = a.flavor == Flavor::kDynamic ? 0 : a.size;
  w->disp_unit_ = a.flavor == Flavor::kDynamic ? 1 : a.disp_unit;
  w->disp_unit_int_ = static_cast<int>(w->disp_unit_);
  const Status hinted = w->hints_.read(a.info);
  if (local.ok()) local = hinted;
  w->force_am_ = config().transport == TransportMode::kAm;
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  w->threads_ = level == MPI_THREAD_MULTIPLE;

  // One agreement: errors, window id, uniformity of sizes, the layout hint, the flavor.
  const int64_t flavor = static_cast<int64_t>(a.flavor);
  int64_t v[9] = {local.cls,
                  static_cast<int64_t>(ci->proposed_window_id()),
                  w->size_,
                  -w->size_,
                  w->disp_unit_,
                  -w->disp_unit_,
                  w->hints_.alloc_shared_noncontig ? 1 : 0,
                  flavor,
                  -flavor};
  agree_max(a.comm, v, 9);
  Status agreed = kOk;
  if (v[0] != 0) {
    agreed = local.ok()
                 ? Err(static_cast<int>(v[0]), "osprey: window creation failed on another rank")
                 : local;
  } else if (v[7] != -v[8]) {
    agreed = Err(MPI_ERR_OTHER, "osprey: ranks called different window creation functions");
  } else if (a.flavor == Flavor::kShared && !ci->all_on_node()) {
    agreed = Err(MPI_ERR_RMA_SHARED,
                 "osprey: MPI_Win_allocate_shared needs all ranks of the communicator on one node");
  }
  if (!agreed.ok()) {
    w->anchor_ = MPI_WIN_NULL;  // the caller owns the anchor on failure
    return agreed;              // ~Window gives the CommInfo back
  }
  w->id_ = static_cast<uint64_t>(v[1]);
  ci->window_id_used(w->id_);
  // The layout follows the hint if any rank gave it; the hints keep what this rank was told.
  const bool contiguous = a.flavor == Flavor::kShared && v[6] == 0;
  const uint64_t user_base = a.flavor == Flavor::kCreate ? reinterpret_cast<uint64_t>(a.base) : 0;
  // The message path serves targets on other nodes, node peers whose private memory cross-
  // memory attach cannot reach, and everything when forced. Every rank decides alike.
  const bool private_memory = a.flavor == Flavor::kCreate || a.flavor == Flavor::kDynamic;
  w->uses_am_ = w->force_am_ || !ci->all_on_node() ||
                (private_memory && ci->node_size() > 1 && !ci->cma_ok());
  Status s = w->setup_segment(w->size_, user_base, contiguous);
  if (w->uses_am_ && s.ok() && !am::host_tags_suffice())
    s = Err(MPI_ERR_UNSUPPORTED_OPERATION,
            "osprey: the host's MPI_TAG_UB is too small for the message path");
  if (w->uses_am_) {
    ci->start_endpoint();
    init_global_pools(config().op_pool_global, config().target_pool_global);
    w->am_ = std::make_unique<AmState>();
    w->am_->table.init(config().slots, config().op_pool_local, config().target_pool_local);
    w->am_->table.count_into(&ci->am_work());
  }
  if (!ci->all_on_node())
    w->remote_.init(a.comm, v[2] == -v[3] && v[4] == -v[5], w->size_, w->disp_unit_);
  // Complete and registered before the final agreement: once any rank leaves it, requests for
  // this window can reach ranks still waiting in it, whose progress serves them.
  if (s.ok()) {
    w->finish_setup(a);
    ci->add_window(w->id_, w.get());
  }
  int64_t ok[1] = {s.ok() ? 0 : static_cast<int64_t>(s.cls)};
  agree_max(a.comm, ok, 1);
  if (ok[0] != 0 && s.ok()) ci->remove_window(w->id_);
  if (ok[0] != 0) {
    w->anchor_ = MPI_WIN_NULL;
    return s.ok()
               ? Err(static_cast<int>(ok[0]), "osprey: window memory setup failed on another rank")
               : s;
  }

  OSPREY_LOG(1, "window %llu: flavor %d, %lld bytes, %d ranks (%d on this node), path %s",
             static_cast<unsigned long long>(w->id_), w->flavor_int_,
             static_cast<long long>(w->size_), w->nranks_, ci->node_size(), w->path_name());
  register_window(w->anchor_, w.get());
  *out = w.release();
  return kOk;
}

}  // namespace osprey::rma
