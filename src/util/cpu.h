// CPU-level helpers: spin hints and the full memory barrier (MEM_SYNC of the MPICH "New RMA
// Design").
#pragma once

#include <atomic>

namespace osprey::cpu {

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

// Full barrier ordering all earlier loads and stores before all later ones. On x86 a locked
// instruction on the stack is cheaper than mfence and equally strong for ordinary memory.
inline void mem_sync() {
#if defined(__x86_64__)
  asm volatile("lock orq $0, (%%rsp)" ::: "memory", "cc");
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// A full barrier next to a locked read-modify-write: on x86 the RMW already is one.
inline void mem_sync_beside_rmw() {
#if !defined(__x86_64__) && !defined(__i386__)
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

constexpr std::size_t kCacheLine = 64;

}  // namespace osprey::cpu
