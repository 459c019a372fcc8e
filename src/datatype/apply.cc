#include "datatype/apply.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>

#include "util/copy.h"

namespace osprey::dt {
namespace {

// --- value types of each representation ---
struct Bool8 {
  uint8_t v;
};
struct Logical4 {
  int32_t v;
};
struct Quad {
  __float128 re, im;
};
template <uint32_t N>
struct Bytes {
  unsigned char b[N];
};
struct OddBytes {};  // opaque elements of a size no CPU atomic covers

template <class T>
struct Tag {
  using type = T;
};

template <class T>
constexpr bool kIsPair =
    std::is_same_v<T, FloatInt> || std::is_same_v<T, DoubleInt> || std::is_same_v<T, LongInt> ||
    std::is_same_v<T, ShortInt> || std::is_same_v<T, IntInt> || std::is_same_v<T, LongDoubleInt> ||
    std::is_same_v<T, FloatFloat> || std::is_same_v<T, DoubleDouble>;

template <class T>
constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ||
    std::is_same_v<T, std::complex<long double>> || std::is_same_v<T, Quad>;

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, __float128>;

// Calls f(Tag<T>{}) with the C type of representation r (opaque bytes: by element size).
template <class F>
void with_type(Repr r, uint32_t data_bytes, F&& f) {
  switch (r) {
    case Repr::kI8:
      return f(Tag<int8_t>{});
    case Repr::kU8:
      return f(Tag<uint8_t>{});
    case Repr::kI16:
      return f(Tag<int16_t>{});
    case Repr::kU16:
      return f(Tag<uint16_t>{});
    case Repr::kI32:
      return f(Tag<int32_t>{});
    case Repr::kU32:
      return f(Tag<uint32_t>{});
    case Repr::kI64:
      return f(Tag<int64_t>{});
    case Repr::kU64:
      return f(Tag<uint64_t>{});
    case Repr::kF32:
      return f(Tag<float>{});
    case Repr::kF64:
      return f(Tag<double>{});
    case Repr::kF80:
      return f(Tag<long double>{});
    case Repr::kF128:
      return f(Tag<__float128>{});
    case Repr::kC32:
      return f(Tag<std::complex<float>>{});
    case Repr::kC64:
      return f(Tag<std::complex<double>>{});
    case Repr::kC80:
      return f(Tag<std::complex<long double>>{});
    case Repr::kC128:
      return f(Tag<Quad>{});
    case Repr::kBool8:
      return f(Tag<Bool8>{});
    case Repr::kLogical4:
      return f(Tag<Logical4>{});
    case Repr::kPairF32I32:
      return f(Tag<FloatInt>{});
    case Repr::kPairF64I32:
      return f(Tag<DoubleInt>{});
    case Repr::kPairI64I32:
      return f(Tag<LongInt>{});
    case Repr::kPairI16I32:
      return f(Tag<ShortInt>{});
    case Repr::kPairI32I32:
      return f(Tag<IntInt>{});
    case Repr::kPairF80I32:
      return f(Tag<LongDoubleInt>{});
    case Repr::kPairF32F32:
      return f(Tag<FloatFloat>{});
    case Repr::kPairF64F64:
      return f(Tag<DoubleDouble>{});
    case Repr::kBytes:
    case Repr::kNone:
      switch (data_bytes) {
        case 1:
          return f(Tag<Bytes<1>>{});
        case 2:
          return f(Tag<Bytes<2>>{});
        case 4:
          return f(Tag<Bytes<4>>{});
        case 8:
          return f(Tag<Bytes<8>>{});
        case 16:
          return f(Tag<Bytes<16>>{});
        default:
          return f(Tag<OddBytes>{});
      }
  }
}

// --- the operations on values (only the combinations check_op allows are reached) ---
// Always inlined, so that loops with a fixed operation lose the switch (see plain_array).
template <class T>
[[gnu::always_inline]] inline T combine(Op op, T a, T b) {
  if (op == Op::kReplace) return b;
  if constexpr (std::is_integral_v<T>) {
    // Unsigned arithmetic wraps as MPI's reductions do; narrower types would be promoted to
    // (signed) int first, where 65535 * 65535 overflows.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    switch (op) {
      case Op::kSum:
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case Op::kProd:
        return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case Op::kMax:
        return a > b ? a : b;
      case Op::kMin:
        return a < b ? a : b;
      case Op::kLand:
        return static_cast<T>(a && b);
      case Op::kLor:
        return static_cast<T>(a || b);
      case Op::kLxor:
        return static_cast<T>(!a != !b);
      case Op::kBand:
        return static_cast<T>(a & b);
      case Op::kBor:
        return static_cast<T>(a | b);
      case Op::kBxor:
        return static_cast<T>(a ^ b);
      default:
        return a;
    }
  } else if constexpr (kIsFloat<T>) {
    switch (op) {
      case Op::kSum:
        return a + b;
      case Op::kProd:
        return a * b;
      case Op::kMax:
        return a > b ? a : b;
      case Op::kMin:
        return a < b ? a : b;
      case Op::kLand:
        return static_cast<T>(a != 0 && b != 0);
      case Op::kLor:
        return static_cast<T>(a != 0 || b != 0);
      case Op::kLxor:
        return static_cast<T>((a != 0) != (b != 0));
      default:
        return a;
    }
  } else if constexpr (std::is_same_v<T, Quad>) {
    if (op == Op::kSum) return Quad{a.re + b.re, a.im + b.im};
    if (op == Op::kProd) return Quad{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return a;
  } else if constexpr (kIsComplex<T>) {
    if (op == Op::kSum) return a + b;
    if (op == Op::kProd) return a * b;
    return a;
  } else if constexpr (std::is_same_v<T, Bool8> || std::is_same_v<T, Logical4>) {
    const bool x = a.v != 0, y = b.v != 0;
    bool r = x;
    if (op == Op::kLand) r = x && y;
    if (op == Op::kLor) r = x || y;
    if (op == Op::kLxor) r = x != y;
    T out = a;
    out.v = r;
    return out;
  } else if constexpr (kIsPair<T>) {
    // MAXLOC/MINLOC: the better value wins; on a tie the smaller index (MPI-3.1 5.9.4).
    T out = a;  // keeps a's padding bytes
    const bool maxloc = op == Op::kMaxloc;
    if (maxloc ? b.v > a.v : b.v < a.v) {
      out.v = b.v;
      out.i = b.i;
    } else if (b.v == a.v && b.i < a.i) {
      out.i = b.i;
    }
    return out;
  } else {
    return a;  // opaque bytes: only REPLACE and NO_OP, handled above and by callers
  }
}

// Stores value fields only (a pair's padding in memory is left alone).
template <class T>
void store_fields(void* dst, const T& v) {
  if constexpr (kIsPair<T>) {
    std::memcpy(static_cast<char*>(dst) + offsetof(T, v), &v.v, sizeof v.v);
    std::memcpy(static_cast<char*>(dst) + offsetof(T, i), &v.i, sizeof v.i);
  } else if constexpr (std::is_same_v<T, long double> ||
                       std::is_same_v<T, std::complex<long double>>) {
    // x87 values carry padding; copying it is harmless, they are laid out alone.
    std::memcpy(dst, &v, sizeof v);
  } else {
    std::memcpy(dst, &v, sizeof v);
  }
}

template <class T>
T load_plain(const void* src) {
  T v;
  std::memcpy(&v, src, sizeof v);
  return v;
}

// --- lock-free primitives of 1, 2, 4, 8 and 16 bytes ---
template <uint32_t N>
struct Word;
template <>
struct Word<1> {
  using type = uint8_t;
};
template <>
struct Word<2> {
  using type = uint16_t;
};
template <>
struct Word<4> {
  using type = uint32_t;
};
template <>
struct Word<8> {
  using type = uint64_t;
};
template <>
struct Word<16> {
  using type = unsigned __int128;
};

bool cas16(void* addr, unsigned __int128* expected, unsigned __int128 desired) {
#if defined(__x86_64__)
  uint64_t exp_lo = static_cast<uint64_t>(*expected),
           exp_hi = static_cast<uint64_t>(*expected >> 64);
  const uint64_t des_lo = static_cast<uint64_t>(desired),
                 des_hi = static_cast<uint64_t>(desired >> 64);
  bool ok;
  asm volatile("lock cmpxchg16b %1"
               : "=@ccz"(ok), "+m"(*static_cast<unsigned __int128*>(addr)), "+a"(exp_lo),
                 "+d"(exp_hi)
               : "b"(des_lo), "c"(des_hi)
               : "memory");
  *expected = (static_cast<unsigned __int128>(exp_hi) << 64) | exp_lo;
  return ok;
#else
  return __atomic_compare_exchange_n(static_cast<unsigned __int128*>(addr), expected, desired,
                                     false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
#endif
}

template <class W>
bool cas_word(void* addr, W* expected, W desired) {
  if constexpr (sizeof(W) == 16) {
    return cas16(addr, expected, desired);
  } else {
    return __atomic_compare_exchange_n(static_cast<W*>(addr), expected, desired, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
}

// A first guess of the current word; a failed CAS then returns the real value atomically.
template <class W>
W guess(const void* addr) {
  if constexpr (sizeof(W) == 16) {
    return load_plain<W>(addr);
  } else {
    return __atomic_load_n(static_cast<const W*>(addr), __ATOMIC_SEQ_CST);
  }
}

bool cpu_has_cx16() {
#if defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("cmpxchg16b");
  return has;
#else
  return false;
#endif
}

template <class T>
void atomic_apply(Op op, void* target, const void* origin, void* old) {
  using W = typename Word<sizeof(T)>::type;
  if constexpr (std::is_integral_v<T> && sizeof(T) <= 8) {
    // Single instructions where the CPU has them.
    W x = 0;
    if (origin) std::memcpy(&x, origin, sizeof x);
    W prev;
    bool done = true;
    switch (op) {
      case Op::kSum:
        prev = __atomic_fetch_add(static_cast<W*>(target), x, __ATOMIC_SEQ_CST);
        break;
      case Op::kBand:
        prev = __atomic_fetch_and(static_cast<W*>(target), x, __ATOMIC_SEQ_CST);
        break;
      case Op::kBor:
        prev = __atomic_fetch_or(static_cast<W*>(target), x, __ATOMIC_SEQ_CST);
        break;
      case Op::kBxor:
        prev = __atomic_fetch_xor(static_cast<W*>(target), x, __ATOMIC_SEQ_CST);
        break;
      case Op::kReplace:
        prev = __atomic_exchange_n(static_cast<W*>(target), x, __ATOMIC_SEQ_CST);
        break;
      case Op::kNoOp:
        prev = __atomic_load_n(static_cast<W*>(target), __ATOMIC_SEQ_CST);
        break;
      default:
        done = false;
        prev = 0;
        break;
    }
    if (done) {
      if (old) std::memcpy(old, &prev, sizeof prev);
      return;
    }
  }
  W expected = guess<W>(target);
  if (op == Op::kNoOp) {
    // An atomic read: a CAS that writes back what is there (16-byte words have no plain load).
    if constexpr (sizeof(W) == 16) {
      while (!cas_word<W>(target, &expected, expected)) {
      }
    }
    if (old) store_fields(old, load_plain<T>(&expected));
    return;
  }
  const T operand = load_plain<T>(origin);
  for (;;) {
    const T cur = load_plain<T>(&expected);
    const T next = combine(op, cur, operand);
    W desired;
    std::memcpy(&desired, &expected, sizeof desired);  // keeps padding bytes as they are
    std::memcpy(&desired, &next, sizeof next);
    if (cas_word<W>(target, &expected, desired)) {
      if (old) store_fields(old, cur);
      return;
    }
  }
}

template <class T>
void plain_apply(Op op, void* target, const void* origin, void* old) {
  const T cur = load_plain<T>(target);
  if (old) store_fields(old, cur);
  if (op == Op::kNoOp) return;
  store_fields(target, combine(op, cur, load_plain<T>(origin)));
}

// n contiguous elements, the operation fixed per loop so that the compiler can vectorize it.
// AVX-512 (x86-64-v4) or AVX2 where the CPU has it, chosen at load time (an ifunc), except under
// ThreadSanitizer, whose runtime is not ready when ifunc resolvers run. Open MPI picks its
// reduction kernels the same way; AVX-512 made int64 sums of 512 B-32 KiB 10-30% faster here.
// GCC 12's -O2 cost model vectorizes no loop that needs a remainder or a runtime alias check,
// i.e. none of these. The cost model is set on the function: a per-file option stopped reaching
// the linked library once the engine used a precompiled header (link-time optimization took the
// header's options), silently; tools/check-vectorized.sh, a test, now catches that.
#if defined(__SANITIZE_THREAD__)
#define OSPREY_VECTOR_CLONES
#else
#define OSPREY_VECTOR_CLONES [[gnu::target_clones("arch=x86-64-v4", "avx2", "default")]]
#endif
template <class T>
OSPREY_VECTOR_CLONES [[gnu::optimize("vect-cost-model=dynamic")]] void plain_array(
    Op op, char* target, const char* origin, std::size_t n) {
  auto loop = [&](auto fixed) {
    constexpr Op k = decltype(fixed)::value;
    for (std::size_t i = 0; i < n; ++i) {
      const T v =
          combine(k, load_plain<T>(target + i * sizeof(T)), load_plain<T>(origin + i * sizeof(T)));
      std::memcpy(target + i * sizeof(T), &v, sizeof v);
    }
  };
  switch (op) {
    case Op::kSum:
      return loop(std::integral_constant<Op, Op::kSum>{});
    case Op::kProd:
      return loop(std::integral_constant<Op, Op::kProd>{});
    case Op::kMax:
      return loop(std::integral_constant<Op, Op::kMax>{});
    case Op::kMin:
      return loop(std::integral_constant<Op, Op::kMin>{});
    case Op::kReplace:
      cpu::copy(target, origin, n * sizeof(T));
      return;
    case Op::kNoOp:
      return;
    default:
      if constexpr (std::is_integral_v<T>) {
        switch (op) {
          case Op::kBand:
            return loop(std::integral_constant<Op, Op::kBand>{});
          case Op::kBor:
            return loop(std::integral_constant<Op, Op::kBor>{});
          case Op::kBxor:
            return loop(std::integral_constant<Op, Op::kBxor>{});
          default:
            break;
        }
      }
      for (std::size_t i = 0; i < n; ++i)
        plain_apply<T>(op, target + i * sizeof(T), origin + i * sizeof(T), nullptr);
  }
}

template <uint32_t N>
constexpr bool kLockFreeSize = N == 1 || N == 2 || N == 4 || N == 8 || N == 16;

}  // namespace

bool lock_free(Repr r, uint32_t data_bytes, const void* addr) {
  const uint32_t n = element_bytes(r, data_bytes);
  if (n != 1 && n != 2 && n != 4 && n != 8 && n != 16) return false;
  if (n == 16 && !cpu_has_cx16()) return false;
  return reinterpret_cast<uintptr_t>(addr) % n == 0;
}

void apply_atomic(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin, void* old) {
  with_type(r, data_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, OddBytes> && kLockFreeSize<sizeof(T)>)
      atomic_apply<T>(op, target, origin, old);
  });
}

void apply_plain(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin, void* old) {
  with_type(r, data_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, OddBytes>) {
      // Opaque elements of unusual size: REPLACE or NO_OP, byte by byte.
      if (old) std::memcpy(old, target, data_bytes);
      if (op == Op::kReplace) std::memcpy(target, origin, data_bytes);
    } else {
      plain_apply<T>(op, target, origin, old);
    }
  });
}

namespace {

// Large arrays whose old values are kept (get_accumulate): the old values first, then the
// combination, a chunk at a time, so that the chunk is still in the L1 cache when the
// combination reads it again; in one pass each over a large array the second read came from
// memory (5-10% of the operation). Only arithmetic types (pairs go element by element).
constexpr std::size_t kKeptChunk = 8192;

[[gnu::noinline]] bool kept_array(Repr r, uint32_t data_bytes, Op op, char* target,
                                  const char* origin, std::size_t count, char* old) {
  bool done = false;
  with_type(r, data_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      constexpr std::size_t kChunk = kKeptChunk / sizeof(T);
      for (std::size_t at = 0; at < count; at += kChunk) {
        const std::size_t m = std::min(kChunk, count - at);
        std::memcpy(old + at * sizeof(T), target + at * sizeof(T), m * sizeof(T));
        plain_array<T>(op, target + at * sizeof(T), origin + at * sizeof(T), m);
      }
      done = true;
    }
  });
  return done;
}

}  // namespace

void apply_plain_array(Repr r, uint32_t data_bytes, Op op, void* target, const void* origin,
                       std::size_t count, void* old) {
  // Small arrays stay on the path below untouched: with the chunked loop inlined there, a
  // 16-512 B get_accumulate + flush took 7 ns more.
  if (old && count * data_bytes > kKeptChunk &&
      kept_array(r, data_bytes, op, static_cast<char*>(target), static_cast<const char*>(origin),
                 count, static_cast<char*>(old)))
    return;
  with_type(r, data_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    char* t = static_cast<char*>(target);
    const char* o = static_cast<const char*>(origin);
    if constexpr (std::is_arithmetic_v<T>) {
      if (old) cpu::copy(old, t, count * sizeof(T));
      plain_array<T>(op, t, o, count);
    } else {
      // Pairs: element by element, so that the padding of `old` stays untouched.
      const uint32_t step = element_bytes(r, data_bytes);
      char* p = static_cast<char*>(old);
      for (std::size_t i = 0; i < count; ++i)
        apply_plain(r, data_bytes, op, t + i * step, o + i * step, p ? p + i * step : nullptr);
    }
  });
}

void cas_atomic(Repr r, uint32_t data_bytes, void* target, const void* origin, const void* compare,
                void* old) {
  with_type(r, data_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, OddBytes> && kLockFreeSize<sizeof(T)>) {
      using W = typename Word<sizeof(T)>::type;
      W expected = load_plain<W>(compare), desired = load_plain<W>(origin);
      cas_word<W>(target, &expected, desired);
      std::memcpy(old, &expected, sizeof(T));
    }
  });
}

void cas_plain(Repr r, uint32_t data_bytes, void* target, const void* origin, const void* compare,
               void* old) {
  const uint32_t n = element_bytes(r, data_bytes);
  unsigned char cur[32];
  std::memcpy(cur, target, n);
  if (std::memcmp(cur, compare, n) == 0) std::memcpy(target, origin, n);
  std::memcpy(old, cur, n);
}

void copy_element(Repr r, uint32_t data_bytes, void* dst, const void* src) {
  with_type(r, data_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, OddBytes>) {
      std::memcpy(dst, src, data_bytes);
    } else {
      store_fields(dst, load_plain<T>(src));
    }
  });
}

}  // namespace osprey::dt
