// Process-shared futex wait/wake on 32-bit words that live in shared mappings.
#pragma once

#include <atomic>
#include <cstdint>

namespace osprey::futex {

// Sleeps while *word == expected, at most timeout_ns. Spurious returns are possible.
void wait(std::atomic<uint32_t>* word, uint32_t expected, long timeout_ns);

// Wakes every sleeper on word.
void wake_all(std::atomic<uint32_t>* word);

}  // namespace osprey::futex
