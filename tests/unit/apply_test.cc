// The reduction kernels of accumulates (datatype/apply.h): the lock-free and the plain forms
// must agree, and both must compute what MPI defines. Results are checked against a reference
// written here independently of apply.cc.
#include "datatype/apply.h"

#include <gtest/gtest.h>

#include <climits>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace osprey::dt {
namespace {

// Which category each representation is reduced as, following predefined.cc (MPI is not
// initialized in this binary, so its table cannot be loaded). `bytes` is the data size of the
// predefined type, which only kBytes looks at.
struct Case {
  Repr repr;
  Category cat;
  uint32_t bytes;
  const char* name;
};

const Case kCases[] = {
    {Repr::kI8, Category::kInteger, 1, "I8"},
    {Repr::kU8, Category::kInteger, 1, "U8"},
    {Repr::kU8, Category::kByte, 1, "U8 as MPI_BYTE"},
    {Repr::kI16, Category::kInteger, 2, "I16"},
    {Repr::kU16, Category::kInteger, 2, "U16"},
    {Repr::kI32, Category::kInteger, 4, "I32"},
    {Repr::kU32, Category::kInteger, 4, "U32"},
    {Repr::kI64, Category::kInteger, 8, "I64"},
    {Repr::kU64, Category::kInteger, 8, "U64"},
    {Repr::kF32, Category::kFloating, 4, "F32"},
    {Repr::kF64, Category::kFloating, 8, "F64"},
    {Repr::kF80, Category::kFloating, sizeof(long double), "F80"},
    {Repr::kF128, Category::kFloating, 16, "F128"},
    {Repr::kC32, Category::kComplex, 8, "C32"},
    {Repr::kC64, Category::kComplex, 16, "C64"},
    {Repr::kC80, Category::kComplex, 2 * sizeof(long double), "C80"},
    {Repr::kC128, Category::kComplex, 32, "C128"},
    {Repr::kBool8, Category::kLogical, 1, "Bool8"},
    {Repr::kLogical4, Category::kLogical, 4, "Logical4"},
    {Repr::kPairF32I32, Category::kPair, 8, "FloatInt"},
    {Repr::kPairF64I32, Category::kPair, 12, "DoubleInt"},
    {Repr::kPairI64I32, Category::kPair, 12, "LongInt"},
    {Repr::kPairI16I32, Category::kPair, 6, "ShortInt"},
    {Repr::kPairI32I32, Category::kPair, 8, "IntInt"},
    {Repr::kPairF80I32, Category::kPair, sizeof(long double) + 4, "LongDoubleInt"},
    {Repr::kPairF32F32, Category::kPair, 8, "FloatFloat"},
    {Repr::kPairF64F64, Category::kPair, 16, "DoubleDouble"},
    {Repr::kBytes, Category::kOpaque, 1, "Bytes1"},
    {Repr::kBytes, Category::kOpaque, 2, "Bytes2"},
    {Repr::kBytes, Category::kOpaque, 3, "Bytes3"},
    {Repr::kBytes, Category::kOpaque, 4, "Bytes4"},
    {Repr::kBytes, Category::kOpaque, 8, "Bytes8"},
    {Repr::kBytes, Category::kOpaque, 12, "Bytes12"},
    {Repr::kBytes, Category::kOpaque, 16, "Bytes16"},
    {Repr::kBytes, Category::kOpaque, 32, "Bytes32"},
};

const Op kOps[] = {Op::kSum,    Op::kProd,   Op::kMax,     Op::kMin, Op::kLand,
                   Op::kLor,    Op::kLxor,   Op::kBand,    Op::kBor, Op::kBxor,
                   Op::kMaxloc, Op::kMinloc, Op::kReplace, Op::kNoOp};

const char* op_name(Op op) {
  static const char* names[] = {"SUM",    "PROD",   "MAX",     "MIN",   "LAND",
                                "LOR",    "LXOR",   "BAND",    "BOR",   "BXOR",
                                "MAXLOC", "MINLOC", "REPLACE", "NO_OP", "INVALID"};
  return names[static_cast<int>(op)];
}

// Tag dispatch on the C type of a representation, for the reference and the generators.
template <class T>
struct Tag {
  using type = T;
};
struct Quad {
  __float128 re, im;
};
struct Bool8 {
  uint8_t v;
};
struct Logical4 {
  int32_t v;
};
struct Opaque {};

template <class F>
void visit(Repr r, F&& f) {
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
      return f(Tag<Opaque>{});
  }
}

template <class T>
constexpr bool kIsPair =
    std::is_same_v<T, FloatInt> || std::is_same_v<T, DoubleInt> || std::is_same_v<T, LongInt> ||
    std::is_same_v<T, ShortInt> || std::is_same_v<T, IntInt> || std::is_same_v<T, LongDoubleInt> ||
    std::is_same_v<T, FloatFloat> || std::is_same_v<T, DoubleDouble>;
template <class T>
constexpr bool kIsReal = std::is_floating_point_v<T> || std::is_same_v<T, __float128>;
template <class T>
constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ||
    std::is_same_v<T, std::complex<long double>>;

// Bytes of an element that carry data (x87 values and pairs have padding no one may compare).
std::vector<std::pair<std::size_t, std::size_t>> data_ranges(const Case& c) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  visit(c.repr, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsPair<T>) {
      const std::size_t vlen = std::is_same_v<T, LongDoubleInt> ? 10 : sizeof(T::v);
      out = {{offsetof(T, v), vlen}, {offsetof(T, i), sizeof(T::i)}};
    } else if constexpr (std::is_same_v<T, long double>) {
      out = {{0, 10}};
    } else if constexpr (std::is_same_v<T, std::complex<long double>>) {
      out = {{0, 10}, {sizeof(long double), 10}};
    } else if constexpr (std::is_same_v<T, Opaque>) {
      out = {{0, c.bytes}};
    } else {
      out = {{0, sizeof(T)}};
    }
  });
  return out;
}

std::size_t stride(const Case& c) {
  return element_bytes(c.repr, c.bytes);
}

bool same_data(const Case& c, const unsigned char* a, const unsigned char* b) {
  for (auto [off, len] : data_ranges(c))
    if (std::memcmp(a + off, b + off, len) != 0) return false;
  return true;
}

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(unsigned char* p, const T& v) {
  std::memcpy(p, &v, sizeof v);
}

// A random value of the element's kind, in a range where every operation is exact and
// defined: small reals (so sums and products round the same however computed), small pair
// values (so MAXLOC/MINLOC ties happen), logicals that are not only 0 and 1.
void generate(const Case& c, Op, std::mt19937_64& rng, unsigned char* out) {
  std::memset(out, 0, 32);
  auto small = [&](int range) { return static_cast<int>(rng() % (2 * range + 1)) - range; };
  visit(c.repr, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      T v = static_cast<T>(rng());
      if (rng() % 8 == 0) v = 0;  // logical ops need false values too
      store(out, v);
    } else if constexpr (kIsReal<T>) {
      const int n = small(1000);
      store(out, static_cast<T>(n % 7 == 0 ? 0 : n) / static_cast<T>(8));
    } else if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      store(out, T(static_cast<R>(small(64)) / 4, static_cast<R>(small(64)) / 4));
    } else if constexpr (std::is_same_v<T, Quad>) {
      store(out,
            Quad{static_cast<__float128>(small(64)) / 4, static_cast<__float128>(small(64)) / 4});
    } else if constexpr (std::is_same_v<T, Bool8> || std::is_same_v<T, Logical4>) {
      T v;
      v.v = static_cast<decltype(v.v)>(rng() % 3);
      store(out, v);
    } else if constexpr (kIsPair<T>) {
      T p;
      std::memset(&p, 0, sizeof p);
      p.v = static_cast<decltype(p.v)>(small(3));
      p.i = static_cast<decltype(p.i)>(rng() % 6);
      store(out, p);
    } else {
      for (uint32_t k = 0; k < c.bytes; ++k)
        out[k] = static_cast<unsigned char>(rng());
    }
  });
}

// What MPI says the operation yields, written without looking at apply.cc.
void reference(const Case& c, Op op, const unsigned char* a, const unsigned char* b,
               unsigned char* out) {
  std::memcpy(out, a, 32);
  if (op == Op::kNoOp) return;
  if (op == Op::kReplace) {
    std::memcpy(out, b, stride(c));
    return;
  }
  visit(c.repr, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const T x = load<T>(a), y = load<T>(b);
      const uint64_t ux = static_cast<U>(x), uy = static_cast<U>(y);
      uint64_t r = 0;
      switch (op) {
        case Op::kSum:
          r = ux + uy;
          break;
        case Op::kProd:
          r = ux * uy;
          break;
        case Op::kMax:
          r = static_cast<U>(x > y ? x : y);
          break;
        case Op::kMin:
          r = static_cast<U>(x < y ? x : y);
          break;
        case Op::kLand:
          r = x != 0 && y != 0;
          break;
        case Op::kLor:
          r = x != 0 || y != 0;
          break;
        case Op::kLxor:
          r = (x != 0) != (y != 0);
          break;
        case Op::kBand:
          r = ux & uy;
          break;
        case Op::kBor:
          r = ux | uy;
          break;
        case Op::kBxor:
          r = ux ^ uy;
          break;
        default:
          ADD_FAILURE() << "no reference for " << op_name(op);
      }
      store(out, static_cast<T>(static_cast<U>(r)));
    } else if constexpr (kIsReal<T>) {
      const T x = load<T>(a), y = load<T>(b);
      T r = x;
      switch (op) {
        case Op::kSum:
          r = x + y;
          break;
        case Op::kProd:
          r = x * y;
          break;
        case Op::kMax:
          r = x < y ? y : x;
          break;
        case Op::kMin:
          r = y < x ? y : x;
          break;
        case Op::kLand:
          r = (x != 0 && y != 0) ? 1 : 0;
          break;
        case Op::kLor:
          r = (x != 0 || y != 0) ? 1 : 0;
          break;
        case Op::kLxor:
          r = ((x != 0) != (y != 0)) ? 1 : 0;
          break;
        default:
          ADD_FAILURE() << "no reference for " << op_name(op);
      }
      store(out, r);
    } else if constexpr (kIsComplex<T> || std::is_same_v<T, Quad>) {
      const T x = load<T>(a), y = load<T>(b);
      T r = x;
      if constexpr (std::is_same_v<T, Quad>) {
        if (op == Op::kSum) r = Quad{x.re + y.re, x.im + y.im};
        if (op == Op::kProd) r = Quad{x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
      } else {
        using R = typename T::value_type;
        if (op == Op::kSum) r = T(x.real() + y.real(), x.imag() + y.imag());
        if (op == Op::kProd)
          r = T(static_cast<R>(x.real() * y.real() - x.imag() * y.imag()),
                static_cast<R>(x.real() * y.imag() + x.imag() * y.real()));
      }
      store(out, r);
    } else if constexpr (std::is_same_v<T, Bool8> || std::is_same_v<T, Logical4>) {
      const bool x = load<T>(a).v != 0, y = load<T>(b).v != 0;
      T r;
      r.v = op == Op::kLand ? (x && y) : op == Op::kLor ? (x || y) : (x != y);
      store(out, r);
    } else if constexpr (kIsPair<T>) {
      const T x = load<T>(a), y = load<T>(b);
      T r = x;
      const bool better = op == Op::kMaxloc ? y.v > x.v : y.v < x.v;
      if (better || (y.v == x.v && y.i < x.i)) {
        r.v = y.v;
        r.i = y.i;
      }
      store(out, r);
    } else {
      ADD_FAILURE() << "opaque bytes reduced with " << op_name(op);
    }
  });
}

std::string describe(const Case& c, Op op) {
  return std::string(c.name) + " " + op_name(op);
}

TEST(ApplyKernels, EveryAllowedOpMatchesTheReferenceAtomicallyAndPlainly) {
  std::mt19937_64 rng(12345);
  int combinations = 0;
  for (const Case& c : kCases)
    for (Op op : kOps) {
      if (!op_applies(op, c.cat)) continue;
      ++combinations;
      SCOPED_TRACE(describe(c, op));
      for (int trial = 0; trial < 40; ++trial) {
        alignas(32) unsigned char target[32], origin[32], want[32];
        alignas(32) unsigned char plain[32], atomic[32], old_plain[32], old_atomic[32];
        generate(c, op, rng, target);
        generate(c, op, rng, origin);
        if (trial == 0) std::memcpy(origin, target, 32);  // ties and equal operands
        reference(c, op, target, origin, want);
        std::memcpy(plain, target, 32);
        std::memset(old_plain, 0xee, 32);
        apply_plain(c.repr, c.bytes, op, plain, origin, old_plain);
        EXPECT_TRUE(same_data(c, plain, want)) << "plain, trial " << trial;
        EXPECT_TRUE(same_data(c, old_plain, target)) << "plain old, trial " << trial;
        if (!lock_free(c.repr, c.bytes, atomic)) continue;
        std::memcpy(atomic, target, 32);
        std::memset(old_atomic, 0xdd, 32);
        apply_atomic(c.repr, c.bytes, op, atomic, origin, old_atomic);
        EXPECT_TRUE(same_data(c, atomic, plain)) << "atomic, trial " << trial;
        EXPECT_TRUE(same_data(c, old_atomic, old_plain)) << "atomic old, trial " << trial;
      }
    }
  // Guards the sweep itself: a broken op_applies() or table would silently test nothing.
  EXPECT_GT(combinations, 150);
}

TEST(ApplyKernels, NoOpReadsWithoutAnOrigin) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::mt19937_64 rng(7);
    alignas(32) unsigned char target[32], before[32], old[32];
    generate(c, Op::kNoOp, rng, target);
    std::memcpy(before, target, 32);
    apply_plain(c.repr, c.bytes, Op::kNoOp, target, nullptr, old);
    EXPECT_TRUE(same_data(c, old, before));
    EXPECT_EQ(std::memcmp(target, before, 32), 0);
    if (!lock_free(c.repr, c.bytes, target)) continue;
    std::memset(old, 0, 32);
    apply_atomic(c.repr, c.bytes, Op::kNoOp, target, nullptr, old);
    EXPECT_TRUE(same_data(c, old, before));
    EXPECT_TRUE(same_data(c, target, before));
  }
}

TEST(ApplyKernels, OldMayBeNull) {
  alignas(8) int64_t t = 40, o = 2;
  apply_plain(Repr::kI64, 8, Op::kSum, &t, &o, nullptr);
  apply_atomic(Repr::kI64, 8, Op::kSum, &t, &o, nullptr);
  alignas(16) DoubleInt p{1.0, 3}, q{1.0, 2};
  apply_atomic(Repr::kPairF64I32, 12, Op::kMinloc, &p, &q, nullptr);
  EXPECT_EQ(t, 44);
  EXPECT_EQ(p.i, 2);
}

TEST(ApplyKernels, PlainArrayEqualsOneCallPerElement) {
  // 13: a remainder only, for most widths; 150: vector bodies of every width, then a remainder;
  // 9000: more than one chunk of a get_accumulate (8 KiB each), for every width.
  std::mt19937_64 rng(99);
  for (std::size_t kN : {std::size_t{13}, std::size_t{150}, std::size_t{9000}})
    for (const Case& c : kCases)
      for (Op op : kOps) {
        if (!op_applies(op, c.cat)) continue;
        SCOPED_TRACE(describe(c, op) + " n=" + std::to_string(kN));
        const std::size_t step = stride(c);
        std::vector<unsigned char> target(kN * step + 32), origin(kN * step + 32);
        for (std::size_t i = 0; i < kN; ++i) {
          unsigned char t[32], o[32];
          generate(c, op, rng, t);
          generate(c, op, rng, o);
          std::memcpy(&target[i * step], t, step);
          std::memcpy(&origin[i * step], o, step);
        }
        std::vector<unsigned char> by_array = target, by_element = target;
        std::vector<unsigned char> fetched = target, kept(kN * step + 32, 0xa5);
        const std::vector<unsigned char> untouched = kept;
        apply_plain_array(c.repr, c.bytes, op, by_array.data(), origin.data(), kN);
        apply_plain_array(c.repr, c.bytes, op, fetched.data(), origin.data(), kN, kept.data());
        for (std::size_t i = 0; i < kN; ++i)
          apply_plain(c.repr, c.bytes, op, &by_element[i * step], &origin[i * step], nullptr);
        for (std::size_t i = 0; i < kN; ++i) {
          EXPECT_TRUE(same_data(c, &by_array[i * step], &by_element[i * step])) << "element " << i;
          // With the old values kept (get_accumulate): the same result, and the values before.
          EXPECT_TRUE(same_data(c, &fetched[i * step], &by_element[i * step])) << "element " << i;
          EXPECT_TRUE(same_data(c, &kept[i * step], &target[i * step])) << "old element " << i;
        }
        // Nothing written past the last element.
        EXPECT_EQ(std::memcmp(&by_array[kN * step], &target[kN * step], 32), 0);
        EXPECT_EQ(std::memcmp(&fetched[kN * step], &target[kN * step], 32), 0);
        EXPECT_EQ(std::memcmp(&kept[kN * step], &untouched[kN * step], 32), 0);
      }
}

TEST(ApplyKernels, PlainArrayOfZeroElementsWritesNothing) {
  int32_t t[2] = {5, 6}, o[2] = {1, 1};
  apply_plain_array(Repr::kI32, 4, Op::kSum, t, o, 0);
  apply_plain_array(Repr::kI32, 4, Op::kReplace, t, o, 0);
  EXPECT_EQ(t[0], 5);
  EXPECT_EQ(t[1], 6);
}

template <class P>
void check_loc_ties(Repr r, uint32_t bytes) {
  alignas(32) P t{}, o{}, old{};
  auto run = [&](Op op, decltype(P::v) tv, decltype(P::i) ti, decltype(P::v) ov, decltype(P::i) oi,
                 bool atomic) {
    t.v = tv;
    t.i = ti;
    o.v = ov;
    o.i = oi;
    if (atomic)
      apply_atomic(r, bytes, op, &t, &o, &old);
    else
      apply_plain(r, bytes, op, &t, &o, &old);
    EXPECT_EQ(old.v, tv);
    EXPECT_EQ(old.i, ti);
  };
  for (bool atomic : {false, true}) {
    if (atomic && !lock_free(r, bytes, &t)) continue;
    SCOPED_TRACE(atomic ? "atomic" : "plain");
    for (Op op : {Op::kMaxloc, Op::kMinloc}) {
      // Equal values: the smaller index wins, whichever side it is on.
      run(op, 5, 7, 5, 3, atomic);
      EXPECT_EQ(t.v, 5);
      EXPECT_EQ(t.i, 3);
      run(op, 5, 2, 5, 9, atomic);
      EXPECT_EQ(t.v, 5);
      EXPECT_EQ(t.i, 2);
    }
    // Different values: the better value wins with its own index, even a larger one.
    run(Op::kMaxloc, 1, 0, 4, 8, atomic);
    EXPECT_EQ(t.v, 4);
    EXPECT_EQ(t.i, 8);
    run(Op::kMaxloc, 4, 8, 1, 0, atomic);
    EXPECT_EQ(t.v, 4);
    EXPECT_EQ(t.i, 8);
    run(Op::kMinloc, 1, 9, 4, 0, atomic);
    EXPECT_EQ(t.v, 1);
    EXPECT_EQ(t.i, 9);
    run(Op::kMinloc, 4, 0, -2, 6, atomic);
    EXPECT_EQ(t.v, -2);
    EXPECT_EQ(t.i, 6);
  }
}

TEST(ApplyKernels, MaxlocMinlocTieBreaking) {
  check_loc_ties<FloatInt>(Repr::kPairF32I32, 8);
  check_loc_ties<DoubleInt>(Repr::kPairF64I32, 12);
  check_loc_ties<LongInt>(Repr::kPairI64I32, 12);
  check_loc_ties<ShortInt>(Repr::kPairI16I32, 6);
  check_loc_ties<IntInt>(Repr::kPairI32I32, 8);
  check_loc_ties<LongDoubleInt>(Repr::kPairF80I32, sizeof(long double) + 4);
  check_loc_ties<FloatFloat>(Repr::kPairF32F32, 8);
  check_loc_ties<DoubleDouble>(Repr::kPairF64F64, 16);
}

TEST(ApplyKernels, PairPaddingInMemoryIsLeftAlone) {
  // A pair's padding may belong to nothing the program sent: a plain update writes fields only.
  alignas(16) unsigned char mem[sizeof(DoubleInt)];
  std::memset(mem, 0xab, sizeof mem);
  DoubleInt v{2.0, 1};
  std::memcpy(mem, &v.v, sizeof v.v);
  std::memcpy(mem + offsetof(DoubleInt, i), &v.i, sizeof v.i);
  DoubleInt o{3.0, 0};
  apply_plain(Repr::kPairF64I32, 12, Op::kMaxloc, mem, &o, nullptr);
  const std::size_t pad = offsetof(DoubleInt, i) + sizeof(int);
  for (std::size_t k = pad; k < sizeof mem; ++k)
    EXPECT_EQ(mem[k], 0xab) << "byte " << k;
  EXPECT_EQ(load<DoubleInt>(mem).v, 3.0);
}

template <class T>
void check_logical_on_real(Repr r) {
  SCOPED_TRACE(sizeof(T));
  struct Row {
    Op op;
    T a, b, want;
  };
  const Row rows[] = {
      {Op::kLand, 2.5, -3, 1}, {Op::kLand, 0, 7, 0},    {Op::kLand, 0.5, 0, 0},
      {Op::kLor, 0, 0, 0},     {Op::kLor, 0, -0.25, 1}, {Op::kLor, 9, 0, 1},
      {Op::kLxor, 2, 3, 0},    {Op::kLxor, 2, 0, 1},    {Op::kLxor, 0, 0, 0},
  };
  for (const Row& row : rows) {
    alignas(16) T t = row.a, o = row.b, old = 99;
    apply_plain(r, sizeof(T), row.op, &t, &o, &old);
    EXPECT_EQ(t, row.want) << op_name(row.op) << " " << static_cast<double>(row.a) << " "
                           << static_cast<double>(row.b);
    EXPECT_EQ(old, row.a);
    T u = row.a;
    if (lock_free(r, sizeof(T), &u)) {
      alignas(16) T ua = row.a;
      apply_atomic(r, sizeof(T), row.op, &ua, &o, nullptr);
      EXPECT_EQ(ua, row.want) << "atomic " << op_name(row.op);
    }
    alignas(16) T arr[3] = {row.a, row.a, row.a}, orr[3] = {row.b, row.b, row.b};
    apply_plain_array(r, sizeof(T), row.op, arr, orr, 3);
    for (T x : arr)
      EXPECT_EQ(x, row.want) << "array " << op_name(row.op);
  }
}

TEST(ApplyKernels, LogicalOpsOnFloatingTypesGiveOneOrZero) {
  check_logical_on_real<float>(Repr::kF32);
  check_logical_on_real<double>(Repr::kF64);
  check_logical_on_real<long double>(Repr::kF80);
}

TEST(ApplyKernels, LogicalTypesNormalizeToOne) {
  alignas(4) Bool8 b{2}, c{5};
  apply_plain(Repr::kBool8, 1, Op::kLand, &b, &c, nullptr);
  EXPECT_EQ(b.v, 1);
  alignas(4) Logical4 l{0}, m{-7};
  apply_atomic(Repr::kLogical4, 4, Op::kLor, &l, &m, nullptr);
  EXPECT_EQ(l.v, 1);
  apply_atomic(Repr::kLogical4, 4, Op::kLxor, &l, &m, nullptr);
  EXPECT_EQ(l.v, 0);
}

template <class T>
void check_wrap(Repr r, T a, T b, T want) {
  SCOPED_TRACE(testing::Message() << "width " << sizeof(T));
  alignas(8) T t = a, o = b, old = 0;
  apply_plain(r, sizeof(T), Op::kSum, &t, &o, &old);
  EXPECT_EQ(t, want);
  EXPECT_EQ(old, a);
  t = a;
  apply_atomic(r, sizeof(T), Op::kSum, &t, &o, &old);
  EXPECT_EQ(t, want);
  EXPECT_EQ(old, a);
  alignas(8) T arr[4] = {a, a, a, a}, orr[4] = {b, b, b, b};
  apply_plain_array(r, sizeof(T), Op::kSum, arr, orr, 4);
  for (T x : arr)
    EXPECT_EQ(x, want);
}

TEST(ApplyKernels, IntegerSumsWrap) {
  // Signed overflow must wrap like two's complement, not be undefined (the ASan+UBSan build
  // runs this test and would abort on it).
  check_wrap<int8_t>(Repr::kI8, INT8_MAX, 1, INT8_MIN);
  check_wrap<uint8_t>(Repr::kU8, 255, 3, 2);
  check_wrap<int16_t>(Repr::kI16, INT16_MIN, -1, INT16_MAX);
  check_wrap<uint16_t>(Repr::kU16, 65535, 65535, 65534);
  check_wrap<int32_t>(Repr::kI32, INT32_MAX, 1, INT32_MIN);
  check_wrap<uint32_t>(Repr::kU32, UINT32_MAX, 2, 1);
  check_wrap<int64_t>(Repr::kI64, INT64_MAX, INT64_MAX, -2);
  check_wrap<uint64_t>(Repr::kU64, UINT64_MAX, UINT64_MAX, UINT64_MAX - 1);
}

TEST(ApplyKernels, IntegerProductsWrapForWideTypes) {
  alignas(8) int32_t a = INT32_MAX, b = 2;
  apply_plain(Repr::kI32, 4, Op::kProd, &a, &b, nullptr);
  EXPECT_EQ(a, -2);
  alignas(8) int64_t c = INT64_MIN, d = -1;
  apply_atomic(Repr::kI64, 8, Op::kProd, &c, &d, nullptr);
  EXPECT_EQ(c, INT64_MIN);
  alignas(8) int8_t e = -128, f = -128;
  apply_plain(Repr::kI8, 1, Op::kProd, &e, &f, nullptr);
  EXPECT_EQ(e, 0);
}

// Products of 16-bit elements wrap as MPI's reductions do, without undefined behaviour: C++
// promotes 16-bit operands to (signed) int, where 65535 * 65535 overflows, so the kernels
// multiply in unsigned arithmetic at least as wide as int (g++ happened to wrap anyway; clang
// with -fsanitize=undefined reported the overflow).
TEST(ApplyKernels, SixteenBitProductsWrapWithoutUndefinedBehaviour) {
  alignas(8) uint16_t a = 65535, b = 65535;
  apply_plain(Repr::kU16, 2, Op::kProd, &a, &b, nullptr);
  EXPECT_EQ(a, 1);
  alignas(8) int16_t c = -1, d = -2;  // 65535 * 65534 as promoted operands
  apply_atomic(Repr::kI16, 2, Op::kProd, &c, &d, nullptr);
  EXPECT_EQ(c, 2);
  alignas(8) uint16_t arr[2] = {65535, 50000}, orr[2] = {65535, 50000};
  apply_plain_array(Repr::kU16, 2, Op::kProd, arr, orr, 2);
  EXPECT_EQ(arr[0], 1);
  EXPECT_EQ(arr[1], static_cast<uint16_t>(50000u * 50000u));
}

TEST(ApplyKernels, MaxMinAreSigned) {
  alignas(4) int32_t a = -5, b = 3;
  apply_atomic(Repr::kI32, 4, Op::kMax, &a, &b, nullptr);
  EXPECT_EQ(a, 3);
  alignas(4) uint32_t c = 0xffffffffu, d = 3;
  apply_atomic(Repr::kU32, 4, Op::kMax, &c, &d, nullptr);
  EXPECT_EQ(c, 0xffffffffu);
  alignas(8) int64_t e = -1, f = INT64_MIN;
  apply_plain(Repr::kI64, 8, Op::kMin, &e, &f, nullptr);
  EXPECT_EQ(e, INT64_MIN);
}

TEST(ApplyKernels, ComplexProducts) {
  alignas(16) std::complex<double> t(1, 2), o(3, -1), old;
  apply_atomic(Repr::kC64, 16, Op::kProd, &t, &o, &old);
  EXPECT_EQ(t, std::complex<double>(5, 5));
  EXPECT_EQ(old, std::complex<double>(1, 2));
  alignas(32) std::complex<long double> u(1, 2), p(3, -1);
  apply_plain(Repr::kC80, sizeof u, Op::kProd, &u, &p, nullptr);
  EXPECT_EQ(u, std::complex<long double>(5, 5));
}

template <class T>
void check_cas(Repr r, uint32_t bytes, T initial, T other, T swap_in) {
  SCOPED_TRACE(testing::Message() << "repr " << static_cast<int>(r) << " bytes " << bytes);
  for (bool atomic : {false, true}) {
    alignas(16) T t = initial, old{};
    if (atomic && !lock_free(r, bytes, &t)) {
      ADD_FAILURE() << "expected a lock-free CAS for this element";
      continue;
    }
    auto cas = [&](const T& compare) {
      if (atomic)
        cas_atomic(r, bytes, &t, &swap_in, &compare, &old);
      else
        cas_plain(r, bytes, &t, &swap_in, &compare, &old);
    };
    // A compare value that differs leaves the target alone and still reports the old value.
    cas(other);
    EXPECT_EQ(std::memcmp(&t, &initial, sizeof t), 0) << (atomic ? "atomic" : "plain");
    EXPECT_EQ(std::memcmp(&old, &initial, sizeof old), 0);
    cas(initial);
    EXPECT_EQ(std::memcmp(&t, &swap_in, sizeof t), 0) << (atomic ? "atomic" : "plain");
    EXPECT_EQ(std::memcmp(&old, &initial, sizeof old), 0);
    // Once swapped the same compare fails.
    cas(initial);
    EXPECT_EQ(std::memcmp(&t, &swap_in, sizeof t), 0);
    EXPECT_EQ(std::memcmp(&old, &swap_in, sizeof old), 0);
  }
}

TEST(ApplyKernels, CompareAndSwapSwapsOnlyOnEquality) {
  check_cas<int8_t>(Repr::kI8, 1, -3, 4, 100);
  check_cas<uint16_t>(Repr::kU16, 2, 7, 8, 65535);
  check_cas<int32_t>(Repr::kI32, 4, -1, 1, 42);
  check_cas<uint64_t>(Repr::kU64, 8, 1ull << 40, 1, 99);
  check_cas<uint8_t>(Repr::kBool8, 1, 1, 0, 0);
  check_cas<int32_t>(Repr::kLogical4, 4, 0, 1, 1);
  check_cas<uint8_t>(Repr::kU8, 1, 0xf0, 0x0f, 0xff);
  // Opaque 16-byte elements (lock-free with cmpxchg16b): the compare must match every byte,
  // including the high half.
  struct B16 {
    uint64_t lo, hi;
  };
  check_cas<B16>(Repr::kBytes, 16, B16{1, 2}, B16{1, 3}, B16{5, 6});
}

TEST(ApplyKernels, CompareAndSwapPlainOnUnusualSizes) {
  unsigned char t[12], cmp[12], in[12], old[12];
  for (int k = 0; k < 12; ++k) {
    t[k] = cmp[k] = static_cast<unsigned char>(k);
    in[k] = static_cast<unsigned char>(100 + k);
  }
  cmp[11] = 0;  // differs in the last byte only
  cas_plain(Repr::kBytes, 12, t, in, cmp, old);
  EXPECT_EQ(t[11], 11);
  EXPECT_EQ(old[11], 11);
  cmp[11] = 11;
  cas_plain(Repr::kBytes, 12, t, in, cmp, old);
  EXPECT_EQ(std::memcmp(t, in, 12), 0);
  EXPECT_EQ(old[0], 0);
}

TEST(ApplyKernels, LockFreeDependsOnWidthAndAlignment) {
  alignas(32) unsigned char buf[64] = {};
  EXPECT_TRUE(lock_free(Repr::kI8, 1, buf + 3));
  EXPECT_TRUE(lock_free(Repr::kI32, 4, buf + 4));
  EXPECT_FALSE(lock_free(Repr::kI32, 4, buf + 2));
  EXPECT_TRUE(lock_free(Repr::kF64, 8, buf + 8));
  EXPECT_FALSE(lock_free(Repr::kF64, 8, buf + 4));
  EXPECT_FALSE(lock_free(Repr::kC64, 16, buf + 8));
  EXPECT_FALSE(lock_free(Repr::kC80, 32, buf));
  EXPECT_FALSE(lock_free(Repr::kC128, 32, buf));
  EXPECT_FALSE(lock_free(Repr::kPairF80I32, sizeof(long double) + 4, buf));
  EXPECT_FALSE(lock_free(Repr::kBytes, 3, buf));
  EXPECT_FALSE(lock_free(Repr::kBytes, 12, buf));
  EXPECT_TRUE(lock_free(Repr::kBytes, 2, buf + 2));
  // Pairs are as wide as their padded C struct.
  EXPECT_FALSE(lock_free(Repr::kPairI16I32, 6, buf + 4));
  EXPECT_TRUE(lock_free(Repr::kPairI16I32, 6, buf + 8));
}

TEST(ApplyKernels, IntegerAtomicFastPath) {
  alignas(8) uint32_t t = 10, o = 5, old = 0;
  EXPECT_TRUE(integer_atomic(4, Op::kSum, &t, &o, &old));
  EXPECT_EQ(t, 15u);
  EXPECT_EQ(old, 10u);
  EXPECT_TRUE(integer_atomic(4, Op::kNoOp, &t, nullptr, &old));
  EXPECT_EQ(old, 15u);
  EXPECT_TRUE(integer_atomic(4, Op::kBxor, &t, &o, nullptr));
  EXPECT_EQ(t, 10u);
  EXPECT_FALSE(integer_atomic(4, Op::kMax, &t, &o, &old));
  EXPECT_FALSE(integer_atomic(3, Op::kSum, &t, &o, &old));
  EXPECT_EQ(t, 10u);
  alignas(8) uint16_t s = 0xffff, one = 1;
  EXPECT_TRUE(integer_atomic(2, Op::kSum, &s, &one, nullptr));
  EXPECT_EQ(s, 0);
}

TEST(ApplyKernels, CopyElementCopiesFieldsNotPadding) {
  ShortInt src{7, 9};
  unsigned char dst[sizeof(ShortInt)];
  std::memset(dst, 0x5a, sizeof dst);
  copy_element(Repr::kPairI16I32, 6, dst, &src);
  EXPECT_EQ(load<ShortInt>(dst).v, 7);
  EXPECT_EQ(load<ShortInt>(dst).i, 9);
  for (std::size_t k = sizeof(short); k < offsetof(ShortInt, i); ++k)
    EXPECT_EQ(dst[k], 0x5a);
  unsigned char odd_src[5] = {1, 2, 3, 4, 5}, odd_dst[6] = {};
  copy_element(Repr::kBytes, 5, odd_dst, odd_src);
  EXPECT_EQ(std::memcmp(odd_dst, odd_src, 5), 0);
  EXPECT_EQ(odd_dst[5], 0);
}

TEST(ApplyKernels, OpAppliesFollowsMpi) {
  EXPECT_TRUE(op_applies(Op::kReplace, Category::kOpaque));
  EXPECT_TRUE(op_applies(Op::kNoOp, Category::kPair));
  EXPECT_FALSE(op_applies(Op::kSum, Category::kOpaque));
  EXPECT_FALSE(op_applies(Op::kSum, Category::kLogical));
  EXPECT_FALSE(op_applies(Op::kMax, Category::kComplex));
  EXPECT_FALSE(op_applies(Op::kBand, Category::kFloating));
  EXPECT_TRUE(op_applies(Op::kBor, Category::kByte));
  EXPECT_FALSE(op_applies(Op::kMaxloc, Category::kInteger));
  EXPECT_FALSE(op_applies(Op::kInvalid, Category::kInteger));
}

}  // namespace
}  // namespace osprey::dt
