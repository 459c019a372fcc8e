// A communicator's message endpoint hands arriving requests to the window they name, and lets
// every window of the communicator advance its waiting work.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "progress/engine.h"
#include "progress/host_hook.h"
#include "progress/thread.h"
#include "rma/comm_info.h"
#include "rma/window.h"
#include "transport/am/endpoint.h"
#include "transport/am/request_check.h"
#include "util/config.h"
#include "util/log.h"

namespace osprey::rma {
namespace {

// The communicators whose endpoints the progress engine polls, guarded by endpoints_mu (held
// while they are polled, so an endpoint cannot go away under the poller).
progress::EngineMutex endpoints_mu;
std::vector<CommInfo*>& active() {
  static auto* v = new std::vector<CommInfo*>;  // lives until exit
  return *v;
}

std::atomic<int> endpoints{0};

}  // namespace

// Hands arriving requests to the window they name, and lets every window of the communicator
// advance its waiting work. windows_mu_ is held meanwhile, so that a window cannot be freed
// while it handles a request.
class CommInfo::Dispatch : public am::Handler {
 public:
  explicit Dispatch(CommInfo* ci) : ci_(ci) {}
  bool on_request(am::Endpoint& ep, int src, const char* msg, std::size_t n) override {
    const auto* r = reinterpret_cast<const am::Request*>(msg);
    if (const int cls = am::check_request(msg, n)) return reject(ep, src, msg, n, cls);
    std::lock_guard<progress::EngineMutex> g(ci_->windows_mu_);
    Window* w = ci_->window(r->window);
    if (!w) return reject(ep, src, msg, n, MPI_ERR_WIN);
    return w->am_on_request(ep, src, msg, n);
  }
  bool advance(am::Endpoint& ep) override {
    if (ci_->am_work().load(std::memory_order_relaxed) == 0) return false;
    bool did = false;
    std::lock_guard<progress::EngineMutex> g(ci_->windows_mu_);
    for (const auto& kv : ci_->windows_)
      if (kv.second->am_may_have_work()) did |= kv.second->am_advance(ep);
    return did;
  }

 private:
  // A request nothing may act on: its sender learns why, if it can be answered at all.
  static bool reject(am::Endpoint& ep, int src, const char* msg, std::size_t n, int cls) {
    OSPREY_LOG(1, "malformed request from rank %d dropped (error class %d)", src, cls);
    if (n >= sizeof(am::Request)) {
      am::Request r;
      std::memcpy(&r, msg, sizeof r);
      if (r.reply_tag && am::reply_tag_ok(r.reply_tag)) ep.reply(src, r.reply_tag, cls, nullptr, 0);
    }
    return true;
  }
  CommInfo* ci_;
};

void CommInfo::start_endpoint() {
  std::lock_guard<progress::EngineMutex> g(endpoints_mu);
  if (endpoint_) return;
  dispatch_ = new Dispatch(this);
  endpoint_ = new am::Endpoint(priv_, dispatch_);
  active().push_back(this);
  endpoints.fetch_add(1);
  progress::add_poller(am_poll);
  progress::register_host_hook();  // Open MPI: its progress loop runs ours too
  if (config().progress_thread) progress::start_thread();
}

void CommInfo::add_window(uint64_t id, Window* w) {
  std::lock_guard<progress::EngineMutex> g(windows_mu_);
  windows_.emplace(id, w);
}

void CommInfo::remove_window(uint64_t id) {
  std::lock_guard<progress::EngineMutex> g(windows_mu_);
  const auto it = windows_.find(id);
  if (it == windows_.end()) return;
  am_work_.fetch_sub(it->second->am_work(), std::memory_order_relaxed);  // left behind, if any
  windows_.erase(it);
}

Window* CommInfo::window(uint64_t id) const {
  const auto it = windows_.find(id);
  return it == windows_.end() ? nullptr : it->second;
}

void CommInfo::stop_endpoint() {
  std::lock_guard<progress::EngineMutex> g(endpoints_mu);
  if (!endpoint_) return;
  delete endpoint_;
  delete dispatch_;
  endpoint_ = nullptr;
  dispatch_ = nullptr;
  auto& a = active();
  a.erase(std::remove(a.begin(), a.end(), this), a.end());
  endpoints.fetch_sub(1);
}

bool am_endpoints_exist() {
  return endpoints.load(std::memory_order_relaxed) > 0;
}

bool am_poll() {
  std::unique_lock<progress::EngineMutex> g(endpoints_mu, std::try_to_lock);
  if (!g.owns_lock()) return false;  // another thread is polling, or endpoints change
  // Requests run below: a host call they make that calls back into progress (Open MPI's hook)
  // must not run another request in the middle of this one.
  progress::EngineSection handling;
  bool did = false;
  for (CommInfo* ci : active())
    did |= ci->endpoint()->poll();
  return did;
}

}  // namespace osprey::rma
